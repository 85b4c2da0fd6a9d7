"""The ``static-split`` kind: a dual of the static split LP with value < 0 (flow balance, any laws).

Payload: ``multipliers`` (``sets``, ``stations``).  With capacities the lossy sets are derived from the network.  Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ...core.certificate import Certificate
from ...core.envelope import seal
from ...core.errors import CertificateError
from ...core.jsontypes import JsonObject
from ...core.model import Network
from ...core.numbers import q
from ...exact.facts import (
    Check,
    StaticSplitFacts,
)
from ...exact.instability import check_static_split, routed_sets
from ...exact.overflow import lossy_sets
from ...markov.chain import Chain, compile_chain
from ..reading import Reading, field_map, named_rationals
from .base import Kind, Statement

__all__ = ["static_split_claims", "static_split_certificate", "read_static_split"]


def static_split_claims(f: StaticSplitFacts) -> JsonObject:
    """The claims of a static-split dual certificate.

    Parameters
    ----------
    f : StaticSplitFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``dual_value`` and ``overloaded``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> static_split_claims(StaticSplitFacts(F(-1, 2), ["1"]))
    {'dual_value': '-1/2', 'overloaded': ['1']}
    """
    return {"dual_value": q(f.dual_value), "overloaded": f.overloaded}

def static_split_certificate(
    net: Network, chain: Chain, u: dict[tuple[int, ...], Fraction], w: Sequence[Fraction], check: Check[StaticSplitFacts]
) -> Certificate:
    """An instability certificate from the dual of the static split LP.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain
        Its chain.
    u : dict of choice set to Fraction
        One multiplier per routed set.
    w : sequence of Fraction
        One weight per station.
    check : Check of StaticSplitFacts
        The passing :func:`~certify.exact.check_static_split` of (u, w).

    Returns
    -------
    Certificate
        The sealed certificate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.exact import check_static_split
    >>> from certify.markov.chain import compile_chain
    >>> over = Network("over", (Station("1", F(1)),), (Stream(F(2), choice=("1",)),))
    >>> chain = compile_chain(over)
    >>> u, w = {(0,): F(-1)}, [F(1)]
    >>> static_split_certificate(over, chain, u, w, check_static_split(chain, u, w))["claims"]
    {'dual_value': '-1', 'overloaded': ['1']}
    """
    ids = chain.ids
    multipliers = {
        "sets": {",".join(ids[j] for j in C): q(u[C]) for C in routed_sets(chain)},
        "stations": {ids[j]: q(w[j]) for j in range(chain.J)},
    }
    return seal(net, "static-split", {"multipliers": multipliers}, static_split_claims(check.facts),
                *static_split_statement(net, chain, ""))

def read_static_split(net: Network, cert: Mapping[str, Any]) -> Reading:
    """Read a static-split dual certificate: one multiplier per routed choice set and one weight per station.

    Parameters
    ----------
    net : Network
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading
        The arguments of :func:`certify.exact.check_static_split`.

    Raises
    ------
    CertificateError
        When ``multipliers`` is not a map of exactly ``sets`` and ``stations``,
        or they do not name exactly the routed sets and the stations.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(1)),), (Stream(F(2), choice=("1",)),))
    >>> read_static_split(mm1, {"multipliers": {"sets": {"1": "-1"}, "stations": {"1": "1"}}}).args[1:]
    ({(0,): Fraction(-1, 1)}, [Fraction(1, 1)], [])
    """
    chain = compile_chain(net)
    m = field_map(cert, "multipliers")
    if set(m) != {"sets", "stations"}:
        raise CertificateError(None, "multipliers", f"must have exactly the fields sets, stations (got {sorted(m)})")
    names = {",".join(chain.ids[j] for j in C): C for C in routed_sets(chain)}
    for part in ("sets", "stations"):
        if not isinstance(m[part], dict):
            raise CertificateError(None, f"multipliers.{part}", f"must be a map, got {type(m[part]).__name__}")
    us = named_rationals(m["sets"], list(names), "multipliers.sets")
    ws = named_rationals(m["stations"], list(chain.ids), "multipliers.stations")
    lossy = lossy_sets(chain, [s.capacity for s in net.stations])  # derived from the network, never read
    return Reading((chain, {names[k]: v for k, v in us.items()}, [ws[s] for s in chain.ids], lossy), chain=chain)


def static_split_statement(net: Any, chain: Chain | None, template: str) -> Statement:
    """What a static-split certificate proves on ``net`` (semantics, statement), derived, never read.

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
    >>> static_split_statement(mm1, None, '')[0]
    'general'
    """
    losses = isinstance(net, Network) and net.has_capacities
    return "general", (
        "No routing of the offered traffic"
        + (", even one that loses any share of the customers whose choice sets hold only capped stations," if losses else "")
        + " keeps every station below its service rate: "
        "not positive recurrent under any policy and any distributions with these means (flow balance"
        + (" with losses" if losses else "")
        + ")."
    )


KIND = Kind("static-split", "unstable", ("multipliers",), read_static_split, check_static_split, static_split_claims,
            static_split_statement, "certify.explain.instability:explain_static_split", capacities=True)
