"""The run's clock: deadlines as ``time.perf_counter()`` values, the time left, and the deadline in force.

``certify.prove`` keeps one deadline per run (``RunState.deadline``).  Its
stages run inside :func:`within` that deadline, so every solve started from
them (:func:`certify.search.linprog.solve_lp`, :func:`certify.search.solvers.solve`)
gets at most the time that is left, even when the caller passes no limit of
its own: :func:`remaining` reads the tighter of the two.  The deadline in force
is a context variable, so threads and concurrent runs each see their own (a
new thread starts with none).  Outside any run there is no deadline, and
nothing is bounded.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["current_deadline", "within", "remaining", "earliest"]

_DEADLINE: ContextVar[float | None] = ContextVar("certify_deadline", default=None)


def earliest(*deadlines: float | None) -> float | None:
    """The earliest of the deadlines given (None ones ignored); None when there is none.

    Parameters
    ----------
    *deadlines : float or None
        ``time.perf_counter()`` values.

    Returns
    -------
    float or None
        The earliest one.

    Examples
    --------
    >>> earliest(None, 5.0, 3.0), earliest(None, None)
    (3.0, None)
    """
    known = [d for d in deadlines if d is not None]
    return min(known) if known else None


def current_deadline() -> float | None:
    """The deadline in force (set by :func:`within`), or None.

    Returns
    -------
    float or None
        A ``time.perf_counter()`` value.

    Examples
    --------
    >>> current_deadline() is None
    True
    """
    return _DEADLINE.get()


@contextmanager
def within(deadline: float | None) -> Iterator[None]:
    """Make ``deadline`` (or the one already in force, when earlier) the deadline in force inside the block.

    Parameters
    ----------
    deadline : float or None
        A ``time.perf_counter()`` value (None: keep the one in force).

    Yields
    ------
    None
        Inside the block, :func:`remaining` and the solves count down to the earlier deadline.

    Examples
    --------
    >>> with within(time.perf_counter() + 60):
    ...     0 < remaining() <= 60
    True
    >>> remaining() is None
    True
    """
    token = _DEADLINE.set(earliest(deadline, _DEADLINE.get()))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def remaining(deadline: float | None = None, limit: float | None = None) -> float | None:
    """Seconds left before the earliest of ``deadline``, ``limit`` seconds from now and the deadline in force.

    Parameters
    ----------
    deadline : float, optional
        A ``time.perf_counter()`` value.
    limit : float, optional
        Seconds from now.

    Returns
    -------
    float or None
        The seconds left (<= 0 once the deadline has passed); None when there is no deadline at all.

    Examples
    --------
    >>> remaining() is None, remaining(limit=2.0) == 2.0, remaining(time.perf_counter() - 1) < 0
    (True, True, True)
    """
    now = time.perf_counter()
    end = earliest(deadline, None if limit is None else now + limit, _DEADLINE.get())
    return None if end is None else end - now
