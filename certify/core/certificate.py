"""A certificate as a typed, frozen object: :class:`Certificate` (its file is canonical JSON).

Writers (:mod:`certify.certificates.kinds`) return a :class:`Certificate`;
``prove`` keeps it in its result; :func:`~certify.core.envelope.dumps` writes
it and :func:`~certify.certificates.verify` re-checks it (or the JSON object
read from a file: the hostile-input side).  The object is also a read-only
mapping over its file's fields (``cert["kind"]``, ``cert["claims"]["delta"]``):
maps and lists read from it are read-only (a ``dict`` or ``list`` that refuses
every change, so an edit fails loudly instead of being lost);
``copy.deepcopy(cert)`` and :meth:`Certificate.to_json` give the file's JSON
object, a plain ``dict`` to edit (a forger's starting point).  Pure Python.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from .jsontypes import JsonObject, JsonValue

__all__ = ["Certificate", "ENVELOPE"]

#: The fields of the envelope, in the order a file lists them (the payload comes after ``semantics``).
ENVELOPE = ("format", "kind", "network", "semantics", "claims", "statement", "certify_version", "digest")


@dataclass(frozen=True, eq=False)
class Certificate(Mapping[str, JsonValue]):
    """A sealed certificate: its kind, the network it is about, what it proves, its claims and payload.

    Attributes
    ----------
    format : str
        ``certify-certificate/1``.
    kind : str
        The certificate kind (a name of :data:`certify.certificates.kinds.REGISTRY`).
    network_name, network_digest : str
        The network it was made for (its name, and the digest of its exact content).
    semantics : str
        For which laws it proves its verdict (``markovian``, ``general``, ``fluid-model``).
    statement : str
        What it proves, in one paragraph (derived by its kind).
    claims : mapping
        What the exact check derived (JSON values).
    payload : mapping
        The kind's own fields (JSON values), read back by its reader.
    certify_version : str
        The version that wrote it.
    digest : str
        The SHA-256 of everything else.

    Examples
    --------
    >>> c = Certificate("certify-certificate/1", "closed-set", "trap", "sha256:0", "general", "...",
    ...                 {"inflow": "1/10"}, {"stations": ["2"]}, "0.1.0", "sha256:1")
    >>> c.kind, c["stations"], c["network"], sorted(c)[:3]
    ('closed-set', ['2'], {'name': 'trap', 'digest': 'sha256:0'}, ['certify_version', 'claims', 'digest'])
    >>> c["stations"].append("1")                   # read-only: edit a copy
    Traceback (most recent call last):
    ...
    TypeError: a certificate is read-only: edit copy.deepcopy(cert) or cert.to_json()
    >>> type(copy.deepcopy(c)).__name__             # a copy to edit is the JSON object
    'dict'
    >>> Certificate.from_json(c.to_json()) == c
    True
    """

    format: str
    kind: str
    network_name: str
    network_digest: str
    semantics: str
    statement: str
    claims: Mapping[str, JsonValue]
    payload: Mapping[str, JsonValue]
    certify_version: str
    digest: str

    def to_json(self) -> JsonObject:
        """The certificate file's JSON object (a fresh copy; :func:`~certify.core.envelope.dumps` writes it).

        Returns
        -------
        JsonObject
            The envelope's fields and the payload's.

        Examples
        --------
        >>> Certificate("f", "k", "n", "d", "general", "s", {}, {"x": 1}, "v", "h").to_json()["network"]
        {'name': 'n', 'digest': 'd'}
        """
        return copy.deepcopy({
            "format": self.format,
            "kind": self.kind,
            "network": {"name": self.network_name, "digest": self.network_digest},
            "semantics": self.semantics,
            **self.payload,
            "claims": dict(self.claims),
            "statement": self.statement,
            "certify_version": self.certify_version,
            "digest": self.digest,
        })

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Certificate:  # Any: a file's object, its fields unchecked here
        """The certificate of a JSON object with every envelope field (nothing is checked: :func:`verify` does that).

        Parameters
        ----------
        obj : mapping
            A certificate file's object.

        Returns
        -------
        Certificate
            The same content.

        Raises
        ------
        ValueError
            When an envelope field is missing or ``network`` is not a map of ``name`` and ``digest``.

        Examples
        --------
        >>> Certificate.from_json({"kind": "x"})
        Traceback (most recent call last):
        ...
        ValueError: a certificate needs the fields certify_version, claims, digest, format, network, semantics, statement
        """
        missing = sorted(k for k in ENVELOPE if k not in obj)
        if missing:
            raise ValueError(f"a certificate needs the fields {', '.join(missing)}")
        net = obj["network"]
        if not isinstance(net, Mapping) or set(net) != {"name", "digest"}:
            raise ValueError("network: must be a map with exactly the fields name and digest")
        payload = {k: copy.deepcopy(v) for k, v in obj.items() if k not in ENVELOPE}
        return cls(obj["format"], obj["kind"], net["name"], net["digest"], obj["semantics"], obj["statement"],
                   copy.deepcopy(dict(obj["claims"])), payload, obj["certify_version"], obj["digest"])

    def _fields(self) -> dict[str, None]:
        return {**{k: None for k in ENVELOPE}, **dict.fromkeys(self.payload)}

    def __getitem__(self, key: str) -> JsonValue:
        if key == "network":
            return _frozen({"name": self.network_name, "digest": self.network_digest})
        if key in self.payload:
            return _frozen(self.payload[key])
        if key == "claims":
            return _frozen(self.claims)
        if key in ENVELOPE:
            value: str = getattr(self, key)  # the envelope's other fields are strings
            return value
        raise KeyError(key)

    def __deepcopy__(self, memo: dict[int, object]) -> JsonObject:
        return self.to_json()

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields())

    def __len__(self) -> int:
        return len(self._fields())

    def __repr__(self) -> str:
        return f"Certificate(kind={self.kind!r}, network={self.network_name!r}, digest={self.digest!r})"




_READ_ONLY = "a certificate is read-only: edit copy.deepcopy(cert) or cert.to_json()"


def _refuse(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(_READ_ONLY)


class _ReadOnlyDict(dict[str, JsonValue]):
    """A JSON map read from a certificate: a ``dict`` (for json and equality) that refuses every change."""

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _refuse

    def __deepcopy__(self, memo: dict[int, object]) -> JsonObject:
        return {k: copy.deepcopy(v, memo) for k, v in self.items()}


class _ReadOnlyList(list[JsonValue]):
    """A JSON list read from a certificate: a ``list`` that refuses every change."""

    __setitem__ = __delitem__ = append = extend = insert = pop = remove = clear = sort = reverse = _refuse
    __iadd__ = __imul__ = _refuse

    def __deepcopy__(self, memo: dict[int, object]) -> list[JsonValue]:
        return [copy.deepcopy(v, memo) for v in self]


def _frozen(value: JsonValue) -> JsonValue:
    """A read-only copy of a JSON value (what the certificate holds never leaves it)."""
    if isinstance(value, Mapping):
        return _ReadOnlyDict({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return _ReadOnlyList(_frozen(v) for v in value)
    return value
