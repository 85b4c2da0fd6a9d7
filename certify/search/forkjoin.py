"""Numeric search for the Lyapunov table of a fork-join certificate (numpy/scipy, an LP).

Wanted: a table h over the cells of clipped lags (one value per orbit of
equal-rate servers) such that on every region

    (lam - departure rate) + sum_moves rate (h[target] - h[cell]) <= -delta < 0.

Two searches, cheapest first:

* the Poisson equation of the *truncated* lag chain (a lag at K stays at K when
  its server completes): g + A h = gbar with h[0] = 0, one sparse solve.  Every
  region whose lags are at most K then has drift exactly gbar; the regions with a
  lag >= K+1 differ only in that a departure leaves that lag's cell at K, and are
  left to the exact check.  gbar < 0 is the average drift of N in the truncated
  chain, so this succeeds when K is large enough for the lag dynamics;
* the LP (:func:`certify.search.linprog.solve_lp`) maximising delta over h subject to every region's row: exact
  optimality, but far slower; used when the Poisson candidate fails and the LP
  is small.

What comes out is only a candidate, rounded to rationals;
:func:`certify.exact.forkjoin.check_forkjoin_foster` decides.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..core.model import ForkJoinNetwork
from ..exact.facts import Check
from ..exact.forkjoin import LagTableFacts, check_forkjoin_foster
from ..exact.forkjoin_capacity import server_rates
from ..exact.forkjoin_lags import canonical, count_patterns, lag_cells, lag_regions, region_drift
from ..search.linprog import solve_lp
from ..search.solvers import default_solver

__all__ = ["TableSearch", "search_table", "poisson_table", "lp_table", "GRIDS", "LP_MAX_ROWS"]

# Rounding grids tried, coarsest first; |h| <= H in the LP.
GRIDS = (2**16, 2**32)
H = 1e4
# The LP is attempted only up to this many (orbit) regions.
LP_MAX_ROWS = 3000

Cell = tuple[int, ...]


@dataclass
class TableSearch:
    """A table search: its size, outcome, margin (gbar or LP delta) and rational candidates (coarsest first).

    Attributes
    ----------
    method : str
        ``Poisson equation`` or ``LP``.
    size : str
        The problem's size, in words.
    outcome : str
        What the search found, in words.
    margin : float or None
        gbar (Poisson) or delta (LP); None when the solve failed.
    candidates : list of dict
        Rational tables, one per rounding grid of :data:`GRIDS`, coarsest first.
    solve_s : float
        Seconds spent.
    notes : list of str
        What the solver said (warnings), one line each.

    Examples
    --------
    >>> TableSearch("LP", "3 rows x 2 vars", "LP infeasible").candidates
    []
    """

    method: str
    size: str
    outcome: str
    margin: float | None = None
    candidates: list[dict[Cell, Fraction]] = field(default_factory=list)
    solve_s: float = 0.0
    notes: list[str] = field(default_factory=list)  # what the solver said (warnings), one line each


def _rows(
    net: ForkJoinNetwork, K: int, classes: Sequence[Sequence[int]], regions: list[Cell], pos: dict[Cell, int]
) -> tuple[sp.csr_matrix, np.ndarray]:
    """Sparse rows sum_moves rate (h[target] - h[cell]) and the constants lam - dep, one per region."""
    d = [float(x) for x in server_rates(net)]  # region_drift is generic in the number type
    lam = float(net.rate)
    rows, cols, vals, const = [], [], [], []
    for r, reg in enumerate(regions):
        cell, c0, moves = region_drift(d, lam, net.k, K, reg)
        i = pos[canonical(cell, classes)]
        for c2, rate in moves.items():
            j = pos[canonical(c2, classes)]
            if j != i:
                rows += [r, r]
                cols += [j, i]
                vals += [rate, -rate]
        const.append(c0)
    A = sp.csr_matrix((np.array(vals, dtype=float), (rows, cols)), shape=(len(regions), len(pos)))
    return A, np.array(const)


def _round(cells: list[Cell], values: np.ndarray) -> list[dict[Cell, Fraction]]:
    return [{c: Fraction(int(round(float(v) * den)), den) for c, v in zip(cells, values)} for den in GRIDS]


def poisson_table(net: ForkJoinNetwork, K: int, classes: Sequence[Sequence[int]]) -> TableSearch:
    """Solve g + A h = gbar on the truncated lag chain (the cells with their own dynamics), h[0] = 0.

    Parameters
    ----------
    net : ForkJoinNetwork
        The network.
    K : int
        The clip level.
    classes : sequence of sequence of int
        Symmetry classes of servers (the table has one value per orbit).

    Returns
    -------
    TableSearch
        The mean drift gbar of N as margin, and rounded candidates when gbar < 0.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(3, 10), (("1", F(1, 3)), ("2", F(1, 3)), ("3", F(1, 3))))
    >>> found = poisson_table(net, 1, [(0, 1, 2)])
    >>> found.outcome, len(found.candidates)
    ('mean drift of N -0.1', 2)
    """
    t0 = time.perf_counter()
    cells = lag_cells(net.n, net.k, K, classes)
    pos = {c: j for j, c in enumerate(cells)}
    A, g = _rows(net, K, classes, cells, pos)  # a cell read as a region is the truncated chain's row
    nc = len(cells)
    zero = pos[tuple([0] * net.n)]
    size = f"{nc} cells (sparse LU)"
    # Rows c != 0 with h[0] = 0 in place of row 0: h = ha + gbar hb with A ha = -g, A hb = 1 there (one LU);
    # then row 0, g[0] + (A h)[0] = gbar, fixes gbar.
    pin = sp.csr_matrix(([1.0], ([0], [zero])), shape=(1, nc))
    keep = np.flatnonzero(np.arange(nc) != zero)
    try:
        lu = spla.splu(sp.vstack([A[keep], pin]).tocsc())
        ha = lu.solve(np.concatenate([-g[keep], [0.0]]))
        hb = lu.solve(np.concatenate([np.ones(nc - 1), [0.0]]))
        a0 = A[[zero]].toarray().ravel()
        gbar = float((g[zero] + a0 @ ha) / (1.0 - a0 @ hb))
        x = np.concatenate([ha + gbar * hb, [gbar]])
    except (RuntimeError, ValueError, ZeroDivisionError) as exc:
        return TableSearch("Poisson equation", size, f"solve failed: {exc}", solve_s=time.perf_counter() - t0)
    if not np.all(np.isfinite(x)):
        return TableSearch("Poisson equation", size, "singular system", solve_s=time.perf_counter() - t0)
    gbar = float(x[-1])
    if gbar >= 0:
        return TableSearch("Poisson equation", size, f"no certificate (mean drift of N {gbar:.3g} >= 0)", gbar,
                           solve_s=time.perf_counter() - t0)
    return TableSearch("Poisson equation", size, f"mean drift of N {gbar:.3g}", gbar, _round(cells, x[:nc]),
                       time.perf_counter() - t0)


def lp_table(net: ForkJoinNetwork, K: int, classes: Sequence[Sequence[int]], solver: str | None = None) -> TableSearch:
    """Maximise delta over tables h (``|h|`` <= H, h[0] = 0) subject to every orbit region's drift row.

    Parameters
    ----------
    net : ForkJoinNetwork
        The network.
    K : int
        The clip level.
    classes : sequence of sequence of int
        Symmetry classes of servers.
    solver : str, optional
        The LP solver (default :func:`certify.search.solvers.default_solver`).

    Returns
    -------
    TableSearch
        The LP's delta as margin, and rounded candidates when it is positive.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(3, 10), (("1", F(1, 3)), ("2", F(1, 3)), ("3", F(1, 3))))
    >>> round(lp_table(net, 1, [(0, 1, 2)]).margin, 3)
    0.1
    """
    t0 = time.perf_counter()
    cells = lag_cells(net.n, net.k, K, classes)
    pos = {c: j for j, c in enumerate(cells)}
    regions = lag_regions(net.n, net.k, K, classes)
    A, g = _rows(net, K, classes, regions, pos)
    solver = solver or default_solver()
    size = f"{len(regions)} rows x {len(cells)} vars ({solver})"
    nc = len(cells)
    zero = pos[tuple([0] * net.n)]
    # Variables (h, delta): A h + delta <= -g, |h| <= H, h[0] = 0, delta <= 1; maximise delta.
    lo, hi = np.concatenate([np.full(nc, -H), [-np.inf]]), np.concatenate([np.full(nc, H), [1.0]])
    lo[zero] = hi[zero] = 0.0
    cost = np.zeros(nc + 1)
    cost[nc] = -1.0
    A_ub = sp.hstack([A, sp.csr_matrix(np.ones((A.shape[0], 1)))], format="csr")
    res = solve_lp(cost, A_ub, -g, bounds=(lo, hi), solver=solver)
    notes = res.said
    if res.failed:  # reported, never a verdict
        return TableSearch("LP", size, f"solver failure: {res.error}", solve_s=time.perf_counter() - t0, notes=notes)
    if not res.ok or res.x is None:
        return TableSearch("LP", size, f"LP {res.status}", solve_s=time.perf_counter() - t0, notes=notes)
    dv = float(res.x[nc])
    if dv <= 1e-9:
        return TableSearch("LP", size, f"no certificate (best margin {dv:.3g})", dv, solve_s=time.perf_counter() - t0,
                           notes=notes)
    return TableSearch("LP", size, f"LP margin {dv:.3g}", dv, _round(cells, res.x[:nc]), time.perf_counter() - t0, notes)


def search_table(
    net: ForkJoinNetwork, K: int, classes: Sequence[Sequence[int]], solver: str | None = None
) -> tuple[list[TableSearch], dict[Cell, Fraction] | None, Check[LagTableFacts] | None]:
    """Poisson candidate first, then the LP's; returns (searches, table, its passing exact check) or no table.

    The LP is skipped when gbar >= 0: on the regions with every lag <= K its rows
    are the truncated chain's, and averaging them over its stationary law gives
    delta <= -gbar.  It is also skipped above ``LP_MAX_ROWS`` regions.

    Parameters
    ----------
    net : ForkJoinNetwork
        The network.
    K : int
        The clip level.
    classes : sequence of sequence of int
        Symmetry classes of servers.
    solver : str, optional
        The LP solver.

    Returns
    -------
    searches : list of TableSearch
        The searches run, in order.
    table : dict or None
        The first candidate that passed the exact check.
    check : Check of LagTableFacts or None
        Its passing check, or the last failing one (None when no candidate was checked).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(3, 10), (("1", F(1, 3)), ("2", F(1, 3)), ("3", F(1, 3))))
    >>> searches, table, chk = search_table(net, 1, [(0, 1, 2)])
    >>> [s.method for s in searches], chk.ok, table[(1, 0, 0)]
    (['Poisson equation'], True, Fraction(-13107, 32768))
    """
    searches = [poisson_table(net, K, classes)]
    last: Check[LagTableFacts] | None = None
    for cand in searches[0].candidates:
        last = check_forkjoin_foster(net, K, cand, classes)
        if last.ok:
            return searches, cand, last
    if searches[0].margin is not None and searches[0].margin >= 0:
        return searches, None, last
    if count_patterns(net.n, net.k, K + 1, classes) > LP_MAX_ROWS:
        return searches, None, last
    searches.append(lp_table(net, K, classes, solver))
    for cand in searches[-1].candidates:
        last = check_forkjoin_foster(net, K, cand, classes)
        if last.ok:
            return searches, cand, last
    return searches, None, last
