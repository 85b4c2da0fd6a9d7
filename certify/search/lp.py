"""Numeric search for certificate coefficients (cvxpy), then rounding to rationals.

The search is generic over templates: it stacks the template's exact rows into
sparse float matrices and maximises the drift margin delta.  What comes out is
only a *candidate*; :mod:`certify.exact` decides.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ..templates.base import DENOMINATORS, SideRow, Template
from ..templates.base import round_to_grid as rationalize
from .solvers import default_solver, installed_solvers, solve

__all__ = ["LPResult", "solve_template", "rationalize", "installed_lp_solvers", "DENOMINATORS"]

# Rows added per round of constraint generation.
CHUNK = 2000
# Drift rows reported as binding (the dual's heaviest) when no certificate exists.
BINDING = 5


@dataclass
class LPResult:
    """A solved (or failed) template LP."""

    status: str
    delta: float | None
    theta: np.ndarray | None
    rows: int
    variables: int
    solve_s: float
    solver: str
    notes: list[str] = field(default_factory=list)
    binding: list[int] = field(default_factory=list)  # drift rows with the largest duals (where no V decreases)

    @property
    def found(self) -> bool:
        return self.delta is not None and self.delta > 1e-9


def installed_lp_solvers() -> list[str]:
    """The solvers cvxpy sees, in order of preference (see :func:`certify.search.solvers.installed_solvers`)."""
    return installed_solvers()


def _matrix(rows: Sequence[SideRow], n: int) -> sp.csr_matrix:
    data, ri, ci = [], [], []
    for r, row in enumerate(rows):
        for k, c in row.coeffs:
            data.append(float(c))
            ri.append(r)
            ci.append(k)
    return sp.csr_matrix((data, (ri, ci)), shape=(len(rows), n))


def solve_template(tmpl: Template, solver: str | None = None, margin: float = 1e-6) -> LPResult:
    """Maximise delta subject to the template's drift and side rows.

    The drift rows enter by constraint generation (see below).  ``solver``
    defaults to the first of :func:`installed_lp_solvers`.
    """
    nv = len(tmpl.variables())
    n = nv + len(tmpl.aux_variables())
    keys = tmpl.row_keys()
    solver = solver or default_solver()
    if not keys:
        return LPResult("no-rows", None, None, 0, n, 0.0, solver, notes=["no unbounded region"])
    A = tmpl.lp_matrix()
    w = np.array([row.weight for row in keys], dtype=float)
    side = tmpl.side_rows()
    S = _matrix(side, n) if side else None
    rhs = np.array([float(r.rhs) - (margin if r.margin else 0.0) for r in side])
    bounds = np.array([float(b) for b in tmpl.variable_bounds()])
    # Constraint generation: solve on a subset of the drift rows, add the most
    # violated rows, repeat until the float solution satisfies every row.
    m = A.shape[0]
    active = np.zeros(m, dtype=bool)
    active[np.linspace(0, m - 1, min(m, CHUNK)).astype(int)] = True
    t0 = time.perf_counter()
    rounds = 0
    solver_notes: list[str] = []
    while True:
        rounds += 1
        idx = np.flatnonzero(active)
        x = cp.Variable(n)
        delta = cp.Variable()
        cons = [A[idx] @ x + w[idx] * delta <= 0, x[:nv] <= bounds, x[:nv] >= -bounds, delta <= 1]
        if S is not None:
            cons.append(S @ x <= rhs)
        prob = cp.Problem(cp.Maximize(delta), cons)
        status, said = solve(prob, solver)
        if status == "solver-error":  # reported, never a verdict
            return LPResult(status, None, None, m, n, time.perf_counter() - t0, solver, notes=said + solver_notes)
        solver_notes += [s for s in said if s not in solver_notes]
        if status not in ("optimal", "optimal_inaccurate") or x.value is None or delta.value is None:
            return LPResult(status, None, None, m, n, time.perf_counter() - t0, solver, notes=solver_notes)
        d = float(delta.value)
        viol = A @ x.value + w * max(d, 0.0)
        viol[active] = -np.inf
        bad = np.flatnonzero(viol > 1e-9 * max(1.0, abs(d)))
        if bad.size == 0 or d <= 1e-9:
            break
        worst = bad[np.argsort(-viol[bad])[:CHUNK]]
        active[worst] = True
    notes = [f"{rounds} rounds of constraint generation, {int(active.sum())} of {m} rows active", *solver_notes]
    binding: list[int] = []
    duals = cons[0].dual_value
    if duals is not None:
        order = np.argsort(-np.asarray(duals, dtype=float).ravel())
        binding = [int(idx[k]) for k in order[:BINDING] if float(np.ravel(duals)[k]) > 1e-9]
    return LPResult(
        prob.status, d, np.asarray(x.value[:nv]), m, n, time.perf_counter() - t0, solver, notes=notes, binding=binding
    )
