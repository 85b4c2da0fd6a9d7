"""Read, validate and write network files (``jsq-network/1``, ``fork-join-redundancy/1``).

The format is described in ``FORMAT.md``.  Every network that breaks a rule of the
format is refused with one :class:`~certify.core.errors.NetworkError` naming the file,
the field path (``streams[1].choice[0]``) and the rule.

Numbers are exact.  A decimal written in a file becomes the
:class:`~fractions.Fraction` of that decimal (``0.1`` is ``Fraction(1, 10)``, not
the binary float nearest to it).  As an extension of the format, any rate,
probability or ``scv`` may also be written as a string holding a fraction or a
decimal (``"1/3"``, ``"0.25"``), which lets exact values that have no finite
decimal expansion be written down; :func:`to_dict` uses that form for such values.
Booleans are never numbers.

One source of truth for every number
-------------------------------------
Every stage (fluid model, theorems, static split, Markov chain, simulator,
network digest, certificates) reads the rates of :class:`~certify.core.model.Station`
(``mu``) and :class:`~certify.core.model.Stream` (``rate``) and the probabilities as
loaded, so the loader alone decides them, by these rules:

* **Explicit phase-type laws are authoritative.**  For an explicit
  ``hyperexponential`` (``probs``/``rates``) or ``coxian`` law the exact mean m
  of the phases is computed.  If m equals the mean implied by the rate (1/mu
  for service, 1/rate for interarrival times) nothing changes.  If they differ
  by at most a relative ``1e-6`` (:data:`~certify.io.distributions.MEAN_TOLERANCE`), the phases as written
  win: the station's ``mu`` (the stream's ``rate``) becomes exactly 1/m, and one
  sentence naming the field and both exact values is appended to
  :attr:`Network.notes <certify.core.model.Network.notes>`.  Beyond that the network
  is refused, naming the field and both exact values.  So a decimal-rounded
  phase rate (``0.0617283950617284`` for 5/81) still loads, and a law whose
  phases are slower than ``mu`` says makes the station slower everywhere.
* **Probabilities that must sum to 1** (hyperexponential ``probs``,
  ``tie_breaking[].probs``, a stream's ``choices[].prob``): an exact sum of 1 is
  kept as written; a sum within ``1e-9`` of 1 (:data:`~certify.io.number_fields.SUM_TOLERANCE`) divides every
  probability by that exact sum (they then sum to exactly 1) and a note names
  the field and the sum; any other sum is refused.  Feedback probabilities of
  one station must sum to at most 1, exactly (no tolerance).
* **Numbers in range** (refused otherwise, naming the field and the rule):

  - the largest rate (``mu``, a stream's ``rate``, the phase ``rates`` of an
    explicit law, fork-join ``rate`` and server ``mu``) is at most 1e18 times
    the smallest (:data:`~certify.io.normalise.MAX_RATE_RATIO`); when some
    rate lies outside ``[1e-9, 1e9]`` (:data:`~certify.io.number_fields.RATE_MIN`,
    :data:`~certify.io.number_fields.RATE_MAX`) every rate is divided by the
    largest (a change of the unit of time, with a note; see
    :mod:`certify.io.normalise`), so loaded rates always lie in that range;
  - the numerator and the denominator of every number as written have at most
    :data:`~certify.io.number_fields.MAX_DIGITS` = 60 decimal digits (decimal exponents beyond +-1000 are
    refused before any integer is built); a rate derived from explicit phases
    has at most :data:`~certify.io.number_fields.MAX_DERIVED_DIGITS` = 1000;
  - Erlang ``k`` and the number of phases of an explicit law are at most
    :data:`~certify.io.distributions.MAX_PHASES` = 1000;
  - ``scv`` of a gamma or lognormal law lies in ``[1/1000, 1000]``, of a
    hyperexponential in ``[1, 1000]`` (:data:`~certify.io.distributions.SCV_MIN`,
    :data:`~certify.io.distributions.SCV_MAX`);
  - a ``capacity`` is at most :data:`~certify.io.jsq_schema.MAX_CAPACITY` = 10^9;
  - a ``sample`` stream draws from at most :data:`~certify.io.jsq_schema.MAX_SAMPLE_SETS` = 100000
    distinct d-subsets (C(len(from), d)).

Public functions: :func:`load`, :func:`loads`, :func:`from_dict`, :func:`to_dict`,
:func:`dump`.  This module reads and writes files and text (JSON, TOML) and
dispatches on ``format``; the rules live in the modules it calls:
:mod:`certify.io.context` (the context that collects failures, messages),
:mod:`certify.io.number_fields` (exact numbers, ranges, probabilities),
:mod:`certify.io.fields` (maps, lists, station sets, ``expected``),
:mod:`certify.io.distributions` (laws and their phase-type rules),
:mod:`certify.io.jsq_schema` and :mod:`certify.io.forkjoin_schema`.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

from ..core.errors import NetworkError
from ..core.jsontypes import JsonObject
from ..core.model import EXPONENTIAL, FORK_JOIN_FORMAT, JSQ_FORMAT, Distribution, ForkJoinNetwork, Network
from .context import Context, show
from .fields import as_expected, as_map, as_str, check_fields, plain
from .forkjoin_schema import FORK_JOIN_FIELDS, FORK_JOIN_REQUIRED, forkjoin_network
from .jsq_schema import JSQ_FIELDS, JSQ_REQUIRED, jsq_network
from .normalise import RATE_UNIT_FIELD, in_file_units
from .number_fields import written

__all__ = ["dump", "from_dict", "load", "loads", "to_dict"]

_V = TypeVar("_V")


def from_dict(doc: Mapping[str, object], source: str | None = None) -> Network | ForkJoinNetwork:
    """Validate a parsed document and build the model.

    Parameters
    ----------
    doc : mapping
        The document, as parsed from JSON/TOML (numbers may be ``int``,
        :class:`~decimal.Decimal`, ``float``, :class:`~fractions.Fraction` or
        strings like ``"1/3"``; a float stands for its shortest decimal ``repr``).
    source : str, optional
        The file it came from: named in errors, stored as ``source``, and its
        stem is the default ``name``.

    Returns
    -------
    Network or ForkJoinNetwork

    Raises
    ------
    NetworkError
        If any rule of the format is broken.

    Examples
    --------
    >>> net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 1}, "2": {"mu": "3/2"}},
    ...                  "streams": [{"choice": ["1", "2"], "rate": 0.1}]})
    >>> net.name, net.streams[0].rate, net.stations[1].mu
    ('network', Fraction(1, 10), Fraction(3, 2))
    >>> from_dict({"format": "jsq-network/1", "stations": {}, "streams": []}, "x.json")
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: x.json: stations: must not be empty
    """
    ctx = Context(source)
    as_map(ctx, doc, "(top level)")
    if "format" not in doc:
        ctx.fail("format", f'required field is missing (must be "{JSQ_FORMAT}" or "{FORK_JOIN_FORMAT}")')
    fmt = doc["format"]
    if fmt not in (JSQ_FORMAT, FORK_JOIN_FORMAT):
        ctx.fail("format", f'{show(fmt)} is not a known format (must be "{JSQ_FORMAT}" or "{FORK_JOIN_FORMAT}")')
    fj = fmt == FORK_JOIN_FORMAT
    check_fields(ctx, doc, None, FORK_JOIN_FIELDS if fj else JSQ_FIELDS,
                 FORK_JOIN_REQUIRED if fj else JSQ_REQUIRED, x_ok=True)
    if RATE_UNIT_FIELD in doc:
        ctx.fail(RATE_UNIT_FIELD, "is reserved (certify records there the factor it divided the rates by)")
    name = as_str(ctx, doc["name"], "name") if "name" in doc else (Path(source).stem if source else "network")
    extras = tuple(sorted((k, plain(v)) for k, v in doc.items() if k.startswith("x-")))
    expected = as_expected(ctx, doc["expected"], "expected") if "expected" in doc else None
    if fj:
        return forkjoin_network(ctx, doc, name, extras, expected, source)
    return jsq_network(ctx, doc, name, extras, expected, source)


def no_duplicate_keys(pairs: list[tuple[str, _V]]) -> dict[str, _V]:
    """A JSON object from its key-value pairs (``json.loads``' ``object_pairs_hook``), refusing a key given twice.

    Parameters
    ----------
    pairs : list of (str, object)
        The object's pairs, in the file's order.

    Returns
    -------
    dict
        The object.

    Raises
    ------
    DuplicateKey
        When a key occurs twice (which JSON parsers would otherwise resolve differently).

    Examples
    --------
    >>> json.loads('{"a": 1, "a": 2}', object_pairs_hook=no_duplicate_keys)
    Traceback (most recent call last):
    ...
    certify.io.loader.DuplicateKey: a
    """
    out: dict[str, _V] = {}
    for k, v in pairs:
        if k in out:
            raise DuplicateKey(k)
        out[k] = v
    return out


class DuplicateKey(ValueError):
    """A key given twice in one JSON object (``args[0]`` is the key).

    Examples
    --------
    >>> DuplicateKey("a").args[0]
    'a'
    """


def _parse(text: str | bytes, fmt: str, source: str | None) -> tuple[Any, NetworkError | None]:
    """The parsed document (unchecked: any JSON value; :func:`from_dict` checks it), or the error naming the syntax problem."""
    def err(path: str | None, rule: str) -> tuple[None, NetworkError]:
        return None, NetworkError(source, path, rule)

    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as e:
            return err(None, f"not valid UTF-8 text ({e.reason} at byte {e.start})")
    if fmt == "json":
        try:
            return json.loads(text, parse_float=Decimal, parse_constant=float, object_pairs_hook=no_duplicate_keys), None
        except json.JSONDecodeError as e:
            return err(f"line {e.lineno}, column {e.colno}", f"invalid JSON: {e.msg}")
        except DuplicateKey as e:
            return err(None, f"invalid JSON: duplicate key {json.dumps(e.args[0])} in an object")
        except (ValueError, RecursionError) as e:
            return err(None, f"invalid JSON: {e}")
    if fmt == "toml":
        try:
            return tomllib.loads(text, parse_float=Decimal), None
        except tomllib.TOMLDecodeError as e:
            m = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", str(e))
            if m:
                return err(f"line {m[2]}, column {m[3]}", f"invalid TOML: {m[1]}")
            return err(None, f"invalid TOML: {e}")
        except (ValueError, RecursionError) as e:
            return err(None, f"invalid TOML: {e}")
    return err(None, f'unknown syntax {fmt!r} (must be "json" or "toml")')


def loads(text: str | bytes, fmt: str = "json", source: str | None = None) -> Network | ForkJoinNetwork:
    """Parse and validate a network from a string.

    Parameters
    ----------
    text : str or bytes
        The document (bytes are decoded as UTF-8, a byte-order mark allowed).
    fmt : {"json", "toml"}
        Its syntax.
    source : str, optional
        Named in errors and stored as ``source``; its stem is the default name.

    Returns
    -------
    Network or ForkJoinNetwork

    Raises
    ------
    NetworkError
        Text that is not UTF-8, a syntax error (with line and column), a
        duplicate key in a JSON object, an unknown ``fmt``, or any broken
        rule of the format.

    Examples
    --------
    >>> net = loads('''format = "jsq-network/1"
    ... stations = {a = {mu = 2}, b = {mu = 0.5, capacity = 3}}
    ... [[streams]]
    ... choice = ["a", "b"]
    ... rate = 0.3
    ... ''', fmt="toml")
    >>> net.station_ids, net.stations[1].capacity, net.streams[0].rate
    (('a', 'b'), 3, Fraction(3, 10))
    >>> loads('{"format": "jsq-network/1",}', source="bad.json")
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: bad.json: line 1, column 28: invalid JSON: Expecting property name enclosed in double quotes
    """
    doc, err = _parse(text, fmt, source)
    if err is not None:
        raise err  # raised here, outside the except blocks, so without a chained parser error
    return from_dict(doc, source)


def load(path: str | os.PathLike[str]) -> Network | ForkJoinNetwork:
    """Load and validate a ``.json`` or ``.toml`` network file.

    Parameters
    ----------
    path : str or path-like
        The file; its extension chooses the syntax.

    Returns
    -------
    Network or ForkJoinNetwork
        With ``source`` set to ``str(path)``.

    Raises
    ------
    NetworkError
        Unknown extension, unreadable file, syntax error (with line and column)
        or any broken rule of the format.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "fj.json").write_text('{"format": "fork-join-redundancy/1", "n": 2, "k": 1, '
    ...     '"rate": 0.5, "servers": {"1": {"mu": 1}, "2": {"mu": 0.25}}}')
    >>> fj = load(d / "fj.json")
    >>> fj.name, fj.servers
    ('fj', (('1', Fraction(1, 1)), ('2', Fraction(1, 4))))
    """
    src = str(path)
    ext = Path(path).suffix.lower()
    if ext not in (".json", ".toml"):
        raise NetworkError(src, None, f"unknown file extension {ext or '(none)'!r} (must be .json or .toml)")
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise NetworkError(src, None, f"cannot read file: {e.strerror or e}") from None
    return loads(data, fmt=ext[1:], source=src)


def _law(d: Distribution) -> JsonObject:
    """A law as a file writes it."""
    return {k: written(v) for k, v in d.to_dict().items()}


def to_dict(net: Network | ForkJoinNetwork) -> JsonObject:
    """The document of a network: the inverse of :func:`from_dict`.

    Exact numbers are written as ``int`` when integral, as ``float`` when that
    float's shortest decimal is the exact value, else as a ``"p/q"`` string.

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        The network.

    Returns
    -------
    JsonObject
        The document; ``from_dict(to_dict(net)) == net``.

    Examples
    --------
    >>> net = from_dict({"format": "jsq-network/1", "name": "n", "stations": {"1": {"mu": "1/3"}},
    ...                  "streams": [{"choice": ["1"], "rate": 0.25}]})
    >>> to_dict(net)
    {'format': 'jsq-network/1', 'name': 'n', 'stations': {'1': {'mu': '1/3'}}, 'streams': [{'choice': ['1'], 'rate': 0.25}], 'feedback': []}
    >>> from_dict(to_dict(net)) == net
    True
    """
    # one call per type: in_file_units is generic in the network type (mypy reads the union as neither)
    net = in_file_units(net) if isinstance(net, Network) else in_file_units(net)
    if isinstance(net, ForkJoinNetwork):
        doc: JsonObject = {"format": FORK_JOIN_FORMAT, "name": net.name, "n": net.n, "k": net.k,
                           "rate": written(net.rate), "servers": {s: {"mu": written(mu)} for s, mu in net.servers}}
    else:
        stations: JsonObject = {}
        for s in net.stations:
            st: JsonObject = {"mu": written(s.mu)}
            if s.service != EXPONENTIAL:
                st["service"] = _law(s.service)
            if s.capacity is not None:
                st["capacity"] = s.capacity
            stations[s.id] = st
        streams: list[JsonObject] = []
        for sm in net.streams:
            d: JsonObject = {}
            if sm.choice is not None:
                d["choice"] = list(sm.choice)
            elif sm.choices is not None:
                d["choices"] = [{"set": list(c), "prob": written(p)} for c, p in sm.choices]
            else:
                assert sm.sample is not None
                d["sample"] = {"from": list(sm.sample[0]), "d": sm.sample[1]}
            d["rate"] = written(sm.rate)
            if sm.interarrival != EXPONENTIAL:
                d["interarrival"] = _law(sm.interarrival)
            streams.append(d)
        doc = {"format": JSQ_FORMAT, "name": net.name, "stations": stations, "streams": streams,
               "feedback": [{"from": f.source, "choice": list(f.choice), "prob": written(f.prob)} for f in net.feedback]}
        if net.tie_breaking:
            doc["tie_breaking"] = [{"set": list(t.set), "probs": {s: written(p) for s, p in t.probs}}
                                   for t in net.tie_breaking]
    if net.expected is not None:
        doc["expected"] = written(net.expected)
    for k, v in net.extras:
        doc[k] = written(v)
    return doc


def dump(net: Network | ForkJoinNetwork, path: str | os.PathLike[str]) -> None:
    """Write a network to a ``.json`` or ``.toml`` file (chosen by the extension).

    ``load(path)`` gives back an equal network.

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        The network.
    path : str or path-like
        The file; its extension (``.json`` or ``.toml``) chooses the syntax.

    Raises
    ------
    NetworkError
        For an unknown extension, or a document that cannot be written in
        that syntax.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> net = loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 1}}, '
    ...             '"streams": [{"choice": ["1"], "rate": "1/3"}]}')
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "net.toml"
    >>> dump(net, p)
    >>> load(p) == net
    True
    """
    src = str(path)
    ext = Path(path).suffix.lower()
    doc = to_dict(net)
    if ext == ".json":
        try:
            text = json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
        except (TypeError, ValueError) as e:
            raise NetworkError(src, None, f"cannot be written as JSON: {e}") from None
    elif ext == ".toml":
        import tomli_w

        try:
            text = tomli_w.dumps(doc)
        except (TypeError, ValueError) as e:
            raise NetworkError(src, None, f"cannot be written as TOML: {e}") from None
    else:
        raise NetworkError(src, None, f"unknown file extension {ext or '(none)'!r} (must be .json or .toml)")
    Path(path).write_text(text, encoding="utf-8")
