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
from .solvers import default_solver, run_problem

__all__ = ["FluidLP", "solve_fluid", "fluid_candidates", "SIDE_MARGIN"]

SIDE_MARGIN = 1e-4  # diagonal dominance margin of P (V >= eta |z|^2) and lower bound of linear weights


@dataclass
class FluidLP:
    """A solved (or failed) fluid LP.

    Attributes
    ----------
    status : str
        The solver's status, or ``solver-error: <message>``.
    delta : float or None
        The best margin (None without a solution).
    coeffs : numpy.ndarray or None
        The float coefficients: w (``linear``) or P's upper triangle (``quadratic``).
    rows, variables : int
        The problem's size.
    solver : str
        The solver used.
    solve_s : float
        Seconds spent.
    notes : list of str
        What the solver said (warnings), one line each.

    Examples
    --------
    >>> FluidLP("infeasible", None, None, 3, 2, "CLARABEL", 0.01).found
    False
    """

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
        """True when the margin is positive (delta > 1e-9)."""
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
    """Maximise delta over fluid certificates of ``kind`` (``linear`` or ``quadratic``).

    ``linear``: V(z) = w'z with w >= ``SIDE_MARGIN``; ``quadratic``: V(z) = z'Pz
    with P diagonally dominant (margin ``SIDE_MARGIN``) plus nonnegative.  On
    each face (and, for the quadratic, each generator) dV/dt <= -delta ``|g|_1``
    over every admissible velocity, robustly by LP duality on relaxed faces.

    Parameters
    ----------
    chain : Chain
        The chain whose fluid model is certified.
    faces : sequence of FluidFace
        Its faces (:func:`certify.markov.fluid.fluid_faces`).
    kind : str
        ``linear`` or ``quadratic``.
    solver : str, optional
        A cvxpy solver name (default :func:`certify.search.solvers.default_solver`).

    Returns
    -------
    FluidLP
        The float solution (a candidate only) or the status that stopped the search.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> from certify.markov.fluid import fluid_faces
    >>> def jsq2(rate):
    ...     net = Network("jsq2", (Station("1", F(1)), Station("2", F(1))), (Stream(rate, choice=("1", "2")),))
    ...     return compile_chain(net)
    >>> chain = jsq2(F(3, 2))
    >>> res = solve_fluid(chain, fluid_faces(chain), "linear")
    >>> res.status, res.found, round(res.delta, 3)
    ('optimal', True, 0.5)
    >>> chain = jsq2(F(5, 2))                               # overloaded: no fluid certificate
    >>> solve_fluid(chain, fluid_faces(chain), "linear").found
    False
    """
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
    res = run_problem(prob, solver, values=(x, delta))
    el = time.perf_counter() - t0
    if res.failed:
        return FluidLP(res.outcome, None, None, len(rows), n, solver, el, res.said)
    if not res.ok:
        return FluidLP(res.status, None, None, len(rows), n, solver, el, res.notes)
    assert x.value is not None and delta.value is not None  # res.ok: every value asked for is set
    return FluidLP(res.status, float(delta.value), np.asarray(x.value), len(rows), n, solver, el, res.notes)


def fluid_candidates(chain: Chain, kind: str, coeffs: np.ndarray) -> Iterator[list[Fraction] | list[list[Fraction]]]:
    """Rational coefficients from the float solution (coarse grid first): P as a matrix, or w.

    Rounding keeps what the exact check needs: w > 0, and P strictly diagonally dominant.

    Parameters
    ----------
    chain : Chain
        The chain.
    kind : str
        ``linear`` or ``quadratic``.
    coeffs : numpy.ndarray
        The float solution (:attr:`FluidLP.coeffs`).

    Yields
    ------
    list of Fraction or list of list of Fraction
        w (``linear``) or the symmetric matrix P (``quadratic``), on the grids 2^-12, 2^-20, 2^-30.

    Examples
    --------
    >>> import numpy as np
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> next(fluid_candidates(ch, "linear", np.array([1.0, 0.0])))
    [Fraction(1, 1), Fraction(1, 4096)]
    >>> next(fluid_candidates(ch, "quadratic", np.array([0.5, -0.5, 0.5])))
    [[Fraction(2049, 4096), Fraction(-1, 2)], [Fraction(-1, 2), Fraction(2049, 4096)]]
    """
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
