"""``prove``: necessary condition, certificate searches, exact checks, verdict.

The verdict ``stable`` comes only from a certificate that passed
:mod:`certify.exact`, or from a theorem of :mod:`certify.exact.theory` whose
hypotheses were checked exactly on this network (``TheoremVerdict.proved``);
``unstable`` likewise.  Everything else is ``undecided`` (or ``likely-*`` from
simulation evidence), with the reasons.

What each verdict claims, and the theorem it rests on:

* closed set / static split (``unstable``, semantics ``general``): flow balance,
  for every routing policy and every distribution with these means.
* fluid certificate (``stable``, ``general``): the fluid model is stable, checked
  exactly; the network is positive Harris recurrent by Dai's theorem *only when
  every interarrival law is unbounded and spread out*
  (:func:`certify.core.hypotheses.dai_violations`).  When some stream breaks that
  (deterministic interarrivals), the verdict is ``undecided`` with the reason
  "the fluid model is stable: checked exactly", the streams, and Dai's
  conditions; simulation evidence of bounded queues is reported but leaves the
  verdict ``undecided`` (the process need not be positive Harris recurrent: a
  D/D/1 queue is periodic).
* Foster / growth certificates (``markovian``): the CTMC on queue lengths
  (x phases for phase-type laws) is positive recurrent / transient; the
  reason says it holds for the phase-type (or exponential) laws and the
  tie-breaking given, nothing more.
* finite state space (``markovian``): a finite irreducible CTMC.
* theorems: the verdict and hypotheses of :class:`certify.exact.verdict.TheoremVerdict`;
  ``critical`` (the theorem's inequality holds with equality) is never a verdict.

Each stage returns a :class:`~certify.proof.stage.StageOutcome`, the theorems
a :class:`~certify.proof.theorems.Weighing`, the simulation checks a
:class:`~certify.proof.evidence.SimulationOutcome`; only this module writes them
into the :class:`Result`.

``time_limit`` bounds the run: region, drift and fluid-face enumeration poll
the deadline and stop with "time limit reached during <stage>" (verdict
``undecided``, never a verdict from a partial enumeration); no new search
starts after it, and the simulation checks get at most the time that is left.
The overshoot is what is already under way when the deadline passes: one LP
solve and its exact check (the enumeration polls every few hundred steps).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..certificates import dumps
from ..core.model import ForkJoinNetwork, Network
from ..exact.verdict import TheoremVerdict
from ..markov.regions import TimeLimitReached
from ..templates import TEMPLATES
from .capacities import PartialCapacities
from .context import ProofContext, RunState
from .drain import SinkDrain
from .evidence import SimulationOutcome, simulation_evidence
from .fluid import Fluid
from .forkjoin import FORK_JOIN_STAGES, ForkJoinContext
from .markovian import Markovian, MarkovianForm
from .necessary import ClosedSet, Emptiable, FiniteState, NecessaryCondition, Reachability
from .options import ProveOptions
from .result import VERDICTS, Attempt, AttemptLog, Result
from .separable_first import SeparableFirst
from .sink import SinkGrowth
from .stage import Decision, Interrupted, JsqStage, StageOutcome, run_stages
from .theorems import Weighing, deciding_theorems, weigh_theorems

__all__ = ["Attempt", "Result", "ProveOptions", "prove", "VERDICTS", "JSQ_STAGES"]

#: The stages of a JSQ network, in order (each may stop the pipeline: decided, or nothing more to conclude).
#: :class:`Emptiable` guards every stability stage (Dai's theorem needs the network to empty without arrivals);
#: :class:`Reachability`, the Markovian checkers' narrower drain order, comes after the fluid stages and stops only
#: the Markovian ones (:class:`SinkDrain`, between the linear and the quadratic fluid stage, checks it itself).
JSQ_STAGES: tuple[JsqStage, ...] = (
    FiniteState(),
    ClosedSet(),
    NecessaryCondition(),
    PartialCapacities(),
    SinkGrowth(lambda net, **kw: prove(net, **kw)),  # R' is proved by a nested run of this pipeline
    Emptiable(),
    SinkDrain(early=True),  # 10+ stations where the max-flow bound fails: before the fluid faces (a minute there)
    Fluid(("linear",)),  # the max-flow bound, then the linear LP over the faces
    SeparableFirst(),  # where the network splits into groups: a second, where the sink stages' tables take a minute
    SinkGrowth(lambda net, **kw: prove(net, **kw), after_separable=True),  # the sinks whose R' splits: after that try
    SinkDrain(),  # below 10 stations: after the linear fluid certificates (they hold for every law), before the
    # costlier quadratic LP
    Fluid(("quadratic",)),
    Reachability(),
    MarkovianForm(),
    Markovian(),
    SinkGrowth(lambda net, **kw: prove(net, **kw), late=True),  # below six stations: where the Markovian stage's
    SinkDrain(late=True),  # tables over the whole network decided nothing, the sinks' R' by its own law
)


def prove(
    net: Network | ForkJoinNetwork,
    options: ProveOptions | None = None,
    *,
    out: str | Path | None = None,
    progress: Callable[[Attempt], None] | None = None,
    **kw: Any,
) -> Result:
    """Decide stability of ``net`` with exactly checked certificates.

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        A network from :func:`certify.load` or :func:`certify.from_graph`.
    options : ProveOptions, optional
        How to search (:class:`~certify.proof.options.ProveOptions`: the time limit, the templates, the
        solver, the simulation checks, ...); default: every default.
    out : str or Path, optional
        Where to write the certificate (if one is found; finite-state and theorem verdicts have
        certificates too).
    progress : callable, optional
        Called with each :class:`Attempt` as soon as it is recorded (live reports of long runs).
    **kw
        Fields of :class:`~certify.proof.options.ProveOptions` by name (``time_limit=5``,
        ``templates=["quadratic"]``, ``fluid``, ``simulate``, ``sim_budget``, ``seed``, ``solver``,
        ``symmetry``, ``theorem_share``, ``flow_bound``): they replace those of ``options``.

    Returns
    -------
    Result
        ``verdict`` is ``stable``/``unstable`` only with an exactly checked proof.

    Raises
    ------
    ValueError
        A ``theorem_share`` outside (0, 1].
    SolverError
        An unknown solver name (:class:`~certify.search.solvers.SolverNotInstalled`).
    TypeError
        A keyword that names no option.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> net = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> prove(net).verdict
    'stable'
    >>> prove(net, ProveOptions(templates=["quadratic"])).method, prove(net, templates=["quadratic"]).method
    ('quadratic Foster-Lyapunov certificate', 'quadratic Foster-Lyapunov certificate')
    """
    opts = ProveOptions.of(options, "prove", **kw)
    t0 = time.perf_counter()
    run = RunState(deadline=t0 + opts.time_limit)
    res = Result(network=net.name)
    if progress is not None:
        assert isinstance(res.attempts, AttemptLog)
        res.attempts.listener = progress
    found: list[TheoremVerdict] | None = None
    try:
        ctx: ProofContext | None = None
        if isinstance(net, Network):
            res.reasons.extend(f"note: {n}" for n in net.notes)
            templates = list(TEMPLATES) if opts.templates is None else list(opts.templates)
            ctx = ProofContext(net, res, run, opts.solver, opts.use_fluid, templates, symmetry=opts.symmetry,
                               flow_bound=opts.flow_bound)
            found = deciding_theorems(net, ctx.base)
            if opts.templates is None and any(tv.decides for tv in found):
                # the verdict is already proved: the certificate stages get a share of the time, not all of it
                budget = opts.time_limit * opts.theorem_share
                if opts.theorem_share < 1 and t0 + budget < run.deadline:
                    run.deadline, run.budget = t0 + budget, budget
        try:
            if ctx is not None:
                _prove_jsq(ctx)
            else:
                assert isinstance(net, ForkJoinNetwork)
                _prove_forkjoin(ForkJoinContext(net, res, run, opts.solver))
        except TimeLimitReached as exc:
            if isinstance(exc, Interrupted):  # what the stage had found before the clock stopped it
                _record(res, exc.partial)
            run.cut = exc.stage
            res.verdict, res.method, res.certificate = "undecided", "none", None
            limit = "time limit" if run.budget is None else "certificate stages' budget"
            res.reasons.append(f"{limit} reached during {exc.stage}: nothing is concluded from a partial enumeration")
            res.reasons.append(run.summary())
        weighing = weigh_theorems(res, net, ctx.base if ctx is not None else None, found)
        _weigh(res, weighing)
        use_sim, sim_budget = opts.use_simulation, opts.sim_budget
        if res.verdict == "undecided" and use_sim and not weighing.disagree and sim_budget > 0 and isinstance(net, Network):
            left = run.deadline - time.perf_counter()
            if left < 1.0:
                res.reasons.append("time limit reached before the simulation checks")
            else:
                _simulated(res, simulation_evidence(res, net, min(sim_budget, left), opts.seed))
    finally:
        res.time_s = time.perf_counter() - t0
    if res.certificate is not None and out is not None:
        Path(out).write_text(dumps(res.certificate))
        res.certificate_path = str(out)
    return res


def _prove_jsq(ctx: ProofContext) -> None:
    """Run :data:`JSQ_STAGES`, recording each outcome; when none stops, say which searches ran and the necessary condition."""
    res = ctx.res
    res.expansion = list(ctx.chain.expansion) if ctx.chain is not None else []
    res.semantics = "markovian" if ctx.chain is not None else "general"
    stopped = False
    for outcome in run_stages(ctx, JSQ_STAGES):
        _record(res, outcome)
        stopped = outcome.stop
    if not stopped:
        res.reasons.append(f"{ctx.run.summary()}; {ctx.run.necessary_text()}")


def _decided(res: Result, d: Decision) -> None:
    """Write a decision into the result (the one place a verdict is set from a stage's, theorem's or run's outcome)."""
    res.verdict, res.semantics, res.method, res.certificate = d.verdict, d.semantics, d.method, d.certificate
    if d.means_only:  # the means alone decide: no phase expansion involved
        res.expansion = []


def _record(res: Result, outcome: StageOutcome) -> None:
    """Compose a stage's outcome into the result: its decision, then its reasons and hints after those so far."""
    if outcome.decision is not None:
        _decided(res, outcome.decision)
    res.reasons.extend(outcome.reasons)
    res.hints.extend(h for h in outcome.hints if h not in res.hints)


def _weigh(res: Result, w: Weighing) -> None:
    """Compose the theorems' weighing into the result: the theorems, a decision if any, the reasons before and after."""
    res.theorems = list(w.theorems)
    if w.decision is not None:
        _decided(res, w.decision)
    res.reasons[:0] = w.first
    res.reasons.extend(w.reasons)


def _simulated(res: Result, s: SimulationOutcome) -> None:
    """Compose the simulation checks into the result: the evidence, its reasons, a ``likely-*`` verdict if any."""
    res.simulation = s.simulation
    res.reasons.extend(s.reasons)
    if s.decision is not None:
        _decided(res, s.decision)


def _prove_forkjoin(ctx: ForkJoinContext) -> None:
    """Run :data:`~certify.proof.forkjoin.FORK_JOIN_STAGES`, recording each outcome (the same loop as the JSQ stages)."""
    ctx.res.semantics = "markovian"
    for outcome in run_stages(ctx, FORK_JOIN_STAGES):
        _record(ctx.res, outcome)
