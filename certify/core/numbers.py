"""Exact numbers: canonical rationals, exact decimal text, parsing, and rational linear algebra (no numpy).

One place for every exact number the package reads or writes:

* :func:`q` / :func:`unq` -- the canonical ``"p/q"`` strings of certificate files;
* :func:`exact_str` -- a rational as a user reads it (a decimal where one is finite);
* :func:`approx_str` -- 6 significant digits, unless rounding would hide which side of 1 (or 0) a value lies on;
* :func:`apart_str` -- two different numbers to the fewest digits that keep them apart;
* :func:`parse_number` / :func:`as_fraction` -- text and Python numbers as exact Fractions;
* :func:`solve` -- exact Gauss-Jordan elimination;
* :func:`over_common_denominator` -- rationals as integers over one denominator.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from math import lcm
from typing import Any

from .errors import CertificateError

__all__ = ["MAX_NUMBER_CHARS", "MAX_EXPONENT", "q", "unq", "exact_str", "approx_str", "apart_str", "parse_number", "as_fraction", "solve",
           "over_common_denominator", "fraction_memo"]

#: A rational in a certificate: "p" or "p/q", lowest terms, q > 1, at most this many characters.
MAX_NUMBER_CHARS = 2000
#: Largest decimal exponent (in size) :func:`parse_number` reads; a larger one would build huge integers.
MAX_EXPONENT = 1000
_RATIONAL = re.compile(r"-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?")


def q(x: Fraction | int) -> str:
    """A rational as the canonical string ``p/q`` (or ``p``) of certificate files.

    Parameters
    ----------
    x : Fraction or int
        The number.

    Returns
    -------
    str
        ``"p"`` for an integer, else ``"p/q"`` in lowest terms.

    Examples
    --------
    >>> q(Fraction(6, 8)), q(3), q(Fraction(-1, 3))
    ('3/4', '3', '-1/3')
    """
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def unq(s: Any, where: str) -> Fraction:
    """Parse a certificate rational: a string ``"p"`` or ``"p/q"`` in lowest terms (the form :func:`q` writes).

    Parameters
    ----------
    s : Any
        The value read from the file.
    where : str
        The field it came from, named in the error.

    Returns
    -------
    Fraction
        The exact value.

    Raises
    ------
    CertificateError
        When ``s`` is not a string, is longer than :data:`MAX_NUMBER_CHARS`, is not ``p`` or ``p/q``,
        or is not in lowest terms.

    Examples
    --------
    >>> unq("3/4", "coefficients.P[1,1]")
    Fraction(3, 4)
    >>> unq("6/8", "x")
    Traceback (most recent call last):
    ...
    certify.core.errors.CertificateError: x: '6/8' is not in canonical form (write '3/4')
    """
    if not isinstance(s, str):
        raise CertificateError(None, where, f"{s!r} is not a rational written as a string 'p/q'")
    if len(s) > MAX_NUMBER_CHARS:
        raise CertificateError(None, where, f"a number of {len(s)} characters (at most {MAX_NUMBER_CHARS})")
    if not _RATIONAL.fullmatch(s):
        raise CertificateError(None, where, f"{s!r} is not a rational 'p' or 'p/q'")
    x = Fraction(s)
    if q(x) != s:
        raise CertificateError(None, where, f"{s!r} is not in canonical form (write {q(x)!r})")
    return x


def exact_str(x: Fraction) -> str:
    """An exact number as text: a decimal when it has a finite one (of a sensible length), else ``p/q``.

    Parameters
    ----------
    x : Fraction
        The number.

    Returns
    -------
    str
        ``"0.25"`` for 1/4, ``"1/3"`` for 1/3; a denominator of 10**40 or more is written ``p/q``.

    Examples
    --------
    >>> exact_str(Fraction(1, 4)), exact_str(Fraction(1, 3)), exact_str(Fraction(-3)), exact_str(Fraction(-1, 20))
    ('0.25', '1/3', '-3', '-0.05')
    """
    den = x.denominator
    for p in (2, 5):
        while den % p == 0:
            den //= p
    if den != 1 or x.denominator >= 10**40:
        return f"{x.numerator}/{x.denominator}"
    n = 0
    while 10**n % x.denominator:
        n += 1
    digits = str(abs(x.numerator) * (10**n // x.denominator)).rjust(n + 1, "0")
    sign = "-" if x < 0 else ""
    return sign + (digits[:-n] + "." + digits[-n:] if n else digits)


def approx_str(x: Fraction) -> str:
    """``x`` to 6 significant digits, unless rounding would hide which side of 1 (or 0) it lies on.

    Parameters
    ----------
    x : Fraction
        The number.

    Returns
    -------
    str
        ``f"{x:.6g}"``, or 15 significant digits when 6 would round a value that is not 0 or +-1 onto one of them.

    Examples
    --------
    >>> approx_str(Fraction(3, 4)), approx_str(Fraction(10000009, 10000000)), approx_str(Fraction(1, 3))
    ('0.75', '1.0000009', '0.333333')
    """
    text = f"{float(x):.6g}"
    if Fraction(text) == x or float(text) not in (0.0, 1.0, -1.0):
        return text
    return f"{float(x):.15g}"


def apart_str(a: Fraction, b: Fraction, digits: int = 4) -> tuple[str, str]:
    """``a`` and ``b`` to ``digits`` significant digits, or to as many more as keep their texts apart.

    A sentence "a < b" must not print two equal numbers: rounding both to the same number of significant digits keeps
    their order (it never swaps them), so the first count at which the texts differ shows the inequality; two numbers
    that 17 digits do not part are written exactly.

    Parameters
    ----------
    a, b : Fraction
        The numbers.
    digits : int
        The fewest significant digits.

    Returns
    -------
    (str, str)

    Examples
    --------
    >>> apart_str(Fraction(1, 3), Fraction(1, 2)), apart_str(2 - Fraction(1, 2**20), Fraction(2))
    (('0.3333', '0.5'), ('1.999999', '2'))
    >>> apart_str(Fraction(1), Fraction(1))
    ('1', '1')
    """
    for n in range(digits, 18):
        ta, tb = f"{float(a):.{n}g}", f"{float(b):.{n}g}"
        if ta != tb:
            return ta, tb
    return exact_str(a), exact_str(b)


def parse_number(text: str) -> Fraction | None:
    """``"0.25"``, ``"1e-3"`` or ``"1/3"`` as an exact Fraction; None when it is not a finite number.

    Parameters
    ----------
    text : str
        A decimal (with an exponent of at most :data:`MAX_EXPONENT` = 1000 in size) or ``p/q``.

    Returns
    -------
    Fraction or None
        The exact value, or None.

    Examples
    --------
    >>> parse_number("0.25"), parse_number(" 1/3 "), parse_number("1e-3"), parse_number("nan")
    (Fraction(1, 4), Fraction(1, 3), Fraction(1, 1000), None)
    """
    s = text.strip()
    try:
        if "/" in s:
            return Fraction(s)
        d = Decimal(s)
    except (ValueError, ZeroDivisionError, InvalidOperation):
        return None
    if not d.is_finite() or (d and abs(d.adjusted()) > MAX_EXPONENT):
        return None
    return Fraction(d)


def as_fraction(v: Any) -> Fraction | None:
    """A number given by a caller (or found in a document) as an exact Fraction; None if it is not one.

    Parameters
    ----------
    v : Any
        A Fraction, int, finite float (read by its shortest repr), finite Decimal, or a string
        :func:`parse_number` reads.  Booleans are not numbers.

    Returns
    -------
    Fraction or None
        The exact value, or None.

    Examples
    --------
    >>> as_fraction(0.1), as_fraction("2/4"), as_fraction(True), as_fraction(float("inf"))
    (Fraction(1, 10), Fraction(1, 2), None, None)
    """
    if isinstance(v, bool):
        return None
    if isinstance(v, Fraction):
        return v
    if isinstance(v, int):
        return Fraction(v)
    if isinstance(v, float):
        return Fraction(repr(v)) if v == v and abs(v) != float("inf") else None
    if isinstance(v, Decimal):
        return Fraction(v) if v.is_finite() else None
    if isinstance(v, str):
        return parse_number(v)
    return None


def solve(A: Sequence[Sequence[Fraction | int]], b: Sequence[Fraction | int]) -> list[Fraction] | None:
    """The solution x of A x = b by exact Gauss–Jordan elimination, or None when A is singular.

    Parameters
    ----------
    A : sequence of sequences of Fraction or int
        The square matrix, by rows.
    b : sequence of Fraction or int
        The right-hand side.

    Returns
    -------
    list of Fraction or None
        The exact solution, or None when A is singular.

    Examples
    --------
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


def fraction_memo() -> Callable[[int, int], Fraction]:
    """A function (n, d) -> Fraction(n, d) that builds each distinct value once (the drift forms repeat few values).

    Returns
    -------
    callable
        (n, d) -> Fraction(n, d); equal arguments give the same (immutable) object.

    Examples
    --------
    >>> ratio = fraction_memo()
    >>> ratio(6, 4), ratio(6, 4) is ratio(6, 4)
    (Fraction(3, 2), True)
    """
    memo: dict[tuple[int, int], Fraction] = {}

    def ratio(n: int, d: int) -> Fraction:
        key = (n, d)
        f = memo.get(key)
        if f is None:
            f = memo[key] = Fraction(n, d)
        return f

    return ratio


def over_common_denominator(values: Sequence[Fraction | int]) -> tuple[list[int], int]:
    """Rationals as integers over their least common denominator.

    Parameters
    ----------
    values : sequence of Fraction or int
        The rationals.

    Returns
    -------
    ints : list of int
        Each value times ``den``.
    den : int
        The least common denominator (1 for no values).

    Examples
    --------
    >>> over_common_denominator([Fraction(1, 2), Fraction(-2, 3), 4])
    ([3, -4, 24], 6)
    """
    fs = [v if isinstance(v, (Fraction, int)) else Fraction(v) for v in values]  # rationals as they are
    den = lcm(*(f.denominator for f in fs)) if fs else 1
    return [f.numerator * (den // f.denominator) for f in fs], den
