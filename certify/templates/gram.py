"""Exact Gram-matrix tools for SOS certificates (pure Python, numpy-free).

Two jobs, both in rational arithmetic:

* :func:`ldl_psd` decides whether a symmetric rational matrix is positive
  semidefinite by an LDL^T factorisation without pivoting, with the rule for
  semidefinite matrices that a zero pivot needs its whole remaining column to
  be zero.  It names the pivot that fails.
* :func:`project_affine` and :func:`fit_with_slack` implement the
  Peyrl–Parrilo step: after a float Gram matrix is rounded to rationals, move it
  (orthogonally) onto the affine set of the coefficient-matching identity, so
  that the identity holds *exactly*; PSD is then re-checked exactly.

The checker (:mod:`certify.exact`) imports this module, so it must never
import numpy, scipy or a solver.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeVar

__all__ = ["LDL", "ldl_psd", "is_psd", "project_affine", "fit_with_slack"]

Key = TypeVar("Key", bound=Hashable)


@dataclass(frozen=True)
class LDL:
    """The outcome of :func:`ldl_psd`.

    Attributes
    ----------
    psd : bool
        True when the matrix is positive semidefinite.
    pivot : int or None
        Index of the first failing pivot (None when ``psd``).
    reason : str
        Why that pivot fails ("" when ``psd``).
    d : tuple of Fraction
        The pivots computed so far (all of them when ``psd``): A = L diag(d) L^T.

    Examples
    --------
    >>> ldl_psd([[4, 2], [2, 2]])
    LDL(psd=True, pivot=None, reason='', d=(Fraction(4, 1), Fraction(1, 1)))
    """

    psd: bool
    pivot: int | None
    reason: str
    d: tuple[Fraction, ...]


def ldl_psd(A: Sequence[Sequence[Fraction | int]]) -> LDL:
    """Exact PSD test of a symmetric rational matrix by LDL^T (no pivoting).

    Step k takes the pivot p = S[k][k] of the current Schur complement S.
    p < 0: not PSD.  p = 0: PSD requires S[i][k] = 0 for every i > k (a PSD
    matrix with a zero diagonal entry has a zero row and column there), and the
    step eliminates nothing.  p > 0: eliminate column k.  The matrix is PSD
    exactly when every step passes, since then A = L diag(d) L^T with d >= 0,
    and conversely every Schur complement of a PSD matrix by a positive pivot is
    PSD.

    Parameters
    ----------
    A : sequence of sequence of Fraction or int
        A square matrix; it must be symmetric.

    Returns
    -------
    LDL
        ``psd`` and, when it fails, the failing ``pivot`` with the ``reason``.

    Raises
    ------
    ValueError
        If ``A`` is not square or not symmetric.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ldl_psd([[F(2), F(1)], [F(1), F(1)]]).psd          # B B^T with B = [[1, 1], [0, 1]]
    True
    >>> r = ldl_psd([[1, 2], [2, 1]])                      # eigenvalues 3 and -1
    >>> r.psd, r.pivot, r.d
    (False, 1, (Fraction(1, 1), Fraction(-3, 1)))
    >>> ldl_psd([[0, 1], [1, 5]]).reason                   # zero pivot, non-zero column
    'zero pivot 0 with non-zero entry in row 1'
    """
    n = len(A)
    S = [[Fraction(v) for v in row] for row in A]
    for i, row in enumerate(S):
        if len(row) != n:
            raise ValueError(f"matrix is not square: row {i} has {len(row)} entries, expected {n}")
    for i in range(n):
        for j in range(i + 1, n):
            if S[i][j] != S[j][i]:
                raise ValueError(f"matrix is not symmetric at ({i}, {j})")
    d: list[Fraction] = []
    for k in range(n):
        p = S[k][k]
        d.append(p)
        if p < 0:
            return LDL(False, k, f"negative pivot {k}: {p}", tuple(d))
        if p == 0:
            for i in range(k + 1, n):
                if S[i][k] != 0:
                    return LDL(False, k, f"zero pivot {k} with non-zero entry in row {i}", tuple(d))
            continue
        col = [S[i][k] for i in range(k + 1, n)]
        for a, i in enumerate(range(k + 1, n)):
            if not col[a]:
                continue
            f = col[a] / p
            Si = S[i]
            for b, j in enumerate(range(k + 1, i + 1)):
                if col[b]:
                    Si[j] -= f * col[b]
                    if j != i:
                        S[j][i] = Si[j]
    return LDL(True, None, "", tuple(d))


def is_psd(A: Sequence[Sequence[Fraction | int]]) -> bool:
    """True when the symmetric rational matrix ``A`` is positive semidefinite (exact).

    Parameters
    ----------
    A : sequence of sequence of Fraction or int
        A square symmetric matrix.

    Returns
    -------
    bool
        ``ldl_psd(A).psd``.

    Raises
    ------
    ValueError
        If ``A`` is not square or not symmetric.

    Examples
    --------
    >>> is_psd([[1, 1], [1, 1]]), is_psd([[1, 0], [0, -1]])
    (True, False)
    """
    return ldl_psd(A).psd


def project_affine(
    values: Sequence[Fraction],
    coeffs: Sequence[Fraction | int],
    target: Fraction,
    weights: Sequence[Fraction | int] | None = None,
) -> list[Fraction]:
    """Exact orthogonal projection of ``values`` onto {v : sum_t coeffs[t] v[t] = target}.

    ``weights`` w_t > 0 choose the norm sum_t w_t (v_t - values_t)^2 (default all 1):
    the answer is values_t + r (a_t / w_t) / sum_s (a_s^2 / w_s), with r the residual.
    For a symmetric Gram matrix parametrised by its upper triangle, the weight of an
    off-diagonal entry is 2 (it occurs twice), which gives the Frobenius projection.

    Parameters
    ----------
    values : sequence of Fraction
        The point to project.
    coeffs : sequence of Fraction or int
        The hyperplane's normal (as long as ``values``).
    target : Fraction
        Its right side.
    weights : sequence of Fraction or int, optional
        Positive weights of the norm (default all 1).

    Returns
    -------
    list of Fraction
        The projection, on the hyperplane exactly.

    Raises
    ------
    ValueError
        If every coefficient is zero (the hyperplane is empty or everything), the
        lengths differ, or a weight is not positive.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> project_affine([F(1), F(1)], [1, 2], F(6))            # onto v0 + 2 v1 = 6
    [Fraction(8, 5), Fraction(11, 5)]
    """
    if len(values) != len(coeffs):
        raise ValueError("values and coeffs differ in length")
    w = [Fraction(1)] * len(values) if weights is None else [Fraction(x) for x in weights]
    if any(x <= 0 for x in w):
        raise ValueError("weights must be positive")
    a = [Fraction(x) for x in coeffs]
    norm = sum((ai * ai / wi for ai, wi in zip(a, w)), Fraction(0))
    if norm == 0:
        raise ValueError("no non-zero coefficient: nothing to project")
    r = Fraction(target) - sum((ai * Fraction(v) for ai, v in zip(a, values)), Fraction(0))
    step = r / norm
    return [Fraction(v) + step * ai / wi for v, ai, wi in zip(values, a, w)]


def fit_with_slack(
    values: Mapping[Key, Fraction],
    equation: Iterable[tuple[Key, Fraction | int, Fraction | int]],
    target: Fraction,
) -> tuple[dict[Key, Fraction], Fraction]:
    """Make ``sum_t a_t v_t + slack = target`` hold exactly with ``slack >= 0`` where possible.

    ``equation`` lists the terms (key, coefficient a_t, weight w_t) of one
    monomial's coefficient-matching equation.  The slack (a nonnegative
    multiplier such as a coefficient n_b of a cubic monomial) takes the residual
    when it is >= 0, and the Gram entries stay untouched; otherwise the slack is 0
    and the entries are projected (:func:`project_affine`) onto the equation: the
    Peyrl–Parrilo projection restricted to the one monomial that needs it (each
    Gram entry occurs in exactly one monomial's equation, so the projections of
    different monomials do not interact).  Without terms, the residual is
    returned as the slack even when it is negative (the exact check refuses it).

    Parameters
    ----------
    values : mapping of key to Fraction
        The current values of every key the equation names.
    equation : iterable of (key, coefficient, weight)
        The terms a_t v_t of the equation, with the weights w_t of the projection.
    target : Fraction
        The right side.

    Returns
    -------
    changed : dict
        The keys of ``equation`` whose value changed, with their new values.
    slack : Fraction
        The slack that makes the equation hold.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> fit_with_slack({"q": F(1)}, [("q", 2, 1)], F(3))    # 2q = 2 <= 3: slack 1
    ({}, Fraction(1, 1))
    >>> fit_with_slack({"q": F(1)}, [("q", 2, 1)], F(1))    # 2q = 2 > 1: q = 1/2, slack 0
    ({'q': Fraction(1, 2)}, Fraction(0, 1))
    """
    terms = list(equation)
    lhs = sum((Fraction(a) * values[k] for k, a, _ in terms), Fraction(0))
    slack = Fraction(target) - lhs
    if slack >= 0 or not any(a for _, a, _ in terms):
        return {}, slack
    keys = [k for k, a, _ in terms if a]
    new = project_affine([values[k] for k in keys], [a for _, a, _ in terms if a], Fraction(target), [w for _, a, w in terms if a])
    return dict(zip(keys, new)), Fraction(0)
