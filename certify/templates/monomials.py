"""Exact polynomial arithmetic on exponent vectors, for the quartic template (pure Python).

A polynomial is a dict {exponent vector: integer coefficient}.  The pieces the
quartic SOS template (:mod:`certify.templates.polynomial`) needs: the list of
monomials of a degree, the change V(x + d) - V(x) of a polynomial under a jump
d, the powers of linear forms (G lam)^alpha over cone generators, multinomial
coefficients, and the names of monomials and exponents in coefficient names.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from itertools import combinations_with_replacement
from math import comb, factorial, prod

from ..markov.jumps import Jump

__all__ = ["monomials", "mono_str", "exponent_str", "multinomial", "jump_poly", "linear_power"]

# An exponent vector, one entry per variable.
Mono = tuple[int, ...]


def monomials(nvars: int, degree: int) -> list[Mono]:
    """Exponent vectors of all monomials of ``degree`` in ``nvars`` variables, x_1^degree first.

    Parameters
    ----------
    nvars : int
        The number of variables.
    degree : int
        The total degree.

    Returns
    -------
    list of tuple of int
        The exponent vectors, in decreasing lexicographic order.

    Examples
    --------
    >>> monomials(2, 2)
    [(2, 0), (1, 1), (0, 2)]
    >>> len(monomials(4, 4))                       # the coefficients c_a of a quartic in 4 stations
    35
    """
    out = []
    for idx in combinations_with_replacement(range(nvars), degree):
        e = [0] * nvars
        for i in idx:
            e[i] += 1
        out.append(tuple(e))
    return out


def mono_str(a: Sequence[int], names: Sequence[str]) -> str:
    """A monomial written out, e.g. ``x1^2*x2``.

    Parameters
    ----------
    a : sequence of int
        The exponent vector.
    names : sequence of str
        The variables' names.

    Returns
    -------
    str
        The product, ``1`` for the constant monomial.

    Examples
    --------
    >>> mono_str((2, 1), ["x1", "x2"]), mono_str((0, 0), ["x1", "x2"])
    ('x1^2*x2', '1')
    """
    parts = [names[i] + (f"^{e}" if e > 1 else "") for i, e in enumerate(a) if e]
    return "*".join(parts) if parts else "1"


def exponent_str(a: Sequence[int]) -> str:
    """An exponent vector as it appears in coefficient names, e.g. ``2,0``.

    Parameters
    ----------
    a : sequence of int
        The exponent vector.

    Returns
    -------
    str
        The exponents, comma-separated.

    Examples
    --------
    >>> exponent_str((3, 1))
    '3,1'
    """
    return ",".join(map(str, a))


def multinomial(b: Sequence[int]) -> int:
    """The multinomial coefficient ``|b|! / prod(b_i!)``: the coefficient of lam^b in ``(sum lam)^|b|``.

    Parameters
    ----------
    b : sequence of int
        The exponent vector.

    Returns
    -------
    int
        The coefficient.

    Examples
    --------
    >>> multinomial((2, 1)), multinomial((1, 1, 1))
    (3, 6)
    """
    return factorial(sum(b)) // prod(factorial(e) for e in b)


def jump_poly(cint: dict[Mono, int], d: Jump) -> dict[Mono, int]:
    """V(x + d) - V(x) as a polynomial in x (integer coefficients, V given by ``cint``).

    Parameters
    ----------
    cint : dict of exponent vector to int
        V's coefficients.
    d : Jump
        The jump, as sorted (station, change) pairs.

    Returns
    -------
    dict of exponent vector to int
        The coefficients of the difference (zero terms dropped).

    Examples
    --------
    (x1 + 1)^2 - x1^2 = 2 x1 + 1:

    >>> jump_poly({(2,): 1}, ((0, 1),))
    {(1,): 2, (0,): 1}
    """
    out: dict[Mono, int] = defaultdict(int)
    for a, ca in cint.items():
        if not ca:
            continue
        terms: dict[Mono, int] = {a: 1}
        for i, s in d:
            new: dict[Mono, int] = defaultdict(int)
            for e, co in terms.items():
                ei = e[i]
                for t in range(ei + 1):
                    new[e[:i] + (ei - t,) + e[i + 1 :]] += co * comb(ei, t) * s**t
            terms = new
        for e, co in terms.items():
            if e != a and co:
                out[e] += ca * co
    return dict(out)


def linear_power(G: Sequence[Sequence[int]], alpha: Mono) -> dict[Mono, int]:
    """(G lam)^alpha = prod_i (sum_{k: g_k[i] = 1} lam_k)^alpha_i as a polynomial in lam.

    Parameters
    ----------
    G : sequence of 0/1 vectors
        The generators g_k (one per variable lam_k).
    alpha : exponent vector
        The exponents of x.

    Returns
    -------
    dict of exponent vector to int
        The coefficients, over the generators.

    Examples
    --------
    With g_1 = (1, 1), g_2 = (0, 1): x1 x2 = lam_1 (lam_1 + lam_2):

    >>> linear_power(((1, 1), (0, 1)), (1, 1))
    {(2, 0): 1, (1, 1): 1}
    """
    K = len(G)
    poly: dict[Mono, int] = {(0,) * K: 1}
    for i, ai in enumerate(alpha):
        lin = [k for k in range(K) if G[k][i]]
        for _ in range(ai):
            new: dict[Mono, int] = defaultdict(int)
            for e, co in poly.items():
                for k in lin:
                    new[e[:k] + (e[k] + 1,) + e[k + 1 :]] += co
            poly = dict(new)
    return poly
