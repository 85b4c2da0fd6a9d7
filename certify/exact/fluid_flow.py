r"""Linear fluid Lyapunov certificates checked by one max-flow bound: no fluid face is listed.

:func:`certify.exact.check_fluid` maximises dV/dt over every fluid face, and the
faces grow like 2^J to 3^J.  For a *linear* V(z) = w'z with w > 0 a bound
needs no faces.  Merge the flows of the network by choice set C: R_C is the rate of
the exogenous streams that join the shortest queue of C, plus mu_i p for each
feedback (i, C, p).  Let

.. math:: a_C = R_C \max_{j \in C} w_j, \qquad a(N) = \sum_{C \subseteq N} a_C,
   \qquad b(N) = \sum_{j \in N} w_j \mu_j .

**Lemma.**  At every fluid state z != 0, with N its set of non-empty stations,
every admissible velocity v has w'v <= a(N) - b(N).

*Proof.*  At a regular time of a fluid path, z_e' = 0 for each empty station e
(a non-negative function has derivative 0 where it is 0 and differentiable),
and z_j' = y_j - mu_j for each j in N (a non-empty station serves at its full
rate), where y_j is the rate of the flows routed to j.  A flow that joins the
shortest queue of C goes only to argmin_C z.  If C meets the empty stations,
argmin_C z is empty stations only: nothing of it reaches N.  If C lies inside
N, its rate is at most R_C (a feedback from i runs at mu_i u_i p <= mu_i p),
and each unit of it adds at most max_C w to sum_{j in N} w_j y_j.  So
w'v = sum_{j in N} w_j (y_j - mu_j) <= a(N) - b(N).  []

Hence, with theta* = max_{N != empty} a(N)/b(N) (exact, polynomial:
:func:`certify.exact.flows.max_ratio`), theta* < 1 gives
w'v <= -(1 - theta*) b(N) <= -delta, delta = (1 - theta*) min_j w_j mu_j, on
every fluid face away from 0, for every tie-breaking rule: the condition of a
linear fluid certificate, and V >= eta ``|z|_1`` with eta = min_j w_j.

**w = 1 is the best weight.**  Let N* attain theta = theta*(1), so that
R(C inside N) <= theta mu(N) for every N.  For any w > 0 and t > 0 let
N_t = {j in N* : w_j >= t}.  Then max_C w = integral over t of [C meets N_t],
w_j = integral of [j in N_t], and the flows inside N* that meet N_t carry
R(C inside N*) - R(C inside N* minus N_t) >= theta mu(N*) - theta mu(N* minus N_t)
= theta mu(N_t); integrating over t gives a_w(N*) >= theta b_w(N*), so
theta*(w) >= theta*(1).  Hence the search needs no LP: w = 1, V = the total
fluid mass.  Without feedback theta*(1) is the ratio of Bramson's subset
condition, so the bound loses nothing there; with feedback it can be weaker
than the face check (an empty station's feedback is bounded by its full rate).

**Feedback charged by its inflow (depth n).**  An empty station departs at the
rate of its inflow, so its feedback can be charged by what can flow into it.
With c^0 = mu, g^0 = 0 and, for n >= 1, I^n_e = sum over the sets C holding e
of [lam_C + sum_{(k,C,p)} p c^{n-1}_k], c^n_e = min(mu_e, I^n_e) and
g^n_{e,m} = sum over the sets C holding e and the feedbacks (k, C, p) of
p [(mu_k - c^{n-1}_k)[m = k] + g^{n-1}_{k,m}], every empty station e departs at
most at c^n_e + sum_{m in N} g^n_{e,m} (induction on n: e's inflow comes from
the sets holding it; min(mu, I + X) <= min(mu, I) + X).  A feedback (e, D, q)
is then charged as terms on station sets K containing D -- q c^n_e on D,
q (mu_e - c^n_e) on D ∪ {e}, q g^n_{e,m} on D ∪ {m} -- and a(N) sums the terms
whose K lies inside N, each times max_D w: w'v <= a_n(N) - b(N) at every fluid
state with non-empty set N (:func:`departure_bounds`, :func:`flow_terms`; the
theorem and its proof: docs/math/fluid.md).  The cut lemma of
:mod:`certify.exact.flows` holds for supplies on any station sets, so theta_n*
is the same max-flow computation.  Depth 0 is the bound above.

Pure Python, exact: no numpy, no solver.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from ..markov.chain import Chain
from .facts import Check, FluidFlowFacts
from .flows import max_ratio

__all__ = ["MAX_INFLOW_DEPTH", "inflow_depths", "flow_rates", "departure_bounds", "flow_terms", "flow_weights", "check_fluid_flow"]

#: The deepest inflow charge a certificate may name (``inflow_depth``) and ``prove`` tries.
MAX_INFLOW_DEPTH = 3


def inflow_depths(chain: Chain) -> range:
    """The inflow depths worth trying: 0 to :data:`MAX_INFLOW_DEPTH` with feedback, 0 alone without (nothing to charge).

    Parameters
    ----------
    chain : Chain
        The network's chain on its stated means.

    Returns
    -------
    range
        The depths, shallowest first.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> inflow_depths(Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),)))
    range(0, 1)
    """
    return range(MAX_INFLOW_DEPTH + 1) if chain.feedback else range(1)


def flow_rates(chain: Chain) -> dict[tuple[int, ...], Fraction]:
    """The rate R_C into each choice set: exogenous streams, plus mu_i p for each feedback (i, C, p).

    Parameters
    ----------
    chain : Chain
        The network's chain (only the means enter).

    Returns
    -------
    dict of tuple of int to Fraction
        Choice set (sorted station indices) to its total rate, the sets in
        :func:`certify.exact.routed_sets` order; sets of rate 0 are left out.

    Examples
    --------
    A stream of rate 1 into {1, 2}, and station 1 (rate 2) feeding back half of
    its departures to {2}:

    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(2), F(1)), (((0, 1), F(1)),), ((0, (1,), F(1, 2)),), (F(1, 2), F(1)))
    >>> flow_rates(ch)
    {(1,): Fraction(1, 1), (0, 1): Fraction(1, 1)}
    """
    rate: dict[tuple[int, ...], Fraction] = defaultdict(Fraction)
    for C, lam in chain.arrivals:
        rate[C] += lam
    for i, C, p in chain.feedback:
        rate[C] += chain.mu[i] * p
    return {C: rate[C] for C in sorted(rate, key=lambda c: (len(c), c)) if rate[C]}


def departure_bounds(chain: Chain, depth: int) -> tuple[list[Fraction], list[dict[int, Fraction]]]:
    """The bounds c^n and g^n on the departure rates of empty stations at inflow depth n (module docstring).

    Parameters
    ----------
    chain : Chain
        The network's chain (only the means enter).
    depth : int
        n >= 0.

    Returns
    -------
    (list of Fraction, list of dict of int to Fraction)
        c^n (one per station, 0 <= c^n_j <= mu_j) and g^n (per station e, the
        non-zero g^n_{e,m} by m): at a fluid state whose non-empty stations are
        N, an empty station e departs at most at c^n_e + sum_{m in N} g^n_{e,m}.

    Examples
    --------
    Station 1 (rate 2) gets only a stream of rate 1/2, so while empty it departs
    at most at 1/2; station 2 gets half of station 1's departures, at most 1 (its rate):

    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(2), F(1)), (((0,), F(1, 2)),), ((0, (1,), F(1, 2)),), (F(1, 2), F(1)))
    >>> departure_bounds(ch, 1)
    ([Fraction(1, 2), Fraction(1, 1)], [{}, {}])
    >>> departure_bounds(ch, 2)  # station 2's charge: 1/4 while station 1 is empty, + 3/4 while busy
    ([Fraction(1, 2), Fraction(1, 4)], [{}, {0: Fraction(3, 4)}])
    """
    J = chain.J
    c = list(chain.mu)
    g: list[dict[int, Fraction]] = [{} for _ in range(J)]
    for _ in range(depth):
        inflow = [Fraction(0)] * J
        nxt: list[dict[int, Fraction]] = [defaultdict(Fraction) for _ in range(J)]
        for C, lam in chain.arrivals:
            for e in C:
                inflow[e] += lam
        for k, C, p in chain.feedback:
            for e in C:
                inflow[e] += p * c[k]
                if c[k] < chain.mu[k]:
                    nxt[e][k] += p * (chain.mu[k] - c[k])
                for m, x in g[k].items():
                    nxt[e][m] += p * x
        c = [min(chain.mu[e], inflow[e]) for e in range(J)]
        g = [{m: x for m, x in sorted(d.items()) if x} for d in nxt]
    return c, g


def flow_terms(chain: Chain, depth: int = 0) -> dict[tuple[tuple[int, ...], tuple[int, ...]], Fraction]:
    """The terms t(K, C) of the bound at inflow depth n: a rate into choice set C that counts where K lies inside N.

    Parameters
    ----------
    chain : Chain
        The network's chain (only the means enter).
    depth : int, optional
        The inflow depth n (default 0: every feedback at mu_i p, K = C).

    Returns
    -------
    dict of (tuple of int, tuple of int) to Fraction
        (K, C) to the rate, K a sorted station set containing C; terms of rate
        0 are left out.

    Examples
    --------
    The feedback of station 1 (rate 2, fed 1/2) into {2}: at depth 1 it is
    charged 1/4 on {2} and, for the times when station 1 is busy, 3/4 on {1, 2}:

    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(2), F(1)), (((0,), F(1, 2)),), ((0, (1,), F(1, 2)),), (F(1, 2), F(1)))
    >>> flow_terms(ch, 0)
    {((0,), (0,)): Fraction(1, 2), ((1,), (1,)): Fraction(1, 1)}
    >>> flow_terms(ch, 1)
    {((0,), (0,)): Fraction(1, 2), ((1,), (1,)): Fraction(1, 4), ((0, 1), (1,)): Fraction(3, 4)}
    """
    c, g = departure_bounds(chain, depth)
    t: dict[tuple[tuple[int, ...], tuple[int, ...]], Fraction] = defaultdict(Fraction)
    for C, lam in chain.arrivals:
        t[C, C] += lam
    for e, D, q in chain.feedback:
        t[D, D] += q * c[e]
        if c[e] < chain.mu[e]:
            t[tuple(sorted({*D, e})), D] += q * (chain.mu[e] - c[e])
        for m, x in g[e].items():
            t[tuple(sorted({*D, m})), D] += q * x
    return {KC: t[KC] for KC in sorted(t, key=lambda kc: (len(kc[0]), kc[0], len(kc[1]), kc[1])) if t[KC]}


def flow_weights(chain: Chain, w: Sequence[Fraction], depth: int = 0,
                 terms: dict[tuple[tuple[int, ...], tuple[int, ...]], Fraction] | None = None) -> dict[tuple[int, ...], Fraction]:
    """The weights a_K of the bound: the terms on K, each times max_C w (module docstring).

    Parameters
    ----------
    chain : Chain
        The network's chain.
    w : sequence of Fraction
        One weight per station.
    depth : int, optional
        The inflow depth (default 0: a_C = R_C max_C w, on the choice sets).
    terms : dict, optional
        At depth >= 1, :func:`flow_terms` at this depth when the caller has it (not computed again).

    Returns
    -------
    dict of tuple of int to Fraction
        Station set K to a_K (at depth 0, the choice sets in :func:`flow_rates` order).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(3, 2)),), (), (F(1), F(1)))
    >>> flow_weights(ch, [F(1), F(2)])
    {(0, 1): Fraction(3, 1)}
    """
    if depth == 0:
        return {C: R * max(w[j] for j in C) for C, R in flow_rates(chain).items()}
    a: dict[tuple[int, ...], Fraction] = defaultdict(Fraction)
    for (K, C), r in (flow_terms(chain, depth) if terms is None else terms).items():
        a[K] += r * max(w[j] for j in C)
    return dict(a)


def check_fluid_flow(chain: Chain, w: Sequence[Any], depth: int = 0) -> Check[FluidFlowFacts]:
    """Check a linear fluid certificate V(z) = w'z by the max-flow bound (no fluid face listed).

    Passes when every w_j > 0 and theta* = max_{N != empty} a(N)/b(N) < 1 (a at inflow depth ``depth``)
    (module docstring): then dV/dt <= -delta with delta = (1 - theta*) min_j
    w_j mu_j at every fluid state away from 0, for every admissible velocity and
    every tie-breaking rule, and V >= eta ``|z|_1`` with eta = min_j w_j.

    Parameters
    ----------
    chain : Chain
        The network's (exponential) chain: only the means enter the fluid model.
    w : sequence
        The weights, one per station, exact.
    depth : int, optional
        The inflow depth of the feedback charge, 0..MAX_INFLOW_DEPTH (default 0: every feedback at mu_i p).

    Returns
    -------
    Check of FluidFlowFacts
        Passed with delta, eta, theta, the tightest set and the number of
        choice sets; or the failure, naming the set where the bound fails.

    Examples
    --------
    Two stations of rate 1 sharing a stream of rate 3/2: the total mass
    decreases at rate 1/2 (both busy) or more.

    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(3, 2)),), (), (F(1), F(1)))
    >>> chk = check_fluid_flow(ch, [F(1), F(1)])
    >>> chk.ok, chk.facts.theta, chk.facts.delta, chk.facts.tightest
    (True, Fraction(3, 4), Fraction(1, 4), ['1', '2'])
    >>> print(check_fluid_flow(ch, [F(1), F(3)]).failures[0])  # doctest: +NORMALIZE_WHITESPACE
    the max-flow bound does not show dV/dt < 0: on the fluid states whose non-empty stations are {1,2}, the flows
    into choice sets inside them carry w-weighted rate 9/2 against w-weighted service 4 (ratio 9/8, must be < 1)
    """
    J = chain.J
    ws = [Fraction(v) for v in w]
    if len(ws) != J or any(v <= 0 for v in ws):
        return Check.failed(["linear fluid weights must be one positive number per station"])
    if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= MAX_INFLOW_DEPTH:
        return Check.failed([f"the inflow depth {depth!r} must be an integer in 0..{MAX_INFLOW_DEPTH}"])
    weights = flow_weights(chain, ws, depth)
    service = [ws[j] * chain.mu[j] for j in range(J)]
    best = max_ratio(weights, service)
    A = set(best.argmax)
    a = sum((x for C, x in weights.items() if A.issuperset(C)), Fraction(0))
    b = sum((service[j] for j in A), Fraction(0))
    if a != best.ratio * b:  # recomputed from the data: the reported set attains the reported ratio
        raise AssertionError(f"max_ratio reported {best.ratio} at {best.argmax}, whose ratio is {a / b}")
    names = [chain.ids[j] for j in best.argmax]
    if best.ratio >= 1:
        return Check.failed([
            "the max-flow bound does not show dV/dt < 0: on the fluid states whose non-empty stations are "
            f"{{{','.join(names)}}}, the flows into choice sets inside them{_charged(depth)} carry w-weighted rate {a} against "
            f"w-weighted service {b} (ratio {best.ratio}, must be < 1)"
        ])
    delta = (1 - best.ratio) * min(service)
    return Check.passed(FluidFlowFacts(delta=delta, eta=min(ws), theta=best.ratio, tightest=names, sets=len(weights)))


def _charged(depth: int) -> str:
    """How the bound charged the feedback, for its failure message (nothing at depth 0)."""
    return f" (an empty station's feedback charged by its inflow, depth {depth})" if depth else ""
