"""The interface of a ``prove`` stage, declared once, and what a stage returns.

A stage is a small object: ``applies(ctx)`` says whether it runs on this
network, ``run(ctx)`` does its work on the shared
:class:`~certify.proof.context.ProofContext` and returns a frozen
:class:`StageOutcome`: whether the pipeline stops here (decided, or nothing
further can be concluded), the :class:`Decision` when it proved something
(verdict, semantics, method, certificate), and the reasons it found.  A stage
never writes the verdict into the :class:`~certify.proof.result.Result`: the
pipeline alone composes it from the outcomes, in order, as cvxpy's reductions
return solution objects for the problem to assemble.  (The attempts, timed by
:class:`~certify.proof.context.Timer`, are bookkeeping recorded as they happen.)

:func:`run_stages` runs the chain and yields each outcome; a stage stopped by
the time limit raises :class:`Interrupted` (a
:class:`~certify.markov.regions.TimeLimitReached`) carrying what it had found
before.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from ..core.certificate import Certificate
from ..core.clock import within
from ..core.vocabulary import Semantics, Verdict
from ..markov.regions import TimeLimitReached
from .context import ProofContext, RunState

__all__ = [
    "StageContext", "JsqStage", "Decision", "StageOutcome", "NEXT", "STOP", "go_on", "stop", "decide", "Interrupted", "Stage",
    "run_stages",
]


@dataclass(frozen=True)
class Decision:
    """What a stage (or the theorems, or the simulation checks) concludes about the network.

    Attributes
    ----------
    verdict : Verdict
        ``stable``/``unstable`` only with an exactly checked proof; ``undecided`` when what was
        proved is not a verdict (a stable fluid model without Dai's conditions).
    semantics : Semantics
        For which laws it holds.
    method : str
        How, in words (``fluid linear Lyapunov certificate``, ...).
    certificate : dict or None
        The certificate of the verdict, as the writers of :mod:`certify.certificates` build it.
    means_only : bool
        The stated means alone decide: the phase-type expansion is no part of the claim (the
        result then reports none).

    Examples
    --------
    >>> Decision("unstable", "general", "closed set (customers never leave)").certificate is None
    True
    """

    verdict: Verdict
    semantics: Semantics
    method: str
    certificate: Certificate | None = None
    means_only: bool = False


@dataclass(frozen=True)
class StageOutcome:
    """What one stage returns: whether the pipeline stops, the decision if any, the reasons found.

    Attributes
    ----------
    stop : bool
        True: the pipeline ends here (decided, or nothing further can be concluded).
    decision : Decision or None
        What the stage proved (None: no verdict from it).
    reasons : tuple of str
        The reasons, in words, in the order found (appended to the result's).
    hints : tuple of tuple of int
        Directions in which no Foster function decreased (the simulation checks start there).

    Examples
    --------
    >>> out = go_on("static split LP: solver failure (not a verdict)")
    >>> out.stop, out.decision, out.reasons
    (False, None, ('static split LP: solver failure (not a verdict)',))
    >>> decide(Decision("stable", "general", "theorem: t"), "it holds").stop
    True
    """

    stop: bool = False
    decision: Decision | None = None
    reasons: tuple[str, ...] = ()
    hints: tuple[tuple[int, ...], ...] = ()


#: Go on, nothing found worth saying.
NEXT = StageOutcome()
#: Stop here, without a verdict and without a reason.
STOP = StageOutcome(stop=True)


def go_on(*reasons: str, hints: Sequence[tuple[int, ...]] = ()) -> StageOutcome:
    """The pipeline goes on; the stage found these reasons (and hints).

    Parameters
    ----------
    *reasons : str
        In words, in order.
    hints : sequence of tuple of int
        Directions in which no Foster function decreased.

    Returns
    -------
    StageOutcome
        Not stopping, without a decision.

    Examples
    --------
    >>> go_on() == NEXT, go_on("a", hints=[(1, 0)]).hints
    (True, ((1, 0),))
    """
    return StageOutcome(False, None, tuple(reasons), tuple(hints))


def stop(*reasons: str, hints: Sequence[tuple[int, ...]] = ()) -> StageOutcome:
    """The pipeline stops here without a verdict (nothing further can be concluded), saying why.

    Parameters
    ----------
    *reasons : str
        Why, in words.
    hints : sequence of tuple of int
        Directions in which no Foster function decreased.

    Returns
    -------
    StageOutcome
        Stopping, without a decision.

    Examples
    --------
    >>> stop("no Markovian form").stop, stop() == STOP
    (True, True)
    """
    return StageOutcome(True, None, tuple(reasons), tuple(hints))


def decide(decision: Decision, *reasons: str, hints: Sequence[tuple[int, ...]] = ()) -> StageOutcome:
    """The pipeline stops here with ``decision``, for these reasons.

    Parameters
    ----------
    decision : Decision
        The verdict, its semantics, method and certificate.
    *reasons : str
        What was checked, in words.
    hints : sequence of tuple of int
        Directions in which no Foster function decreased (found before the decision).

    Returns
    -------
    StageOutcome
        Stopping, with the decision.

    Examples
    --------
    >>> decide(Decision("unstable", "general", "static split LP dual (flow balance)")).decision.verdict
    'unstable'
    """
    return StageOutcome(True, decision, tuple(reasons), tuple(hints))


class Interrupted(TimeLimitReached):
    """The time limit stopped a stage part-way: ``partial`` is what it had found before (reasons, hints; no decision).

    Parameters
    ----------
    stage : str
        What was cut short (as for :class:`~certify.markov.regions.TimeLimitReached`).
    partial : StageOutcome
        The stage's findings up to there.

    Examples
    --------
    >>> exc = Interrupted("fluid face enumeration", go_on("fluid linear: solver-error (not a verdict)"))
    >>> str(exc), exc.partial.reasons
    ('time limit reached during fluid face enumeration', ('fluid linear: solver-error (not a verdict)',))
    """

    def __init__(self, stage: str, partial: StageOutcome):
        super().__init__(stage)
        self.partial = partial


class StageContext(Protocol):
    """What every stage's context has: the run's state (its deadline).

    JSQ stages get a :class:`~certify.proof.context.ProofContext`, fork-join ones a
    :class:`~certify.proof.forkjoin.ForkJoinContext`.

    Examples
    --------
    >>> from certify.proof.context import ProofContext
    >>> isinstance(ProofContext.for_file("models/symmetric-jsq-J4.json").run, RunState)
    True
    """

    @property
    def run(self) -> RunState:
        """The run's deadline and bookkeeping."""


C = TypeVar("C", bound=StageContext)


class Stage(ABC, Generic[C]):
    """One step of ``prove``, on a context of type ``C``.

    Examples
    --------
    >>> class Note(Stage):
    ...     name = "note"
    ...     def run(self, ctx):
    ...         return go_on("looked")
    >>> from types import SimpleNamespace
    >>> ctx = SimpleNamespace(run=SimpleNamespace(deadline=None))
    >>> [out.reasons for out in run_stages(ctx, [Note(), Note()])]
    [('looked',), ('looked',)]
    """

    #: What the stage does, in words (documentation and debugging).
    name: str = ""

    def applies(self, ctx: C) -> bool:
        """Whether the stage runs on this network (default: always)."""
        return True

    @abstractmethod
    def run(self, ctx: C) -> StageOutcome:
        """Do the stage's work and say what came of it (``stop`` ends the pipeline)."""


#: The stages of a JSQ network work on its :class:`~certify.proof.context.ProofContext`.
JsqStage = Stage[ProofContext]


def run_stages(ctx: C, stages: Sequence[Stage[C]]) -> Iterator[StageOutcome]:
    """Run ``stages`` in order, yielding each one's outcome, until one stops the pipeline.

    Each stage runs :func:`~certify.core.clock.within` the run's deadline
    (``ctx.run.deadline``), so that every solve it starts gets at most the time
    left, whether or not the stage passes a limit itself.  The caller (the
    pipeline) composes the result from the outcomes as they come: a stage
    interrupted by the time limit raises, and what came before is kept.

    Parameters
    ----------
    ctx : StageContext
        The run's shared state (a ProofContext for JSQ stages, a ForkJoinContext for fork-join ones).
    stages : sequence of Stage
        The chain.

    Yields
    ------
    StageOutcome
        One per stage that applies, the last one stopping the pipeline if any did.

    Examples
    --------
    >>> class Stop(Stage):
    ...     def run(self, ctx):
    ...         return STOP
    >>> from certify.proof.context import ProofContext
    >>> [out.stop for out in run_stages(ProofContext.for_file("models/symmetric-jsq-J4.json"), [Stop(), Stop()])]
    [True]
    """
    for stage in stages:
        if not stage.applies(ctx):
            continue
        with within(ctx.run.deadline):
            outcome = stage.run(ctx)
        yield outcome
        if outcome.stop:
            return
