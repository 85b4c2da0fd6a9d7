"""The interface of a ``prove`` stage, declared once.

A stage is a small object: ``applies(ctx)`` says whether it runs on this
network, ``run(ctx)`` does its work on the shared
:class:`~certify.proof.context.ProofContext` (recording attempts, reasons and,
when it proves something, the verdict and certificate) and says whether the
pipeline goes on (:data:`NEXT`) or stops here (:data:`STOP`: decided, or
nothing further can be concluded).  :func:`run_stages` composes them, like a
chain of reductions.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from ..core.clock import within
from .context import ProofContext

__all__ = ["NEXT", "STOP", "Stage", "run_stages"]

NEXT = False
STOP = True


class Stage(ABC):
    """One step of ``prove``.

    Examples
    --------
    >>> class Note(Stage):
    ...     name = "note"
    ...     def run(self, ctx):
    ...         ctx.res.reasons.append("looked")
    ...         return NEXT
    >>> from types import SimpleNamespace
    >>> from certify.proof.result import Result
    >>> ctx = SimpleNamespace(res=Result("x"), run=SimpleNamespace(deadline=None))
    >>> run_stages(ctx, [Note(), Note()]), ctx.res.reasons
    (False, ['looked', 'looked'])
    """

    #: What the stage does, in words (documentation and debugging).
    name: str = ""

    def applies(self, ctx: ProofContext) -> bool:
        """Whether the stage runs on this network (default: always)."""
        return True

    @abstractmethod
    def run(self, ctx: ProofContext) -> bool:
        """Do the stage's work; :data:`STOP` ends the pipeline, :data:`NEXT` goes on."""


def run_stages(ctx: ProofContext, stages: Sequence[Stage]) -> bool:
    """Run ``stages`` in order until one stops the pipeline; True when one did.

    Each stage runs :func:`~certify.core.clock.within` the run's deadline
    (``ctx.run.deadline``), so that every solve it starts gets at most the time
    left, whether or not the stage passes a limit itself.

    Parameters
    ----------
    ctx : ProofContext
        The run's shared state.
    stages : sequence of Stage
        The chain.

    Returns
    -------
    bool
        True when a stage returned :data:`STOP`, False when every stage went on.

    Examples
    --------
    >>> class Stop(Stage):
    ...     def run(self, ctx):
    ...         return STOP
    >>> from certify.proof.context import ProofContext
    >>> run_stages(ProofContext.for_file("models/symmetric-jsq-J4.json"), [Stop()])
    True
    """
    for stage in stages:
        if not stage.applies(ctx):
            continue
        with within(ctx.run.deadline):
            if stage.run(ctx) is STOP:
                return True
    return False
