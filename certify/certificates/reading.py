"""What a certificate reader returns, :class:`Reading`, and the field helpers every reader uses.

A reader (each kind's, in :mod:`certify.certificates.kinds`) validates a payload field by field and
refuses, with :class:`~certify.core.errors.CertificateError` naming the field, a
map that is not one (:func:`field_map`), a set of names other than the expected
one or a rational not in canonical form (:func:`named_rationals`), or a table
key not in canonical form (:func:`cell_key` writes the canonical one).  Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..core.errors import CertificateError
from ..core.numbers import unq
from ..markov.chain import Chain
from ..markov.laws import NotPhaseType
from ..markov.phases import MAX_PHASE_VECTORS, markov_chain
from ..markov.symmetry import Symmetry
from ..templates.options import station_list
from .claims import same_json

__all__ = ["Reading", "cell_key", "field_map", "int_field", "named_rationals", "markov_of", "symmetry_field", "server_list"]


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


def int_field(cert: Mapping[str, Any], key: str, lo: int, hi: int, default: int | None = None) -> int:
    """The field ``key`` of a certificate, which must be an integer (not a bool) in lo..hi.

    Parameters
    ----------
    cert : dict
        The certificate.
    key : str
        The field.
    lo, hi : int
        The allowed range (both included).
    default : int, optional
        The value when the field is absent (None: the field is required).

    Returns
    -------
    int
        The value.

    Raises
    ------
    CertificateError
        Naming the field, its value and the rule.

    Examples
    --------
    >>> int_field({"K": 2}, "K", 1, 36), int_field({}, "d", 0, 3, default=0)
    (2, 0)
    >>> int_field({"K": True}, "K", 1, 36)
    Traceback (most recent call last):
    ...
    certify.core.errors.CertificateError: K: True must be an integer in 1..36
    """
    value = cert.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise CertificateError(None, key, f"{value!r} must be an integer in {lo}..{hi}")
    return value


def field_map(cert: Mapping[str, Any], key: str) -> dict[str, Any]:
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


def named_rationals(values: Mapping[str, object], want: list[str], field: str) -> dict[str, Fraction]:
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


def markov_of(net: Any, cert: Mapping[str, Any], max_vectors: int | None = MAX_PHASE_VECTORS) -> Chain | str:
    """The Markov chain a certificate is about, or why the network has none matching its ``phase_expansion``.

    Parameters
    ----------
    net : Network
        The network.
    cert : dict
        The certificate (its optional ``phase_expansion`` field).
    max_vectors : int or None
        The most phase vectors of the expansion (None: no limit, for the separable kinds).

    Returns
    -------
    Chain or str
        The chain (a phase-type expansion, or the exponential chain), or the reason in words.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> markov_of(mm1, {}).J, markov_of(mm1, {"phase_expansion": ["x"]})
    (1, "phase_expansion: ['x'] but the network's phase-type expansion is None")
    """
    try:
        chain = markov_chain(net, max_vectors)
    except NotPhaseType as exc:
        return f"the network has no Markovian (phase-type) form: {exc}"
    want = list(chain.expansion) if chain.has_phases else None
    if not same_json(cert.get("phase_expansion"), want):
        return f"phase_expansion: {cert.get('phase_expansion')!r} but the network's phase-type expansion is {want!r}"
    return chain


def symmetry_field(chain: Chain, value: Any) -> Symmetry:
    """The ``symmetry`` field: station classes as lists of ids (disjoint, each in the network's order, sorted).

    Parameters
    ----------
    chain : Chain
        The chain.
    value : object
        The field as read from the file.

    Returns
    -------
    Symmetry
        The classes, by station index.

    Raises
    ------
    CertificateError
        When the field is not a non-empty list of disjoint, sorted classes of two or more known ids.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> symmetry_field(ch, [["1", "2"]]).classes
    ((0, 1),)
    """
    if not isinstance(value, list) or not value:
        raise CertificateError(None, "symmetry", f"{value!r} must be a non-empty list of station classes (lists of ids)")
    classes: list[tuple[int, ...]] = []
    for k, cl in enumerate(value):
        ids = station_list(chain, cl, f"symmetry[{k}]")
        if len(ids) < 2:
            raise CertificateError(None, f"symmetry[{k}]", f"{cl!r}: a class has two or more stations")
        classes.append(tuple(chain.ids.index(s) for s in ids))
    flat = [a for c in classes for a in c]
    if len(set(flat)) != len(flat):
        raise CertificateError(None, "symmetry", f"{value!r}: the classes must be disjoint")
    if classes != sorted(classes):
        raise CertificateError(None, "symmetry", f"{value!r}: list the classes in the order of their first stations")
    return Symmetry(tuple(classes))


def server_list(net: Any, value: Any, field: str) -> list[str]:
    """Distinct known server ids of a fork-join network, in the network's order (the canonical form).

    Parameters
    ----------
    net : ForkJoinNetwork
        The network.
    value : object
        The field as read from the file.
    field : str
        Where it is (named in the error).

    Returns
    -------
    list of str
        The server ids.

    Raises
    ------
    CertificateError
        When the value is not such a list.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> server_list(SimpleNamespace(servers=(("1", 1), ("2", 1))), ["2"], "capped")
    ['2']
    """
    ids = [s for s, _ in net.servers]
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise CertificateError(None, field, f"{value!r} must be a list of server ids (strings)")
    if any(s not in ids for s in value) or len(set(value)) != len(value) or value != [s for s in ids if s in value]:
        raise CertificateError(None, field, f"{value!r} must list distinct server ids of {ids} in that order")
    return value
