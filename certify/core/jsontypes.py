"""The types of JSON documents: what certify writes (results, certificates, network files) and reads back.

A JSON value is ``null``, a boolean, a number, a string, an array of values
or an object whose keys are strings.  :data:`JsonValue` says exactly that,
recursively, so that a checker refuses a value ``json.dumps`` would refuse (a
``Fraction``, a ``set``, an object with a non-string key).  Its arrays and
objects are read-only views (``Sequence``, ``Mapping``), so a ``dict[str,
str]`` or a ``list[int]`` is a JSON value as it stands.

* :data:`JsonValue` -- any JSON value.
* :data:`JsonObject` -- a JSON object under construction or just written
  (``to_json`` returns one): a mutable ``dict`` of JSON values.
* :data:`JsonDocument` -- a JSON object as read by ``json.load`` and edited in
  place (a network document a sweep varies): every array a ``list``, every
  object a ``dict``, all the way down.

For example, ``row: JsonObject = {"load": "1/2", "verdicts": ["stable"]}`` type-checks,
and ``{"load": Fraction(1, 2)}`` does not (``json.dumps`` would refuse it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

__all__ = ["JsonValue", "JsonObject", "JsonNode", "JsonDocument"]

JsonValue: TypeAlias = "None | bool | int | float | str | Sequence[JsonValue] | Mapping[str, JsonValue]"
JsonObject: TypeAlias = "dict[str, JsonValue]"
JsonNode: TypeAlias = "None | bool | int | float | str | list[JsonNode] | dict[str, JsonNode]"
JsonDocument: TypeAlias = "dict[str, JsonNode]"
