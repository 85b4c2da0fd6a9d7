"""The ``sink-growth`` certificate: a station that the rest of the network overloads (``docs/math/sink.md``).

The payload names the sink (``sink``), the function g on the reduced network R'
(``weights``: one rational per station of R', any sign; optional ``table``: K,
fast, values, as a growth certificate's, over R''s stations), the rate c
(``rate``) and a certificate that R' is positive recurrent
(``reduced_certificate``, a certificate file's object for R'). The checker
(:func:`certify.exact.sink.check_sink_growth`) rebuilds R', verifies the nested
certificate against it, and checks f + A'g >= c on every region of R' and c >
mu_S (1 - p_SS). Pure Python.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from fractions import Fraction
from math import lcm
from typing import Any

from ...core.certificate import Certificate
from ...core.envelope import seal
from ...core.errors import CertificateError
from ...core.jsontypes import JsonObject
from ...core.model import Network
from ...core.numbers import q, unq
from ...exact.facts import Check, SinkGrowthFacts
from ...exact.sink import check_sink_growth, reduced_network, sink_problem
from ...markov.chain import Chain, compile_chain
from ..reading import Reading, cell_key, field_map, named_rationals
from .base import Kind, Statement, primitives
from .fluid_flow import MAX_DENOMINATOR_BITS
from .growth import read_table

__all__ = ["sink_growth_claims", "sink_growth_certificate", "read_sink_growth", "sink_growth_statement", "nested_reduced",
           "KIND"]


def sink_growth_claims(f: SinkGrowthFacts) -> JsonObject:
    """The claims of a ``sink-growth`` certificate.

    Parameters
    ----------
    f : SinkGrowthFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``rate``, ``capacity``, ``regions`` and ``reduced`` (the nested certificate's kind).

    Examples
    --------
    >>> sink_growth_claims(SinkGrowthFacts(Fraction(3, 5), Fraction(1, 2), 7, "fluid-flow"))
    {'rate': '3/5', 'capacity': '1/2', 'regions': 7, 'reduced': 'fluid-flow'}
    """
    return {"rate": q(f.rate), "capacity": q(f.capacity), "regions": f.regions, "reduced": f.reduced}


def sink_growth_certificate(net: Network, sink: str, w: Sequence[Fraction], rate: Fraction, reduced: Mapping[str, Any],
                            check: Check[SinkGrowthFacts], table: Mapping[tuple[int, ...], Fraction] | None = None,
                            fast: Sequence[int] = (), K: int = 0) -> Certificate:
    """A ``sink-growth`` certificate, from a passing :func:`~certify.exact.sink.check_sink_growth`.

    Parameters
    ----------
    net : Network
        The network.
    sink : str
        The sink.
    w : sequence of Fraction
        The weights of g, in the order of R''s stations.
    rate : Fraction
        c.
    reduced : dict
        The certificate of R''s positive recurrence.
    check : Check of SinkGrowthFacts
        The passing check of exactly these arguments.
    table, fast, K
        g's bounded table (indices in R'), or None.

    Returns
    -------
    Certificate
        The sealed certificate.

    Examples
    --------
    Station 1 sends every customer on to the slow station 2 (rate 2/5 < the forced 1/2):

    >>> from certify.certificates import fluid_flow_certificate, nested_verdict
    >>> from certify.core.model import Feedback, Station, Stream
    >>> from certify.exact.fluid_flow import check_fluid_flow
    >>> F = Fraction
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(2, 5))), (Stream(F(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> red = reduced_network(net, "2").network
    >>> ch = compile_chain(red)
    >>> sub = fluid_flow_certificate(red, ch, [F(1)], check_fluid_flow(ch, [F(1)]))
    >>> chk = check_sink_growth(net, "2", [F(1)], F(1, 2), nested_verdict(red, sub))
    >>> cert = sink_growth_certificate(net, "2", [F(1)], F(1, 2), sub, chk)
    >>> cert["kind"], cert["claims"]["capacity"], cert["reduced_certificate"]["kind"]
    ('sink-growth', '2/5', 'fluid-flow')
    """
    ids = [s.id for s in reduced_network(net, sink).network.stations]
    payload: JsonObject = {"sink": sink, "weights": {ids[j]: q(w[j]) for j in range(len(ids))}, "rate": q(rate),
                           "reduced_certificate": json.loads(json.dumps(dict(reduced)))}
    if table is not None:
        payload["table"] = {"K": K, "fast": [ids[a] for a in fast],
                            "values": {cell_key(c): q(v) for c, v in sorted(table.items())}}
    return seal(net, "sink-growth", payload, sink_growth_claims(check.facts), *sink_growth_statement(net, None, ""))


def read_sink_growth(net: Network, cert: Mapping[str, Any]) -> Reading | str:
    """Read a ``sink-growth`` certificate: the sink, g on R' (weights and optional table), c and R''s certificate.

    Parameters
    ----------
    net : Network
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading or str
        The arguments of :func:`~certify.exact.sink.check_sink_growth`, or why the theorem does not apply.

    Raises
    ------
    CertificateError
        When ``sink`` is not a station id, a weight, ``rate`` or the table is malformed, the common denominator
        of the weights and the table exceeds 2^MAX_DENOMINATOR_BITS, or ``reduced_certificate`` is not an object.

    Examples
    --------
    >>> from certify.core.model import Network, Station, Stream
    >>> one = Network("one", (Station("1", Fraction(1)), Station("2", Fraction(1))), (Stream(Fraction(1), choice=("1",)),))
    >>> read_sink_growth(one, {"sink": 7})
    Traceback (most recent call last):
    ...
    certify.core.errors.CertificateError: sink: 7 must be a station id of the network
    """
    sink = cert.get("sink")
    if not isinstance(sink, str) or sink not in net.station_ids:
        raise CertificateError(None, "sink", f"{sink!r} must be a station id of the network")
    problem = sink_problem(net, sink)
    if problem is not None:
        return problem
    reduced = reduced_network(net, sink).network
    chain: Chain = compile_chain(reduced)
    vals = named_rationals(field_map(cert, "weights"), list(chain.ids), "weights")
    w = [vals[s] for s in chain.ids]
    rate = unq(cert.get("rate"), "rate")
    sub = cert.get("reduced_certificate")
    if not isinstance(sub, Mapping):
        raise CertificateError(None, "reduced_certificate", f"must be a certificate object, got {type(sub).__name__}")
    kwargs = read_table(chain, cert) if "table" in cert else {}
    common = 1
    for v in [*w, *kwargs.get("table", {}).values()]:  # sized before the check: it runs on g scaled to integers
        common = lcm(common, v.denominator)
        if common.bit_length() > MAX_DENOMINATOR_BITS:
            raise CertificateError(None, "weights", f"the common denominator of the weights and the table exceeds "
                                   f"2^{MAX_DENOMINATOR_BITS} (the exact check would run on integers that large)")
    return Reading((net, sink, w, rate), kwargs, None)


def sink_growth_statement(net: Any, chain: Chain | None, template: str) -> Statement:
    """What a sink-growth certificate proves on ``net`` (semantics, statement), derived, never read.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain or None
        Unused (the kind is for exponential networks).
    template : str
        Unused.

    Returns
    -------
    tuple of str
        The semantics and the statement.

    Examples
    --------
    >>> sink_growth_statement(None, None, "")[0]
    'markovian'
    """
    return "markovian", (
        "the reduced network R' (the sink removed) is positive recurrent and the forced flow into the sink averages "
        "at least rate > capacity along R''s paths (f + A'g >= rate at every state of R'): from empty the sink's queue "
        f"tends to infinity with positive probability, so the chain is not positive recurrent (docs/math/sink.md), "
        f"{primitives(None)}."
    )


def nested_reduced(net: Network, cert: Mapping[str, Any]) -> tuple[Network, Any]:
    """The nested certificate and the network it must be about: R', rebuilt from ``net`` without the sink.

    Parameters
    ----------
    net : Network
        The network.
    cert : dict
        The certificate (already read: ``sink`` names a station).

    Returns
    -------
    (Network, object)
        R' and the ``reduced_certificate`` field.

    Examples
    --------
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> net = Network("n", (Station("1", Fraction(1)), Station("2", Fraction(1))), (Stream(Fraction(1), choice=("1",)),),
    ...               (Feedback("1", ("2",), Fraction(1, 2)),))
    >>> nested_reduced(net, {"sink": "2", "reduced_certificate": {}})[0].station_ids
    ('1',)
    """
    return reduced_network(net, cert["sink"]).network, cert["reduced_certificate"]


KIND = Kind("sink-growth", "unstable", ("sink", "weights", "rate", "reduced_certificate"), read_sink_growth,
            check_sink_growth, sink_growth_claims, sink_growth_statement, "certify.explain.sink:explain_sink_growth",
            optional=("table",), nested=nested_reduced)
