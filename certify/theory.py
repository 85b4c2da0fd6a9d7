"""Known stability theorems, with their hypotheses checked exactly (DESIGN §8).

Each criterion is a plain function ``criterion(chain) -> TheoremVerdict | None``:
``None`` when its hypotheses do not hold; otherwise the theorem's verdict
(``stable``, ``unstable``, or ``critical`` on the boundary, where the theorem
says nothing) with the numbers that decide it and the source.  Everything is
exact (Fractions), and no numpy is imported.

The criteria:

* Generalized Jackson networks (every choice set a single station): stable iff
  the traffic equations give a_j < mu_j at every station (Dai 1995 via the
  fluid model; general i.i.d. primitives).
* No feedback (Bramson 2011; Foss–Chernova 1998; Cruise–Jonckheere–Shneer):
  stable iff for every non-empty set A of stations sum_{C subset A} lam_C < mu(A);
  a reversed inequality overloads A under every policy.  M/M-JSQ with
  heterogeneous servers (one stream choosing among all stations) is the special
  case lam < sum mu (Foss–Chernova 1998; Kobayashi–Sakuma–Miyazawa 2013).
* Homogeneous feedback p[i][C] = p_C (Dai–Hasenbein–Kim 2007): stable iff
  Lambda_C + lam*/(1-p*) P_C < mu_C for every non-empty C; a reversed
  inequality gives divergence.
* Two stations with heterogeneous feedback (Dai–Hasenbein–Kim 2007; the three
  conditions C0/C1/C2 as written in ``../shared/corpus/README.md``).

* Fork-join with redundancy (seed 003; the corpus water-filling formula):
  with static exponential rates d_i the system is stable iff lam < theta, the
  root of sum_i min(d_i, theta) = k theta; theta = mu*/k exactly for the
  maximal designs (max d_i <= mu*/k).  :func:`fork_join` (exponential servers).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations

from .chain import Chain
from .rational import solve

__all__ = [
    "TheoremVerdict",
    "CRITERIA",
    "theorem_verdicts",
    "jackson",
    "no_feedback",
    "homogeneous_feedback",
    "two_station",
    "fork_join",
]


@dataclass(frozen=True)
class TheoremVerdict:
    """A theorem's verdict on a network whose hypotheses it checked."""

    theorem: str
    verdict: str  # "stable" | "unstable" | "critical"
    source: str
    numbers: str
    semantics: str = "general"
    hypotheses: tuple[str, ...] = field(default=())

    def to_json(self) -> dict:
        return {
            "theorem": self.theorem,
            "verdict": self.verdict,
            "source": self.source,
            "numbers": self.numbers,
            "semantics": self.semantics,
            "hypotheses": list(self.hypotheses),
        }


def _sign(lhs: Fraction, rhs: Fraction) -> int:
    return (lhs > rhs) - (lhs < rhs)


def _name(chain: Chain, S) -> str:
    return "{" + ",".join(chain.ids[j] for j in sorted(S)) + "}"


def _lam(chain: Chain) -> dict[tuple[int, ...], Fraction]:
    return dict(chain.arrivals)


def _verdict(worst: int) -> str:
    return {-1: "stable", 0: "critical", 1: "unstable"}[worst]


def jackson(chain: Chain) -> TheoremVerdict | None:
    """Generalized Jackson network: every stream and feedback goes to a single station."""
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
    signs = [_sign(a[j], chain.mu[j]) for j in range(J)]
    worst = max(signs)
    j = signs.index(worst)
    return TheoremVerdict(
        "generalized Jackson network (traffic equations)",
        _verdict(worst),
        "J. G. Dai, 'On positive Harris recurrence of multiclass queueing networks', Ann. Appl. Probab. 5 (1995)",
        f"max_j a_j/mu_j = {float(a[j] / chain.mu[j]):.6g} at station {chain.ids[j]} (a = traffic-equation rates)",
        hypotheses=("every choice set holds one station", "no capacities"),
    )


def _subsets(J: int):
    for k in range(1, J + 1):
        yield from combinations(range(J), k)


def no_feedback(chain: Chain) -> TheoremVerdict | None:
    """Bramson's subset condition for networks without feedback (M/M-JSQ as a special case)."""
    if chain.feedback:
        return None
    lam = _lam(chain)
    worst, arg, ratio = -2, None, Fraction(0)
    for A in _subsets(chain.J):
        S = set(A)
        load = sum((r for C, r in lam.items() if set(C) <= S), Fraction(0))
        cap = sum((chain.mu[j] for j in A), Fraction(0))
        s = _sign(load, cap)
        if (s, load / cap) > (worst, ratio):
            worst, arg, ratio = s, A, load / cap
    full = tuple(range(chain.J))
    mmjsq = len(lam) == 1 and next(iter(lam)) == full and chain.J > 1
    name = "M/M-JSQ, heterogeneous servers: lam < sum mu" if mmjsq else "no feedback: subset condition"
    src = (
        "S. Foss, N. Chernova, 'On the stability of a partially accessible multi-station queue with state-dependent "
        "routing', Queueing Systems 29 (1998); M. Bramson, 'Stability of join the shortest queue networks', "
        "Ann. Appl. Probab. 21 (2011)"
    )
    return TheoremVerdict(
        name,
        _verdict(worst),
        src,
        f"max_A Lambda_A/mu(A) = {float(ratio):.6g} at A = {_name(chain, arg)}",
        hypotheses=("no feedback", "no capacities"),
    )


def homogeneous_feedback(chain: Chain) -> TheoremVerdict | None:
    """Dai–Hasenbein–Kim: feedback p[i][C] = p_C, the same from every station."""
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
    worst, arg, ratio = -2, None, Fraction(0)
    for A in _subsets(chain.J):
        S = set(A)
        lhs = sum((r for C, r in lam.items() if set(C) <= S), Fraction(0)) + lam_star / (1 - p_star) * sum(
            (p for C, p in pC.items() if set(C) <= S), Fraction(0)
        )
        cap = sum((chain.mu[j] for j in A), Fraction(0))
        s = _sign(lhs, cap)
        if (s, lhs / cap) > (worst, ratio):
            worst, arg, ratio = s, A, lhs / cap
    return TheoremVerdict(
        "homogeneous feedback (Lambda_C + lam*/(1-p*) P_C < mu_C)",
        _verdict(worst),
        "J. G. Dai, J. J. Hasenbein, B. Kim, 'Stability of join-the-shortest-queue networks', Queueing Systems 57 "
        "(2007), doi:10.1007/s11134-007-9046-5",
        f"max_C (Lambda_C + lam*/(1-p*) P_C)/mu_C = {float(ratio):.6g} at C = {_name(chain, arg)} "
        f"(lam* = {float(lam_star):.6g}, p* = {float(p_star):.6g})",
        hypotheses=("feedback p[i][C] = p_C from every station", "p* < 1", "no capacities"),
    )


def two_station(chain: Chain) -> TheoremVerdict | None:
    """Two stations with (heterogeneous) feedback: conditions C0, C1, C2."""
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
    signs = [_sign(c, Fraction(0)) for c in (C0, C1, C2)]
    worst = max(signs)
    return TheoremVerdict(
        "two stations, heterogeneous feedback (C0, C1, C2)",
        _verdict(worst),
        "J. G. Dai, J. J. Hasenbein, B. Kim, 'Stability of join-the-shortest-queue networks', Queueing Systems 57 "
        "(2007); conditions as written in ../shared/corpus/README.md",
        f"C0: {float(C0):.6g}, C1: {float(C1):.6g}, C2: {float(C2):.6g} (each must be < 0)",
        hypotheses=("two stations", "no capacities"),
    )


# Most specific first: the first applicable criterion is reported.
CRITERIA: tuple[Callable[[Chain], TheoremVerdict | None], ...] = (jackson, no_feedback, homogeneous_feedback, two_station)


def theorem_verdicts(chain: Chain) -> list[TheoremVerdict]:
    """Every criterion whose hypotheses hold for ``chain`` (mean data; capacities are the caller's concern).

    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(1), F(2)), (((0, 1), F(5, 2)),), (), (F(1), F(1)))
    >>> [(t.theorem, t.verdict) for t in theorem_verdicts(ch)]
    [('M/M-JSQ, heterogeneous servers: lam < sum mu', 'stable')]
    """
    out = []
    for crit in CRITERIA:
        tv = crit(chain)
        if tv is not None:
            out.append(tv)
    return out


def fork_join(net) -> TheoremVerdict:
    """Seed 003 for an (n,k) fork-join network with redundancy: stable iff lam < theta (exponential servers).

    >>> from fractions import Fraction as F
    >>> from certify.model import ForkJoinNetwork
    >>> fj = ForkJoinNetwork("n3k2", 3, 2, F(36, 100), (("1", F(6, 10)), ("2", F(2, 10)), ("3", F(2, 10))))
    >>> fork_join(fj).verdict, fork_join(fj).numbers.split(";")[0]
    ('stable', 'theta = 0.4 (water-filling)')
    """
    from .forkjoin import maximal_design, throughput_capacity, traffic_intensity

    theta = throughput_capacity(net)
    lam = Fraction(net.rate)
    return TheoremVerdict(
        "fork-join with redundancy: lam < theta",
        _verdict(_sign(lam, theta)),
        "'Stability of Fork-Join Systems with Redundancy and Heterogeneous Servers' (seed 003); theta from "
        "sum_i min(d_i, theta) = k theta",
        f"theta = {float(theta):.6g} (water-filling); lam/theta = {float(lam / theta):.6g}; rho = k lam/mu* = "
        f"{float(traffic_intensity(net)):.6g}; maximal design: {maximal_design(net)}",
        semantics="markovian",
        hypotheses=("exponential servers", "Poisson jobs"),
    )
