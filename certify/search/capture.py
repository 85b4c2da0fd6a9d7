"""What solvers say, captured: :func:`run_captured` (every solve of the package runs through it), :func:`collect`.

While a solve runs, what the solver (and cvxpy) say is captured instead of
reaching the terminal:

* warnings (:mod:`warnings`) and cvxpy's log records (cvxpy's logger, when
  cvxpy is loaded; it is never imported here), e.g. "Solution may be inaccurate";
* what the solver's C code prints on the file descriptors 1 and 2 (HiGHS
  prints a banner, which is dropped).

Each becomes a one-line *note* without source paths, prefixed with the
solver's name, so that it becomes part of the stage's outcome.  Warnings and
C-level output are captured in the main thread of a process (the CLI, a
sweep's worker processes); that state is process-wide, so in other threads
(e.g. Dask worker threads) only cvxpy's log records are captured.

:func:`collect` gathers the notes of every solve in a block (the CLI and sweeps
use it to add one "solver notes" reason to a result, :func:`notes_reason`).
"""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

__all__ = ["run_captured", "collect", "notes_reason"]

_local = threading.local()
T = TypeVar("T")


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
    """Collect warnings, cvxpy log records (when cvxpy is loaded) and (main thread) C-level output of this thread."""
    if "cvxpy" in sys.modules:  # never import cvxpy only to listen to it
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


def run_captured(
    name: str, call: Callable[[], T], errors: tuple[type[BaseException], ...] = ()
) -> tuple[T | None, str | None, list[str]]:
    """Run one solve, ``call()``, with what it says captured; a failure is a message, never an exception.

    Every solve of the package runs through here (:func:`certify.search.solvers.solve` for cvxpy
    problems, :func:`certify.search.linprog.solve_lp` for the LPs).  The notes
    also go to every :func:`collect` block open in this thread.

    Parameters
    ----------
    name : str
        The solver's name (prefixed to each note).
    call : callable
        The solve; its value is returned.
    errors : tuple of exception types
        Exceptions that mean "the solver failed" (``ValueError`` and
        ``ArithmeticError``, e.g. a solver refusing NaN data, always do).

    Returns
    -------
    value : object or None
        What ``call`` returned (None when it failed).
    error : str or None
        The failure's message, on one line (None when it did not fail).
    notes : list of str
        What was said meanwhile (warnings, log records, C-level output), one
        line each, prefixed with ``name``.

    Examples
    --------
    >>> def noisy():
    ...     warnings.warn("Solution may be inaccurate.")
    ...     return "optimal"
    >>> run_captured("SCS", noisy)
    ('optimal', None, ['SCS: UserWarning: Solution may be inaccurate.'])
    >>> run_captured("SCS", lambda: 1 / 0)[1]
    'ZeroDivisionError: division by zero'
    """
    value: T | None = None
    error: str | None = None
    with _capture() as sink:
        try:
            value = call()
        except errors as exc:
            error = _one_line(str(exc)) or "the solver failed"
        except (ValueError, ArithmeticError) as exc:
            error = f"{type(exc).__name__}: {_one_line(str(exc))}"
    notes = [f"{name}: {n}" for n in _dedupe(sink)]
    for c in getattr(_local, "collectors", None) or []:
        c.extend(notes)
    return value, error, notes


@contextmanager
def collect() -> Iterator[list[str]]:
    """Gather the notes of every solve (:func:`run_captured`) in this thread while the block runs (nested blocks each see them).

    Yields
    ------
    list of str
        The notes, filled in as solves run (an error message is not a note).

    Examples
    --------
    >>> with collect() as notes:
    ...     _ = run_captured("SCS", lambda: warnings.warn("inaccurate"))
    >>> notes
    ['SCS: UserWarning: inaccurate']
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
