"""The one loop every certificate search of ``prove`` runs: search, round, check exactly.

A search solves a floating-point LP (or SDP); its answer is rounded to rationals
(several candidates, coarsest first); each candidate goes to the exact checker;
the first that passes is the certificate.  :func:`search_round_check` writes the
outcome of each step into the attempt's :class:`~certify.proof.context.Timer`
the same way for every kind (fluid, Foster, growth); what a passing candidate
proves (the verdict, the certificate, the reason) is the caller's.  A search
stopped by the time limit (status :data:`~certify.search.solvers.TIME_LIMIT`)
is reported as such, never as a failure or a verdict; the exact checks stop at
the deadline with :class:`~certify.markov.regions.TimeLimitReached`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Generic, Protocol, SupportsFloat, TypeVar, runtime_checkable

from ..exact import Check
from ..markov.regions import check_deadline
from ..search.solvers import TIME_LIMIT
from .context import Timer

__all__ = ["Solved", "Passed", "round_and_check", "search_round_check", "found_text", "STOPPED"]

#: The outcome of an attempt whose solve the time limit stopped.
STOPPED = "stopped by the time limit (the solve was cut short; nothing is concluded from it)"

C = TypeVar("C")
F = TypeVar("F")


@runtime_checkable
class Solved(Protocol):
    """What a search reports (:class:`certify.search.lp.LPResult`, :class:`certify.search.fluid.FluidLP`).

    Examples
    --------
    >>> from certify.search.lp import LPResult
    >>> isinstance(LPResult("optimal", 0.1, None, 7, 4, 0.01, "CLARABEL"), Solved)
    True
    """

    @property
    def status(self) -> str:
        """The solver's status (``optimal``, ``infeasible``, ``solver-error...``)."""
        ...

    @property
    def delta(self) -> float | None:
        """The best margin found (positive: a candidate worth rounding)."""
        ...

    @property
    def rows(self) -> int:
        """Constraint rows."""
        ...

    @property
    def variables(self) -> int:
        """Variables."""
        ...

    @property
    def solver(self) -> str:
        """The solver's name."""
        ...


@dataclass
class Passed(Generic[C, F]):
    """The first rounded candidate that passed the exact check, or (``check`` None) the last failures.

    Examples
    --------
    >>> Passed(failures=["delta <= 0"]).check is None
    True
    """

    candidate: C | None = None
    check: Check[F] | None = None
    failures: list[str] = field(default_factory=list)


def round_and_check(candidates: Iterable[C], check: Callable[[C], Check[F]], deadline: float | None = None) -> Passed[C, F]:
    """Check rounded candidates exactly, in order; the first that passes, or the last failures.

    Parameters
    ----------
    candidates : iterable
        Rounded (exact) candidates, coarsest first.
    check : callable
        The exact checker of one candidate.
    deadline : float, optional
        A ``time.perf_counter()`` value, looked at before each candidate.

    Returns
    -------
    Passed
        ``candidate`` and ``check`` of the first passing candidate, else ``failures`` of the last one.

    Raises
    ------
    TimeLimitReached
        When the deadline has passed before a candidate is checked.

    Examples
    --------
    >>> from certify.exact import Check
    >>> got = round_and_check([1, 2, 3], lambda c: Check(ok=c >= 2, failures=[] if c >= 2 else [f"{c} < 2"]))
    >>> got.candidate
    2
    """
    last: list[str] = []
    for cand in candidates:
        check_deadline(deadline, "the exact checks of the rounded candidates")
        chk = check(cand)
        if chk.ok:
            return Passed(cand, chk)
        last = chk.failures
    return Passed(failures=last)


def found_text(delta: SupportsFloat) -> str:
    """The outcome of a search whose certificate passed.

    Parameters
    ----------
    delta : number
        The drift margin the exact check derived.

    Returns
    -------
    str
        The attempt's outcome text.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> found_text(F(1, 4))
    'found, exact check passed (delta = 0.25)'
    """
    return f"found, exact check passed (delta = {float(delta):.3g})"


def search_round_check(
    t: Timer,
    lp: Solved,
    failure: str | None,
    found: bool,
    candidates: Callable[[], Iterable[C]],
    check: Callable[[C], Check[F]],
    delta: Callable[[Check[F]], SupportsFloat],
    deadline: float | None = None,
) -> Passed[C, F] | None:
    """Report a solved search in ``t`` and check its rounded candidates exactly.

    Parameters
    ----------
    t : Timer
        The attempt being recorded: its size and outcome are set here.
    lp : Solved
        The search's answer.
    failure : str or None
        Set when the solver failed (the caller reports the reason; the outcome is "solver failure").
    found : bool
        Whether the search found a point with a positive margin.
    candidates : callable
        The rounded candidates (called only when ``found``).
    check : callable
        The exact check of one candidate.
    delta : callable
        The drift margin a passing check derived (for the outcome text).
    deadline : float, optional
        A ``time.perf_counter()`` value (:func:`round_and_check`).

    Returns
    -------
    Passed or None
        The passing candidate and its check; None when nothing passed (``t.outcome`` says why:
        :data:`STOPPED` when the time limit stopped the search).

    Raises
    ------
    TimeLimitReached
        When the deadline passes during the exact checks.

    Examples
    --------
    >>> from certify.exact.facts import Check
    >>> from certify.proof.context import Timer
    >>> from certify.proof.result import Result
    >>> from certify.search.lp import LPResult
    >>> res = Result("x")
    >>> with Timer(res, "a search") as t:
    ...     got = search_round_check(t, LPResult("optimal", -0.2, None, 7, 4, 0.0, "CLARABEL"), None, False,
    ...                              list, lambda c: Check(ok=True), lambda chk: 0)
    >>> got, res.attempts[0].size, res.attempts[0].outcome
    (None, '7 rows x 4 vars (CLARABEL)', 'no certificate (LP optimal, best margin -0.2)')
    """
    t.size = f"{lp.rows} rows x {lp.variables} vars ({lp.solver})"
    if lp.status == TIME_LIMIT:
        t.outcome = STOPPED
        return None
    if failure is not None:
        t.outcome = "solver failure"
        return None
    if not found:
        margin = f"{lp.delta:.3g}" if lp.delta is not None else "n/a"
        t.outcome = f"no certificate (LP {lp.status}, best margin {margin})"
        return None
    got = round_and_check(candidates(), check, deadline)
    if got.check is not None:
        t.outcome = found_text(delta(got.check))
        return got
    last = got.failures
    t.outcome = f"LP margin {lp.delta:.3g}, but the exact check failed: {last[0] if last else '?'}"
    return None
