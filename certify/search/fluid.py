"""Numeric search for fluid Lyapunov functions (an LP), robust over the velocity sets by duality.

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

import numpy as np
import scipy.sparse as sp

from ..core.clock import remaining
from ..core.vocabulary import FluidKind
from ..markov.chain import Chain
from ..markov.fluid import FluidFace
from ..markov.fluid_rates import fluid_rows
from ..templates.base import round_to_grid
from .linprog import solve_lp
from .solvers import TIME_LIMIT, default_solver

__all__ = ["FluidLP", "solve_fluid", "fluid_candidates", "orbits", "SIDE_MARGIN"]

SIDE_MARGIN = 1e-4  # diagonal dominance margin of P (V >= eta |z|^2) and lower bound of linear weights
POLL_ROWS = 2000  # the LP's construction looks at the clock every this many rows


@dataclass
class FluidLP:
    """A solved (or failed) fluid LP.

    Attributes
    ----------
    status : str
        The solver's status, ``solver-error: <message>``, or ``time-limit``
        (:data:`certify.search.solvers.TIME_LIMIT`: the time limit stopped the solve or the LP's construction).
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

    @property
    def timed_out(self) -> bool:
        """True when the time limit stopped the search (nothing is concluded from it)."""
        return self.status == TIME_LIMIT


def _pairs(J: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(J) for j in range(i, J)]


def orbits(kind: FluidKind, J: int, classes: Sequence[Sequence[int]] = ()) -> list[list[int]]:
    """The coefficients (indices) forced equal by invariance under the symmetric groups of ``classes``.

    ``linear``: w is constant on each class; ``quadratic``: P_ij = P_{s(i)s(j)}
    for every permutation s within classes (one value per orbit of station pairs).

    Parameters
    ----------
    kind : FluidKind
        ``linear`` or ``quadratic``.
    J : int
        The number of stations.
    classes : sequence of sequence of int
        Disjoint station classes (stations in none are fixed).

    Returns
    -------
    list of list of int
        The orbits of two or more coefficients (indices into w, or into P's
        upper triangle in the order of the fluid LP), each sorted.

    Examples
    --------
    >>> orbits("linear", 3, [(0, 1)])
    [[0, 1]]
    >>> orbits("quadratic", 3, [(0, 1)])                # (0,0)~(1,1), (0,2)~(1,2)
    [[0, 3], [2, 4]]
    """
    cls = {j: k for k, c in enumerate(classes) for j in c}

    def key(j: int) -> tuple[str, int]:
        return ("class", cls[j]) if j in cls else ("fixed", j)

    groups: dict[object, list[int]] = {}
    items = [(i, i) for i in range(J)] if kind == "linear" else _pairs(J)
    for k, (i, j) in enumerate(items):
        groups.setdefault((i == j, *sorted((key(i), key(j)))), []).append(k)
    return [g for g in groups.values() if len(g) > 1]


def _coef_rows(kind: FluidKind, J: int, g: Sequence[int], vecs: Sequence[Sequence[Fraction]],
               floats: dict[int, float] | None = None) -> np.ndarray:
    """Rows (one per velocity vector v) of dV/dt = c'v as linear forms in the coefficients.

    ``floats`` caches float(x) by the identity of x (the faces share one Fraction
    object per velocity value, and keep them alive while the rows are built).
    """
    out = []
    memo: dict[int, float] = {} if floats is None else floats
    for v in vecs:
        vf = []
        for x in v:
            f = memo.get(id(x))
            if f is None:
                f = memo[id(x)] = float(x)
            vf.append(f)
        if kind == "linear":
            out.append(vf)
        else:
            out.append([2 * g[i] * vf[i] if i == j else 2 * (g[i] * vf[j] + g[j] * vf[i]) for i, j in _pairs(J)])
    return np.array(out, dtype=float).reshape(len(vecs), -1)


def solve_fluid(
    chain: Chain,
    faces: Sequence[FluidFace],
    kind: FluidKind,
    solver: str | None = None,
    classes: Sequence[Sequence[int]] = (),
    deadline: float | None = None,
) -> FluidLP:
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
    kind : FluidKind
        ``linear`` or ``quadratic``.
    solver : str, optional
        A solver name (default :func:`certify.search.solvers.default_solver`).
    classes : sequence of sequence of int
        Station classes: the coefficients are kept invariant under permutations
        within them (:func:`orbits`), as a certificate checked on one face per
        orbit must be.
    deadline : float, optional
        A ``time.perf_counter()`` value: the LP's construction polls it (every
        :data:`POLL_ROWS` rows) and the solver gets the time left before it (and
        before the deadline in force); either stopped gives the status ``time-limit``.

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
    >>> solve_fluid(chain, fluid_faces(chain), "linear", deadline=0.0).status      # a deadline long past
    'time-limit'
    """
    J = chain.J
    pairs = _pairs(J)
    n = J if kind == "linear" else len(pairs)
    rows = fluid_rows(chain, faces, kind)
    solver = solver or default_solver()
    fixed_A, fixed_w, rel = [], [], []
    floats: dict[int, float] = {}  # float(x) by id(x): the faces hold every x while the rows are built

    def late(done: int) -> FluidLP | None:
        """The outcome of a construction stopped by the deadline after ``done`` rows (None: time is left)."""
        left = remaining(deadline)
        if left is None or left > 0:
            return None
        note = f"stopped by the time limit while building the LP ({done} of {len(rows)} rows built); not solved"
        return FluidLP(TIME_LIMIT, None, None, len(rows), n, solver, 0.0, [note])

    for r, (k, g) in enumerate(rows):
        if r % POLL_ROWS == 0 and (stop := late(r)) is not None:
            return stop
        f = faces[k]
        w = float(sum(g)) if g else 1.0
        if f.fixed:
            fixed_A.append(_coef_rows(kind, J, g, [f.v0], floats)[0])
            fixed_w.append(w)
        else:
            rel.append((f, g, w))
    # Variables, in this order: x (n), delta, t (quadratic: one per off-diagonal pair, >= 0), y (one per relaxed
    # row), s (one per relaxed row and empty station, >= 0); every row is written as ... <= b.
    off = [(i, j) for i, j in pairs if i != j] if kind == "quadratic" else []
    ns = sum(len(f.empties) for f, _, _ in rel)
    nt, ny = len(off), len(rel)
    idelta, it, y0, s0 = n, n + 1, n + 1 + nt, n + 1 + nt + ny
    nvar = s0 + ns
    lo = np.concatenate([np.full(n, SIDE_MARGIN if kind == "linear" else -1.0), [-np.inf], np.zeros(nt),
                         np.full(ny, -np.inf), np.zeros(ns)])
    hi = np.concatenate([np.ones(n), [1.0], np.full(nt + ny + ns, np.inf)])
    blocks: list[sp.csr_matrix] = []
    rhs: list[np.ndarray] = []

    def place(M: sp.spmatrix, col: int) -> sp.csr_matrix:
        """M in the columns col.. of a row block over every variable."""
        M = sp.coo_matrix(M)
        return sp.csr_matrix((M.data, (M.row, M.col + col)), shape=(M.shape[0], nvar))

    if off:
        pos = {p: k for k, p in enumerate(pairs)}
        # t_a >= -x_ij:  -x_ij - t_a <= 0
        ri = np.repeat(np.arange(nt), 2)
        ci = np.array([[pos[p], it + a] for a, p in enumerate(off)]).ravel()
        blocks.append(sp.csr_matrix((np.full(2 * nt, -1.0), (ri, ci)), shape=(nt, nvar)))
        rhs.append(np.zeros(nt))
        # x_ii - sum_{a touching i} t_a >= SIDE_MARGIN:  -x_ii + sum t_a <= -SIDE_MARGIN
        ri2, ci2, v2 = [], [], []
        for i in range(J):
            ri2.append(i)
            ci2.append(pos[(i, i)])
            v2.append(-1.0)
            for a, (p_, q_) in enumerate(off):
                if i in (p_, q_):
                    ri2.append(i)
                    ci2.append(it + a)
                    v2.append(1.0)
        blocks.append(sp.csr_matrix((v2, (ri2, ci2)), shape=(J, nvar)))
        rhs.append(np.full(J, -SIDE_MARGIN))
    if fixed_A:
        # A x + w delta <= 0
        blocks.append(place(sp.hstack([sp.csr_matrix(np.array(fixed_A)), sp.csr_matrix(np.array(fixed_w).reshape(-1, 1))]), 0))
        rhs.append(np.zeros(len(fixed_A)))
    if rel:
        V0 = sp.csr_matrix(np.vstack([_coef_rows(kind, J, g, [f.v0], floats) for f, g, _ in rel]))
        D_rows, h_vals, row_of, ub = [], [], [], []
        for r, (f, g, _) in enumerate(rel):
            if r % POLL_ROWS == 0 and (stop := late(len(fixed_A) + r)) is not None:
                return stop
            D_rows.append(_coef_rows(kind, J, g, f.dirs, floats))
            h_vals += [float(h) for h in f.h]
            ub += [float(u) for u in f.box]
            row_of += [r] * len(f.empties)
        D = sp.csr_matrix(np.vstack(D_rows))
        R = sp.csr_matrix((np.ones(ns), (np.array(row_of), np.arange(ns))), shape=(ny, ns))
        beta = np.array([float(f.beta) for f, _, _ in rel])
        wv = np.array([w for _, _, w in rel])
        # V0 x + beta y + R diag(ub) s + w delta <= 0
        blocks.append(place(V0, 0) + place(sp.csr_matrix(wv.reshape(-1, 1)), idelta) + place(sp.diags(beta), y0)
                      + place(R @ sp.diags(np.array(ub)), s0))
        rhs.append(np.zeros(ny))
        # s >= D x - diag(h) R' y:  D x - diag(h) R' y - s <= 0
        blocks.append(place(D, 0) + place(-(sp.diags(np.array(h_vals)) @ R.T), y0) + place(-sp.identity(ns), s0))
        rhs.append(np.zeros(ns))
    cost = np.zeros(nvar)
    cost[idelta] = -1.0
    A_ub = sp.vstack(blocks, format="csr") if blocks else None
    # invariance: each coefficient of an orbit equals the orbit's first
    ties = [(g[0], k) for g in orbits(kind, J, classes) for k in g[1:]]
    A_eq = None
    if ties:
        ri = np.repeat(np.arange(len(ties)), 2)
        A_eq = sp.csr_matrix((np.tile([1.0, -1.0], len(ties)), (ri, np.array(ties).ravel())), shape=(len(ties), nvar))
    t0 = time.perf_counter()
    res = solve_lp(cost, A_ub, np.concatenate(rhs) if rhs else None, A_eq, np.zeros(len(ties)), bounds=(lo, hi),
                   solver=solver, time_limit=remaining(deadline))
    el = time.perf_counter() - t0
    if res.failed:
        return FluidLP(res.outcome, None, None, len(rows), n, solver, el, res.said)
    if not res.ok:
        return FluidLP(res.status, None, None, len(rows), n, solver, el, res.notes)
    assert res.x is not None  # res.ok: the solution is set
    return FluidLP(res.status, float(res.x[idelta]), res.x[:n].copy(), len(rows), n, solver, el, res.notes)


def fluid_candidates(
    chain: Chain, kind: FluidKind, coeffs: np.ndarray, classes: Sequence[Sequence[int]] = ()
) -> Iterator[list[Fraction] | list[list[Fraction]]]:
    """Rational coefficients from the float solution (coarse grid first): P as a matrix, or w.

    Rounding keeps what the exact check needs: w > 0, and P strictly diagonally dominant.

    Parameters
    ----------
    chain : Chain
        The chain.
    kind : FluidKind
        ``linear`` or ``quadratic``.
    coeffs : numpy.ndarray
        The float solution (:attr:`FluidLP.coeffs`).
    classes : sequence of sequence of int
        Station classes: each orbit of coefficients (:func:`orbits`) is averaged
        before rounding, so the rounded certificate is exactly invariant.

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
    coeffs = np.array(coeffs, dtype=float)
    for g in orbits(kind, J, classes):
        coeffs[g] = coeffs[g].mean()
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
