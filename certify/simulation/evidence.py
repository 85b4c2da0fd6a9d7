"""Counterexample-style simulation checks when every certificate search fails (docs/math/instability.md).

Simulation is evidence, never proof: the verdicts are ``likely-unstable``,
``likely-stable`` or ``undecided``, always with their numbers.  Starts: the empty
state, and large states along the directions where the failed Lyapunov LP's dual
says no candidate V decreases (the heaviest drift rows).  For each start the
growth rate of the total queue (least-squares slope over the second half of the
horizon, one per replication) gets a t confidence interval across replications.

* ``likely-unstable`` when some start's interval lies above 0.1% of the total
  arrival rate (Bonferroni over the starts, overall level 99%): a slope that is
  positive but smaller is not told apart from finite-horizon effects of a stable
  network (the public unstable cases, margins >= 1.03, grow at >= 0.9% of it);
* ``likely-stable`` when no start grows: every interval stays below 0.5% of the
  total arrival rate, and every large start (ten times the mean total seen from
  empty, at least ``START_SCALE`` per unit of direction) drains back below 30% of
  its initial total within the horizon;
* ``undecided`` otherwise.

Stations with a capacity hold at most that many customers, so a large start puts
``min(scale, capacity)`` customers there (a start that is then empty, or equal to
an earlier one, is skipped).  Horizons are measured in the network's own time
scale: the pilot run simulates about 2000 events (at most 10^5 expected), and
the cap :data:`MAX_HORIZON` is divided by the slowest rate when that is below 1,
so rates anywhere in the loader's range [1e-9, 1e9] give runs of bounded cost
that still see events.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..core.jsontypes import JsonObject
from ..core.model import Network
from ..core.vocabulary import EvidenceVerdict

if TYPE_CHECKING:
    from .result import SimulationResult

__all__ = ["Start", "StartResult", "Evidence", "simulation_check", "DEFAULT_BUDGET_S"]

#: Default wall-clock budget (seconds) of :func:`simulation_check`.
DEFAULT_BUDGET_S = 60.0
REPLICATIONS = 8
START_SCALE = 60  # customers per unit of a direction generator
GROWTH_FLOOR = 0.001  # likely-unstable needs growth above this fraction of the total arrival rate
LEVEL = 0.99  # overall confidence of the growth intervals (split over the starts)
MAX_HORIZON = 200_000.0


@dataclass(frozen=True)
class Start:
    """An initial state of the simulation checks and why it was chosen.

    Attributes
    ----------
    label : str
        Why this start, in words (``"empty"``, or the direction it follows).
    x0 : tuple of int
        The initial queue lengths, one per station.

    Examples
    --------
    >>> Start("empty", (0, 0))
    Start(label='empty', x0=(0, 0))
    """

    label: str
    x0: tuple[int, ...]


@dataclass(frozen=True)
class StartResult:
    """The growth of the total queue from one :class:`Start`.

    Attributes
    ----------
    start : Start
        The start.
    growth : tuple of (float, float, float)
        The growth rate of the total queue: estimate, lower and upper end of
        its confidence interval.
    initial_total : int
        Customers at time 0.
    final_total : float
        Mean over replications of the total queue at the horizon.

    Examples
    --------
    >>> r = StartResult(Start("empty", (0,)), (0.5, 0.4, 0.6), 0, 250.0)
    >>> r.growth[1] > 0
    True
    """

    start: Start
    growth: tuple[float, float, float]  # estimate, lower, upper
    initial_total: int
    final_total: float  # mean over replications of the total queue at the horizon

    def to_json(self) -> JsonObject:
        """The start and its numbers as a JSON-ready dict.

        Returns
        -------
        dict
            ``start`` (its label), ``x0``, ``growth_rate`` (estimate and ci),
            ``initial_total`` and ``final_total``.

        Examples
        --------
        >>> StartResult(Start("empty", (0,)), (0.5, 0.4, 0.6), 0, 250.0).to_json()["growth_rate"]
        {'estimate': 0.5, 'ci': [0.4, 0.6]}
        """
        return {
            "start": self.start.label,
            "x0": list(self.start.x0),
            "growth_rate": {"estimate": self.growth[0], "ci": [self.growth[1], self.growth[2]]},
            "initial_total": self.initial_total,
            "final_total": self.final_total,
        }


@dataclass
class Evidence:
    """The outcome of :func:`simulation_check` (never a proof).

    Attributes
    ----------
    verdict : EvidenceVerdict
        ``likely-unstable``, ``likely-stable`` or ``undecided``.
    horizon : float
        Simulated time of each replication of each start.
    replications : int
        Replications per start.
    level : float
        Overall confidence level of the growth intervals (split over the starts).
    starts : list of StartResult
        One per start, the empty start first.
    throughput : list of tuple of (float, float, float)
        Each station's throughput from empty: estimate, lower and upper end.
    station_ids : tuple of str
        Station ids, in model order.
    events : int
        Events simulated, pilot run included.
    wall_s : float
        Wall time of all runs.
    reasons : list of str
        The verdict's reasons, in words, with the numbers.

    Examples
    --------
    >>> ev = Evidence("undecided", 100.0, 8, 0.99)
    >>> ev.to_json()["starts"], ev.reasons
    ([], [])
    """

    verdict: EvidenceVerdict
    horizon: float
    replications: int
    level: float
    starts: list[StartResult] = field(default_factory=list)
    throughput: list[tuple[float, float, float]] = field(default_factory=list)
    station_ids: tuple[str, ...] = ()
    events: int = 0
    wall_s: float = 0.0
    reasons: list[str] = field(default_factory=list)

    def to_json(self) -> JsonObject:
        """The evidence as a JSON-ready dict (the ``simulation`` object of ``certify prove --json``).

        Returns
        -------
        dict
            The verdict, run parameters, starts, throughputs, events and wall time.

        Examples
        --------
        >>> sorted(Evidence("undecided", 100.0, 8, 0.99).to_json())
        ['events', 'horizon', 'level', 'replications', 'starts', 'throughput', 'verdict', 'wall_s']
        """
        return {
            "verdict": self.verdict,
            "horizon": self.horizon,
            "replications": self.replications,
            "level": self.level,
            "starts": [s.to_json() for s in self.starts],
            "throughput": {sid: {"estimate": t[0], "ci": [t[1], t[2]]} for sid, t in zip(self.station_ids, self.throughput)},
            "events": self.events,
            "wall_s": round(self.wall_s, 3),
        }


def _starts(net: Network, directions: Sequence[Sequence[int]], scale: int) -> list[Start]:
    """Up to three large starts along ``directions``, each station capped at its capacity."""
    J = len(net.stations)
    out: list[Start] = []
    seen: set[tuple[int, ...]] = set()
    for g in directions:
        g = tuple(int(v) for v in g)
        if not any(g) or g in seen or len(out) >= 3:
            continue
        seen.add(g)
        x0 = []
        capped = False
        for a, st in enumerate(net.stations):
            want = scale * g[a]
            if st.capacity is not None and want > st.capacity:
                want, capped = st.capacity, True
            x0.append(max(0, want))
        if not any(x0) or any(s.x0 == tuple(x0) for s in out):
            continue
        ids = [net.station_ids[a] for a in range(J) if g[a]]
        label = f"x{{{','.join(ids)}}} large (a direction where the Lyapunov LP's dual says no V decreases"
        out.append(Start(label + ("; capped at the capacities)" if capped else ")"), tuple(x0)))
    return out


def simulation_check(
    net: Network,
    directions: Sequence[Sequence[int]] = (),
    budget_s: float = DEFAULT_BUDGET_S,
    seed: int = 0,
    replications: int = REPLICATIONS,
    progress: bool | None = None,
) -> Evidence:
    """Simulate from the empty state and from large states along ``directions``; classify the growth.

    Parameters
    ----------
    net : Network
        The network (any distributions the simulator supports).
    directions : sequence of sequence of int
        0/1 station vectors (e.g. cone generators of the regions where a
        Lyapunov LP failed); each gives a start with ``START_SCALE`` customers per unit.
    budget_s : float
        Wall-clock budget for all runs (the horizon is sized to fit it).
    seed : int
        Base seed; results are identical for identical arguments.
    replications : int
        Replications per start.
    progress : bool, optional
        Show a progress bar (see :func:`~certify.simulation.simulate.simulate`).

    Returns
    -------
    Evidence
        ``likely-unstable``, ``likely-stable`` or ``undecided``, with the numbers.

    Raises
    ------
    NotSupported
        For a network the simulator does not run
        (:func:`~certify.simulation.tables.compile_network`).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(1)),), (Stream(F(2), choice=("1",)),))
    >>> simulation_check(mm1, budget_s=0.5, seed=1).verdict
    'likely-unstable'
    """
    from .simulate import simulate

    t0 = time.perf_counter()
    n_starts = 1 + min(3, len({tuple(g) for g in directions if any(g)}))
    lam = float(sum(s.rate for s in net.streams))
    mu = float(sum(s.mu for s in net.stations))
    total = lam + mu
    slowest = float(min([s.rate for s in net.streams] + [s.mu for s in net.stations]))
    # pilot: the simulator's speed (events per wall second) on this network
    pilot_h = min(max(50.0, 2000.0 / total), 1e5 / total)
    pilot = simulate(net, horizon=pilot_h, replications=2, seed=seed, progress=False)
    speed = max(pilot.events_per_s, 1e4)
    per_start = max(0.2, (budget_s - (time.perf_counter() - t0)) * 0.85 / n_starts)
    horizon = min(MAX_HORIZON / min(1.0, slowest), per_start * speed / (replications * total))
    level_each = 1 - (1 - LEVEL) / n_starts
    ev = Evidence("undecided", horizon, replications, LEVEL, station_ids=net.station_ids)
    ev.events += pilot.events

    def run(st: Start, k: int) -> SimulationResult:
        res = simulate(net, horizon=horizon, replications=replications, seed=seed + 1000 * (k + 1), x0=st.x0,
                       progress=progress)
        g = res.growth_rate(level_each)
        final = float(res.samples[:, -1, :].sum(axis=1).mean())
        ev.starts.append(StartResult(st, (g.estimate, g.lo, g.hi), sum(st.x0), final))
        ev.events += res.events
        return res

    first = run(Start("empty", (0,) * len(net.stations)), 0)
    ev.throughput = [(iv.estimate, iv.lo, iv.hi) for iv in first.throughput()]
    level = sum(iv.estimate for iv in first.mean_queue())
    scale = max(START_SCALE, int(10 * level) + 1) if level == level else START_SCALE  # NaN-safe
    for k, st in enumerate(_starts(net, directions, scale), start=1):
        run(st, k)
    ev.wall_s = time.perf_counter() - t0
    grows = [s for s in ev.starts if s.growth[1] > GROWTH_FLOOR * lam]
    if grows:
        s = max(grows, key=lambda r: r.growth[1])
        ev.verdict = "likely-unstable"
        ev.reasons.append(
            f"simulation (not a proof): from {s.start.label}, the total queue grows at {s.growth[0]:.4g} per unit time "
            f"(CI [{s.growth[1]:.4g}, {s.growth[2]:.4g}], {replications} replications, horizon {horizon:.4g}, "
            f"overall level {LEVEL:g})"
        )
    else:
        drained = all(s.final_total < 0.3 * s.initial_total for s in ev.starts if s.initial_total)
        flat = all(s.growth[2] < 0.005 * lam for s in ev.starts)
        if drained and flat:
            ev.verdict = "likely-stable"
            big = [s for s in ev.starts if s.initial_total]
            ev.reasons.append(
                f"simulation (not a proof): no start grows over horizon {horizon:.4g} ({replications} replications); "
                + (
                    "the large starts drained back to a mean total of "
                    + ", ".join(f"{s.final_total:.3g} (from {s.initial_total})" for s in big)
                    if big
                    else "from empty the growth-rate interval stays below 0.5% of the arrival rate"
                )
            )
        else:
            ev.reasons.append(
                f"simulation over horizon {horizon:.4g} ({replications} replications) is inconclusive: growth rates "
                + "; ".join(f"{s.start.label.split(' (')[0]}: [{s.growth[1]:.3g}, {s.growth[2]:.3g}]" for s in ev.starts)
            )
    ev.reasons.append(
        "station throughputs d_i from empty: "
        + ", ".join(f"{sid}: {t[0]:.4g} [{t[1]:.4g}, {t[2]:.4g}]" for sid, t in zip(net.station_ids, ev.throughput))
    )
    return ev
