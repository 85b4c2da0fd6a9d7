"""The ``fork-join-independent`` kind: k = n, every server an M/M/1 queue: V = sum_i Q_i^2.

Payload: ``lyapunov`` (the fixed text ``sum_i Q_i^2``).  The exact check is
:func:`certify.exact.forkjoin.check_independent`.  Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.certificate import Certificate
from ...core.envelope import seal
from ...core.errors import CertificateError
from ...core.jsontypes import JsonObject
from ...core.model import ForkJoinNetwork
from ...core.numbers import q
from ...exact.facts import (
    Check,
)
from ...exact.forkjoin import (
    IndependentFacts,
    check_independent,
)
from ..reading import Reading
from .base import Kind, Statement, fixed_statement

__all__ = ["INDEPENDENT", "independent_claims", "independent_certificate", "read_independent"]

#: What a certificate of this kind proves, on every network (semantics, statement).
INDEPENDENT: Statement = (
    "markovian",
    "k = n: no task is cancelled and every server is an M/M/1 queue fed by every job; V = sum_i Q_i^2 has "
    "AV <= -slope |q|_1 + n lam + mu* <= -1 whenever |q|_1 >= bound: positive recurrent (Foster), for Poisson "
    "jobs and exponential servers.",
)


def independent_claims(f: IndependentFacts) -> JsonObject:
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

def independent_certificate(net: ForkJoinNetwork, check: Check[IndependentFacts]) -> Certificate:
    """A stability certificate for a (k,k) system: V = sum_i Q_i^2 (independent M/M/1 queues).

    Parameters
    ----------
    net : ForkJoinNetwork
        The network.
    check : Check of IndependentFacts
        The passing :func:`~certify.exact.forkjoin.check_independent`.

    Returns
    -------
    Certificate
        The sealed certificate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.exact.forkjoin import check_independent
    >>> net = ForkJoinNetwork("n2k2", 2, 2, F(1, 2), (("1", F(1)), ("2", F(1))))
    >>> independent_certificate(net, check_independent(net))["claims"]["slope"]
    '1'
    """
    return seal(net, "fork-join-independent", {"lyapunov": "sum_i Q_i^2"}, independent_claims(check.facts),
                *INDEPENDENT)

def read_independent(net: ForkJoinNetwork, cert: Mapping[str, Any]) -> Reading:
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
        The arguments of :func:`~certify.exact.forkjoin.check_independent`.

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




KIND = Kind("fork-join-independent", "stable", ("lyapunov",), read_independent, check_independent,
            independent_claims, fixed_statement(INDEPENDENT), "certify.explain.forkjoin:explain_independent",
            networks="fork-join")
