"""The sink-growth stage of ``prove``: a station the rest of the network overloads (``docs/math/sink.md``).

For each candidate sink (forced feedback into it, most pressed first; then linked pairs and
sets of three or four stations, ``docs/math/sink.md``, *Which sets are tried*), the
reduced network R' is proved positive recurrent by ``prove`` itself (a nested
run, without this stage; the pipeline hands the stage its ``prove``), then the rate LP over R''s regions looks for c above
the sink's capacity; the certificate passes only the exact check. The stage
gets a share of the time left (:data:`SINK_SHARE`), so that the stability
stages after it keep most of it.  A sink whose R' splits into the separable
certificates' groups waits for the first separable try, which decides such
networks (gadgets) in a fraction of the tables' time; a second instance of the
stage, after that try, takes it (:func:`waits_for_separable`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from functools import lru_cache
from itertools import combinations
from math import prod
from typing import Literal

from ..certificates import nested_verdict
from ..certificates.kinds.sink_growth import sink_growth_certificate
from ..core.clock import earliest, within
from ..core.model import Network
from ..core.numbers import apart_str
from ..exact.cell_rates import checked_text
from ..exact.facts import Check, SinkGrowthFacts
from ..exact.sink import Reduction, Subset, check_sink_growth
from ..markov.chain import Chain, compile_chain, drain_order
from ..markov.drift import Clip, RegionDrift, clip_levels, clip_text
from ..markov.regions import TimeLimitReached
from ..search.drain import tried_drains
from ..search.poisson import worst_text
from ..search.sink import (
    MAX_SINK_FAST,
    MIXED_CELLS,
    RateSolution,
    SinkCandidate,
    loosened,
    mixed_levels,
    set_candidates,
    sink_candidates,
    sink_fast,
    solve_sink_rate,
)
from ..search.sink_sets import WIDE_SETS, densest_set
from ..simulation.simulate import simulate
from .context import ProofContext, Timer
from .poisson import box_sides, poisson_try
from .result import Result
from .separable import product_estimate, separable_tries
from .sink_rows import (
    SINK_REGIONS,
    drain_bound,
    listable,
    nearer_drain,
    reduced_drifts,
    reduced_jumps,
    table_key,
)
from .stage import NEXT, Decision, JsqStage, StageOutcome, decide

__all__ = ["worst_text", "LIGHT_BUSY", "LIGHT_HORIZON", "busy_shares", "light_levels",
           "SINK_SHARE", "BELOW_SHARE", "BOX_SHARE", "SINK_K", "SINK_STEP_J", "SINK_FINER_J", "MAX_SINKS",
           "SINK_MIN_J", "LATE_MIN_J", "SinkGrowth", "late_applies", "table_tries", "no_table", "sink_name", "say_outcome",
           "nested_run", "shared_stop",
           "poisson_before", "with_box", "drained_later", "separable_first_applies", "waits_for_separable"]

#: The share of the time left that the stage may use (all candidates together).
SINK_SHARE = 0.5
#: The drain LP the stage solves after a table's rate LP failed (:meth:`SinkGrowth._below`) may run past the stage's
#: share into this share of what the run has left after it: its answer is kept for the drain stage, which would
#: solve the same LP (at J = 8 seed 15 the largest table's drain LP takes 21 s, more than either stage's share of
#: a 60 s probe, less than their sum).
BELOW_SHARE = 0.5
#: The Poisson try of the stage (:meth:`SinkGrowth._poisson`) may run past the stage's share into this share of what
#: the run has left after it: its box is sized to that time with its exact check, and a drain candidate it keeps is
#: checked by the drain stage in whatever the run has left (:func:`certify.proof.drain.kept_drain`).  BELOW_SHARE's
#: value until stop 62; there the last box of a 60-s probe ended about 15 s before the run did, and the stages after
#: it (the drain stage's small tables, the quadratic fluid LP) decided nothing near the boundary: J = 8 seed 99 at
#: 0.8965, undecided in 60 s with a box of 583,200 cells (the drain side's worst cell 1.0006), is stable in 41 s with
#: one of 784,000 cells (0.9978).
BOX_SHARE = 0.8
#: The table's clip level.
SINK_K = 2
#: On a reduced network of at most this many stations the largest table is tried again at clip level SINK_K + 1
#: (at J' = 5 about 5,000 regions and 4 s; the bound on the forced rate tightens by a few 1e-3).
SINK_FINER_J = 6
#: On a reduced network of at most this many stations the largest table is tried a third time, at SINK_K + 2 (at J' = 5
#: 3,125 cells, about 12,000 regions, LPs of 14-30 s: J = 6 seed 39 at 0.8445 bounds u by 1.0041 at K = 3, 1.0007 at
#: K = 4; seed 21 at 0.85 by 1.0053 and 0.9892).
SINK_FINEST_J = 5
#: On a reduced network of exactly this many stations (not split into groups) a table on all but one of them
#: (:func:`~certify.search.sink.sink_fast` with that many stations) is tried before the table over every station: J = 8
#: seed 16 at load 0.59 is drained by six stations at K = 2 (729 cells, a 5 s LP) where all seven (2,187 cells) take
#: 45-51 s, more than a probe has left.
SINK_STEP_J = MAX_SINK_FAST + 2
#: A station of R' busy less than this share of the time in a short seeded simulation of R' (:func:`busy_shares`)
#: gets clip level 1 in the light table (:func:`light_levels`), the others SINK_K: at J = 8 seed 35 and 0.95 such a
#: table over all seven stations of R' (648 cells) bounds u_2 by 0.99982 < 1 in a 4 s LP, where every station at K = 2
#: (2,187 cells) takes 42 s to bound it by 0.99919.
LIGHT_BUSY = 0.3
#: Simulated time of :func:`busy_shares` (one replication, seed 0): about half a second at J' = 7.
LIGHT_HORIZON = 20_000.0
#: The sink stages try the Poisson tables (certify.proof.poisson) before their first rate-LP table with more cells
#: than this: the smaller LPs decide far from the boundary in a second or two (J = 6 seed 21: a five-station table at
#: K = 3, 5,839 rows x 1,030 columns, 1.5 s), the larger ones take tens of seconds and bound the rate less tightly
#: than a box (at 0.85 the table at K = 4 bounds the drain rate by 0.9892 in 49 s, a box of 32,400 states by 0.974).
POISSON_AFTER_CELLS = 1_100
#: Above this many stations of R' the Poisson tables come after every rate-LP table.  Until stop 45 it was six: with
#: the regions' rows a box on seven stations was slow and shallow, and J = 8 seeds 16 and 26 of bench/frontier.py
#: lost to it the large LP tables that decide probes of ``certify boundary`` (bands 0.0273 -> 0.0547 and 0.0137 ->
#: 0.0219 when it came first).  Over cells (certify.search.cell_rows) a box of levels 3 on seven stations is tried in
#: about 4 s, and J = 8 seed 26 at 0.8719 (undecided before) is proved by one in 37 s.
POISSON_EARLY_J = 8
#: From this many stations of R' on (up to POISSON_EARLY_J) the Poisson tables come before every rate-LP table:
#: there the small tables' regions are many (J = 8 seed 58 at 0.894: tables on two and five stations at K = 2 list
#: 44,724 and 80,728 regions and take the growth stage's 30 s between them, deciding nothing), and a box over cells
#: is tried in seconds.  `certify boundary` bands of J = 8 (R' of seven stations), box first against box after the
#: small tables: seed 16 0.0109 / 0.0219, seed 26 0.0055 / 0.0055, seed 13 0.0246 / 0.0219, seed 12 0.0191 /
#: 0.0178 (stop 44, regions: 0.0273, 0.0137, 0.0355, 0.0164).  Seven until stop 53; six since, where the small
#: tables near the boundary spent a probe's time before a box that decides it: J = 7 seed 40 (sink 2), 0.0092-0.0112
#: in 300 s -> 0.0043 in 130 s; J = 8 seed 31 (the pair {5, 6}) 0.0048 -> 0.0044; J = 7 seed 12 0.0014 in 27 s.  The
#: same holds inside the sink-growth stage's nested runs (R' proved positive recurrent on a quarter of a probe's
#: time): J = 8 seed 33 (sink 6, whose R' is positive recurrent through its own sink 1) at 0.87 had its nested run try
#: tables on {2, 8}, {2, 3, 7, 8} and {2, 3, 5, 7, 8} for 15 s and decide nothing; the box first drains 1 in 2 s and
#: the probe is proved unstable in 7 s.
POISSON_FIRST_J = 6
#: The most candidate sinks tried (and, after them, the most candidate sets of sinks).
MAX_SINKS = 2
#: The stage runs on networks of at least this many stations: on smaller ones the growth tables of the Markovian
#: stage reach the same sinks (and prove transience), and the stage would only take time ahead of them.
SINK_MIN_J = 6
#: Below :data:`SINK_MIN_J` (and from this many stations) a *late* instance of the sink stages runs after the Markovian
#: stage, where that stage decided nothing: its tables over the whole network do not always reach a sink whose inflow
#: only R''s stationary law decides (J = 5 seed 301 of stop 65's screen at 0.939: the Markovian stage undecided in 5 s
#: of a 60-s probe, the late sink-drain stage stable by a box on R' of four stations in 1.6 s; `certify boundary` band
#: 0.0144 without it, 0.00273 with it). Inside a sink-growth stage's nested run the late drain instance runs too.
LATE_MIN_J = 2

_NESTED: ContextVar[bool] = ContextVar("certify_sink_nested", default=False)


def nested_run() -> bool:
    """Whether this ``prove`` runs inside a sink stage's nested run (for R'): the sink-growth stage then does not run
    (one level of nesting), the sink-drain stage runs with a smaller share.

    Returns
    -------
    bool
        True inside the nested run.

    Examples
    --------
    >>> nested_run()
    False
    """
    return _NESTED.get()


def separable_first_applies(ctx: ProofContext) -> bool:
    """Whether the first separable try (:class:`~certify.proof.separable_first.SeparableFirst`) runs on this network.

    Parameters
    ----------
    ctx : ProofContext
        The run.

    Returns
    -------
    bool
        True on exponential networks of :data:`SINK_MIN_J` or more stations without capacities, whose empty state the
        Markovian checkers reach, with a separable try (:func:`~certify.proof.separable.separable_tries`).

    Examples
    --------
    Two stations sharing a stream (fewer than :data:`SINK_MIN_J` stations):

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.proof.context import RunState
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(1))), (Stream(F(1), choice=("1", "2")),))
    >>> separable_first_applies(ProofContext(net, Result("n"), RunState(time.perf_counter() + 60), None, True, ["table"]))
    False
    """
    net = ctx.net
    return (net.is_markovian and not net.has_capacities and ctx.base.J >= SINK_MIN_J
            and drain_order(ctx.base) is not None and bool(separable_tries(ctx.base, ctx.templates)))


def late_applies(J: int, least: int) -> bool:
    """Whether a sink stage's late instance (after the Markovian stage) runs on a network of ``J`` stations: from
    :data:`LATE_MIN_J` stations up to ``least`` (exclusive), where the stage's own instance does not run.

    Parameters
    ----------
    J : int
        The network's stations.
    least : int
        The fewest stations the stage's own instance runs on (:data:`SINK_MIN_J`, or the drain stage's
        :data:`~certify.proof.drain.DRAIN_MIN_J`).

    Returns
    -------
    bool

    Examples
    --------
    >>> [J for J in range(1, 9) if late_applies(J, SINK_MIN_J)]
    [2, 3, 4, 5]
    """
    return LATE_MIN_J <= J < least


def waits_for_separable(ctx: ProofContext, cand: SinkCandidate) -> bool:
    """Whether a sink candidate is left to the sink-growth stage's instance after the first separable try: its R'
    splits into the separable certificates' groups (:func:`~certify.proof.separable.product_estimate`) and that try
    runs on the network (:func:`separable_first_applies`).

    Parameters
    ----------
    ctx : ProofContext
        The run.
    cand : SinkCandidate
        A sink (or set of sinks) with its reduction.

    Returns
    -------
    bool
        True where the candidate waits.

    Examples
    --------
    Two JSQ pairs whose first stations send half of what they serve to the slow station s, and an M/M/1 queue:
    without s the rest splits into three groups, and the whole network into groups that the separable certificates
    take.

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.proof.context import RunState
    >>> pairs = [Station(f"{x}{g}", F(1)) for g in (0, 1) for x in "ab"]
    >>> net = Network("g", (Station("s", F(3, 5)), *pairs, Station("m", F(1))),
    ...               (*(Stream(F(3, 2), choice=(f"a{g}", f"b{g}")) for g in (0, 1)), Stream(F(1, 2), choice=("m",))),
    ...               tuple(Feedback(f"a{g}", ("s",), F(1, 2)) for g in (0, 1)))
    >>> ctx = ProofContext(net, Result("g"), RunState(time.perf_counter() + 60), None, True, ["table"])
    >>> [waits_for_separable(ctx, c) for c in sink_candidates(net)]
    [True]
    """
    return separable_first_applies(ctx) and product_estimate(compile_chain(cand.reduction.network)) is not None


class SinkGrowth(JsqStage):
    """Sink-growth certificates: the rest of the network, positive recurrent, overloads one station.

    Examples
    --------
    Station 1 sends every customer on to the slow station 2:

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.proof.context import ProofContext, RunState
    >>> from certify.proof.result import Result
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(2, 5))), (Stream(F(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> from certify.proof.pipeline import prove
    >>> ctx = ProofContext(net, Result("n"), RunState(time.perf_counter() + 60), None, True, ["quadratic"])
    >>> out = SinkGrowth(prove).run(ctx)
    >>> out.decision.verdict, out.decision.certificate["kind"]
    ('unstable', 'sink-growth')
    """

    name = "sink growth"

    def __init__(self, prover: Callable[..., Result], after_separable: bool = False, late: bool = False) -> None:
        #: ``prove`` itself (the pipeline passes it: R' is proved positive recurrent by a nested run)
        self.prover = prover
        #: the instance after the first separable try (:class:`~certify.proof.separable_first.SeparableFirst`): it
        #: tries only the candidates the first instance left to it (:func:`waits_for_separable`)
        self.after_separable = after_separable
        #: the instance after the Markovian stage, on the networks below :data:`SINK_MIN_J` (:func:`late_applies`)
        self.late = late

    def applies(self, ctx: ProofContext) -> bool:
        """On exponential networks of :data:`SINK_MIN_J` or more stations without capacities, not inside a nested run;
        the instance after the first separable try only where that try applies (:func:`separable_first_applies`); the
        late instance on the smaller ones (:func:`late_applies`)."""
        if nested_run() or not ctx.net.is_markovian or ctx.net.has_capacities:
            return False
        if self.late:
            return late_applies(ctx.base.J, SINK_MIN_J)
        return ctx.base.J >= SINK_MIN_J and (not self.after_separable or separable_first_applies(ctx))

    def run(self, ctx: ProofContext) -> StageOutcome:
        """Try the candidate sinks within the stage's share of the time, and none after one whose box leaves a drain
        candidate below its capacity (kept for the drain stage); the decision when a certificate passed."""
        run = ctx.run
        if run.expired():
            return NEXT
        dense = densest_set(ctx.net)
        cands = [*sink_candidates(ctx.net)[:MAX_SINKS], *set_candidates(ctx.net)[:MAX_SINKS],
                 *(set_candidates(ctx.net, sets=[dense]) if dense is not None else []),
                 *[c for c in set_candidates(ctx.net, wide=True) if c.sink != dense][:WIDE_SETS]]
        if cands and ctx.use_fluid and ctx.flow_proves():
            return NEXT  # the fluid model is stable (one exact max-flow bound): no sink grows linearly, the fluid stage proves it
        # a candidate whose R' splits into the separable certificates' groups waits for the first separable try, which
        # decides such networks (gadgets) in about a second where this stage's tables spent 4-7 s first
        cands = [c for c in cands if waits_for_separable(ctx, c) == self.after_separable]
        stop = time.perf_counter() + SINK_SHARE * max(0.0, run.deadline - time.perf_counter())
        for cand in cands:
            if time.perf_counter() > stop:
                run.skipped.append(f"sink growth at {sink_name(cand.sink)} (its share of the time limit was spent)")
                continue
            out = self._try(ctx, cand, stop)
            if out == "drain":
                # a box bounds this candidate's inflow below what it serves: if that bound holds (with the drain
                # theorem's other hypotheses) the network is stable and no sink grows; the drain stage checks it
                # exactly, and the other candidates' growth tries would only spend the drain stage's time
                return NEXT
            if out is not None:
                return out
        return NEXT

    def _try(self, ctx: ProofContext, cand: SinkCandidate, stop: float) -> StageOutcome | Literal["drain"] | None:
        """One candidate: R' proved stable, the rate LP, the exact check; ``"drain"`` when its box's drain candidate is
        below the capacity (kept for the drain stage)."""
        net, sink, red = ctx.net, cand.sink, cand.reduction
        name = sink_name(sink)
        label = f"sink growth at {name}"
        ctx.run.ran.append(label)
        with ctx.timer(label) as t:
            chain = compile_chain(red.network)
            tries = table_tries(chain, red)
            if not tries:
                t.outcome = no_table(name)
                return None
            token = _NESTED.set(True)
            try:
                sub = self.prover(red.network, time_limit=max(1.0, (stop - time.perf_counter()) / 2),
                                  simulate=False, sim_budget=0, solver=ctx.solver)
            finally:
                _NESTED.reset(token)
            if sub.verdict != "stable" or sub.certificate is None:
                t.outcome = f"R' (without {name}) not proved positive recurrent ({sub.verdict}): not tried"
                return None
            chk, found = None, None
            drain_first = False  # the last table's two LP optima put the drain side nearer its capacity
            subsets: list[Subset] | None = []
            fast: list[int]
            K: Clip
            for item in with_box(chain, tries, any(box_sides(net, red))):
                if item is None:  # the Poisson tables' place
                    try:
                        box = self._poisson(ctx, t, cand, sub, chain, stop)
                    except TimeLimitReached:
                        say_outcome(t, "stopped by the stage's share of the time limit during the exact check")
                        return None
                    if box == "drain":
                        return "drain"  # the drain candidate is kept for the drain stage
                    if box is not None:
                        chk, found, fast, K, subsets = box
                        break
                    continue
                fast, K = item
                t.size = f"R' without {name}, table on {{{','.join(chain.ids[a] for a in fast)}}}, {clip_text(K)}"
                if drain_first and self._below(ctx, t, red, chain, fast, K, stop, first=True):
                    break  # the drain LP decided: this table's growth LP is not solved
                got = self._rate(ctx, t, red, chain, fast, K, stop)
                if got is None and self._below(ctx, t, red, chain, fast, K, stop):
                    break
                drain_first = nearer_drain(ctx, red, fast, K)
                subsets = []
                if got is not None and not isinstance(sink, str):
                    subsets = self._subsets(ctx, t, red, chain, got[1], fast, K, stop)
                if got is not None and subsets is not None:
                    found, drifts = got
                    try:
                        chk, found, subsets = self._check(ctx, cand, sub, found, fast, K, drifts, subsets,
                                                          earliest(stop, ctx.run.deadline))
                    except TimeLimitReached:
                        say_outcome(t, "stopped by the stage's share of the time limit during the exact check")
                        return None
                    break
            if found is None or chk is None:
                return None
            if not chk.ok:
                t.outcome = f"rounded candidate refused by the exact check ({chk.failures[0]})"
                return None
            w, table, rate = found
            shown, cap = apart_str(rate, red.capacity)
            t.outcome = f"found, exact check passed (rate {shown} > capacity {cap})"
            cert = sink_growth_certificate(net, sink, w, rate, sub.certificate, chk, table, fast, K, subsets or ())
        if isinstance(sink, str):
            what = (f"the network without station {sink} is positive recurrent ({sub.method}) and the flow it forces into "
                    f"{sink} averages at least {shown} > {cap}, what {sink} serves")
            grows = f"{sink}'s queue grows"
        else:
            what = (f"the network without stations {name} is positive recurrent ({sub.method}) and the flow it forces "
                    f"into them averages at least {shown} > {cap}, what they serve, and "
                    "into each of them when it is the shorter, more than it serves")
            grows = f"the shortest of {name} grows"
        return decide(
            Decision("unstable", "markovian", "sink-growth certificate", cert),
            f"{what} (f + A'g >= rate at every state of it, checked exactly {checked_text(chk.facts.regions, chk.facts.cells)}): {grows} "
            "without bound with positive probability, so the chain is not positive recurrent, for exponential laws and "
            "the given tie-breaking (docs/math/sink.md)",
        )

    @staticmethod
    def _check(ctx: ProofContext, cand: SinkCandidate, sub: Result, found: RateSolution, fast: list[int], K: Clip,
               drifts: list[RegionDrift] | None, subsets: list[Subset], deadline: float | None
               ) -> tuple[Check[SinkGrowthFacts], RateSolution, list[Subset]]:
        """The exact check of a growth candidate, a refused one once more with every claimed rate halfway to its
        capacity (:func:`~certify.search.sink.loosened`): the last check, with the candidate and subsets it checked."""
        red = cand.reduction
        nested = nested_verdict(red.network, sub.certificate)
        for _ in range(2):
            w, table, rate = found
            chk = check_sink_growth(ctx.net, cand.sink, w, rate, nested, table, fast, K, deadline=deadline,
                                    drifts=drifts, subsets=subsets)
            looser = None if chk.ok else loosened(found, subsets, red.capacity, lambda H: red.part(H).capacity)
            if looser is None:
                break
            found, subsets = looser
        return chk, found, subsets

    def _poisson(self, ctx: ProofContext, t: Timer, cand: SinkCandidate, sub: Result, chain: Chain, stop: float
                 ) -> tuple[Check[SinkGrowthFacts], RateSolution, list[int], tuple[int, ...], list[Subset]
                            ] | Literal["drain"] | None:
        """The Poisson-table try (:mod:`certify.proof.poisson`) and its growth candidate's exact check: the check that
        passed with its candidate, box and subsets' functions, ``"drain"`` when only the drain side's candidate is below
        its capacity (kept for the drain stage), or None.  A time limit reached during the exact check is raised."""
        red = cand.reduction
        if time.perf_counter() > stop:
            return None
        # both sides' candidates come from one solve: the try may use part of the drain stage's time too (as _below)
        later = shared_stop(ctx, stop, BOX_SHARE)
        try:
            with within(later):
                got = poisson_try(ctx, red, chain, later)
        except TimeLimitReached:
            say_outcome(t, "Poisson table: stopped by the stage's share of the time limit (nothing is concluded from it)")
            return None
        if got is None:
            say_outcome(t, "Poisson table: not tried (R' splits into the separable certificates' groups, or too "
                           "little of the stage's time left for a box)")
            return None
        K, cells, rates = got
        where = f"Poisson table on every station of R' (levels {', '.join(map(str, K))}; {cells} cells)"
        growth_side, drain_side = box_sides(ctx.net, red)  # a set: the sides whose subsets a box may serve
        if rates.growth is not None and growth_side:
            fast = list(range(chain.J))
            # checked within the try's own time (it was sized for its check: poisson_try)
            chk, found, subsets = self._check(ctx, cand, sub, rates.growth, fast, K, None, list(rates.growth_subsets),
                                              later)
            if chk.ok:
                t.size = f"R' without {','.join(red.sinks)}, Poisson table, {clip_text(K)}"
                return chk, found, fast, K, subsets
            say_outcome(t, f"Poisson table: rounded candidate refused by the exact check ({chk.failures[0]})")
            return None
        if rates.drain is not None and drain_side:
            bound, served = apart_str(rates.drain[2], red.served())
            if drained_later(ctx, red):
                say_outcome(t, f"{where}: the drain side bounds the rate from above by {bound}, below the capacity "
                               f"{served}: left to the drain stage (no other candidate of this stage is tried)")
                return "drain"
            say_outcome(t, f"{where}: the drain side bounds the rate from above by {bound}, below the capacity "
                           f"{served}, but the drain stage does not try this sink here (floating point, not used)")
            return None
        refused = "".join(f"; {why}" for why in (rates.growth_refused, rates.drain_refused) if why)
        say_outcome(t, f"{where}: no rate above the capacity {float(red.capacity):.4g} found (its worst cell "
                       f"{worst_text(rates.growth_value)}; the drain side's {worst_text(rates.drain_value)}, floating "
                       f"point{refused})")
        return None

    @staticmethod
    def _subsets(ctx: ProofContext, t: Timer, red: Reduction, chain: Chain, drifts: list[RegionDrift],
                 fast: list[int], K: Clip, stop: float) -> list[Subset] | None:
        """For a set of sinks, g_H and c_H for each proper subset whose constant inflow does not exceed m_H (the rate
        LP on the same regions), or None when one has no rate above its capacity."""
        out: list[Subset] = []
        for n in range(1, len(red.sinks)):
            for H in combinations(red.sinks, n):
                part = red.part(H)
                if part.constant > part.capacity:
                    continue  # the constant part is enough: H need not be listed
                try:
                    with within(earliest(stop, ctx.run.deadline)):
                        got = solve_sink_rate(chain, part, drifts, fast, K, solver=ctx.solver, deadline=stop,
                                              jumps=reduced_jumps(ctx, red.sinks, chain, fast, K, drifts))
                except TimeLimitReached:
                    say_outcome(t, f"subset {{{','.join(H)}}}: stopped by the stage's share of the time limit")
                    return None
                if got is None:
                    say_outcome(t, f"subset {{{','.join(H)}}}: no rate above its capacity {float(part.capacity):.4g} found")
                    return None
                out.append((H, got[0], got[2], got[1]))
        return out

    @staticmethod
    def _below(ctx: ProofContext, t: Timer, red: Reduction, chain: Chain, fast: list[int], K: Clip, stop: float,
               first: bool = False) -> bool:
        """Whether the drain LP on the same rows bounds the sinks' inflow below what they serve (then no larger table
        can show it above: the stage stops for this candidate; the bound itself proves nothing here); ``first`` when
        it is solved before the table's growth LP (:func:`nearer_drain`)."""
        if time.perf_counter() > stop:
            return False
        # the LP's answer is kept for the drain stage: it may use part of that stage's time too (BELOW_SHARE)
        later = shared_stop(ctx, stop)
        try:
            with within(earliest(stop, ctx.run.deadline)):
                drifts = reduced_drifts(ctx, red.sinks, chain, fast, K, stop)  # listed already unless tried drain first
            if drifts is None:
                return False
            with within(later):
                got = drain_bound(ctx, red, chain, fast, K, drifts, later)
        except TimeLimitReached:
            return False
        if got is None:
            return False
        if first:
            where = f"table on {{{','.join(chain.ids[a] for a in fast)}}} ({clip_text(K)})"
            say_outcome(t, f"{where}: the drain LP, solved first (the previous table's drain LP came nearer to the "
                           f"capacity than its growth LP), bounds the rate from above by {float(got[2]):.4g}: below the "
                           "capacity, so neither this table's growth LP nor a larger table was tried")
        else:
            say_outcome(t, f"the drain LP on the same table bounds the rate from above by {float(got[2]):.4g}: "
                           "below the capacity, so no larger table was tried")
        return True

    @staticmethod
    def _rate(ctx: ProofContext, t: Timer, red: Reduction, chain: Chain, fast: list[int], K: Clip,
              stop: float) -> tuple[RateSolution, list[RegionDrift]] | None:
        """R''s regions refined at ``fast`` and the rate LP: rounded (w, T, c) with c above the capacity and the
        regions, or None (the reason appended to the attempt's outcome)."""
        where = f"table on {{{','.join(chain.ids[a] for a in fast)}}} ({clip_text(K)})"
        try:
            with within(earliest(stop, ctx.run.deadline)):
                drifts = reduced_drifts(ctx, red.sinks, chain, fast, K, stop)
                if drifts is None:
                    say_outcome(t, f"{where}: more than {SINK_REGIONS} regions")
                    return None
                rows = ctx.reduced[table_key(red.sinks, fast, K)]
                found = solve_sink_rate(chain, red, drifts, fast, K, solver=ctx.solver, deadline=stop,
                                        jumps=reduced_jumps(ctx, red.sinks, chain, fast, K, drifts),
                                        optimum=lambda c: setattr(rows, "rate_lp", c))
        except TimeLimitReached:
            say_outcome(t, f"{where}: stopped by the stage's share of the time limit (nothing is concluded from it)")
            return None
        if found is None:
            say_outcome(t, f"{where}: no rate above the capacity {float(red.capacity):.4g} found ({len(drifts)} regions)")
            return None
        return found, drifts


def drained_later(ctx: ProofContext, red: Reduction) -> bool:
    """Whether a sink-drain stage tries the sinks of ``red`` after this stage: one applies to the network (the networks
    of this stage whose empty state the Markovian checkers reach: :func:`~certify.markov.chain.drain_order`) and lists
    them (:func:`~certify.search.drain.tried_drains`).

    Parameters
    ----------
    ctx : ProofContext
        The run.
    red : Reduction
        The reduction by a sink or a set of sinks.

    Returns
    -------
    bool
        True where the drain stage will try these sinks.

    Examples
    --------
    Station 1 feeds the slow station 2 (mu 3/5) everything it serves, and four more stations have streams of their own:
    2 is the drain stage's candidate, 3 is not (nothing is forced into it).

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Station, Stream
    >>> from certify.exact.sink import reduced_network
    >>> from certify.proof.context import RunState
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(3, 5)), *(Station(s, F(1)) for s in "3456")),
    ...               (Stream(F(1, 2), choice=("1",)), *(Stream(F(1, 2), choice=(s,)) for s in "3456")),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> ctx = ProofContext(net, Result("n"), RunState(time.perf_counter() + 60), None, True, ["quadratic"])
    >>> drained_later(ctx, reduced_network(net, "2")), drained_later(ctx, reduced_network(net, "3"))
    (True, False)
    """
    return (drain_order(ctx.base) is not None
            and any(c.reduction.sinks == red.sinks for c in tried_drains(ctx.net)))


def table_tries(chain: Chain, red: Reduction) -> list[tuple[list[int], Clip]]:
    """The tables g tries on R', in order: each of :func:`~certify.search.sink.sink_fast`'s station sets at SINK_K (on
    R' of SINK_STEP_J stations that does not split into groups, then its set of one station fewer than R'), the
    largest again at SINK_K + 1 (R' of at most SINK_FINER_J stations) and SINK_K + 2 (at most SINK_FINEST_J), then
    every station of R' with its own clip level
    (:func:`~certify.search.sink.mixed_levels`) where that is a different table and R' does not split into the groups
    of the separable certificates (:func:`~certify.proof.separable.product_estimate`: J = 7 with three gadgets spent
    a minute on that table's LPs, against 2 s for the separable ones); only the tables :func:`listable` keeps.

    Parameters
    ----------
    chain : Chain
        R''s chain.
    red : Reduction
        The reduction.

    Returns
    -------
    list of (list of int, int or tuple of int)
        The table's stations and clip level(s).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.exact.sink import reduced_network
    >>> net = Network("n", tuple(Station(s, F(1)) for s in "12345"), (Stream(F(1, 2), choice=("1", "2")),
    ...               Stream(F(1, 2), choice=("1", "3", "4"))), (Feedback("1", ("5",), F(1, 2)),))
    >>> red = reduced_network(net, "5")
    >>> table_tries(compile_chain(red.network), red)
    [([0, 1], 2), ([0, 1, 2, 3], 2), ([0, 1, 2, 3], 3), ([0, 1, 2, 3], 4)]
    """
    sets = sink_fast(chain, red)
    whole = bool(sets) and product_estimate(chain) is None  # R' does not split into the separable kinds' groups
    if whole and chain.J == SINK_STEP_J:
        step = sink_fast(chain, red, SINK_STEP_J - 1)[-1]
        if len(step) == SINK_STEP_J - 1 and step not in sets:
            sets.append(step)  # one station short of R': a fraction of the whole table's cells and LP time
    tries: list[tuple[list[int], Clip]] = [(fast, SINK_K) for fast in sets]
    light = light_levels(chain, red) if whole and chain.J == SINK_STEP_J else None
    if light is not None:
        tries.append(light)  # every station of R', the lightly loaded ones at K = 1: a fraction of the uniform cells
    if tries and chain.J <= SINK_FINER_J:
        tries.append((tries[-1][0], SINK_K + 1))
    if tries and chain.J <= SINK_FINEST_J:
        tries.append((tries[-1][0], SINK_K + 2))
    mixed = mixed_levels(chain, red, SINK_K) if whole else None
    if mixed is not None and all((fast, clip_levels(fast, K)) != mixed for fast, K in tries):
        tries.append(mixed)  # where R' splits into groups, one table over all of it is what the separable kinds avoid
    return [(fast, K) for fast, K in tries if listable(chain, fast, K)]


@lru_cache(maxsize=32)
def busy_shares(net: Network) -> tuple[float, ...]:
    """Each station's busy share of the time in one seeded simulation of ``net`` (search guidance only, never proof).

    Parameters
    ----------
    net : Network
        R'.

    Returns
    -------
    tuple of float
        Throughput over mu, per station, over :data:`LIGHT_HORIZON` (seed 0: the same every run; kept for the
        network's next call).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(1)),), (Stream(F(1, 2), choice=("1",)),))
    >>> 0.45 < busy_shares(mm1)[0] < 0.55
    True
    """
    res = simulate(net, LIGHT_HORIZON, replications=1, seed=0)
    return tuple(t.estimate / float(st.mu) for t, st in zip(res.throughput(), net.stations))


def light_levels(chain: Chain, red: Reduction) -> tuple[list[int], tuple[int, ...]] | None:
    """A table over every station of R', at clip level 1 where :func:`busy_shares` is below :data:`LIGHT_BUSY`.

    Within :data:`~certify.search.sink.MIXED_CELLS` cells (at seven stations always; from twelve stations never: no
    simulation is run there). :func:`table_tries` asks for it on reductions of exactly SINK_STEP_J stations, where it
    was measured (larger reductions' regions would be listed up to SINK_REGIONS first).

    Parameters
    ----------
    chain : Chain
        R''s chain.
    red : Reduction
        The reduction.

    Returns
    -------
    (list of int, tuple of int) or None
        Every station of R' and its clip level (1 or SINK_K), or None when no station is light, or every one is,
        or the table has more than MIXED_CELLS cells.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.exact.sink import reduced_network

    Station 1 has a stream of its own (busy about 0.55), station 2 (mu 10) is rarely busy:

    >>> net = Network("n", (Station("1", F(1)), Station("2", F(10)), Station("3", F(1, 2))),
    ...               (Stream(F(1, 2), choice=("1",)), Stream(F(1, 5), choice=("1", "2"))),
    ...               (Feedback("1", ("3",), F(1, 2)),))
    >>> red = reduced_network(net, "3")
    >>> light_levels(compile_chain(red.network), red)
    ([0, 1], (2, 1))
    """
    if 2 ** chain.J > MIXED_CELLS:
        return None  # even every station at level 1 is beyond the budget: no simulation
    busy = dict(zip(red.network.station_ids, busy_shares(red.network)))
    levels = tuple(1 if busy[i] < LIGHT_BUSY else SINK_K for i in chain.ids)  # in the table's (the chain's) order
    if len(set(levels)) < 2 or prod(k + 1 for k in levels) > MIXED_CELLS:
        return None
    return list(range(chain.J)), levels


def no_table(name: str) -> str:
    """The outcome of a sink stage's candidate with no table to try (:func:`table_tries` is empty).

    Parameters
    ----------
    name : str
        The sink, or the set of sinks, as :func:`sink_name` writes it.

    Returns
    -------
    str

    Examples
    --------
    >>> no_table("s").startswith("R' (without s): no table of R' within the size bound")
    True
    """
    return (f"R' (without {name}): no table of R' within the size bound ({SINK_REGIONS} regions; where R' splits into "
            "groups, the product of theirs times the table's cells): not tried")


def shared_stop(ctx: ProofContext, stop: float, share: float = BELOW_SHARE) -> float:
    """Where the growth stage's answers kept for the drain stage must end: ``stop`` and ``share`` of what the run has
    left after it (:data:`BELOW_SHARE` for its drain LP, :data:`BOX_SHARE` for the Poisson try).

    Parameters
    ----------
    ctx : ProofContext
        The run (its deadline).
    stop : float
        The growth stage's own stop (a ``time.perf_counter()`` value).
    share : float
        The share of what the run has left after ``stop``.

    Returns
    -------
    float
        A ``time.perf_counter()`` value, at most the run's deadline.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.proof.context import RunState
    >>> from certify.proof.result import Result
    >>> net = Network("n", (Station("1", F(1)),), (Stream(F(1, 2), choice=("1",)),))
    >>> ctx = ProofContext(net, Result("n"), RunState(100.0), None, True, ["table"])
    >>> shared_stop(ctx, 60.0), shared_stop(ctx, 60.0, BOX_SHARE)
    (80.0, 92.0)
    """
    return min(stop + share * max(0.0, ctx.run.deadline - stop), ctx.run.deadline)


def with_box(chain: Chain, tries: Sequence[tuple[list[int], Clip]], single: bool) -> list[tuple[list[int], Clip] | None]:
    """A candidate's tables in the order the sink stages try them, with None where the Poisson tables come: before
    the first table :func:`poisson_before` names (every table on R' of :data:`POISSON_FIRST_J` to
    :data:`POISSON_EARLY_J` stations), else after the last; none where ``single`` is False (a set of sinks whose
    subsets a box does not serve on the stage's side: :func:`~certify.proof.poisson.box_sides`).

    Parameters
    ----------
    chain : Chain
        R''s chain.
    tries : sequence of (list of int, int or tuple of int)
        The rate-LP tables (:func:`table_tries`), in order.
    single : bool
        Whether a box may serve the candidate (:func:`~certify.proof.poisson.box_sides`).

    Returns
    -------
    list
        The tables, and None once for the Poisson tables' place.

    Examples
    --------
    >>> from certify.markov.chain import Chain
    >>> from fractions import Fraction as F
    >>> ch = Chain(tuple("12345"), (F(1),) * 5, (((0, 1), F(1)),), (), (F(1),) * 5)
    >>> every = [0, 1, 2, 3, 4]
    >>> with_box(ch, [([0, 1], 2), (every, 2), (every, 4)], True)
    [([0, 1], 2), ([0, 1, 2, 3, 4], 2), None, ([0, 1, 2, 3, 4], 4)]
    >>> with_box(ch, [([0, 1], 2)], True), with_box(ch, [([0, 1], 2)], False)
    ([([0, 1], 2), None], [([0, 1], 2)])
    >>> six = Chain(tuple("123456"), (F(1),) * 6, (((0, 1), F(1)),), (), (F(1),) * 6)
    >>> with_box(six, [([0, 1], 2)], True)          # POISSON_FIRST_J: the box before every table
    [None, ([0, 1], 2)]
    """
    if not single:
        return list(tries)
    at = next((k for k, (fast, K) in enumerate(tries) if poisson_before(chain, fast, K)), len(tries))
    return [*tries[:at], None, *tries[at:]]


def poisson_before(chain: Chain, fast: Sequence[int], K: Clip) -> bool:
    """Whether the sink stages try the Poisson tables before this rate-LP table (:data:`POISSON_AFTER_CELLS`,
    :data:`POISSON_FIRST_J`, :data:`POISSON_EARLY_J`).

    Parameters
    ----------
    chain : Chain
        R''s chain.
    fast : sequence of int
        The table's stations.
    K : int or tuple of int
        Its clip level (or one per station).

    Returns
    -------
    bool
        True when R' has at most POISSON_EARLY_J stations and either at least POISSON_FIRST_J (before every table)
        or the table more than POISSON_AFTER_CELLS cells.

    Examples
    --------
    >>> from certify.markov.chain import Chain
    >>> from fractions import Fraction as F
    >>> ch = Chain(tuple("12345"), (F(1),) * 5, (((0, 1), F(1)),), (), (F(1),) * 5)
    >>> poisson_before(ch, [0, 1, 2, 3, 4], 2), poisson_before(ch, [0, 1, 2, 3, 4], 4)
    (False, True)
    """
    if chain.J > POISSON_EARLY_J:
        return False
    return chain.J >= POISSON_FIRST_J or prod(k + 1 for k in clip_levels(fast, K)) > POISSON_AFTER_CELLS


def sink_name(sink: str | tuple[str, ...]) -> str:
    """A sink's name in the attempts' lines: ``5``, or ``{3,4}`` for a set.

    Parameters
    ----------
    sink : str or tuple of str
        A station, or a set of stations.

    Returns
    -------
    str
        The name.

    Examples
    --------
    >>> sink_name("5"), sink_name(("3", "4"))
    ('5', '{3,4}')
    """
    return sink if isinstance(sink, str) else "{" + ",".join(sink) + "}"


def say_outcome(t: Timer, what: str) -> None:
    """Add one table's outcome to the attempt's (each table tried says how it ended).

    Parameters
    ----------
    t : Timer
        The attempt.
    what : str
        The outcome of one table.

    Examples
    --------
    >>> t = Timer(Result("n"), "sink growth at 5")
    >>> say_outcome(t, "a"); say_outcome(t, "b"); t.outcome
    'a; b'
    """
    t.outcome = f"{t.outcome}; {what}" if t.outcome else what
