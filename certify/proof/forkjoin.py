"""The fork-join stages of ``prove``: the model's numbers, the capacity bound, the (k,k) quadratic, the lag table.

A fork-join network runs through :data:`FORK_JOIN_STAGES` like a JSQ network
through its own (:func:`~certify.proof.stage.run_stages`, each stage within the
run's deadline, each returning a :class:`~certify.proof.stage.StageOutcome` that
the pipeline alone composes into the :class:`~certify.proof.result.Result`).
The exact checks live in :mod:`certify.exact.forkjoin`, the certificate
writers in :mod:`certify.certificates.kinds` (``fork_join_*``); the numeric
search (numpy and a solver) in :mod:`certify.search.forkjoin`, imported only
when a table is searched.

lam > theta: the capacity bound (unstable; flow balance, so it holds for any
arrival process with this rate, though the verdict is reported with the
format's ``markovian`` semantics); lam = theta: critical, undecided (neither
certificate applies on the boundary); lam < theta: V = sum Q_i^2 when k = n,
else the Foster table V = N + h(min(L, K)) -- positive recurrence of the CTMC,
for Poisson jobs and exponential servers only (the hypotheses of the fork-join
redundancy paper).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

from ..certificates import capacity_certificate, forkjoin_foster_certificate, independent_certificate
from ..core.model import ForkJoinNetwork
from ..exact.facts import Check
from ..exact.forkjoin import LagTableFacts, check_capacity, check_independent
from ..exact.forkjoin_capacity import capped_servers, maximal_design, mu_star, throughput_capacity, traffic_intensity
from ..exact.forkjoin_lags import State, count_patterns, equal_rate_classes
from .context import RunState, Timer
from .result import Attempt, Result
from .stage import Decision, Stage, StageOutcome, decide, go_on, stop

__all__ = [
    "ForkJoinContext",
    "ForkJoinModel",
    "CapacityBound",
    "CriticalLoad",
    "IndependentQueues",
    "LagTable",
    "FORK_JOIN_STAGES",
    "find_foster_table",
    "FOSTER_K",
]


# Clip levels tried for the Lyapunov table, and the largest problems (orbits) attempted.
FOSTER_K = (4, 6, 8, 12, 16, 24, 32, 48, 64)
MAX_CELLS = 40_000
MAX_REGIONS = 100_000


def find_foster_table(
    net: ForkJoinNetwork, *, solver: str | None = None, deadline: float | None = None, Ks: Sequence[int] = FOSTER_K
) -> tuple[tuple[int, dict[State, Fraction], Check[LagTableFacts]] | None, list[tuple[str, str, float, str]], list[str]]:
    """Search V = N + h(min(L, K)) for K in ``Ks``, smallest first, until a table passes the exact check.

    Parameters
    ----------
    net : ForkJoinNetwork
        The network.
    solver : str, optional
        The cvxpy solver for the LP searches.
    deadline : float, optional
        A :func:`time.perf_counter` time after which no new K is started.
    Ks : sequence of int
        The clip levels to try (problems beyond ``MAX_CELLS`` cells or
        ``MAX_REGIONS`` regions are not attempted).

    Returns
    -------
    found : tuple or None
        (K, table, its passing check), or None.
    attempts : list of tuple
        (stage, size, seconds, outcome) per search run.
    notes : list of str
        Why the search stopped, when it found nothing.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(3, 10), (("1", F(1, 3)), ("2", F(1, 3)), ("3", F(1, 3))))
    >>> (K, table, chk), attempts, notes = find_foster_table(net, Ks=(1,))
    >>> K, chk.facts.regions, notes
    (1, 3, [])
    """
    from ..search.forkjoin import search_table

    classes = equal_rate_classes(net)
    attempts: list[tuple[str, str, float, str]] = []
    notes: list[str] = []
    for K in Ks:
        if deadline is not None and time.perf_counter() > deadline:
            notes.append(f"time limit reached before the Lyapunov table with K = {K}")
            break
        label = f"Foster V = N + h(min(lags, {K}))"
        size = count_patterns(net.n, net.k, K + 1, classes)
        ncells = count_patterns(net.n, net.k, K, classes)
        if size > MAX_REGIONS or ncells > MAX_CELLS:
            attempts.append((label, f"{ncells} cells, {size} regions", 0.0, "skipped (too large)"))
            notes.append(f"the Lyapunov table with K = {K} would have {ncells} cells and {size} regions: not attempted")
            break
        t0 = time.perf_counter()
        searches, table, chk = search_table(net, K, classes, solver=solver)
        for srch in searches:
            outcome = srch.outcome
            if srch is searches[-1] and chk is not None:
                outcome += (f"; exact check passed on {size} regions (delta = {float(chk.facts.delta):.3g})" if chk.ok
                            else f"; exact check failed: {chk.failures[0]}")
            attempts.append((f"{label} [{srch.method}]", srch.size, time.perf_counter() - t0 if srch is searches[-1]
                             else srch.solve_s, outcome))
        if table is not None and chk is not None and chk.ok:
            return (K, table, chk), attempts, notes
    else:
        notes.append(f"no Lyapunov table found up to K = {Ks[-1]}")
    return None, attempts, notes




@dataclass
class ForkJoinContext:
    """What the fork-join stages share: the network, the result's attempt log, the run's state, the solver.

    Attributes
    ----------
    net : ForkJoinNetwork
        The network.
    res : Result
        The run's result (the stages record their attempts in it; the pipeline alone sets the verdict).
    run : RunState
        The deadline and the bookkeeping of the run.
    solver : str or None
        The LP solver of the table search.
    Ks : sequence of int
        The clip levels tried for the lag table.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(3, 10), (("1", F(1, 3)), ("2", F(1, 3)), ("3", F(1, 3))))
    >>> ctx = ForkJoinContext.for_network(net)
    >>> [type(s).__name__ for s in FORK_JOIN_STAGES if s.applies(ctx)]
    ['ForkJoinModel', 'LagTable']
    """

    net: ForkJoinNetwork
    res: Result
    run: RunState
    solver: str | None = None
    Ks: Sequence[int] = FOSTER_K

    @classmethod
    def for_network(cls, net: ForkJoinNetwork, time_limit: float = 60.0) -> ForkJoinContext:
        """A fresh context for ``net`` (examples and tests of single stages).

        Parameters
        ----------
        net : ForkJoinNetwork
            The network.
        time_limit : float
            Seconds from now to the deadline.

        Returns
        -------
        ForkJoinContext
            With an empty result and the default solver.

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> net = ForkJoinNetwork("n2k2", 2, 2, F(1, 4), (("1", F(1, 2)), ("2", F(1, 2))))
        >>> ForkJoinContext.for_network(net).res.network
        'n2k2'
        """
        return cls(net, Result(net.name), RunState(time.perf_counter() + time_limit))

    @cached_property
    def lam(self) -> Fraction:
        """The job rate."""
        return Fraction(self.net.rate)

    @cached_property
    def theta(self) -> Fraction:
        """The throughput capacity (water-filling), computed once for every stage."""
        return throughput_capacity(self.net)

    def timer(self, stage: str) -> Timer:
        """A :class:`~certify.proof.context.Timer` recording into this run's result."""
        return Timer(self.res, stage)


class ForkJoinModel(Stage[ForkJoinContext]):
    """The model's numbers, theta, rho and whether the design is maximal: reasons only, never a verdict.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n2k2", 2, 2, F(1, 4), (("1", F(1, 2)), ("2", F(1, 2))))
    >>> ForkJoinModel().run(ForkJoinContext.for_network(net)).reasons[0][:31]
    'throughput capacity theta = 1/2'
    """

    name = "the fork-join model's numbers"

    def run(self, ctx: ForkJoinContext) -> StageOutcome:
        """The throughput capacity and the traffic intensity, in words."""
        net = ctx.net
        lam, theta, rho, ms = ctx.lam, ctx.theta, traffic_intensity(net), mu_star(net)
        maximal, capped = maximal_design(net), capped_servers(net)
        return go_on(
            f"throughput capacity theta = {_num(theta)} (sum_i min(d_i, theta) = k theta; servers faster than theta: "
            f"{','.join(capped) or 'none'}); job rate lam = {_num(lam)}, lam/theta = {float(lam / theta):.6g}",
            f"rho = k lam/mu* = {_num(rho)}; static design {'maximal' if maximal else 'not maximal'} "
            f"(max d_i {'<=' if maximal else '>'} mu*/k = {_num(ms / net.k)}), so this design is stable iff "
            f"rho < {_num(net.k * theta / ms)}" + (" (fork-join redundancy theorem)" if maximal else ""),
        )


class CapacityBound(Stage[ForkJoinContext]):
    """lam > theta: the capacity bound (flow balance), checked exactly; always stops the pipeline.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> over = ForkJoinNetwork("n3k2", 3, 2, F(1, 2), (("1", F(3, 5)), ("2", F(1, 5)), ("3", F(1, 5))))
    >>> out = CapacityBound().run(ForkJoinContext.for_network(over))
    >>> out.decision.verdict, out.decision.certificate["kind"]
    ('unstable', 'fork-join-capacity')
    """

    name = "capacity bound (flow balance)"

    def applies(self, ctx: ForkJoinContext) -> bool:
        """Only above the throughput capacity."""
        return ctx.lam > ctx.theta

    def run(self, ctx: ForkJoinContext) -> StageOutcome:
        """Check the bound on the job throughput exactly."""
        net = ctx.net
        capped = capped_servers(net)
        with ctx.timer(self.name) as t:
            t.size = f"{net.n} servers, k={net.k}"
            chk = check_capacity(net, capped)
            t.outcome = "lam > theta, exact check passed" if chk.ok else f"exact check failed: {chk.failures[0]}"
        if not chk.ok:
            return stop()
        return decide(
            Decision("unstable", "markovian", "fork-join capacity bound (flow balance)", capacity_certificate(net, capped, chk)),
            f"every departing job needs k = {net.k} tasks done at distinct servers, so the job throughput is at most "
            f"d(R^c)/(k-|R|) = {_num(chk.facts.bound)} < lam (R = {{{','.join(capped)}}}, checked exactly): "
            "the number of jobs grows linearly (transient), for any arrival process with this rate",
        )


class CriticalLoad(Stage[ForkJoinContext]):
    """lam = theta: critically loaded, where neither certificate applies; stops without a verdict.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n2k2", 2, 2, F(1, 2), (("1", F(1, 2)), ("2", F(1, 2))))
    >>> CriticalLoad().applies(ForkJoinContext.for_network(net)), CriticalLoad().run(ForkJoinContext.for_network(net)).stop
    (True, True)
    """

    name = "critical load"

    def applies(self, ctx: ForkJoinContext) -> bool:
        """Only at the throughput capacity."""
        return ctx.lam == ctx.theta

    def run(self, ctx: ForkJoinContext) -> StageOutcome:
        """Say why nothing is concluded."""
        return stop(
            "lam = theta: critically loaded (critical: on the stability boundary, where the theorem gives no verdict); "
            "neither certificate applies"
        )


class IndependentQueues(Stage[ForkJoinContext]):
    """k = n below capacity: V = sum Q_i^2 over independent M/M/1 queues, checked exactly.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n2k2", 2, 2, F(1, 4), (("1", F(1, 2)), ("2", F(1, 2))))
    >>> IndependentQueues().run(ForkJoinContext.for_network(net)).decision.certificate["kind"]
    'fork-join-independent'
    """

    name = "(k,k): V = sum Q_i^2"

    def applies(self, ctx: ForkJoinContext) -> bool:
        """Only k = n, below the throughput capacity."""
        return ctx.net.k == ctx.net.n and ctx.lam < ctx.theta

    def run(self, ctx: ForkJoinContext) -> StageOutcome:
        """Check the quadratic exactly; the lag table is the fallback."""
        net = ctx.net
        with ctx.timer(self.name) as t:
            t.size = f"{net.n} M/M/1 queues"
            kk = check_independent(net)
            t.outcome = "exact check passed" if kk.ok else f"exact check failed: {kk.failures[0]}"
        if not kk.ok:
            return go_on()
        return decide(
            Decision("stable", "markovian", "fork-join (k,k) quadratic Foster-Lyapunov certificate", independent_certificate(net, kk)),
            f"k = n: each server is an M/M/1 queue fed by every job; V = sum_i Q_i^2 has AV <= -1 whenever "
            f"|q|_1 >= {_num(kk.facts.bound)} (checked exactly): positive recurrent",
        )


class LagTable(Stage[ForkJoinContext]):
    """Below capacity: the search for V = N + h(min(N - Q, K)), each table checked exactly (:func:`find_foster_table`).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(3, 10), (("1", F(1, 3)), ("2", F(1, 3)), ("3", F(1, 3))))
    >>> ctx = ForkJoinContext.for_network(net)
    >>> out = LagTable().run(ctx)
    >>> out.decision.certificate["kind"], ctx.res.attempts[0].stage
    ('fork-join-foster', 'Foster V = N + h(min(lags, 4)) [Poisson equation]')
    """

    name = "Foster lag table"

    def applies(self, ctx: ForkJoinContext) -> bool:
        """Only below the throughput capacity."""
        return ctx.lam < ctx.theta

    def run(self, ctx: ForkJoinContext) -> StageOutcome:
        """Search the clip levels, smallest first; stops either way."""
        net = ctx.net
        found, attempts, notes = find_foster_table(net, solver=ctx.solver, deadline=ctx.run.deadline, Ks=ctx.Ks)
        ctx.res.attempts.extend(Attempt(*a) for a in attempts)
        if found is None:
            return stop(*notes)
        K, table, passed = found
        return decide(
            Decision("stable", "markovian", "fork-join Foster-Lyapunov certificate (V = N + lag table)",
                     forkjoin_foster_certificate(net, K, table, passed)),
            *notes,
            f"V = N + h(min(N - Q, {K})): AV <= -{float(passed.facts.delta):.3g} at every state with more than "
            f"{K} jobs, on all {passed.facts.regions} regions of lag levels (checked exactly): positive recurrent "
            "for Poisson arrivals and exponential servers",
        )


#: The stages of a fork-join network, in order.
FORK_JOIN_STAGES: tuple[Stage[ForkJoinContext], ...] = (
    ForkJoinModel(),
    CapacityBound(),
    CriticalLoad(),
    IndependentQueues(),
    LagTable(),
)


def _num(x: Fraction) -> str:
    return str(x) if x.denominator <= 1000 else f"{float(x):.9g}"
