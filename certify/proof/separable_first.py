"""The first separable try, run before the sink stages where the network splits into groups (``docs/math/separable.md``).

On gadgets feeding a sink the first separable try (:func:`~certify.proof.separable.separable_tries`) decides
either side in about a second, while the sink stages' tables of the reduced network R' can take a minute first:
three heterogeneous exponential gadgets at 0.97 of their exact boundary spent 57 s in the sink-drain stage (a
K = 4 table of a five-station R') before the separable try, last in the Markovian schedule, proved them stable in
0.16 s.  This stage runs that try right after the linear fluid stage (whose certificates hold for every law, so they
keep precedence; the network has been shown to empty, which the Foster side needs) and before the sink-drain stage,
within a share of the time left (:data:`EARLY_SEPARABLE_SHARE`); the Markovian stage skips a try that ran to its end
here.  Like the sink-drain stage, it comes before the quadratic fluid stage.  The sink-growth stage leaves to it
every sink whose reduced network splits into the try's groups (:func:`~certify.proof.sink.waits_for_separable`) and
tries those after it, in a second instance (three and four exponential gadgets: 7.3 and 4.1 s, most of it the sink
tables, against 1.0 and 1.1 s since stop 64).
"""

from __future__ import annotations

import time

from ..core.clock import within
from ..markov.regions import TimeLimitReached
from .context import ProofContext
from .separable import run_separable, separable_tries
from .sink import separable_first_applies
from .stage import NEXT, JsqStage, StageOutcome

__all__ = ["EARLY_SEPARABLE_SHARE", "SeparableFirst"]

#: The share of the time left the early try may use (it is the Markovian stage's first separable try, moved ahead).
EARLY_SEPARABLE_SHARE = 0.25


class SeparableFirst(JsqStage):
    """The first separable try, ahead of the sink stages, on exponential networks that split into groups.

    Examples
    --------
    Two gadgets (a JSQ pair whose slower station feeds the sink s) and one more M/M/1 queue (six stations, where
    the stage runs):

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.proof.context import ProofContext, RunState
    >>> from certify.proof.result import Result
    >>> st = [Station("s", F(9, 5))] + [Station(f"{x}{g}", F(1) if x == "a" else F(3, 2)) for g in (0, 1) for x in "ab"]
    >>> streams = [Stream(F(2, 5), choice=("s",))] + [Stream(F(8, 5), choice=(f"a{g}", f"b{g}")) for g in (0, 1)]
    >>> net = Network("g2", (*st, Station("m", F(1))), (*streams, Stream(F(1, 2), choice=("m",))),
    ...               tuple(Feedback(f"a{g}", ("s",), F(1)) for g in (0, 1)))
    >>> ctx = ProofContext(net, Result("g2"), RunState(time.perf_counter() + 60), None, True, ["table"])
    >>> out = SeparableFirst().run(ctx)
    >>> out.decision.verdict, out.decision.certificate["kind"], ctx.separable_tried
    ('stable', 'separable-foster', {'separable certificates (K=6)'})
    """

    name = "separable certificates (first try, before the sink stages)"

    def applies(self, ctx: ProofContext) -> bool:
        """On exponential networks of :data:`~certify.proof.sink.SINK_MIN_J` or more stations without capacities
        (where the sink stages run), whose empty state the Markovian checkers reach, with a separable try."""
        return separable_first_applies(ctx)

    def run(self, ctx: ProofContext) -> StageOutcome:
        """The first try within the stage's share; the decision when a certificate passed the exact check."""
        if ctx.run.expired():
            return NEXT
        item = separable_tries(ctx.base, ctx.templates)[0]
        stop = time.perf_counter() + EARLY_SEPARABLE_SHARE * max(0.0, ctx.run.deadline - time.perf_counter())
        try:
            with within(stop):
                out = run_separable(ctx, item, stop)
        except TimeLimitReached:
            return NEXT  # cut by the share: the Markovian stage tries it again
        if time.perf_counter() <= stop:  # ran to its end (an LP stopped by the share is not a failure of the try)
            ctx.separable_tried.add(item.stage)
        return NEXT if out is None else out
