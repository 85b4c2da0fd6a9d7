"""The exact numbers of a network file: reading them under the format's rules, and writing them back.

A number in a document is an ``int``, a :class:`~decimal.Decimal` (what the
JSON and TOML parsers give for a decimal), a ``float`` (read as its shortest
decimal ``repr``), a :class:`~fractions.Fraction` or a string ``"p/q"`` /
``"0.25"``; booleans are never numbers.  :func:`as_exact` turns it into the
exact Fraction (with :func:`certify.core.numbers.parse_number` and
:func:`~certify.core.numbers.as_fraction`), refusing it with the loader's
messages; the other validators add the rules of the format (digit bounds,
ranges, probabilities, sums).  :func:`written` is the inverse: a number as
:func:`certify.io.loader.to_dict` writes it.  The rules as a whole are listed
in :mod:`certify.io.loader`.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import TypeAlias

from ..core.jsontypes import JsonValue
from ..core.numbers import MAX_EXPONENT, as_fraction, parse_number, q
from .context import Context, brief, kind_of, show

__all__ = [
    "MAX_DERIVED_DIGITS",
    "MAX_DIGITS",
    "RATE_MAX",
    "RATE_MIN",
    "SUM_TOLERANCE",
    "ExactData",
    "as_exact",
    "check_digits",
    "as_number",
    "as_positive",
    "as_rate",
    "as_probability",
    "sum_to_one",
    "written",
]

#: Rates outside [RATE_MIN, RATE_MAX] are divided by the largest rate (:mod:`certify.io.normalise`).
RATE_MIN = Fraction(1, 10**9)
RATE_MAX = Fraction(10**9)
#: Decimal digits allowed in the numerator and in the denominator of a number as written.
MAX_DIGITS = 60
#: Decimal digits allowed in the numerator and denominator of a rate derived from explicit phases.
MAX_DERIVED_DIGITS = 1000
#: Distance from 1 up to which probabilities that must sum to 1 are normalised (with a note).
SUM_TOLERANCE = Fraction(1, 10**9)

#: What :func:`written` writes: JSON values and exact numbers (Fractions, Decimals), in maps, lists and tuples.
ExactData: TypeAlias = "JsonValue | Fraction | Decimal | Mapping[str, ExactData] | list[ExactData] | tuple[ExactData, ...]"


def _decimal(ctx: Context, d: Decimal, v: object, path: str) -> Fraction:
    """``d`` (read from ``v``) as a Fraction, refused before any integer is built when it is too big."""
    if not d.is_finite():
        ctx.fail(path, f"{show(v)} must be a finite number")
    if d and abs(d.adjusted()) > MAX_EXPONENT:
        ctx.fail(path, f"{show(v)} is out of range (exponent beyond +-{MAX_EXPONENT}; "
                 f"numbers have at most {MAX_DIGITS} digits)")
    if len(d.as_tuple().digits) > MAX_EXPONENT:
        ctx.fail(path, f"a number written with {len(d.as_tuple().digits)} digits has too many digits "
                 f"(at most {MAX_DIGITS} in its numerator and denominator)")
    return Fraction(d)


def as_exact(ctx: Context, v: object, path: str) -> Fraction:
    """An exact number: int, Decimal, float (its shortest decimal), Fraction or ``"p/q"``/``"0.25"``.

    No digit bound is applied (see :func:`as_number`); a decimal whose
    exponent exceeds +-1000, or that is written with more than 1000 digits, is
    refused before any integer is built.

    Parameters
    ----------
    ctx : Context
        Where errors point.
    v : object
        The value as read.
    path : str
        Its field path.

    Returns
    -------
    Fraction
        The exact value.

    Raises
    ------
    NetworkError
        For a boolean, a non-number, a string that is not a number, or a
        number that is not finite or out of range.

    Examples
    --------
    >>> ctx = Context("net.json")
    >>> as_exact(ctx, 0.1, "rate"), as_exact(ctx, " 1/3 ", "rate"), as_exact(ctx, "2.5e-1", "rate")
    (Fraction(1, 10), Fraction(1, 3), Fraction(1, 4))
    >>> as_exact(ctx, "one", "rate")
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: net.json: rate: "one" is not a number (write a number, or a string like "1/3" or "0.25")
    """
    if isinstance(v, bool):
        ctx.fail(path, f"must be a number, got {kind_of(v)}")
    if isinstance(v, Decimal):
        return _decimal(ctx, v, v, path)
    if isinstance(v, str):
        s = v.strip()
        if "/" in s:
            x = parse_number(s)
            if x is None:
                ctx.fail(path, f'{show(v)} is not a number (write a number, or a string like "1/3" or "0.25")')
            return x
        try:
            d = Decimal(s)
        except (ValueError, ZeroDivisionError, InvalidOperation):
            ctx.fail(path, f'{show(v)} is not a number (write a number, or a string like "1/3" or "0.25")')
        return _decimal(ctx, d, v, path)
    x = as_fraction(v)  # a Fraction, an int or a finite float
    if x is not None:
        return x
    if isinstance(v, numbers.Integral):
        return Fraction(int(v))
    if isinstance(v, numbers.Rational):
        return Fraction(int(v.numerator), int(v.denominator))
    if isinstance(v, numbers.Real):
        f = float(v)
        x = as_fraction(f)
        if x is None:
            ctx.fail(path, f"{f} must be a finite number")
        return x
    ctx.fail(path, f"must be a number, got {kind_of(v)}")


def _ndigits(n: int) -> int:
    return len(str(abs(n)))


def check_digits(ctx: Context, x: Fraction, path: str, limit: int = MAX_DIGITS, what: str = "",
                 as_written: object = None) -> Fraction:
    """Refuse ``x`` when its numerator or denominator has more than ``limit`` decimal digits.

    Parameters
    ----------
    ctx : Context
        Where errors point.
    x : Fraction
        The number.
    path : str
        Its field path.
    limit : int, default MAX_DIGITS
        The most digits allowed.
    what : str, default ""
        Words put before the number in the message (``"the mu derived from the phases, "``).
    as_written : object, optional
        The value as the file writes it (a decimal string or number), named
        in the message instead of the exact ``x``.

    Returns
    -------
    Fraction
        ``x``.

    Raises
    ------
    NetworkError
        When ``x`` has too many digits.

    Examples
    --------
    >>> check_digits(Context(None), Fraction(1, 3), "mu")
    Fraction(1, 3)
    >>> check_digits(Context(None), Fraction(1, 1000), "mu", limit=3)
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: mu: 0.001 has 4 digits in its numerator or denominator (at most 3 allowed)
    """
    worst = max(_ndigits(x.numerator), _ndigits(x.denominator))
    if worst > limit:
        shown = brief(x) if as_written is None or isinstance(as_written, (int, Fraction)) else show(as_written)
        ctx.fail(path, f"{what}{shown} has {worst} digits in its numerator or denominator "
                 f"(at most {limit} allowed)")
    return x


def as_number(ctx: Context, v: object, path: str) -> Fraction:
    """An exact number with at most :data:`MAX_DIGITS` digits in numerator and denominator.

    Parameters
    ----------
    ctx : Context
        Where errors point.
    v : object
        The value as read.
    path : str
        Its field path.

    Returns
    -------
    Fraction
        The exact value.

    Raises
    ------
    NetworkError
        When :func:`as_exact` refuses ``v`` or it has too many digits.

    Examples
    --------
    >>> as_number(Context(None), Decimal("0.125"), "scv")
    Fraction(1, 8)
    """
    return check_digits(ctx, as_exact(ctx, v, path), path)


def as_positive(ctx: Context, v: object, path: str) -> Fraction:
    """An exact number (:func:`as_number`) that is > 0.

    Parameters
    ----------
    ctx : Context
        Where errors point.
    v : object
        The value as read.
    path : str
        Its field path.

    Returns
    -------
    Fraction
        The exact value.

    Raises
    ------
    NetworkError
        When ``v`` is not a number or is <= 0.

    Examples
    --------
    >>> as_positive(Context(None), "3/2", "scv")
    Fraction(3, 2)
    >>> as_positive(Context(None), -0.5, "scv")
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: scv: -0.5 must be > 0
    """
    x = as_number(ctx, v, path)
    if x <= 0:
        ctx.fail(path, f"{show(v)} must be > 0")
    return x


def as_rate(ctx: Context, v: object, path: str) -> Fraction:
    """A rate: an exact number > 0 with at most :data:`MAX_DIGITS` digits in numerator and denominator.

    Its range is not checked here: a network whose rates leave
    [:data:`RATE_MIN`, :data:`RATE_MAX`] has them all divided by the largest one
    (:func:`certify.io.normalise.normalise`).

    Parameters
    ----------
    ctx : Context
        Where errors point.
    v : object
        The value as read.
    path : str
        Its field path.

    Returns
    -------
    Fraction
        The exact rate.

    Raises
    ------
    NetworkError
        When ``v`` is not a number, is <= 0 or has too many digits.

    Examples
    --------
    >>> as_rate(Context("net.json"), 0.5, "stations.1.mu")
    Fraction(1, 2)
    >>> as_rate(Context("net.json"), 2e9, "stations.1.mu")
    Fraction(2000000000, 1)
    >>> as_rate(Context("net.json"), "1e70", "stations.1.mu")
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: net.json: stations.1.mu: "1e70" has 71 digits in its numerator or denominator (at most 60 allowed)
    """
    x = as_exact(ctx, v, path)
    if x <= 0:
        ctx.fail(path, f"{show(v)} must be > 0")
    return check_digits(ctx, x, path, as_written=v)


def as_probability(ctx: Context, v: object, path: str, zero_ok: bool = True) -> Fraction:
    """A probability: an exact number (:func:`as_number`) in [0, 1] (or (0, 1]).

    Parameters
    ----------
    ctx : Context
        Where errors point.
    v : object
        The value as read.
    path : str
        Its field path.
    zero_ok : bool, default True
        Whether 0 is allowed.

    Returns
    -------
    Fraction
        The exact probability.

    Raises
    ------
    NetworkError
        When ``v`` is not a number or lies outside the range.

    Examples
    --------
    >>> as_probability(Context(None), 0.3, "feedback[0].prob")
    Fraction(3, 10)
    >>> as_probability(Context(None), 0, "feedback[0].prob", zero_ok=False)
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: feedback[0].prob: 0 must be a probability in (0, 1]
    """
    x = as_number(ctx, v, path)
    if x < 0 or x > 1 or (x == 0 and not zero_ok):
        ctx.fail(path, f"{show(v)} must be a probability in {'[0, 1]' if zero_ok else '(0, 1]'}")
    return x


def sum_to_one(ctx: Context, probs: list[Fraction], path: str) -> list[Fraction]:
    """Probabilities that must sum to 1, as every stage uses them.

    As written when they sum to 1 exactly; divided by their exact sum (with a
    note) when it is within :data:`SUM_TOLERANCE` of 1; refused otherwise.

    Parameters
    ----------
    ctx : Context
        Where errors point; receives the note.
    probs : list of Fraction
        The probabilities.
    path : str
        The field path of the list.

    Returns
    -------
    list of Fraction
        Probabilities that sum to exactly 1.

    Raises
    ------
    NetworkError
        When the sum is more than 1e-9 away from 1.

    Examples
    --------
    >>> ctx = Context(None)
    >>> sum_to_one(ctx, [Fraction(1, 3), Fraction(2, 3)], "probs")
    [Fraction(1, 3), Fraction(2, 3)]
    >>> sum_to_one(ctx, [Fraction(1, 2), Fraction(1, 2) + Fraction(1, 10**10)], "probs")
    [Fraction(5000000000, 10000000001), Fraction(5000000001, 10000000001)]
    >>> ctx.notes[0].split(";")[0]
    'probs: the probabilities sum to 1.0000000001, not exactly 1'
    >>> sum_to_one(ctx, [Fraction(1, 2)], "probs")
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: probs: probabilities sum to 0.5 (must be 1; a sum within 1e-9 of 1 is normalised)
    """
    total = sum(probs, Fraction(0))
    if total == 1:
        return probs
    if abs(total - 1) > SUM_TOLERANCE:
        ctx.fail(path, f"probabilities sum to {brief(total)} (must be 1; a sum within 1e-9 of 1 is normalised)")
    ctx.note(f"{path}: the probabilities sum to {brief(total)}, not exactly 1; each is divided by that sum "
             "(so they sum to exactly 1) and every stage uses the divided values")
    return [p / total for p in probs]


def written(x: ExactData) -> JsonValue:
    """An exact number as a file writes it: int, float if that float is exact, else ``"p/q"``.

    Maps are written member by member (as a dict), lists and tuples too (as
    a list); a Decimal as its exact value; anything else is returned as it is.

    Parameters
    ----------
    x : ExactData
        A number, or a map or list holding numbers.

    Returns
    -------
    JsonValue
        The same data with every Fraction and Decimal written.

    Examples
    --------
    >>> written(Fraction(3)), written(Fraction(1, 4)), written(Fraction(1, 3)), written([Decimal("0.5"), "x"])
    (3, 0.25, '1/3', [0.5, 'x'])
    """
    if isinstance(x, Fraction):
        if x.denominator == 1:
            return int(x)
        f = float(x)
        return f if Fraction(repr(f)) == x else q(x)
    if isinstance(x, Decimal):
        return written(Fraction(x))
    if isinstance(x, Mapping):
        return {k: written(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [written(v) for v in x]
    return x
