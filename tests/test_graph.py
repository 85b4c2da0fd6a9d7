"""networkx routing graphs: exact round trips and the simplified convention."""

from fractions import Fraction

import networkx as nx
import pytest

from certify.core.errors import NetworkError
from certify.core.model import Distribution, Feedback, Network, Station, Stream, TieBreak
from certify.io.graph import from_graph, to_graph
from certify.io.loader import load, loads


def test_corpus_round_trip(corpus_dir):
    """Every corpus jsq-network file survives model -> graph -> model exactly."""
    count = 0
    for f in sorted(corpus_dir.glob("*.json")):
        net = load(f)
        if isinstance(net, Network):
            G = to_graph(net)
            assert from_graph(G) == net
            assert [n for n, k in G.nodes(data="kind") if k == "station"] == list(net.station_ids)
            count += 1
    assert count == 60


def test_simplified_graph():
    """A hand-built graph without kinds (mu = station, rate = stream) gives the expected network."""
    G = nx.DiGraph(name="demo")
    G.add_node(1, mu=1.0)
    G.add_node(2, mu="3/2", capacity=5)
    G.add_node(3, mu=2, service={"dist": "erlang", "k": 2})
    G.add_node("a", rate=0.9)
    G.add_edges_from([("a", 1), ("a", 2)])
    G.add_node("b", rate=Fraction(1, 3), interarrival={"dist": "deterministic"})
    G.add_edge("b", 3)
    G.add_edge(1, 3, prob=0.25)  # shorthand: feedback 1 -> {3}
    G.add_edge(3, "fb", prob=0.5)  # feedback dispatcher 3 -> shortest of {1, 2}
    G.add_edges_from([("fb", 1), ("fb", 2)])
    G.graph["tie_breaking"] = [{"set": ["1", "2"], "probs": {"1": 0.75, "2": 0.25}}]
    expected = Network(
        name="demo",
        stations=(Station("1", Fraction(1)), Station("2", Fraction(3, 2), capacity=5),
                  Station("3", Fraction(2), Distribution("erlang", (("k", 2),)))),
        streams=(Stream(Fraction(9, 10), choice=("1", "2")),
                 Stream(Fraction(1, 3), choice=("3",), interarrival=Distribution("deterministic"))),
        feedback=(Feedback("3", ("1", "2"), Fraction(1, 2)), Feedback("1", ("3",), Fraction(1, 4))),
        tie_breaking=(TieBreak(("1", "2"), (("1", Fraction(3, 4)), ("2", Fraction(1, 4)))),),
    )
    assert from_graph(G) == expected
    assert from_graph(G, name="other").name == "other"


def test_selection_streams_round_trip():
    """Streams with random selection sets (choices, sample) keep them in the selection attribute."""
    net = loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 1}, "2": {"mu": 1}, "3": {"mu": 1}}, '
                '"streams": [{"choices": [{"set": ["1", "2"], "prob": 0.5}, {"set": ["3"], "prob": 0.5}], "rate": 1},'
                ' {"sample": {"from": ["1", "2", "3"], "d": 2}, "rate": 1}], "x-a": 1, '
                '"expected": {"verdict": "stable"}}')
    G = to_graph(net)
    assert G.nodes["stream", 1]["selection"] == {"sample": {"from": ["1", "2", "3"], "d": 2}}
    assert set(G.successors(("stream", 0))) == {"1", "2", "3"}
    assert from_graph(G) == net
    G.remove_edge(("stream", 1), "3")
    with pytest.raises(NetworkError, match="exactly the stations of the selection"):
        from_graph(G)


@pytest.mark.parametrize("change,path,phrase", [
    (lambda G: G.nodes["stream", 0].update(rate=-1), "graph node ('stream', 0).rate", "-1 must be > 0"),
    (lambda G: G.nodes["1"].update(colour="red"), "graph node '1'.colour", "unknown attribute"),
    (lambda G: G.add_edge("2", ("feedback", 0), prob=0.1), "graph node ('feedback', 0)", "exactly one incoming"),
    (lambda G: G.add_node("lonely"), "graph node 'lonely'", "cannot tell what this node is"),
    (lambda G: G.add_edge("1", "2", prob=0.8), 'feedback from station "1"', "sum to 1.3"),
    (lambda G: G.add_edge(("stream", 0), ("feedback", 0)), "graph edge (('stream', 0), ('feedback', 0))",
     "must go to stations"),
], ids=["rate-positive", "unknown-attribute", "feedback-one-source", "unknown-node-kind", "feedback-sum",
        "dispatcher-edges-to-stations"])
def test_bad_graph(change, path, phrase):
    """A broken graph raises NetworkError naming the node or edge and the rule."""
    net = loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 1}, "2": {"mu": 1}}, '
                '"streams": [{"choice": ["1", "2"], "rate": 1}], '
                '"feedback": [{"from": "1", "choice": ["2"], "prob": 0.5}]}')
    G = to_graph(net)
    change(G)
    with pytest.raises(NetworkError) as info:
        from_graph(G)
    assert info.value.path == path and phrase in info.value.rule, str(info.value)


def test_undirected_graph_refused():
    """Only directed graphs describe routing."""
    with pytest.raises(NetworkError, match="DiGraph"):
        from_graph(nx.Graph())
