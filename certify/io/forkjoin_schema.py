"""The ``fork-join-redundancy/1`` schema: n servers with their rates, k of n tasks, one arrival rate.

:func:`forkjoin_network` builds a :class:`~certify.core.model.ForkJoinNetwork`
from the fields of a document whose shared fields (``format``, ``name``,
``expected``, ``x-...``) :func:`certify.io.loader.from_dict` has read.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..core.jsontypes import JsonObject, JsonValue
from ..core.model import ForkJoinNetwork
from .context import Context, key_path, kind_of
from .fields import as_integer, as_map, check_fields
from .normalise import normalise
from .number_fields import as_rate

__all__ = ["FORK_JOIN_FIELDS", "FORK_JOIN_REQUIRED", "forkjoin_network"]

#: The top-level fields of a ``fork-join-redundancy/1`` document (names starting with ``x-`` are allowed too).
FORK_JOIN_FIELDS = ("format", "name", "n", "k", "rate", "servers", "expected")
#: The top-level fields a ``fork-join-redundancy/1`` document must have.
FORK_JOIN_REQUIRED = ("n", "k", "rate", "servers")


def forkjoin_network(ctx: Context, doc: Mapping[str, object], name: str, extras: tuple[tuple[str, JsonValue], ...],
                     expected: JsonObject | None, source: str | None) -> ForkJoinNetwork:
    """The system of a ``fork-join-redundancy/1`` document whose top-level fields have been checked.

    Parameters
    ----------
    ctx : Context
        Where errors point.
    doc : Mapping
        The document (its field names checked against :data:`FORK_JOIN_FIELDS`).
    name : str
        The system's name.
    extras : tuple of (str, JsonValue)
        The ``x-...`` fields, sorted, in plain form.
    expected : dict or None
        The ``expected`` block in plain form, or None.
    source : str or None
        The file it came from.

    Returns
    -------
    ForkJoinNetwork

    Raises
    ------
    NetworkError
        For a server id that is not a non-empty string, a rate out of range,
        ``n`` unequal to the number of servers, or ``k`` outside ``1..n``.

    Examples
    --------
    >>> doc = {"n": 2, "k": 1, "rate": 0.5, "servers": {"1": {"mu": 1}, "2": {"mu": "1/4"}}}
    >>> fj = forkjoin_network(Context(None), doc, "fj", (), None, None)
    >>> fj.k, fj.rate, fj.servers
    (1, Fraction(1, 2), (('1', Fraction(1, 1)), ('2', Fraction(1, 4))))
    >>> forkjoin_network(Context("fj.json"), dict(doc, n=3), "fj", (), None, None)
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: fj.json: n: 3 must equal the number of servers (2)
    """
    servers = as_map(ctx, doc["servers"], "servers")
    if not servers:
        ctx.fail("servers", "must not be empty")
    srv = []
    for sid, s in servers.items():
        p = key_path("servers", sid)
        if not isinstance(sid, str) or not sid:
            ctx.fail(p, f"server ids must be non-empty strings, got {kind_of(sid)}")
        server = as_map(ctx, s, p)
        check_fields(ctx, server, p, ("mu",), ("mu",))
        srv.append((sid, as_rate(ctx, server["mu"], key_path(p, "mu"))))
    n = as_integer(ctx, doc["n"], "n", 1)
    if n != len(srv):
        ctx.fail("n", f"{n} must equal the number of servers ({len(srv)})")
    k = as_integer(ctx, doc["k"], "k", 1, n)
    rate = as_rate(ctx, doc["rate"], "rate")
    return normalise(ctx, ForkJoinNetwork(name, n, k, rate, tuple(srv), extras, expected, source))
