"""Exact Gram-matrix tools: rational LDL^T PSD test and Peyrl–Parrilo projections."""

import random
from fractions import Fraction as F

import numpy as np
import pytest

from certify.templates.gram import fit_with_slack, is_psd, ldl_psd, project_affine


def _rand_q(rng, lo=-5, hi=5, den=7):
    """A random small rational."""
    return F(rng.randint(lo * den, hi * den), rng.randint(1, den))


def _matmul_t(B, C):
    """B C^T for lists of lists of Fractions."""
    return [[sum((b * c for b, c in zip(rb, rc)), F(0)) for rc in C] for rb in B]


@pytest.mark.parametrize("seed", range(20))
def test_gram_products_are_psd(seed):
    """B B^T is accepted for random rational B, including rank-deficient ones (k < n columns)."""
    rng = random.Random(seed)
    n = rng.randint(1, 6)
    k = rng.randint(1, n + 1)
    B = [[_rand_q(rng) for _ in range(k)] for _ in range(n)]
    res = ldl_psd(_matmul_t(B, B))
    assert res.psd and res.pivot is None
    assert all(d >= 0 for d in res.d)


@pytest.mark.parametrize("seed", range(20))
def test_congruent_indefinite_is_refused(seed):
    """P diag(d) P^T with invertible P and some d_i < 0 is refused (Sylvester's law of inertia)."""
    rng = random.Random(100 + seed)
    n = rng.randint(2, 6)
    while True:
        P = [[_rand_q(rng) for _ in range(n)] for _ in range(n)]
        if abs(np.linalg.det(np.array(P, dtype=float))) > 1e-3:
            break
    d = [F(rng.randint(0, 5)) for _ in range(n)]
    d[rng.randrange(n)] = -F(rng.randint(1, 5), rng.randint(1, 9))
    M = _matmul_t(P, [[P[i][j] * d[j] for j in range(n)] for i in range(n)])
    res = ldl_psd(M)
    assert not res.psd and res.pivot is not None and res.reason


@pytest.mark.parametrize("seed", range(40))
def test_agrees_with_eigenvalues(seed):
    """On random symmetric rational matrices the exact verdict matches the sign of the least eigenvalue."""
    rng = random.Random(1000 + seed)
    n = rng.randint(1, 5)
    A = [[F(0)] * n for _ in range(n)]
    for i in range(n):
        for j in range(i, n):
            A[i][j] = A[j][i] = _rand_q(rng)
        A[i][i] += F(rng.randint(0, 12))  # push some of them towards PSD
    lam = np.linalg.eigvalsh(np.array(A, dtype=float)).min()
    if abs(lam) < 1e-9:
        pytest.skip("numerically singular draw")
    assert is_psd(A) == (lam > 0)


def test_zero_pivot_needs_zero_column():
    """A zero diagonal entry with a non-zero entry in its column fails at that pivot; a zero row passes."""
    res = ldl_psd([[1, 1, 0], [1, 1, 1], [0, 1, 3]])  # Schur complement has a zero pivot at 1 with entry 1 below
    assert not res.psd and res.pivot == 1 and "zero pivot 1" in res.reason
    assert ldl_psd([[0, 0, 0], [0, 2, 1], [0, 1, 1]]).psd


def test_negative_pivot_is_named():
    """The failing pivot is the first negative one of the elimination."""
    res = ldl_psd([[4, 2, 0], [2, 1, 0], [0, 0, -1]])
    assert not res.psd and res.pivot == 2 and res.d[:2] == (4, 0)


def test_non_symmetric_is_an_error():
    """A non-symmetric matrix is rejected as input, not judged."""
    with pytest.raises(ValueError, match="not symmetric"):
        ldl_psd([[1, 2], [3, 4]])


@pytest.mark.parametrize("seed", range(10))
def test_projection_is_exact_and_orthogonal(seed):
    """The projection satisfies the equation exactly and moves along the weighted normal a/w."""
    rng = random.Random(2000 + seed)
    n = rng.randint(1, 6)
    x = [_rand_q(rng) for _ in range(n)]
    a = [F(rng.choice([1, 2, 3, -1])) for _ in range(n)]
    w = [F(rng.choice([1, 2])) for _ in range(n)]
    t = _rand_q(rng)
    p = project_affine(x, a, t, w)
    assert sum(ai * pi for ai, pi in zip(a, p)) == t
    steps = {(pi - xi) * wi / ai for pi, xi, ai, wi in zip(p, x, a, w)}
    assert len(steps) == 1


def test_projection_of_a_gram_monomial():
    """Projecting Q[0,0] + 2 Q[0,1] = 1 in the Frobenius norm moves every matrix entry by the same amount."""
    vals = {"q00": F(1, 3), "q01": F(1, 5)}
    new, slack = fit_with_slack(vals, [("q00", 1, 1), ("q01", 2, 2)], F(1, 2))
    assert slack == 0
    assert new["q00"] + 2 * new["q01"] == F(1, 2)
    assert new["q00"] - vals["q00"] == new["q01"] - vals["q01"]


def test_slack_takes_a_nonnegative_residual():
    """A nonnegative residual goes to the slack and the Gram entries stay as rounded."""
    new, slack = fit_with_slack({"q": F(1, 4)}, [("q", 1, 1)], F(1))
    assert new == {} and slack == F(3, 4)


def test_slack_without_gram_terms_can_be_negative():
    """With no Gram entry in the equation, a negative residual is returned for the checker to refuse."""
    assert fit_with_slack({}, [], F(-1, 3)) == ({}, F(-1, 3))
