"""One way to call a numeric solver: :func:`solve`, :func:`installed_solvers`, :func:`default_solver`.

Every search of the package (template LPs, fluid LPs, the static split and growth
LPs, fork-join tables) solves its cvxpy problem through :func:`solve`, which

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
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..core.errors import SolverError

__all__ = ["solve", "installed_solvers", "default_solver", "check_solver", "collect", "PREFERENCE", "SolverNotInstalled"]

# Solvers the searches prefer, best first (all solve LPs; Clarabel and SCS also the SDPs of the quartic template).
PREFERENCE = ("CLARABEL", "HIGHS", "SCS")

_local = threading.local()


class SolverNotInstalled(SolverError):
    """A solver name that is not installed (the message lists the installed ones)."""


def installed_solvers() -> list[str]:
    """The solvers cvxpy reports as installed, those of :data:`PREFERENCE` first (in its order)."""
    import cvxpy as cp

    have = list(cp.installed_solvers())
    return [s for s in PREFERENCE if s in have] + sorted(s for s in have if s not in PREFERENCE)


def default_solver() -> str:
    """The solver used when none is named: the first of :func:`installed_solvers`."""
    have = installed_solvers()
    if not have:  # pragma: no cover - cvxpy always ships Clarabel, SCS and OSQP
        raise SolverNotInstalled("no cvxpy solver is installed (install clarabel, highspy or scs)")
    return have[0]


def check_solver(name: str) -> str:
    """``name`` as cvxpy spells it (case-insensitive), or :class:`SolverNotInstalled` naming the installed ones."""
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
    """Gather the notes of every :func:`solve` in this thread while the block runs (nested blocks each see them)."""
    stack: list[list[str]] = getattr(_local, "collectors", None) or []
    mine: list[str] = []
    _local.collectors = [*stack, mine]
    try:
        yield mine
    finally:
        _local.collectors = stack


def notes_reason(notes: list[str]) -> str | None:
    """One report line for the notes gathered by :func:`collect` (None when there are none)."""
    notes = _dedupe(notes)
    if not notes:
        return None
    return "solver notes (numerical; every verdict is still checked exactly): " + "; ".join(notes)


def solve(problem: Any, solver: str | None = None, **kwargs: Any) -> tuple[str, list[str]]:
    """Solve the cvxpy ``problem`` with ``solver`` (default :func:`default_solver`).

    Returns ``(status, notes)``: cvxpy's status (``"optimal"``, ``"infeasible"``,
    ...), or ``"solver-error"`` when the solver failed (the first note is then its
    message); ``notes`` are the warnings and log messages captured meanwhile, one
    line each, prefixed with the solver's name.  Never raises a solver error.
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
