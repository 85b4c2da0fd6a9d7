"""The exact checks of instability certificates: static split dual, growth function, closed set.

Every condition is recomputed here in rational arithmetic from the exact
network data; a passing check is the only road to an ``unstable`` verdict.
Pure Python: no numpy, no solver.

Theorems used (instability)
---------------------------
Flow balance.  In a stable network every station j has throughput
d_j = mu_j P(station j busy) <= mu_j, and the routed flows f_{C,j} satisfy
sum_j f_{C,j} = lam_C + sum_i d_i p[i][C].  A dual solution of the static
split LP with value < 0 shows no such flows exist: not stable.

Transience (Fayolle–Malyshev–Menshikov 1995, Thm 2.2.7).  For an irreducible
Markov chain and f with bounded increments, E[f(X_1) - f(X_0) | X_0 = x] >= eps
on {f > C} and both {f > C} and {f <= C} non-empty, the chain is transient.
Applied to the uniformized chain of the CTMC (jump rate Lambda = total rate),
whose expected increment is Af(x)/Lambda.

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
from typing import NamedTuple

from ..markov.chain import Chain, drain_order
from ..markov.cones import vertex_bound
from ..markov.drift import RegionDrift, cell_moves, compile_drifts
from ..markov.regions import enumerate_regions
from ..templates.options import MAX_CLIP_LEVEL, MAX_REFINEMENT, refinement_factor
from ..templates.table import table_cells
from .facts import Check, ClosedSetFacts, GrowthFacts, StaticSplitFacts

__all__ = [
    "routed_sets", "check_static_split", "table_problem", "check_growth", "GrowthDrift", "growth_levels", "growth_drift",
    "closed_set", "check_closed_set",
]


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


def check_static_split(chain: Chain, u: Mapping[tuple[int, ...], Fraction], w: Sequence[Fraction]) -> Check[StaticSplitFacts]:
    """Check a dual certificate that the static split LP has value <= 0 (not positive recurrent).

    Conditions: w >= 0, sum w = 1, for every routed set C and j in C
    u_C + w_j - sum_C' p[j][C'] u_C' >= 0, and sum_C lam_C u_C + sum_j mu_j w_j < 0.
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
    lam = dict(chain.arrivals)
    value = sum((lam.get(C, Fraction(0)) * u[C] for C in sets), Fraction(0)) + sum(
        (chain.mu[j] * w[j] for j in range(chain.J)), Fraction(0)
    )
    if value >= 0:
        failures.append(f"dual value {value} >= 0 proves nothing (it must be < 0)")
    facts = StaticSplitFacts(dual_value=value, overloaded=[chain.ids[j] for j in range(chain.J) if w[j] > 0])
    return Check.failed(failures, partial=facts.as_dict()) if failures else Check.passed(facts)


def table_problem(chain: Chain, fast: Sequence[int], K: int) -> str | None:
    """Why a growth table over ``fast`` clipped at ``K`` cannot be checked (None when it can), sized before building.

    ``fast``: distinct stations in the network's order; ``K``: an integer in
    1..MAX_CLIP_LEVEL (0 for a table over phases only); the refinement and the
    number of cells at most MAX_REFINEMENT.

    Parameters
    ----------
    chain : Chain
        The network's chain.
    fast : sequence of int
        The table's fast stations (indices).
    K : int
        The clip level of the table.

    Returns
    -------
    str or None
        ``"FIELD: rule"`` naming what is wrong (``table.fast``, ``table.K`` or
        ``table``), or None.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> table_problem(ch, [0], 4) is None, table_problem(ch, [1, 0], 4)
    (True, "table.fast: the fast stations must be distinct stations in the network's order")
    """
    fast = list(fast)
    if any(isinstance(a, bool) or not isinstance(a, int) or not 0 <= a < chain.J for a in fast) or fast != sorted(set(fast)):
        return "table.fast: the fast stations must be distinct stations in the network's order"
    if isinstance(K, bool) or not isinstance(K, int) or not (1 <= K <= MAX_CLIP_LEVEL if fast else K == 0):
        rule = f"an integer in 1..{MAX_CLIP_LEVEL}" if fast else "0 when the table has no fast stations (phases only)"
        return f"table.K: {K!r} must be {rule}"
    if not fast and not chain.has_phases:
        return "table.fast: a table needs fast stations (or phases)"
    probe = dict(chain.base_levels)
    probe.update({a: max(K, probe.get(a, 0)) for a in fast})
    if refinement_factor(probe) > MAX_REFINEMENT or (K + 1) ** len(fast) > MAX_REFINEMENT:
        return f"table: K = {K} over {len(fast)} fast station(s) is beyond the size bound {MAX_REFINEMENT}"
    return None


def check_growth(
    chain: Chain,
    w: Sequence[Fraction],
    drifts: Sequence[RegionDrift] | None = None,
    table: Mapping[tuple[int, ...], Fraction] | None = None,
    fast: Sequence[int] = (),
    K: int = 0,
) -> Check[GrowthFacts]:
    """Check a growth certificate f = w'x (+ T[min(x_fast, K)]) exactly (transience).

    Conditions: w >= 0; some station with exogenous arrivals has w_j > 0 (so f is
    unbounded on the states reachable from empty); the empty state is reachable
    from every state (one closed class); and on every region where w'x is
    unbounded (some cone generator g with w'g > 0) the drift
    w'm_R + sum_d rate_d (T[c + d] - T[c]) >= delta > 0, the regions refined by
    the clip levels of the table.  On the other regions f <= level :=
    (vertex bound) * sum(w) + max|T|, so Af >= delta on {f > level}; the
    increments of f are at most 2 max w + 2 max|T|.  A bounded table without
    the x_l factor is enough here: it corrects the drift by the fast stations'
    average behaviour, the way a Poisson-equation solution does.

    Parameters
    ----------
    chain : Chain
        The Markov chain.
    w : sequence of Fraction
        One nonnegative weight per station.
    drifts : sequence of RegionDrift, optional
        The compiled drifts of the regions refined by the table's clip levels
        (compiled here when not given).
    table : mapping of cell to Fraction, optional
        The bounded table T, one value per cell of :func:`certify.templates.table.table_cells`.
    fast : sequence of int
        The table's fast stations (indices).
    K : int
        The table's clip level.

    Returns
    -------
    Check of GrowthFacts
        Passed with delta, the level and the increment bound; or the failures.

    Examples
    --------
    The M/M/1 queue with lam = 2 > mu = 1 and f(x) = x: Af = lam - mu = 1 where x > 0.

    >>> from fractions import Fraction as F
    >>> over = Chain(("1",), (F(1),), (((0,), F(2)),), (), (F(1),))
    >>> chk = check_growth(over, [F(1)])
    >>> chk.ok, chk.facts.delta, chk.facts.increment_bound
    (True, Fraction(1, 1), Fraction(2, 1))
    >>> check_growth(over, [F(-1)]).failures
    ['growth weights must be one nonnegative number per station']
    """
    if len(w) != chain.J or any(x < 0 for x in w):
        return Check.failed(["growth weights must be one nonnegative number per station"])
    if table is not None:
        problem = table_problem(chain, fast, K)
        if problem:
            return Check.failed([problem])
    failures = []
    fed = {j for c, _ in chain.arrivals for j in c}
    if not any(w[j] > 0 for j in fed):
        failures.append("no station with exogenous arrivals has positive weight")
    if drain_order(chain) is None:
        failures.append("the empty state is not shown reachable from every state")
    levels = growth_levels(chain, fast, K) if table is not None else dict(chain.base_levels)
    cells = table_cells(chain, fast, K) if table is not None else []
    if table is not None and set(table) != set(cells):
        failures.append(
            f"the table must have one value per cell of {{0..{K}}}^{len(fast)}"
            + (" x phases (a phase-type station's phase is -1 exactly when its queue is empty)" if chain.has_phases else "")
        )
    if failures:
        return Check.failed(failures)
    if drifts is None:
        drifts = compile_drifts(chain, enumerate_regions(chain, levels))
    delta: Fraction | None = None
    for rd in drifts:
        gd = growth_drift(chain, rd, w, table, fast, K)
        if not gd.unbounded:
            continue
        val = gd.drift
        if val <= 0:
            if len(failures) < 5:
                failures.append(f"region {rd.describe(chain.ids)}: drift of f is {val} (must be > 0)")
            continue
        delta = val if delta is None else min(delta, val)
    if delta is None and not failures:
        failures.append("f is bounded on every region")
    if failures or delta is None:
        return Check.failed(failures)
    big_t = max((abs(v) for v in (table or {}).values()), default=Fraction(0))
    return Check.passed(
        GrowthFacts(
            delta=delta,
            level=vertex_bound(chain.J, levels) * sum(w, Fraction(0)) + big_t,
            increment_bound=2 * max(w) + 2 * big_t,
        )
    )



class GrowthDrift(NamedTuple):
    """Af on one region of a growth certificate: w'm_R plus the table's term (constant on the region).

    Attributes
    ----------
    unbounded : bool
        Whether f is unbounded on the region (w'g > 0 for some cone generator g).
    linear : Fraction
        w'm_R, m_R the region's mean drift.
    table : Fraction
        The table's term: sum over the cell moves of rate x (T[c'] - T[c]) (0 without a table).
    cell : tuple of int
        The region's table cell (empty without a table).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> GrowthDrift(True, F(1), F(-1, 2), ()).drift
    Fraction(1, 2)
    """

    unbounded: bool
    linear: Fraction
    table: Fraction
    cell: tuple[int, ...]

    @property
    def drift(self) -> Fraction:
        """Af on the region.

        Returns
        -------
        Fraction
            ``linear + table``.

        Examples
        --------
        >>> GrowthDrift(False, Fraction(2), Fraction(0), ()).drift
        Fraction(2, 1)
        """
        return self.linear + self.table


def growth_levels(chain: Chain, fast: Sequence[int], K: int) -> dict[int, int]:
    """The clip levels of a growth certificate with a table over ``fast`` clipped at K (the chain's own, raised to K).

    Parameters
    ----------
    chain : Chain
        The chain.
    fast : sequence of int
        The table's stations.
    K : int
        The table's clip level.

    Returns
    -------
    dict of int to int
        Station -> clip level, sorted by station.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> over = Chain(("1", "2"), (F(1), F(1)), (((0,), F(2)),), (), (F(1), F(1)))
    >>> growth_levels(over, [1], 3)
    {1: 3}
    """
    levels = dict(chain.base_levels)
    levels.update({a: max(K, levels.get(a, 0)) for a in fast})
    return dict(sorted(levels.items()))


def growth_drift(
    chain: Chain,
    rd: RegionDrift,
    w: Sequence[Fraction],
    table: Mapping[tuple[int, ...], Fraction] | None = None,
    fast: Sequence[int] = (),
    K: int = 0,
) -> GrowthDrift:
    """Af on a region, exactly: what :func:`check_growth` checks there (and the readable proofs print).

    Parameters
    ----------
    chain : Chain
        The chain.
    rd : RegionDrift
        The region's drift (of the regions refined by :func:`growth_levels` when there is a table).
    w : sequence of Fraction
        The weights.
    table, fast, K
        The table over the clipped fast stations (and phases), as for :func:`check_growth`.

    Returns
    -------
    GrowthDrift
        Whether f is unbounded there, and Af split as w'm_R + the table's term.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.drift import compile_drifts
    >>> over = Chain(("1",), (F(1),), (((0,), F(2)),), (), (F(1),))
    >>> [growth_drift(over, rd, [F(1)]).drift for rd in compile_drifts(over)]
    [Fraction(2, 1), Fraction(1, 1)]
    """
    J = chain.J
    unbounded = any(sum(w[a] * g[a] for a in range(J)) > 0 for g in rd.generators)
    linear = sum((w[a] * rd.mean[a] for a in range(J)), Fraction(0)) / chain.scale
    if table is None:
        return GrowthDrift(unbounded, linear, Fraction(0), ())
    cell, moves, tot = cell_moves(rd, list(fast), K)
    term = (sum((r * table[c2] for c2, r in moves.items()), Fraction(0)) - tot * table[cell]) / chain.scale
    return GrowthDrift(unbounded, linear, term, cell)


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
