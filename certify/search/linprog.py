"""One sparse LP, solved by HiGHS or Clarabel called directly, or through cvxpy: :func:`solve_lp`.

Every LP of the searches (template LPs, fluid LPs, the static split and growth
LPs, fork-join tables) is built as scipy.sparse matrices and solved here, in the
form of :func:`scipy.optimize.linprog`:

    minimise c'x  subject to  A_ub x <= b_ub,  A_eq x = b_eq,  lo <= x <= hi.

HiGHS (``highspy``) and Clarabel are called directly (:data:`certify.search.solvers.DIRECT`),
so that a network proved by an LP never imports cvxpy; any other solver, or
``via="cvxpy"`` (the benchmark's baseline), builds the same LP in cvxpy.  What
the solver says is captured as notes (:func:`certify.search.capture.run_captured`);
HiGHS's console output never reaches the terminal.  The solution is only a
candidate: :mod:`certify.exact` decides.
"""

from __future__ import annotations

import threading
import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..core.clock import remaining
from .capture import run_captured
from .solvers import DIRECT, OPTIMAL, TIME_LIMIT, Solved, default_solver, time_limited

__all__ = ["LPSolution", "solve_lp", "VIA", "HIGHS_OPTIONS", "IPM_OPTIONS", "METHOD_OPTIONS", "METHODS"]

# How an LP reaches its solver: the direct call where there is one, else cvxpy; or always one of them.
VIA = ("auto", "direct", "cvxpy")

Bounds = tuple[Any, Any]


@dataclass(frozen=True)
class LPSolution(Solved):
    """The outcome of :func:`solve_lp`: a :class:`~certify.search.solvers.Solved` with the primal and dual solution.

    Attributes
    ----------
    x : numpy.ndarray or None
        The primal solution (None unless ``ok``).
    y_ub, y_eq : numpy.ndarray or None
        The Lagrange multipliers of the rows ``A_ub x <= b_ub`` (>= 0) and
        ``A_eq x = b_eq``, in the convention c + A_ub'y_ub + A_eq'y_eq + (bound
        multipliers) = 0; None when the solver gave none.
    objective : float or None
        c'x at the solution.
    via : str
        ``direct`` or ``cvxpy``.

    Examples
    --------
    >>> res = solve_lp(np.array([-1.0]), sp.csr_matrix([[1.0]]), np.array([2.0]))
    >>> res.status, res.ok, res.x, res.y_ub, res.objective, res.solver, res.via
    ('optimal', True, array([2.]), array([1.]), -2.0, 'HIGHS', 'direct')
    """

    x: np.ndarray | None = None
    y_ub: np.ndarray | None = None
    y_eq: np.ndarray | None = None
    objective: float | None = None
    via: str = "direct"


# Options of every direct HiGHS solve (besides silence).  Presolve off: on the searches' LPs it costs more than it
# saves (the fluid LP of bench/startup.py, 16383 rows x 15 variables from symmetric J = 14: 76 ms without, 262 ms with).
HIGHS_OPTIONS: dict[str, str] = {"presolve": "off"}

#: HiGHS options of ``method="ipm"``: the interior-point solver without crossover (no basis; the answer is
#: rounded and checked exactly anyway), after HiGHS's presolve.  On wide LPs it beats the default dual simplex:
#: the merged separable Foster LP of a depth-3 cascade with Erlang-2 service at its head (29,892 rows x 15,373
#: columns) takes 15 s (37 s without presolve) against 128 s; on the tall LPs of the other searches (43,032 rows
#: x 2,195 columns, a sink rate LP) it loses (96 s against 27 s).
IPM_OPTIONS: dict[str, str] = {"solver": "ipm", "run_crossover": "off", "presolve": "on"}

#: HiGHS's options (beyond :data:`HIGHS_OPTIONS`) of each ``method``: None (HiGHS's default, the dual simplex),
#: ``ipm`` (:data:`IPM_OPTIONS`) or ``ipm-no-presolve`` (the same without presolve: on the tall LP of a separable
#: shape with a level per station, 43,428 rows x 3,952 columns, 30 s against 45 s with presolve and more than 150 s
#: by the dual simplex).
METHOD_OPTIONS: dict[str | None, dict[str, str]] = {
    None: {}, "ipm": IPM_OPTIONS, "ipm-no-presolve": {**IPM_OPTIONS, "presolve": "off"},
}

#: The values of ``method``.
METHODS = tuple(METHOD_OPTIONS)


class _Failed(Exception):
    """A direct solver reported a failure (its message)."""


def _first_highs() -> None:
    """Build the process's first HiGHS object, which prints a banner, while the output is captured (main thread only).

    In another thread the output cannot be captured (the descriptors are the
    process's), so the banner is consumed here, when the module is imported.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    try:
        import highspy
    except ImportError:  # pragma: no cover - highspy is a dependency
        return
    run_captured("HIGHS", highspy.Highs)


_first_highs()


_Raw = tuple[str, np.ndarray | None, np.ndarray | None, float | None]


def _rows(A: Any, n: int) -> sp.csr_matrix:
    return sp.csr_matrix((0, n)) if A is None else sp.csr_matrix(A, dtype=float)


def _highs(c: np.ndarray, A: sp.csr_matrix, row_lo: np.ndarray, row_hi: np.ndarray, lo: np.ndarray, hi: np.ndarray,
           limit: float | None = None, method: str | None = None) -> _Raw:
    """min c'x, row_lo <= A x <= row_hi, lo <= x <= hi with HiGHS: (status, x, row duals in HiGHS's sign, c'x).

    ``limit``: HiGHS's option ``time_limit`` (seconds); a run it stops has the status :data:`TIME_LIMIT`.
    """
    import highspy

    H = highspy.HighsModelStatus
    status_of = {
        H.kOptimal: "optimal", H.kInfeasible: "infeasible", H.kUnbounded: "unbounded",
        H.kUnboundedOrInfeasible: "infeasible_or_unbounded", H.kTimeLimit: TIME_LIMIT, H.kIterationLimit: "user_limit",
        H.kObjectiveBound: "user_limit", H.kObjectiveTarget: "user_limit", H.kSolutionLimit: "user_limit",
        H.kInterrupt: "user_limit",
    }
    inf = highspy.kHighsInf
    h = highspy.Highs()  # the first one in a process prints a banner: captured, then dropped
    h.setOptionValue("output_flag", False)
    for key, value in {**HIGHS_OPTIONS, **METHOD_OPTIONS[method]}.items():
        h.setOptionValue(key, value)
    if limit is not None:
        h.setOptionValue("time_limit", float(limit))
    m, n = A.shape
    Ac = A.tocsc()
    Ac.sort_indices()

    def bound(v: np.ndarray, side: float) -> np.ndarray:
        return np.where(np.isfinite(v), v, side * inf)

    # num_col, num_row, num_nz, column-wise (1), minimise (1), offset, costs, bounds, rows, matrix, integrality
    if h.passModel(n, m, Ac.nnz, 1, 1, 0.0, c, bound(lo, -1), bound(hi, 1), bound(row_lo, -1), bound(row_hi, 1),
                   Ac.indptr[:-1].astype(np.int32), Ac.indices.astype(np.int32), Ac.data, np.zeros(n, np.int32)
                   ) == highspy.HighsStatus.kError:
        raise _Failed("HiGHS refused the model")
    if h.run() == highspy.HighsStatus.kError:
        raise _Failed(f"HiGHS failed: {h.modelStatusToString(h.getModelStatus())}")
    ms = h.getModelStatus()
    if ms == H.kUnboundedOrInfeasible:  # presolve could not tell which: ask the solver itself
        h.setOptionValue("presolve", "off")
        h.clearSolver()
        h.run()
        ms = h.getModelStatus()
    if ms == H.kModelEmpty:  # no rows and no columns: the origin
        return "optimal", np.zeros(n), np.zeros(m), 0.0
    status = status_of.get(ms)
    if status is None:
        raise _Failed(f"HiGHS failed: {h.modelStatusToString(ms)}")
    if status != "optimal":
        return status, None, None, None
    sol = h.getSolution()
    x = np.array(sol.col_value, dtype=float)
    duals = np.array(sol.row_dual, dtype=float) if sol.dual_valid else None
    return status, x, duals, float(h.getInfo().objective_function_value)


# Clarabel's statuses as cvxpy reads them (its failures are solver errors).
_CLARABEL = {
    "Solved": "optimal", "AlmostSolved": "optimal_inaccurate", "PrimalInfeasible": "infeasible",
    "AlmostPrimalInfeasible": "infeasible_inaccurate", "DualInfeasible": "unbounded",
    "AlmostDualInfeasible": "unbounded_inaccurate", "MaxIterations": "user_limit", "MaxTime": TIME_LIMIT,
}


def _clarabel(c: np.ndarray, A_ub: sp.csr_matrix, b_ub: np.ndarray, A_eq: sp.csr_matrix, b_eq: np.ndarray,
              lo: np.ndarray, hi: np.ndarray, limit: float | None = None
              ) -> tuple[str, np.ndarray | None, np.ndarray | None, np.ndarray | None, float | None]:
    """The LP with Clarabel: equality rows in the zero cone, the rest (bounds as rows) in the nonnegative cone.

    ``limit``: Clarabel's setting ``time_limit`` (seconds); a run it stops (``MaxTime``) has the status :data:`TIME_LIMIT`.
    """
    import clarabel

    n = len(c)
    eye = sp.identity(n, format="csr")
    up, down = np.flatnonzero(np.isfinite(hi)), np.flatnonzero(np.isfinite(lo))
    A = sp.vstack([A_eq, A_ub, eye[up], -eye[down]], format="csc")
    b = np.concatenate([b_eq, b_ub, hi[up], -lo[down]])
    cones = [clarabel.ZeroConeT(A_eq.shape[0]), clarabel.NonnegativeConeT(A.shape[0] - A_eq.shape[0])]
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    if limit is not None:
        settings.time_limit = float(limit)
    sol = clarabel.DefaultSolver(sp.csc_matrix((n, n)), c, A, b, cones, settings).solve()
    name = str(sol.status)
    status = _CLARABEL.get(name)
    if status is None:
        raise _Failed(f"Clarabel failed: {name}")
    if status == "optimal_inaccurate":  # what cvxpy warns, as a note
        warnings.warn(f"Solution may be inaccurate (Clarabel: {name}).", UserWarning, stacklevel=1)
    if status not in OPTIMAL:
        return status, None, None, None, None
    z = np.array(sol.z, dtype=float)
    me, mu = A_eq.shape[0], A_ub.shape[0]
    return status, np.array(sol.x, dtype=float), z[me : me + mu], z[:me], float(c @ np.array(sol.x))


def _cvxpy(name: str, c: np.ndarray, A_ub: sp.csr_matrix, b_ub: np.ndarray, A_eq: sp.csr_matrix, b_eq: np.ndarray,
           lo: np.ndarray, hi: np.ndarray, limit: float | None = None
           ) -> tuple[str, list[str], np.ndarray | None, np.ndarray | None, np.ndarray | None, float | None]:
    """The same LP built in cvxpy and solved through :func:`certify.search.solvers.solve`."""
    import cvxpy as cp

    from .solvers import solve

    n = len(c)
    x = cp.Variable(n)
    ub = A_ub @ x <= b_ub if A_ub.shape[0] else None
    eq = A_eq @ x == b_eq if A_eq.shape[0] else None
    cons = [k for k in (ub, eq) if k is not None]
    for vals, side in ((hi, 1), (lo, -1)):
        idx = np.flatnonzero(np.isfinite(vals))
        if idx.size:
            cons.append(side * x[idx] <= side * vals[idx])
    prob = cp.Problem(cp.Minimize(c @ x), cons)
    status, notes = solve(prob, name, time_limit=limit)
    if status not in OPTIMAL or x.value is None:
        return status, notes, None, None, None, None
    dual = [None if k is None else (np.zeros(0) if k.dual_value is None else np.asarray(k.dual_value, dtype=float).ravel())
            for k in (ub, eq)]
    y_ub = np.zeros(0) if ub is None else dual[0]
    y_eq = np.zeros(0) if eq is None else dual[1]
    return status, notes, np.asarray(x.value, dtype=float), y_ub, y_eq, float(c @ np.asarray(x.value))


def solve_lp(
    c: Any,
    A_ub: Any = None,
    b_ub: Any = None,
    A_eq: Any = None,
    b_eq: Any = None,
    bounds: Bounds | None = None,
    solver: str | None = None,
    via: str = "auto",
    time_limit: float | None = None,
    method: str | None = None,
) -> LPSolution:
    """Minimise c'x subject to A_ub x <= b_ub, A_eq x = b_eq and the bounds.

    Parameters
    ----------
    c : array_like
        The costs (n).
    A_ub, A_eq : sparse matrix or array_like, optional
        The inequality and equality rows (n columns each).
    b_ub, b_eq : array_like, optional
        Their right sides.
    bounds : (array_like, array_like), optional
        Lower and upper bounds of x (``-inf`` / ``inf`` for none; scalars
        broadcast); default: x free.  (Unlike :func:`scipy.optimize.linprog`,
        whose default is x >= 0.)
    solver : str, optional
        A solver name (default :func:`certify.search.solvers.default_solver`).
    via : str
        ``auto``: HiGHS and Clarabel directly, any other solver through cvxpy;
        ``direct``: directly (a solver without a direct call is a ``ValueError``);
        ``cvxpy``: through cvxpy (the benchmark's baseline).
    time_limit : float, optional
        Seconds for the solve.  The tighter of it and the deadline in force
        (:func:`certify.core.clock.remaining`: ``prove`` runs its stages within
        the run's deadline) is passed to the solver (HiGHS ``time_limit``,
        Clarabel ``time_limit``, through cvxpy
        :data:`certify.search.solvers.TIME_OPTIONS`); with no time left nothing is solved.
    method : str, optional
        For HiGHS called directly: ``ipm`` runs its interior-point solver without crossover
        (:data:`IPM_OPTIONS`; faster on wide LPs, and no multipliers are promised), ``ipm-no-presolve`` the same
        without presolve; None its default (:data:`METHODS`).
        Other solvers ignore it.

    Returns
    -------
    LPSolution
        Status (``optimal``, ``optimal_inaccurate``, ``infeasible``, ``unbounded``,
        ``infeasible_or_unbounded``, ``user_limit``, ``solver-error``, or
        ``time-limit``: stopped by the time limit, :attr:`~certify.search.solvers.Solved.timed_out`),
        the solution and its multipliers, the notes.  Never raises a solver error.

    Raises
    ------
    ValueError
        For an unknown ``via`` or ``method``, or ``via="direct"`` with a solver that has no direct call.

    Examples
    --------
    max x + y subject to x + 2y <= 4, x - y = 1, 0 <= x, y <= 3:

    >>> c = np.array([-1.0, -1.0])
    >>> args = (sp.csr_matrix([[1.0, 2.0]]), [4.0], sp.csr_matrix([[1.0, -1.0]]), [1.0], (0.0, 3.0))
    >>> res = solve_lp(c, *args)
    >>> res.outcome, res.x.round(6).tolist(), round(res.objective, 6), res.y_ub.round(6).tolist(), res.y_eq.round(6).tolist()
    ('optimal', [2.0, 1.0], -3.0, [0.666667], [0.333333])
    >>> res = solve_lp(c, *args, method="ipm")
    >>> res.outcome, res.x.round(6).tolist()
    ('optimal', [2.0, 1.0])
    >>> solve_lp(c, *args, method="ipm-no-presolve").x.round(6).tolist()
    [2.0, 1.0]
    >>> res = solve_lp(c, *args, solver="CLARABEL")
    >>> res.solver, res.x.round(6).tolist(), res.y_ub.round(6).tolist()
    ('CLARABEL', [2.0, 1.0], [0.666667])
    >>> solve_lp(c, sp.csr_matrix([[1.0, 0.0]]), [-1.0], bounds=(0.0, 3.0)).status
    'infeasible'
    >>> late = solve_lp(c, *args, time_limit=0.0)
    >>> late.status, late.timed_out, late.ok, late.notes
    ('time-limit', True, False, ['not solved: the time limit had passed'])
    """
    if via not in VIA:
        raise ValueError(f"via must be one of {', '.join(VIA)}, not {via!r}")
    if method not in METHODS:
        raise ValueError(f"method must be {' or '.join(map(repr, METHODS))}, not {method!r}")
    name = solver or default_solver()
    if via == "direct" and name not in DIRECT:
        raise ValueError(f"{name} has no direct call (direct: {', '.join(DIRECT)})")
    cv = np.asarray(c, dtype=float).ravel()
    n = len(cv)
    Aub, Aeq = _rows(A_ub, n), _rows(A_eq, n)
    bub = np.asarray(b_ub if b_ub is not None else np.zeros(0), dtype=float).ravel()
    beq = np.asarray(b_eq if b_eq is not None else np.zeros(0), dtype=float).ravel()
    lo, hi = bounds if bounds is not None else (-np.inf, np.inf)
    lov = np.broadcast_to(np.asarray(lo, dtype=float), (n,)).copy()
    hiv = np.broadcast_to(np.asarray(hi, dtype=float), (n,)).copy()
    limit = remaining(limit=time_limit)
    if limit is not None and limit <= 0:
        return LPSolution(TIME_LIMIT, ["not solved: the time limit had passed"], name, False, via="cvxpy" if via == "cvxpy" else "direct")
    if via == "cvxpy" or name not in DIRECT:
        status, notes, x, y_ub, y_eq, obj = _cvxpy(name, cv, Aub, bub, Aeq, beq, lov, hiv, limit)
        ok = status in OPTIMAL and x is not None
        return LPSolution(status, notes, name, ok, x, y_ub, y_eq, obj, "cvxpy")
    mu = Aub.shape[0]

    def call() -> tuple[str, np.ndarray | None, np.ndarray | None, np.ndarray | None, float | None]:
        if name == "HIGHS":
            A = sp.vstack([Aub, Aeq], format="csr")
            row_lo = np.concatenate([np.full(mu, -np.inf), beq])
            status, x, duals, obj = _highs(cv, A, row_lo, np.concatenate([bub, beq]), lov, hiv, limit, method)
            if duals is None:
                return status, x, None, None, obj
            return status, x, -duals[:mu], -duals[mu:], obj  # HiGHS: c - A'y = reduced costs
        return _clarabel(cv, Aub, bub, Aeq, beq, lov, hiv, limit)

    t0 = time.perf_counter()
    out, error, notes = run_captured(name, call, (_Failed,))
    elapsed = time.perf_counter() - t0
    if error is not None or out is None:
        if time_limited("solver-error", limit, elapsed) == TIME_LIMIT:
            return LPSolution(TIME_LIMIT, [f"stopped by the time limit ({limit:.3g} s): {error}", *notes], name, False)
        return LPSolution("solver-error", [error or "the solver failed", *notes], name, False)
    status, x, y_ub, y_eq, obj = out
    status = time_limited(status, limit, elapsed)
    return LPSolution(status, notes, name, status in OPTIMAL and x is not None, x, y_ub, y_eq, obj, "direct")
