"""The caudal roots eta_D of the min-queue QBD for D = 1, 2, ..., and their limit with an error bound.

:func:`decay_sequence` computes eta_D (the tail-decay rate of the minimum queue
of parallel JSQ when the differences x - min x are capped at D,
:func:`~certify.stationary.caudal.caudal_eta`) for growing D, each D started
from the last; :func:`increasing_limit` turns the increasing sequence into an
estimate and, once the ratios of its successive differences are nonincreasing,
an error bound.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .caudal import PhaseBlocks, caudal_eta, phase_blocks, phase_count

__all__ = ["NOISE", "DecayStep", "decay_sequence", "Limit", "increasing_limit"]

#: Accuracy of a caudal root (Brent's bracket in log z, Arnoldi's residual): a change eta_D - eta_(D-1) of at
#: most this is noise, and the sequence has converged.
NOISE = 1e-9


@dataclass(frozen=True)
class DecayStep:
    """One truncation of :func:`decay_sequence`.

    Attributes
    ----------
    D : int
        The cap of the differences.
    eta : float or None
        The caudal root.
    phases : int
        Phases of the QBD.
    evaluations : int
        Perron roots computed.
    seconds : float
        Wall time (build and root).

    Examples
    --------
    >>> DecayStep(3, 0.5, 1, 4, 0.01).eta
    0.5
    """

    D: int
    eta: float | None
    phases: int
    evaluations: int
    seconds: float


def decay_sequence(lam: float, mu: Sequence[float], max_difference: int, *,
                   split: Callable[[tuple[int, ...]], Sequence[tuple[int, float]]] | None = None,
                   lump: bool = False, tol: float = 0.0, max_phases: int | None = None) -> list[DecayStep]:
    """eta_D for D = 1, 2, ..., max_difference (stopping early once :func:`increasing_limit` is within ``tol``).

    Each D starts from the last: eta_(D-1) brackets eta_D from below (capping
    removes customers, eta_D increases with D), eta_(D-1) plus 1.5 times the
    geometrically predicted step is the first guess above, and the Perron
    vector of the previous cap, read at the capped differences, starts Arnoldi.

    Parameters
    ----------
    lam : float
        The total arrival rate.
    mu : sequence of float
        The service rates.
    max_difference : int
        The largest D.
    split : callable, optional
        The tie split (see :func:`~certify.stationary.caudal.phase_blocks`).
    lump : bool
        Lump stations of equal rate.
    tol : float
        Stop once :func:`increasing_limit` bounds the error by at most this.
    max_phases : int, optional
        Stop before a D with more phases.

    Returns
    -------
    list of DecayStep
        One per D computed (an eta of None ends the list).

    Raises
    ------
    ArithmeticError
        When a Perron root fails (:func:`~certify.stationary.caudal.perron_abscissa`).

    Examples
    --------
    >>> [round(s.eta, 6) for s in decay_sequence(2.4, [1.0, 2.0], 4)]  # increasing to rho^2 = 0.64
    [0.45, 0.569622, 0.611515, 0.62809]
    """
    steps: list[DecayStep] = []
    prev: PhaseBlocks | None = None
    v: np.ndarray | None = None
    for D in range(1, max_difference + 1):
        m = phase_count(mu, D, lump)
        if max_phases is not None and m > max_phases and steps:
            break
        t0 = time.perf_counter()
        b = phase_blocks(lam, mu, D, split, lump)
        etas = [s.eta for s in steps if s.eta is not None]
        lo = hi = None
        if etas:
            lo = etas[-1] * (1 - 1e-9)
            grow = etas[-1] - etas[-2] if len(etas) > 1 else 0.1
            ratio = grow / (etas[-2] - etas[-3]) if len(etas) > 2 and etas[-2] > etas[-3] else 1.0
            hi = min(1 - 1e-7, etas[-1] + 1.5 * max(grow * min(ratio, 1.0), 1e-9))
        if prev is not None and v is not None:
            v = v[prev.lookup(np.minimum(b.phases, D - 1))]
        eta, v, n = caudal_eta(b, lo, hi, v)
        steps.append(DecayStep(D, eta, b.phases.shape[0], n, time.perf_counter() - t0))
        prev = b
        if eta is None:
            break
        if tol > 0:
            lim = increasing_limit([s.eta for s in steps if s.eta is not None])
            if lim.bounded and lim.error is not None and lim.error <= tol:
                break
    return steps


@dataclass(frozen=True)
class Limit:
    """The limit of an increasing sequence, as :func:`increasing_limit` estimates it.

    Attributes
    ----------
    value : float
        The estimate.
    error : float or None
        Its error: a bound when ``bounded``, else an unverified estimate (or None).
    bounded : bool
        Whether ``error`` is a bound (a bracket, or convergence to root accuracy).
    how : str
        How, in words.

    Examples
    --------
    >>> Limit(0.5, 1e-9, True, "converged").bounded
    True
    """

    value: float
    error: float | None
    bounded: bool
    how: str


def increasing_limit(values: Sequence[float]) -> Limit:
    """Limit of an increasing sequence eta_1 < eta_2 < ..., with an error bound, from its last terms.

    With d_D = eta_D - eta_(D-1) and r_D = d_D / d_(D-1): when the last three
    ratios are nonincreasing (up to the noise :data:`NOISE` of the roots) and
    below 1, and stay so (as for every capped min-queue QBD computed: the
    ratios fall to a limit, possibly after an initial rise), the rest of the
    sequence adds at most d_D r_D / (1 - r_D), so the limit lies in
    [eta_D, eta_D + d_D r_D / (1 - r_D)] (the upper end is Aitken's
    extrapolation); the estimate is the middle of that bracket and the error
    its half-width (plus :data:`NOISE`).  Once d_D is below :data:`NOISE` the
    last term is the limit.  Otherwise no bound is established: the Aitken
    value with its correction as an unverified error, or the last term.

    Parameters
    ----------
    values : sequence of float
        eta_1, ..., eta_D (at least one).

    Returns
    -------
    Limit
        The estimate, its error and whether that is a bound.

    Examples
    --------
    >>> lim = increasing_limit([1 - 0.5 ** n for n in range(1, 8)])
    >>> round(lim.value, 6), round(lim.error, 6), lim.bounded
    (0.996094, 0.003906, True)
    """
    e = [float(x) for x in values]
    if len(e) >= 2 and abs(e[-1] - e[-2]) <= NOISE:
        return Limit(e[-1], 2 * NOISE, True, "converged: the last two truncations agree to root accuracy")
    if len(e) < 3:
        return Limit(e[-1], None, False, "too few truncations for an error estimate")
    d = [b - a for a, b in zip(e, e[1:])]
    if d[-1] <= 0 or d[-2] <= 0:
        return Limit(e[-1], None, False, "not increasing in D: no error estimate")
    r = d[-1] / d[-2]
    if r >= 1:
        return Limit(e[-1], None, False, f"ratio of successive differences {r:.3g} >= 1: no error estimate")
    tail = d[-1] * r / (1 - r)
    if len(d) >= 4 and min(d[-4:]) > 0:
        ratios = [b / a for a, b in zip(d[-4:-1], d[-3:])]
        slack = 1 + 4 * NOISE / d[-1]  # relative noise of a ratio of differences of roots
        if ratios[1] <= ratios[0] * slack and ratios[2] <= ratios[1] * slack:
            return Limit(e[-1] + 0.5 * tail, 0.5 * tail + NOISE, True,
                         f"ratios of successive differences {ratios[0]:.3g} >= {ratios[1]:.3g} >= {ratios[2]:.3g}: "
                         "the middle of the bracket [eta_D, Aitken]")
    return Limit(e[-1] + tail, tail, False, f"Aitken-extrapolated (ratio {r:.3g}; ratios not yet nonincreasing: "
                 "error unverified)")
