"""Simulate a JSQ network: many independent replications of an event-driven, numba-compiled simulator.

:func:`simulate` runs the network of a :class:`~certify.core.model.Network` with its
exact semantics (``docs/math/model.md``, ``docs/guide/format.md``): join the shortest
queue (customers present, the one in service included) among the choice set —
fixed, drawn per arrival (``choices``) or d distinct stations drawn uniformly
(``sample``) — with the tie-breaking probabilities of the exactly tied set
(default uniform), feedback routed again after the customer has left its
station, capacities (JSQ over the non-full stations of the set; a customer whose
set holds only full stations is lost and counted).  Every service and
interarrival law of the format is sampled with the mean given by its rate (the
tables of :func:`~certify.simulation.tables.compile_network`, run by the kernels
of :mod:`certify.simulation.kernel`).

The result (:class:`~certify.simulation.result.SimulationResult`) holds the
queue lengths sampled on a grid, time-average queue lengths, throughputs and
loss rates per replication, with confidence intervals across replications, and
the growth rate of the total queue (docs/math/instability.md).  Simulation evidence is never a
proof.

Replication r is seeded with a seed derived from ``(seed, r)`` alone, so its
outcome does not depend on how many replications run.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..core.model import Network
from . import kernel as K
from .result import SimulationResult
from .tables import compile_network

# SimulationResult (of .result) is re-exported: certify.SimulationResult and the CLI import it from here.
__all__ = ["simulate", "check_x0", "replication_state", "SimulationResult"]

_CHUNK_EVENTS = 1 << 21  # events per kernel call: Ctrl-C and the progress bar act between calls
_MAX_GRID = 1_000_000  # sample points per replication
_MAX_SAMPLES = 50_000_000  # sample values in all (replications x points x stations)


def check_x0(net: Network, x0: Sequence[int] | Mapping[str, int] | None) -> np.ndarray:
    """The initial queue lengths as an array; ``ValueError`` naming the rule when ``x0`` is not valid.

    Parameters
    ----------
    net : Network
        The network.
    x0 : sequence of int or mapping of str to int or None
        One non-negative integer per station (in the order of the file) or a
        map station id -> integer (missing stations start empty); each at most
        the station's capacity.  None: every station empty.

    Returns
    -------
    numpy.ndarray
        The queue lengths (int64), one per station in model order.

    Raises
    ------
    ValueError
        For a wrong number of entries, an unknown station id, a value that is
        not a non-negative integer, or one above its station's capacity.

    Examples
    --------
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

    Parameters
    ----------
    seed : int
        The user's seed (non-negative).
    r : int
        The replication's index.

    Returns
    -------
    numpy.ndarray
        Four uint64 words, the xoshiro256+ state the kernels of
        :mod:`certify.simulation.kernel` start from.

    Examples
    --------
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

    Raises
    ------
    ValueError
        For a horizon, replications, seed, warmup, level, ``x0`` or
        ``sample_every`` out of range (the message names the rule).
    NotSupported
        For a fork-join network or a law the simulator does not sample
        (:func:`~certify.simulation.tables.compile_network`).

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

    out: dict[str, list[Any]] = {k: [] for k in ("samples", "area", "dep", "arr", "lost", "lost_fb", "events")}
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
