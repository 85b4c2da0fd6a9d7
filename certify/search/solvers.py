"""The solvers certify can call (found without importing cvxpy), and cvxpy problems solved: :func:`run_problem`.

The LPs of every search (template LPs, fluid LPs, the static split and growth
LPs, fork-join tables) are solved by :func:`certify.search.linprog.solve_lp`:
HiGHS or Clarabel called directly on sparse matrices (:data:`DIRECT`), any
other solver through cvxpy.  cvxpy problems (the SDP of the quartic template,
the LPs when another solver is named) go through :func:`run_problem`, which
reads the outcome the same way (:class:`Solved`: a solver failure, an optimum
with values, or another status), on top of :func:`solve`.  Both run the solver
through :func:`certify.search.capture.run_captured`: a solver's exception is
the status ``"solver-error"`` (reported, never a verdict), and what it says is
captured as one-line notes instead of reaching the terminal.

The default solver (:func:`default_solver`) is HiGHS, else Clarabel, else SCS,
else the first one installed; :func:`installed_solvers` finds them without
importing cvxpy (which takes longer than proving a small network).
``collect`` and ``notes_reason`` of :mod:`certify.search.capture` are
importable from here as well.

Numbers from solvers are only candidates: :mod:`certify.exact` decides.
"""

from __future__ import annotations

import functools
import importlib.util
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core.clock import remaining
from ..core.errors import SolverError
from .capture import collect as collect  # re-exported: the CLI and sweeps gather notes from here
from .capture import notes_reason as notes_reason
from .capture import run_captured

__all__ = [
    "run_problem",
    "Solved",
    "solve",
    "installed_solvers",
    "default_solver",
    "check_solver",
    "PREFERENCE",
    "DIRECT",
    "INTERIOR",
    "OPTIMAL",
    "TIME_LIMIT",
    "TIME_OPTIONS",
    "SolverNotInstalled",
    "time_limited",
]

# Solvers the searches prefer, best first (all solve LPs; Clarabel and SCS also the SDPs of the quartic template).
PREFERENCE = ("HIGHS", "CLARABEL", "SCS")
# The LP solvers called directly on sparse matrices (certify.search.linprog), without cvxpy.
DIRECT = ("HIGHS", "CLARABEL")
# Interior point solvers, best first: their LP solutions lie in the relative interior of the optimal face.
INTERIOR = ("CLARABEL", "SCS")
# The statuses whose values the searches use (a candidate either way: the exact check decides).
OPTIMAL = ("optimal", "optimal_inaccurate")
# The status of a solve stopped by the time limit (or not started: no time was left); never a verdict, never a failure.
TIME_LIMIT = "time-limit"
# Statuses that answer the problem whenever they come: a solve ending otherwise once its time is spent was cut by it.
_ANSWERS = ("optimal", "infeasible", "unbounded", "infeasible_or_unbounded")
# The option of each solver (as cvxpy passes it on) that bounds its run, in seconds.
TIME_OPTIONS = {"HIGHS": "time_limit", "CLARABEL": "time_limit", "SCS": "time_limit_secs", "OSQP": "time_limit",
                "GUROBI": "TimeLimit", "PIQP": "max_time"}

# cvxpy's solver names and the Python module each needs (what cvxpy's ``import_solver`` imports):
# a solver is installed when its module is found.  Looking the modules up imports neither them nor cvxpy.
SOLVER_MODULES = {
    "CLARABEL": "clarabel", "HIGHS": "highspy", "SCS": "scs", "OSQP": "osqp", "SCIPY": "scipy", "ECOS": "ecos",
    "ECOS_BB": "ecos", "CVXOPT": "cvxopt", "GLPK": "cvxopt", "GLPK_MI": "cvxopt", "MOSEK": "mosek", "GUROBI": "gurobipy",
    "CPLEX": "cplex", "XPRESS": "xpress", "COPT": "coptpy", "SCIP": "pyscipopt", "CBC": "cylp", "GLOP": "ortools",
    "PDLP": "ortools", "SDPA": "sdpap", "NAG": "naginterfaces", "PIQP": "piqp", "PROXQP": "proxsuite", "DAQP": "daqp",
    "QOCO": "qoco", "QPALM": "qpalm", "KNITRO": "knitro", "COSMO": "cosmopy", "MOREAU": "moreau",
}
# Solvers cvxpy lists only with a module inside the package (GLPK needs cvxopt's glpk).
_SUBMODULES = {"GLPK": "cvxopt.glpk", "GLPK_MI": "cvxopt.glpk"}



class SolverNotInstalled(SolverError):
    """A solver name that is not installed (the message lists the installed ones).

    Examples
    --------
    >>> try:
    ...     check_solver("nosuchsolver")
    ... except SolverNotInstalled as exc:
    ...     print(str(exc).split(" (")[0])
    'nosuchsolver' is not an installed solver
    """


@functools.cache
def _found(module: str) -> bool:
    """Whether ``module`` can be imported (looked up once per process; not imported)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package that fails to import
        return False


def installed_solvers() -> list[str]:
    """The installed solvers, those of :data:`PREFERENCE` first (in its order), found without importing cvxpy.

    HiGHS and Clarabel (:data:`DIRECT`) count when their package is installed;
    the others when cvxpy and the solver's package are (they are called through cvxpy).

    Returns
    -------
    list of str
        Solver names as cvxpy spells them.

    Examples
    --------
    >>> installed_solvers()[:2]                          # highspy and clarabel are dependencies
    ['HIGHS', 'CLARABEL']
    """
    cvxpy = _found("cvxpy")
    have = [
        s for s, m in SOLVER_MODULES.items()
        if (cvxpy or s in DIRECT) and _found(m) and (s not in _SUBMODULES or _found(_SUBMODULES[s]))
    ]
    return [s for s in PREFERENCE if s in have] + sorted(s for s in have if s not in PREFERENCE)


def default_solver(interior: bool = False) -> str:
    """The solver used when none is named: the first of :func:`installed_solvers`.

    Parameters
    ----------
    interior : bool
        Prefer an interior point solver (:data:`INTERIOR`), for an LP whose
        solution should lie in the relative interior of its optimal face (the
        static split: the support of its dual names the largest overloaded set).

    Returns
    -------
    str
        The solver's name.

    Raises
    ------
    SolverNotInstalled
        When no solver is installed at all.

    Examples
    --------
    >>> default_solver(), default_solver(interior=True)
    ('HIGHS', 'CLARABEL')
    """
    have = installed_solvers()
    if not have:
        raise SolverNotInstalled("no cvxpy solver is installed (install clarabel, highspy or scs)")
    return next((s for s in INTERIOR if s in have), have[0]) if interior else have[0]


def _cvxpy_solvers() -> list[str]:
    """What cvxpy itself reports as installed (imports cvxpy; empty without it)."""
    try:
        import cvxpy as cp
    except ImportError:  # pragma: no cover - cvxpy is a dependency
        return []
    return list(cp.installed_solvers())


def check_solver(name: str) -> str:
    """``name`` as cvxpy spells it (case-insensitive).

    A name :func:`installed_solvers` does not know is looked up in cvxpy's own
    list (importing cvxpy) before it is refused.

    Parameters
    ----------
    name : str
        A solver name as a user typed it.

    Returns
    -------
    str
        The installed solver of that name.

    Raises
    ------
    SolverNotInstalled
        When no installed solver has that name (the message names the installed ones).

    Examples
    --------
    >>> check_solver(" clarabel ")
    'CLARABEL'
    """
    want = name.strip().lower()
    have = installed_solvers()
    for s in have:
        if s.lower() == want:
            return s
    more = [s for s in _cvxpy_solvers() if s not in have]
    for s in more:
        if s.lower() == want:
            return s
    raise SolverNotInstalled(f"{name!r} is not an installed solver (installed: {', '.join(have + more)})")


def time_limited(status: str, limit: float | None, elapsed: float) -> str:
    """``status``, or :data:`TIME_LIMIT` when a solve given ``limit`` seconds spent them without an answer.

    A solver stopped by its clock says so in its own way (HiGHS ``kTimeLimit``,
    Clarabel ``MaxTime``, cvxpy ``user_limit``, SCS an inaccurate solution):
    every status other than an optimum or a proof of infeasibility or
    unboundedness, ended once (90% of) the limit was spent, counts as stopped by it.

    Parameters
    ----------
    status : str
        The solve's status.
    limit : float or None
        The seconds it was given (None: no limit).
    elapsed : float
        The seconds it ran.

    Returns
    -------
    str
        The status to report.

    Examples
    --------
    >>> time_limited("user_limit", 1.0, 1.02), time_limited("user_limit", 1.0, 0.1), time_limited("optimal", 1.0, 3.0)
    ('time-limit', 'user_limit', 'optimal')
    """
    if limit is not None and status not in _ANSWERS and elapsed >= 0.9 * limit:
        return TIME_LIMIT
    return status


def solve(problem: Any, solver: str | None = None, time_limit: float | None = None, **kwargs: Any) -> tuple[str, list[str]]:
    """Solve the cvxpy ``problem`` with ``solver`` (default :func:`default_solver`), within the time left.

    Never raises a solver error; the searches call it through :func:`run_problem`.

    Parameters
    ----------
    problem : cvxpy.Problem
        The problem.
    solver : str, optional
        A cvxpy solver name.
    time_limit : float, optional
        Seconds for the solve.  The tighter of it and the deadline in force
        (:func:`certify.core.clock.remaining`) goes to the solver as its own
        option (:data:`TIME_OPTIONS`; a solver without one is not bounded); with
        no time left nothing is solved.
    **kwargs
        Passed to ``problem.solve``.

    Returns
    -------
    status : str
        cvxpy's status (``"optimal"``, ``"infeasible"``, ...), ``"solver-error"``
        when the solver failed, or :data:`TIME_LIMIT` when the time limit stopped it
        (or left it no time).
    notes : list of str
        The warnings and log messages captured meanwhile, one line each, prefixed
        with the solver's name; on a failure the solver's message comes first.

    Examples
    --------
    >>> import cvxpy as cp
    >>> x = cp.Variable()
    >>> solve(cp.Problem(cp.Minimize(x), [x >= 1]))[0]
    'optimal'
    >>> solve(cp.Problem(cp.Minimize(x), [x >= 1]), time_limit=0.0)
    ('time-limit', ['not solved: the time limit had passed'])
    """
    import cvxpy as cp

    name = solver or default_solver()
    limit = remaining(limit=time_limit)
    if limit is not None:
        if limit <= 0:
            return TIME_LIMIT, ["not solved: the time limit had passed"]
        if name in TIME_OPTIONS:
            kwargs.setdefault(TIME_OPTIONS[name], limit)

    def call() -> str:
        problem.solve(solver=name, **kwargs)
        return str(problem.status)

    t0 = time.perf_counter()
    status, error, notes = run_captured(name, call, (cp.error.SolverError,))
    elapsed = time.perf_counter() - t0
    if error is not None:
        if time_limited("solver-error", limit, elapsed) == TIME_LIMIT:
            return TIME_LIMIT, [f"stopped by the time limit ({limit:.3g} s): {error}", *notes]
        return "solver-error", [error, *notes]
    assert status is not None
    return time_limited(status, limit, elapsed), notes


@dataclass(frozen=True)
class Solved:
    """The outcome of one solve, as every search reads it.

    Attributes
    ----------
    status : str
        cvxpy's status (``"optimal"``, ``"infeasible"``, ...), or ``"solver-error"``
        when the solver failed.
    notes : list of str
        What :func:`solve` returned: on a failure the error message first, then
        what the solver said; otherwise what it said.
    solver : str
        The solver that ran.
    ok : bool
        True when the status is in :data:`OPTIMAL` and every value asked for is set.

    Examples
    --------
    >>> failed = Solved("solver-error", ["the solver failed", "CLARABEL: x"], "CLARABEL", False)
    >>> failed.failed, failed.error, failed.said, failed.outcome
    (True, 'the solver failed', ['CLARABEL: x'], 'solver-error: the solver failed')
    >>> Solved("infeasible", [], "CLARABEL", False).outcome
    'infeasible'
    >>> Solved("time-limit", [], "HIGHS", False).timed_out
    True
    """

    status: str
    notes: list[str]
    solver: str
    ok: bool

    @property
    def failed(self) -> bool:
        """True when the solver failed (reported, never a verdict)."""
        return self.status == "solver-error"

    @property
    def timed_out(self) -> bool:
        """True when the time limit stopped the solve (reported as such: never a verdict, never a failure)."""
        return self.status == TIME_LIMIT

    @property
    def error(self) -> str | None:
        """The solver's error message (None unless :attr:`failed`)."""
        return self.notes[0] if self.failed else None

    @property
    def said(self) -> list[str]:
        """What the solver said, without the error message."""
        return self.notes[1:] if self.failed else list(self.notes)

    @property
    def outcome(self) -> str:
        """The status as searches report it: ``solver-error: <message>`` on a failure, else the status."""
        return f"solver-error: {self.error}" if self.failed else self.status


def run_problem(
    problem: Any, solver: str | None = None, values: Sequence[Any] = (), time_limit: float | None = None, **kwargs: Any
) -> Solved:
    """Solve the cvxpy ``problem`` (through :func:`solve`) and read the outcome.

    Parameters
    ----------
    problem : cvxpy.Problem
        The problem.
    solver : str, optional
        A cvxpy solver name (default :func:`default_solver`).
    values : sequence of cvxpy expressions
        The variables whose values the caller reads: the outcome is ``ok`` only
        when each has a value.
    time_limit : float, optional
        Seconds for the solve (as for :func:`solve`; the deadline in force bounds it too).
    **kwargs
        Passed to ``problem.solve``.

    Returns
    -------
    Solved
        Status, notes (warnings captured as by :func:`solve`) and whether the values are usable.
        Never raises a solver error.

    Examples
    --------
    >>> import cvxpy as cp
    >>> x = cp.Variable()
    >>> res = run_problem(cp.Problem(cp.Maximize(x), [x <= 2]), values=[x])
    >>> res.status, res.ok, round(float(x.value), 6)
    ('optimal', True, 2.0)
    >>> res = run_problem(cp.Problem(cp.Maximize(x), [x <= 2, x >= 3]), values=[x])
    >>> res.status, res.ok, res.failed
    ('infeasible', False, False)
    """
    name = solver or default_solver()
    status, notes = solve(problem, name, time_limit, **kwargs)
    ok = status in OPTIMAL and all(v.value is not None for v in values)
    return Solved(status, notes, name, ok)
