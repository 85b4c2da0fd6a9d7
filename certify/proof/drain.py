"""The sink-drain stage of ``prove``: the rest of the network drains a sink or a set of sinks (``docs/math/drain.md``).

For each candidate (a station with forced inflow, then linked pairs, then sets of three
or four stations that are unions of routing sets; those whose inflow with every feeder
busy reaches their capacity), a quadratic Foster
function of the reduced network R' with P >= 0 is searched first (none: the
candidate is dropped), then the upper rate LP for G over R''s regions, and for a
set the LP of each proper subset that its largest inflow does not keep below its
capacity; the certificate passes only the exact check. The stage runs after the
fluid stage (whose certificates hold for every law) and gets a share of the
time left (:data:`DRAIN_SHARE`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from fractions import Fraction
from itertools import combinations

from ..certificates.kinds.sink_drain import sink_drain_certificate
from ..core.clock import earliest, within
from ..core.numbers import apart_str
from ..exact.cell_rates import checked_text
from ..exact.drain import check_sink_drain, directions, excess_network, feedback_excess, largest_drain_rate, tie_excess
from ..exact.facts import Check, SinkDrainFacts
from ..exact.sink import Subset
from ..markov.chain import Chain, compile_chain, drain_order
from ..markov.drift import Clip, RegionDrift, clip_text, compile_drifts
from ..markov.regions import TimeLimitReached
from ..search.drain import MAX_DRAINS, DrainCandidate, solve_drain_rate, solve_reduced_lyapunov, tried_drains
from ..search.sink import loosened
from .context import ProofContext, Timer
from .poisson import box_sides, poisson_found, poisson_try
from .sink import late_applies, nested_run, no_table, say_outcome, sink_name, table_tries, with_box, worst_text
from .sink_rows import drain_bound, reduced_drifts, reduced_jumps
from .stage import NEXT, Decision, JsqStage, StageOutcome, decide

__all__ = ["DRAIN_SHARE", "NESTED_DRAIN_SHARE", "MAX_DRAINS", "DRAIN_MIN_J", "DRAIN_EARLY_J", "DRAIN_EARLY_SHARE", "SinkDrain",
           "kept_drain"]

#: The share of the time left that the stage may use (all candidates together).
DRAIN_SHARE = 0.5
#: The stage runs on networks of at least this many stations (as the sink-growth stage: below it the Markovian
#: tables of the whole network reach the same sinks).
DRAIN_MIN_J = 6
#: From this many stations the stage runs before the fluid faces are listed (their listing and LPs take a probe's
#: minute there: 162,833 faces at J = 10 seed 3), after the max-flow bound; below it, after the linear fluid LP.
DRAIN_EARLY_J = 10
#: The early instance's share of the time left: the fluid faces after it rarely fit in what a probe has left anyway.
DRAIN_EARLY_SHARE = 0.75
#: The share inside a sink-growth stage's nested run (R' proved positive recurrent by its own sink drain): J = 8 seed
#: 58 at 0.95, whose R' without the sink 8 drains the set {2, 4, 5} in 0.06 s (R'' of four stations); where the
#: drain needs large tables the nested run's later stages keep most of its time; on R' of six stations or more the
#: Poisson box comes first there (:data:`~certify.proof.sink.POISSON_FIRST_J`: J = 8 seed 33's R' without 6
#: drains its sink 1 by a box in 2 s of this share).
NESTED_DRAIN_SHARE = 0.25


class SinkDrain(JsqStage):
    """Sink-drain certificates: the rest of the network drains a station (or a set) whose inflow it modulates.

    Examples
    --------
    Station 1 sends every customer on to station 2 (rate 3/5), which the forced flow (1/2) does not fill;
    stations 3 to 6 are M/M/1 queues (the stage runs from six stations on):

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.proof.context import ProofContext, RunState
    >>> from certify.proof.result import Result
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(3, 5)), *(Station(s, F(1)) for s in "3456")),
    ...               (Stream(F(1, 2), choice=("1",)), *(Stream(F(1, 2), choice=(s,)) for s in "3456")),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> ctx = ProofContext(net, Result("n"), RunState(time.perf_counter() + 60), None, True, ["quadratic"])
    >>> out = SinkDrain().run(ctx)
    >>> out.decision.verdict, out.decision.certificate["kind"]
    ('stable', 'sink-drain')
    """

    name = "sink drain"

    def __init__(self, early: bool = False, late: bool = False) -> None:
        #: the instance for networks of :data:`DRAIN_EARLY_J` or more stations (the pipeline places it before the
        #: fluid faces); the other one runs on the smaller networks
        self.early = early
        #: the instance after the Markovian stage, on the networks below :data:`DRAIN_MIN_J`
        #: (:func:`~certify.proof.sink.late_applies`)
        self.late = late

    def applies(self, ctx: ProofContext) -> bool:
        """On exponential networks of :data:`DRAIN_MIN_J` or more stations without capacities (inside a sink-growth
        stage's nested run too, with :data:`NESTED_DRAIN_SHARE`), whose empty state the Markovian checkers reach; the
        early instance from :data:`DRAIN_EARLY_J` stations where the max-flow bound fails, the other below that size;
        the late instance below :data:`DRAIN_MIN_J` stations (:func:`~certify.proof.sink.late_applies`)."""
        net, J = ctx.net, ctx.base.J
        if not net.is_markovian or net.has_capacities or drain_order(ctx.base) is None:
            return False
        if self.late:
            return late_applies(J, DRAIN_MIN_J)
        if J < DRAIN_MIN_J:
            return False
        if self.early:
            return J >= DRAIN_EARLY_J and not (ctx.use_fluid and ctx.flow_proves())
        return J < DRAIN_EARLY_J

    def run(self, ctx: ProofContext) -> StageOutcome:
        """Try the candidates within the stage's share of the time (a box the growth stage kept with a drain candidate
        is checked in what the run has left: :func:`kept_drain`); the decision when a certificate passed."""
        run = ctx.run
        if run.expired():
            return NEXT
        share = NESTED_DRAIN_SHARE if nested_run() else DRAIN_EARLY_SHARE if self.early else DRAIN_SHARE
        stop = time.perf_counter() + share * max(0.0, run.deadline - time.perf_counter())
        for cand in tried_drains(ctx.net):
            # a box the growth stage kept with a drain candidate is checked in what the run has left, even past the
            # stage's share: the growth stage sized that box for its check, and the share is for searching (stop 62)
            kept = kept_drain(ctx, cand)
            if time.perf_counter() > stop and not kept:
                run.skipped.append(f"sink drain at {sink_name(cand.sink)} (its share of the time limit was spent)")
                continue
            until = run.deadline if kept else earliest(stop, run.deadline)
            try:
                with within(until):
                    out = self._try(ctx, cand, stop, until)
            except TimeLimitReached:
                continue  # the attempt's line says so; nothing from it is used
            if out is not None:
                return out
        return NEXT

    def _try(self, ctx: ProofContext, cand: DrainCandidate, stop: float, until: float | None) -> StageOutcome | None:
        """One candidate: W on R', the rate LPs on each table, the exact check (W and a box's check by ``until``: the
        run's deadline for a box the growth stage kept, else ``stop``; the searches by ``stop``)."""
        net, sink, red = ctx.net, cand.sink, cand.reduction
        name = sink_name(sink)
        label = f"sink drain at {name}"
        ctx.run.ran.append(label)
        with ctx.timer(label) as t:
            chain = compile_chain(red.network)
            t.size = f"R' without {name} ({chain.J} stations)"
            tries = table_tries(chain, red)
            if not tries:
                t.outcome = no_table(name)
                return None
            excess = tie_excess(net, red.sinks)
            wchain = compile_chain(excess_network(red.network, excess)) if excess else chain
            lyap = solve_reduced_lyapunov(wchain, compile_drifts(wchain, deadline=until), solver=ctx.solver,
                                          deadline=until)
            if lyap is None:
                what = "with the ties' excess added" if excess else f"without {name}"
                t.outcome = f"R' ({what}): no quadratic Foster function with P >= 0 found: not tried"
                return None
            P, _ = lyap
            for item in with_box(chain, tries, box_sides(net, red)[1]):
                if item is None:  # the Poisson tables' place
                    out = self._poisson(ctx, t, cand, chain, P, stop, bool(excess), until)
                    if out is not None:
                        return out
                    continue
                fast, K = item
                where = f"table on {{{','.join(chain.ids[a] for a in fast)}}} ({clip_text(K)})"
                t.size = f"R' without {name}, {where}"
                drifts = reduced_drifts(ctx, red.sinks, chain, fast, K, stop)
                if drifts is None:
                    say_outcome(t, f"{where}: too many regions")
                    continue
                try:
                    got = drain_bound(ctx, red, chain, fast, K, drifts, stop)
                    if got is None:
                        say_outcome(t, f"{where}: no rate below the capacity found ({len(drifts)} regions)")
                        continue
                    subsets = self._subsets(ctx, t, cand, chain, drifts, fast, K, stop, where,
                                            wchain if excess else None)
                except TimeLimitReached:
                    say_outcome(t, f"{where}: stopped by the stage's share of the time limit (nothing is concluded "
                                   "from it)")
                    return None
                if subsets is None:
                    continue
                for _ in range(2):  # a refused candidate once more with its rates halfway to the capacities
                    w, table, rate = got
                    chk = check_sink_drain(net, sink, P, w, rate, table, fast, K,
                                           deadline=earliest(stop, ctx.run.deadline), drifts=drifts, subsets=subsets)
                    looser = None if chk.ok else loosened(got, subsets, red.served(), red.served)
                    if looser is None:
                        break
                    got, subsets = looser
                if not chk.ok:
                    say_outcome(t, f"{where}: rounded candidate refused by the exact check ({chk.failures[0]})")
                    continue
                return self._decided(ctx, t, cand, P, w, rate, chk, table, fast, K, subsets, bool(excess))
        return None

    @staticmethod
    def _decided(ctx: ProofContext, t: Timer, cand: DrainCandidate, P: Sequence[Fraction], w: Sequence[Fraction],
                 rate: Fraction, chk: Check[SinkDrainFacts], table: Mapping[tuple[int, ...], Fraction] | None,
                 fast: list[int], K: Clip, subsets: list[Subset], excess: bool) -> StageOutcome:
        """The stable decision of a candidate that passed the exact check: its certificate and its sentence."""
        net, sink, name = ctx.net, cand.sink, sink_name(cand.sink)
        shown, cap = apart_str(rate, chk.facts.capacity)
        t.outcome = f"found, exact check passed (rate {shown} < capacity {cap})"
        cert = sink_drain_certificate(net, sink, P, w, rate, chk, table, fast, K, subsets)
        plus = ", with the ties' largest excess added as Poisson streams," if excess else ""
        if isinstance(sink, str):
            what = (f"the network without station {sink}{plus} drains (a quadratic Foster function that no "
                    f"arrival decreases) and the work that can reach {sink} averages at most {shown} < {cap}, "
                    f"what {sink} serves")
        else:
            what = (f"the network without stations {name}{plus} drains (a quadratic Foster function that no "
                    f"arrival decreases), the work that can reach them averages at most {shown} < {cap}, "
                    "what they serve, and the work that can reach each "
                    "subset of them while it holds their longest queues less than what it serves")
        return decide(
            Decision("stable", "markovian", "sink-drain certificate", cert),
            f"{what} (u + A'g <= rate at every state of it, checked exactly {checked_text(chk.facts.regions, chk.facts.cells)}): "
            "the chain is positive recurrent, for exponential laws and the given tie-breaking "
            "(docs/math/drain.md)",
        )

    def _poisson(self, ctx: ProofContext, t: Timer, cand: DrainCandidate, chain: Chain, P: Sequence[Fraction],
                 stop: float, ties: bool, until: float | None) -> StageOutcome | None:
        """The Poisson-table drain candidate (the growth stage's, or this stage's own try, whose box is sized to
        ``stop``), checked exactly by ``until``."""
        red, sink = cand.reduction, cand.sink  # a set only where a box serves its subsets (box_sides)
        got = poisson_found(ctx, red)
        if got is None and time.perf_counter() < stop:
            try:
                with within(earliest(stop, ctx.run.deadline)):
                    got = poisson_try(ctx, red, chain, stop)
            except TimeLimitReached:
                say_outcome(t, "Poisson table: stopped by the stage's share of the time limit (nothing is concluded "
                               "from it)")
                return None
        if got is None:
            return None
        K, cells, rates = got
        where = f"Poisson table on every station of R' (levels {', '.join(map(str, K))}; {cells} cells)"
        if rates.drain is None:
            refused = f"; {rates.drain_refused}" if rates.drain_refused else ""
            say_outcome(t, f"{where}: no rate below the capacity found (its worst cell {worst_text(rates.drain_value)}, "
                           f"floating point{refused})")
            return None
        w, table, rate = rates.drain
        fast = list(range(chain.J))
        t.size = f"R' without {sink_name(sink)}, Poisson table, {clip_text(K)}"
        subsets = list(rates.drain_subsets)
        chk = check_sink_drain(ctx.net, sink, P, w, rate, table, fast, K, deadline=until, subsets=subsets)
        if not chk.ok:
            say_outcome(t, f"{where}: rounded candidate refused by the exact check ({chk.failures[0]})")
            return None
        return self._decided(ctx, t, cand, P, w, rate, chk, table, fast, K, subsets, ties)

    @staticmethod
    def _subsets(ctx: ProofContext, t: Timer, cand: DrainCandidate, chain: Chain, drifts: list[RegionDrift],
                 fast: list[int], K: Clip, stop: float, where: str, wchain: Chain | None = None) -> list[Subset] | None:
        """g_H and c_H for each proper subset whose largest inflow reaches its capacity, or None when one has none.

        ``wchain`` is R'_eps where ties add work to R' (docs/math/drain.md, hypothesis 1): a subset's function is then
        found on it, nondecreasing along the stations the ties add work to as well, and none is allowed where a
        departure from R' carries that work (:func:`~certify.exact.drain.feedback_excess`).
        """
        red, net = cand.reduction, ctx.net
        out: list[Subset] = []
        excess = tie_excess(net, red.sinks) if wchain is not None else {}
        carried = bool(excess) and bool(feedback_excess(net, red.sinks))  # once per candidate, not per subset
        wdrifts: list[RegionDrift] | None = None
        for n in range(1, len(red.sinks)):
            for H in combinations(red.sinks, n):
                capacity = red.served(H)
                if largest_drain_rate(red, H) < capacity:
                    continue  # g_H = 0 with its largest inflow: H need not be listed
                if carried:
                    say_outcome(t, f"{where}: subset {{{','.join(H)}}} needs its own function, which ties that send R' "
                                   "more than it sends itself on departures from R' do not allow (docs/math/drain.md, "
                                   "hypothesis 1)")
                    return None
                dirs = [chain.ids.index(s) for s in directions(net, red.sinks, H) | set(excess)]
                if wchain is None:
                    got = solve_drain_rate(chain, red, drifts, fast, K, H, capacity, dirs, solver=ctx.solver,
                                           deadline=stop, jumps=reduced_jumps(ctx, red.sinks, chain, fast, K, drifts))
                else:  # the same regions, R'_eps's rates
                    if wdrifts is None:
                        wdrifts = compile_drifts(wchain, [d.region for d in drifts], deadline=stop)
                    got = solve_drain_rate(wchain, red, wdrifts, fast, K, H, capacity, dirs, solver=ctx.solver,
                                           deadline=stop)
                if got is None:
                    on = " on R' with the ties' excess" if wchain is not None else ""
                    say_outcome(t, f"{where}: subset {{{','.join(H)}}}: no rate below its capacity "
                                   f"{float(capacity):.4g} found{on}")
                    return None
                out.append((H, got[0], got[2], got[1]))
        return out


def kept_drain(ctx: ProofContext, cand: DrainCandidate) -> bool:
    """Whether the growth stage kept a Poisson box for this candidate whose drain side has a candidate (to be checked
    here, in what the run has left).

    Parameters
    ----------
    ctx : ProofContext
        The run (its kept boxes, ``ctx.poisson``).
    cand : DrainCandidate
        The sink or set of sinks.

    Returns
    -------
    bool

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.proof.context import RunState
    >>> from certify.proof.result import Result
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(3, 5))), (Stream(F(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> ctx = ProofContext(net, Result("n"), RunState(time.perf_counter() + 60), None, True, ["table"])
    >>> cand = tried_drains(net)[0]
    >>> kept_drain(ctx, cand)
    False
    >>> _ = poisson_try(ctx, cand.reduction, compile_chain(cand.reduction.network), time.perf_counter() + 60)
    >>> kept_drain(ctx, cand)
    True
    """
    got = poisson_found(ctx, cand.reduction)
    return got is not None and got[2].drain is not None
