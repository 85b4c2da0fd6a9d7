"""numba kernels of the event-driven JSQ network simulator.

The state of one replication is the queue-length vector ``n`` and one clock per
event source: the next arrival of every stream and the next departure of every
busy station.  FIFO single servers need no per-customer records: the service
time of a customer is drawn when its service starts, so the memory used does not
grow with the horizon.

The kernels work on a few flat tables built by
:func:`certify.simulation.simulate.compile_network` (few array arguments per call: numba
reference-counts every array passed to a function, which would dominate the cost
of an event; the generator state travels as a tuple for the same reason).
Randomness comes only from the xoshiro256+ state ``rng`` (four uint64 words)
passed to every kernel: a replication's state is derived from the user's seed
and its index, so runs are reproducible and independent of numpy's and numba's
global generators.

``laws[l]`` (one row per stream, then one per station) is
``[code, a, b, m, p_0, r_0, p_1, r_1, ...]`` with the mean fixed by the rate:

=========  ==========================================================
code       law and its parameters
=========  ==========================================================
EXP        exponential: a = rate (256-layer ziggurat)
DET        deterministic: a = 1/rate
ERLANG     Erlang: a = k, b = k * rate (product of k uniforms; gamma for k > 50)
GAMMA      gamma: a = shape, b = scale (Marsaglia-Tsang)
LOGNORMAL  lognormal: a = mean of the log, b = sd of the log
HYPER      hyperexponential: m phases, p_i cumulative probs, r_i rates
COXIAN     Coxian: m phases, r_i rates, p_i prob of moving on from phase i
=========  ==========================================================

Routing tables: ``sets[c] = [size, members...]``; ``streams[s] = [kind, d or
number of entries, set ids...]`` with ``stream_cum[s]`` the cumulative
probabilities of a ``choices`` stream; ``fb[i] = [entries, set ids...]`` with
``fb_cum[i]`` cumulative feedback probabilities; ``tb_mask``/``tb_prob`` the
tie-breaking table (bit mask of the tied set, probability per station).

Only :func:`init`, :func:`run`, :func:`sample_law` and the table codes are for
other modules (:mod:`certify.simulation.tables` writes the codes,
:mod:`certify.simulation.simulate` calls the kernels); the samplers and the
generator are private to the kernels.  The docstrings have no ``>>>`` examples:
compiling a kernel takes seconds on a cold cache (use
:func:`certify.simulation.simulate.simulate`, whose example runs them).

The samplers and the event loop stay in this one module on purpose: numba's
on-disk cache (``cache=True``) is invalidated only when the file of the cached
function changes, not when a jitted function it calls from another file does,
so splitting them would let a stale compiled ``run`` outlive an edited sampler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

if TYPE_CHECKING:
    import numpy.typing as npt

    # numba ignores these annotations (it types the kernels from their arguments); they are for mypy and readers.
    _State = tuple[np.uint64, np.uint64, np.uint64, np.uint64]  # the xoshiro256+ state
    _F64 = npt.NDArray[np.float64]
    _I64 = npt.NDArray[np.int64]
    _U64 = npt.NDArray[np.uint64]

__all__ = [
    "EXP", "DET", "ERLANG", "GAMMA", "LOGNORMAL", "HYPER", "COXIAN",
    "FIXED", "CHOICES", "SAMPLE", "NO_CAPACITY",
    "sample_law", "init", "run",
]

#: Law codes (column 0 of ``laws``); codes < HYPER need no phase table.
EXP, DET, ERLANG, GAMMA, LOGNORMAL, HYPER, COXIAN = range(7)
#: Stream kinds (column 0 of ``streams``): a fixed choice set, ``choices`` drawn per arrival, ``sample`` of d stations.
FIXED, CHOICES, SAMPLE = range(3)
#: The capacity of a station without one (``cap``).
NO_CAPACITY = np.iinfo(np.int64).max
_M53 = 1.0 / 9007199254740992.0  # 2**-53


@njit(cache=True)
def _bits(st: _State) -> tuple[np.uint64, _State]:
    """The next 64 raw bits (as uint64) and state."""
    s0, s1, s2, s3 = st
    result = s0 + s3
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << np.uint64(45)) | (s3 >> np.uint64(19))
    return result, (s0, s1, s2, s3)


@njit(cache=True)
def _uniform(st: _State) -> tuple[float, _State]:
    """``(u, st')``: a uniform double in [0, 1) and the next xoshiro256+ state (a 4-tuple of uint64).

    The state is a tuple, not an array: numba reference-counts arrays passed to
    functions, which would cost more than the generator itself.
    """
    r, st = _bits(st)
    return float(r >> np.uint64(11)) * _M53, st


def _ziggurat_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tables of the 256-layer exponential ziggurat (Marsaglia and Tsang 2000) for 56-bit integers."""
    m = 2.0**56
    de = te = 7.697117470131487
    ve = 3.949659822581572e-3
    q = ve / np.exp(-de)
    ke, we, fe = np.zeros(256, np.int64), np.zeros(256), np.zeros(256)
    ke[0] = int(de / q * m)
    we[0], we[255] = q / m, de / m
    fe[0], fe[255] = 1.0, np.exp(-de)
    for i in range(254, 0, -1):
        de = -np.log(ve / de + np.exp(-de))
        ke[i + 1] = int(de / te * m)
        te = de
        fe[i] = np.exp(-de)
        we[i] = de / m
    return ke, we, fe


_KE, _WE, _FE = _ziggurat_tables()
_ZR = 7.697117470131487  # start of the ziggurat's tail


@njit(cache=True)
def _exp_slow(i: int, j: int, st: _State) -> tuple[float, _State]:
    """The ziggurat's rare branch: the tail layer or a wedge test."""
    while True:
        if i == 0:
            u, st = _uniform(st)
            return _ZR - np.log(1.0 - u), st
        x = j * _WE[i]
        u, st = _uniform(st)
        if _FE[i] + u * (_FE[i - 1] - _FE[i]) < np.exp(-x):
            return x, st
        r, st = _bits(st)
        i = int(r >> np.uint64(56))
        j = int(r & np.uint64(0xFFFFFFFFFFFFFF))
        if j < _KE[i]:
            return j * _WE[i], st


@njit(cache=True, inline="always")
def _exponential(st: _State, rate: float) -> tuple[float, _State]:
    """``(x, st')``: an exponential variate of rate ``rate`` (ziggurat: mostly one table look-up, no logarithm)."""
    r, st = _bits(st)
    i = int(r >> np.uint64(56))  # top 8 bits: the layer; low 56: the position
    j = int(r & np.uint64(0xFFFFFFFFFFFFFF))
    if j < _KE[i]:
        return j * _WE[i] / rate, st
    x, st = _exp_slow(i, j, st)
    return x / rate, st


@njit(cache=True)
def _normal(st: _State) -> tuple[float, _State]:
    """A standard normal variate (Marsaglia's polar method)."""
    while True:
        u, st = _uniform(st)
        v, st = _uniform(st)
        u = 2.0 * u - 1.0
        v = 2.0 * v - 1.0
        q = u * u + v * v
        if 0.0 < q < 1.0:
            return u * np.sqrt(-2.0 * np.log(q) / q), st


@njit(cache=True)
def _gamma(st: _State, shape: float, scale: float) -> tuple[float, _State]:
    """A gamma variate (Marsaglia-Tsang; shape < 1 by boosting with U**(1/shape))."""
    boost = 1.0
    if shape < 1.0:
        u, st = _uniform(st)
        boost = (1.0 - u) ** (1.0 / shape)
        shape += 1.0
    d = shape - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    while True:
        x, st = _normal(st)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u, st = _uniform(st)
        if np.log(1.0 - u) < 0.5 * x * x + d - d * v + d * np.log(v):
            return d * v * scale * boost, st


@njit(cache=True)
def _simple(code: float, a: float, b: float, st: _State) -> tuple[float, _State]:
    """A sample of a law without phase table (code < HYPER) with parameters ``a``, ``b``."""
    if code == EXP:
        return _exponential(st, a)
    if code == DET:
        return a, st
    if code == ERLANG:
        if a > 50.0:  # the product of many uniforms would underflow
            return _gamma(st, a, 1.0 / b)
        p = 1.0
        for _ in range(int(a)):
            u, st = _uniform(st)
            p *= 1.0 - u
        return -np.log(p) / b, st
    if code == GAMMA:
        return _gamma(st, a, b)
    x, st = _normal(st)  # LOGNORMAL
    return np.exp(a + b * x), st


@njit(cache=True)
def _phased(laws: _F64, law: int, st: _State) -> tuple[float, _State]:
    """A sample of a hyperexponential or Coxian law (row ``law`` of ``laws``)."""
    m = int(laws[law, 3])
    i = 0
    if laws[law, 0] == HYPER:
        u, st = _uniform(st)
        while i < m - 1 and u >= laws[law, 4 + 2 * i]:
            i += 1
        return _exponential(st, laws[law, 5 + 2 * i])
    t = 0.0  # COXIAN
    while True:
        x, st = _exponential(st, laws[law, 5 + 2 * i])
        t += x
        if i == m - 1:
            return t, st
        u, st = _uniform(st)
        if u >= laws[law, 4 + 2 * i]:
            return t, st
        i += 1


@njit(cache=True)
def _draw(laws: _F64, law: int, st: _State) -> tuple[float, _State]:
    """``(x, st')``: one sample of law ``law``."""
    if laws[law, 0] < HYPER:
        return _simple(laws[law, 0], laws[law, 1], laws[law, 2], st)
    return _phased(laws, law, st)


@njit(cache=True)
def _state(rng: _U64) -> _State:
    """The 4-tuple state of a uint64 array of 4 words."""
    return (rng[0], rng[1], rng[2], rng[3])


@njit(cache=True)
def sample_law(laws: _F64, law: int, rng: _U64, size: int) -> _F64:
    """``size`` samples of law ``law`` (for checks of the samplers).

    Parameters
    ----------
    laws : numpy.ndarray
        The law table (float64, one row per law, layout above).
    law : int
        The row to sample.
    rng : numpy.ndarray
        The generator state (4 uint64 words,
        :func:`~certify.simulation.simulate.replication_state`); advanced in place.
    size : int
        Number of samples.

    Returns
    -------
    numpy.ndarray
        ``size`` float64 samples.
    """
    out = np.empty(size)
    st = _state(rng)
    for i in range(size):
        out[i], st = _draw(laws, law, st)
    rng[0], rng[1], rng[2], rng[3] = st
    return out


@njit(cache=True)
def init(laws: _F64, n: _I64, clock: _F64, rng: _U64) -> None:
    """Start a replication at time 0 in state ``n``: first arrivals, services of the busy stations.

    Parameters
    ----------
    laws : numpy.ndarray
        The law table (S stream rows, then J station rows).
    n : numpy.ndarray
        (J,) int64 queue lengths at time 0.
    clock : numpy.ndarray
        (S + J,) float64, filled in place: each stream's first arrival, each
        busy station's first departure (inf when idle).
    rng : numpy.ndarray
        The generator state (4 uint64 words); advanced in place.

    Returns
    -------
    None
    """
    J = n.shape[0]
    S = clock.shape[0] - J
    st = _state(rng)
    for s in range(S):
        clock[s], st = _draw(laws, s, st)
    for j in range(J):
        clock[S + j] = np.inf
        if n[j] > 0:
            clock[S + j], st = _draw(laws, S + j, st)
    rng[0], rng[1], rng[2], rng[3] = st


@njit(cache=True)
def run(
    laws: _F64, sets: _I64, streams: _I64, stream_cum: _F64, fb: _I64, fb_cum: _F64, cap: _I64, tb_mask: _I64,
    tb_prob: _F64, n: _I64, clock: _F64, area: _F64, last: _F64, departures: _I64, arrivals: _I64, lost: _I64,
    lost_fb: _I64, samples: npt.NDArray[np.int32], tstate: _F64, istate: _I64, rng: _U64,
    horizon: float, warmup: float, dt: float, max_events: int,
) -> bool:
    """Advance one replication by at most ``max_events`` events; True once it has reached ``horizon``.

    ``tstate = [t]``; ``istate = [next grid index, events, past warmup]``.  ``area``
    (integral of n_j over [warmup, t]), ``last`` (time of n_j's last change) and
    the counters (after ``warmup``) accumulate; ``samples[k]`` is ``n`` at time
    ``k * dt``.  Every array after the tables is state, updated in place, so
    consecutive calls continue the same replication.

    Parameters
    ----------
    laws, sets, streams, stream_cum, fb, fb_cum, cap, tb_mask, tb_prob : numpy.ndarray
        The tables (:meth:`certify.simulation.tables.Compiled.args`).
    n, clock, area, last, departures, arrivals, lost, lost_fb, samples, tstate, istate, rng : numpy.ndarray
        The replication's state (queue lengths, event clocks, time integrals,
        counters, the sample grid, time, indices and the generator state).
    horizon, warmup, dt : float
        End of the run, start of the counting, grid step.
    max_events : int
        The most events in this call (0: none, as in the compile call).

    Returns
    -------
    bool
        True once the replication has reached ``horizon``.
    """
    J = n.shape[0]
    S = streams.shape[0]
    E = S + J
    K = samples.shape[0]
    T = tb_mask.shape[0]
    pool = np.empty(J, np.int64)
    tied = np.empty(J, np.int64)
    t = tstate[0]
    g = istate[0]
    events = istate[1]
    warmed = istate[2]
    done = False
    st = _state(rng)
    stop = events + max_events
    while events < stop:
        # the next event: a linear scan (few sources)
        k = 0
        tn = clock[0]
        for e in range(1, E):
            if clock[e] < tn:
                tn = clock[e]
                k = e
        if tn > horizon:
            tn = horizon
            done = True
        while g < K and g * dt < tn:
            for j in range(J):
                samples[g, j] = n[j]
            g += 1
        if warmed == 0 and tn >= warmup:
            for j in range(J):
                area[j] = 0.0
                last[j] = warmup
                departures[j] = 0
                lost_fb[j] = 0
            for s in range(S):
                arrivals[s] = 0
                lost[s] = 0
            warmed = 1
        t = tn
        if done:
            while g < K and g * dt <= horizon:
                for j in range(J):
                    samples[g, j] = n[j]
                g += 1
            for j in range(J):
                area[j] += n[j] * (t - last[j])
                last[j] = t
            break
        events += 1
        # ---- the candidate stations: pool[0:m]
        if k < S:
            if laws[k, 0] < HYPER:
                x, st = _simple(laws[k, 0], laws[k, 1], laws[k, 2], st)
            else:
                x, st = _phased(laws, k, st)
            clock[k] = t + x
            arrivals[k] += 1
            kind = streams[k, 0]
            if kind == SAMPLE:  # d distinct stations of the pool set, uniformly (partial Fisher-Yates)
                c = streams[k, 2]
                size = sets[c, 0]
                for q in range(size):
                    pool[q] = sets[c, 1 + q]
                m = streams[k, 1]
                for q in range(m):
                    u, st = _uniform(st)
                    r = q + int(u * (size - q))
                    y = pool[q]
                    pool[q] = pool[r]
                    pool[r] = y
            else:
                e = 0
                if kind == CHOICES:
                    u, st = _uniform(st)
                    while e < streams[k, 1] - 1 and u >= stream_cum[k, e]:
                        e += 1
                c = streams[k, 2 + e]
                m = sets[c, 0]
                for q in range(m):
                    pool[q] = sets[c, 1 + q]
        else:
            i = k - S
            area[i] += n[i] * (t - last[i])
            last[i] = t
            n[i] -= 1
            departures[i] += 1
            clock[k] = np.inf
            if n[i] > 0:
                if laws[k, 0] < HYPER:
                    x, st = _simple(laws[k, 0], laws[k, 1], laws[k, 2], st)
                else:
                    x, st = _phased(laws, k, st)
                clock[k] = t + x
            nfb = fb[i, 0]
            if nfb == 0:
                continue
            u, st = _uniform(st)
            e = 0
            while e < nfb and u >= fb_cum[i, e]:
                e += 1
            if e == nfb:
                continue  # leaves the network
            c = fb[i, 1 + e]
            m = sets[c, 0]
            for q in range(m):
                pool[q] = sets[c, 1 + q]
        # ---- join the shortest non-full queue among the candidates
        best = NO_CAPACITY
        cnt = 0
        for q in range(m):
            j = pool[q]
            nj = n[j]
            if nj >= cap[j]:
                continue
            if nj < best:
                best = nj
                tied[0] = j
                cnt = 1
            elif nj == best:
                tied[cnt] = j
                cnt += 1
        if cnt == 0:
            if k < S:
                lost[k] += 1
            else:
                lost_fb[k - S] += 1
            continue
        j = tied[0]
        if cnt > 1:
            j = -1
            if T > 0:
                mask = 0
                for q in range(cnt):
                    mask |= 1 << tied[q]
                for e in range(T):
                    if tb_mask[e] == mask:
                        u, st = _uniform(st)
                        acc = 0.0
                        for q in range(cnt):
                            p = tb_prob[e, tied[q]]
                            if p > 0.0:
                                j = tied[q]
                                acc += p
                                if u < acc:
                                    break
                        break
            if j < 0:
                u, st = _uniform(st)
                j = tied[int(u * cnt)]
        area[j] += n[j] * (t - last[j])
        last[j] = t
        n[j] += 1
        if n[j] == 1:
            if laws[S + j, 0] < HYPER:
                x, st = _simple(laws[S + j, 0], laws[S + j, 1], laws[S + j, 2], st)
            else:
                x, st = _phased(laws, S + j, st)
            clock[S + j] = t + x
    tstate[0] = t
    istate[0] = g
    istate[1] = events
    istate[2] = warmed
    rng[0], rng[1], rng[2], rng[3] = st
    return done
