"""One way to call a numeric solver: :func:`run_problem` (and :func:`solve` under it), the installed solvers.

Every search of the package (template LPs and SDPs, fluid LPs, the static split
and growth LPs, fork-join tables) solves its cvxpy problem through
:func:`run_problem`, which reads the outcome the same way for all of them
(:class:`Solved`: a solver failure, an optimum with values, or another status),
on top of :func:`solve`, which

* picks the default solver when none is named (Clarabel, else HiGHS, else SCS,
  else the first one cvxpy has);
* turns a :class:`cvxpy.error.SolverError` into the status ``"solver-error"``
  (never an exception: a solver failure is reported, it is never a verdict);
* captures what cvxpy and the solver say through :mod:`warnings` and cvxpy's
  logger while it runs (e.g. "Solution may be inaccurate"), and returns it as
  one-line *notes* without source paths, so that it becomes part of the stage's
  outcome instead of leaking to stderr.

* sends what the solver's C code prints on the file descriptors 1 and 2 (HiGHS
  prints a banner) to the notes as well (its banner dropped).

Warnings and C-level output are captured in the main thread of a process (the
CLI, a sweep's worker processes); that state is process-wide, so in other
threads (e.g. Dask worker threads) only cvxpy's log records are captured.

:func:`collect` gathers the notes of every solve in a block (the CLI and sweeps
use it to add one "solver notes" reason to a result).

Numbers from solvers are only candidates: :mod:`certify.exact` decides.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..core.errors import SolverError

__all__ = [
    "run_problem",
    "Solved",
    "solve",
    "installed_solvers",
    "default_solver",
    "check_solver",
    "collect",
    "notes_reason",
    "PREFERENCE",
    "OPTIMAL",
    "SolverNotInstalled",
]

# Solvers the searches prefer, best first (all solve LPs; Clarabel and SCS also the SDPs of the quartic template).
PREFERENCE = ("CLARABEL", "HIGHS", "SCS")
# The statuses whose values the searches use (a candidate either way: the exact check decides).
OPTIMAL = ("optimal", "optimal_inaccurate")

_local = threading.local()


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


def installed_solvers() -> list[str]:
    """The solvers cvxpy reports as installed, those of :data:`PREFERENCE` first (in its order).

    Returns
    -------
    list of str
        Solver names as cvxpy spells them.

    Examples
    --------
    >>> installed_solvers()[0] in PREFERENCE            # cvxpy ships Clarabel and SCS
    True
    """
    import cvxpy as cp

    have = list(cp.installed_solvers())
    return [s for s in PREFERENCE if s in have] + sorted(s for s in have if s not in PREFERENCE)


def default_solver() -> str:
    """The solver used when none is named: the first of :func:`installed_solvers`.

    Returns
    -------
    str
        The solver's name.

    Raises
    ------
    SolverNotInstalled
        When cvxpy has no solver at all.

    Examples
    --------
    >>> default_solver() == installed_solvers()[0]
    True
    """
    have = installed_solvers()
    if not have:  # pragma: no cover - cvxpy always ships Clarabel, SCS and OSQP
        raise SolverNotInstalled("no cvxpy solver is installed (install clarabel, highspy or scs)")
    return have[0]


def check_solver(name: str) -> str:
    """``name`` as cvxpy spells it (case-insensitive).

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
    have = installed_solvers()
    for s in have:
        if s.lower() == name.strip().lower():
            return s
    raise SolverNotInstalled(f"{name!r} is not an installed solver (installed: {', '.join(have)})")


# ------------------------------------------------------------------------ capture
class _Router(logging.Handler):
    """Stands in for cvxpy's stderr handler: records go to the capturing thread's notes, else to the old handlers."""

    def __init__(self, fallback: list[logging.Handler]):
        super().__init__(logging.DEBUG)
        self.fallback = fallback

    def emit(self, record: logging.LogRecord) -> None:
        sink = getattr(_local, "sink", None)
        if sink is not None:
            if record.levelno >= logging.WARNING:
                sink.append(_one_line(record.getMessage()))
            return
        for h in self.fallback:
            if record.levelno >= h.level:
                h.handle(record)


_router_lock = threading.Lock()


def _install_router() -> None:
    from cvxpy.settings import LOGGER

    with _router_lock:
        if any(isinstance(h, _Router) for h in LOGGER.handlers):
            return
        old = list(LOGGER.handlers)
        for h in old:
            LOGGER.removeHandler(h)
        LOGGER.addHandler(_Router(old))


def _one_line(text: str) -> str:
    lines = [ln.strip() for ln in str(text).strip().splitlines() if ln.strip()]
    return " ".join(lines)[:300] if lines else "(empty message)"


def _dedupe(notes: list[str]) -> list[str]:
    out: list[str] = []
    seen: dict[str, int] = {}
    for n in notes:
        if n in seen:
            seen[n] += 1
        else:
            seen[n] = 1
            out.append(n)
    return [n if seen[n] == 1 else f"{n} ({seen[n]} times)" for n in out]


# What solvers print on their own (HiGHS's banner) that says nothing about this solve.
_BANNER = re.compile(r"^(Running HiGHS|Includes third-party|Copyright|-{5,}|=+$)")


@contextmanager
def _fd_capture(sink: list[str]) -> Iterator[None]:
    """Send what the solver writes to the file descriptors 1 and 2 (C code) to ``sink`` instead of the terminal."""
    import tempfile

    try:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = [os.dup(1), os.dup(2)]
    except (OSError, ValueError, AttributeError):  # no real descriptors (e.g. a notebook): nothing to redirect
        yield
        return
    with tempfile.TemporaryFile() as tmp:
        try:
            os.dup2(tmp.fileno(), 1)
            os.dup2(tmp.fileno(), 2)
            yield
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
            tmp.seek(0)
            text = tmp.read().decode("utf-8", "replace")
            sink.extend(f"output: {_one_line(ln)}" for ln in text.splitlines() if ln.strip() and not _BANNER.match(ln.strip()))


@contextmanager
def _capture() -> Iterator[list[str]]:
    """Collect warnings, cvxpy log records and (main thread) C-level output of this thread while the block runs."""
    _install_router()
    sink: list[str] = []
    outer = getattr(_local, "sink", None)
    _local.sink = sink
    try:
        if threading.current_thread() is threading.main_thread():
            with warnings.catch_warnings(record=True) as caught, _fd_capture(sink):
                warnings.simplefilter("always")
                yield sink
            sink.extend(f"{w.category.__name__}: {_one_line(str(w.message))}" for w in caught)
        else:
            yield sink
    finally:
        _local.sink = outer


@contextmanager
def collect() -> Iterator[list[str]]:
    """Gather the notes of every :func:`solve` in this thread while the block runs (nested blocks each see them).

    Yields
    ------
    list of str
        The notes, filled in as solves run (an error message is not a note).

    Examples
    --------
    >>> import cvxpy as cp
    >>> x = cp.Variable()
    >>> with collect() as notes:
    ...     status, _ = solve(cp.Problem(cp.Maximize(x), [x <= 1]))
    >>> status, notes
    ('optimal', [])
    """
    stack: list[list[str]] = getattr(_local, "collectors", None) or []
    mine: list[str] = []
    _local.collectors = [*stack, mine]
    try:
        yield mine
    finally:
        _local.collectors = stack


def notes_reason(notes: list[str]) -> str | None:
    """One report line for the notes gathered by :func:`collect`.

    Parameters
    ----------
    notes : list of str
        The notes (repeats are counted).

    Returns
    -------
    str or None
        The line, or None when there are no notes.

    Examples
    --------
    >>> notes_reason(["SCS: inaccurate", "SCS: inaccurate"])
    'solver notes (numerical; every verdict is still checked exactly): SCS: inaccurate (2 times)'
    >>> notes_reason([]) is None
    True
    """
    notes = _dedupe(notes)
    if not notes:
        return None
    return "solver notes (numerical; every verdict is still checked exactly): " + "; ".join(notes)


def solve(problem: Any, solver: str | None = None, **kwargs: Any) -> tuple[str, list[str]]:
    """Solve the cvxpy ``problem`` with ``solver`` (default :func:`default_solver`).

    Never raises a solver error; the searches call it through :func:`run_problem`.

    Parameters
    ----------
    problem : cvxpy.Problem
        The problem.
    solver : str, optional
        A cvxpy solver name.
    **kwargs
        Passed to ``problem.solve``.

    Returns
    -------
    status : str
        cvxpy's status (``"optimal"``, ``"infeasible"``, ...), or ``"solver-error"``
        when the solver failed.
    notes : list of str
        The warnings and log messages captured meanwhile, one line each, prefixed
        with the solver's name; on a failure the solver's message comes first.

    Examples
    --------
    >>> import cvxpy as cp
    >>> x = cp.Variable()
    >>> solve(cp.Problem(cp.Minimize(x), [x >= 1]))[0]
    'optimal'
    """
    import cvxpy as cp

    name = solver or default_solver()
    with _capture() as sink:
        try:
            problem.solve(solver=name, **kwargs)
            status = str(problem.status)
            error = None
        except cp.error.SolverError as exc:
            status, error = "solver-error", _one_line(str(exc)) or "the solver failed"
        except (ValueError, ArithmeticError) as exc:  # e.g. a solver refusing NaN/inf data
            status, error = "solver-error", f"{type(exc).__name__}: {_one_line(str(exc))}"
    notes = [f"{name}: {n}" for n in _dedupe(sink)]
    if error is not None:
        notes.insert(0, error)
    for c in getattr(_local, "collectors", None) or []:
        c.extend(notes[1:] if error is not None else notes)
    return status, notes


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


def run_problem(problem: Any, solver: str | None = None, values: Sequence[Any] = (), **kwargs: Any) -> Solved:
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
    status, notes = solve(problem, name, **kwargs)
    ok = status in OPTIMAL and all(v.value is not None for v in values)
    return Solved(status, notes, name, ok)
