"""The ``fork-join-capacity`` kind: flow balance on a fork-join system, a set R of capped servers.

Payload: ``capped`` (server ids, distinct, in the network's order).  The exact check is
:func:`certify.exact.forkjoin.check_capacity`.  Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.certificate import Certificate
from ...core.envelope import seal
from ...core.jsontypes import JsonObject
from ...core.model import ForkJoinNetwork
from ...core.numbers import q
from ...exact.facts import (
    Check,
)
from ...exact.forkjoin import (
    CapacityFacts,
    check_capacity,
)
from ..reading import Reading, server_list
from .base import Kind, Statement, fixed_statement

__all__ = ["CAPACITY", "capacity_claims", "capacity_certificate", "read_capacity"]

#: What a certificate of this kind proves, on every network (semantics, statement).
CAPACITY: Statement = (
    "markovian",
    "Each departing job has k completed tasks at k distinct servers, so the job throughput is at most "
    "d(R^c)/(k-|R|) (the servers in R count at most once per job), which is below the job rate: the number "
    "of jobs grows linearly, for every arrival process with this rate and exponential services (flow balance).",
)


def capacity_claims(f: CapacityFacts) -> JsonObject:
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

def capacity_certificate(net: ForkJoinNetwork, capped: Sequence[str], check: Check[CapacityFacts]) -> Certificate:
    """An instability certificate: the capped set R with d(R^c)/(k-``|R|``) < lam.

    Parameters
    ----------
    net : ForkJoinNetwork
        The network.
    capped : sequence of str
        The set R (server ids).
    check : Check of CapacityFacts
        The passing :func:`~certify.exact.forkjoin.check_capacity` of R.

    Returns
    -------
    Certificate
        The sealed certificate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.exact.forkjoin import check_capacity
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(1, 2), (("1", F(3, 5)), ("2", F(1, 5)), ("3", F(1, 5))))
    >>> cert = capacity_certificate(net, ["1"], check_capacity(net, ["1"]))
    >>> cert["kind"], cert["capped"], cert["claims"]
    ('fork-join-capacity', ['1'], {'bound': '2/5', 'theta': '2/5'})
    """
    return seal(net, "fork-join-capacity", {"capped": list(capped)}, capacity_claims(check.facts),
                *CAPACITY)

def read_capacity(net: ForkJoinNetwork, cert: Mapping[str, Any]) -> Reading:
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
        The arguments of :func:`~certify.exact.forkjoin.check_capacity`.

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
    return Reading((net, server_list(net, cert.get("capped"), "capped")))




KIND = Kind("fork-join-capacity", "unstable", ("capped",), read_capacity, check_capacity, capacity_claims,
            fixed_statement(CAPACITY), "certify.explain.forkjoin:explain_capacity", networks="fork-join")
