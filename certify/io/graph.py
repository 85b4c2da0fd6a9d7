"""Networks as networkx routing graphs: :func:`from_graph` and :func:`to_graph`.

Convention (a :class:`networkx.DiGraph`; attribute values follow ``FORMAT.md``):

* **Station** nodes: the node id is the station id (a string; an integer id is
  read as its decimal string).  Attributes ``kind="station"``, ``mu`` and
  optionally ``service`` (a distribution dict such as ``{"dist": "erlang", "k": 3}``)
  and ``capacity``.  Stations are ordered by node insertion order.
* **Stream** dispatcher nodes, id ``("stream", i)`` (any id is accepted on input):
  ``kind="stream"``, ``rate``, optional ``interarrival`` (distribution dict).
  A fixed choice set is given by the membership edges dispatcher -> station, in
  edge insertion order.  A random selection set is given by the ``selection``
  attribute: ``{"choices": [{"set": [...], "prob": p}, ...]}`` or
  ``{"sample": {"from": [...], "d": d}}``; its membership edges (optional on
  input, written by :func:`to_graph`) then go to every station it can pick.
  Streams are ordered by node insertion order.
* **Feedback** dispatcher nodes, id ``("feedback", i)``: ``kind="feedback"``, one
  edge station -> dispatcher carrying ``prob`` (the station it comes from) and
  membership edges dispatcher -> station (the choice set).  As a shorthand, an
  edge station -> station with ``prob`` is feedback to that one station.
* **Graph** attributes: ``name``, ``tie_breaking`` (a list of
  ``{"set": [...], "probs": {id: p}}`` dicts, as in the file), ``expected`` and
  any ``x-...`` field; ``format``, if present, must be ``"jsq-network/1"``.

A *simplified* graph may leave out ``kind``: a node with ``mu`` is a station,
a node with ``rate`` a stream, and any other node with an incoming ``prob`` edge
a feedback dispatcher.  Numbers may be ``int``, ``float`` (read as its shortest
decimal), :class:`~fractions.Fraction`, :class:`~decimal.Decimal` or strings
``"p/q"``; :func:`to_graph` writes Fractions.  Numbers follow the rules of
:mod:`certify.io.loader` exactly (ranges, digit bounds, explicit phases
authoritative, probabilities within 1e-9 of 1 normalised; what was derived is
in :attr:`Network.notes <certify.core.model.Network.notes>`).  Attributes not in this
convention are an error unless their names start with ``x-`` (they are then
ignored).  ``from_graph(to_graph(net)) == net`` holds exactly.

>>> import networkx as nx
>>> G = nx.DiGraph()
>>> G.add_node(1, mu=1.0)
>>> G.add_node(2, mu=0.5)
>>> G.add_node("in", rate=0.9)
>>> G.add_edges_from([("in", 1), ("in", 2)])
>>> G.add_edge(1, 2, prob=0.25)                 # feedback 1 -> {2}
>>> net = from_graph(G, name="demo")
>>> net.station_ids, net.streams[0].choice, net.feedback[0].prob
(('1', '2'), ('1', '2'), Fraction(1, 4))
>>> from_graph(to_graph(net)) == net
True
"""

from __future__ import annotations

import copy
import json
from collections.abc import Collection, Hashable
from fractions import Fraction
from typing import Required, TypeAlias, TypedDict

import networkx as nx

from ..core.model import EXPONENTIAL, JSQ_FORMAT, Distribution, Feedback, Network, Station, Stream
from .context import Context, kind_of
from .distributions import as_distribution
from .fields import as_expected, as_integer, as_map, as_station_set, as_str, plain
from .jsq_schema import MAX_CAPACITY, as_choices, as_sample, as_tie_breaking, check_feedback_sums, check_tie_sets
from .normalise import RATE_UNIT_FIELD, in_file_units, normalise
from .number_fields import as_probability, as_rate

__all__ = ["from_graph", "to_graph"]

_ATTRS = {
    "station": ("kind", "mu", "service", "capacity"),
    "stream": ("kind", "rate", "interarrival", "selection"),
    "feedback": ("kind",),
}

# The attributes to_graph writes: a law (its parameters, tuples as lists), a station and a stream dispatcher node.
_LawAttr: TypeAlias = dict[str, str | int | Fraction | list[Fraction]]
_SampleAttr = TypedDict("_SampleAttr", {"from": list[str], "d": int})  # "from" is a keyword: no class syntax


class _ChoiceAttr(TypedDict):
    set: list[str]
    prob: Fraction


class _SelectionAttr(TypedDict, total=False):  # one of the two
    choices: list[_ChoiceAttr]
    sample: _SampleAttr


class _StationAttrs(TypedDict, total=False):
    kind: Required[str]
    mu: Required[Fraction]
    service: _LawAttr
    capacity: int


class _StreamAttrs(TypedDict, total=False):
    kind: Required[str]
    rate: Required[Fraction]
    interarrival: _LawAttr
    selection: _SelectionAttr


def _where(node: Hashable) -> str:
    return f"graph node {node!r}"


def _check_attrs(ctx: Context, attrs: Collection[object], path: str, allowed: tuple[str, ...]) -> None:
    for k in attrs:
        if k not in allowed and not (isinstance(k, str) and k.startswith("x-")):
            ctx.fail(f"{path}.{k}", f"unknown attribute {k!r} (allowed: {', '.join(allowed)}, or x-...)")


def _station_id(ctx: Context, node: Hashable) -> str:
    if isinstance(node, str) and node:
        return node
    if isinstance(node, int) and not isinstance(node, bool):
        return str(node)
    ctx.fail(_where(node), f"a station node id must be a non-empty string or an integer, got {kind_of(node)}")


def _kinds(ctx: Context, G: nx.DiGraph) -> dict[Hashable, str]:
    """The kind of every node: given by ``kind`` or inferred (simplified graphs)."""
    kinds: dict[Hashable, str] = {}
    for node, attrs in G.nodes(data=True):
        kind = attrs.get("kind")
        if kind is None:
            kind = "station" if "mu" in attrs else "stream" if "rate" in attrs else None
        if kind is not None and (not isinstance(kind, str) or kind not in _ATTRS):
            ctx.fail(f"{_where(node)}.kind", f'{kind!r} must be "station", "stream" or "feedback"')
        if kind is None:
            if not any("prob" in G.edges[u, node] for u in G.predecessors(node)):
                ctx.fail(_where(node), "cannot tell what this node is: give it kind=..., mu (a station), "
                         "rate (a stream) or an incoming edge with prob (feedback)")
            kind = "feedback"
        kinds[node] = kind
    return kinds


def from_graph(G: nx.DiGraph, name: str | None = None) -> Network:
    """Build a validated network from a routing graph (see the module docstring).

    Parameters
    ----------
    G : networkx.DiGraph
        Stations, stream and feedback dispatchers as described above.
    name : str, optional
        The network name; default ``G.graph["name"]``, else ``"network"``.

    Returns
    -------
    Network

    Raises
    ------
    NetworkError
        With a path like ``graph node ('stream', 0).rate`` for any broken rule.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph()
    >>> G.add_node("a", mu=2)
    >>> G.add_node(("stream", 0), kind="stream", rate=-1)
    >>> G.add_edge(("stream", 0), "a")
    >>> from_graph(G)
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: graph node ('stream', 0).rate: -1 must be > 0
    """
    ctx = Context(None)
    if not isinstance(G, nx.DiGraph) or G.is_multigraph():
        ctx.fail("graph", f"must be a networkx.DiGraph, got {type(G).__name__}")
    gattrs = G.graph
    _check_attrs(ctx, gattrs, "graph", ("name", "format", "tie_breaking", "expected"))
    if RATE_UNIT_FIELD in gattrs:
        ctx.fail(f"graph.{RATE_UNIT_FIELD}", "is reserved (certify records there the factor it divided the rates by)")
    if "format" in gattrs and gattrs["format"] != JSQ_FORMAT:
        ctx.fail("graph.format", f'{gattrs["format"]!r} must be "{JSQ_FORMAT}"')
    if name is None:
        name = gattrs.get("name", "network")
    name = as_str(ctx, name, "graph.name")
    kinds = _kinds(ctx, G)

    stations: list[Station] = []
    sid: dict[Hashable, str] = {}
    for node, attrs in G.nodes(data=True):
        if kinds[node] != "station":
            continue
        p = _where(node)
        _check_attrs(ctx, attrs, p, _ATTRS["station"])
        s = _station_id(ctx, node)
        if s in sid.values():
            ctx.fail(p, f"two station nodes have the id {json.dumps(s)}")
        sid[node] = s
        if "mu" not in attrs:
            ctx.fail(f"{p}.mu", "required attribute is missing")
        mu = as_rate(ctx, attrs["mu"], f"{p}.mu")
        service = EXPONENTIAL
        if "service" in attrs:
            service, mu = as_distribution(ctx, attrs["service"], f"{p}.service", mu, f"{p}.mu", "mu")
        cap = as_integer(ctx, attrs["capacity"], f"{p}.capacity", 1, MAX_CAPACITY) if "capacity" in attrs else None
        stations.append(Station(s, mu, service, cap))
    if not stations:
        ctx.fail("graph", "has no station nodes (nodes with mu)")
    ids = tuple(s.id for s in stations)

    def members(node: Hashable) -> tuple[str, ...]:
        for v in G.successors(node):
            if kinds[v] != "station":
                ctx.fail(f"graph edge {(node, v)!r}", f"a dispatcher's edges must go to stations, not to a {kinds[v]}")
            _check_attrs(ctx, G.edges[node, v], f"graph edge {(node, v)!r}", ())
        return tuple(sid[v] for v in G.successors(node))

    streams: list[Stream] = []
    feedback: list[Feedback] = []
    for node, attrs in G.nodes(data=True):
        p, kind = _where(node), kinds[node]
        if kind == "station":
            for v in G.successors(node):
                ep = f"graph edge {(node, v)!r}"
                if kinds[v] == "stream":
                    ctx.fail(ep, "a station cannot feed a stream dispatcher")
                _check_attrs(ctx, G.edges[node, v], ep, ("prob",))
                if "prob" not in G.edges[node, v]:
                    ctx.fail(f"{ep}.prob", "required attribute is missing")
            continue
        _check_attrs(ctx, attrs, p, _ATTRS[kind])
        if kind == "stream":
            if G.in_degree(node):
                ctx.fail(p, "a stream dispatcher has no incoming edges")
            if "rate" not in attrs:
                ctx.fail(f"{p}.rate", "required attribute is missing")
            rate = as_rate(ctx, attrs["rate"], f"{p}.rate")
            interarrival = EXPONENTIAL
            if "interarrival" in attrs:
                interarrival, rate = as_distribution(ctx, attrs["interarrival"], f"{p}.interarrival", rate, f"{p}.rate")
            out = members(node)
            if "selection" in attrs:
                sp = f"{p}.selection"
                sel = as_map(ctx, attrs["selection"], sp)
                if len(sel) != 1 or next(iter(sel)) not in ("choices", "sample"):
                    ctx.fail(sp, 'must be {"choices": [...]} or {"sample": {...}}')
                if "choices" in sel:
                    choices = as_choices(ctx, sel["choices"], f"{sp}.choices", ids)
                    stream = Stream(rate, choices=choices, interarrival=interarrival)
                    pool = {s for c, _ in choices for s in c}
                else:
                    sample = as_sample(ctx, sel["sample"], f"{sp}.sample", ids)
                    stream = Stream(rate, sample=sample, interarrival=interarrival)
                    pool = set(sample[0])
                if out and set(out) != pool:
                    ctx.fail(p, "membership edges must go to exactly the stations of the selection")
            else:
                if not out:
                    ctx.fail(p, "a stream dispatcher needs edges to the stations of its choice set")
                stream = Stream(rate, choice=as_station_set(ctx, list(out), f"{p} edges", ids), interarrival=interarrival)
            streams.append(stream)
        else:
            preds = list(G.predecessors(node))
            if len(preds) != 1 or kinds[preds[0]] != "station":
                ctx.fail(p, f"a feedback dispatcher needs exactly one incoming edge, from a station (got {len(preds)})")
            ep = f"graph edge {(preds[0], node)!r}"
            choice = members(node)
            if not choice:
                ctx.fail(p, "a feedback dispatcher needs edges to the stations of its choice set")
            prob = as_probability(ctx, G.edges[preds[0], node]["prob"], f"{ep}.prob", zero_ok=False)
            feedback.append(Feedback(sid[preds[0]], choice, prob))
    for u, v, attrs in G.edges(data=True):
        if kinds[u] == "station" and kinds[v] == "station":
            feedback.append(Feedback(sid[u], (sid[v],), as_probability(ctx, attrs["prob"], f"graph edge {(u, v)!r}.prob", False)))
    if not streams:
        ctx.fail("graph", "has no stream dispatcher nodes (nodes with rate)")
    check_feedback_sums(ctx, tuple(feedback))
    ties = as_tie_breaking(ctx, gattrs.get("tie_breaking", []), 'graph["tie_breaking"]', ids)
    check_tie_sets(ctx, ties, tuple(streams), tuple(feedback), 'graph["tie_breaking"]')
    expected = as_expected(ctx, gattrs["expected"], 'graph["expected"]') if "expected" in gattrs else None
    extras = tuple(sorted((k, plain(v)) for k, v in gattrs.items() if k.startswith("x-")))
    return normalise(ctx, Network(name, tuple(stations), tuple(streams), tuple(feedback), ties, extras, expected,
                                  notes=tuple(ctx.notes)))


def _dist_attr(d: Distribution) -> _LawAttr:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in d.to_dict().items()}


def to_graph(net: Network) -> nx.DiGraph:
    """The routing graph of a network (see the module docstring); numbers stay Fractions.

    Parameters
    ----------
    net : Network
        The network.

    Returns
    -------
    networkx.DiGraph
        Station nodes (by station id), dispatcher nodes ``("stream", i)`` and
        ``("feedback", i)``, and the graph attributes; ``from_graph(to_graph(net)) == net``.

    Examples
    --------
    >>> from certify.io.loader import loads
    >>> net = loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 1}, "2": {"mu": 1}}, '
    ...             '"streams": [{"choice": ["1", "2"], "rate": 1.5}], '
    ...             '"feedback": [{"from": "1", "choice": ["2"], "prob": 0.5}]}')
    >>> G = to_graph(net)
    >>> list(G.nodes)
    ['1', '2', ('stream', 0), ('feedback', 0)]
    >>> G.nodes["stream", 0]["rate"], list(G.successors(("stream", 0)))
    (Fraction(3, 2), ['1', '2'])
    >>> G.edges["1", ("feedback", 0)]["prob"]
    Fraction(1, 2)
    """
    net = in_file_units(net)
    G = nx.DiGraph()
    G.graph["name"] = net.name
    if net.tie_breaking:
        G.graph["tie_breaking"] = [{"set": list(t.set), "probs": dict(t.probs)} for t in net.tie_breaking]
    if net.expected is not None:
        G.graph["expected"] = copy.deepcopy(net.expected)
    for k, v in net.extras:
        G.graph[k] = copy.deepcopy(v)
    for s in net.stations:
        attrs: _StationAttrs = {"kind": "station", "mu": s.mu}
        if s.service != EXPONENTIAL:
            attrs["service"] = _dist_attr(s.service)
        if s.capacity is not None:
            attrs["capacity"] = s.capacity
        G.add_node(s.id, **attrs)
    for i, sm in enumerate(net.streams):
        node = ("stream", i)
        sattrs: _StreamAttrs = {"kind": "stream", "rate": sm.rate}
        if sm.interarrival != EXPONENTIAL:
            sattrs["interarrival"] = _dist_attr(sm.interarrival)
        if sm.choice is not None:
            targets = sm.choice
        elif sm.choices is not None:
            sattrs["selection"] = {"choices": [{"set": list(c), "prob": p} for c, p in sm.choices]}
            targets = tuple(dict.fromkeys(s for c, _ in sm.choices for s in c))
        else:
            assert sm.sample is not None
            sattrs["selection"] = {"sample": {"from": list(sm.sample[0]), "d": sm.sample[1]}}
            targets = sm.sample[0]
        G.add_node(node, **sattrs)
        G.add_edges_from((node, s) for s in targets)
    for i, fb in enumerate(net.feedback):
        node = ("feedback", i)
        G.add_node(node, kind="feedback")
        G.add_edge(fb.source, node, prob=fb.prob)
        G.add_edges_from((node, s) for s in fb.choice)
    return G
