"""certify.search.krylov: BiCGSTAB on several right-hand sides at once, against dense solves and SciPy's own."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spl

from certify.search.krylov import block_bicgstab, halved_block_bicgstab


def _system(seed: int, n: int = 60) -> sp.csr_matrix:
    """A nonsymmetric, diagonally dominant sparse matrix."""
    rng = np.random.default_rng(seed)
    A = sp.random(n, n, density=0.1, random_state=rng, format="csr")
    return (A + sp.diags(np.abs(A).sum(axis=1).A1 + 1.0)).tocsr()


def test_every_column_is_the_dense_solution():
    """Each column of X solves A x = b to the requested relative tolerance."""
    A = _system(0)
    B = np.random.default_rng(1).normal(size=(60, 5))
    X, info = block_bicgstab(A.__matmul__, lambda Y: Y, B, 1e-12, 500)
    assert info.tolist() == [0] * 5
    assert np.abs(X - np.linalg.solve(A.toarray(), B)).max() < 1e-9


def test_a_zero_right_hand_side_gives_zero_and_leaves_the_others_alone():
    """A zero column is solved by x = 0 at once; the other columns converge as they would alone."""
    A = _system(2)
    B = np.random.default_rng(3).normal(size=(60, 3))
    B[:, 1] = 0.0
    X, info = block_bicgstab(A.__matmul__, lambda Y: Y, B, 1e-12, 500)
    assert info.tolist() == [0, 0, 0]
    assert not X[:, 1].any()
    assert np.abs(A @ X - B).max() < 1e-9


def test_with_an_ilu_preconditioner_it_matches_scipys_bicgstab_column_by_column():
    """Right preconditioned by an incomplete LU, each column agrees with SciPy's bicgstab on that column alone."""
    A = _system(4, 200).tocsc()
    ilu = spl.spilu(A, drop_tol=0.1, fill_factor=3, permc_spec="NATURAL")
    B = np.random.default_rng(5).normal(size=(200, 3))
    X, info = block_bicgstab(A.__matmul__, ilu.solve, B, 1e-12, 500)
    M = spl.LinearOperator(A.shape, ilu.solve)
    for k in range(3):
        x, code = spl.bicgstab(A, B[:, k], M=M, rtol=1e-12, atol=0.0, maxiter=500)
        assert code == 0 and info[k] == 0
        assert np.abs(X[:, k] - x).max() < 1e-9


def test_a_column_that_runs_out_of_steps_says_so():
    """With too few steps, a column that has not converged reports maxiter and keeps its last iterate."""
    A = _system(6, 200)
    B = np.random.default_rng(7).normal(size=(200, 2))
    X, info = block_bicgstab(A.__matmul__, lambda Y: Y, B, 1e-14, 2)
    assert info.tolist() == [2, 2]
    assert np.isfinite(X).all() and X.any()


def test_a_breakdown_is_reported_with_the_iterate_so_far():
    """Where the shadow residual is orthogonal to A p the column breaks down (-10), as SciPy's does (its -11)."""
    A = np.array([[0.0, 1.0], [1.0, 0.0]])
    B = np.array([[1.0, 1.0], [0.0, 1.0]])  # first column: r0 = e1, A p = e2, r0 . A p = 0; the second solves
    X, info = block_bicgstab(lambda Y: A @ Y, lambda Y: Y, B, 1e-12, 10)
    x, code = spl.bicgstab(A, B[:, 0], rtol=1e-12, atol=0.0, maxiter=10)
    assert info[0] == -10 and code < 0
    assert np.isfinite(X).all()
    assert info[1] == 0 and np.abs(X[:, 1] - [1.0, 1.0]).max() < 1e-12


def test_tick_is_called_once_a_step_and_may_stop_the_solve():
    """The callback runs after every step; an exception from it ends the solve."""
    A = _system(8)
    B = np.random.default_rng(9).normal(size=(60, 2))
    calls = []

    def tick() -> None:
        calls.append(1)
        if len(calls) == 2:
            raise TimeoutError

    with pytest.raises(TimeoutError):
        block_bicgstab(A.__matmul__, lambda Y: Y, B, 1e-14, 100, tick)
    assert len(calls) == 2


@pytest.mark.parametrize("k", [2, 5])
def test_two_threads_give_the_halves_in_turn_bit_for_bit_and_one_blocks_answer(k):
    """With an incomplete LU preconditioner, the halves in two threads equal the halves in turn bit for bit (the
    answer does not depend on the cores), and one block's answer to rounding."""
    A = _system(8, 300).tocsc()
    ilu = spl.spilu(A, drop_tol=0.1, fill_factor=3, permc_spec="NATURAL")
    B = np.random.default_rng(9).normal(size=(300, k))
    X, info = block_bicgstab(A.__matmul__, ilu.solve, B, 1e-12, 500)
    X1, info1 = halved_block_bicgstab(A.__matmul__, ilu.solve, B, 1e-12, 500, threads=1)
    X2, info2 = halved_block_bicgstab(A.__matmul__, ilu.solve, B, 1e-12, 500, threads=2)
    assert info2.tolist() == info1.tolist() == info.tolist() == [0] * k
    assert np.array_equal(X2, X1)
    assert np.abs(X2 - X).max() <= 1e-12 * np.abs(X).max()


def _recording(A: sp.csr_matrix):
    """Y -> A Y that records the threads it is called from, and that set of thread ids."""
    seen: set[int] = set()

    def product(Y):
        seen.add(threading.get_ident())
        return A @ Y

    return product, seen


def test_the_halves_run_in_two_threads():
    """The second half's products are made in a thread other than the caller's."""
    product, seen = _recording(_system(10))
    halved_block_bicgstab(product, lambda Y: Y, np.ones((60, 4)), 1e-12, 500, threads=2)
    assert len(seen) == 2 and threading.get_ident() in seen


def test_a_half_that_raises_stops_the_other_and_its_exception_is_raised():
    """The caller's half raises at its third step: the other half stops at its next step, and the caller sees the
    first half's exception."""
    A = _system(11, 200)
    steps = {"caller": 0, "other": 0}
    caller = threading.get_ident()

    def tick():
        who = "caller" if threading.get_ident() == caller else "other"
        steps[who] += 1
        if who == "caller" and steps[who] == 3:
            raise KeyError("stop here")

    def product(Y):
        if threading.get_ident() != caller:
            threading.Event().wait(0.01)  # the other half is slower, so it is still running when the caller raises
        return A @ Y

    B = np.random.default_rng(12).normal(size=(200, 4))
    with pytest.raises(KeyError, match="stop here"):
        halved_block_bicgstab(product, lambda Y: Y, B, 1e-14, 500, tick, threads=2)
    assert steps["caller"] == 3 and steps["other"] < 50


def test_one_thread_or_one_column_stays_in_the_callers_thread():
    """threads=1, or a single column, solves in the caller's thread alone."""
    product, seen = _recording(_system(13))
    halved_block_bicgstab(product, lambda Y: Y, np.ones((60, 3)), 1e-12, 500, threads=1)
    halved_block_bicgstab(product, lambda Y: Y, np.ones((60, 1)), 1e-12, 500, threads=2)
    assert seen == {threading.get_ident()}
