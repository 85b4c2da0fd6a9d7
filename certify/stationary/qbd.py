"""The tail decay of the minimum queue of parallel JSQ, from its quasi-birth-death process.

The tail-decay rate of the minimum queue of parallel JSQ (one choice set, every
station, no feedback, no capacity, exponential: :func:`~certify.stationary.closed_forms.parallel_jsq`)
comes from the QBD with level min_i x_i and phase the differences x_i - min x
(:func:`qbd_blocks`): the spectral radius of its matrix-geometric rate matrix R
(:func:`rate_matrix`, by logarithmic reduction, or equivalently the root in
(0, 1) of the caudal characteristic, :func:`caudal_root`), with the differences
capped at D.  :func:`min_queue_decay` runs D = 1, 2, ... with the sparse
machinery of :mod:`certify.stationary.caudal` (which builds the same blocks as
:func:`qbd_blocks`, a plain loop kept as the readable reference) until the
bracket of the limit is narrow.  Kobayashi, Sakuma and Miyazawa (Queueing
Systems 74, 2013) prove that the limit is rho^k, rho = lam / sum mu,
for fair ties; the result carries that value beside the numerics
(:func:`~certify.stationary.closed_forms.jsq_tail_theorem`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement, product
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from ..core.model import Network
from ..markov.phases import markov_chain
from .caudal import phase_count, rate_classes
from .closed_forms import jsq_tail_theorem, parallel_jsq
from .tail_sequence import decay_sequence, increasing_limit

__all__ = ["qbd_blocks", "rate_matrix", "caudal_root", "MinQueueDecay", "min_queue_decay"]

#: Default most phases of the min-queue QBD (the truncations D = 1, 2, ... stop below it).
PHASE_BUDGET = 50_000
#: Default error bound at which the truncations stop.
DEFAULT_TOL = 1e-7
#: Default largest cap D of the differences.
MAX_DIFFERENCE = 60


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

    Parameters
    ----------
    lam : float
        The total arrival rate.
    mu : sequence of float
        The service rates, one per station.
    D : int
        The maximal difference x_i - min x kept in a phase.
    split : callable, optional
        ``split(B)`` -> ``[(station, probability), ...]``, the split of an
        arrival among the tied-shortest set ``B`` (default: uniform).
    lump : bool
        Lump stations with equal rates (uniform ties only).

    Returns
    -------
    A0, A1, A2 : scipy.sparse.csr_matrix
        The level-up, local (with the diagonal) and level-down blocks.
    phases : list of tuple of int
        The difference vector of each phase, in the order of the blocks.

    Examples
    --------
    Two stations of rate 1, lam = 1, differences capped at 2 (lumped: one phase
    per sorted difference vector):

    >>> A0, A1, A2, ph = qbd_blocks(1.0, [1.0, 1.0], 2, lump=True)
    >>> ph, A0.toarray().tolist()
    ([(0, 0), (0, 1), (0, 2)], [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    """
    J = len(mu)
    classes = rate_classes(mu, lump)
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

    Parameters
    ----------
    A0, A1, A2 : array_like or scipy.sparse matrix
        The level-up, local and level-down blocks (square, of one size).
    tol : float
        The doubling stops once G is stochastic, or the remaining term is
        below ``tol``.
    max_iter : int
        The most doubling steps.

    Returns
    -------
    numpy.ndarray
        The dense rate matrix R.

    Raises
    ------
    numpy.linalg.LinAlgError
        When a block system of the reduction is singular.

    Examples
    --------
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
    R: np.ndarray = -A0 @ np.linalg.inv(A1 + A0 @ G)
    return R


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

    Parameters
    ----------
    A0, A1, A2 : array_like or scipy.sparse matrix
        The level-up, local and level-down blocks (square, of one size).
    tol : float
        Width of the final bracket of eta.
    guess : tuple of (float, float), optional
        A bracket ``(lo, hi)`` of eta to start from (used when its ends test
        as they should).

    Returns
    -------
    float or None
        sp(R), or None when the QBD is not positive recurrent.

    Examples
    --------
    M/M/1 with lam = 1, mu = 2 as a QBD of one phase (R = rho):

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


@dataclass(frozen=True)
class MinQueueDecay:
    """Tail-decay rate of the minimum queue of parallel JSQ from the min-queue QBD.

    Attributes
    ----------
    rate : float or None
        The estimate from the truncations D = 1, 2, ... (see
        :func:`~certify.stationary.caudal.increasing_limit`).
    error : float or None
        Its error bound (None when none is established).
    raw : dict
        ``{D: sp(R)}`` for the truncations computed (the sequence).
    phases : int
        Number of phases at the largest D.
    method : str
        How it was obtained, in words.
    max_difference : int or None
        The largest D computed.
    theorem : float or None
        rho^k where the theorem of Kobayashi, Sakuma and Miyazawa (2013) applies
        (:func:`~certify.stationary.closed_forms.jsq_tail_theorem`), else None.
    theorem_source : str or None
        The theorem and its data, in words.
    seconds : float
        Wall time of the numerics.
    bounded : bool
        Whether ``error`` is a bound (else an unverified estimate).

    Examples
    --------
    >>> d = MinQueueDecay(0.64, 1e-9, {10: 0.64}, 66, "min-queue QBD")
    >>> d.rate, d.phases, d.theorem
    (0.64, 66, None)
    """

    rate: float | None
    error: float | None
    raw: dict[int, float | None]
    phases: int
    method: str
    max_difference: int | None = None
    theorem: float | None = None
    theorem_source: str | None = None
    seconds: float = 0.0
    bounded: bool = False


def min_queue_decay(net: Network, max_difference: int | None = None, tol: float = DEFAULT_TOL,
                    max_phases: int = PHASE_BUDGET) -> MinQueueDecay | None:
    """Tail-decay rate of P(min_i x_i = n) for parallel JSQ (None for other networks).

    The min-queue QBD with the differences capped at D is solved for D = 1,
    2, ... (:func:`~certify.stationary.caudal.decay_sequence`: sparse blocks,
    the caudal characteristic root by Arnoldi and Brent) until the error bound
    of :func:`~certify.stationary.caudal.increasing_limit` is at most ``tol``,
    the next D would have more than ``max_phases`` phases, or D reaches
    ``max_difference``.  Capping the differences removes customers, so sp(R)
    increases with D to its limit; the estimate is the middle of the bracket
    [eta_D, Aitken's extrapolation] and the error its half-width.  Where the
    theorem of Kobayashi, Sakuma and Miyazawa (2013) applies the result also carries rho^k, computed
    exactly from the network and independent of the numerics.

    Parameters
    ----------
    net : Network
        Any network; only parallel JSQ
        (:func:`~certify.stationary.closed_forms.parallel_jsq`) gets a rate.
    max_difference : int, optional
        The largest D (default :data:`MAX_DIFFERENCE`).
    tol : float
        Stop once the error bound is at most this (default :data:`DEFAULT_TOL`).
    max_phases : int
        Stop before a D with more phases (default :data:`PHASE_BUDGET`).

    Returns
    -------
    MinQueueDecay or None
        None for a network that is not parallel JSQ; a rate of None (with the
        reason in ``method``) when it is unstable or too large for the QBD.

    Raises
    ------
    ValueError
        When ``max_difference < 1``.

    Examples
    --------
    >>> from certify.io.loader import from_dict
    >>> net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 1}, "2": {"mu": 2}},
    ...     "streams": [{"choice": ["1", "2"], "rate": 2.4}]})
    >>> d = min_queue_decay(net)
    >>> round(d.rate, 6), d.error <= 1e-7, d.theorem  # rho^2 = 0.8^2
    (0.64, True, 0.64)
    """
    par = parallel_jsq(net)
    if par is None:
        return None
    if max_difference is not None and max_difference < 1:
        raise ValueError(f"max_difference = {max_difference} must be >= 1")
    lam, mus = par
    exact = jsq_tail_theorem(net)
    theorem = None if exact is None else float(exact)
    source = None if exact is None else (f"Kobayashi, Sakuma and Miyazawa 2013: rho = lam / sum mu = "
                                         f"{lam / sum(mus)}, k = {len(mus)}")
    if lam >= sum(mus):
        return MinQueueDecay(None, None, {}, 0, "unstable: lam >= sum mu, no stationary distribution")
    if lam == 0:
        return MinQueueDecay(None, None, {}, 0, "no arrivals: every queue stays empty, the minimum queue has no tail")
    chain = markov_chain(net)
    uniform = all(len(set(probs)) == 1 for _, probs in chain.ties)  # lumping needs symmetric ties
    mu_f = [float(m) for m in mus]
    classes = rate_classes(mu_f, uniform)
    lumped = ", lumped by equal rates" if any(len(c) > 1 for c in classes) else ""
    first = phase_count(mu_f, 1, uniform)
    if first > max_phases:
        return MinQueueDecay(None, None, {}, 0, f"min-queue QBD not solved: {first} phases already at D = 1 "
                             f"(more than {max_phases}) for {net.J} stations with these rates",
                             theorem=theorem, theorem_source=source)

    def split(B: tuple[int, ...]) -> list[tuple[int, float]]:
        return [(j, float(p)) for j, p in chain.tie_split(B)]

    t0 = time.perf_counter()
    try:
        steps = decay_sequence(float(lam), mu_f, MAX_DIFFERENCE if max_difference is None else max_difference,
                               split=None if uniform else split, lump=uniform, tol=tol, max_phases=max_phases)
    except ArithmeticError as exc:
        return MinQueueDecay(None, None, {}, 0, f"min-queue QBD not solved: {exc}", theorem=theorem, theorem_source=source)
    seconds = time.perf_counter() - t0
    raw: dict[int, float | None] = {s.D: s.eta for s in steps}
    top = steps[-1]
    method = (f"min-queue QBD, phases = differences capped at D = {top.D} ({top.phases} phases{lumped}): "
              f"caudal characteristic root by Arnoldi and Brent for D = 1..{top.D}")
    if top.eta is None:
        return MinQueueDecay(None, None, raw, top.phases, method + "; no root in (0, 1)", top.D, theorem, source, seconds)
    lim = increasing_limit([s.eta for s in steps if s.eta is not None])
    return MinQueueDecay(lim.value, lim.error, raw, top.phases, f"{method}; {lim.how}", top.D, theorem, source, seconds,
                         lim.bounded)
