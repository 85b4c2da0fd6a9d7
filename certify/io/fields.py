"""The structural field validators of a network document: maps, lists, strings, integers, field names, station sets.

Also the free-form parts every format shares: the ``expected`` block and the
``x-...`` fields (:func:`plain`).  Numbers are read by
:mod:`certify.io.number_fields`; each validator takes the
:class:`~certify.io.context.Context` that names the file in its errors.
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Collection, Mapping
from decimal import Decimal
from fractions import Fraction
from typing import cast

from ..core.jsontypes import JsonObject, JsonValue
from .context import Context, key_path, kind_of, show
from .number_fields import as_exact, written

__all__ = ["as_map", "as_list", "as_str", "as_integer", "check_fields", "as_station_set", "plain", "as_expected"]


def as_map(ctx: Context, v: object, path: str | None, what: str = "a map (JSON object / TOML table)") -> Mapping[object, object]:
    """``v``, which must be a map.

    Parameters
    ----------
    ctx : Context
        Where errors point.
    v : object
        The value as read.
    path : str or None
        Its field path.
    what : str, default "a map (JSON object / TOML table)"
        What the message says it must be.

    Returns
    -------
    Mapping
        ``v``.

    Raises
    ------
    NetworkError
        When ``v`` is not a map.

    Examples
    --------
    >>> as_map(Context(None), {"mu": 1}, "stations.1")
    {'mu': 1}
    >>> as_map(Context(None), [1], "stations.1")
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: stations.1: must be a map (JSON object / TOML table), got a list
    """
    if not isinstance(v, Mapping):
        ctx.fail(path, f"must be {what}, got {kind_of(v)}")
    return v


def as_list(ctx: Context, v: object, path: str, nonempty: bool = False) -> list[object] | tuple[object, ...]:
    """``v``, which must be a list (or tuple), non-empty if ``nonempty``.

    Parameters
    ----------
    ctx : Context
        Where errors point.
    v : object
        The value as read.
    path : str
        Its field path.
    nonempty : bool, default False
        Whether an empty list is refused.

    Returns
    -------
    list or tuple
        ``v``.

    Raises
    ------
    NetworkError
        When ``v`` is not a list, or is empty and must not be.

    Examples
    --------
    >>> as_list(Context(None), [1, 2], "streams")
    [1, 2]
    >>> as_list(Context(None), [], "streams", nonempty=True)
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: streams: must be a non-empty list
    """
    if not isinstance(v, (list, tuple)):
        ctx.fail(path, f"must be a list, got {kind_of(v)}")
    if nonempty and not v:
        ctx.fail(path, "must be a non-empty list")
    return v


def as_str(ctx: Context, v: object, path: str) -> str:
    """``v``, which must be a string.

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
    str
        ``v``.

    Raises
    ------
    NetworkError
        When ``v`` is not a string.

    Examples
    --------
    >>> as_str(Context(None), "mm1", "name")
    'mm1'
    >>> as_str(Context(None), 1, "name")
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: name: must be a string, got number 1
    """
    if not isinstance(v, str):
        ctx.fail(path, f"must be a string, got {kind_of(v)}")
    return v


def as_integer(ctx: Context, v: object, path: str, lo: int, hi: int | None = None) -> int:
    """An integer (not a boolean, not a float) in ``[lo, hi]``.

    Parameters
    ----------
    ctx : Context
        Where errors point.
    v : object
        The value as read.
    path : str
        Its field path.
    lo : int
        The smallest value allowed.
    hi : int, optional
        The largest value allowed; no bound when omitted.

    Returns
    -------
    int
        The value.

    Raises
    ------
    NetworkError
        When ``v`` is not an integer or lies outside the range.

    Examples
    --------
    >>> as_integer(Context(None), 3, "stations.1.capacity", 1)
    3
    >>> as_integer(Context(None), 3.0, "k", 1)
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: k: must be an integer, got number 3.0
    >>> as_integer(Context(None), 5, "k", 1, 4)
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: k: 5 must be an integer >= 1 and <= 4
    """
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        ctx.fail(path, f"must be an integer, got {kind_of(v)}")
    n = int(v)
    if n < lo or (hi is not None and n > hi):
        ctx.fail(path, f"{n} must be an integer >= {lo}" + (f" and <= {hi}" if hi is not None else ""))
    return n


def check_fields(ctx: Context, obj: Collection[object], path: str | None, allowed: tuple[str, ...],
                 required: tuple[str, ...] = (), x_ok: bool = False) -> None:
    """Refuse unknown keys (``x-...`` too, unless ``x_ok``) and missing required keys.

    Parameters
    ----------
    ctx : Context
        Where errors point.
    obj : Mapping or Collection
        The map whose keys are checked (iterating it gives them).
    path : str or None
        Its field path (``None`` at the top level).
    allowed : tuple of str
        The known field names.
    required : tuple of str, default ()
        The fields that must be present.
    x_ok : bool, default False
        Whether names starting with ``x-`` are allowed too.

    Raises
    ------
    NetworkError
        For a key that is not a string, an unknown field, or a missing one.

    Examples
    --------
    >>> check_fields(Context(None), {"mu": 1, "x-note": 2}, "stations.1", ("mu",), ("mu",), x_ok=True)
    >>> check_fields(Context(None), {"mu": 1, "rate": 2}, "stations.1", ("mu", "capacity"))
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: stations.1.rate: unknown field "rate" (allowed: "mu", "capacity")
    >>> check_fields(Context(None), {}, "stations.1", ("mu",), ("mu",))
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: stations.1.mu: required field is missing
    """
    for k in obj:
        if not isinstance(k, str):
            ctx.fail(path, f"field names must be strings, got {kind_of(k)}")
        if k not in allowed and not (x_ok and k.startswith("x-")):
            ok = ", ".join(f'"{a}"' for a in allowed) + (', or a name starting with "x-"' if x_ok else "")
            ctx.fail(key_path(path, k), f'unknown field "{k}" (allowed: {ok})')
    for k in required:
        if k not in obj:
            ctx.fail(key_path(path, k), "required field is missing")


def as_station_set(ctx: Context, v: object, path: str, ids: tuple[str, ...], min_size: int = 1) -> tuple[str, ...]:
    """A choice set: a list of distinct known station ids.

    Parameters
    ----------
    ctx : Context
        Where errors point.
    v : object
        The value as read.
    path : str
        Its field path.
    ids : tuple of str
        The network's station ids.
    min_size : int, default 1
        The fewest stations the set may have.

    Returns
    -------
    tuple of str
        The station ids, in the order written.

    Raises
    ------
    NetworkError
        When ``v`` is not a list, is too short, or names a station that is
        unknown or appears twice.

    Examples
    --------
    >>> as_station_set(Context(None), ["2", "1"], "streams[0].choice", ("1", "2"))
    ('2', '1')
    >>> as_station_set(Context(None), ["1", "3"], "streams[0].choice", ("1", "2"))
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: streams[0].choice[1]: unknown station "3" (stations: "1", "2")
    """
    items = as_list(ctx, v, path)
    if len(items) < min_size:
        ctx.fail(path, f"must list at least {min_size} station{'s' if min_size > 1 else ''}, got {len(items)}")
    seen: list[str] = []
    for i, s in enumerate(items):
        p = f"{path}[{i}]"
        if not isinstance(s, str):
            ctx.fail(p, f"station ids are strings, got {kind_of(s)}")
        if s not in ids:
            ctx.fail(p, f"unknown station {json.dumps(s)} (stations: {', '.join(map(json.dumps, ids))})")
        if s in seen:
            ctx.fail(p, f"station {json.dumps(s)} appears twice in the set")
        seen.append(s)
    return tuple(seen)


def plain(v: object) -> JsonValue:
    """Free-form data (``expected``, ``x-...``) as plain JSON values.

    Decimals become floats (as :func:`json.load` would give), Fractions are
    written as by :func:`certify.io.loader.to_dict`, tuples become lists.
    Free-form data is never validated: a value no JSON parser gives (a TOML
    date, a set in a graph attribute) is kept as it is, and a map's keys as
    they are (``json.dumps`` refuses what is not JSON; :func:`~certify.io.loader.dump`
    says so).

    Parameters
    ----------
    v : object
        The data as read.

    Returns
    -------
    JsonValue
        The same data in plain form.

    Examples
    --------
    >>> plain({"k": (Decimal("2.5"), Fraction(1, 3)), "s": "x"})
    {'k': [2.5, '1/3'], 's': 'x'}
    """
    if isinstance(v, Decimal):
        return float(v)
    if isinstance(v, Fraction):
        return written(v)
    if isinstance(v, Mapping):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return cast(JsonValue, v)  # what no JSON parser gives (a TOML date, a set), carried along unchecked


def as_expected(ctx: Context, v: object, path: str) -> JsonObject:
    """The ``expected`` block: a ``verdict``, or a ``quantity`` with a ``value`` (and a ``tol`` >= 0).

    Parameters
    ----------
    ctx : Context
        Where errors point.
    v : object
        The block as read.
    path : str
        Its field path.

    Returns
    -------
    dict
        The block in :func:`plain` form.

    Raises
    ------
    NetworkError
        When the verdict is neither ``"stable"`` nor ``"unstable"``, the value
        or tol is not a number (or tol < 0), or neither form is given.

    Examples
    --------
    >>> as_expected(Context(None), {"verdict": "stable", "how": "hand"}, "expected")
    {'verdict': 'stable', 'how': 'hand'}
    >>> as_expected(Context(None), {"quantity": "mean_queue", "value": Decimal("1.5")}, "expected")
    {'quantity': 'mean_queue', 'value': 1.5}
    >>> as_expected(Context(None), {"verdict": "yes"}, "expected")
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: expected.verdict: "yes" must be "stable" or "unstable"
    """
    block = as_map(ctx, v, path)
    if "verdict" in block:
        if block["verdict"] not in ("stable", "unstable"):
            ctx.fail(key_path(path, "verdict"), f'{show(block["verdict"])} must be "stable" or "unstable"')
    elif "quantity" in block:
        as_str(ctx, block["quantity"], key_path(path, "quantity"))
        if "value" not in block:
            ctx.fail(key_path(path, "value"), "required field is missing")
        as_exact(ctx, block["value"], key_path(path, "value"))
        if "tol" in block and as_exact(ctx, block["tol"], key_path(path, "tol")) < 0:
            ctx.fail(key_path(path, "tol"), f"{show(block['tol'])} must be >= 0")
    else:
        ctx.fail(path, 'must have a "verdict" ("stable"/"unstable") or a "quantity" and a "value"')
    out = plain(block)
    assert isinstance(out, dict)  # plain gives a dict for a map
    return out
