"""Fork-join certificate files: what each kind claims, the writers, and the readers.

The three kinds mirror the JSQ ones: ``fork-join-capacity`` (instability, flow
balance), ``fork-join-independent`` (the (k,k) quadratic) and
``fork-join-foster`` (the lag table); their exact checks are in
:mod:`certify.forkjoin.checks`, what they prove (semantics and statement) in
:data:`certify.certificates.statements.STATEMENTS`.  Every field a reader accepts is
validated: server ids known, distinct and in the network's order; ``K`` an
integer in 1..MAX_CLIP_LEVEL; classes sorted, each in the network's order;
table keys in canonical form.  Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..core.envelope import seal
from ..core.errors import CertificateError
from ..core.model import ForkJoinNetwork
from ..core.numbers import q, unq
from ..exact.facts import Check
from ..forkjoin.checks import CapacityFacts, IndependentFacts, LagTableFacts
from ..forkjoin.lags import State
from ..templates.options import MAX_CLIP_LEVEL
from .reading import Reading, cell_key
from .statements import STATEMENTS

__all__ = [
    "FORK_JOIN_KINDS",
    "capacity_claims",
    "independent_claims",
    "lag_table_claims",
    "capacity_certificate",
    "independent_certificate",
    "forkjoin_foster_certificate",
    "read_capacity",
    "read_independent",
    "read_lag_table",
]

FORK_JOIN_KINDS = ("fork-join-capacity", "fork-join-foster", "fork-join-independent")

# ----------------------------------------------------------------------------- claims
def capacity_claims(f: CapacityFacts) -> dict[str, Any]:
    """The claims of a fork-join capacity certificate.

    Parameters
    ----------
    f : CapacityFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``bound`` and ``theta``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> capacity_claims(CapacityFacts(F(2, 5), F(2, 5), F(1, 2), ["1"]))
    {'bound': '2/5', 'theta': '2/5'}
    """
    return {"bound": q(f.bound), "theta": q(f.theta)}


def independent_claims(f: IndependentFacts) -> dict[str, Any]:
    """The claims of a (k,k) certificate.

    Parameters
    ----------
    f : IndependentFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``slope`` and ``exceptional_set`` (l1 bound).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> independent_claims(IndependentFacts(F(1), F(4)))
    {'slope': '1', 'exceptional_set': {'norm': 'l1', 'bound': '4'}}
    """
    return {"slope": q(f.slope), "exceptional_set": {"norm": "l1", "bound": q(f.bound)}}


def lag_table_claims(f: LagTableFacts) -> dict[str, Any]:
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


# ----------------------------------------------------------------------------- writers
def _seal(net: ForkJoinNetwork, kind: str, payload: dict[str, Any], claims: dict[str, Any]) -> dict[str, Any]:
    return seal(net, kind, payload, claims, *STATEMENTS[kind])


def capacity_certificate(net: ForkJoinNetwork, capped: Sequence[str], check: Check[CapacityFacts]) -> dict[str, Any]:
    """An instability certificate: the capped set R with d(R^c)/(k-``|R|``) < lam.

    Parameters
    ----------
    net : ForkJoinNetwork
        The network.
    capped : sequence of str
        The set R (server ids).
    check : Check of CapacityFacts
        The passing :func:`~certify.forkjoin.checks.check_capacity` of R.

    Returns
    -------
    dict
        The sealed certificate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.forkjoin.checks import check_capacity
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(1, 2), (("1", F(3, 5)), ("2", F(1, 5)), ("3", F(1, 5))))
    >>> cert = capacity_certificate(net, ["1"], check_capacity(net, ["1"]))
    >>> cert["kind"], cert["capped"], cert["claims"]
    ('fork-join-capacity', ['1'], {'bound': '2/5', 'theta': '2/5'})
    """
    return _seal(net, "fork-join-capacity", {"capped": list(capped)}, capacity_claims(check.facts))


def independent_certificate(net: ForkJoinNetwork, check: Check[IndependentFacts]) -> dict[str, Any]:
    """A stability certificate for a (k,k) system: V = sum_i Q_i^2 (independent M/M/1 queues).

    Parameters
    ----------
    net : ForkJoinNetwork
        The network.
    check : Check of IndependentFacts
        The passing :func:`~certify.forkjoin.checks.check_independent`.

    Returns
    -------
    dict
        The sealed certificate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.forkjoin.checks import check_independent
    >>> net = ForkJoinNetwork("n2k2", 2, 2, F(1, 2), (("1", F(1)), ("2", F(1))))
    >>> independent_certificate(net, check_independent(net))["claims"]["slope"]
    '1'
    """
    return _seal(net, "fork-join-independent", {"lyapunov": "sum_i Q_i^2"}, independent_claims(check.facts))


def forkjoin_foster_certificate(
    net: ForkJoinNetwork, K: int, table: Mapping[State, Fraction], check: Check[LagTableFacts]
) -> dict[str, Any]:
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
        The passing :func:`~certify.forkjoin.checks.check_forkjoin_foster` of the table.

    Returns
    -------
    dict
        The sealed certificate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.forkjoin.checks import check_forkjoin_foster
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
    return _seal(net, "fork-join-foster", payload, lag_table_claims(f))


# ----------------------------------------------------------------------------- readers
def _server_list(net: ForkJoinNetwork, value: Any, field: str) -> list[str]:
    """Distinct known server ids in the network's order (the canonical form)."""
    ids = [s for s, _ in net.servers]
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise CertificateError(None, field, f"{value!r} must be a list of server ids (strings)")
    if any(s not in ids for s in value) or len(set(value)) != len(value) or value != [s for s in ids if s in value]:
        raise CertificateError(None, field, f"{value!r} must list distinct server ids of {ids} in that order")
    return value


def read_capacity(net: ForkJoinNetwork, cert: dict[str, Any]) -> Reading:
    """Read a fork-join capacity certificate: the capped servers.

    Parameters
    ----------
    net : ForkJoinNetwork
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading
        The arguments of :func:`~certify.forkjoin.checks.check_capacity`.

    Raises
    ------
    CertificateError
        When ``capped`` is not a list of distinct server ids in the network's order.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(1, 2), (("1", F(3, 5)), ("2", F(1, 5)), ("3", F(1, 5))))
    >>> read_capacity(net, {"capped": ["1"]}).args[1]
    ['1']
    """
    return Reading((net, _server_list(net, cert.get("capped"), "capped")))


def read_independent(net: ForkJoinNetwork, cert: dict[str, Any]) -> Reading:
    """Read a (k,k) certificate: its Lyapunov function must be ``sum_i Q_i^2``.

    Parameters
    ----------
    net : ForkJoinNetwork
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading
        The arguments of :func:`~certify.forkjoin.checks.check_independent`.

    Raises
    ------
    CertificateError
        When ``lyapunov`` is anything else.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n2k2", 2, 2, F(1, 2), (("1", F(1)), ("2", F(1))))
    >>> read_independent(net, {"lyapunov": "sum_i Q_i^2"}).args == (net,)
    True
    """
    if cert.get("lyapunov") != "sum_i Q_i^2":
        raise CertificateError(None, "lyapunov", f"{cert.get('lyapunov')!r} must be 'sum_i Q_i^2'")
    return Reading((net,))


def read_lag_table(net: ForkJoinNetwork, cert: dict[str, Any]) -> Reading:
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
        The arguments of :func:`~certify.forkjoin.checks.check_forkjoin_foster`.

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
    K = cert.get("K")
    if isinstance(K, bool) or not isinstance(K, int) or not 1 <= K <= MAX_CLIP_LEVEL:
        raise CertificateError(None, "K", f"{K!r} must be an integer in 1..{MAX_CLIP_LEVEL}")
    idx = {s: i for i, (s, _) in enumerate(net.servers)}
    raw = cert.get("classes")
    if not isinstance(raw, list):
        raise CertificateError(None, "classes", f"must be a list of lists of server ids, got {type(raw).__name__}")
    classes = [tuple(idx[s] for s in _server_list(net, c, f"classes[{n}]")) for n, c in enumerate(raw)]
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
