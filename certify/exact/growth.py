"""The exact check of a growth certificate: f = w'x (+ a bounded table) grows, so the chain is transient.

Transience (Fayolle–Malyshev–Menshikov 1995, Thm 2.2.7).  For an irreducible
Markov chain and f with bounded increments, E[f(X_1) - f(X_0) | X_0 = x] >= eps
on {f > C} and both {f > C} and {f <= C} non-empty, the chain is transient.
Applied to the uniformized chain of the CTMC (jump rate Lambda = total rate),
whose expected increment is Af(x)/Lambda.  :func:`growth_drift` and
:func:`growth_levels` give the per-region drifts the check reads (and the
readable proof prints); :func:`table_problem` sizes a table before it is built.
Pure Python: no numpy, no solver.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from math import prod
from typing import NamedTuple

from ..markov.chain import Chain, drain_order
from ..markov.cones import vertex_bound
from ..markov.drift import Clip, RegionDrift, cell_moves, clip_levels, clip_text, compile_drifts
from ..markov.regions import POLL_EVERY, check_deadline, enumerate_regions
from ..templates.options import MAX_CLIP_LEVEL, MAX_REFINEMENT, refinement_factor
from ..templates.table import table_cells
from .facts import Check, GrowthFacts

__all__ = ["table_problem", "check_growth", "GrowthDrift", "growth_levels", "growth_drift"]


def table_problem(chain: Chain, fast: Sequence[int], K: object) -> str | None:
    """Why a growth table over ``fast`` clipped at ``K`` cannot be checked (None when it can), sized before building.

    ``fast``: distinct stations in the network's order; ``K``: an integer in
    1..MAX_CLIP_LEVEL (0 for a table over phases only), or a list (tuple) of such
    integers, one per fast station; the refinement and the number of cells at
    most MAX_REFINEMENT.

    Parameters
    ----------
    chain : Chain
        The network's chain.
    fast : sequence of int
        The table's fast stations (indices).
    K : int or sequence of int
        The clip level of the table, or one per fast station (as read, not yet validated).

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
    >>> table_problem(ch, [0, 1], [3, 2]) is None, table_problem(ch, [0, 1], [3])
    (True, 'table.K: [3] must be an integer in 1..100 or a list of 2 such integers, one per fast station')
    """
    fast = list(fast)
    if any(isinstance(a, bool) or not isinstance(a, int) or not 0 <= a < chain.J for a in fast) or fast != sorted(set(fast)):
        return "table.fast: the fast stations must be distinct stations in the network's order"

    def level(k: object) -> bool:
        return not isinstance(k, bool) and isinstance(k, int) and 1 <= k <= MAX_CLIP_LEVEL

    if isinstance(K, (list, tuple)):
        if not fast or len(K) != len(fast) or not all(level(k) for k in K):
            return (f"table.K: {list(K)!r} must be an integer in 1..{MAX_CLIP_LEVEL} or a list of {len(fast)} such "
                    "integers, one per fast station")
        levels = tuple(int(k) for k in K)
    elif isinstance(K, bool) or not isinstance(K, int) or not (level(K) if fast else K == 0):
        rule = f"an integer in 1..{MAX_CLIP_LEVEL}" if fast else "0 when the table has no fast stations (phases only)"
        return f"table.K: {K!r} must be {rule}"
    else:
        levels = (K,) * len(fast)
    if not fast and not chain.has_phases:
        return "table.fast: a table needs fast stations (or phases)"
    probe = dict(chain.base_levels)
    probe.update({a: max(k, probe.get(a, 0)) for a, k in zip(fast, levels)})
    if refinement_factor(probe) > MAX_REFINEMENT or prod(k + 1 for k in levels) > MAX_REFINEMENT:
        return (f"table: {clip_text(K if isinstance(K, int) else levels)} over {len(fast)} fast station(s) is beyond "
                f"the size bound {MAX_REFINEMENT}")
    return None


def check_growth(
    chain: Chain,
    w: Sequence[Fraction],
    drifts: Sequence[RegionDrift] | None = None,
    table: Mapping[tuple[int, ...], Fraction] | None = None,
    fast: Sequence[int] = (),
    K: Clip = 0,
    deadline: float | None = None,
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
    K : int or tuple of int
        The table's clip level (or one per fast station).
    deadline : float, optional
        A ``time.perf_counter()`` value: the region enumeration and the loop over
        the regions poll it (every :data:`certify.markov.regions.POLL_EVERY` regions).

    Returns
    -------
    Check of GrowthFacts
        Passed with delta, the level and the increment bound; or the failures.

    Raises
    ------
    TimeLimitReached
        When the deadline passes before every region is checked (never a partial verdict).

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
        drifts = compile_drifts(chain, enumerate_regions(chain, levels, deadline=deadline), deadline=deadline)
    delta: Fraction | None = None
    for r, rd in enumerate(drifts):
        if deadline is not None and r % POLL_EVERY == 0:
            check_deadline(deadline, "the exact check of the growth certificate")
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


def growth_levels(chain: Chain, fast: Sequence[int], K: Clip) -> dict[int, int]:
    """The clip levels of a growth certificate with a table over ``fast`` clipped at K (the chain's own, raised to K).

    Parameters
    ----------
    chain : Chain
        The chain.
    fast : sequence of int
        The table's stations.
    K : int or tuple of int
        The table's clip level (or one per fast station).

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
    levels.update({a: max(k, levels.get(a, 0)) for a, k in zip(fast, clip_levels(fast, K))})
    return dict(sorted(levels.items()))


def growth_drift(
    chain: Chain,
    rd: RegionDrift,
    w: Sequence[Fraction],
    table: Mapping[tuple[int, ...], Fraction] | None = None,
    fast: Sequence[int] = (),
    K: Clip = 0,
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
