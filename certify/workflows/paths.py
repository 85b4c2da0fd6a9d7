"""Field paths into a network document: parse, check, read and set the number a path names.

A sweep names the numbers it varies by the same field paths that error messages
use: ``streams[0].rate``, ``stations.3.mu``, ``tie_breaking[0].probs.1``,
``stations["a b"].mu``.  A dotted segment is a map key (``stations.3`` is the
station named ``"3"``), a bracketed integer a list index, a bracketed JSON
string a key with any characters.

Setting one probability of a tie-breaking set (``tie_breaking[i].probs.S``) or
of a stream's ``choices`` rescales the other probabilities of that set that
are not set themselves, so that they still sum to 1 (:func:`apply_values`,
:func:`rescale_notes`).

The base a path points into is a :data:`~certify.core.jsontypes.JsonDocument`
(:func:`base_doc`); the copy :func:`apply_values` returns holds the exact
values it set as Fractions (an :data:`ExactDocument`).

Public: :func:`path_tokens`, :func:`check_path`, :func:`apply_values`,
:func:`rescale_notes`, :func:`base_doc`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, TypeAlias, TypeVar, cast

from ..core.errors import NetworkError
from ..core.jsontypes import JsonDocument, JsonNode
from ..core.numbers import as_fraction

if TYPE_CHECKING:
    from ..core.model import ForkJoinNetwork, Network

__all__ = ["path_tokens", "check_path", "apply_values", "rescale_notes", "base_doc"]

Tokens = list[str | int]  # a parsed field path: map keys (str) and list indices (int), outermost first

#: A value of a network document in which :func:`apply_values` may have set numbers to exact Fractions.
ExactNode: TypeAlias = "None | bool | int | float | str | Fraction | list[ExactNode] | dict[str, ExactNode]"
#: What :func:`apply_values` returns: a copy of a :data:`~certify.core.jsontypes.JsonDocument` with exact numbers set.
ExactDocument: TypeAlias = "dict[str, ExactNode]"

_Node = TypeVar("_Node", JsonNode, ExactNode)  # a node of a base document, or of a copy with exact numbers set

_TOKEN = re.compile(r'\.([A-Za-z0-9_-]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')
_HEAD = re.compile(r'([A-Za-z0-9_-]+)|\[("(?:[^"\\]|\\.)*")\]')


def path_tokens(path: str) -> Tokens | None:
    """Split a field path into its keys and indices.

    Parameters
    ----------
    path : str
        A field path as in error messages.

    Returns
    -------
    list of str and int, or None
        The segments, outermost first: a dotted segment is a key (digits
        included: ``stations.3`` is the key ``"3"``), ``[i]`` an index;
        ``None`` when ``path`` is not a field path.

    Examples
    --------
    >>> path_tokens("streams[0].rate")
    ['streams', 0, 'rate']
    >>> path_tokens('stations["a b"].mu')
    ['stations', 'a b', 'mu']
    >>> path_tokens("streams[0]rate") is None
    True
    """
    m = _HEAD.match(path)
    if not m:
        return None
    out: Tokens = [m[1] if m[1] is not None else json.loads(m[2])]
    pos = m.end()
    while pos < len(path):
        m = _TOKEN.match(path, pos)
        if not m:
            return None
        if m[1] is not None:
            # a plain key segment; digits name a map key here (stations.3), an index only in [..]
            out.append(m[1])
        elif m[2] is not None:
            out.append(int(m[2]))
        else:
            out.append(json.loads(m[3]))
        pos = m.end()
    return out


def _show_path(tokens: Sequence[str | int]) -> str:
    s = ""
    for t in tokens:
        if isinstance(t, int):
            s += f"[{t}]"
        elif re.fullmatch(r"[A-Za-z0-9_-]+", t):
            s += f".{t}" if s else t
        else:
            s += f"[{json.dumps(t)}]"
    return s


def _resolve(doc: JsonDocument, tokens: Tokens) -> str | None:
    """None when ``tokens`` names a number in ``doc``; else why not (one phrase)."""
    node: JsonNode = doc
    for k, t in enumerate(tokens):
        here = _show_path(tokens[:k]) or "the document"
        if isinstance(node, dict):
            if isinstance(t, int) or t not in node:
                keys = ", ".join(map(str, node)) or "none"
                return f"unknown field path: {_show_path(tokens[: k + 1])} does not exist ({here} has the fields {keys})"
            node = node[t]
        elif isinstance(node, list):
            if not isinstance(t, int):
                return f"{here} is a list: write {here}[i] with an index i"
            if t >= len(node):
                n = len(node)
                return f"unknown field path: {_show_path(tokens[: k + 1])} does not exist ({here} has {n} entr{'y' if n == 1 else 'ies'})"
            node = node[t]
        else:
            return f"{here} is a number, it has no field {_show_path(tokens[k:k + 1]).lstrip('.')}"
    if isinstance(node, (dict, list)) or as_fraction(node) is None:
        kind = "a map" if isinstance(node, dict) else "a list" if isinstance(node, list) else f"{node!r}"
        return f"{_show_path(tokens)} is {kind}, not a number (name a number, e.g. streams[0].rate or stations.1.mu)"
    return None


def check_path(doc: JsonDocument, path: str, fail: Callable[[str], NetworkError]) -> Tokens:
    """Parse ``path`` and check that it names a number of ``doc``.

    Parameters
    ----------
    doc : dict
        A network document (:func:`base_doc`).
    path : str
        A field path as in error messages.
    fail : callable
        Makes the error to raise from a rule (one phrase).

    Returns
    -------
    list of str and int
        The path's segments (:func:`path_tokens`).

    Raises
    ------
    NetworkError
        ``fail(rule)``: the path does not parse, does not exist, or names no number.

    Examples
    --------
    >>> doc = {"stations": {"1": {"mu": 1}}, "streams": [{"choice": ["1"], "rate": 1}]}
    >>> check_path(doc, "stations.1.mu", lambda rule: NetworkError(None, "--vary", rule))
    ['stations', '1', 'mu']
    >>> check_path(doc, "streams[2].rate", lambda rule: NetworkError(None, "--vary", rule))
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: --vary: unknown field path: streams[2] does not exist (streams has 1 entry)
    """
    tok = path_tokens(path)
    if tok is None:
        raise fail(f"{path!r} is not a field path (write it as in error messages: streams[0].rate, stations.3.mu)")
    why = _resolve(doc, tok)
    if why is not None:
        raise fail(why)
    return tok


def _child(node: _Node, t: str | int) -> _Node:
    """The value under key or index ``t`` of a map or list (a path checked by :func:`check_path` finds one)."""
    if isinstance(node, dict) and isinstance(t, str):
        return node[t]
    if isinstance(node, list) and isinstance(t, int):
        return node[t]
    raise TypeError(f"{t!r} names nothing in a {type(node).__name__}")


def _set(doc: ExactDocument, tokens: Tokens, value: Fraction | None) -> None:
    node: ExactNode = doc
    for t in tokens[:-1]:
        node = _child(node, t)
    last = tokens[-1]
    if isinstance(node, dict) and isinstance(last, str):
        node[last] = value
    elif isinstance(node, list) and isinstance(last, int):
        node[last] = value
    else:
        raise TypeError(f"{last!r} names nothing in a {type(node).__name__}")


def _get(doc: dict[str, _Node], tokens: Sequence[str | int]) -> _Node:
    node: _Node = doc
    for t in tokens:
        node = _child(node, t)
    return node


def _prob_group(tokens: Tokens, doc: JsonDocument) -> tuple[tuple[str | int, ...], list[Tokens]] | None:
    """The probabilities that must sum to 1 together with the one at ``tokens`` (their paths), if any."""
    if len(tokens) == 4 and tokens[0] == "tie_breaking" and tokens[2] == "probs":
        probs = _get(doc, tokens[:3])
        if isinstance(probs, dict):  # a tie-breaking set's probabilities: station -> probability
            return tuple(tokens[:3]), [[*tokens[:3], s] for s in probs]
    if len(tokens) == 5 and tokens[0] == "streams" and tokens[2] == "choices" and tokens[4] == "prob":
        choices = _get(doc, tokens[:3])
        if isinstance(choices, list):  # a stream's choices, each with its prob
            return tuple(tokens[:3]), [[*tokens[:3], k, "prob"] for k in range(len(choices))]
    return None


def _complements(doc: JsonDocument, paths: list[Tokens]) -> list[tuple[list[Tokens], list[Tokens]]]:
    """For each set of probabilities touched by ``paths``: (the varied ones, the others to rescale)."""
    groups: dict[tuple[str | int, ...], tuple[list[Tokens], list[Tokens]]] = {}
    for tok in paths:
        g = _prob_group(tok, doc)
        if g is None:
            continue
        gid, members = g
        varied = [m for m in members if m in paths]
        groups[gid] = (varied, [m for m in members if m not in paths])
    return [v for v in groups.values() if v[1]]


def apply_values(base: JsonDocument, paths: list[Tokens], values: Sequence[Fraction | None]) -> ExactDocument:
    """A copy of a network document with the numbers at ``paths`` set to ``values``.

    Parameters
    ----------
    base : dict
        The network document (:func:`base_doc`); it is not changed.
    paths : list of token lists
        The numbers to set (:func:`path_tokens`), each one checked to exist.
    values : sequence of Fraction or None
        Their new values, in the order of ``paths`` (None: a value that is no number, written as null
        for :func:`certify.io.loader.from_dict` to refuse).

    Returns
    -------
    dict
        The new document (an :data:`ExactDocument`: the values set are
        Fractions).  The probabilities of a tie-breaking set or a
        ``choices`` list that share a set with a path and are not set
        themselves are rescaled so that the set still sums to 1 (in proportion
        to their old values; equally when those were all 0).

    Examples
    --------
    >>> from fractions import Fraction
    >>> base = {"tie_breaking": [{"probs": {"1": "1/2", "2": "1/2"}}]}
    >>> apply_values(base, [["tie_breaking", 0, "probs", "1"]], [Fraction(3, 10)])
    {'tie_breaking': [{'probs': {'1': Fraction(3, 10), '2': Fraction(7, 10)}}]}
    """
    doc: ExactDocument = json.loads(json.dumps(base, default=str))  # deep copy; Fractions never occur in a to_dict document
    for tok, v in zip(paths, values):
        _set(doc, tok, v)
    for varied, others in _complements(base, paths):
        # the values just set: Fractions (a None from network_at makes the sum raise TypeError, as it always did)
        rest = 1 - sum((cast(Fraction, _get(doc, m)) for m in varied), Fraction(0))
        old = [as_fraction(_get(base, m)) or Fraction(0) for m in others]
        total = sum(old, Fraction(0))
        for m, o in zip(others, old):
            _set(doc, m, o * rest / total if total > 0 else rest / len(others))
    return doc


def rescale_notes(base: JsonDocument, paths: list[Tokens]) -> list[str]:
    """One sentence per probability set whose other members :func:`apply_values` rescales.

    Parameters
    ----------
    base : dict
        The network document.
    paths : list of token lists
        The numbers that are set.

    Returns
    -------
    list of str
        Which probabilities follow the varied ones (empty when none do).

    Examples
    --------
    >>> base = {"tie_breaking": [{"probs": {"1": "1/2", "2": "1/2"}}]}
    >>> rescale_notes(base, [["tie_breaking", 0, "probs", "1"]])
    ['tie_breaking[0].probs.2 rescaled so that the probabilities of tie_breaking[0].probs still sum to 1 (varied: tie_breaking[0].probs.1)']
    """
    return [f"{', '.join(_show_path(m) for m in others)} rescaled so that the probabilities of "
            f"{_show_path(varied[0][:3])} still sum to 1 (varied: {', '.join(_show_path(m) for m in varied)})"
            for varied, others in _complements(base, paths)]


def base_doc(net: Network | ForkJoinNetwork) -> JsonDocument:
    """A network as a plain JSON document, the base that field paths point into.

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        The network.

    Returns
    -------
    dict
        :func:`certify.io.loader.to_dict` of ``net``, with every value plain
        JSON (a number that is not exact as a JSON number is a string).

    Examples
    --------
    >>> from certify.io.loader import loads
    >>> net = loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 2.5}}, "streams": [{"choice": ["1"], "rate": 1}]}')
    >>> base_doc(net)["stations"]
    {'1': {'mu': 2.5}}
    """
    from ..io.loader import to_dict

    doc: JsonDocument = json.loads(json.dumps(to_dict(net), default=str))
    return doc
