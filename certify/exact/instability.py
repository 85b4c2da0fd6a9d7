"""The exact checks of instability certificates under every law: static split dual and closed set.

(The growth function, a Markovian transience certificate, is checked in
:mod:`certify.exact.growth`.)  Every condition is recomputed here in rational
arithmetic from the exact network data; a passing check is the only road to an
``unstable`` verdict.  Pure Python: no numpy, no solver.

Theorems used (instability)
---------------------------
Flow balance.  In a stable network every station j has throughput
d_j = mu_j P(station j busy) <= mu_j, and the routed flows f_{C,j} satisfy
sum_j f_{C,j} = lam_C + sum_i d_i p[i][C].  A dual solution of the static
split LP with value < 0 shows no such flows exist: not stable.

Customers that never leave.  Let S be a set of stations from which no customer
ever leaves: for every i in S the feedback probabilities sum to 1 and every
feedback choice set of i lies inside S.  Then N_S(t) = sum_{j in S} x_j(t)
never decreases (a customer served in S rejoins S), and N_S(t) >= A_S(t), the
number of exogenous arrivals whose choice set lies inside S.  If those sets
receive rate r > 0, A_S(t)/t -> r almost surely (renewal law of large numbers),
so the queue lengths tend to infinity: no stationary regime exists, for every
service and interarrival law with these means and every tie-breaking rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from ..markov.chain import Chain
from .facts import Check, ClosedSetFacts, StaticSplitFacts

__all__ = ["routed_sets", "check_static_split", "closed_set", "check_closed_set"]


def _set_str(chain: Chain, C: Sequence[int]) -> str:
    return "{" + ",".join(chain.ids[a] for a in range(chain.J) if a in C) + "}"


def routed_sets(chain: Chain) -> list[tuple[int, ...]]:
    """Every choice set that receives customers (exogenous or fed back), sorted.

    Parameters
    ----------
    chain : Chain
        The network's chain.

    Returns
    -------
    list of tuple of int
        The choice sets (station indices), smallest first.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), ((0, (1,), F(1, 2)),), (F(1, 2), F(1)))
    >>> routed_sets(ch)
    [(1,), (0, 1)]
    """
    return sorted({c for c, _ in chain.arrivals} | {c for _, c, _ in chain.feedback}, key=lambda c: (len(c), c))


def check_static_split(
    chain: Chain, u: Mapping[tuple[int, ...], Fraction], w: Sequence[Fraction], lossy: Sequence[tuple[int, ...]] = ()
) -> Check[StaticSplitFacts]:
    """Check a dual certificate that the static split LP has value <= 0 (not positive recurrent).

    Conditions: w >= 0, sum w = 1, for every routed set C and j in C
    u_C + w_j - sum_C' p[j][C'] u_C' >= 0, u_C >= 0 for every lossy set C (every
    station of C has a capacity, so C may lose customers: flow balance with losses,
    ``docs/math/capacities.md``), and sum_C lam_C u_C + sum_j mu_j w_j < 0.
    By weak duality every routing overloads some station (d_j > mu_j), which no
    stationary regime allows, whatever the distributions; the support of w is the
    overloaded set of stations.  (The value is required to be strictly negative,
    so critical networks are left undecided.)

    Parameters
    ----------
    chain : Chain
        The network's chain.
    u : mapping of choice set to Fraction
        One multiplier per routed set (:func:`routed_sets`).
    w : sequence of Fraction
        One weight per station.
    lossy : sequence of tuple of int, optional
        The routed sets that may lose customers (:func:`certify.exact.overflow.lossy_sets`; none without capacities).

    Returns
    -------
    Check of StaticSplitFacts
        Passed with the dual value and the overloaded stations; or the failures
        (``partial`` then has both numbers when the multipliers were complete).

    Examples
    --------
    The M/M/1 queue with lam = 2 > mu = 1: u = -1, w = 1 gives the value 2 u + w = -1.

    >>> from fractions import Fraction as F
    >>> over = Chain(("1",), (F(1),), (((0,), F(2)),), (), (F(1),))
    >>> chk = check_static_split(over, {(0,): F(-1)}, [F(1)])
    >>> chk.ok, chk.facts.dual_value, chk.facts.overloaded
    (True, Fraction(-1, 1), ['1'])
    >>> check_static_split(over, {(0,): F(0)}, [F(1)]).failures
    ['dual value 1 >= 0 proves nothing (it must be < 0)']

    With capacity at station 1 the customers it cannot take are lost: u >= 0 is required there.

    >>> check_static_split(over, {(0,): F(-1)}, [F(1)], lossy=[(0,)]).failures
    ['multiplier of the lossy set {1} is -1 (must be >= 0: its customers may be lost)']
    """
    sets = routed_sets(chain)
    missing = [c for c in sets if c not in u]
    if missing:
        return Check.failed([f"no multiplier for choice set {_set_str(chain, missing[0])}"])
    if len(w) != chain.J:
        return Check.failed([f"need {chain.J} station weights, got {len(w)}"])
    failures = []
    if any(x < 0 for x in w):
        failures.append("station weights must be >= 0")
    if sum(w, Fraction(0)) != 1:
        failures.append(f"station weights sum to {sum(w, Fraction(0))} (must be 1)")
    fb: dict[int, list[tuple[tuple[int, ...], Fraction]]] = {}
    for i, c, p in chain.feedback:
        fb.setdefault(i, []).append((c, p))
    for C in sets:
        for j in C:
            val = u[C] + w[j] - sum((p * u[c2] for c2, p in fb.get(j, [])), Fraction(0))
            if val < 0:
                failures.append(
                    f"dual constraint for set {_set_str(chain, C)} at station {chain.ids[j]} is {val} (must be >= 0)"
                )
    for C in lossy:
        if C in u and u[C] < 0:
            failures.append(f"multiplier of the lossy set {_set_str(chain, C)} is {u[C]} (must be >= 0: its customers may be lost)")
    lam = dict(chain.arrivals)
    value = sum((lam.get(C, Fraction(0)) * u[C] for C in sets), Fraction(0)) + sum(
        (chain.mu[j] * w[j] for j in range(chain.J)), Fraction(0)
    )
    if value >= 0:
        failures.append(f"dual value {value} >= 0 proves nothing (it must be < 0)")
    facts = StaticSplitFacts(dual_value=value, overloaded=[chain.ids[j] for j in range(chain.J) if w[j] > 0])
    return Check.failed(failures, partial=facts.as_dict()) if failures else Check.passed(facts)


def closed_set(chain: Chain) -> tuple[int, ...] | None:
    """The largest set of stations customers never leave, if exogenous arrivals enter it at positive rate.

    Start from the stations whose feedback probabilities sum to 1 and drop, until
    nothing changes, every station with a feedback choice set reaching outside
    the set.

    Parameters
    ----------
    chain : Chain
        The network's chain.

    Returns
    -------
    tuple of int or None
        The set (station indices); None when it is empty or no exogenous
        choice set lies inside it.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> trap = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)), ((1,), F(1, 2))), ((1, (1,), F(1)),), (F(1), F(0)))
    >>> closed_set(trap)
    (1,)
    """
    S = {i for i in range(chain.J) if chain.leave[i] == 0}
    while True:
        drop = {i for i, C, _ in chain.feedback if i in S and not set(C) <= S}
        if not drop:
            break
        S -= drop
    if not S or not any(lam > 0 and set(C) <= S for C, lam in chain.arrivals):
        return None
    return tuple(sorted(S))


def check_closed_set(chain: Chain, stations: Sequence[int]) -> Check[ClosedSetFacts]:
    """Check that customers never leave ``stations`` and arrive there at positive rate (not stable).

    Conditions (module docstring, "customers that never leave"): the stations are
    distinct, in the network's order; each has feedback probabilities summing to
    exactly 1 with every feedback choice set inside the set; the exogenous choice
    sets inside the set receive a total rate ``inflow`` > 0.

    Parameters
    ----------
    chain : Chain
        The network's chain.
    stations : sequence of int
        The set (station indices, in the network's order).

    Returns
    -------
    Check of ClosedSetFacts
        Passed with the station ids and the inflow; or the failures (``partial``
        then has both once the stations are valid).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> trap = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)), ((1,), F(1, 2))), ((1, (1,), F(1)),), (F(1), F(0)))
    >>> chk = check_closed_set(trap, [1])
    >>> chk.ok, chk.facts.stations, chk.facts.inflow
    (True, ['2'], Fraction(1, 2))
    >>> check_closed_set(trap, [0]).failures[0]
    'station 1: customers leave with probability 1 after service (must be 0)'
    """
    S = list(stations)
    if not S or any(isinstance(a, bool) or not isinstance(a, int) or not 0 <= a < chain.J for a in S) or S != sorted(set(S)):
        return Check.failed(["stations: must be distinct stations of the network, in the network's order"])
    inside = set(S)
    failures = []
    for i in S:
        if chain.leave[i] != 0:
            failures.append(
                f"station {chain.ids[i]}: customers leave with probability {chain.leave[i]} after service (must be 0)"
            )
    for i, C, p in chain.feedback:
        if i in inside and not set(C) <= inside:
            failures.append(f"station {chain.ids[i]}: feedback to {_set_str(chain, C)} with probability {p} can leave the set")
    inflow = sum((lam for C, lam in chain.arrivals if set(C) <= inside), Fraction(0))
    if inflow <= 0:
        failures.append("no exogenous choice set lies inside the set: nothing is shown to enter it")
    facts = ClosedSetFacts(stations=[chain.ids[j] for j in S], inflow=inflow)
    return Check.failed(failures, partial=facts.as_dict()) if failures else Check.passed(facts)
