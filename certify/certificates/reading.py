"""What a certificate reader returns, :class:`Reading`, and the field helpers every reader uses.

A reader (:mod:`certify.certificates.readers`, :mod:`certify.certificates.fluid_flow`,
:mod:`certify.certificates.forkjoin`) validates a payload field by field and
refuses, with :class:`~certify.core.errors.CertificateError` naming the field, a
map that is not one (:func:`field_map`), a set of names other than the expected
one or a rational not in canonical form (:func:`named_rationals`), or a table
key not in canonical form (:func:`cell_key` writes the canonical one).  Pure Python.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..core.errors import CertificateError
from ..core.numbers import unq
from ..markov.chain import Chain

__all__ = ["Reading", "cell_key", "field_map", "named_rationals"]


def cell_key(c: tuple[int, ...] | list[int]) -> str:
    """The canonical key of a table cell in a certificate file: its entries joined by commas.

    Parameters
    ----------
    c : tuple or list of int
        The cell.

    Returns
    -------
    str
        E.g. ``"2,0,-1"``.

    Examples
    --------
    >>> cell_key((2, 0, -1))
    '2,0,-1'
    """
    return ",".join(map(str, c))


@dataclass(frozen=True)
class Reading:
    """A certificate's payload, read and validated: the arguments of its kind's checker.

    Attributes
    ----------
    args : tuple
        The checker's positional arguments.
    kwargs : dict
        The checker's keyword arguments.
    chain : Chain or None
        The chain the certificate is about (its phases change the statement).
    template : str
        The template (or theorem) the statement names.

    Examples
    --------
    >>> Reading(("net", "name"), template="name").kwargs
    {}
    """

    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    chain: Chain | None = None
    template: str = ""


def field_map(cert: dict[str, Any], key: str) -> dict[str, Any]:
    """The field ``key`` of a certificate, which must be a map.

    Parameters
    ----------
    cert : dict
        The certificate (or a part of it).
    key : str
        The field's name (named in the error).

    Returns
    -------
    dict
        The field's value.

    Raises
    ------
    CertificateError
        When the field is missing or not a map.

    Examples
    --------
    >>> field_map({"weights": {"1": "1"}}, "weights")
    {'1': '1'}
    >>> field_map({"weights": []}, "weights")
    Traceback (most recent call last):
    ...
    certify.core.errors.CertificateError: weights: must be a map, got list
    """
    v = cert.get(key)
    if not isinstance(v, dict):
        raise CertificateError(None, key, f"must be a map, got {type(v).__name__}")
    return v


def named_rationals(values: dict[str, Any], want: list[str], field: str) -> dict[str, Fraction]:
    """Exactly the names ``want``, each a canonical rational ``"p/q"``.

    Parameters
    ----------
    values : dict
        The map read from the file.
    want : list of str
        The names it must have, no more and no fewer.
    field : str
        Where the map is (named in the error).

    Returns
    -------
    dict of str to Fraction
        The values, in the order of ``want``.

    Raises
    ------
    CertificateError
        When a name is missing or unexpected, or a value is not a canonical rational.

    Examples
    --------
    >>> named_rationals({"1": "1/2"}, ["1"], "weights")
    {'1': Fraction(1, 2)}
    >>> named_rationals({"1": "2/4"}, ["1"], "weights")
    Traceback (most recent call last):
    ...
    certify.core.errors.CertificateError: weights.1: '2/4' is not in canonical form (write '1/2')
    """
    if set(values) != set(want):
        missing = [n for n in want if n not in values][:3]
        extra = sorted(set(values) - set(want))[:3]
        raise CertificateError(None, field, f"must name exactly {len(want)} values: missing {missing}, unexpected {extra}")
    return {n: unq(values[n], f"{field}.{n}") for n in want}
