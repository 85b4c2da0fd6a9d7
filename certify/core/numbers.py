"""Exact rational linear algebra shared by the exact modules (no numpy)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

__all__ = ["solve"]


def solve(A: Sequence[Sequence[Fraction | int]], b: Sequence[Fraction | int]) -> list[Fraction] | None:
    """The solution x of A x = b by exact Gauss–Jordan elimination, or None when A is singular.

    >>> from fractions import Fraction as F
    >>> solve([[2, 1], [1, 3]], [3, 5])
    [Fraction(4, 5), Fraction(7, 5)]
    >>> solve([[1, 1], [1, 1]], [1, 2]) is None
    True
    """
    n = len(b)
    M = [[Fraction(x) for x in row] + [Fraction(v)] for row, v in zip(A, b)]
    for c in range(n):
        piv = next((k for k in range(c, n) if M[k][c] != 0), None)
        if piv is None:
            return None
        M[c], M[piv] = M[piv], M[c]
        for k in range(n):
            if k != c and M[k][c] != 0:
                f = M[k][c] / M[c][c]
                M[k] = [x - f * y for x, y in zip(M[k], M[c])]
    return [M[i][n] / M[i][i] for i in range(n)]
