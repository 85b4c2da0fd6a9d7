"""Numeric searches for instability certificates (static split dual, linear growth).

Like :mod:`certify.search`, this only proposes; :mod:`certify.exact` decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import chain as chain_iter
from itertools import combinations

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ..exact.checks import routed_sets
from ..markov.chain import Chain
from ..markov.drift import RegionDrift, cell_moves
from ..templates.table import table_cells
from .lp import rationalize
from .solvers import solve

__all__ = ["StaticSplit", "static_split", "growth_candidates", "solve_growth"]


@dataclass
class StaticSplit:
    """The static split LP: ``slack`` = max over routings of min_j (mu_j - d_j)."""

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


def static_split(chain: Chain, margin: float = 0.0, solver: str | None = None, bound: float | None = None) -> StaticSplit:
    """Solve the dual of the static split LP (DESIGN §6).

    minimise sum_C lam_C u_C + sum_j mu_j w_j  subject to  w >= 0, sum w = 1,
    u_C + w_j - sum_C' p[j][C'] u_C' >= margin for every routed set C and j in C.
    Its value equals the best worst-station slack of any static routing, so a value
    <= 0 means no routing keeps every station below capacity.  When the primal is
    infeasible (no routing balances the flows) the dual is unbounded: it is then
    re-solved with ``|u_C| <= bound`` (default :data:`DUAL_BOUND`), which gives a
    finite dual solution with a negative value (``bounded`` is set).  Any feasible
    dual with a negative value proves the same, so the bound costs no soundness.
    """
    sets = routed_sets(chain)
    lam = dict(chain.arrivals)
    u = cp.Variable(len(sets))
    w = cp.Variable(chain.J, nonneg=True)
    pos = {C: k for k, C in enumerate(sets)}
    rows = []
    for C in sets:
        for j in C:
            expr = u[pos[C]] + w[j]
            for src, c2, p in chain.feedback:
                if src == j:
                    expr = expr - float(p) * u[pos[c2]]
            rows.append(expr >= margin)
    obj = sum(float(lam.get(C, 0)) * u[pos[C]] for C in sets) + np.array([float(m) for m in chain.mu]) @ w
    box = [u <= bound, u >= -bound] if bound is not None else []
    prob = cp.Problem(cp.Minimize(obj), [*rows, cp.sum(w) == 1, *box])
    status, notes = solve(prob, solver)
    if status == "solver-error":
        return StaticSplit(None, {}, [], f"solver-error: {notes[0]}")
    if bound is None and str(prob.status) in ("unbounded", "unbounded_inaccurate", "infeasible_or_unbounded"):
        return static_split(chain, margin=margin, solver=solver, bound=DUAL_BOUND)
    if prob.status not in ("optimal", "optimal_inaccurate") or u.value is None or w.value is None:
        return StaticSplit(None, {}, [], prob.status, bound is not None)
    return StaticSplit(
        float(prob.value), {C: float(u.value[pos[C]]) for C in sets}, [float(v) for v in w.value], prob.status,
        bound is not None,
    )


def growth_candidates(chain: Chain, hint: Sequence[float] | None = None, limit: int = 64) -> list[tuple[int, ...]]:
    """Supports to try for a growth function: the overloaded set, all stations, then sets by size.

    Generated lazily, so only ``limit`` supports are ever built.
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
) -> tuple[list[Fraction], dict[tuple[int, ...], Fraction] | None] | None:
    """Find w >= 0 supported on ``support`` (and, with ``table``, a bounded table T over
    (min(x_fast, K), phases); by default a table when ``fast`` is given) with drift
    >= delta > 0 wherever w'x is unbounded.

    Returns rational (w, T) (rounded, to be checked exactly) or None.
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
    w = cp.Variable(J)
    delta = cp.Variable()
    cons = [delta <= 1]
    for j in range(J):
        cons += [w[j] >= 1, w[j] <= 100] if j in S else [w[j] == 0]
    M = np.array([[v / chain.scale for v in rd.mean] for rd in touched])
    expr = M @ w
    T = None
    if cells:
        T = cp.Variable(len(cells))
        cons += [T <= 100, T >= -100]
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
        B = sp.csr_matrix((vals, (rows, cols)), shape=(len(touched), len(cells)))
        expr = expr + B @ T
    cons.append(expr >= delta)
    prob = cp.Problem(cp.Maximize(delta), cons)
    if solve(prob, solver)[0] == "solver-error":
        return None
    if prob.status not in ("optimal", "optimal_inaccurate") or delta.value is None or w.value is None or delta.value <= 1e-9:
        return None
    wq = [max(Fraction(0), v) for v in rationalize(w.value, 2**20)]
    if T is None or T.value is None:
        return wq, None
    tq = rationalize(T.value, 2**20)
    return wq, {c: tq[k] for c, k in pos.items()}
