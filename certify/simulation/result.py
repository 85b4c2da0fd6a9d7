"""The outcome of a simulation: :class:`SimulationResult`, its confidence intervals (:class:`Interval`) and reports.

Per-replication arrays (replication first) and their summaries across
replications: time-average queue lengths, throughputs and loss rates with t
confidence intervals, and the growth rate of the total queue (docs/math/instability.md).
Simulation evidence is never a proof.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.jsontypes import JsonObject

__all__ = ["Interval", "SimulationResult"]


@dataclass(frozen=True)
class Interval:
    """An estimate with a confidence interval ``[lo, hi]`` (NaN when it cannot be estimated).

    Attributes
    ----------
    estimate : float
        The point estimate (the mean across replications).
    lo, hi : float
        The ends of the confidence interval (NaN with fewer than two replications).

    Examples
    --------
    >>> iv = Interval(1.0, 0.5, 1.5)
    >>> iv.contains(1.2), iv.contains(2.0)
    (True, False)
    """

    estimate: float
    lo: float
    hi: float

    def contains(self, x: float) -> bool:
        """Whether ``x`` lies in ``[lo, hi]`` (never, when the interval is NaN).

        Parameters
        ----------
        x : float
            The value.

        Returns
        -------
        bool
            ``lo <= x <= hi``.

        Examples
        --------
        >>> Interval(1.0, float("nan"), float("nan")).contains(1.0)
        False
        """
        return bool(self.lo <= x <= self.hi)

    def to_json(self) -> JsonObject:
        """The interval as ``{"estimate": ..., "ci": [lo, hi]}`` (a non-finite number becomes None).

        Returns
        -------
        dict
            The JSON-ready interval.

        Examples
        --------
        >>> Interval(1.0, 0.5, 1.5).to_json()
        {'estimate': 1.0, 'ci': [0.5, 1.5]}
        >>> Interval(2.0, float("nan"), float("nan")).to_json()
        {'estimate': 2.0, 'ci': [None, None]}
        """
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
    """Outcome of :func:`~certify.simulation.simulate.simulate`: per-replication arrays and their summaries.

    Per-replication arrays have the replication as first axis.  Time averages,
    throughputs and loss counts cover ``[warmup, horizon]``.

    Attributes
    ----------
    network : str
        The network's name.
    station_ids : tuple of str
        Station ids, in model order.
    horizon, warmup : float
        Simulated time of each replication, and the time before which nothing is counted.
    seed : int
        The seed of the run.
    times : numpy.ndarray
        (K,) the sample grid.
    samples : numpy.ndarray
        (R, K, J) queue lengths at the grid times.
    rep_mean_queue : numpy.ndarray
        (R, J) time-average queue lengths.
    rep_throughput : numpy.ndarray
        (R, J) departures per unit time.
    rep_arrivals : numpy.ndarray
        (R, S) exogenous arrivals per stream (lost ones included).
    rep_lost : numpy.ndarray
        (R, S) exogenous arrivals lost (all stations of their set full).
    rep_lost_feedback : numpy.ndarray
        (R, J) feedback customers from each station lost.
    rep_growth : numpy.ndarray
        (R,) least-squares slope of the total queue over the second half.
    rep_events : numpy.ndarray
        (R,) events (arrivals and departures) simulated.
    wall_s : float
        Simulation wall time, compilation excluded.
    compile_s : float
        numba compilation (or cache load) time.
    interrupted : bool
        True when Ctrl-C stopped the run (the finished replications are kept).
    level : float
        Default confidence level of the summaries.

    Examples
    --------
    M/M/1/1 with lam = mu = 1 (half the arrivals are lost):

    >>> import certify
    >>> from certify.simulation.simulate import simulate
    >>> net = certify.loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 1, "capacity": 1}}, '
    ...                     '"streams": [{"choice": ["1"], "rate": 1}]}')
    >>> res = simulate(net, 200.0, replications=4, seed=1, progress=False)
    >>> res.replications, res.samples.shape, res.times[:3].tolist()
    (4, (4, 1001, 1), [0.0, 0.2, 0.4])
    >>> round(res.loss_fraction()[0].estimate, 1)
    0.5
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
        """Number of replications finished."""
        return int(self.rep_events.shape[0])

    @property
    def events(self) -> int:
        """Events simulated, all replications together."""
        return int(self.rep_events.sum())

    @property
    def events_per_s(self) -> float:
        """Simulation speed: events per wall-clock second (compilation excluded)."""
        return self.events / self.wall_s if self.wall_s > 0 else math.inf

    def _span(self) -> float:
        return self.horizon - self.warmup

    def ci(self, values: np.ndarray, level: float | None = None) -> list[Interval]:
        """t confidence intervals (across replications) of each column of ``values`` (R, m).

        Parameters
        ----------
        values : numpy.ndarray
            (R, m) one row per replication.
        level : float, optional
            Confidence level (default :attr:`level`).

        Returns
        -------
        list of Interval
            One per column.

        Examples
        --------
        >>> import certify
        >>> res = certify.simulate(certify.load("models/loss-two-queue-K3.json"), 200.0, replications=4, seed=1, progress=False)
        >>> iv = res.ci(res.rep_events[:, None].astype(float))[0]
        >>> iv.lo < iv.estimate < iv.hi
        True
        """
        mean, half = _t_half(np.asarray(values, dtype=float), self.level if level is None else level)
        return [Interval(float(m), float(m - h), float(m + h)) for m, h in zip(mean, half)]

    def mean_queue(self, level: float | None = None) -> list[Interval]:
        """Time-average queue length of each station, with its confidence interval.

        Parameters
        ----------
        level : float, optional
            Confidence level (default :attr:`level`).

        Returns
        -------
        list of Interval
            One per station, in model order.

        Examples
        --------
        >>> import certify
        >>> res = certify.simulate(certify.load("models/loss-two-queue-K3.json"), 200.0, replications=4, seed=1, progress=False)
        >>> [round(iv.estimate, 1) for iv in res.mean_queue()]
        [1.3, 1.3]
        """
        return self.ci(self.rep_mean_queue, level)

    def throughput(self, level: float | None = None) -> list[Interval]:
        """Departures per unit time of each station.

        Parameters
        ----------
        level : float, optional
            Confidence level (default :attr:`level`).

        Returns
        -------
        list of Interval
            One per station, in model order.

        Examples
        --------
        >>> import certify
        >>> res = certify.simulate(certify.load("models/loss-two-queue-K3.json"), 200.0, replications=4, seed=1, progress=False)
        >>> [round(iv.estimate, 2) for iv in res.throughput()]
        [0.75, 0.67]
        """
        return self.ci(self.rep_throughput, level)

    def loss_rate(self, level: float | None = None) -> list[Interval]:
        """Exogenous customers lost per unit time, per stream.

        Parameters
        ----------
        level : float, optional
            Confidence level (default :attr:`level`).

        Returns
        -------
        list of Interval
            One per stream, in file order.

        Examples
        --------
        >>> import certify
        >>> res = certify.simulate(certify.load("models/loss-two-queue-K3.json"), 200.0, replications=4, seed=1, progress=False)
        >>> round(res.loss_rate()[0].estimate, 2)  # 1.6 * 0.0827 exactly
        0.13
        """
        return self.ci(self.rep_lost / self._span(), level)

    def loss_fraction(self, level: float | None = None) -> list[Interval]:
        """Fraction of each stream's arrivals that are lost (the blocking probability, by PASTA for Poisson).

        Parameters
        ----------
        level : float, optional
            Confidence level (default :attr:`level`).

        Returns
        -------
        list of Interval
            One per stream, in file order.

        Examples
        --------
        >>> import certify
        >>> res = certify.simulate(certify.load("models/loss-two-queue-K3.json"), 200.0, replications=4, seed=1, progress=False)
        >>> round(res.loss_fraction()[0].estimate, 2)  # the closed form: 0.0827
        0.08
        """
        return self.ci(self.rep_lost / np.maximum(self.rep_arrivals, 1), level)

    def feedback_loss_rate(self, level: float | None = None) -> list[Interval]:
        """Feedback customers from each station lost per unit time.

        Parameters
        ----------
        level : float, optional
            Confidence level (default :attr:`level`).

        Returns
        -------
        list of Interval
            One per station, in model order.

        Examples
        --------
        >>> import certify
        >>> res = certify.simulate(certify.load("models/loss-two-queue-K3.json"), 200.0, replications=4, seed=1, progress=False)
        >>> [iv.estimate for iv in res.feedback_loss_rate()]  # no feedback in this network
        [0.0, 0.0]
        """
        return self.ci(self.rep_lost_feedback / self._span(), level)

    def growth_rate(self, level: float | None = None) -> Interval:
        """Growth rate of the total queue (slope over the second half of the horizon), t interval across replications.

        Parameters
        ----------
        level : float, optional
            Confidence level (default :attr:`level`).

        Returns
        -------
        Interval
            The growth rate per unit time.

        Examples
        --------
        >>> import certify
        >>> res = certify.simulate(certify.load("models/loss-two-queue-K3.json"), 200.0, replications=4, seed=1, progress=False)
        >>> abs(res.growth_rate().estimate) < 0.05  # a loss system cannot grow
        True
        """
        return self.ci(self.rep_growth[:, None], level)[0]

    def to_json(self) -> JsonObject:
        """A JSON-ready summary (the CLI's ``--json`` object).

        Returns
        -------
        dict
            Run parameters, events and timings, and the intervals of the
            summaries (per station keyed by id, per stream as lists).

        Examples
        --------
        >>> import certify
        >>> res = certify.simulate(certify.load("models/loss-two-queue-K3.json"), 200.0, replications=4, seed=1, progress=False)
        >>> obj = res.to_json()
        >>> obj["replications"], obj["seed"], sorted(obj["loss_rate"])
        (4, 1, ['feedback', 'streams', 'total'])
        """
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
        """A human-readable report (what ``certify simulate`` prints).

        Returns
        -------
        str
            The run, then one line per station and the growth and loss lines.

        Examples
        --------
        >>> import certify
        >>> res = certify.simulate(certify.load("models/loss-two-queue-K3.json"), 200.0, replications=4, seed=1, progress=False)
        >>> print(res.table().splitlines()[1])
          horizon 200 (warmup 0), 4 replications, seed 1
        """
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
