"""The result of a stationary solve: :class:`StationaryResult` and its :class:`TruncationError`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..core.jsontypes import JsonObject

__all__ = ["TruncationError", "StationaryResult"]


@dataclass(frozen=True)
class TruncationError:
    """How much a truncated solve may be off (all zero for an exact solve).

    Attributes
    ----------
    boundary_mass : float
        Stationary probability that some truncated station is at its truncation level.
    lost_rate : float
        Customers per unit time turned away only because of the truncation.
    tail_mass : float
        Estimated probability mass beyond the truncation (geometric extrapolation
        of each truncated station's marginal from its last two levels, summed over stations).
    mean_queue : tuple of float
        Estimated absolute error of each station's mean queue length (same extrapolation).

    Examples
    --------
    >>> te = TruncationError(1e-9, 0.0, float("inf"), (0.5,))
    >>> te.to_json()  # JSON has no infinity: an unbounded estimate is null
    {'boundary_mass': 1e-09, 'lost_rate': 0.0, 'tail_mass': None, 'mean_queue': [0.5]}
    """

    boundary_mass: float = 0.0
    lost_rate: float = 0.0
    tail_mass: float = 0.0
    mean_queue: tuple[float, ...] = ()

    def to_json(self) -> JsonObject:
        """The four numbers as a JSON-ready dict (an infinite estimate becomes None).

        Returns
        -------
        dict
            ``boundary_mass``, ``lost_rate``, ``tail_mass`` and ``mean_queue`` (a list).

        Examples
        --------
        >>> TruncationError().to_json()
        {'boundary_mass': 0.0, 'lost_rate': 0.0, 'tail_mass': 0.0, 'mean_queue': []}
        """
        return {"boundary_mass": self.boundary_mass, "lost_rate": self.lost_rate,
                "tail_mass": _finite(self.tail_mass), "mean_queue": [_finite(e) for e in self.mean_queue]}


def _digits(error: float | None) -> int:
    """Decimals worth printing for a value with this error (4 to 12)."""
    if error is None or not np.isfinite(error) or error <= 0:
        return 8
    return int(min(12, max(4, 1 - np.floor(np.log10(error)))))


def _finite(x: float | None) -> float | None:
    """JSON has no infinity: an unbounded error estimate is written as null."""
    return None if x is None or not np.isfinite(x) else float(x)


@dataclass(frozen=True)
class StationaryResult:
    """The stationary distribution of a network and the numbers read from it.

    Returned by :func:`certify.stationary.stationary`.

    Attributes
    ----------
    network : str
        The network's name.
    station_ids : tuple of str
        Station ids, in model order.
    exact : bool
        True when nothing was truncated (every station has a capacity within the truncation).
    levels : tuple of int
        The largest queue length of each station in the chain (its capacity or the truncation).
    truncated : tuple of bool
        Which stations were truncated (no capacity, or a capacity above ``truncate``).
    states : numpy.ndarray
        Array (n, J + phases) of the recurrent states: queue lengths, then the
        service phase of each phase-type station (-1 when empty) and the phase of each
        phase-type stream.
    pi : numpy.ndarray
        Their stationary probabilities.
    mean_queue, throughput : tuple of float
        Per station (throughput: service completions per unit time).
    arrival_rate : float
        Exogenous arrivals per unit time (lost ones included).
    loss_rate : float
        Customers lost per unit time because every station of their set was full
        (exogenous and fed back; capacities only, truncation losses are in ``truncation_error``).
    exogenous_loss_rate, feedback_loss_rate : float
        Its two parts.
    blocking_probability : float or None
        Fraction of exogenous arrivals lost (None without capacities).
    blocking_closed_form : float or None
        :func:`~certify.stationary.closed_forms.loss2_blocking` for the symmetric
        two-queue loss system, else None.
    min_queue_distribution : tuple of float
        P(min_i x_i = n), n = 0, 1, ...
    min_queue_tail_decay_rate : float or None
        Tail-decay rate of that distribution (None when it has no tail).
    tail_error : float or None
        Its estimated error.
    tail_method : str or None
        How it was obtained.
    truncation_error : TruncationError
        How much a truncated solve may be off (all zero when exact).
    notes : tuple of str
        Warnings, in words.
    tail_max_difference : int or None
        For parallel JSQ: the largest cap D of the min-queue QBD.
    tail_sequence : tuple of (int, float)
        For parallel JSQ: (D, sp(R)) for D = 1, 2, ... (the sequence behind the estimate).
    tail_theorem : float or None
        rho^k where the theorem of Kobayashi, Sakuma and Miyazawa (2013) applies
        (:func:`~certify.stationary.closed_forms.jsq_tail_theorem`), else None.
    tail_theorem_source : str or None
        That theorem and its data, in words.
    tail_bounded : bool
        For parallel JSQ: whether ``tail_error`` is a bound (else an unverified estimate).

    Examples
    --------
    M/M/1 with capacity 2, lam = mu = 1 (three equally likely states):

    >>> from certify.io.loader import from_dict
    >>> from certify.stationary import stationary
    >>> res = stationary(from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 1, "capacity": 2}},
    ...     "streams": [{"choice": ["1"], "rate": 1}]}))
    >>> res.exact, res.levels, [round(p, 12) for p in res.min_queue_distribution]
    (True, (2,), [0.333333333333, 0.333333333333, 0.333333333333])
    >>> round(res.mean_queue[0], 12), round(res.blocking_probability, 12)
    (1.0, 0.333333333333)
    """

    network: str
    station_ids: tuple[str, ...]
    exact: bool
    levels: tuple[int, ...]
    truncated: tuple[bool, ...]
    states: np.ndarray = field(repr=False)
    pi: np.ndarray = field(repr=False)
    mean_queue: tuple[float, ...]
    throughput: tuple[float, ...]
    arrival_rate: float
    loss_rate: float
    exogenous_loss_rate: float
    feedback_loss_rate: float
    blocking_probability: float | None
    blocking_closed_form: float | None
    min_queue_distribution: tuple[float, ...]
    min_queue_tail_decay_rate: float | None
    tail_error: float | None
    tail_method: str | None
    truncation_error: TruncationError
    notes: tuple[str, ...] = ()
    tail_max_difference: int | None = None
    tail_sequence: tuple[tuple[int, float], ...] = ()
    tail_theorem: float | None = None
    tail_theorem_source: str | None = None
    tail_bounded: bool = False

    def probability(self, x: Sequence[int]) -> float:
        """Stationary probability of the queue-length vector ``x`` (summed over phases; 0 outside the chain).

        Parameters
        ----------
        x : sequence of int
            One queue length per station, in model order.

        Returns
        -------
        float
            The probability.

        Examples
        --------
        >>> from certify.io.loader import from_dict
        >>> from certify.stationary import stationary
        >>> res = stationary(from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 2, "capacity": 1}},
        ...     "streams": [{"choice": ["1"], "rate": 1}]}))
        >>> round(res.probability([0]), 12), res.probability([5])
        (0.666666666667, 0.0)
        """
        J = len(self.station_ids)
        hit = np.all(self.states[:, :J] == np.asarray(x), axis=1)
        return float(self.pi[hit].sum())

    def _tail_summary(self) -> str:
        """One line: the numerical min-queue tail decay with its error and D, and the theorem's value ("" for neither)."""
        rate, err = self.min_queue_tail_decay_rate, self.tail_error
        parts = []
        if rate is not None and self.tail_max_difference is not None:
            pm = " (no error estimate)" if err is None else f" +- {err:.2g}" + ("" if self.tail_bounded else " (unverified)")
            parts.append(f"{rate:.{_digits(err)}f}{pm} (numerical, D = {self.tail_max_difference})")
        elif self.tail_theorem is not None:
            parts.append("no numerical value")
        if self.tail_theorem is not None:
            parts.append(f"theorem (Kobayashi, Sakuma and Miyazawa 2013): rho^k = {self.tail_theorem:.12g}")
        return "min-queue tail decay: " + "; ".join(parts) if parts else ""

    def to_json(self) -> JsonObject:
        """A JSON-ready summary (the object ``certify stationary --json`` prints).

        Returns
        -------
        dict
            The numbers keyed by name; per-station numbers keyed by station id.

        Examples
        --------
        >>> from certify.io.loader import from_dict
        >>> from certify.stationary import stationary
        >>> res = stationary(from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 2, "capacity": 1}},
        ...     "streams": [{"choice": ["1"], "rate": 1}]}))
        >>> obj = res.to_json()
        >>> obj["states"], obj["levels"], round(obj["blocking_probability"], 12)
        (2, {'1': 1}, 0.333333333333)
        """
        ids = self.station_ids
        return {
            "network": self.network,
            "exact": self.exact,
            "states": int(len(self.pi)),
            "levels": dict(zip(ids, self.levels)),
            "truncated": [s for s, t in zip(ids, self.truncated) if t],
            "mean_queue": dict(zip(ids, self.mean_queue)),
            "throughput": dict(zip(ids, self.throughput)),
            "arrival_rate": self.arrival_rate,
            "loss_rate": self.loss_rate,
            "exogenous_loss_rate": self.exogenous_loss_rate,
            "feedback_loss_rate": self.feedback_loss_rate,
            "blocking_probability": self.blocking_probability,
            "blocking_closed_form": self.blocking_closed_form,
            "min_queue_distribution": list(self.min_queue_distribution),
            "min_queue_tail_decay_rate": self.min_queue_tail_decay_rate,
            "tail_error": _finite(self.tail_error),
            "tail_method": self.tail_method,
            "truncation_error": self.truncation_error.to_json(),
            "notes": list(self.notes),
            "min_queue_tail_max_difference": self.tail_max_difference,
            "min_queue_tail_sequence": {str(D): eta for D, eta in self.tail_sequence},
            "min_queue_tail_decay_theorem": self.tail_theorem,
            "min_queue_tail_theorem_source": self.tail_theorem_source,
            "min_queue_tail_error_bounded": self.tail_bounded,
        }

    def table(self) -> str:
        """A human-readable report (what ``certify stationary`` prints).

        Returns
        -------
        str
            Several lines: the per-station numbers, losses, the minimum queue
            and, for a truncated solve, the truncation error.

        Examples
        --------
        >>> from certify.io.loader import from_dict
        >>> from certify.stationary import stationary
        >>> res = stationary(from_dict({"format": "jsq-network/1", "name": "mm1k",
        ...     "stations": {"1": {"mu": 2, "capacity": 1}}, "streams": [{"choice": ["1"], "rate": 1}]}))
        >>> print(res.table().splitlines()[0])
        mm1k: exact stationary distribution (2 states)
        """
        kind = "exact" if self.exact else "truncated"
        lines = [f"{self.network}: {kind} stationary distribution ({len(self.pi)} states)"]
        if not self.exact:
            cut = ", ".join(f"{s} at {lv}" for s, lv, t in zip(self.station_ids, self.levels, self.truncated) if t)
            lines.append(f"  truncated: {cut}")
        w = max(7, *(len(s) for s in self.station_ids))
        lines.append(f"  {'station':<{w}}  {'mean queue':>14}  {'throughput':>14}")
        for s, q, t in zip(self.station_ids, self.mean_queue, self.throughput):
            lines.append(f"  {s:<{w}}  {q:>14.8g}  {t:>14.8g}")
        lines.append(f"  arrival rate {self.arrival_rate:.8g}; lost {self.loss_rate:.8g} per unit time "
                     f"(exogenous {self.exogenous_loss_rate:.8g}, fed back {self.feedback_loss_rate:.8g})")
        if self.blocking_probability is not None:
            line = f"  blocking probability {self.blocking_probability:.12g}"
            if self.blocking_closed_form is not None:
                line += f" (closed form {self.blocking_closed_form:.12g})"
            lines.append(line)
        head = ", ".join(f"{p:.4g}" for p in self.min_queue_distribution[:8])
        more = ", ..." if len(self.min_queue_distribution) > 8 else ""
        lines.append(f"  P(min queue = 0, 1, ...): {head}{more}")
        if self.min_queue_tail_decay_rate is not None:
            err = f" +- {self.tail_error:.2g}" if self.tail_error is not None else ""
            lines.append(f"  min-queue tail-decay rate {self.min_queue_tail_decay_rate:.8g}{err} ({self.tail_method})")
        summary = self._tail_summary()
        if summary:
            lines.append("  " + summary)
        if not self.exact:
            te = self.truncation_error
            lines.append(f"  truncation error: boundary mass {te.boundary_mass:.3g}, lost to it {te.lost_rate:.3g} per unit time, "
                         f"tail mass ~{te.tail_mass:.3g}, mean queue error ~{max(te.mean_queue, default=0.0):.3g}")
        for n in self.notes:
            lines.append(f"  note: {n}")
        return "\n".join(lines)
