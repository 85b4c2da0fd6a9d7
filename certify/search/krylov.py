"""BiCGSTAB on several right-hand sides at once (the Poisson tables' linear solves; floats, the search only).

A box's Poisson equations share one matrix and one incomplete LU preconditioner (:func:`certify.search.poisson.box_law`)
and have J' + 1 or more right-hand sides. Each is solved by the same BiCGSTAB iteration as SciPy's
(``scipy.sparse.linalg.bicgstab``, right preconditioned), but the columns advance together: one sparse product and
one triangular solve of the preconditioner per step for all of them, where SciPy's iteration makes one per column.
Each column keeps its own scalars and its own stopping test, and leaves the block when it converges or breaks down.
Measured on J = 8 seed 33 at 0.85 (sink 6, a box of 194,399 unknowns, seven right-hand sides, 67 steps): 4.2 s
against 5.4 s for the seven solves one by one.  :func:`halved_block_bicgstab` runs two halves of the columns in two
threads (the sparse products and SuperLU's triangular solves release the GIL), with the same answer in one thread.

Public: :func:`block_bicgstab`, :func:`halved_block_bicgstab`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..markov.regions import TimeLimitReached

__all__ = ["block_bicgstab", "halved_block_bicgstab"]

#: The breakdown threshold of SciPy's BiCGSTAB (on rho and on omega): machine epsilon squared.
_BREAKDOWN = float(np.finfo(float).eps) ** 2


def _dots(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """The inner product of each column of X with the same column of Y."""
    return np.asarray(np.einsum("ij,ij->j", X, Y))


def block_bicgstab(A: Callable[[np.ndarray], np.ndarray], precondition: Callable[[np.ndarray], np.ndarray],
                   B: np.ndarray, rtol: float, maxiter: int, tick: Callable[[], None] | None = None
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Solve A X = B column by column with BiCGSTAB, every column advancing in the same step (x0 = 0).

    Parameters
    ----------
    A : callable
        X -> A X on an n x k array (a sparse matrix's ``@``).
    precondition : callable
        X -> M^-1 X on an n x k array (an incomplete LU factorisation's ``solve``).
    B : ndarray
        The right-hand sides, n x k.
    rtol : float
        A column has converged once its residual's norm is below ``rtol`` times its right-hand side's.
    maxiter : int
        The most steps.
    tick : callable, optional
        Called after every step (it may raise, e.g. past a deadline).

    Returns
    -------
    (ndarray, ndarray)
        X (n x k) and, per column, 0 where it converged (a zero right-hand side included), -10 where BiCGSTAB broke
        down (its last iterate kept), ``maxiter`` where it ran out of steps.

    Examples
    --------
    >>> A = np.array([[4.0, 1.0], [2.0, 3.0]])
    >>> X, info = block_bicgstab(lambda X: A @ X, lambda X: X, np.array([[1.0, 0.0], [2.0, 0.0]]), 1e-12, 50)
    >>> np.round(X, 12).tolist(), info.tolist()
    ([[0.1, 0.0], [0.6, 0.0]], [0, 0])
    """
    n, k = B.shape
    X = np.zeros((n, k))
    info = np.full(k, maxiter)
    norms = np.linalg.norm(B, axis=0)
    info[norms == 0] = 0
    cols = np.flatnonzero(norms > 0)
    R = B[:, cols].copy()
    # the columns still iterating: their tolerance, residual, shadow residual, iterate, directions and scalars
    live = [rtol * norms[cols], R, R.copy(), np.zeros_like(R), np.zeros_like(R), np.zeros_like(R)]
    scalars = [np.ones(len(cols)) for _ in range(4)]  # rho, rho_prev, alpha, omega

    def leave(out: np.ndarray, code: int) -> None:
        """The columns ``out`` (a mask over the live ones) leave with their iterate and ``code``."""
        nonlocal cols
        X[:, cols[out]] = live[3][:, out]
        info[cols[out]] = code
        keep = ~out
        cols = cols[keep]
        live[0] = live[0][keep]
        live[1:] = [Y[:, keep] for Y in live[1:]]
        scalars[:] = [a[keep] for a in scalars]

    for step in range(maxiter):
        if not len(cols):
            break
        atol, R, shadow, x, P, V = live
        scalars[0] = _dots(shadow, R)
        rho, rho_prev, alpha, omega = scalars
        broke = np.abs(rho) < _BREAKDOWN
        if step:
            broke |= np.abs(omega) < _BREAKDOWN
        if broke.any():  # SciPy returns its iterate there: so does this column
            leave(broke, -10)
            if not len(cols):
                break
            atol, R, shadow, x, P, V = live
            rho, rho_prev, alpha, omega = scalars
        if step:
            P -= omega * V
            P *= (rho / rho_prev) * (alpha / omega)
            P += R
        else:
            P[:] = R
        P_hat = precondition(P)
        V[:] = A(P_hat)
        rv = _dots(shadow, V)
        if (rv == 0).any():  # SciPy's third breakdown
            leave(rv == 0, -10)
            if not len(cols):
                break
            atol, R, shadow, x, P, V = live
            rho, rho_prev, alpha, omega = scalars
            P_hat, rv = P_hat[:, rv != 0], rv[rv != 0]
        alpha = rho / rv
        R -= alpha * V
        x += alpha * P_hat
        scalars[1], scalars[2] = rho, alpha
        half = np.linalg.norm(R, axis=0) < atol  # SciPy stops there, after half a step
        if half.any():
            leave(half, 0)
            if not len(cols):
                break
            atol, R, shadow, x, P, V = live
            rho, rho_prev, alpha, omega = scalars
        S_hat = precondition(R)
        T = A(S_hat)
        omega = _dots(T, R) / _dots(T, T)
        x += omega * S_hat
        R -= omega * T
        scalars[3] = omega
        done = np.linalg.norm(R, axis=0) < atol
        if done.any():
            leave(done, 0)
        if tick is not None:
            tick()
    X[:, cols] = live[3]
    return X, info


def halved_block_bicgstab(A: Callable[[np.ndarray], np.ndarray], precondition: Callable[[np.ndarray], np.ndarray],
                          B: np.ndarray, rtol: float, maxiter: int, tick: Callable[[], None] | None = None,
                          threads: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`block_bicgstab` on the first and the second half of B's columns, in two threads where the machine has
    a second core.

    Each column's iteration is its own, so each column is :func:`block_bicgstab`'s up to the order in which the
    products' sums are taken (a block of one column may sum in another order than a wider one); the halves are the
    same whatever the threads, so the answer does not depend on the machine's cores. ``A`` and ``precondition`` are
    called from both threads at once (a SciPy sparse matrix's ``@`` and an incomplete LU's ``solve`` may be: they
    release the GIL and share nothing they write).  Measured on J = 8 seed 99 of ``bench/frontier.py`` at 0.9 (sink
    4, a box of 388,800 unknowns, eight right-hand sides): 18.9 s in one block, 12.7 s in two halves on this 2-core
    machine.  Where one half raises (``tick`` past a deadline, an interrupt), the other is stopped at its next step
    (it raises TimeLimitReached, which is not reported) and the first exception is raised.

    Parameters
    ----------
    A, precondition, B, rtol, maxiter, tick
        As :func:`block_bicgstab`.
    threads : int, optional
        1: the halves in turn; 2: the second half in a second thread.  Default 2 where ``os.cpu_count()`` is at
        least 2, else 1.

    Returns
    -------
    (ndarray, ndarray)
        As :func:`block_bicgstab`.

    Examples
    --------
    >>> A = np.array([[4.0, 1.0], [2.0, 3.0]])
    >>> X, info = halved_block_bicgstab(lambda X: A @ X, lambda X: X, np.array([[1.0, 0.0], [2.0, 1.0]]), 1e-12, 50)
    >>> np.round(X, 12).tolist(), info.tolist()
    ([[0.1, -0.1], [0.6, 0.4]], [0, 0])
    """
    k = B.shape[1]
    if k < 2:
        return block_bicgstab(A, precondition, B, rtol, maxiter, tick)
    if threads is None:
        threads = 2 if (os.cpu_count() or 1) >= 2 else 1
    first, second = np.ascontiguousarray(B[:, :(k + 1) // 2]), np.ascontiguousarray(B[:, (k + 1) // 2:])
    if threads < 2:
        (X1, info1), (X2, info2) = (block_bicgstab(A, precondition, half, rtol, maxiter, tick) for half in (first, second))
        return np.hstack([X1, X2]), np.concatenate([info1, info2])
    stop = threading.Event()

    def step() -> None:
        if stop.is_set():
            raise TimeLimitReached("a half of the block solve (the other half stopped)")
        if tick is not None:
            tick()

    with ThreadPoolExecutor(1) as pool:
        other = pool.submit(block_bicgstab, A, precondition, second, rtol, maxiter, step)
        try:
            X1, info1 = block_bicgstab(A, precondition, first, rtol, maxiter, tick)
        except BaseException:
            stop.set()  # the pool's exit waits for the other half, which then ends within a step
            raise
        X2, info2 = other.result()
    return np.hstack([X1, X2]), np.concatenate([info1, info2])
