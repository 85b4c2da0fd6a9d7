"""The network flattened into the simulator kernels' tables (:func:`compile_network`, :class:`Compiled`).

Every service and interarrival law of the format becomes one row of ``laws``
with the mean given by its rate (phase-type laws exactly as the Markov chain
takes them); choice sets, streams, feedback and tie-breaking become the integer
and cumulative-probability tables laid out in :mod:`certify.simulation.kernel`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..core.errors import NotSupported
from ..core.model import Distribution, ForkJoinNetwork, Network
from . import kernel as K

__all__ = ["Compiled", "compile_network"]


@dataclass(frozen=True)
class Compiled:
    """The tables the kernels work on (layout in :mod:`certify.simulation.kernel`).

    Attributes
    ----------
    laws : numpy.ndarray
        (S + J, 4 + 2 * phases) float: one law per stream, then one per station.
    sets : numpy.ndarray
        (sets, 1 + J) int: ``[size, members...]`` of each choice set.
    streams : numpy.ndarray
        (S, 2 + entries) int: ``[kind, d or number of entries, set ids...]``.
    stream_cum : numpy.ndarray
        (S, entries) float: cumulative probabilities of a ``choices`` stream.
    fb : numpy.ndarray
        (J, 1 + entries) int: ``[entries, set ids...]`` of each station's feedback.
    fb_cum : numpy.ndarray
        (J, entries) float: cumulative feedback probabilities.
    cap : numpy.ndarray
        (J,) int: capacities (``NO_CAPACITY`` for none).
    tb_mask : numpy.ndarray
        (ties,) int: bit mask of each tie-breaking entry's tied set.
    tb_prob : numpy.ndarray
        (ties, J) float: its probability per station.

    Examples
    --------
    >>> from certify.io.loader import from_dict
    >>> net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 1}, "2": {"mu": 2, "capacity": 3}},
    ...                  "streams": [{"choice": ["1", "2"], "rate": 1.5}]})
    >>> c = compile_network(net)
    >>> c.laws.tolist()  # the stream's exponential law, then the stations'
    [[0.0, 1.5, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0]]
    """

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
        """Number of stations."""
        return int(self.cap.shape[0])

    @property
    def S(self) -> int:
        """Number of streams."""
        return int(self.streams.shape[0])

    def args(self) -> tuple[np.ndarray, ...]:
        """The tables in the order of the first arguments of :func:`certify.simulation.kernel.run`.

        Returns
        -------
        tuple of numpy.ndarray
            ``laws, sets, streams, stream_cum, fb, fb_cum, cap, tb_mask, tb_prob``.

        Examples
        --------
        >>> from certify.io.loader import from_dict
        >>> net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 1}, "2": {"mu": 2, "capacity": 3}},
        ...                  "streams": [{"choice": ["1", "2"], "rate": 1.5}]})
        >>> len(compile_network(net).args())
        9
        """
        return (self.laws, self.sets, self.streams, self.stream_cum, self.fb, self.fb_cum, self.cap,
                self.tb_mask, self.tb_prob)


def _law(dist: Distribution, rate: Fraction) -> list[float]:
    """The kernel row ``[code, a, b, m, p_0, r_0, ...]`` of ``dist`` with mean ``1/rate``.

    ``rate`` is the station's ``mu`` (the stream's ``rate``) as loaded, which for an
    explicit hyperexponential or Coxian law is exactly 1/mean of its phases
    (:mod:`certify.io.loader`); phase-type laws are taken from
    :func:`certify.markov.laws.phase_type`, the very law the Markov chain uses (its exact
    probabilities and rates, rounded once to floats), never re-normalised here.
    """
    from ..markov.laws import NotPhaseType, phase_type

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
        from ..markov.laws import coxian2

        exact_rates, exact_go = coxian2(p["scv"], rate) if "scv" in p else (p["rates"], p["probs"])
        go = [float(q) for q in exact_go] + [0.0]
        rates = [float(x) for x in exact_rates]
        return [K.COXIAN, 0.0, 0.0, len(rates)] + [v for pr in zip(go, rates) for v in pr]
    raise NotSupported(f"cannot simulate the distribution {dist.describe()}: the simulator samples exponential, "
                       "deterministic, Erlang, gamma, lognormal, hyperexponential and Coxian laws")


def _table(rows: Sequence[Sequence[float]], dtype: type, width: int | None = None) -> np.ndarray:
    """Rows of different lengths as one zero-padded C-contiguous 2-D array."""
    w = max([len(r) for r in rows] + [width or 1])
    out: np.ndarray = np.zeros((len(rows), w), dtype=dtype)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out


def compile_network(net: Network) -> Compiled:
    """Flatten a network into the kernels' tables.

    Parameters
    ----------
    net : Network
        A ``jsq-network/1`` network.

    Returns
    -------
    Compiled
        The tables of :mod:`certify.simulation.kernel`.

    Raises
    ------
    NotSupported
        For a fork-join network, a law the simulator does not sample (or a
        rate that is not a positive finite float), or tie-breaking
        probabilities with more than 62 stations.

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
