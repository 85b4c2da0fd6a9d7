"""The stage of networks where only some stations have a capacity (``docs/math/capacities.md``).

:class:`NecessaryCondition` has already tried flow balance with losses (the
static split with the lossy sets).  :class:`PartialCapacities` then decides
one uncapped station with exponential laws by its overflow (an
``overflow-foster`` or ``overflow-growth`` certificate), and stops the
pipeline: the Foster, growth and fluid searches model no capacity, so they
never run on such a network, and the reason says so.
"""

from __future__ import annotations

from ..certificates import overflow_certificate
from ..core.render import plural
from ..exact.overflow import MAX_OVERFLOW_STATES, capped_count, check_overflow
from ..search.overflow import overflow_table
from .context import ProofContext
from .stage import Decision, JsqStage, StageOutcome, decide, stop

__all__ = ["PartialCapacities"]

_NOT_RUN = (
    "the Foster, growth and fluid searches model no capacity, so they are not run on a network where only some "
    "stations have one"
)


class PartialCapacities(JsqStage):
    """One uncapped station, exponential laws: its overflow decides; always stops the pipeline.

    Examples
    --------
    >>> import time
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.proof.context import ProofContext, RunState
    >>> from certify.proof.result import Result
    >>> net = Network("spill", (Station("1", F(1), capacity=1), Station("2", F(1))), (Stream(F(9, 5), choice=("1", "2")),))
    >>> ctx = ProofContext(net, Result("spill"), RunState(time.perf_counter() + 60), None, True, [])
    >>> out = PartialCapacities().run(ctx)
    >>> out.stop, out.decision.verdict, out.decision.certificate["kind"]
    (True, 'unstable', 'overflow-growth')
    """

    name = "overflow of the uncapped station"

    def applies(self, ctx: ProofContext) -> bool:
        """Networks where some but not all stations have a capacity."""
        caps = [s.capacity for s in ctx.net.stations]
        return any(k is not None for k in caps) and any(k is None for k in caps)

    def run(self, ctx: ProofContext) -> StageOutcome:
        """Search and check the overflow certificate where it applies; say what is not analysed."""
        net, chain = ctx.net, ctx.chain
        caps = [s.capacity for s in net.stations]
        free = [j for j, k in enumerate(caps) if k is None]
        names = ", ".join(net.station_ids[j] for j in free)
        if len(free) > 1:
            return stop(
                f"{plural(len(free), 'station')} ({names}) have no capacity: only flow balance with losses is tried "
                f"there ({ctx.run.necessary_text()}); {_NOT_RUN}"
            )
        if chain is None or chain.has_phases:
            return stop(
                f"station {names} alone has no capacity, but its overflow is checked for exponential laws only; "
                f"{_NOT_RUN}"
            )
        u = free[0]
        count = capped_count(caps)
        if count > MAX_OVERFLOW_STATES:
            return stop(
                f"station {names} alone has no capacity, but the capped stations have {count} level vectors "
                f"(the overflow check's limit is {MAX_OVERFLOW_STATES}); {_NOT_RUN}"
            )
        tried = []
        with ctx.timer(self.name) as t:
            t.size = f"{plural(count, 'capped level vector')}, station {names} uncapped"
            for kind in ("overflow-growth", "overflow-foster"):
                cand = overflow_table(chain, caps, u, kind, solver=ctx.solver, deadline=ctx.run.deadline)
                if cand.table is None or cand.drift is None:
                    tried.append(f"{kind}: LP {cand.status}")
                    continue
                if (cand.drift > 0) != (kind == "overflow-growth"):
                    tried.append(f"{kind}: worst drift {cand.drift:.3g} (wrong sign)")
                    continue
                try:
                    # the table with small denominators first (the LP's optimum is often the exact Poisson solution)
                    table = {y: v.limit_denominator(10**4) for y, v in cand.table.items()}
                    chk = check_overflow(chain, caps, u, table, kind, deadline=ctx.run.deadline)
                    if not chk.ok:
                        table = cand.table
                        chk = check_overflow(chain, caps, u, table, kind, deadline=ctx.run.deadline)
                except TimeoutError:
                    t.outcome = "stopped by the time limit (nothing is concluded from a partial check)"
                    ctx.run.stopped(self.name)
                    return stop(f"overflow check of station {names}: stopped by the time limit")
                if not chk.ok:
                    tried.append(f"{kind}: exact check failed: {chk.failures[0]}")
                    continue
                stable = kind == "overflow-foster"
                t.outcome = f"{'drains' if stable else 'overflows'}: drift {float(chk.facts.delta):.4g} (exact)"
                return decide(
                    Decision("stable" if stable else "unstable", "markovian",
                             f"overflow of the uncapped station ({kind}, checked exactly)",
                             overflow_certificate(net, chain, kind, u, table, chk)),
                    f"every station but {names} has a capacity; while x_{names} >= {chk.facts.level} the capped "
                    f"stations' levels decide the drift of f = x_{names} + h(levels), which is "
                    f"{'<= -' if stable else '>= '}{float(chk.facts.delta):.4g} at every one of the "
                    f"{chk.facts.states} level vectors (checked exactly): "
                    + ("positive recurrent (Foster)" if stable else "transient (Fayolle-Malyshev-Menshikov)")
                    + ", for exponential laws, this tie-breaking and these capacities",
                )
            t.outcome = "no certificate: " + "; ".join(tried)
        return stop(
            f"the overflow of station {names} decides neither way ({'; '.join(tried)}): the drift while it is long is "
            f"0 within solver tolerance (critical) or the check failed; {_NOT_RUN}"
        )

