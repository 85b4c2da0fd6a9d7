"""The ``sink-growth`` certificate: a station that the rest of the network overloads (``docs/math/sink.md``).

The payload names the sink (``sink``: a station id, or a list of station ids for
a set of sinks G), the function g on the reduced network R' (``weights``: one
rational per station of R', any sign; optional ``table``: K, fast, values, as a
growth certificate's, over R''s stations), the rate c (``rate``) and a
certificate that R' is positive recurrent (``reduced_certificate``, a
certificate file's object for R'). For a set, optional ``subsets`` give proper
subsets H their own g_H (``weights``, and ``values`` over the same table cells)
and c_H (``rate``). The checker (:func:`certify.exact.sink.check_sink_growth`)
rebuilds R', verifies the nested certificate against it, and checks f + A'g >= c
on every region of R' and c > m_G (for every subset H of a set too). Pure Python.
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
from ...exact.sink import Subset, check_sink_growth, reduced_network, sink_problem
from ...markov.chain import Chain, compile_chain
from ...markov.drift import Clip
from ..reading import Reading, cell_key, field_map, named_rationals
from .base import Kind, Statement, primitives
from .fluid_flow import MAX_DENOMINATOR_BITS
from .growth import read_table

__all__ = ["sink_growth_claims", "sink_growth_certificate", "read_sink_growth", "read_sinks", "read_subsets",
           "read_functions", "functions_payload", "bounded_denominator", "sink_growth_statement", "nested_reduced", "KIND"]


def sink_growth_claims(f: SinkGrowthFacts) -> JsonObject:
    """The claims of a ``sink-growth`` certificate.

    Parameters
    ----------
    f : SinkGrowthFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``rate``, ``capacity``, ``cells`` (when checked cell by cell) and ``regions`` (those listed), and
        ``reduced`` (the nested certificate's kind).

    Examples
    --------
    >>> sink_growth_claims(SinkGrowthFacts(Fraction(3, 5), Fraction(1, 2), 0, "fluid-flow", cells=4))
    {'rate': '3/5', 'capacity': '1/2', 'cells': 4, 'regions': 0, 'reduced': 'fluid-flow'}
    >>> sink_growth_claims(SinkGrowthFacts(Fraction(3, 5), Fraction(1, 2), 7, "fluid-flow"))  # checked by regions
    {'rate': '3/5', 'capacity': '1/2', 'regions': 7, 'reduced': 'fluid-flow'}
    """
    out: JsonObject = {"rate": q(f.rate), "capacity": q(f.capacity)}
    if f.cells:
        out["cells"] = f.cells
    out.update({"regions": f.regions, "reduced": f.reduced})
    if f.sinks:
        out["subsets"] = [{"set": list(H), "rate": q(c), "capacity": q(m)} for H, c, m in f.subsets]
    return out


def sink_growth_certificate(net: Network, sink: str | Sequence[str], w: Sequence[Fraction], rate: Fraction,
                            reduced: Mapping[str, Any], check: Check[SinkGrowthFacts],
                            table: Mapping[tuple[int, ...], Fraction] | None = None, fast: Sequence[int] = (), K: Clip = 0,
                            subsets: Sequence[Subset] = ()) -> Certificate:
    """A ``sink-growth`` certificate, from a passing :func:`~certify.exact.sink.check_sink_growth`.

    Parameters
    ----------
    net : Network
        The network.
    sink : str or sequence of str
        The sink, or a set of sinks.
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
    subsets : sequence of (tuple of str, sequence of Fraction, Fraction, dict or None), optional
        For a set of sinks, the subsets with their own g_H and c_H (as the check took them).

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
    payload: JsonObject = {"sink": sink if isinstance(sink, str) else list(sink),
                           **functions_payload(ids, w, rate, table, fast, K, subsets),
                           "reduced_certificate": json.loads(json.dumps(dict(reduced)))}
    return seal(net, "sink-growth", payload, sink_growth_claims(check.facts),
                *sink_growth_statement(net, None, "" if isinstance(sink, str) else "set"))


def functions_payload(ids: Sequence[str], w: Sequence[Fraction], rate: Fraction,
                      table: Mapping[tuple[int, ...], Fraction] | None, fast: Sequence[int], K: Clip,
                      subsets: Sequence[Subset]) -> JsonObject:
    """The payload fields of g on R' (``weights``, ``rate``, ``table``, ``subsets``) of a sink certificate.

    Parameters
    ----------
    ids : sequence of str
        R''s stations, in its order.
    w, rate, table, fast, K, subsets
        As the checkers take them.

    Returns
    -------
    dict
        The fields, rationals as ``"p/q"``.

    Examples
    --------
    >>> functions_payload(["1", "3"], [Fraction(1), Fraction(0)], Fraction(1, 2), None, [], 0, [])
    {'weights': {'1': '1', '3': '0'}, 'rate': '1/2'}
    """
    out: JsonObject = {"weights": {ids[j]: q(w[j]) for j in range(len(ids))}, "rate": q(rate)}
    if table is not None:
        out["table"] = {"K": K if isinstance(K, int) else list(K), "fast": [ids[a] for a in fast],
                        "values": {cell_key(c): q(v) for c, v in sorted(table.items())}}
    if subsets:
        out["subsets"] = [{"set": list(H), "weights": {ids[j]: q(wH[j]) for j in range(len(ids))}, "rate": q(cH),
                           **({"values": {cell_key(c): q(v) for c, v in sorted(tH.items())}} if tH is not None
                              else {})}
                          for H, wH, cH, tH in subsets]
    return out


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
        When ``sink`` is neither a station id nor a list of distinct station ids, a weight, ``rate``, the table or
        ``subsets`` is malformed, the common denominator of the weights and the tables exceeds
        2^MAX_DENOMINATOR_BITS, or ``reduced_certificate`` is not an object.

    Examples
    --------
    >>> from certify.core.model import Network, Station, Stream
    >>> one = Network("one", (Station("1", Fraction(1)), Station("2", Fraction(1))), (Stream(Fraction(1), choice=("1",)),))
    >>> read_sink_growth(one, {"sink": 7})
    Traceback (most recent call last):
    ...
    certify.core.errors.CertificateError: sink: 7 must be a station id or a list of at least two distinct station ids of the network
    """
    sink = read_sinks(net, cert.get("sink"))
    if "subsets" in cert and isinstance(sink, str):
        raise CertificateError(None, "subsets", "is only for a set of sinks (sink a list of stations)")
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
    kwargs = read_functions(chain, cert, w)
    return Reading((net, sink, w, rate), kwargs, None, "" if isinstance(sink, str) else "set")


def read_functions(chain: Chain, cert: Mapping[str, Any], w: Sequence[Fraction]) -> dict[str, Any]:
    """The optional ``table`` and ``subsets`` of a sink certificate (growth or drain), sized for the exact check.

    Parameters
    ----------
    chain : Chain
        R''s chain (its stations name the weights and the table's fast stations).
    cert : dict
        The certificate.
    w : sequence of Fraction
        g's weights, already read.

    Returns
    -------
    dict
        The checker's keywords ``table``, ``fast``, ``K`` and ``subsets`` (those present), and ``by="regions"``
        for a certificate whose claims name regions but no cells: written before the cell check
        (:mod:`certify.exact.cell_rates`), it is checked region by region, as it was then (both checks accept
        the same functions; only the claims they derive differ).

    Raises
    ------
    CertificateError
        When the table or ``subsets`` is malformed, or the common denominator of the weights and the tables exceeds
        2^MAX_DENOMINATOR_BITS.

    Examples
    --------
    >>> from certify.markov.chain import Chain
    >>> ch = Chain(("1",), (Fraction(1),), (((0,), Fraction(1, 2)),), (), (Fraction(1),))
    >>> read_functions(ch, {}, [Fraction(1)])
    {}
    """
    kwargs = read_table(chain, cert) if "table" in cert else {}
    if "subsets" in cert:
        kwargs["subsets"] = read_subsets(chain, cert["subsets"], kwargs.get("table"))
    coefficients = [*w, *kwargs.get("table", {}).values()]
    for _, wH, _, tH in kwargs.get("subsets", ()):
        coefficients += [*wH, *(tH.values() if tH is not None else ())]
    bounded_denominator(coefficients, "weights", "the weights and the table")
    claims = cert.get("claims")
    if isinstance(claims, Mapping) and "regions" in claims and "cells" not in claims:
        kwargs["by"] = "regions"
    return kwargs


def bounded_denominator(values: Sequence[Fraction], field: str, what: str) -> None:
    """Refuse rationals whose common denominator exceeds 2^MAX_DENOMINATOR_BITS (the check scales them to integers).

    Parameters
    ----------
    values : sequence of Fraction
        The coefficients.
    field : str
        The field a refusal names.
    what : str
        What the values are, in the message.

    Raises
    ------
    CertificateError
        When the common denominator is too large.

    Examples
    --------
    >>> bounded_denominator([Fraction(1, 3), Fraction(1, 4)], "weights", "the weights")
    """
    common = 1
    for v in values:  # sized before the check: it runs on the values scaled to integers
        common = lcm(common, v.denominator)
        if common.bit_length() > MAX_DENOMINATOR_BITS:
            raise CertificateError(None, field, f"the common denominator of {what} exceeds 2^{MAX_DENOMINATOR_BITS} "
                                   "(the exact check would run on integers that large)")


def read_sinks(net: Network, value: Any) -> str | tuple[str, ...]:
    """The field ``sink``: one station id, or a list of at least two distinct station ids (a set of sinks).

    Parameters
    ----------
    net : Network
        The network.
    value : object
        The field's value.

    Returns
    -------
    str or tuple of str
        The sink, or the set of sinks sorted by the network's station order.

    Raises
    ------
    CertificateError
        When the value is neither.

    Examples
    --------
    >>> from certify.core.model import Network, Station
    >>> net = Network("n", tuple(Station(s, Fraction(1)) for s in "123"), ())
    >>> read_sinks(net, "2"), read_sinks(net, ["3", "1"])
    ('2', ('1', '3'))
    >>> read_sinks(net, ["1", "1"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    certify.core.errors.CertificateError: sink: ['1', '1'] must be a station id or a list of at least two distinct ...
    """
    ids = net.station_ids
    if isinstance(value, str) and value in ids:
        return value
    if (isinstance(value, list) and len(value) >= 2 and all(isinstance(v, str) and v in ids for v in value)
            and len(set(value)) == len(value)):
        return tuple(sorted(value, key=ids.index))
    raise CertificateError(None, "sink", f"{value!r} must be a station id or a list of at least two distinct station "
                           "ids of the network")


def read_subsets(chain: Chain, value: Any, table: Mapping[tuple[int, ...], Fraction] | None) -> list[Subset]:
    """The field ``subsets``: a list of {set, weights, rate[, values]} (values exactly when there is a table).

    Parameters
    ----------
    chain : Chain
        R''s chain (its stations name the weights).
    value : object
        The field's value.
    table : dict or None
        The certificate's table (each entry then needs ``values`` over its cells).

    Returns
    -------
    list of Subset
        (H, weights, c_H, table values or None) per entry, as the checkers take them.

    Raises
    ------
    CertificateError
        When the field, an entry or one of its fields is malformed.

    Examples
    --------
    >>> from certify.markov.chain import Chain
    >>> ch = Chain(("1",), (Fraction(1),), (((0,), Fraction(1, 2)),), (), (Fraction(1),))
    >>> read_subsets(ch, [{"set": ["s"], "weights": {"1": "1/2"}, "rate": "1"}], None)
    [(('s',), [Fraction(1, 2)], Fraction(1, 1), None)]
    >>> read_subsets(ch, {}, None)
    Traceback (most recent call last):
    ...
    certify.core.errors.CertificateError: subsets: must be a list of objects, got dict
    """
    if not isinstance(value, list):
        raise CertificateError(None, "subsets", f"must be a list of objects, got {type(value).__name__}")
    out: list[Subset] = []
    for k, entry in enumerate(value):
        where = f"subsets[{k}]"
        if not isinstance(entry, dict):
            raise CertificateError(None, where, f"must be an object, got {type(entry).__name__}")
        want = {"set", "weights", "rate"} | ({"values"} if table is not None else set())
        if set(entry) != want:
            raise CertificateError(None, where, f"must have exactly the fields {', '.join(sorted(want))} (got "
                                   f"{sorted(entry)})")
        H = entry["set"]
        if not isinstance(H, list) or not H or not all(isinstance(j, str) for j in H):
            raise CertificateError(None, f"{where}.set", f"{H!r} must be a non-empty list of station ids")
        vals = named_rationals(field_map(entry, "weights"), list(chain.ids), f"{where}.weights")
        tH = None
        if table is not None:
            cells = list(table)
            if not isinstance(entry["values"], dict):
                raise CertificateError(None, f"{where}.values", "must be a map from the table's cells to rationals")
            named = named_rationals(entry["values"], [cell_key(c) for c in cells], f"{where}.values")
            tH = {c: named[cell_key(c)] for c in cells}
        out.append((tuple(H), [vals[s] for s in chain.ids], unq(entry["rate"], f"{where}.rate"), tH))
    return out


def sink_growth_statement(net: Any, chain: Chain | None, template: str) -> Statement:
    """What a sink-growth certificate proves on ``net`` (semantics, statement), derived, never read.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain or None
        Unused (the kind is for exponential networks).
    template : str
        ``"set"`` for a set of sinks (the reader says so), else ``""``.

    Returns
    -------
    tuple of str
        The semantics and the statement.

    Examples
    --------
    >>> sink_growth_statement(None, None, "")[0]
    'markovian'
    """
    if template == "set":
        return "markovian", (
            "the reduced network R' (the set G of sinks removed) is positive recurrent and, for every non-empty subset H "
            "of G, the flow forced into H when it holds G's shortest queues averages at least a rate c_H above what H "
            "serves, m_H, along R''s paths (f_H + A'g_H >= c_H at every state of R'): from empty the shortest of G's "
            "queues tends to infinity with positive probability, so the chain is not positive recurrent "
            f"(docs/math/sink.md, sets of sinks), {primitives(None)}."
        )
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
    sink = cert["sink"]
    return reduced_network(net, sink if isinstance(sink, str) else tuple(sink)).network, cert["reduced_certificate"]


KIND = Kind("sink-growth", "unstable", ("sink", "weights", "rate", "reduced_certificate"), read_sink_growth,
            check_sink_growth, sink_growth_claims, sink_growth_statement, "certify.explain.sink:explain_sink_growth",
            optional=("table", "subsets"), nested=nested_reduced)
