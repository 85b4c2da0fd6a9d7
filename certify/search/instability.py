"""Numeric searches for instability certificates (static split dual, linear growth).

Like every search of :mod:`certify.search`, this only proposes; :mod:`certify.exact` decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import chain as chain_iter
from itertools import combinations

import numpy as np
import scipy.sparse as sp

from ..core.clock import remaining
from ..exact import routed_sets
from ..markov.chain import Chain
from ..markov.drift import RegionDrift, cell_moves
from ..templates.base import round_to_grid
from ..templates.table import table_cells
from .linprog import solve_lp
from .solvers import default_solver

__all__ = ["StaticSplit", "static_split", "growth_candidates", "solve_growth", "DUAL_BOUND"]


@dataclass
class StaticSplit:
    """The static split LP: ``slack`` = max over routings of min_j (mu_j - d_j).

    Attributes
    ----------
    slack : float or None
        The dual's value (None without a solution); <= 0 means no static routing
        keeps every station below capacity.
    u : dict of choice set to float
        The dual variables of the routed sets.
    w : list of float
        The dual weights of the stations (w >= 0, sum 1).
    status : str
        The solver's status, or ``solver-error: <message>``.
    bounded : bool
        Solved with ``|u_C|`` <= :data:`DUAL_BOUND` (the unbounded dual of an infeasible primal).

    Examples
    --------
    >>> StaticSplit(None, {}, [], "infeasible").bounded
    False
    """

    slack: float | None
    u: dict[tuple[int, ...], float]
    w: list[float]
    status: str
    bounded: bool = False  # solved with |u_C| <= DUAL_BOUND (the unbounded dual of an infeasible primal)


# When no routing satisfies the flow balance at all (the traffic equations have no
# non-negative solution, e.g. customers that never leave a set fed through feedback),
# the dual is unbounded below; with |u_C| <= DUAL_BOUND it has a finite optimum,
# very negative, which the exact checker accepts like any dual with value < 0.
DUAL_BOUND = 1000.0


def static_split(
    chain: Chain,
    margin: float = 0.0,
    solver: str | None = None,
    bound: float | None = None,
    deadline: float | None = None,
    lossy: Sequence[tuple[int, ...]] = (),
) -> StaticSplit:
    """Solve the dual of the static split LP (DESIGN §6).

    minimise sum_C lam_C u_C + sum_j mu_j w_j  subject to  w >= 0, sum w = 1,
    u_C + w_j - sum_C' p[j][C'] u_C' >= margin for every routed set C and j in C.
    Its value equals the best worst-station slack of any static routing, so a value
    <= 0 means no routing keeps every station below capacity.  When the primal is
    infeasible (no routing balances the flows) the dual is unbounded: it is then
    re-solved with ``|u_C| <= bound`` (default :data:`DUAL_BOUND`), which gives a
    finite dual solution with a negative value (``bounded`` is set).  Any feasible
    dual with a negative value proves the same, so the bound costs no soundness.

    Parameters
    ----------
    chain : Chain
        The chain (its mean rates).
    margin : float
        The right side of the dual rows.
    solver : str, optional
        A solver name (default: an interior point one, ``default_solver(interior=True)``
        of :mod:`certify.search.solvers`, so that the dual's support is the largest overloaded set).
    bound : float, optional
        Box ``|u_C|`` <= bound (set on the re-solve).
    deadline : float, optional
        A ``time.perf_counter()`` value: the LP gets the time left before it (and before the
        deadline in force); one it stops has the status ``time-limit`` and no slack.
    lossy : sequence of tuple of int, optional
        The routed sets that may lose customers (every station capped): their
        multipliers are kept >= 0 (flow balance with losses, ``docs/math/capacities.md``).

    Returns
    -------
    StaticSplit
        The dual solution (a candidate; :mod:`certify.exact` checks it) or the status.

    Examples
    --------
    Two stations of rate 1 sharing a stream: slack 1/4 at load 3/4, -1/4 at load 5/4.

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> def jsq2(rate):
    ...     net = Network("jsq2", (Station("1", F(1)), Station("2", F(1))), (Stream(rate, choice=("1", "2")),))
    ...     return compile_chain(net)
    >>> [round(static_split(jsq2(r)).slack, 3) for r in (F(3, 2), F(5, 2))]
    [0.25, -0.25]
    """
    sets = routed_sets(chain)
    lam = dict(chain.arrivals)
    nu, J = len(sets), chain.J
    pos = {C: k for k, C in enumerate(sets)}
    # Variables (u, w); each row u_C + w_j - sum_C' p[j][C'] u_C' >= margin is written as -(...) <= -margin.
    ri: list[int] = []
    ci: list[int] = []
    vals: list[float] = []
    r = 0
    for C in sets:
        for j in C:
            ri += [r, r]
            ci += [pos[C], nu + j]
            vals += [-1.0, -1.0]
            for src, c2, p in chain.feedback:
                if src == j:
                    ri.append(r)
                    ci.append(pos[c2])
                    vals.append(float(p))
            r += 1
    A_ub = sp.csr_matrix((vals, (ri, ci)), shape=(r, nu + J))  # repeated entries add up
    cost = np.array([float(lam.get(C, 0)) for C in sets] + [float(m) for m in chain.mu])
    A_eq = sp.csr_matrix(np.concatenate([np.zeros(nu), np.ones(J)]).reshape(1, -1))
    box = np.inf if bound is None else bound
    lo = np.concatenate([np.full(nu, -box), np.zeros(J)])
    for C in lossy:
        lo[pos[C]] = 0.0
    hi = np.concatenate([np.full(nu, box), np.full(J, np.inf)])
    res = solve_lp(cost, A_ub, np.full(r, -margin), A_eq, [1.0], bounds=(lo, hi), solver=solver or default_solver(interior=True),
                   time_limit=remaining(deadline))
    if res.failed:
        return StaticSplit(None, {}, [], res.outcome)
    if bound is None and res.status in ("unbounded", "unbounded_inaccurate", "infeasible_or_unbounded"):
        return static_split(chain, margin=margin, solver=solver, bound=DUAL_BOUND, deadline=deadline, lossy=lossy)
    if not res.ok:
        return StaticSplit(None, {}, [], res.status, bound is not None)
    assert res.x is not None and res.objective is not None  # res.ok: the solution is set
    x = res.x
    return StaticSplit(
        res.objective, {C: float(x[pos[C]]) for C in sets}, [float(v) for v in x[nu:]], res.status, bound is not None,
    )


def growth_candidates(chain: Chain, hint: Sequence[float] | None = None, limit: int = 64) -> list[tuple[int, ...]]:
    """Supports to try for a growth function: the overloaded set, all stations, then sets by size.

    Generated lazily, so only ``limit`` supports are ever built.

    Parameters
    ----------
    chain : Chain
        The chain.
    hint : sequence of float, optional
        Station weights (e.g. the static split's ``w``): the stations above 1e-7 come first.
    limit : int
        The most supports returned.

    Returns
    -------
    list of tuple of int
        Distinct non-empty station sets.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> ch = Chain(("1", "2", "3"), (F(1),) * 3, (((0, 1), F(1)), ((2,), F(1))), (), (F(1),) * 3)
    >>> growth_candidates(ch, hint=[0.0, 0.0, 1.0], limit=4)
    [(2,), (0, 1, 2), (0,), (1,)]
    """
    J = chain.J
    first = [tuple(j for j in range(J) if hint[j] > 1e-7)] if hint is not None else []
    stream = chain_iter(first, [tuple(range(J))], (s for k in range(1, J) for s in combinations(range(J), k)))
    out: list[tuple[int, ...]] = []
    for s in stream:
        if s and s not in out:
            out.append(s)
            if len(out) == limit:
                break
    return out


def solve_growth(
    chain: Chain,
    drifts: Sequence[RegionDrift],
    support: tuple[int, ...],
    solver: str | None = None,
    fast: Sequence[int] = (),
    K: int = 0,
    table: bool | None = None,
    deadline: float | None = None,
) -> tuple[list[Fraction], dict[tuple[int, ...], Fraction] | None] | None:
    """Find w >= 0 supported on ``support`` (and, with ``table``, a bounded table T over
    (min(x_fast, K), phases); by default a table when ``fast`` is given) with drift
    >= delta > 0 wherever w'x is unbounded.

    Parameters
    ----------
    chain : Chain
        The chain.
    drifts : sequence of RegionDrift
        Its region drifts (refined by clip levels K at ``fast`` when a table is used).
    support : tuple of int
        The stations where w > 0 (w_j in [1, 100] there).
    solver : str, optional
        A solver name (default :func:`certify.search.solvers.default_solver`).
    fast : sequence of int
        The stations of the table's cells.
    K : int
        The table's clip level.
    table : bool, optional
        Use a table (default: when ``fast`` is given).
    deadline : float, optional
        A ``time.perf_counter()`` value: the LP gets the time left before it (and before the
        deadline in force); one it stops gives None, as does every LP without a positive margin.

    Returns
    -------
    (list of Fraction, dict or None) or None
        Rational w and table T (rounded to 2^-20, to be checked exactly), or None
        when the LP finds no positive margin.

    Examples
    --------
    An overloaded pair (load 5/4) grows along x1 + x2; a stable one does not:

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> from certify.markov.drift import compile_drifts
    >>> def jsq2(rate):
    ...     net = Network("jsq2", (Station("1", F(1)), Station("2", F(1))), (Stream(rate, choice=("1", "2")),))
    ...     return compile_chain(net)
    >>> chain = jsq2(F(5, 2))
    >>> w, T = solve_growth(chain, compile_drifts(chain), (0, 1))
    >>> w[0] == w[1] > 0, T
    (True, None)
    >>> chain = jsq2(F(3, 2))
    >>> solve_growth(chain, compile_drifts(chain), (0, 1)) is None
    True
    """
    J = chain.J
    S = set(support)
    touched = [rd for rd in drifts if any(any(g[a] for a in S) for g in rd.generators)]
    if not touched:
        return None
    if table is None:
        table = bool(fast)
    cells = table_cells(chain, fast, K) if table else []
    pos = {c: k for k, c in enumerate(cells)}
    M = sp.csr_matrix(np.array([[v / chain.scale for v in rd.mean] for rd in touched], dtype=float))
    # Variables (w, T, delta): w_j in [1, 100] on the support and 0 off it, |T| <= 100, delta <= 1; maximise delta
    # subject to M w + B T >= delta, i.e. -(M w + B T) + delta <= 0.
    nc = len(cells)
    lo = np.concatenate([[1.0 if j in S else 0.0 for j in range(J)], np.full(nc, -100.0), [-np.inf]])
    hi = np.concatenate([[100.0 if j in S else 0.0 for j in range(J)], np.full(nc, 100.0), [1.0]])
    B = sp.csr_matrix((len(touched), nc))
    if cells:
        rows, cols, vals = [], [], []
        for r, rd in enumerate(touched):
            c, moves, tot = cell_moves(rd, list(fast), K)
            for c2, rate in moves.items():
                rows.append(r)
                cols.append(pos[c2])
                vals.append(rate / chain.scale)
            if tot:
                rows.append(r)
                cols.append(pos[c])
                vals.append(-tot / chain.scale)
        B = sp.csr_matrix((vals, (rows, cols)), shape=(len(touched), nc))
    A_ub = sp.hstack([-M, -B, sp.csr_matrix(np.ones((len(touched), 1)))], format="csr")
    cost = np.zeros(J + nc + 1)
    cost[-1] = -1.0
    res = solve_lp(cost, A_ub, np.zeros(len(touched)), bounds=(lo, hi), solver=solver, time_limit=remaining(deadline))
    if not res.ok:
        return None
    assert res.x is not None  # ok: the solution is set
    if res.x[-1] <= 1e-9:
        return None
    wq = [max(Fraction(0), v) for v in round_to_grid(res.x[:J], 2**20)]
    if not cells:
        return wq, None
    tq = round_to_grid(res.x[J : J + nc], 2**20)
    return wq, {c: tq[k] for c, k in pos.items()}
