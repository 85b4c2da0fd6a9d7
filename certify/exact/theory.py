"""Known stability theorems, with their hypotheses checked exactly on the network (docs/math/theorems.md).

Each criterion is a plain function ``criterion(chain, hyp=MARKOVIAN) ->
TheoremVerdict | None``: ``None`` when its structural hypotheses (which
routing it covers) do not hold; otherwise the inequality's outcome --
``stable``, ``unstable``, or ``critical`` -- with the numbers that decide it,
the source, the hypotheses it checked, and whether that outcome is *proved*
on this network (``proved``; ``missing`` says what is not).  ``hyp``
(:class:`~certify.exact.verdict.Hypotheses`) carries what the means alone do not tell: whether the
interarrival laws meet Dai's conditions (:func:`certify.core.hypotheses.dai_violations`);
build it with ``Hypotheses.of(net)``.  A bare chain stands for its exponential
network, for which every condition holds.  Everything is exact (Fractions);
no numpy is imported.

``critical``: the deciding inequality holds with equality (e.g. lam = sum mu, or
a_j = mu_j at the worst station).  The theorems say nothing there -- a critical
network may be null recurrent or transient -- so ``critical`` is never a verdict
of :func:`certify.prove`; it is reported as "on the stability boundary".

Which side needs what:

* ``unstable`` sides rest on flow balance (some set of stations receives more
  work than it can serve under every routing): no distributional hypothesis
  beyond i.i.d. primitives with these means.
* ``stable`` sides of the Jackson, no-feedback and homogeneous-feedback
  theorems rest on the fluid model and Dai's theorem (fluid stable => positive
  Harris recurrent), which needs every interarrival law **unbounded and spread
  out** (Dai 1995; Bramson 2011, conditions (1.11)-(1.12), which also give his
  (1.7)).  A deterministic interarrival law breaks both: then the stable side is
  reported with ``proved=False`` and ``missing`` naming the streams.

The criteria:

* Generalized Jackson networks (every choice set a single station): stable iff
  the traffic equations give a_j < mu_j at every station (Dai 1995 via the
  fluid model; general i.i.d. primitives, Dai's interarrival conditions).
* No feedback (Bramson 2011 Thm 1.2 / Cor. 1.1; Foss–Chernova 1998):
  stable iff for every non-empty set A of stations sum_{C subset A} lam_C < mu(A)
  (interarrival conditions (1.11)-(1.12)); a reversed inequality overloads A
  under every policy.  M/M-JSQ with heterogeneous servers (one stream choosing
  among all stations) is the special case lam < sum mu.
* Homogeneous feedback p[i][C] = p_C, p* < 1 (Dai–Hasenbein–Kim 2007, by
  fluid limits and Dai 1995): stable iff Lambda_C + lam*/(1-p*) P_C < mu_C for
  every non-empty C; a reversed inequality gives divergence (no
  distributional hypothesis).
* Two stations with heterogeneous feedback: DHK 2007 prove that three linear
  inequalities in the means characterize positive Harris recurrence for J = 2,
  but the inequalities used here (C0/C1/C2) are the ones written in
  ``corpus/README.md``, "derived by a fluid argument and checked on 320
  simulated networks" -- not checked against the paper's statement.  So this
  criterion is a **cross-check** only (``proved=False`` always): it is
  reported next to the certificates and never gives a verdict.

How the subset criteria are decided: the worst set, max_A w(A)/mu(A) over the
2^J - 1 non-empty station sets, is computed exactly by max flows and
Dinkelbach's iteration (:func:`certify.exact.flows.max_ratio`, with the proof
that the minimum cut gives the maximizing set), in polynomial time, never by
listing the subsets.  The set reported is the smallest maximizer, the first in
combinations order among equals (the one the enumeration by size reported).

The fork-join theorem (fork-join redundancy, lam < theta) is :func:`certify.exact.forkjoin_capacity.fork_join`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import TYPE_CHECKING

from ..core.numbers import approx_str, solve
from ..markov.chain import Chain
from .flows import max_ratio
from .verdict import MARKOVIAN, Hypotheses, TheoremVerdict, fluid_theorem_verdict, sign, verdict_of

if TYPE_CHECKING:
    from ..core.model import Network

__all__ = [
    "CRITERIA",
    "theorem_verdicts",
    "jackson",
    "no_feedback",
    "homogeneous_feedback",
    "two_station",
]


def _name(chain: Chain, S: Iterable[int]) -> str:
    return "{" + ",".join(chain.ids[j] for j in sorted(S)) + "}"


def _lam(chain: Chain) -> dict[tuple[int, ...], Fraction]:
    return dict(chain.arrivals)


def jackson(chain: Chain, hyp: Hypotheses = MARKOVIAN) -> TheoremVerdict | None:
    """Generalized Jackson network: every stream and feedback goes to a single station.

    Hypotheses: every choice set holds one station; no capacities (the
    caller's concern); i.i.d. primitives.  Stable iff a_j < mu_j for every j,
    a the solution of the traffic equations (Dai 1995, which needs Dai's
    interarrival conditions); a_j > mu_j somewhere is flow balance (no
    distributional hypothesis).

    Parameters
    ----------
    chain : Chain
        The network's mean data (capacities are the caller's concern).
    hyp : Hypotheses
        Dai's interarrival conditions as they hold (default: an exponential network).

    Returns
    -------
    TheoremVerdict or None
        None when the structural hypotheses do not hold (or the traffic equations are singular).

    Examples
    --------
    Two stations in tandem, lam = 1, mu = (2, 1): station 2 is critical.

    >>> from fractions import Fraction as F
    >>> tandem = Chain(("1", "2"), (F(2), F(1)), (((0,), F(1)),), ((0, (1,), F(1)),), (F(0), F(1)))
    >>> tv = jackson(tandem)
    >>> tv.verdict, tv.decides
    ('critical', False)
    """
    if any(len(C) > 1 for C, _ in chain.arrivals) or any(len(C) > 1 for _, C, _ in chain.feedback):
        return None
    J = chain.J
    # a = lam + P' a, solved exactly: (I - P') a = lam
    A = [[Fraction(int(i == j)) for j in range(J)] for i in range(J)]
    lam = [Fraction(0)] * J
    for C, r in chain.arrivals:
        lam[C[0]] += r
    for i, C, p in chain.feedback:
        A[C[0]][i] -= p
    a = solve(A, lam)
    if a is None:
        return None
    signs = [sign(a[j], chain.mu[j]) for j in range(J)]
    worst = max(signs)
    j = signs.index(worst)
    return fluid_theorem_verdict(
        "generalized Jackson network (traffic equations)",
        worst,
        "J. G. Dai, 'On positive Harris recurrence of multiclass queueing networks', Ann. Appl. Probab. 5 (1995)",
        f"max_j a_j/mu_j = {approx_str(a[j] / chain.mu[j])} at station {chain.ids[j]} (a = traffic-equation rates)",
        ("every choice set holds one station", "no capacities"),
        hyp,
    )


def _worst_set(chain: Chain, weights: dict[tuple[int, ...], Fraction]) -> tuple[int, Fraction, tuple[int, ...]]:
    """The side, the value and the place of max_A w(A)/mu(A) over non-empty station sets A.

    Exact max flows (:func:`certify.exact.flows.max_ratio`), polynomial in the
    size of the network.  ``(sign(w(A), mu(A)), w(A)/mu(A))`` is ordered as the
    ratio is (mu(A) > 0), so this is the set an enumeration of every subset by
    size and in combinations order, keeping the first strict improvement of
    that pair, reports: the smallest maximizer, the first among equals.
    """
    best = max_ratio(weights, chain.mu)
    S = set(best.argmax)
    load = sum((w for C, w in weights.items() if S.issuperset(C)), Fraction(0))
    cap = sum((chain.mu[j] for j in best.argmax), Fraction(0))
    if load / cap != best.ratio:  # recomputed from the data: the reported set attains the reported ratio
        raise AssertionError(f"max_ratio reported {best.ratio} at {best.argmax}, whose ratio is {load / cap}")
    return sign(load, cap), best.ratio, best.argmax


def no_feedback(chain: Chain, hyp: Hypotheses = MARKOVIAN) -> TheoremVerdict | None:
    """Bramson's subset condition for networks without feedback (M/M-JSQ as a special case).

    Hypotheses: no feedback; no capacities; i.i.d. primitives.  The stable side
    is Bramson 2011 Thm 1.2 / Cor. 1.1, which needs the interarrival conditions
    (1.11) unbounded and (1.12) spread out (they also give his condition (1.7));
    the unstable side (Lambda_A > mu(A) for some A) is flow balance.

    Parameters
    ----------
    chain : Chain
        The network's mean data (capacities are the caller's concern).
    hyp : Hypotheses
        Dai's interarrival conditions as they hold (default: an exponential network).

    Returns
    -------
    TheoremVerdict or None
        None when the structural hypotheses do not hold (the network has feedback).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(1), F(2)), (((0, 1), F(5, 2)),), (), (F(1), F(1)))
    >>> tv = no_feedback(ch)
    >>> tv.theorem, tv.verdict
    ('M/M-JSQ, heterogeneous servers: lam < sum mu', 'stable')
    """
    if chain.feedback:
        return None
    lam = _lam(chain)
    worst, ratio, arg = _worst_set(chain, lam)
    full = tuple(range(chain.J))
    mmjsq = len(lam) == 1 and next(iter(lam)) == full and chain.J > 1
    name = "M/M-JSQ, heterogeneous servers: lam < sum mu" if mmjsq else "no feedback: subset condition"
    src = (
        "S. Foss, N. Chernova, 'On the stability of a partially accessible multi-station queue with state-dependent "
        "routing', Queueing Systems 29 (1998); M. Bramson, 'Stability of join the shortest queue networks', "
        "Ann. Appl. Probab. 21 (2011)"
    )
    return fluid_theorem_verdict(
        name, worst, src, f"max_A Lambda_A/mu(A) = {approx_str(ratio)} at A = {_name(chain, arg)}",
        ("no feedback", "no capacities"), hyp,
    )


def homogeneous_feedback(chain: Chain, hyp: Hypotheses = MARKOVIAN) -> TheoremVerdict | None:
    """Dai–Hasenbein–Kim: feedback p[i][C] = p_C, the same from every station.

    Hypotheses: p[i][C] = p_C for every station i; p* < 1; no capacities;
    i.i.d. primitives.  The stable side is proved by fluid limits and Dai 1995
    (Dai's interarrival conditions); the reversed inequality gives divergence
    of the total queue length (no distributional hypothesis).

    Parameters
    ----------
    chain : Chain
        The network's mean data (capacities are the caller's concern).
    hyp : Hypotheses
        Dai's interarrival conditions as they hold (default: an exponential network).

    Returns
    -------
    TheoremVerdict or None
        None when the structural hypotheses do not hold (no feedback, feedback that differs between stations, or p* >= 1).

    Examples
    --------
    Two stations sharing one stream, each sending a customer back to the pair
    with probability 1/2: lam*/(1-p*) = 2 per unit of total capacity 3.

    >>> from fractions import Fraction as F
    >>> back = ((0, (0, 1), F(1, 2)), (1, (0, 1), F(1, 2)))
    >>> ch = Chain(("1", "2"), (F(1), F(2)), (((0, 1), F(1)),), back, (F(1, 2), F(1, 2)))
    >>> homogeneous_feedback(ch).verdict
    'stable'
    """
    if not chain.feedback:
        return None
    rows: list[dict[tuple[int, ...], Fraction]] = [{} for _ in range(chain.J)]
    for i, C, p in chain.feedback:
        rows[i][C] = rows[i].get(C, Fraction(0)) + p
    if any(r != rows[0] for r in rows[1:]):
        return None
    pC = rows[0]
    p_star = sum(pC.values(), Fraction(0))
    if p_star >= 1:
        return None
    lam = _lam(chain)
    lam_star = sum(lam.values(), Fraction(0))
    # Lambda_C + lam*/(1-p*) P_C = w(C) for the weights w_B = lam_B + lam*/(1-p*) p_B on the choice sets B
    weights = dict(lam)
    for B, p in pC.items():
        weights[B] = weights.get(B, Fraction(0)) + lam_star / (1 - p_star) * p
    worst, ratio, arg = _worst_set(chain, weights)
    return fluid_theorem_verdict(
        "homogeneous feedback (Lambda_C + lam*/(1-p*) P_C < mu_C)",
        worst,
        "J. G. Dai, J. J. Hasenbein, B. Kim, 'Stability of join-the-shortest-queue networks', Queueing Systems 57 "
        "(2007), doi:10.1007/s11134-007-9046-5",
        f"max_C (Lambda_C + lam*/(1-p*) P_C)/mu_C = {approx_str(ratio)} at C = {_name(chain, arg)} "
        f"(lam* = {float(lam_star):.6g}, p* = {float(p_star):.6g})",
        ("feedback p[i][C] = p_C from every station", "p* < 1", "no capacities"),
        hyp,
    )


def two_station(chain: Chain, hyp: Hypotheses = MARKOVIAN) -> TheoremVerdict | None:
    """Two stations with (heterogeneous) feedback: conditions C0, C1, C2 -- a cross-check, never a proof.

    DHK 2007 characterize J = 2 by three linear inequalities, but C0/C1/C2 here
    are the corpus README's version ("derived by a fluid argument and checked on
    320 simulated networks"), not checked against the paper.  So the outcome is
    always ``proved=False``: it is compared with the certificates, and gives no
    verdict of its own.  Hypotheses as for DHK: two stations, p_1*, p_2* < 1, no
    capacities (and Dai's interarrival conditions for the stable side).

    Parameters
    ----------
    chain : Chain
        The network's mean data (capacities are the caller's concern).
    hyp : Hypotheses
        Dai's interarrival conditions as they hold (default: an exponential network).

    Returns
    -------
    TheoremVerdict or None
        None when the structural hypotheses do not hold (not two stations, no feedback, or p_i* >= 1).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), ((0, (1,), F(1, 2)),), (F(1, 2), F(1)))
    >>> tv = two_station(ch)
    >>> tv.verdict, tv.proved
    ('stable', False)
    """
    if chain.J != 2 or not chain.feedback:
        return None
    lam = _lam(chain)
    l1, l2, l12 = lam.get((0,), Fraction(0)), lam.get((1,), Fraction(0)), lam.get((0, 1), Fraction(0))
    p = {(i, C): q for i, C, q in chain.feedback}

    def pp(i: int, C: tuple[int, ...]) -> Fraction:
        return p.get((i, C), Fraction(0))

    m1, m2 = chain.mu
    p1s = pp(0, (0,)) + pp(0, (1,)) + pp(0, (0, 1))
    p2s = pp(1, (0,)) + pp(1, (1,)) + pp(1, (0, 1))
    if p1s >= 1 or p2s >= 1:
        return None
    c1 = 1 - pp(0, (0,)) - pp(0, (0, 1))
    c2 = 1 - pp(1, (1,)) - pp(1, (0, 1))
    C0 = (l1 + l2 + l12) - (m1 * (1 - p1s) + m2 * (1 - p2s))
    C1 = (l1 - m1 * (1 - pp(0, (0,)))) * c2 + pp(1, (0,)) * (l2 + l12 + m1 * (pp(0, (1,)) + pp(0, (0, 1))))
    C2 = (l2 - m2 * (1 - pp(1, (1,)))) * c1 + pp(0, (1,)) * (l1 + l12 + m2 * (pp(1, (0,)) + pp(1, (0, 1))))
    signs = [sign(c, Fraction(0)) for c in (C0, C1, C2)]
    worst = max(signs)
    missing = ["a cross-check: conditions C0/C1/C2 as written in the corpus README (derived by a fluid argument, "
               "checked by simulation), not a proved theorem here"]
    if worst < 0 and hyp.interarrival:
        missing.append(f"Dai's conditions on the interarrival times fail: {'; '.join(hyp.interarrival)}")
    return TheoremVerdict(
        "two stations, heterogeneous feedback (C0, C1, C2; cross-check)",
        verdict_of(worst),
        "conditions C0/C1/C2 of corpus/README.md (derived there by a fluid argument and checked on 320 "
        "simulated networks), after the two-station result of J. G. Dai, J. J. Hasenbein, B. Kim, 'Stability of "
        "join-the-shortest-queue networks', Queueing Systems 57 (2007)",
        f"C0: {approx_str(C0)}, C1: {approx_str(C1)}, C2: {approx_str(C2)} (each must be < 0)",
        hypotheses=("two stations", "p_1*, p_2* < 1", "no capacities"),
        proved=False,
        missing=tuple(missing),
    )


# Most specific first: the first applicable criterion is reported.
CRITERIA: tuple[Callable[..., TheoremVerdict | None], ...] = (jackson, no_feedback, homogeneous_feedback, two_station)


def theorem_verdicts(chain: Chain, net: Network | None = None) -> list[TheoremVerdict]:
    """Every criterion whose structural hypotheses hold for ``chain`` (mean data; capacities are the caller's concern).

    ``net`` (the network ``chain`` was compiled from) supplies the
    distributional hypotheses (:class:`~certify.exact.verdict.Hypotheses`); without it the chain
    stands for its exponential network.  Only verdicts with ``proved`` (see
    :attr:`~certify.exact.verdict.TheoremVerdict.decides`) are proofs on the network.

    Parameters
    ----------
    chain : Chain
        The network's mean data.
    net : Network, optional
        The network ``chain`` was compiled from (its interarrival laws).

    Returns
    -------
    list of TheoremVerdict
        One per applicable criterion of :data:`CRITERIA`, most specific first.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(1), F(2)), (((0, 1), F(5, 2)),), (), (F(1), F(1)))
    >>> [(t.theorem, t.verdict, t.proved) for t in theorem_verdicts(ch)]
    [('M/M-JSQ, heterogeneous servers: lam < sum mu', 'stable', True)]
    """
    hyp = MARKOVIAN if net is None else Hypotheses.of(net)
    out = []
    for crit in CRITERIA:
        tv = crit(chain, hyp)
        if tv is not None:
            out.append(tv)
    return out

