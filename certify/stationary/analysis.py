"""Exact stationary analysis of a JSQ network by a sparse CTMC solve.

:func:`stationary` builds the generator of the network's Markov chain directly
from its rules -- JSQ over each choice set (ties split uniformly unless a
``tie_breaking`` entry names the exact tied set), random selection sets and
power-of-d streams through :meth:`~certify.core.model.Stream.routing_sets`, feedback
routed by JSQ comparing queue lengths after the departure, capacities with
losses (a customer is routed by JSQ over the *non-full* stations of its set and
is lost when they are all full) -- and solves ``pi Q = 0`` with scipy.

* Every station has a capacity: the chain is finite and the solve is exact
  (up to floating point).
* Otherwise every station is truncated at ``truncate`` customers (a truncated
  station behaves as if that were its capacity); the result carries an estimate
  of the truncation error: the probability mass at the truncation boundary, the
  rate of customers lost to it, and a geometric-tail extrapolation of the
  missing probability mass and of the error of every mean queue length.

Erlang, hyperexponential and Coxian service and interarrival times are
expanded into phases (:mod:`certify.markov.phases`); the states are then (x, phases).

The tail-decay rate of the minimum queue of parallel JSQ (one choice set, every
station, no feedback, no capacity, exponential) comes from the QBD with level
min_i x_i and phase the differences x_i - min x: the spectral radius of its
matrix-geometric rate matrix R (:func:`rate_matrix`, by logarithmic reduction,
or equivalently the root in (0, 1) of the caudal characteristic,
:func:`caudal_root`), with the differences truncated at a maximal value D and
extrapolated in D.  Kobayashi, Sakuma and Miyazawa (Queueing Systems 74, 2013)
prove that it equals rho^k, rho = lam / sum mu.

The closed-form blocking probability of the symmetric two-queue loss system
(Dester, Fricker and Tibi, Queueing Systems 87, 2017) is built in as a
cross-check: :func:`loss2_blocking`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations_with_replacement, product
from math import comb
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import splu

from ..core.errors import NetworkError, NetworkNotSupported, NotSupported, SolverError
from ..core.model import ForkJoinNetwork, Network
from ..markov.chain import Chain
from ..markov.phases import NotPhaseType, PhaseChain, PhaseType, markov_chain

__all__ = [
    "StationaryResult",
    "TruncationError",
    "stationary",
    "default_truncation",
    "loss2_blocking",
    "symmetric_loss2",
    "parallel_jsq",
    "qbd_blocks",
    "rate_matrix",
    "caudal_root",
    "min_queue_decay",
    "MinQueueDecay",
]

#: Target number of states of a truncated chain with J <= 3 stations (the default truncation
#: keeps below it); J >= 4 gets :data:`STATE_BUDGET_HIGH`, as the fill of a sparse solve grows with J.
STATE_BUDGET = 50_000
STATE_BUDGET_HIGH = 20_000
#: Chains up to this size (and every chain with J <= 2) are solved by sparse LU, larger ones by
#: GMRES with an incomplete-LU preconditioner.
DIRECT_STATES = 5_000
#: Largest chain :func:`stationary` builds (capacities or an explicit ``truncate`` beyond it are refused).
STATE_LIMIT = 3_000_000
#: Phases of the min-queue QBD (the default maximal difference keeps below it).
PHASE_BUDGET = 2000
#: Above this many phases, sp(R) comes from :func:`caudal_root` instead of a dense R.
DENSE_PHASES = 150


# ---------------------------------------------------------------------------
# closed forms


def loss2_blocking(rho: Fraction | float, K: int) -> Fraction | float:
    """Blocking probability of the symmetric two-queue JSQ loss system (closed form).

    Two exponential servers of rate mu, capacity K each (the customer in service
    included), Poisson arrivals of rate lam join the shorter queue (fair ties),
    an arrival finding (K, K) is lost; ``rho = lam / (2 mu)``.  Dester, Fricker
    and Tibi (2017):

        P_block(K) = rho^(2K) / (sum_{j=0}^{2K} rho^j - sum_{m=1}^{K} rho^(m-1) 2^(-m)).

    Exact when ``rho`` is a Fraction.

    >>> from fractions import Fraction as F
    >>> loss2_blocking(F(1, 2), 2)
    Fraction(1, 21)
    """
    if K < 1:
        raise ValueError(f"capacity K = {K} must be >= 1")
    one = Fraction(1) if isinstance(rho, Fraction) else 1.0
    num = rho ** (2 * K)
    den = sum((rho**j for j in range(2 * K + 1)), one * 0) - sum((rho ** (m - 1) * one / 2**m for m in range(1, K + 1)), one * 0)
    return num / den


def symmetric_loss2(net: Network) -> tuple[Fraction, int] | None:
    """``(rho, K)`` when ``net`` is the symmetric two-queue loss system of :func:`loss2_blocking`, else None.

    That is: two exponential stations with equal rates mu and equal capacities K,
    exponential arrivals that all choose both stations, fair ties, no feedback.

    >>> from certify.io.loader import from_dict
    >>> net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 1, "capacity": 2},
    ...     "2": {"mu": 1, "capacity": 2}}, "streams": [{"choice": ["1", "2"], "rate": 1}]})
    >>> symmetric_loss2(net)
    (Fraction(1, 2), 2)
    """
    if not isinstance(net, Network) or net.J != 2 or not net.is_markovian:
        return None
    a, b = net.stations
    if a.mu != b.mu or a.capacity is None or a.capacity != b.capacity:
        return None
    lam = _full_choice_rate(net)
    if lam is None:
        return None
    probs = net.tie_probs(net.station_ids)
    if len(set(probs.values())) != 1:
        return None
    return lam / (2 * a.mu), a.capacity


# ---------------------------------------------------------------------------
# the min-queue QBD of parallel JSQ


def parallel_jsq(net: Network) -> tuple[Fraction, tuple[Fraction, ...]] | None:
    """``(lam, mu)`` when ``net`` is parallel JSQ: exponential, no capacity, no feedback,
    every arrival choosing among all stations; else None.

    >>> from certify.io.loader import from_dict
    >>> parallel_jsq(from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 1}, "2": {"mu": 2}},
    ...     "streams": [{"choice": ["1", "2"], "rate": 2.4}]}))
    (Fraction(12, 5), (Fraction(1, 1), Fraction(2, 1)))
    """
    if not isinstance(net, Network) or not net.is_markovian or net.has_capacities:
        return None
    lam = _full_choice_rate(net)
    return None if lam is None else (lam, tuple(st.mu for st in net.stations))


def _full_choice_rate(net: Network) -> Fraction | None:
    """The total arrival rate when there is no feedback and every arrival chooses among all stations, else None."""
    if any(f.prob for f in net.feedback):
        return None
    every = set(net.station_ids)
    lam = Fraction(0)
    for s in net.streams:
        for ids, r in s.routing_sets():
            if set(ids) != every:
                return None
            lam += r
    return lam


def _classes(mu: Sequence[float], lump: bool) -> list[list[int]]:
    if not lump:
        return [[i] for i in range(len(mu))]
    out: dict[float, list[int]] = {}
    for i, m in enumerate(mu):
        out.setdefault(m, []).append(i)
    return list(out.values())


def _phase_count(classes: list[list[int]], D: int) -> int:
    """Phases with max difference D: per class a multiset of differences, at least one 0 overall."""
    every = 1
    no_zero = 1
    for c in classes:
        every *= comb(D + len(c), len(c))
        no_zero *= comb(D - 1 + len(c), len(c))
    return every - no_zero


def qbd_blocks(
    lam: float,
    mu: Sequence[float],
    D: int,
    split: Callable[[tuple[int, ...]], Sequence[tuple[int, float]]] | None = None,
    lump: bool = False,
) -> tuple[sp.csr_matrix, sp.csr_matrix, sp.csr_matrix, list[tuple[int, ...]]]:
    """Blocks (A0 up, A1 local, A2 down) of the min-queue QBD of parallel JSQ, levels >= 1.

    Level min_i x_i, phase d = x - min x with every difference capped at ``D``
    (a difference that would exceed D stays at D).  ``split(B)`` gives how an
    arrival whose tied-shortest set is B splits (default uniform).  With
    ``lump`` (only valid for uniform ties) stations with equal rates are
    interchangeable and a phase keeps their sorted differences.

    Returns the three sparse blocks and the phases (difference vectors).

    >>> A0, A1, A2, ph = qbd_blocks(1.0, [1.0, 1.0], 2, lump=True)
    >>> ph, A0.toarray().tolist()
    ([(0, 0), (0, 1), (0, 2)], [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    """
    J = len(mu)
    classes = _classes(mu, lump)
    per = [list(combinations_with_replacement(range(D + 1), len(c))) for c in classes]
    phases_c = [p for p in product(*per) if min(min(t) for t in p) == 0]

    def canon(d: list[int]) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(sorted(d[i] for i in c)) for c in classes)

    index = {p: k for k, p in enumerate(phases_c)}
    vecs = []
    for phase in phases_c:
        d = [0] * J
        for c, diffs in zip(classes, phase):
            for i, v in zip(c, diffs):
                d[i] = v
        vecs.append(d)
    if split is None:
        def split(B: tuple[int, ...]) -> list[tuple[int, float]]:
            return [(j, 1.0 / len(B)) for j in B]
    trip: list[list[tuple[int, int, float]]] = [[], [], []]
    for k, d in enumerate(vecs):
        B = tuple(i for i in range(J) if d[i] == 0)
        if len(B) == 1:  # the arrival lifts the unique minimum: level up, the others come closer
            j = B[0]
            trip[0].append((k, index[canon([0 if i == j else v - 1 for i, v in enumerate(d)])], lam))
        else:
            for j, p in split(B):
                nd = list(d)
                nd[j] = 1
                trip[1].append((k, index[canon(nd)], lam * p))
        for i in range(J):
            if d[i] >= 1:
                nd = list(d)
                nd[i] -= 1
                trip[1].append((k, index[canon(nd)], mu[i]))
            else:  # a shortest queue serves: level down, every other difference grows (capped at D)
                nd = [0 if q == i else min(v + 1, D) for q, v in enumerate(d)]
                trip[2].append((k, index[canon(nd)], mu[i]))
    m = len(vecs)
    mats = []
    for t in trip:
        rows, cols, vals = (list(x) for x in zip(*t)) if t else ([], [], [])
        mats.append(sp.csr_matrix((vals, (rows, cols)), shape=(m, m)))
    A0, A1, A2 = mats
    out = np.asarray((A0 + A1 + A2).sum(axis=1)).ravel()
    A1 = (A1 - sp.diags(out)).tocsr()
    return A0, A1, A2, [tuple(v) for v in vecs]


def rate_matrix(A0: Any, A1: Any, A2: Any, tol: float = 1e-13, max_iter: int = 64) -> np.ndarray:
    """The minimal nonnegative solution R of A0 + R A1 + R^2 A2 = 0, by logarithmic reduction.

    Latouche and Ramaswami's algorithm (1993) for a continuous-time QBD with
    level-up block A0, local block A1 and level-down block A2: it computes G
    (the minimal solution of A2 + A1 G + A0 G^2 = 0) by doubling, then
    R = -A0 (A1 + A0 G)^{-1}.  Dense numpy; meant for a few hundred phases.

    >>> import numpy as np
    >>> R = rate_matrix(np.array([[1.0]]), np.array([[-3.0]]), np.array([[2.0]]))
    >>> round(float(R[0, 0]), 12)  # M/M/1 with lam = 1, mu = 2: R = rho
    0.5
    """
    A0, A1, A2 = (np.asarray(a.toarray() if sp.issparse(a) else a, dtype=float) for a in (A0, A1, A2))
    m = A0.shape[0]
    eye = np.eye(m)
    up = np.linalg.solve(-A1, A0)
    down = np.linalg.solve(-A1, A2)
    G = down.copy()
    T = up.copy()
    for _ in range(max_iter):
        U = up @ down + down @ up
        both = np.linalg.solve(eye - U, np.hstack([up @ up, down @ down]))
        up, down = both[:, :m], both[:, m:]
        G = G + T @ down
        T = T @ up
        if np.max(np.abs(1.0 - G.sum(axis=1))) < tol or np.max(np.abs(T)) < tol:
            break
    return -A0 @ np.linalg.inv(A1 + A0 @ G)


def caudal_root(A0: Any, A1: Any, A2: Any, tol: float = 1e-10, guess: tuple[float, float] | None = None) -> float | None:
    """sp(R) of a positive recurrent QBD, as the root in (0, 1) of its caudal characteristic.

    eta = sp(R) is the eta in (0, 1) for which x (A0 + eta A1 + eta^2 A2) = 0 has
    a positive solution x.  For z in (0, 1) the Metzler matrix
    M(z) = A0 / z + A1 + z A2 has a negative spectral abscissa exactly when
    z > eta, and that holds exactly when -M(z) is a nonsingular M-matrix, i.e.
    when the sparse solve of -M(z) y = 1 gives y > 0.  That test keeps a
    bracket [lo, hi] of eta; the next point is the Illinois (regula falsi)
    step on the least eigenvalue of -M(z) (a few steps of inverse iteration
    with the same LU), or the midpoint when that estimate is unusable.  The
    bracket starts from ``guess`` when its ends test as they should.  Returns
    None when no z in (0, 1) passes (the QBD is not positive recurrent).

    >>> import numpy as np
    >>> round(caudal_root(np.array([[1.0]]), np.array([[-3.0]]), np.array([[2.0]])), 8)
    0.5
    """
    A0, A1, A2 = (sp.csc_matrix(a) for a in (A0, A1, A2))
    one = np.ones(A0.shape[0])

    def probe(z: float) -> tuple[bool, float | None]:
        """(z > eta, estimate of the least eigenvalue of -M(z))."""
        try:
            lu = splu((-(A0 / z + A1 + A2 * z)).tocsc())
        except RuntimeError:  # exactly singular: z is the root, or another singular point
            return False, None
        y = lu.solve(one)
        if not np.all(np.isfinite(y)):
            return False, None
        ins = bool(np.all(y > 0))
        w = y / np.linalg.norm(y)
        tau = None
        for _ in range(6):
            v = lu.solve(w)
            d = float(w @ v)
            tau = float(w @ w) / d if d else None
            w = v / np.linalg.norm(v)
        if tau is None or not np.isfinite(tau) or (tau > 0) != ins:
            tau = None
        return ins, tau

    top = 1.0 - 1e-6
    lo, hi = 0.0, top
    t_lo: float | None = None
    t_hi: float | None = None
    if guess is not None and 0 < guess[0] < guess[1] < top:
        ins, t = probe(guess[0])
        if not ins:
            lo, t_lo = guess[0], t
            ins, t = probe(guess[1])
            if ins:
                hi, t_hi = guess[1], t
    if hi == top:
        ins, t_hi = probe(top)
        if not ins:
            return None
    side = 0
    while hi - lo > tol:
        z = 0.5 * (lo + hi)
        if t_lo is not None and t_hi is not None and t_hi > t_lo:
            c = (lo * t_hi - hi * t_lo) / (t_hi - t_lo)
            margin = 0.25 * tol
            if lo + margin < c < hi - margin:
                z = c
        ins, t = probe(z)
        if ins:
            hi, t_hi = z, t
            if side == 1 and t_lo is not None:
                t_lo *= 0.5  # Illinois: the other end was kept twice
            side = 1
        else:
            lo, t_lo = z, t
            if side == -1 and t_hi is not None:
                t_hi *= 0.5
            side = -1
        if t_lo is not None and t_hi is not None and hi - lo > tol:
            # close in on the estimated root from both sides once it is near
            c = (lo * t_hi - hi * t_lo) / (t_hi - t_lo)
            if lo < c - tol < c + tol < hi and min(c - lo, hi - c) < 1e-3 * (hi - lo) + 10 * tol:
                ins_a, ta = probe(c - tol)
                ins_b, tb = probe(c + tol)
                if not ins_a and ins_b:
                    lo, t_lo, hi, t_hi = c - tol, ta, c + tol, tb
                elif ins_a:
                    hi, t_hi = c - tol, ta
                else:
                    lo, t_lo = c + tol, tb
    return 0.5 * (lo + hi)


def _sp_rate(A0: Any, A1: Any, A2: Any, guess: tuple[float, float] | None = None) -> tuple[float | None, str]:
    m = A0.shape[0]
    if m <= DENSE_PHASES:
        try:
            R = rate_matrix(A0, A1, A2)
            if np.all(np.isfinite(R)):
                return float(np.max(np.abs(np.linalg.eigvals(R)))), "R"
        except np.linalg.LinAlgError:
            pass
    return caudal_root(A0, A1, A2, guess=guess), "caudal"


@dataclass(frozen=True)
class MinQueueDecay:
    """Tail-decay rate of the minimum queue of parallel JSQ from the min-queue QBD.

    Attributes
    ----------
    rate : float or None
        The estimate (extrapolated in the maximal difference D when the
        sequence converges geometrically, else sp(R) at the largest D).
    error : float or None
        Estimated error of ``rate`` (the size of the last correction).
    raw : dict
        ``{D: sp(R)}`` for the truncations computed.
    phases : int
        Number of phases at the largest D.
    method : str
        How it was obtained, in words.
    """

    rate: float | None
    error: float | None
    raw: dict[int, float | None]
    phases: int
    method: str


def min_queue_decay(net: Network, max_difference: int | None = None) -> MinQueueDecay | None:
    """Tail-decay rate of P(min_i x_i = n) for parallel JSQ (None for other networks).

    The QBD of :func:`qbd_blocks` is solved for the maximal differences D-2, D-1
    and D (D: the largest <= 30 with at most :data:`PHASE_BUDGET` phases, or
    ``max_difference``).  Capping the differences removes customers, so sp(R)
    increases to its limit, geometrically in D; Aitken's extrapolation of the
    three values is the estimate and the size of its correction the error.

    >>> from certify.io.loader import from_dict
    >>> net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 1}, "2": {"mu": 2}},
    ...     "streams": [{"choice": ["1", "2"], "rate": 2.4}]})
    >>> round(min_queue_decay(net, max_difference=12).rate, 4)  # rho^2 = 0.8^2
    0.64
    """
    par = parallel_jsq(net)
    if par is None:
        return None
    lam, mus = par
    if lam >= sum(mus):
        return MinQueueDecay(None, None, {}, 0, "unstable: lam >= sum mu, no stationary distribution")
    chain = markov_chain(net)
    uniform = all(len(set(probs)) == 1 for _, probs in chain.ties)  # lumping needs symmetric ties
    mu_f = [float(m) for m in mus]
    classes = _classes(mu_f, uniform)
    if _phase_count(classes, 1 if max_difference is None else max_difference) > 10 * PHASE_BUDGET:
        return MinQueueDecay(None, None, {}, 0, f"min-queue QBD not solved: over {10 * PHASE_BUDGET} phases "
                             f"for {net.J} stations with these rates")
    if max_difference is None:
        D = 1
        while D < 30 and _phase_count(classes, D + 1) <= PHASE_BUDGET:
            D += 1
    else:
        D = max_difference
        if D < 1:
            raise ValueError(f"max_difference = {D} must be >= 1")

    def split(B: tuple[int, ...]) -> list[tuple[int, float]]:
        return [(j, float(p)) for j, p in chain.tie_split(B)]

    raw: dict[int, float | None] = {}
    how = set()
    m = 0
    for d in range(max(1, D - 2), D + 1):
        A0, A1, A2, ph = qbd_blocks(float(lam), mu_f, d, split, lump=uniform)
        guess = None
        prev = [raw.get(d - 1), raw.get(d - 2)]
        if prev[0] is not None:  # sp(R) grows with D, geometrically: bracket the next value
            step = prev[0] - prev[1] if prev[1] is not None else 0.05
            guess = (prev[0] - 1e-9, prev[0] + 2 * abs(step) + 1e-9)
        raw[d], h = _sp_rate(A0, A1, A2, guess)
        how.add(h)
        m = len(ph)
    what = " and ".join(
        {"R": "sp(R), R by logarithmic reduction", "caudal": "sp(R) as the caudal characteristic root"}[h] for h in sorted(how)
    )
    lumped = ", lumped by symmetry" if any(len(c) > 1 for c in classes) else ""
    method = f"min-queue QBD, phases = differences capped at D = {D} ({m} phases{lumped}): {what}"
    top = raw[D]
    if top is None:
        return MinQueueDecay(None, None, raw, m, method + "; no root in (0, 1)")
    vals = [raw.get(d) for d in (D - 2, D - 1, D)]
    if any(v is None for v in vals):
        return MinQueueDecay(top, None, raw, m, method)
    a, b, c = (float(v) for v in vals if v is not None)
    d1, d2 = b - a, c - b
    if abs(d2) < 1e-10:
        return MinQueueDecay(top, abs(d2), raw, m, method)
    r = d2 / d1 if d1 else 0.0
    if 0 < r < 0.9:
        correction = d2 * r / (1 - r)
        return MinQueueDecay(top + correction, abs(correction), raw, m, method + f"; Aitken-extrapolated in D (ratio {r:.3g})")
    return MinQueueDecay(top, abs(d2), raw, m, method)


# ---------------------------------------------------------------------------
# the chain


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
    """

    boundary_mass: float = 0.0
    lost_rate: float = 0.0
    tail_mass: float = 0.0
    mean_queue: tuple[float, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"boundary_mass": self.boundary_mass, "lost_rate": self.lost_rate,
                "tail_mass": _finite(self.tail_mass), "mean_queue": [_finite(e) for e in self.mean_queue]}


def _finite(x: float | None) -> float | None:
    """JSON has no infinity: an unbounded error estimate is written as null."""
    return None if x is None or not np.isfinite(x) else float(x)


@dataclass(frozen=True)
class StationaryResult:
    """The stationary distribution of a network and the numbers read from it.

    Attributes
    ----------
    network : the network's name.
    station_ids : station ids, in model order.
    exact : True when nothing was truncated (every station has a capacity within the truncation).
    levels : the largest queue length of each station in the chain (its capacity or the truncation).
    truncated : which stations were truncated (no capacity, or a capacity above ``truncate``).
    states : array (n, J + phases) of the recurrent states: queue lengths, then the
        service phase of each phase-type station (-1 when empty) and the phase of each
        phase-type stream.
    pi : their stationary probabilities.
    mean_queue, throughput : per station (throughput: service completions per unit time).
    arrival_rate : exogenous arrivals per unit time (lost ones included).
    loss_rate : customers lost per unit time because every station of their set was full
        (exogenous and fed back; capacities only, truncation losses are in ``truncation_error``).
    exogenous_loss_rate, feedback_loss_rate : its two parts.
    blocking_probability : fraction of exogenous arrivals lost (None without capacities).
    blocking_closed_form : :func:`loss2_blocking` for the symmetric two-queue loss system, else None.
    min_queue_distribution : P(min_i x_i = n), n = 0, 1, ...
    min_queue_tail_decay_rate : tail-decay rate of that distribution (None when it has no tail).
    tail_error, tail_method : its estimated error and how it was obtained.
    truncation_error : :class:`TruncationError`.
    notes : warnings, in words.
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

    def probability(self, x: Sequence[int]) -> float:
        """Stationary probability of the queue-length vector ``x`` (summed over phases; 0 outside the chain)."""
        J = len(self.station_ids)
        hit = np.all(self.states[:, :J] == np.asarray(x), axis=1)
        return float(self.pi[hit].sum())

    def to_json(self) -> dict[str, Any]:
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
        }

    def table(self) -> str:
        """A human-readable report."""
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
        if not self.exact:
            te = self.truncation_error
            lines.append(f"  truncation error: boundary mass {te.boundary_mass:.3g}, lost to it {te.lost_rate:.3g} per unit time, "
                         f"tail mass ~{te.tail_mass:.3g}, mean queue error ~{max(te.mean_queue, default=0.0):.3g}")
        for n in self.notes:
            lines.append(f"  note: {n}")
        return "\n".join(lines)


def default_truncation(net: Network) -> int:
    """Default truncation level per station: the largest N <= 1000 (J = 1), 100 (J = 2) or 60
    such that the chain has at most :data:`STATE_BUDGET` (J <= 3) or
    :data:`STATE_BUDGET_HIGH` (J >= 4) states, phases included (at least 1).

    >>> from certify.io.loader import from_dict
    >>> default_truncation(from_dict({"format": "jsq-network/1", "stations": {str(i): {"mu": 1} for i in range(8)},
    ...     "streams": [{"choice": [str(i) for i in range(8)], "rate": 1}]}))
    2
    """
    fixed = 1.0
    free = 0
    for st in net.stations:
        if st.capacity is None:
            free += 1
        else:
            fixed *= st.capacity + 1
        fixed *= _phases_of(st.service, st.mu)
    for s in net.streams:
        fixed *= _phases_of(s.interarrival, s.rate)
    top = {1: 1000, 2: 100}.get(net.J, 60)
    if free == 0:
        return top
    budget = STATE_BUDGET if net.J <= 3 else STATE_BUDGET_HIGH
    N = int((budget / fixed) ** (1.0 / free)) - 1
    while N > 1 and (N + 1) ** free * fixed > budget:
        N -= 1
    return max(1, min(top, N))


def _phases_of(dist: Any, rate: Fraction) -> int:
    if dist.is_exponential:
        return 1
    from ..markov.phases import phase_type

    try:
        return phase_type(dist, rate).n
    except NotPhaseType:
        return 1


class _Builder:
    """Vectorised construction of the generator over an enumerated state space."""

    def __init__(self, chain: Chain, levels: np.ndarray, real_cap: np.ndarray):
        self.chain = chain
        J = chain.J
        self.J = J
        self.levels = levels
        self.real_cap = real_cap
        ph = isinstance(chain, PhaseChain)
        self.service: list[PhaseType | None] = list(chain.service) if ph else [None] * J  # type: ignore[attr-defined]
        self.ph_streams = list(chain.ph_streams) if ph else []  # type: ignore[attr-defined]
        self.exp_arrivals = list(chain.exp_arrivals) if ph else list(chain.arrivals)  # type: ignore[attr-defined]
        self.ph_col = {}
        col = J
        for i, law in enumerate(self.service):
            if law is not None:
                self.ph_col[i] = col
                col += 1
        self.stream_col = list(range(col, col + len(self.ph_streams)))
        ncol = col + len(self.ph_streams)
        dims = [int(v) + 1 for v in levels]
        dims += [self.service[i].n + 1 for i in self.ph_col]  # type: ignore[union-attr]
        dims += [law.n for law, _ in self.ph_streams]
        self.offset = np.zeros(ncol, dtype=np.int64)
        for c in self.ph_col.values():
            self.offset[c] = 1
        size = int(np.prod(np.array(dims, dtype=np.float64)))
        if size > STATE_LIMIT:
            raise OverflowError(size)
        self.strides = np.ones(ncol, dtype=np.int64)
        for c in range(ncol - 2, -1, -1):
            self.strides[c] = self.strides[c + 1] * dims[c + 1]
        grid = np.indices(dims, dtype=np.int64).reshape(ncol, -1).T - self.offset
        ok = np.ones(len(grid), dtype=bool)
        for i, c in self.ph_col.items():
            ok &= (grid[:, i] == 0) == (grid[:, c] == -1)
        self.S = grid[ok]
        self.n = len(self.S)
        self.pos = np.full(size, -1, dtype=np.int64)
        self.pos[self._code(self.S)] = np.arange(self.n)
        self.rows: list[np.ndarray] = []
        self.cols: list[np.ndarray] = []
        self.vals: list[np.ndarray] = []
        self.arrivals = np.zeros(self.n)
        self.lost = {(exo, real): np.zeros(self.n) for exo in (True, False) for real in (True, False)}
        self.completions = np.zeros((J, self.n))
        self._splits: dict[tuple[int, ...], list[tuple[int, float]]] = {}

    def _code(self, S: np.ndarray) -> np.ndarray:
        return (S + self.offset) @ self.strides

    def emit(self, src: np.ndarray, S2: np.ndarray, rate: np.ndarray) -> None:
        keep = rate > 0
        if not keep.any():
            return
        dst = self.pos[self._code(S2[keep])]
        assert np.all(dst >= 0), "transition out of the state space"
        self.rows.append(src[keep])
        self.cols.append(dst)
        self.vals.append(rate[keep])

    def phase_moves(self, S: np.ndarray, rows: np.ndarray, col: int, law: PhaseType, a: int) -> None:
        """The phase changes a -> b (no customer moves) of the law in column ``col``, from ``rows``."""
        for a2, b, r in law.moves:
            if a2 == a:
                S2 = S[rows].copy()
                S2[:, col] = b
                self.emit(rows, S2, np.full(len(rows), float(r)))

    def split(self, B: tuple[int, ...]) -> list[tuple[int, float]]:
        out = self._splits.get(B)
        if out is None:
            out = [(j, float(p)) for j, p in self.chain.tie_split(B)]
            self._splits[B] = out
        return out

    def start_service(self, src: np.ndarray, S2: np.ndarray, rate: np.ndarray, j: int, mask: np.ndarray) -> None:
        """Emit S2, drawing the initial service phase of station j on the rows in ``mask``."""
        law = self.service[j]
        if law is None or not mask.any():
            self.emit(src, S2, rate)
            return
        self.emit(src[~mask], S2[~mask], rate[~mask])
        c = self.ph_col[j]
        for q, a in enumerate(law.alpha):
            if a:
                S3 = S2[mask].copy()
                S3[:, c] = q
                self.emit(src[mask], S3, rate[mask] * float(a))

    def join(self, src: np.ndarray, S: np.ndarray, rate: np.ndarray, C: tuple[int, ...] | None, exo: bool) -> None:
        """A customer routed by JSQ over the non-full stations of C from the states S (None: it leaves)."""
        if C is None:
            self.emit(src, S, rate)
            return
        Cv = np.array(C)
        X = S[:, Cv]
        full = X >= self.levels[Cv]
        big = np.iinfo(np.int64).max
        Xm = np.where(full, big, X)
        low = Xm.min(axis=1)
        lost = low == big
        tied = (Xm == low[:, None]) & ~lost[:, None]
        mask = tied @ (1 << np.arange(len(C), dtype=np.int64))
        for mval in np.unique(mask[~lost]):
            rows = np.nonzero(mask == mval)[0]
            B = tuple(C[q] for q in range(len(C)) if (int(mval) >> q) & 1)
            for j, p in self.split(B):
                S2 = S[rows].copy()
                S2[:, j] += 1
                self.start_service(src[rows], S2, rate[rows] * p, j, S[rows, j] == 0)
        if lost.any():
            real = bool(np.all(self.real_cap[Cv]))
            np.add.at(self.lost[(exo, real)], src[lost], rate[lost])
            self.emit(src[lost], S[lost], rate[lost])

    def build(self) -> sp.csr_matrix:
        chain, S, n = self.chain, self.S, self.n
        allrows = np.arange(n)
        routes: list[list[tuple[tuple[int, ...] | None, float]]] = [[(None, float(lv))] for lv in chain.leave]
        for i, fb_set, prob in chain.feedback:
            routes[i].append((fb_set, float(prob)))
        # exponential arrivals
        for C, lam in self.exp_arrivals:
            each = np.full(n, float(lam))
            self.arrivals += each
            self.join(allrows, S, each, C, True)
        # phase-type streams
        for (law, sets), c in zip(self.ph_streams, self.stream_col):
            for a in range(law.n):
                rows = np.nonzero(S[:, c] == a)[0]
                self.phase_moves(S, rows, c, law, a)
                if law.exit[a]:
                    np.add.at(self.arrivals, rows, float(law.exit[a]))
                    for q, al in enumerate(law.alpha):
                        if not al:
                            continue
                        S2 = S[rows].copy()
                        S2[:, c] = q
                        for C, prob in sets:
                            self.join(rows, S2, np.full(len(rows), float(law.exit[a] * al * prob)), C, True)
        # services
        for i in range(self.J):
            law = self.service[i]
            if law is None:
                rows = np.nonzero(S[:, i] > 0)[0]
                mu = float(chain.mu[i])
                self.completions[i, rows] = mu
                pre = S[rows].copy()
                pre[:, i] -= 1
                for dest, share in routes[i]:
                    self.join(rows, pre, np.full(len(rows), mu * share), dest, False)
                continue
            c = self.ph_col[i]
            for a in range(law.n):
                rows = np.nonzero(S[:, c] == a)[0]
                self.phase_moves(S, rows, c, law, a)
                ex = float(law.exit[a])
                if not ex:
                    continue
                self.completions[i, rows] = ex
                pre = S[rows].copy()
                pre[:, i] -= 1
                pre[:, c] = -1
                # the next customer (if any) starts a service: its phase is drawn from alpha
                nexts: list[tuple[np.ndarray, np.ndarray]] = []
                busy = pre[:, i] > 0
                for q, al in enumerate(law.alpha):
                    if al:
                        P = pre.copy()
                        P[busy, c] = q
                        weight = np.where(busy, float(al), 0.0)
                        nexts.append((P, weight))
                idle = ~busy
                if idle.any():
                    nexts.append((pre, idle.astype(float)))
                for P, weight in nexts:
                    for dest, share in routes[i]:
                        self.join(rows, P, ex * share * weight, dest, False)
        rows = np.concatenate(self.rows) if self.rows else np.zeros(0, dtype=np.int64)
        cols = np.concatenate(self.cols) if self.cols else np.zeros(0, dtype=np.int64)
        vals = np.concatenate(self.vals) if self.vals else np.zeros(0)
        off = rows != cols
        Q = sp.csr_matrix((vals[off], (rows[off], cols[off])), shape=(n, n))
        return Q


#: A solve whose relative residual ||A x - b|| / ||b|| exceeds this is refused (rates spanning too many
#: orders of magnitude for double precision), rather than reported.
MAX_RESIDUAL = 1e-6
#: GMRES restart cycles (of 60 iterations) before the sparse LU fallback.
GMRES_CYCLES = 10


def _linear_solve(A: sp.csc_matrix, b: np.ndarray, direct: bool) -> np.ndarray:
    """Solve A x = b: sparse LU, or GMRES preconditioned by an incomplete LU (LU if it fails).

    Raises ValueError when even the LU solution has a relative residual above :data:`MAX_RESIDUAL`.
    """
    if not direct:
        from scipy.sparse.linalg import LinearOperator, gmres, spilu

        try:
            ilu = spilu(A, drop_tol=1e-3, fill_factor=3)
            x, info = gmres(A, b, M=LinearOperator(A.shape, ilu.solve), rtol=1e-12, atol=0.0, restart=60,
                            maxiter=GMRES_CYCLES)
            if info == 0 and np.linalg.norm(A @ x - b) <= 1e-10 * np.linalg.norm(b):
                return x
        except RuntimeError:
            pass
    x = splu(A, permc_spec="MMD_AT_PLUS_A").solve(b)
    scale = np.linalg.norm(b)
    res = np.linalg.norm(A @ x - b) / scale if scale > 0 else 0.0
    if not (np.isfinite(x).all() and res <= MAX_RESIDUAL):
        rates = np.abs(A.data)
        rates = rates[rates > 0]
        span = f"; its rates span {np.log10(rates.max() / rates.min()):.0f} orders of magnitude" if rates.size else ""
        raise SolverError(f"the stationary equations cannot be solved accurately in double precision (relative "
                         f"residual {res:.2g} > {MAX_RESIDUAL:g}{span})")
    return x


def _solve(Q: sp.csr_matrix, start: int, direct: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Stationary distribution on the unique closed class; returns (indices of the class, pi)."""
    ncomp, comp = connected_components(Q, directed=True, connection="strong")
    coo = Q.tocoo()
    leaving = comp[coo.row] != comp[coo.col]
    open_ = np.zeros(ncomp, dtype=bool)
    open_[comp[coo.row[leaving]]] = True
    closed = np.nonzero(~open_)[0]
    if len(closed) != 1:
        raise NotSupported(f"the chain has {len(closed)} closed classes: its stationary distribution is not unique")
    R = np.nonzero(comp == closed[0])[0]
    if len(R) == 1:
        return R, np.ones(1)
    Qr = Q[R][:, R].tocsr()
    out = np.asarray(Qr.sum(axis=1)).ravel()
    A = (Qr.T - sp.diags(out)).tocsc()  # A pi = 0
    k = int(np.nonzero(R == start)[0][0]) if start in set(R.tolist()) else 0
    keep = np.r_[0:k, k + 1:len(R)]
    Ak = A[keep][:, keep].tocsc()
    rhs = -np.asarray(A[keep][:, [k]].todense()).ravel()
    x = _linear_solve(Ak, rhs, direct=direct or len(R) <= DIRECT_STATES)
    pi = np.empty(len(R))
    pi[k] = 1.0
    pi[keep] = x
    pi = np.maximum(pi, 0.0)
    return R, pi / pi.sum()


def stationary(net: Network, truncate: int | None = None) -> StationaryResult:
    """Stationary distribution of ``net`` and its performance numbers, by a sparse CTMC solve.

    Parameters
    ----------
    net : Network
        A ``jsq-network/1`` network with exponential or phase-type (Erlang,
        hyperexponential, Coxian) service and interarrival times.
    truncate : int, optional
        Largest queue length kept at every station without a capacity (and at
        any station whose capacity is larger).  Default: every station has a
        capacity -> none (the solve is exact); otherwise
        :func:`default_truncation`.

    Returns
    -------
    StationaryResult

    Raises
    ------
    NetworkError
        For fork-join files, distributions without a phase-type form, chains
        too large to solve, or a chain whose stationary distribution is not unique.

    Examples
    --------
    The symmetric two-queue loss system, K = 2, lam = mu = 1:

    >>> from certify.io.loader import from_dict
    >>> net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 1, "capacity": 2},
    ...     "2": {"mu": 1, "capacity": 2}}, "streams": [{"choice": ["1", "2"], "rate": 1}]})
    >>> res = stationary(net)
    >>> res.exact, round(res.blocking_probability, 12), round(res.blocking_closed_form, 12)
    (True, 0.047619047619, 0.047619047619)
    """
    if isinstance(net, ForkJoinNetwork):
        raise NetworkNotSupported(net.source, "format", "stationary analysis of fork-join-redundancy/1 networks is not supported")
    if truncate is not None and (isinstance(truncate, bool) or not isinstance(truncate, int) or truncate < 1):
        raise NetworkError(net.source, "truncate", f"{truncate} must be an integer >= 1")
    if truncate is not None and truncate > STATE_LIMIT:
        raise NetworkError(net.source, "truncate", f"{truncate} must be <= {STATE_LIMIT} (the largest chain built "
                           f"has {STATE_LIMIT} states)")
    try:
        chain = markov_chain(net)
    except NotPhaseType as exc:
        raise NetworkNotSupported(net.source, None, f"no stationary analysis: {exc}") from None
    N = truncate if truncate is not None else (None if all(s.capacity is not None for s in net.stations) else default_truncation(net))
    levels, trunc = [], []
    for st in net.stations:
        if st.capacity is not None and (N is None or st.capacity <= N):
            levels.append(st.capacity)
            trunc.append(False)
        else:
            assert N is not None
            levels.append(N)
            trunc.append(True)
    lv = np.array(levels, dtype=np.int64)
    real_cap = ~np.array(trunc)
    if truncate is None and any(trunc):
        size = float(np.prod(lv + 1.0)) * float(np.prod([_phases_of(st.service, st.mu) for st in net.stations]))
        size *= float(np.prod([_phases_of(s.interarrival, s.rate) for s in net.streams]))
        budget = STATE_BUDGET if net.J <= 3 else STATE_BUDGET_HIGH
        if size > 2 * budget:
            raise NetworkError(net.source, "stations", f"{net.J} stations: even {N} customer(s) per station give about "
                               f"{size:.3g} states, too many for the default (about {budget}); "
                               "give an explicit truncation (--truncate N) to force it")
    try:
        b = _Builder(chain, lv, real_cap)
    except OverflowError as exc:
        raise NetworkError(net.source, "truncate" if truncate is not None else "stations",
                           f"the chain would have {exc.args[0]} states (limit {STATE_LIMIT}); pass a smaller truncation") from None
    Q = b.build()
    empty = -b.offset[None, :]  # no customer anywhere, phase-type stations idle (-1), stream phases 0
    start = int(b.pos[b._code(empty)][0])
    try:
        R, pi = _solve(Q, start, direct=net.J <= 2)
    except NotSupported as exc:  # several closed classes
        raise NetworkNotSupported(net.source, None, str(exc)) from None
    except ValueError as exc:  # a SolverError (an inaccurate solve), or scipy refusing the matrix
        raise NetworkError(net.source, None, str(exc)) from None
    S = b.S[R]
    J = net.J
    X = S[:, :J]
    mean = tuple(float(pi @ X[:, i]) for i in range(J))
    thr = tuple(float(pi @ b.completions[i, R]) for i in range(J))
    arr = float(pi @ b.arrivals[R])
    lost_exo = float(pi @ b.lost[(True, True)][R])
    lost_fb = float(pi @ b.lost[(False, True)][R])
    lost_trunc = float(pi @ (b.lost[(True, False)][R] + b.lost[(False, False)][R]))
    has_cap = net.has_capacities
    blocking = lost_exo / arr if has_cap and arr > 0 else None
    closed = None
    sym = symmetric_loss2(net)
    if sym is not None and not any(trunc):
        closed = float(loss2_blocking(*sym))
    mins = X.min(axis=1)
    pmin = np.bincount(mins, weights=pi, minlength=int(lv.min()) + 1)
    notes: list[str] = []
    # truncation error
    exact = not any(trunc)
    if exact:
        terr = TruncationError(0.0, 0.0, 0.0, tuple(0.0 for _ in range(J)))
    else:
        at_edge = np.zeros(len(pi), dtype=bool)
        tails, errs = [], []
        for i in range(J):
            if not trunc[i]:
                errs.append(0.0)
                continue
            at_edge |= X[:, i] == lv[i]
            marg = np.bincount(X[:, i], weights=pi, minlength=int(lv[i]) + 1)
            pN, pN1 = marg[-1], marg[-2]
            if pN <= 0:
                tails.append(0.0)
                errs.append(0.0)
                continue
            r = pN / pN1 if pN1 > 0 else np.inf
            if r >= 1:
                tails.append(np.inf)
                errs.append(np.inf)
                continue
            t = pN * r / (1 - r)
            tails.append(t)
            errs.append(max(0.0, t * (lv[i] + 1 / (1 - r) - mean[i])))
        terr = TruncationError(float(pi[at_edge].sum()), lost_trunc, float(sum(tails)), tuple(float(e) for e in errs))
        if terr.boundary_mass > 1e-3:
            notes.append(f"probability {terr.boundary_mass:.3g} at the truncation boundary: raise --truncate "
                         "(or the network may be unstable)")
    # tail decay of the minimum queue
    rate = err = how = None
    dec = min_queue_decay(net)
    if dec is not None:
        rate, err, how = dec.rate, dec.error, dec.method
        if rate is None:
            notes.append(how)
    elif not exact:
        rate, how = _empirical_ratio(pmin)
    return StationaryResult(
        network=net.name,
        station_ids=net.station_ids,
        exact=exact,
        levels=tuple(int(v) for v in lv),
        truncated=tuple(trunc),
        states=S,
        pi=pi,
        mean_queue=mean,
        throughput=thr,
        arrival_rate=arr,
        loss_rate=lost_exo + lost_fb,
        exogenous_loss_rate=lost_exo,
        feedback_loss_rate=lost_fb,
        blocking_probability=blocking,
        blocking_closed_form=closed,
        min_queue_distribution=tuple(float(p) for p in pmin),
        min_queue_tail_decay_rate=rate,
        tail_error=err,
        tail_method=how,
        truncation_error=terr,
        notes=tuple(notes),
    )


def _empirical_ratio(pmin: np.ndarray) -> tuple[float | None, str | None]:
    """(P(min = n2) / P(min = n1))^(1/(n2-n1)) over the middle third of the truncated range."""
    top = len(pmin) - 1
    if top < 6:
        return None, None
    n1, n2 = top // 3, (2 * top) // 3
    if pmin[n1] <= 1e-280 or pmin[n2] <= 0:
        return None, None
    r = float((pmin[n2] / pmin[n1]) ** (1.0 / (n2 - n1)))
    return r, f"empirical ratio P(min = n+1) / P(min = n) of the truncated solve, n in [{n1}, {n2}]"
