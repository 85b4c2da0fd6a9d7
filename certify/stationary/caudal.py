"""The min-queue tail decay of parallel JSQ at scale: sparse blocks, Arnoldi Perron roots, convergence in D.

The tail-decay rate eta of the minimum queue of parallel JSQ is the root in
(0, 1) of the caudal characteristic of its min-queue QBD (level min_i x_i,
phase the differences d = x - min x, each capped at D): the z at which the
Metzler matrix M(z) = A0 / z + A1 + z A2 has Perron root (spectral abscissa)
chi(z) = 0.  This module computes it for hundreds of thousands of phases:

* :func:`phase_blocks` builds the blocks with numpy (no Python loop over
  phases), lumping stations of equal rate (exact for uniform ties);
* :func:`perron_abscissa` computes chi(z) and its Perron vector by restarted
  Arnoldi (ARPACK) on M(z) + cI, warm-started; a sparse LU of M(z) (which
  shift-invert and the bisection of :func:`~certify.stationary.qbd.caudal_root`
  need) fills in catastrophically for k >= 5 stations (k = 5, D = 8: 26,281
  phases, 94 million factor entries, 127 s), one Arnoldi solve takes about a second;
* :func:`caudal_eta` finds the root: chi is convex in t = log z with roots at
  log eta and 0, so Brent's method on a sign-change bracket of chi(t) converges.

:mod:`certify.stationary.tail_sequence` runs D = 1, 2, ... and bounds the limit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations_with_replacement
from math import comb, log

import numpy as np
import scipy.sparse as sp
from scipy.optimize import brentq
from scipy.sparse.linalg import ArpackNoConvergence, eigs

__all__ = ["rate_classes", "phase_count", "PhaseBlocks", "phase_blocks", "perron_abscissa", "caudal_eta"]

#: Below this many phases chi(z) comes from a dense eigenvalue solve.
DENSE = 64


def rate_classes(mu: Sequence[float], lump: bool) -> list[list[int]]:
    """The stations the min-queue QBD keeps apart: one class per rate with ``lump``, else one per station.

    Parameters
    ----------
    mu : sequence of float
        The service rates.
    lump : bool
        Whether stations of equal rate are lumped (exact for uniform ties only).

    Returns
    -------
    list of list of int
        The classes, each a list of station indices, in order of first appearance.

    Examples
    --------
    >>> rate_classes([1.0, 2.0, 1.0], True), rate_classes([1.0, 2.0, 1.0], False)
    ([[0, 2], [1]], [[0], [1], [2]])
    """
    if not lump:
        return [[i] for i in range(len(mu))]
    out: dict[float, list[int]] = {}
    for i, m in enumerate(mu):
        out.setdefault(m, []).append(i)
    return list(out.values())


def phase_count(mu: Sequence[float], D: int, lump: bool) -> int:
    """Number of phases of the min-queue QBD with differences capped at ``D``.

    Per class of equal rates (one station per class without ``lump``) a
    multiset of differences in 0..D, at least one difference 0 overall.

    Parameters
    ----------
    mu : sequence of float
        The service rates.
    D : int
        The cap of the differences.
    lump : bool
        Whether stations of equal rate are lumped.

    Returns
    -------
    int
        The number of phases.

    Examples
    --------
    >>> phase_count([0.4, 0.8, 1.0, 1.3, 1.5], 8, False), phase_count([1.0] * 8, 12, True)
    (26281, 50388)
    """
    every = no_zero = 1
    for c in rate_classes(mu, lump):
        every *= comb(D + len(c), len(c))
        no_zero *= comb(D - 1 + len(c), len(c))
    return every - no_zero


@dataclass(frozen=True)
class PhaseBlocks:
    """The blocks of the min-queue QBD and a fast M(z) = A0 / z + A1 + z A2.

    The three blocks share one sparsity pattern; ``A0``, ``A1`` and ``A2`` are
    built from it on first use (:meth:`M` does not need them).

    Attributes
    ----------
    phases : numpy.ndarray
        (m, k) difference vectors, in the order of the blocks (per class of
        lumped stations sorted).
    D : int
        The cap of the differences.
    lookup : callable
        Maps an (n, k) array of difference vectors (entries in 0..D, at least
        one 0) to their phase indices.
    pattern : scipy.sparse.csr_matrix
        The union of the blocks' sparsity patterns (its data unused).
    coef : tuple of numpy.ndarray
        The entries of A0, A1 and A2 on ``pattern``.

    Examples
    --------
    >>> b = phase_blocks(1.0, [1.0, 2.0], 1)
    >>> b.phases.tolist(), b.M(0.5).toarray().tolist()
    ([[0, 0], [0, 1], [1, 0]], [[-4.0, 1.0, 1.5], [4.0, -3.5, 0.0], [3.0, 0.0, -3.0]])
    """

    phases: np.ndarray
    D: int
    lookup: Callable[[np.ndarray], np.ndarray]
    pattern: sp.csr_matrix
    coef: tuple[np.ndarray, np.ndarray, np.ndarray]

    def _block(self, which: int) -> sp.csr_matrix:
        A = sp.csr_matrix((self.coef[which].copy(), self.pattern.indices.copy(), self.pattern.indptr.copy()),
                          shape=self.pattern.shape)
        A.eliminate_zeros()
        return A

    @cached_property
    def A0(self) -> sp.csr_matrix:
        """The level-up block (arrivals that lift a unique minimum)."""
        return self._block(0)

    @cached_property
    def A1(self) -> sp.csr_matrix:
        """The local block, with the diagonal (minus the total outflow)."""
        return self._block(1)

    @cached_property
    def A2(self) -> sp.csr_matrix:
        """The level-down block (services at a shortest queue)."""
        return self._block(2)

    def M(self, z: float, shift: float = 0.0) -> sp.csr_matrix:
        """The Metzler matrix A0 / z + A1 + z A2 (+ shift I), on one fixed sparsity pattern.

        Parameters
        ----------
        z : float
            The point, > 0.
        shift : float
            Added to the diagonal.

        Returns
        -------
        scipy.sparse.csr_matrix
            The matrix.

        Examples
        --------
        >>> phase_blocks(1.0, [1.0], 3).M(0.5).toarray().tolist()  # M/M/1: 1/z - 2 + z
        [[0.5]]
        """
        c0, c1, c2 = self.coef
        P = self.pattern.copy()
        P.data = c0 / z + c1 + c2 * z
        if shift:
            P.setdiag(P.diagonal() + shift)
        return P


def phase_blocks(lam: float, mu: Sequence[float], D: int,
                 split: Callable[[tuple[int, ...]], Sequence[tuple[int, float]]] | None = None,
                 lump: bool = False) -> PhaseBlocks:
    """The min-queue QBD of parallel JSQ with differences capped at ``D``, built with numpy.

    The same chain as :func:`~certify.stationary.qbd.qbd_blocks` (level
    min_i x_i; a difference that would exceed D stays at D), in the same phase
    order, for hundreds of thousands of phases.

    Parameters
    ----------
    lam : float
        The total arrival rate.
    mu : sequence of float
        The service rates.
    D : int
        The cap of the differences (>= 1).
    split : callable, optional
        ``split(B)`` -> ``[(station, probability), ...]``: how an arrival whose
        tied-shortest set is ``B`` (a sorted tuple) splits (default uniform).
    lump : bool
        Lump stations of equal rate (valid for uniform ties only).

    Returns
    -------
    PhaseBlocks
        The blocks, the phases and M(z).

    Raises
    ------
    ValueError
        When ``D < 1``.

    Examples
    --------
    >>> b = phase_blocks(1.0, [1.0, 1.0], 2, lump=True)
    >>> b.phases.tolist(), b.A0.toarray().tolist()
    ([[0, 0], [0, 1], [0, 2]], [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    """
    if D < 1:
        raise ValueError(f"D = {D} must be >= 1")
    k = len(mu)
    mus = np.asarray(mu, dtype=float)
    classes = rate_classes(list(mus), lump)
    per = [np.array(list(combinations_with_replacement(range(D + 1), len(c))), dtype=np.int64) for c in classes]
    sizes = [len(p) for p in per]
    stride = np.cumprod([1] + sizes[::-1])[:-1][::-1]  # row-major over the classes: the product order
    # colex rank of a sorted multiset a_0 <= ... <= a_(n-1): sum_j C(a_j + j, j + 1)
    top = D + k + 1
    binom = np.array([[comb(n, r) for r in range(k + 2)] for n in range(top)], dtype=np.int64)
    lex_of_colex = []
    for p in per:
        n = p.shape[1]
        colex = sum(binom[p[:, j] + j, j + 1] for j in range(n))
        inv = np.empty(len(p), dtype=np.int64)
        inv[colex] = np.arange(len(p))
        lex_of_colex.append(inv)

    def key(Q: np.ndarray) -> np.ndarray:
        out = np.zeros(len(Q), dtype=np.int64)
        for c, s, inv in zip(classes, stride, lex_of_colex):
            a = np.sort(Q[:, c], axis=1) if len(c) > 1 else Q[:, c]
            colex = sum(binom[a[:, j] + j, j + 1] for j in range(len(c)))
            out += s * inv[colex]
        return out

    grid = np.indices(sizes).reshape(len(sizes), -1)
    P = np.zeros((grid.shape[1], k), dtype=np.int16)
    for c, p, g in zip(classes, per, grid):
        P[:, c] = p[g]
    keep = P.min(axis=1) == 0
    P = P[keep]
    m = len(P)
    where = np.full(grid.shape[1], -1, dtype=np.int64)
    where[np.nonzero(keep)[0]] = np.arange(m)

    def lookup(Q: np.ndarray) -> np.ndarray:
        out: np.ndarray = where[key(Q)]
        if np.any(out < 0):
            raise ValueError("a difference vector without a zero has no phase")
        return out

    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    kind: list[int] = []

    def add(r: np.ndarray, Q: np.ndarray, v: np.ndarray | float, which: int) -> None:
        if len(r):
            rows.append(r)
            cols.append(lookup(Q))
            vals.append(np.broadcast_to(np.asarray(v, dtype=float), r.shape).copy())
            kind.append(which)

    Z = P == 0
    nz = Z.sum(axis=1)
    u = np.nonzero(nz == 1)[0]  # a unique minimum: the arrival lifts the level, the others come closer
    Q = P[u] - 1
    Q[np.arange(len(u)), np.argmax(Z[u], axis=1)] = 0
    add(u, Q, lam, 0)
    tied = np.nonzero(nz > 1)[0]
    if split is None:
        for i in range(k):
            t = tied[Z[tied, i]]
            Q = P[t].copy()
            Q[:, i] = 1
            add(t, Q, lam / nz[t], 1)
    else:
        bits = (Z[tied] * (1 << np.arange(k))).sum(axis=1)
        for b in np.unique(bits):
            t = tied[bits == b]
            B = tuple(int(i) for i in range(k) if b >> i & 1)
            for j, share in split(B):
                Q = P[t].copy()
                Q[:, j] = 1
                add(t, Q, lam * float(share), 1)
    for i in range(k):
        t = np.nonzero(~Z[:, i])[0]
        Q = P[t].copy()
        Q[:, i] -= 1
        add(t, Q, mus[i], 1)
        t = np.nonzero(Z[:, i])[0]  # a shortest queue serves: level down, the others' differences grow (capped)
        Q = np.minimum(P[t] + 1, D)
        Q[:, i] = 0
        add(t, Q, mus[i], 2)
    out = np.zeros(m)
    for r, v in zip(rows, vals):
        out += np.bincount(r, weights=v, minlength=m)
    diag = np.arange(m)
    rows.append(diag)
    cols.append(diag)
    vals.append(-out)
    kind.append(1)
    allkey = np.concatenate([r * m + c for r, c in zip(rows, cols)])
    uniq, pos = np.unique(allkey, return_inverse=True)
    kinds = np.concatenate([np.full(len(r), w, dtype=np.int8) for r, w in zip(rows, kind)])
    allv = np.concatenate(vals)
    coef = tuple(np.bincount(pos, weights=np.where(kinds == w, allv, 0.0), minlength=len(uniq)) for w in (0, 1, 2))
    indptr = np.concatenate([[0], np.cumsum(np.bincount(uniq // m, minlength=m))])
    pattern = sp.csr_matrix((np.ones(len(uniq)), (uniq % m).astype(np.int64), indptr), shape=(m, m))
    return PhaseBlocks(P, D, lookup, pattern, coef)  # type: ignore[arg-type]


def perron_abscissa(blocks: PhaseBlocks, z: float, v0: np.ndarray | None = None,
                    tol: float = 1e-12) -> tuple[float, np.ndarray]:
    """chi(z), the Perron root (spectral abscissa) of M(z) = A0 / z + A1 + z A2, and its right Perron vector.

    With c the largest diagonal magnitude, M(z) + cI is nonnegative, so its
    eigenvalue of largest real part is its Perron root: restarted Arnoldi
    (ARPACK, ``which="LR"``) finds it, to ``tol`` relative to c (the shift
    keeps ARPACK's relative test meaningful where chi is near 0).  Dense
    eigenvalues for small blocks.

    Parameters
    ----------
    blocks : PhaseBlocks
        The QBD.
    z : float
        The point, > 0.
    v0 : numpy.ndarray, optional
        A start vector (the Perron vector at a nearby z).
    tol : float
        Relative tolerance of Arnoldi.

    Returns
    -------
    chi : float
        The spectral abscissa.
    v : numpy.ndarray
        Its right Perron vector (nonnegative, unit sum).

    Raises
    ------
    ArithmeticError
        When Arnoldi does not converge or finds no positive Perron vector.

    Examples
    --------
    M/M/1 with lam = 1, mu = 2: chi(z) = 1/z - 3 + 2z, zero at z = 1/2 and z = 1.

    >>> b = phase_blocks(1.0, [2.0], 1)
    >>> [round(perron_abscissa(b, z)[0], 12) for z in (0.25, 0.5, 0.75)]
    [1.5, 0.0, -0.166666666667]
    """
    m = blocks.phases.shape[0]
    B = blocks.M(z)
    diag = B.diagonal()
    c = float(max(0.0, -diag.min())) + 1.0
    if m <= DENSE:
        w, V = np.linalg.eig(B.toarray())
        j = int(np.argmax(w.real))
        lam_, v = float(w[j].real), V[:, j].real
    else:
        B.setdiag(diag + c)
        start = None if v0 is None or len(v0) != m else np.maximum(np.asarray(v0, dtype=float), 1e-300)
        try:
            w, V = eigs(B, k=1, which="LR", ncv=min(20, m - 1), tol=tol, v0=start, maxiter=20 * m)
        except ArpackNoConvergence:
            try:
                w, V = eigs(B, k=1, which="LR", ncv=min(60, m - 1), tol=tol, maxiter=20 * m)
            except ArpackNoConvergence as exc:
                raise ArithmeticError(f"Arnoldi did not converge for the Perron root at z = {z}") from exc
        if abs(w[0].imag) > 1e-8 * c:
            raise ArithmeticError(f"Arnoldi returned a complex rightmost eigenvalue {w[0]} at z = {z}")
        lam_, v = float(w[0].real) - c, V[:, 0].real
    v = v * np.sign(v.sum())
    if v.min() < -1e-8 * np.abs(v).max():
        raise ArithmeticError(f"the Perron vector at z = {z} has entries of both signs")
    v = np.maximum(v, 0.0)
    return lam_, v / v.sum()


def caudal_eta(blocks: PhaseBlocks, lo: float | None = None, hi: float | None = None,
               v0: np.ndarray | None = None, xtol: float = 1e-10) -> tuple[float | None, np.ndarray | None, int]:
    """The root eta in (0, 1) of chi(z) = 0 (sp(R) of the QBD), by Brent's method on t = log z.

    chi(e^t) is convex in t (Kingman: the Perron root of a matrix with
    log-convex entries is log-convex), vanishes at t = 0 (M(1) has zero row
    sums) and, for a positive recurrent QBD, at t = log eta < 0, negative in
    between.  ``lo`` (chi > 0 there) and ``hi`` (chi < 0) start the bracket when
    they test as they should; otherwise it is found by stepping.

    Parameters
    ----------
    blocks : PhaseBlocks
        The QBD.
    lo, hi : float, optional
        Guesses below and above eta.
    v0 : numpy.ndarray, optional
        A start vector for Arnoldi.
    xtol : float
        Width in t = log z of the final bracket.

    Returns
    -------
    eta : float or None
        The root (None when chi >= 0 just below z = 1: not positive recurrent).
    v : numpy.ndarray or None
        The Perron vector at the last point evaluated.
    evaluations : int
        Perron roots computed.

    Raises
    ------
    ArithmeticError
        When a Perron root fails (:func:`perron_abscissa`) or chi has no
        positive value (no arrivals).

    Examples
    --------
    >>> b = phase_blocks(1.0, [2.0], 1)
    >>> round(caudal_eta(b)[0], 10)  # M/M/1: eta = rho = 1/2
    0.5
    """
    state: dict[str, np.ndarray | None] = {"v": v0}
    seen: dict[float, float] = {}

    def chi(t: float) -> float:
        if t not in seen:  # brentq evaluates the ends of the bracket again
            seen[t], state["v"] = perron_abscissa(blocks, float(np.exp(t)), state["v"])
        return seen[t]

    edge = log(1.0 - 1e-7)
    t_hi = log(hi) if hi is not None and 0 < hi < 1 else edge
    c_hi = chi(t_hi)
    while c_hi >= 0:
        if t_hi >= edge:
            return None, state["v"], len(seen)
        lo, t_hi = float(np.exp(t_hi)), min(edge, 0.5 * t_hi)
        c_hi = chi(t_hi)
    t_lo = log(lo) if lo is not None and 0 < lo < np.exp(t_hi) else t_hi + log(0.5)
    c_lo = chi(t_lo)
    while c_lo <= 0:
        if t_lo < -700:  # chi(z) grows like lam / z as z -> 0 unless there are no arrivals
            raise ArithmeticError("chi(z) <= 0 down to z = 1e-304: no level-up transitions")
        t_hi, t_lo = t_lo, t_lo + log(0.5)
        c_lo = chi(t_lo)
    t = brentq(chi, t_lo, t_hi, xtol=xtol, rtol=1e-15)
    return float(np.exp(t)), state["v"], len(seen)
