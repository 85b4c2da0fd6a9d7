"""Simulate a JSQ network: many independent replications of an event-driven, numba-compiled simulator.

:func:`simulate` runs the network of a :class:`~certify.core.model.Network` with its
exact semantics (``../shared/DESIGN.md`` §1, ``FORMAT.md``): join the shortest
queue (customers present, the one in service included) among the choice set —
fixed, drawn per arrival (``choices``) or d distinct stations drawn uniformly
(``sample``) — with the tie-breaking probabilities of the exactly tied set
(default uniform), feedback routed again after the customer has left its
station, capacities (JSQ over the non-full stations of the set; a customer whose
set holds only full stations is lost and counted).  Every service and
interarrival law of the format is sampled with the mean given by its rate.

The result (:class:`SimulationResult`) holds the queue lengths sampled on a
grid, time-average queue lengths, throughputs and loss rates per replication,
with confidence intervals across replications, and the growth rate of the total
queue (DESIGN §7).  Simulation evidence is never a proof.

Replication r is seeded with a seed derived from ``(seed, r)`` alone, so its
outcome does not depend on how many replications run.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..core.errors import NotSupported
from ..core.model import Distribution, ForkJoinNetwork, Network
from . import kernel as K

__all__ = ["Interval", "SimulationResult", "simulate", "compile_network", "check_x0", "replication_state"]

_CHUNK_EVENTS = 1 << 21  # events per kernel call: Ctrl-C and the progress bar act between calls
_MAX_GRID = 1_000_000  # sample points per replication
_MAX_SAMPLES = 50_000_000  # sample values in all (replications x points x stations)


@dataclass(frozen=True)
class Interval:
    """An estimate with a confidence interval ``[lo, hi]`` (NaN when it cannot be estimated)."""

    estimate: float
    lo: float
    hi: float

    def contains(self, x: float) -> bool:
        return bool(self.lo <= x <= self.hi)

    def to_json(self) -> dict[str, Any]:
        return {"estimate": _num(self.estimate), "ci": [_num(self.lo), _num(self.hi)]}


def _num(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def _t_half(values: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Mean over axis 0 and the half-width of its t confidence interval at ``level``."""
    from scipy.stats import t as student_t

    r = values.shape[0]
    mean = values.mean(axis=0)
    if r < 2:
        return mean, np.full_like(mean, np.nan, dtype=float)
    q = student_t.ppf(0.5 + level / 2, r - 1)
    return mean, q * values.std(axis=0, ddof=1) / math.sqrt(r)


@dataclass(frozen=True)
class SimulationResult:
    """Outcome of :func:`simulate`: per-replication arrays and their summaries.

    Per-replication arrays have the replication as first axis.  Time averages,
    throughputs and loss counts cover ``[warmup, horizon]``.
    """

    network: str
    station_ids: tuple[str, ...]
    horizon: float
    warmup: float
    seed: int
    times: np.ndarray  # (K,) sample grid
    samples: np.ndarray  # (R, K, J) queue lengths at the grid times
    rep_mean_queue: np.ndarray  # (R, J) time-average queue lengths
    rep_throughput: np.ndarray  # (R, J) departures per unit time
    rep_arrivals: np.ndarray  # (R, S) exogenous arrivals per stream (lost ones included)
    rep_lost: np.ndarray  # (R, S) exogenous arrivals lost (all stations of their set full)
    rep_lost_feedback: np.ndarray  # (R, J) feedback customers from each station lost
    rep_growth: np.ndarray  # (R,) least-squares slope of the total queue over the second half
    rep_events: np.ndarray  # (R,) events (arrivals and departures) simulated
    wall_s: float  # simulation wall time, compilation excluded
    compile_s: float  # numba compilation (or cache load) time
    interrupted: bool = False
    level: float = 0.95  # default confidence level of the summaries

    @property
    def replications(self) -> int:
        return int(self.rep_events.shape[0])

    @property
    def events(self) -> int:
        return int(self.rep_events.sum())

    @property
    def events_per_s(self) -> float:
        return self.events / self.wall_s if self.wall_s > 0 else math.inf

    def _span(self) -> float:
        return self.horizon - self.warmup

    def ci(self, values: np.ndarray, level: float | None = None) -> list[Interval]:
        """t confidence intervals (across replications) of each column of ``values`` (R, m)."""
        mean, half = _t_half(np.asarray(values, dtype=float), self.level if level is None else level)
        return [Interval(float(m), float(m - h), float(m + h)) for m, h in zip(mean, half)]

    def mean_queue(self, level: float | None = None) -> list[Interval]:
        """Time-average queue length of each station, with its confidence interval."""
        return self.ci(self.rep_mean_queue, level)

    def throughput(self, level: float | None = None) -> list[Interval]:
        """Departures per unit time of each station."""
        return self.ci(self.rep_throughput, level)

    def loss_rate(self, level: float | None = None) -> list[Interval]:
        """Exogenous customers lost per unit time, per stream."""
        return self.ci(self.rep_lost / self._span(), level)

    def loss_fraction(self, level: float | None = None) -> list[Interval]:
        """Fraction of each stream's arrivals that are lost (the blocking probability, by PASTA for Poisson)."""
        return self.ci(self.rep_lost / np.maximum(self.rep_arrivals, 1), level)

    def feedback_loss_rate(self, level: float | None = None) -> list[Interval]:
        """Feedback customers from each station lost per unit time."""
        return self.ci(self.rep_lost_feedback / self._span(), level)

    def growth_rate(self, level: float | None = None) -> Interval:
        """Growth rate of the total queue (slope over the second half of the horizon), t interval across replications."""
        return self.ci(self.rep_growth[:, None], level)[0]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready summary (the CLI's ``--json`` object)."""
        ids = self.station_ids
        total_lost = (self.rep_lost.sum(axis=1) + self.rep_lost_feedback.sum(axis=1)) / self._span()
        return {
            "network": self.network,
            "horizon": self.horizon,
            "warmup": self.warmup,
            "replications": self.replications,
            "seed": self.seed,
            "events": self.events,
            "wall_s": round(self.wall_s, 4),
            "compile_s": round(self.compile_s, 4),
            "events_per_s": _num(self.events_per_s),
            "level": self.level,
            "mean_queue": {s: iv.to_json() for s, iv in zip(ids, self.mean_queue())},
            "throughput": {s: iv.to_json() for s, iv in zip(ids, self.throughput())},
            "growth_rate": self.growth_rate().to_json(),
            "loss_rate": {
                "total": self.ci(total_lost[:, None])[0].to_json(),
                "streams": [iv.to_json() for iv in self.loss_rate()],
                "feedback": {s: iv.to_json() for s, iv in zip(ids, self.feedback_loss_rate())},
            },
            "loss_fraction": [iv.to_json() for iv in self.loss_fraction()],
            "interrupted": self.interrupted,
        }

    def table(self) -> str:
        """A human-readable report."""
        pct = f"{self.level:.0%}"
        lines = [
            f"network: {self.network}",
            f"  horizon {self.horizon:g} (warmup {self.warmup:g}), {self.replications} replications, seed {self.seed}"
            + (" (interrupted)" if self.interrupted else ""),
            f"  {self.events} events in {self.wall_s:.3f} s ({self.events_per_s:.3g} events/s; "
            f"compile/cache load {self.compile_s:.2f} s)",
            f"  {'station':<10} {'mean queue (' + pct + ' CI)':<34} {'throughput (' + pct + ' CI)':<34}",
        ]
        for s, q, d in zip(self.station_ids, self.mean_queue(), self.throughput()):
            lines.append(f"  {s:<10} {_fmt(q):<34} {_fmt(d):<34}")
        g = self.growth_rate()
        lines.append(f"  total queue growth rate: {_fmt(g)} per unit time")
        if self.rep_lost.any() or self.rep_lost_feedback.any():
            for i, (r, f) in enumerate(zip(self.loss_rate(), self.loss_fraction())):
                lines.append(f"  stream {i}: lost {_fmt(r)} per unit time, fraction {_fmt(f)}")
            for s, r in zip(self.station_ids, self.feedback_loss_rate()):
                if r.estimate > 0:
                    lines.append(f"  feedback from {s}: lost {_fmt(r)} per unit time")
        return "\n".join(lines)


def _fmt(iv: Interval) -> str:
    if not math.isfinite(iv.lo):
        return f"{iv.estimate:.4g}"
    return f"{iv.estimate:.4g} [{iv.lo:.4g}, {iv.hi:.4g}]"


# ------------------------------------------------------------------ compilation
@dataclass(frozen=True)
class Compiled:
    """The tables the kernels work on (layout in :mod:`certify.simulation.kernel`)."""

    laws: np.ndarray  # (S + J, 4 + 2 * phases) float
    sets: np.ndarray  # (sets, 1 + J) int
    streams: np.ndarray  # (S, 2 + entries) int
    stream_cum: np.ndarray  # (S, entries) float
    fb: np.ndarray  # (J, 1 + entries) int
    fb_cum: np.ndarray  # (J, entries) float
    cap: np.ndarray  # (J,) int
    tb_mask: np.ndarray  # (ties,) int
    tb_prob: np.ndarray  # (ties, J) float

    @property
    def J(self) -> int:
        return int(self.cap.shape[0])

    @property
    def S(self) -> int:
        return int(self.streams.shape[0])

    def args(self) -> tuple[np.ndarray, ...]:
        return (self.laws, self.sets, self.streams, self.stream_cum, self.fb, self.fb_cum, self.cap,
                self.tb_mask, self.tb_prob)


def _law(dist: Distribution, rate: Fraction) -> list[float]:
    """The kernel row ``[code, a, b, m, p_0, r_0, ...]`` of ``dist`` with mean ``1/rate``.

    ``rate`` is the station's ``mu`` (the stream's ``rate``) as loaded, which for an
    explicit hyperexponential or Coxian law is exactly 1/mean of its phases
    (:mod:`certify.io.loader`); phase-type laws are taken from
    :func:`certify.markov.phases.phase_type`, the very law the Markov chain uses (its exact
    probabilities and rates, rounded once to floats), never re-normalised here.
    """
    from ..markov.phases import NotPhaseType, phase_type

    r = float(rate)
    if not (math.isfinite(r) and r > 0):
        raise NotSupported(f"cannot simulate {dist.describe()} with rate {rate}: the rate must be a positive "
                         "finite float (the loader keeps rates in [1e-9, 1e9])")
    p = dict(dist.params)
    name = dist.dist
    if dist.is_exponential:
        return [K.EXP, r, 0.0, 0.0]
    if name == "deterministic":
        return [K.DET, 1 / r, 0.0, 0.0]
    if name == "erlang":
        return [K.ERLANG, float(p["k"]), p["k"] * r, 0.0]
    if name == "gamma":
        scv = float(p["scv"])
        return [K.GAMMA, 1 / scv, scv / r, 0.0]
    if name == "lognormal":
        s2 = math.log1p(float(p["scv"]))
        return [K.LOGNORMAL, -math.log(r) - s2 / 2, math.sqrt(s2), 0.0]
    if name == "hyperexponential":
        try:
            ph = phase_type(dist, rate)
        except NotPhaseType as exc:
            if "probs" in p:
                raise NotSupported(f"cannot simulate {dist.describe()}: {exc}") from None
            # balanced-means H2 with irrational parameters: no Markov chain exists, floats are all there is
            c2 = float(p["scv"])
            p1 = (1 + math.sqrt((c2 - 1) / (c2 + 1))) / 2
            cum, rates = [p1, 1.0], [2 * p1 * r, 2 * (1 - p1) * r]
        else:
            acc, cum = Fraction(0), []
            for a in ph.alpha:
                acc += a
                cum.append(float(acc))  # the last is float(1) = 1.0 exactly
            rates = [float(x) for x in ph.exit]
        return [K.HYPER, 0.0, 0.0, len(rates)] + [v for pr in zip(cum, rates) for v in pr]
    if name == "coxian":
        # the kernel walks the Coxian's phases with the same exact rates and move-on probabilities as
        # phase_type's (exit rates rates[i] (1 - probs[i]), moves rates[i] probs[i])
        go = [float(q) for q in p["probs"]] + [0.0]
        rates = [float(x) for x in p["rates"]]
        return [K.COXIAN, 0.0, 0.0, len(rates)] + [v for pr in zip(go, rates) for v in pr]
    raise NotSupported(f"cannot simulate the distribution {dist.describe()}: the simulator samples exponential, "
                       "deterministic, Erlang, gamma, lognormal, hyperexponential and Coxian laws")


def _table(rows: list[list], dtype: type, width: int | None = None) -> np.ndarray:
    """Rows of different lengths as one zero-padded C-contiguous 2-D array."""
    w = max([len(r) for r in rows] + [width or 1])
    out: np.ndarray = np.zeros((len(rows), w), dtype=dtype)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out


def compile_network(net: Network) -> Compiled:
    """Flatten a network into the kernels' tables.

    Examples
    --------
    >>> from certify.io.loader import from_dict
    >>> net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 1}, "2": {"mu": 2, "capacity": 3}},
    ...                  "streams": [{"choice": ["1", "2"], "rate": 1.5}]})
    >>> c = compile_network(net)
    >>> c.J, c.S, c.cap.tolist(), c.sets.tolist()
    (2, 1, [9223372036854775807, 3], [[2, 0, 1]])
    """
    if isinstance(net, ForkJoinNetwork):
        raise NotSupported(f"{net.source or net.name}: simulation of fork-join-redundancy/1 networks is not supported "
                           "(the simulator handles jsq-network/1 networks)")
    ids = net.station_ids
    J = net.J
    laws = [_law(s.interarrival, s.rate) for s in net.streams] + [_law(st.service, st.mu) for st in net.stations]
    set_index: dict[tuple[int, ...], int] = {}

    def set_id(members: Sequence[str]) -> int:
        key = tuple(ids.index(m) for m in members)
        return set_index.setdefault(key, len(set_index))

    streams, stream_cum = [], []
    for sm in net.streams:
        if sm.choice is not None:
            streams.append([K.FIXED, 1, set_id(sm.choice)])
            stream_cum.append([1.0])
        elif sm.choices is not None:
            cum = [float(sum((q for _, q in sm.choices[: i + 1]), Fraction(0))) for i in range(len(sm.choices))]
            streams.append([K.CHOICES, len(sm.choices), *(set_id(c) for c, _ in sm.choices)])
            stream_cum.append(cum)
        else:
            assert sm.sample is not None
            streams.append([K.SAMPLE, sm.sample[1], set_id(sm.sample[0])])
            stream_cum.append([1.0])
    fb, fb_cum = [], []
    for st in net.stations:
        mine = [f for f in net.feedback if f.source == st.id]
        fb.append([len(mine), *(set_id(f.choice) for f in mine)])
        fb_cum.append([float(sum((f.prob for f in mine[: i + 1]), Fraction(0))) for i in range(len(mine))])
    if net.tie_breaking and J > 62:
        raise NotSupported(f"tie_breaking: tie-breaking probabilities are simulated for networks of at most 62 stations "
                           f"(this one has {J})")
    tb_prob = np.zeros((len(net.tie_breaking), J))
    for e, tb in enumerate(net.tie_breaking):
        for s, p in tb.probs:
            tb_prob[e, ids.index(s)] = float(p)
    cap = [K.NO_CAPACITY if st.capacity is None else st.capacity for st in net.stations]
    return Compiled(
        laws=_table(laws, np.float64),
        sets=_table([[len(m), *m] for m in set_index], np.int64),
        streams=_table(streams, np.int64),
        stream_cum=_table(stream_cum, np.float64),
        fb=_table(fb, np.int64),
        fb_cum=_table(fb_cum, np.float64),
        cap=np.asarray(cap, dtype=np.int64),
        tb_mask=np.asarray([sum(1 << ids.index(s) for s in tb.set) for tb in net.tie_breaking], dtype=np.int64),
        tb_prob=tb_prob,
    )


def check_x0(net: Network, x0: Sequence[int] | Mapping[str, int] | None) -> np.ndarray:
    """The initial queue lengths as an array; ``ValueError`` naming the rule when ``x0`` is not valid.

    ``x0`` is one non-negative integer per station (in the order of the file) or a
    map station id -> integer (missing stations start empty); each at most the
    station's capacity.

    >>> from certify.io.loader import from_dict
    >>> net = from_dict({"format": "jsq-network/1", "stations": {"a": {"mu": 1}, "b": {"mu": 1, "capacity": 2}},
    ...                  "streams": [{"choice": ["a", "b"], "rate": 1}]})
    >>> check_x0(net, {"a": 5}).tolist()
    [5, 0]
    >>> check_x0(net, [1, 3])
    Traceback (most recent call last):
    ...
    ValueError: x0[1] = 3 exceeds the capacity 2 of station "b"
    """
    J = net.J
    if x0 is None:
        return np.zeros(J, dtype=np.int64)
    if isinstance(x0, Mapping):
        unknown = [k for k in x0 if k not in net.station_ids]
        if unknown:
            raise ValueError(f"x0: unknown station {unknown[0]!r} (stations: {', '.join(net.station_ids)})")
        vals = [x0.get(s, 0) for s in net.station_ids]
    else:
        vals = list(x0)
        if len(vals) != J:
            raise ValueError(f"x0 has {len(vals)} entries; it needs one non-negative integer per station ({J})")
    out = []
    for i, (v, st) in enumerate(zip(vals, net.stations)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"x0[{i}] = {v!r} must be a non-negative integer")
        if st.capacity is not None and v > st.capacity:
            raise ValueError(f'x0[{i}] = {v} exceeds the capacity {st.capacity} of station "{st.id}"')
        out.append(int(v))
    return np.asarray(out, dtype=np.int64)


def replication_state(seed: int, r: int) -> np.ndarray:
    """The generator state (4 uint64 words) of replication ``r``: a function of ``(seed, r)`` only.

    >>> a, b = replication_state(1, 0), replication_state(1, 1)
    >>> bool((a == replication_state(1, 0)).all()), bool((a == b).any())
    (True, False)
    """
    return np.random.SeedSequence(seed, spawn_key=(r,)).generate_state(4, np.uint64)


def _growth(times: np.ndarray, samples: np.ndarray, horizon: float) -> float:
    """Least-squares slope of the total queue over the sample times in the second half of the horizon."""
    sel = times >= horizon / 2
    t = times[sel]
    if t.size < 2:
        return math.nan
    y = samples[sel].sum(axis=1).astype(float)
    tc = t - t.mean()
    return float((tc * (y - y.mean())).sum() / (tc * tc).sum())


# ------------------------------------------------------------------- simulate
def simulate(
    net: Network,
    horizon: float,
    replications: int = 10,
    seed: int = 0,
    x0: Sequence[int] | Mapping[str, int] | None = None,
    sample_every: float | None = None,
    progress: bool | None = None,
    warmup: float = 0.0,
    level: float = 0.95,
) -> SimulationResult:
    """Simulate ``replications`` independent runs of ``net`` over ``[0, horizon]``.

    Parameters
    ----------
    net : Network
        The network (every distribution and routing rule of the format).
    horizon : float
        Simulated time of each replication.
    replications : int
        Number of independent replications (confidence intervals need >= 2).
    seed : int
        Replication r uses a generator seeded from ``(seed, r)`` only: the same
        seed gives the same results, whatever the number of replications.
    x0 : sequence of int or mapping, optional
        Initial queue lengths (default empty); customers present at time 0 start
        service then (see :func:`check_x0`).
    sample_every : float, optional
        Grid step of the sampled queue lengths (default ``horizon / 1000``).
    progress : bool, optional
        Show a tqdm bar; default: only on a terminal and once a run lasts > 1 s.
    warmup : float
        Time averages, throughputs and losses count ``[warmup, horizon]`` only.
    level : float
        Confidence level of the intervals (t quantiles across replications).

    Returns
    -------
    SimulationResult
        Ctrl-C returns the replications finished so far (``interrupted=True``),
        or re-raises if none has finished.

    Examples
    --------
    >>> import certify
    >>> net = certify.loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 1}}, '
    ...                     '"streams": [{"choice": ["1"], "rate": 0.5}]}')
    >>> res = simulate(net, 2000.0, replications=4, seed=1)
    >>> q = res.mean_queue()[0]          # M/M/1: rho / (1 - rho) = 1
    >>> round(q.estimate, 1), q.lo < 1 < q.hi
    (1.0, True)
    >>> res.growth_rate().contains(0.0), abs(res.throughput()[0].estimate - 0.5) < 0.05
    (True, True)
    """
    horizon = float(horizon)
    if not (math.isfinite(horizon) and horizon > 0):
        raise ValueError(f"horizon = {horizon} must be a positive finite number")
    if isinstance(replications, bool) or not isinstance(replications, (int, np.integer)) or replications < 1:
        raise ValueError(f"replications = {replications!r} must be a positive integer")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed = {seed!r} must be a non-negative integer")
    warmup = float(warmup)
    if not (0 <= warmup < horizon):
        raise ValueError(f"warmup = {warmup} must be in [0, horizon)")
    if not 0 < level < 1:
        raise ValueError(f"level = {level} must be in (0, 1)")
    comp = compile_network(net)
    n0 = check_x0(net, x0)
    dt = horizon / 1000 if sample_every is None else float(sample_every)
    if not (math.isfinite(dt) and 0 < dt <= horizon):
        raise ValueError(f"sample_every = {sample_every} must be in (0, horizon]")
    npts = int(math.floor(horizon / dt * (1 + 1e-12))) + 1
    if npts > _MAX_GRID or npts * replications * comp.J > _MAX_SAMPLES:
        raise ValueError(f"sample_every = {dt:g} gives {npts} sample points per replication "
                         f"({npts * replications * comp.J} values in all; limits {_MAX_GRID} and {_MAX_SAMPLES}): make it larger")
    times = np.arange(npts) * dt
    J, S = comp.J, comp.S
    R = int(replications)
    args = comp.args()

    def fresh() -> tuple[np.ndarray, ...]:
        return (n0.copy(), np.empty(S + J), np.zeros(J), np.zeros(J), np.zeros(J, np.int64), np.zeros(S, np.int64),
                np.zeros(S, np.int64), np.zeros(J, np.int64), np.zeros((npts, J), np.int32), np.zeros(1),
                np.array([0, 0, int(warmup <= 0)], np.int64), replication_state(0, 0))

    init: Any = K.init  # numba dispatchers (typed loosely for mypy)
    run: Any = K.run
    t0 = time.perf_counter()
    st = fresh()
    init(comp.laws, st[0], st[1], st[-1])
    run(*args, *st, horizon, warmup, dt, 0)
    compile_s = time.perf_counter() - t0

    out: dict[str, list] = {k: [] for k in ("samples", "area", "dep", "arr", "lost", "lost_fb", "events")}
    bar = _bar(progress, R * horizon)
    interrupted = False
    wall0 = time.perf_counter()
    try:
        for r in range(R):
            st = fresh()
            n, clock, area, _last, dep, arr, lost, lost_fb, samples, tstate, istate, rng = st
            rng[:] = replication_state(int(seed), r)
            init(comp.laws, n, clock, rng)
            done = False
            while not done:
                before = tstate[0]
                done = run(*args, *st, horizon, warmup, dt, _CHUNK_EVENTS)
                if bar is not None:
                    bar.update(tstate[0] - before)
            for k, v in zip(out, (samples, area, dep, arr, lost, lost_fb, istate[1])):
                out[k].append(v)
    except KeyboardInterrupt:
        if not out["events"]:
            raise
        interrupted = True
    finally:
        if bar is not None:
            bar.close()
    wall = time.perf_counter() - wall0
    R = len(out["events"])
    span = horizon - warmup
    samples_arr = np.stack(out["samples"])
    return SimulationResult(
        network=net.name,
        station_ids=net.station_ids,
        horizon=horizon,
        warmup=warmup,
        seed=int(seed),
        times=times,
        samples=samples_arr,
        rep_mean_queue=np.stack(out["area"]) / span,
        rep_throughput=np.stack(out["dep"]) / span,
        rep_arrivals=np.stack(out["arr"]),
        rep_lost=np.stack(out["lost"]),
        rep_lost_feedback=np.stack(out["lost_fb"]),
        rep_growth=np.array([_growth(times, s, horizon) for s in samples_arr]),
        rep_events=np.array(out["events"], dtype=np.int64),
        wall_s=wall,
        compile_s=compile_s,
        interrupted=interrupted,
        level=level,
    )


def _bar(progress: bool | None, total: float) -> Any:
    """A tqdm bar over simulated time, or None."""
    if progress is False or (progress is None and not sys.stderr.isatty()):
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="t", unit_scale=True, delay=0 if progress else 1.0,
                desc="simulate", leave=False, file=sys.stderr)
