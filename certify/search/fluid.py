"""Numeric search for fluid Lyapunov functions (cvxpy LP), robust over the velocity sets by duality.

For a face whose velocity set is a box of empty-station throughputs cut by one
equation, max_t {a(P)'t : h't = beta, 0 <= t <= u} is replaced by its dual
min_{y, s >= 0} {beta y + u's : s >= a(P) - y h}, so the robust condition stays
linear in (P, y, s).  Only proposes: :func:`certify.exact.check_fluid` decides.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ..markov.chain import Chain
from ..markov.fluid import FluidFace, fluid_rows
from ..templates.base import round_to_grid
from .solvers import default_solver, solve

__all__ = ["FluidLP", "solve_fluid", "fluid_candidates"]

SIDE_MARGIN = 1e-4  # diagonal dominance margin of P (V >= eta |z|^2) and lower bound of linear weights


@dataclass
class FluidLP:
    status: str
    delta: float | None
    coeffs: np.ndarray | None
    rows: int
    variables: int
    solver: str
    solve_s: float
    notes: list[str] = field(default_factory=list)  # what the solver said (warnings), one line each

    @property
    def found(self) -> bool:
        return self.delta is not None and self.delta > 1e-9


def _pairs(J: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(J) for j in range(i, J)]


def _coef_rows(kind: str, J: int, g: Sequence[int], vecs: Sequence[Sequence[Fraction]]) -> np.ndarray:
    """Rows (one per velocity vector v) of dV/dt = c'v as linear forms in the coefficients."""
    out = []
    for v in vecs:
        vf = [float(x) for x in v]
        if kind == "linear":
            out.append(vf)
        else:
            out.append([2 * g[i] * vf[i] if i == j else 2 * (g[i] * vf[j] + g[j] * vf[i]) for i, j in _pairs(J)])
    return np.array(out, dtype=float).reshape(len(vecs), -1)


def solve_fluid(chain: Chain, faces: Sequence[FluidFace], kind: str, solver: str | None = None) -> FluidLP:
    """Maximise delta over fluid certificates of ``kind`` (``linear`` or ``quadratic``)."""
    J = chain.J
    pairs = _pairs(J)
    n = J if kind == "linear" else len(pairs)
    rows = fluid_rows(chain, faces, kind)
    solver = solver or default_solver()
    fixed_A, fixed_w, rel = [], [], []
    for k, g in rows:
        f = faces[k]
        w = float(sum(g)) if g else 1.0
        if f.fixed:
            fixed_A.append(_coef_rows(kind, J, g, [f.v0])[0])
            fixed_w.append(w)
        else:
            rel.append((f, g, w))
    x = cp.Variable(n)
    delta = cp.Variable()
    cons = [x <= 1, x >= -1, delta <= 1]
    if kind == "linear":
        cons.append(x >= SIDE_MARGIN)
    else:
        off = [(i, j) for i, j in pairs if i != j]
        t = cp.Variable(len(off), nonneg=True)
        pos = {p: k for k, p in enumerate(pairs)}
        for a, (i, j) in enumerate(off):
            cons.append(t[a] >= -x[pos[(i, j)]])
        for i in range(J):
            cons.append(x[pos[(i, i)]] - sum(t[a] for a, (p, q) in enumerate(off) if i in (p, q)) >= SIDE_MARGIN)
    if fixed_A:
        A = sp.csr_matrix(np.array(fixed_A))
        cons.append(A @ x + np.array(fixed_w) * delta <= 0)
    if rel:
        # one dual y per row, one s per (row, empty station)
        y = cp.Variable(len(rel))
        ns = sum(len(f.empties) for f, _, _ in rel)
        s = cp.Variable(ns, nonneg=True)
        V0 = sp.csr_matrix(np.vstack([_coef_rows(kind, J, g, [f.v0]) for f, g, _ in rel]))
        D_rows, h_vals, row_of, ub = [], [], [], []
        for r, (f, g, _) in enumerate(rel):
            D_rows.append(_coef_rows(kind, J, g, f.dirs))
            h_vals += [float(h) for h in f.h]
            ub += [float(u) for u in f.box]
            row_of += [r] * len(f.empties)
        D = sp.csr_matrix(np.vstack(D_rows))
        R = sp.csr_matrix((np.ones(ns), (np.array(row_of), np.arange(ns))), shape=(len(rel), ns))
        beta = np.array([float(f.beta) for f, _, _ in rel])
        wv = np.array([w for _, _, w in rel])
        cons.append(V0 @ x + cp.multiply(beta, y) + R @ cp.multiply(np.array(ub), s) + wv * delta <= 0)
        cons.append(s >= D @ x - cp.multiply(np.array(h_vals), R.T @ y))
    prob = cp.Problem(cp.Maximize(delta), cons)
    t0 = time.perf_counter()
    status, notes = solve(prob, solver)
    el = time.perf_counter() - t0
    if status == "solver-error":
        return FluidLP(f"solver-error: {notes[0]}", None, None, len(rows), n, solver, el, notes[1:])
    if status not in ("optimal", "optimal_inaccurate") or x.value is None or delta.value is None:
        return FluidLP(status, None, None, len(rows), n, solver, el, notes)
    return FluidLP(status, float(delta.value), np.asarray(x.value), len(rows), n, solver, el, notes)


def fluid_candidates(chain: Chain, kind: str, coeffs: np.ndarray) -> Iterator[list[Fraction] | list[list[Fraction]]]:
    """Rational coefficients from the float solution (coarse grid first): P as a matrix, or w."""
    J = chain.J
    pairs = _pairs(J)
    for D in (2**12, 2**20, 2**30):
        q = round_to_grid(coeffs, D)
        if kind == "linear":
            yield [max(v, Fraction(1, D)) for v in q]
            continue
        P = [[Fraction(0)] * J for _ in range(J)]
        for (i, j), v in zip(pairs, q):
            P[i][j] = P[j][i] = v
        for i in range(J):  # mend what rounding broke: strict diagonal dominance
            need = sum((-P[i][j] for j in range(J) if j != i and P[i][j] < 0), Fraction(0)) + Fraction(1, D)
            if P[i][i] < need:
                P[i][i] = need
        yield P
