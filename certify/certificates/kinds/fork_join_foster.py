"""The ``fork-join-foster`` kind: V = N + h(min(N - Q, K)), a bounded table over the clipped lags.

Payload: ``K``, ``classes``, ``table``.  The exact check is :func:`certify.exact.forkjoin.check_forkjoin_foster`.
Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ...core.certificate import Certificate
from ...core.envelope import seal
from ...core.errors import CertificateError
from ...core.jsontypes import JsonObject
from ...core.model import ForkJoinNetwork
from ...core.numbers import q, unq
from ...exact.facts import (
    Check,
)
from ...exact.forkjoin import (
    LagTableFacts,
    check_forkjoin_foster,
)
from ...exact.forkjoin_lags import State
from ...templates.options import MAX_CLIP_LEVEL
from ..reading import Reading, cell_key, int_field, server_list
from .base import Kind, Statement, fixed_statement

__all__ = ["LAG_TABLE", "lag_table_claims", "forkjoin_foster_certificate", "read_lag_table"]

#: What a certificate of this kind proves, on every network (semantics, statement).
LAG_TABLE: Statement = (
    "markovian",
    "V = N + h(min(N - Q, K)) (N = max queue = jobs present, h a bounded table over the clipped lags) has "
    "AV <= -delta at every state with N > K, on every region of lag levels (one per orbit of equal-rate "
    "servers); the empty state is reachable from every state: positive recurrent (Foster), for Poisson jobs "
    "and exponential servers.",
)


def lag_table_claims(f: LagTableFacts) -> JsonObject:
    """The claims of a fork-join Foster (lag table) certificate.

    Parameters
    ----------
    f : LagTableFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``delta``, ``exceptional_set`` (max queue), ``regions``, ``cells``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> lag_table_claims(LagTableFacts(3, 2, 1, [(0, 1, 2)], F(1, 30), 1))
    {'delta': '1/30', 'exceptional_set': {'max_queue': 1}, 'regions': 3, 'cells': 2}
    """
    return {
        "delta": q(f.delta),
        "exceptional_set": {"max_queue": f.exceptional_max_queue},
        "regions": f.regions,
        "cells": f.cells,
    }

def forkjoin_foster_certificate(
    net: ForkJoinNetwork, K: int, table: Mapping[State, Fraction], check: Check[LagTableFacts]
) -> Certificate:
    """A stability certificate: V = N + h(min(L, K)) with the table h, exactly checked.

    Parameters
    ----------
    net : ForkJoinNetwork
        The network.
    K : int
        The clip level.
    table : mapping of cell to Fraction
        The table h.
    check : Check of LagTableFacts
        The passing :func:`~certify.exact.forkjoin.check_forkjoin_foster` of the table.

    Returns
    -------
    Certificate
        The sealed certificate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.exact.forkjoin import check_forkjoin_foster
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(3, 10), (("1", F(1, 3)), ("2", F(1, 3)), ("3", F(1, 3))))
    >>> h = {(0, 0, 0): F(0), (1, 0, 0): F(-1, 2)}
    >>> cert = forkjoin_foster_certificate(net, 1, h, check_forkjoin_foster(net, 1, h))
    >>> cert["table"], cert["claims"]["delta"]
    ({'0,0,0': '0', '1,0,0': '-1/2'}, '1/30')
    """
    f = check.facts
    ids = [s for s, _ in net.servers]
    payload = {
        "K": K,
        "classes": [[ids[i] for i in c] for c in f.classes],
        "table": {cell_key(c): q(v) for c, v in sorted(table.items())},
    }
    return seal(net, "fork-join-foster", payload, lag_table_claims(f), *LAG_TABLE)

def read_lag_table(net: ForkJoinNetwork, cert: Mapping[str, Any]) -> Reading:
    """Read a fork-join Foster certificate: the clip level K, the symmetry classes and the table h.

    Parameters
    ----------
    net : ForkJoinNetwork
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading
        The arguments of :func:`~certify.exact.forkjoin.check_forkjoin_foster`.

    Raises
    ------
    CertificateError
        When K is not an integer in 1..MAX_CLIP_LEVEL, the classes are not
        sorted lists of server ids in the network's order, or a table key is not
        a cell in canonical form or a value not a canonical rational.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(3, 10), (("1", F(1, 3)), ("2", F(1, 3)), ("3", F(1, 3))))
    >>> r = read_lag_table(net, {"K": 1, "classes": [["1", "2", "3"]], "table": {"0,0,0": "0", "1,0,0": "-1/2"}})
    >>> r.args[1:]
    (1, {(0, 0, 0): Fraction(0, 1), (1, 0, 0): Fraction(-1, 2)}, [(0, 1, 2)])
    """
    K = int_field(cert, "K", 1, MAX_CLIP_LEVEL)
    idx = {s: i for i, (s, _) in enumerate(net.servers)}
    raw = cert.get("classes")
    if not isinstance(raw, list):
        raise CertificateError(None, "classes", f"must be a list of lists of server ids, got {type(raw).__name__}")
    classes = [tuple(idx[s] for s in server_list(net, c, f"classes[{n}]")) for n, c in enumerate(raw)]
    if classes != sorted(classes):
        raise CertificateError(None, "classes", f"{raw!r:.200} must be sorted (by their first server)")
    values = cert.get("table")
    if not isinstance(values, dict):
        raise CertificateError(None, "table", f"must be a map from cells to rationals, got {type(values).__name__}")
    table: dict[State, Fraction] = {}
    for key, v in values.items():
        try:
            cell = tuple(int(x) for x in str(key).split(","))
        except ValueError:
            raise CertificateError(None, "table", f"key {key!r} is not a cell (comma-separated integers)") from None
        if cell_key(cell) != key:
            raise CertificateError(None, "table", f"key {key!r} is not in canonical form (write {cell_key(cell)!r})")
        table[cell] = unq(v, f"table.{key}")
    return Reading((net, K, table, classes))




KIND = Kind("fork-join-foster", "stable", ("K", "classes", "table"), read_lag_table, check_forkjoin_foster,
            lag_table_claims, fixed_statement(LAG_TABLE), "certify.explain.forkjoin_lags:explain_lag_table",
            networks="fork-join")
