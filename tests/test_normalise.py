"""Rates outside [1e-9, 1e9] are divided by the largest rate at load time (certify.io.normalise): same analysis."""

import copy
import json
from fractions import Fraction

import networkx as nx
import pytest

from certify.certificates import dumps
from certify.cli import main
from certify.core.envelope import network_digest
from certify.io.graph import from_graph, to_graph
from certify.io.loader import from_dict, load, to_dict
from certify.io.normalise import RATE_UNIT_FIELD, in_file_units, rate_unit
from certify.proof.pipeline import prove

MODELS = ["symmetric-jsq-J4", "two-station-feedback", "tie-breaking-J3", "distribution-h2-J3", "fork-join-maximal"]


def rates_of(doc):
    """Every rate of a document, as exact Fractions."""
    if doc["format"] == "fork-join-redundancy/1":
        return [Fraction(str(doc["rate"]))] + [Fraction(str(s["mu"])) for s in doc["servers"].values()]
    out = []
    for s in doc["stations"].values():
        out += [Fraction(str(s["mu"]))] + [Fraction(str(r)) for r in s.get("service", {}).get("rates", [])]
    for s in doc["streams"]:
        out += [Fraction(str(s["rate"]))] + [Fraction(str(r)) for r in s.get("interarrival", {}).get("rates", [])]
    return out


def scaled(doc, c):
    """The document with every rate multiplied by ``c`` (exact, written as "p/q" strings)."""
    doc = copy.deepcopy(doc)

    def mul(v):
        return str(Fraction(str(v)) * c)

    if doc["format"] == "fork-join-redundancy/1":
        doc["rate"] = mul(doc["rate"])
        for s in doc["servers"].values():
            s["mu"] = mul(s["mu"])
        return doc
    for s in doc["stations"].values():
        s["mu"] = mul(s["mu"])
        if "rates" in s.get("service", {}):
            s["service"]["rates"] = [mul(r) for r in s["service"]["rates"]]
    for s in doc["streams"]:
        s["rate"] = mul(s["rate"])
        if "rates" in s.get("interarrival", {}):
            s["interarrival"]["rates"] = [mul(r) for r in s["interarrival"]["rates"]]
    return doc


def variants(name):
    """The model's document with its largest rate made 2e9, and with its smallest made 1e-10."""
    doc = json.loads(open(f"models/{name}.json").read())
    rates = rates_of(doc)
    return {"2e9": scaled(doc, Fraction(2 * 10**9) / max(rates)), "1e-10": scaled(doc, Fraction(1, 10**10) / min(rates))}


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("which", ["2e9", "1e-10"])
def test_out_of_range_is_analysed_like_its_normalised_version(tmp_path, name, which):
    """A network with a rate of 2e9 (or 1e-10) gets the verdict, method and certificate of its normalised file."""
    doc = variants(name)[which]
    big = tmp_path / "big.json"
    big.write_text(json.dumps(doc))
    net = load(big)
    c = max(rates_of(doc))
    assert rate_unit(net) == c and max(rates_of(to_dict(in_file_units(net)))) == c
    assert any("every rate is divided by" in n for n in getattr(net, "notes", ("every rate is divided by",)))
    small = tmp_path / "normalised.json"
    small.write_text(json.dumps(scaled(doc, 1 / c)))
    ref = load(small)
    assert rate_unit(ref) == 1 and network_digest(net) == network_digest(ref)
    a, b = prove(net, time_limit=60, simulate=False), prove(ref, time_limit=60, simulate=False)
    assert (a.verdict, a.semantics, a.method) == (b.verdict, b.semantics, b.method)
    assert a.verdict == json.loads(open(f"models/{name}.json").read())["expected"]["verdict"]
    assert a.certificate is not None
    cert = tmp_path / "big.cert.json"
    cert.write_text(dumps(a.certificate))
    assert main(["verify", str(big), str(cert)]) == 0
    assert main(["verify", str(small), str(cert)]) == 0


def test_rates_in_range_are_kept_as_written():
    """A network whose rates all lie in [1e-9, 1e9] keeps them (existing certificates stay valid)."""
    net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 1e9}, "2": {"mu": "1/1000000000"}},
                     "streams": [{"choice": ["1", "2"], "rate": 0.5}]})
    assert net.stations[0].mu == 10**9 and net.stations[1].mu == Fraction(1, 10**9)
    assert rate_unit(net) == 1 and net.extras == () and net.notes == ()


def test_note_and_file_units_round_trip():
    """The note names the largest rate; to_dict writes the file's unit back and from_dict(to_dict(net)) == net."""
    doc = {"format": "jsq-network/1", "stations": {"1": {"mu": 4e9}, "2": {"mu": 2e9}},
           "streams": [{"choice": ["1", "2"], "rate": 3e9}], "x-case": "fast"}
    net = from_dict(doc, "fast.json")
    assert [s.mu for s in net.stations] == [1, Fraction(1, 2)] and net.streams[0].rate == Fraction(3, 4)
    assert net.notes[0].startswith("rates: stations.1.mu = 4000000000 is above 1e9; every rate is divided by it")
    out = to_dict(net)
    assert out["stations"] == {"1": {"mu": 4000000000}, "2": {"mu": 2000000000}} and RATE_UNIT_FIELD not in out
    assert out["x-case"] == "fast" and from_dict(out) == net


def test_prove_reports_the_division(tmp_path, capsys):
    """`certify prove` prints the note saying every rate was divided by the largest."""
    f = tmp_path / "slow.json"
    f.write_text(json.dumps({"format": "jsq-network/1", "stations": {"1": {"mu": "2e-10"}},
                             "streams": [{"choice": ["1"], "rate": "1e-10"}]}))
    assert main(["prove", str(f)]) == 0
    out = capsys.readouterr().out
    assert "note: rates: the smallest, streams[0].rate = 0.0000000001, is below 1e-9" in out
    assert "every rate is divided by the largest" in out and "verdict: stable" in out


def test_graph_round_trip_in_file_units():
    """from_graph normalises like the loader, and to_graph writes the file's unit back."""
    G = nx.DiGraph()
    G.add_node("a", mu=5 * 10**9)
    G.add_node("in", rate=10**9)
    G.add_edge("in", "a")
    net = from_graph(G)
    assert net.stations[0].mu == 1 and net.streams[0].rate == Fraction(1, 5)
    H = to_graph(net)
    assert H.nodes["a"]["mu"] == 5 * 10**9 and RATE_UNIT_FIELD not in H.graph
    assert from_graph(H) == net


def test_fork_join_is_normalised():
    """A fork-join system's rate and server rates are divided by the largest too."""
    fj = from_dict({"format": "fork-join-redundancy/1", "n": 2, "k": 1, "rate": 3e9,
                    "servers": {"1": {"mu": 6e9}, "2": {"mu": 2e9}}})
    assert fj.rate == Fraction(1, 2) and fj.servers == (("1", Fraction(1)), ("2", Fraction(1, 3)))
    assert from_dict(to_dict(fj)) == fj and to_dict(fj)["rate"] == 3000000000


def test_wide_spread_ends_in_range():
    """Rates spanning more than 1e9 are divided by 1e9 times the smallest: every loaded rate lies in [1e-9, 1e9]."""
    net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 2e9}, "2": {"mu": "1e-3"}},
                     "streams": [{"choice": ["1", "2"], "rate": 1}]})
    assert rate_unit(net) == Fraction(10**6) and [s.mu for s in net.stations] == [2000, Fraction(1, 10**9)]
    assert "divided by 1000000 (the smallest rate times 1e9" in net.notes[0]
