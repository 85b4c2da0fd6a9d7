"""Where a refusal points and how it shows values: the validation context and the message helpers.

Every validator of :mod:`certify.io` takes a :class:`Context` (the file being
read, and the notes the loader derives), a value and its field path
(``streams[1].choice[0]``, built with :func:`key_path`).  A broken rule ends
in :meth:`Context.fail`, which raises one
:class:`~certify.core.errors.NetworkError`; the value it names is written by
:func:`show` (as the user wrote it), :func:`kind_of` (what it is, when it is
not what the rule wants) or :func:`brief` (an exact number, shortened when it
has very many digits).
"""

from __future__ import annotations

import json
import numbers
import re
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import NoReturn

from ..core.errors import NetworkError
from ..core.numbers import exact_str

__all__ = ["Context", "key_path", "show", "kind_of", "brief"]

_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")


class Context:
    """Where errors point (the file, or ``None``), and the notes the loader derives.

    Parameters
    ----------
    file : str or None
        The file (or other source) being read; named in every error.

    Attributes
    ----------
    file : str or None
        As given.
    notes : list of str
        What the loader derived from the document (one sentence each); they
        become :attr:`Network.notes <certify.core.model.Network.notes>`.

    Examples
    --------
    >>> ctx = Context("net.json")
    >>> ctx.note("stations.1.mu: derived from the phases")
    >>> ctx.notes
    ['stations.1.mu: derived from the phases']
    >>> ctx.fail("stations.1.mu", "-1 must be > 0")
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: net.json: stations.1.mu: -1 must be > 0
    """

    def __init__(self, file: str | None) -> None:
        self.file = file
        self.notes: list[str] = []  # what the loader derived (Network.notes)

    def fail(self, path: str | None, rule: str) -> NoReturn:
        """Refuse the document: raise the error naming the file, ``path`` and ``rule``.

        Parameters
        ----------
        path : str or None
            The field path; ``None`` for the document as a whole.
        rule : str
            What is wrong, naming the offending value and the rule.

        Raises
        ------
        NetworkError
            Always.

        Examples
        --------
        >>> Context(None).fail("stations", "must not be empty")
        Traceback (most recent call last):
        ...
        certify.core.errors.NetworkError: stations: must not be empty
        """
        raise NetworkError(self.file, path, rule)

    def note(self, text: str) -> None:
        """Record one sentence about what was derived from the document.

        Parameters
        ----------
        text : str
            The sentence, naming the field and the exact values.

        Examples
        --------
        >>> ctx = Context(None)
        >>> ctx.note("a note")
        >>> len(ctx.notes)
        1
        """
        self.notes.append(text)


def key_path(path: str | None, name: object) -> str:
    """``path`` extended by a map key: ``stations.3`` or ``stations["a b"]``.

    Parameters
    ----------
    path : str or None
        The path of the map; ``None`` (or empty) at the top level.
    name : object
        The key; written plainly when it is made of letters, digits, ``_`` and
        ``-``, else as a JSON string in brackets.

    Returns
    -------
    str
        The path of the key's value.

    Examples
    --------
    >>> key_path("stations", 3), key_path("stations", "a b"), key_path(None, "format")
    ('stations.3', 'stations["a b"]', 'format')
    """
    name = str(name)
    if _PLAIN_KEY.fullmatch(name):
        return f"{path}.{name}" if path else name
    return f"{path or ''}[{json.dumps(name)}]"


def show(v: object) -> str:
    """A value as the user would recognise it in a message.

    Parameters
    ----------
    v : object
        A value read from a document (or derived from one).

    Returns
    -------
    str
        JSON for booleans, ``None`` and strings, the exact decimal (or
        ``p/q``) of a Fraction, ``str`` of another number, else its
        :func:`kind_of`.

    Examples
    --------
    >>> show(Fraction(1, 4)), show(Fraction(1, 3)), show("x"), show(True), show([1])
    ('0.25', '1/3', '"x"', 'true', 'a list')
    """
    if isinstance(v, bool) or v is None:
        return json.dumps(v)
    if isinstance(v, Fraction):
        return exact_str(v)
    if isinstance(v, (int, float, Decimal)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    return kind_of(v)


def kind_of(v: object) -> str:
    """What a value is, for a message saying it is not what a rule wants.

    Parameters
    ----------
    v : object
        A value read from a document.

    Returns
    -------
    str
        ``boolean true``, ``null``, ``string "x"``, ``a map``, ``a list``,
        ``number 3`` or ``a <type name>``.

    Examples
    --------
    >>> kind_of(False), kind_of(None), kind_of("x"), kind_of({}), kind_of(()), kind_of(2.5), kind_of(object())
    ('boolean false', 'null', 'string "x"', 'a map', 'a list', 'number 2.5', 'a object')
    """
    if isinstance(v, bool):
        return f"boolean {json.dumps(v)}"
    if v is None:
        return "null"
    if isinstance(v, str):
        return f"string {json.dumps(v)}"
    if isinstance(v, Mapping):
        return "a map"
    if isinstance(v, (list, tuple)):
        return "a list"
    if isinstance(v, (numbers.Number, Decimal)):
        return f"number {v}"
    return f"a {type(v).__name__}"


def brief(x: Fraction) -> str:
    """An exact number for a message, shortened when it has very many digits.

    Parameters
    ----------
    x : Fraction
        The number.

    Returns
    -------
    str
        :func:`show` of ``x`` when it has at most 80 characters, else its
        first 30 and last 10 characters and its length.

    Examples
    --------
    >>> brief(Fraction(1, 3))
    '1/3'
    >>> brief(Fraction(1, 3**200))
    '1/2656139888758747693387813220...4699044001 (98 characters)'
    """
    text = show(x)
    return text if len(text) <= 80 else f"{text[:30]}...{text[-10:]} ({len(text)} characters)"
