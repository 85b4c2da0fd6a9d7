"""What the stages of ``prove`` share: one :class:`ProofContext` per run.

The context holds the network, the chain on the stated means (compiled once),
its Markovian form (the phase-type expansion, compiled once), the regions and
their drifts per clip-level set (compiled once and shared by every Foster and
growth stage), the run's deadline and bookkeeping (:class:`RunState`), and the
:class:`~certify.proof.result.Result` the pipeline composes: the stages only
time their attempts into it and return what they found
(:class:`~certify.proof.stage.StageOutcome`).  :class:`Timer` records one
:class:`~certify.proof.result.Attempt`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from math import prod

from ..core.errors import NotSupported
from ..core.model import Network
from ..core.render import plural
from ..core.vocabulary import NecessaryState
from ..exact import Check, FluidFlowFacts, check_fluid_flow
from ..exact.fluid_flow import inflow_depths
from ..markov.chain import Chain, compile_chain
from ..markov.drift import compile_drifts
from ..markov.fluid import FluidFace
from ..markov.jumps import RegionDrift
from ..markov.laws import NotPhaseType
from ..markov.phases import markov_chain
from ..markov.regions import TimeLimitReached, iter_regions
from ..markov.symmetry import TRIVIAL, Symmetry, reducing, station_classes
from ..search.poisson import PoissonRates
from ..search.separable import shares_choice_sets
from ..search.sink import TableRows
from .result import Attempt, Result

__all__ = ["MAX_REGIONS", "RunState", "Timer", "Regions", "ProofContext", "size_text", "primitives", "separable_only"]

# Refined (regions x cells) problems larger than this are not attempted.
MAX_REGIONS = 250_000


@dataclass
class RunState:
    """What a run has done so far: the deadline, the searches run, where the time limit cut, the necessary condition.

    Examples
    --------
    >>> run = RunState(deadline=time.perf_counter() + 60)
    >>> run.ran.append("fluid linear")
    >>> run.expired(), run.summary()
    (False, 'no certificate found by the searches run (fluid linear)')
    """

    deadline: float
    ran: list[str] = field(default_factory=list)  # certificate searches that ran (LPs/SDPs solved)
    skipped: list[str] = field(default_factory=list)  # searches not run because the time limit had passed
    cut: str | None = None  # the stage the time limit interrupted
    necessary: NecessaryState = "unknown"  # set by the necessary condition's stage
    budget: float | None = None  # seconds given to the stages when a theorem already decides (deadline shortened)

    def expired(self) -> bool:
        """True once the deadline has passed, or once the time limit stopped a stage (``cut``): no new search starts."""
        return self.cut is not None or time.perf_counter() > self.deadline

    def stopped(self, stage: str) -> None:
        """Record that the time limit stopped ``stage`` (a solve cut by the clock): the later searches are skipped.

        Examples
        --------
        >>> run = RunState(deadline=time.perf_counter() + 60)
        >>> run.stopped("fluid linear Lyapunov")
        >>> run.expired(), run.summary().split(";")[0]
        (True, 'no certificate found within the time limit (time limit reached during fluid linear Lyapunov)')
        """
        self.cut = self.cut or stage

    def necessary_text(self) -> str:
        """The necessary condition's state, in words (empty when it failed: then the network was proved unstable)."""
        words: dict[NecessaryState, str] = {
            "holds": "the necessary condition holds",
            "borderline": "the necessary condition holds at best with equality (critical load, within solver tolerance)",
            "doubtful": "the necessary condition is in doubt (the static split LP looks infeasible, without an exact dual)",
            "unknown": "the necessary condition was not decided (solver failure)",
            "stopped": "the necessary condition was not decided (its LP was stopped by the time limit)",
        }
        return words.get(self.necessary, "")

    def summary(self) -> str:
        """Which certificate searches ran, and why the others did not."""
        ran = ", ".join(self.ran) if self.ran else "none"
        if self.cut or self.skipped:
            rest = f"; not run: {', '.join(self.skipped)}" if self.skipped else "; the remaining searches were not run"
            if self.budget is not None:
                where = f"; it ran out during {self.cut}" if self.cut else ""
                return (f"no certificate found within the certificate stages' budget ({self.budget:g} s, a share of the "
                        f"time limit, as a theorem already decides this network{where}); searches run: {ran}{rest}")
            why = f"time limit reached during {self.cut}" if self.cut else "time limit reached"
            return f"no certificate found within the time limit ({why}); searches run: {ran}{rest}"
        return f"no certificate found by the searches run ({ran})"


class Timer:
    """Context manager that records one :class:`Attempt` in ``res`` (fill in ``size`` and ``outcome``).

    A :class:`TimeLimitReached` raised inside is recorded as the outcome "time limit reached".

    Examples
    --------
    >>> res = Result("mm1")
    >>> with Timer(res, "regions") as t:
    ...     t.size, t.outcome = "2 regions", "enumerated"
    >>> res.attempts[0].stage, res.attempts[0].outcome
    ('regions', 'enumerated')
    """

    def __init__(self, res: Result, stage: str):
        self.res, self.stage, self.size, self.outcome = res, stage, "", ""

    def __enter__(self) -> Timer:
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if isinstance(exc_type, type) and issubclass(exc_type, TimeLimitReached) and not self.outcome:
            self.outcome = "time limit reached (stopped; nothing from it is used)"
        self.res.attempts.append(Attempt(self.stage, self.size, time.perf_counter() - self.t0, self.outcome))


class Regions:
    """Regions (refined by clip levels) with their drifts, compiled once per level set and shared by all stages.

    Examples
    --------
    >>> from certify.io.loader import load
    >>> from certify.markov.chain import compile_chain
    >>> res = Result("J4")
    >>> regions = Regions(res, compile_chain(load("models/symmetric-jsq-J4.json")))
    >>> regions.get({}) is regions.get({}), [a.stage for a in res.attempts]
    (True, ['regions'])
    """

    def __init__(self, res: Result, chain: Chain, deadline: float | None = None):
        self.res, self.chain, self.deadline = res, chain, deadline
        self.cache: dict[tuple[tuple[tuple[int, int], ...], Symmetry | None], list[RegionDrift]] = {}
        # found too many by listing: the cap they were given up at (a larger cap lists them again)
        self.too_many: dict[tuple[tuple[tuple[int, int], ...], Symmetry | None], int] = {}

    def get(self, levels: dict[int, int], symmetry: Symmetry | None = None, cap: int | None = None) -> list[RegionDrift] | None:
        """The drifts for these clip levels, or None when the refined problem would exceed :data:`MAX_REGIONS`.

        With a (non-trivial) ``symmetry``: the regions of the sorted chamber only, one per orbit.
        The bound is the base regions times (K + 2) per clipped station, which can be far above the
        count (most pieces are empty); with ``cap``, a level set over the bound is listed anyway and
        given up (None, and remembered with its cap: only a larger cap lists it again) once more than ``cap``
        regions are found.
        Raises :class:`TimeLimitReached` when the deadline passes during the enumeration.
        """
        symmetry = reducing(symmetry)
        merged = dict(self.chain.base_levels)
        for a, k in levels.items():
            merged[a] = max(k, merged.get(a, 0))
        levels = dict(sorted(merged.items()))
        key = (tuple(levels.items()), symmetry)
        if key in self.too_many and (cap is None or cap <= self.too_many[key]):
            return None
        limit = None
        if key not in self.cache:
            if key[0] != tuple(sorted(self.chain.base_levels.items())):
                base = self.get({}, symmetry)
                assert base is not None
                if len(base) * prod(k + 2 for k in levels.values()) > MAX_REGIONS:
                    if cap is None:
                        return None
                    limit = cap
            extra = {a: k for a, k in levels.items() if self.chain.base_levels.get(a) != k}
            label = "regions" if not extra else f"regions x cells (K={max(extra.values())})"
            if self.chain.has_phases:
                label += " x phases"
            if symmetry is not None:
                label += " (one per orbit)"
            with Timer(self.res, label) as t:
                regions = []
                for region in iter_regions(self.chain, levels, deadline=self.deadline, symmetry=symmetry):
                    regions.append(region)
                    if limit is not None and len(regions) > limit:
                        t.size, t.outcome = f"more than {limit} regions", "given up (too many to search)"
                        self.too_many[key] = limit
                        return None
                drifts = compile_drifts(self.chain, regions, deadline=self.deadline)
                unbounded = sum(1 for d in drifts if d.generators)
                what = "(region, phase) pairs" if self.chain.has_phases else "regions"
                t.size = f"{len(drifts)} {what} ({unbounded} unbounded)"
                t.outcome = "enumerated"
            self.cache[key] = drifts
        return self.cache[key]


class ProofContext:
    """Everything the stages of one ``prove`` run share; each piece is computed once.

    Parameters
    ----------
    net : Network
        The JSQ network.
    res : Result
        The run's result: the stages record their attempts in it, the pipeline everything else.
    run : RunState
        The deadline and what has run.
    solver : str or None
        The solver name for the searches (None: the default).
    use_fluid : bool
        Whether the fluid stages run.
    templates : list of str
        The Foster templates to try, in order.
    symmetry : bool
        Find the station classes (exact automorphisms of the means) for the stages that reduce by them.
    flow_bound : bool
        Let the fluid stage try the max-flow bound before listing faces (:class:`certify.proof.fluid.Fluid`).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> net = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> ctx = ProofContext(net, Result("mm1"), RunState(time.perf_counter() + 60), None, True, ["quadratic"])
    >>> ctx.base.J, ctx.chain is ctx.base, len(ctx.regions.get({}))
    (1, True, 2)
    """

    def __init__(
        self,
        net: Network,
        res: Result,
        run: RunState,
        solver: str | None,
        use_fluid: bool,
        templates: list[str],
        symmetry: bool = True,
        flow_bound: bool = True,
    ):
        self.net, self.res, self.run, self.solver = net, res, run, solver
        self.use_fluid, self.templates = use_fluid, templates
        self.base = compile_chain(net)  # the stated means: necessary conditions, fluid, theorems
        self.chain: Chain | None
        self.why = ""  # why there is no Markovian form
        try:
            self.chain = self.base if net.is_markovian else markov_chain(net)
        except NotPhaseType as exc:
            self.chain, self.why = separable_only(net, templates), str(exc)
        self._use_symmetry = symmetry
        self.flow_bound = flow_bound
        self._symmetry: Symmetry | None = None
        self.hint: list[float] | None = None  # the static split dual's station weights (for growth supports)
        self._regions: Regions | None = None
        #: each table's regions of a reduced network (a set of sinks removed), their LP rows and the drain LP's answer,
        #: by :func:`~certify.proof.sink_rows.table_key`, shared by the sink stages (None: too many regions, not listed)
        self.reduced: dict[tuple[tuple[str, ...], tuple[int, ...], tuple[int, ...]], TableRows | None] = {}
        #: the Poisson tables' try of each single sink (its box's levels, cells and candidates; None: not tried,
        #: R' splitting into the separable certificates' groups), shared by the sink stages (certify.proof.poisson)
        self.poisson: dict[tuple[str, ...], tuple[tuple[int, ...], int, PoissonRates] | None] = {}
        self._flow: dict[int, Check[FluidFlowFacts]] = {}
        #: the fluid faces by whether they are one per orbit (listed by the first fluid stage that needs them)
        self.fluid_faces: dict[bool, list[FluidFace]] = {}
        #: the separable tries (their stage names) that ran to their end before the Markovian stage (it skips them)
        self.separable_tried: set[str] = set()

    def flow_check(self, depth: int) -> Check[FluidFlowFacts]:
        """The max-flow bound with V = total fluid mass at inflow ``depth`` (computed once: the sink and fluid stages share it)."""
        if depth not in self._flow:
            self._flow[depth] = check_fluid_flow(self.base, [Fraction(1)] * self.base.J, depth)
        return self._flow[depth]

    def flow_proves(self) -> bool:
        """Whether the max-flow bound passes at some inflow depth (the fluid model is then stable: no queue grows linearly)."""
        return any(self.flow_check(d).ok for d in inflow_depths(self.base))

    @classmethod
    def for_file(cls, path: str, templates: tuple[str, ...] = ("quadratic",), time_limit: float = 60.0) -> ProofContext:
        """A fresh context for the network in ``path`` (examples and tests of single stages).

        Parameters
        ----------
        path : str
            A network file.
        templates : tuple of str
            The Foster templates to try.
        time_limit : float
            Seconds from now to the deadline.

        Returns
        -------
        ProofContext
            With an empty result, the fluid stages on, and the default solver.

        Examples
        --------
        >>> ProofContext.for_file("models/symmetric-jsq-J4.json").symmetry.classes
        ((0, 1, 2, 3),)
        """
        from ..io.loader import load

        net = load(path)
        if not isinstance(net, Network):
            raise NotSupported(f"{path}: a fork-join network has no JSQ stages")
        return cls(net, Result(net.name), RunState(time.perf_counter() + time_limit), None, True, list(templates))

    @property
    def symmetry(self) -> Symmetry:
        """The station classes of the chain on the means (exact automorphisms), found on first use; trivial when turned off."""
        if self._symmetry is None:
            self._symmetry = station_classes(self.base) if self._use_symmetry else TRIVIAL
        return self._symmetry

    @property
    def classes(self) -> Symmetry:
        """The station classes whether or not the reduction is on (the same object as :attr:`symmetry` when it is)."""
        return self.symmetry if self._use_symmetry else station_classes(self.base)

    @property
    def regions(self) -> Regions:
        """The regions of the Markovian chain (raises ValueError when there is none)."""
        if self.chain is None:
            raise ValueError(f"{self.net.name}: no Markovian form ({self.why})")
        if self._regions is None:
            self._regions = Regions(self.res, self.chain, self.run.deadline)
        return self._regions

    def timer(self, stage: str) -> Timer:
        """A :class:`Timer` recording into this run's result."""
        return Timer(self.res, stage)


def size_text(net: Network, chain: Chain) -> str:
    """'2 streams, 3 stations', counting streams as in the file; random choice sets are named separately.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain
        Its compiled chain (for the routing sets).

    Returns
    -------
    str
        The size in words.

    Examples
    --------
    >>> from certify.io.loader import load
    >>> from certify.markov.chain import compile_chain
    >>> net = load("models/symmetric-jsq-J4.json")
    >>> size_text(net, compile_chain(net))
    '1 stream, 4 stations'
    """
    text = plural(len(net.streams), "stream")
    sets = len(chain.arrivals)
    if any(st.choice is None for st in net.streams) or sets != len(net.streams):
        text += f" ({plural(sets, 'routing set')})"
    return f"{text}, {plural(chain.J, 'station')}"


def primitives(chain: Chain) -> str:
    """Where the Markovian claim is made: the laws the chain models.

    Parameters
    ----------
    chain : Chain
        The Markovian chain.

    Returns
    -------
    str
        The laws, in words.

    Examples
    --------
    >>> from certify.io.loader import load
    >>> from certify.markov.chain import compile_chain
    >>> primitives(compile_chain(load("models/symmetric-jsq-J4.json")))
    'exponential laws'
    """
    return "the phase-type laws above (the chain is on queue lengths x phases)" if chain.has_phases else "exponential laws"


def separable_only(net: Network, templates: list[str]) -> Chain | None:
    """The phase-type expansion beyond :data:`~certify.markov.phases.MAX_PHASE_VECTORS`, where separable tries apply.

    The separable kinds see, in each cluster, only the phases of its own stations (``docs/math/separable.md``), so
    a network whose whole phase space is too large to list (eight gadgets with Erlang-2 service at both stations:
    3^16 phase vectors) is still in their reach.  The chain is returned only where a separable try may apply (two
    or more groups share choice sets, no phase-type stream); otherwise None, as before (no Markovian form).
    :func:`~certify.proof.separable.beyond_product` keeps every whole-network search off such a chain.

    Parameters
    ----------
    net : Network
        A validated network whose expansion within the limit was refused.
    templates : list of str
        The Foster templates asked for (the separable tries need ``table``).

    Returns
    -------
    Chain or None
        The expansion without the limit on its phase vectors, or None.

    Examples
    --------
    Nine Erlang-2 stations chained by JSQ pairs form one group, so no separable try applies:

    >>> from certify.core.model import Distribution, Station, Stream
    >>> e2 = Distribution("erlang", (("k", 2),))
    >>> st = tuple(Station(str(i), Fraction(2), service=e2) for i in range(9))
    >>> net = Network("e2", st, tuple(Stream(Fraction(1, 2), choice=(str(i), str(i + 1))) for i in range(8)))
    >>> separable_only(net, ["table"]) is None
    True
    """
    if net.has_capacities or "table" not in templates:
        return None
    try:
        chain = markov_chain(net, max_vectors=None)
    except NotPhaseType:
        return None
    return chain if shares_choice_sets(chain) else None
