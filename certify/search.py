"""Numeric search for certificate coefficients (cvxpy), then rounding to rationals.

The search is generic over templates: it stacks the template's exact rows into
sparse float matrices and maximises the drift margin delta.  What comes out is
only a *candidate*; :mod:`certify.exact` decides.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from .templates.base import Template

__all__ = ["LPResult", "solve_template", "rationalize", "installed_lp_solvers"]

# Grids tried, finest last, when rounding a float solution to rationals.
DENOMINATORS = (2**12, 2**20, 2**30)


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
    duals: np.ndarray | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return self.delta is not None and self.delta > 1e-9


def installed_lp_solvers() -> list[str]:
    """LP-capable solvers cvxpy sees, in order of preference."""
    have = set(cp.installed_solvers())
    return [s for s in ("CLARABEL", "HIGHS", "SCS") if s in have]


def _matrix(rows, n: int) -> sp.csr_matrix:
    data, ri, ci = [], [], []
    for r, row in enumerate(rows):
        for k, c in row.coeffs:
            data.append(float(c))
            ri.append(r)
            ci.append(k)
    return sp.csr_matrix((data, (ri, ci)), shape=(len(rows), n))


def solve_template(tmpl: Template, solver: str | None = None, margin: float = 1e-6) -> LPResult:
    """Maximise delta subject to the template's drift and side rows.

    Rows identical after compilation are merged.  ``solver`` defaults to the first
    of :func:`installed_lp_solvers`.
    """
    nv = len(tmpl.variables())
    n = nv + len(tmpl.aux_variables())
    drift = tmpl.drift_rows()
    uniq: dict[tuple, int] = {}
    kept = []
    for row in drift:
        key = (row.coeffs, row.weight)
        if key not in uniq:
            uniq[key] = len(kept)
            kept.append(row)
    solvers = installed_lp_solvers()
    solver = solver or solvers[0]
    if not kept:
        return LPResult("no-rows", None, None, 0, n, 0.0, solver, notes=["no unbounded region"])
    A = _matrix(kept, n)
    w = np.array([row.weight for row in kept], dtype=float)
    x = cp.Variable(n)
    delta = cp.Variable()
    bound = float(tmpl.bound())
    cons = [A @ x + w * delta <= 0, x[:nv] <= bound, x[:nv] >= -bound, delta <= 1]
    side = tmpl.side_rows()
    if side:
        S = _matrix(side, n)
        rhs = np.array([float(r.rhs) - (margin if r.margin else 0.0) for r in side])
        cons.append(S @ x <= rhs)
    prob = cp.Problem(cp.Maximize(delta), cons)
    t0 = time.perf_counter()
    try:
        prob.solve(solver=solver)
        status = prob.status
    except cp.error.SolverError as exc:  # reported, never a verdict
        return LPResult("solver-error", None, None, len(kept), n, time.perf_counter() - t0, solver, notes=[str(exc)])
    dt = time.perf_counter() - t0
    if status not in ("optimal", "optimal_inaccurate") or x.value is None:
        return LPResult(status, None, None, len(kept), n, dt, solver)
    duals = cons[0].dual_value
    return LPResult(status, float(delta.value), np.asarray(x.value[:nv]), len(kept), n, dt, solver, duals=duals)


def rationalize(values: np.ndarray, denominator: int) -> list[Fraction]:
    """Round floats to the grid 1/denominator, exactly."""
    return [Fraction(int(round(float(v) * denominator)), denominator) for v in values]
