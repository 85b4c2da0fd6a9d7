"""Test-only reference: the subset criteria by enumerating all 2^J - 1 station sets (the code before issue 12).

``enumerate_max_ratio`` and ``enumerate_max_closure`` are the brute-force
truth for :mod:`certify.exact.flows`; ``no_feedback`` and
``homogeneous_feedback`` are the criteria of :mod:`certify.exact.theory` as
they were written before the max-flow computation replaced the loop (verbatim
but for the imports), so that the new criteria can be compared with them
verdict for verdict, number for number.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

from certify.core.numbers import approx_str
from certify.exact.theory import _lam, _name
from certify.exact.verdict import MARKOVIAN, fluid_theorem_verdict, sign


def _subsets(J):
    for k in range(1, J + 1):
        yield from combinations(range(J), k)


def enumerate_max_ratio(weights, mu):
    """(max ratio, first maximizer) over non-empty sets, in size-then-combinations order, first strict improvement kept."""
    best = None
    for A in _subsets(len(mu)):
        S = set(A)
        r = sum((w for C, w in weights.items() if set(C) <= S), Fraction(0)) / sum((mu[j] for j in A), Fraction(0))
        if best is None or r > best[0]:
            best = (r, A)
    return best


def enumerate_max_closure(weights, mu, theta):
    """(max of w(A) - theta mu(A) over all sets, the empty one included; the intersection of its maximizers)."""
    J = len(mu)
    values = {(): Fraction(0)}
    for A in _subsets(J):
        S = set(A)
        values[A] = sum((w for C, w in weights.items() if set(C) <= S), Fraction(0)) - theta * sum(
            (mu[j] for j in A), Fraction(0))
    top = max(values.values())
    least = set(range(J))
    for A, v in values.items():
        if v == top:
            least &= set(A)
    return top, tuple(sorted(least))


def no_feedback(chain, hyp=MARKOVIAN):
    """Bramson's subset condition by enumeration (the pre-issue-12 criterion)."""
    if chain.feedback:
        return None
    lam = _lam(chain)
    worst, arg, ratio = -2, None, Fraction(0)
    for A in _subsets(chain.J):
        S = set(A)
        load = sum((r for C, r in lam.items() if set(C) <= S), Fraction(0))
        cap = sum((chain.mu[j] for j in A), Fraction(0))
        s = sign(load, cap)
        if (s, load / cap) > (worst, ratio):
            worst, arg, ratio = s, A, load / cap
    assert arg is not None
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


def homogeneous_feedback(chain, hyp=MARKOVIAN):
    """The DHK criterion by enumeration (the pre-issue-12 criterion)."""
    if not chain.feedback:
        return None
    rows = [{} for _ in range(chain.J)]
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
        s = sign(lhs, cap)
        if (s, lhs / cap) > (worst, ratio):
            worst, arg, ratio = s, A, lhs / cap
    assert arg is not None
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
