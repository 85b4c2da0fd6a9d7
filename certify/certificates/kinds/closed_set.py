"""The ``closed-set`` kind: customers that never leave a set fed by exogenous arrivals (any laws).

Payload: ``stations``.  Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.certificate import Certificate
from ...core.envelope import seal
from ...core.jsontypes import JsonObject
from ...core.model import Network
from ...core.numbers import q
from ...exact.facts import (
    Check,
    ClosedSetFacts,
)
from ...exact.instability import check_closed_set
from ...markov.chain import Chain, compile_chain
from ...templates.options import station_list
from ..reading import Reading
from .base import Kind, Statement

__all__ = ["closed_set_claims", "closed_set_certificate", "read_closed_set"]


def closed_set_claims(f: ClosedSetFacts) -> JsonObject:
    """The claims of a closed-set certificate.

    Parameters
    ----------
    f : ClosedSetFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``inflow``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> closed_set_claims(ClosedSetFacts(["2"], F(1, 10)))
    {'inflow': '1/10'}
    """
    return {"inflow": q(f.inflow)}

def closed_set_certificate(net: Network, chain: Chain, stations: Sequence[int], check: Check[ClosedSetFacts]) -> Certificate:
    """An instability certificate: a set of stations customers never leave, entered at positive rate.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain
        Its chain.
    stations : sequence of int
        The set (station indices).
    check : Check of ClosedSetFacts
        The passing :func:`~certify.exact.check_closed_set` of the set.

    Returns
    -------
    Certificate
        The sealed certificate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.exact import check_closed_set
    >>> from certify.markov.chain import compile_chain
    >>> streams = (Stream(F(1, 2), choice=("1",)), Stream(F(1, 10), choice=("2",)))
    >>> trap = Network("trap", (Station("1", F(1)), Station("2", F(1))), streams, (Feedback("2", ("2",), F(1)),))
    >>> chain = compile_chain(trap)
    >>> cert = closed_set_certificate(trap, chain, [1], check_closed_set(chain, [1]))
    >>> cert["stations"], cert["claims"]
    (['2'], {'inflow': '1/10'})
    """
    return seal(net, "closed-set", {"stations": [chain.ids[j] for j in stations]}, closed_set_claims(check.facts),
                *closed_set_statement(net, chain, ""))

def read_closed_set(net: Network, cert: Mapping[str, Any]) -> Reading:
    """Read a closed-set certificate: the stations (distinct known ids, in the network's order).

    Parameters
    ----------
    net : Network
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading
        The arguments of :func:`certify.exact.check_closed_set`.

    Raises
    ------
    CertificateError
        When ``stations`` is not a non-empty list of distinct station ids in the network's order.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> two = Network("two", (Station("1", F(1)), Station("2", F(1))), (Stream(F(1), choice=("1", "2")),))
    >>> read_closed_set(two, {"stations": ["2"]}).args[1]
    [1]
    """
    chain = compile_chain(net)
    stations = [chain.ids.index(s) for s in station_list(chain, cert.get("stations"), "stations", nonempty=True)]
    return Reading((chain, stations), chain=chain)


def closed_set_statement(net: Any, chain: Chain | None, template: str) -> Statement:
    """What a closed-set certificate proves on ``net`` (semantics, statement), derived, never read.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain or None
        The chain the certificate is about.
    template : str
        Unused.

    Returns
    -------
    tuple of str
        The semantics and the statement.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> closed_set_statement(mm1, None, '')[0]
    'general'
    """
    return "general", (
        "Customers never leave the stations listed (every feedback from them stays among them with probability 1) "
        "and exogenous arrivals enter them at rate `inflow` > 0: their queue lengths tend to infinity almost surely, "
        "under every tie-breaking rule and every i.i.d. service and interarrival law with these means."
    )


KIND = Kind("closed-set", "unstable", ("stations",), read_closed_set, check_closed_set, closed_set_claims,
            closed_set_statement, "certify.explain.instability:explain_closed_set")
