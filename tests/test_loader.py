"""Loading network files: the corpus, exact numbers, JSON/TOML, extras."""

import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from certify.core.errors import NetworkError
from certify.core.model import Distribution, ForkJoinNetwork, Network
from certify.io.loader import dump, from_dict, load, loads, to_dict

JSON_NET = """{
  "format": "jsq-network/1",
  "name": "three",
  "stations": {
    "1": {"mu": 1.0},
    "2": {"mu": 1.0, "capacity": 4},
    "3": {"mu": 1.5, "service": {"dist": "hyperexponential", "scv": 4.0}}
  },
  "streams": [
    {"choice": ["1", "2"], "rate": 1.2},
    {"choice": ["3"], "rate": 0.5, "interarrival": {"dist": "erlang", "k": 3}},
    {"sample": {"from": ["1", "2", "3"], "d": 2}, "rate": 0.1}
  ],
  "feedback": [{"from": "1", "choice": ["3"], "prob": 0.3}],
  "tie_breaking": [{"set": ["1", "2"], "probs": {"1": 0.7, "2": 0.3}}],
  "expected": {"verdict": "stable", "how": "hand"},
  "x-note": {"k": [1, 2.5]}
}"""

TOML_NET = """format = "jsq-network/1"
name = "three"
x-note = {k = [1, 2.5]}
expected = {verdict = "stable", how = "hand"}

[stations.1]
mu = 1.0
[stations.2]
mu = 1.0
capacity = 4
[stations.3]
mu = 1.5
service = {dist = "hyperexponential", scv = 4.0}

[[streams]]
choice = ["1", "2"]
rate = 1.2
[[streams]]
choice = ["3"]
rate = 0.5
interarrival = {dist = "erlang", k = 3}
[[streams]]
sample = {from = ["1", "2", "3"], d = 2}
rate = 0.1

[[feedback]]
from = "1"
choice = ["3"]
prob = 0.3

[[tie_breaking]]
set = ["1", "2"]
probs = {"1" = 0.7, "2" = 0.3}
"""


def test_all_corpus_files_load(corpus_dir):
    """Every public corpus file loads, with its source set, and round-trips through to_dict."""
    files = sorted(corpus_dir.glob("*.json"))
    assert len(files) == 66
    for f in files:
        net = load(f)
        assert isinstance(net, (Network, ForkJoinNetwork))
        assert net.source == str(f)
        assert net.name == json.loads(f.read_text())["name"]
        assert net.expected is not None and ("verdict" in net.expected or "quantity" in net.expected)
        assert from_dict(to_dict(net)) == net


def test_decimals_become_exact_fractions():
    """A decimal in the file is the Fraction of that decimal, not of the nearest binary float."""
    net = loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 0.3}}, '
                '"streams": [{"choice": ["1"], "rate": 0.1}]}')
    assert net.streams[0].rate == Fraction(1, 10)
    assert net.stations[0].mu == Fraction(3, 10)
    assert isinstance(net.streams[0].rate, Fraction)


def test_corpus_hyperexponential_is_exact(corpus_dir):
    """The corpus's float-rounded hyperexponential rates load as the exact decimals written."""
    net = load(corpus_dir / "ce-dist-B-h2.json")
    d = net.stations[1].service
    assert d.dist == "hyperexponential"
    assert d.get("probs") == (Fraction(95, 100), Fraction(5, 100))
    assert d.get("rates")[1] == Fraction(Decimal("0.0617283950617284"))


def test_string_numbers_extension():
    """Rates, probabilities and scv may be strings "p/q" or "0.25" (an extension of the format)."""
    net = loads('{"format": "jsq-network/1", "stations": {"1": {"mu": "1/3", '
                '"service": {"dist": "gamma", "scv": "0.25"}}}, '
                '"streams": [{"choice": ["1"], "rate": "2/9"}]}')
    assert net.stations[0].mu == Fraction(1, 3)
    assert net.stations[0].service == Distribution("gamma", (("scv", Fraction(1, 4)),))
    assert net.streams[0].rate == Fraction(2, 9)
    assert to_dict(net)["stations"]["1"]["mu"] == "1/3"


def test_from_dict_accepts_python_numbers():
    """from_dict takes floats (as their shortest decimal), ints and Fractions."""
    net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 0.1}, "2": {"mu": Fraction(1, 3)}},
                     "streams": [{"choice": ["1", "2"], "rate": 2}]})
    assert [s.mu for s in net.stations] == [Fraction(1, 10), Fraction(1, 3)]
    assert net.streams[0].rate == 2


def test_toml_and_json_give_equal_models(tmp_path):
    """The same network written in TOML and in JSON loads to equal models."""
    (tmp_path / "a.json").write_text(JSON_NET)
    (tmp_path / "a.toml").write_text(TOML_NET)
    a, b = load(tmp_path / "a.json"), load(tmp_path / "a.toml")
    assert a == b
    assert a.name == "three" and a.stations[1].capacity == 4
    assert a.feedback[0].prob == Fraction(3, 10)
    assert a.tie_probs(("1", "2")) == {"1": Fraction(7, 10), "2": Fraction(3, 10)}


def test_x_fields_and_expected_carried():
    """x- fields are kept, sorted, in extras, and expected is kept as a plain dict."""
    net = loads(JSON_NET.replace('"x-note"', '"x-b": 1, "x-a": [true, null], "x-note"'))
    assert [k for k, _ in net.extras] == ["x-a", "x-b", "x-note"]
    assert dict(net.extras)["x-note"] == {"k": [1, 2.5]}
    assert net.expected == {"verdict": "stable", "how": "hand"}
    doc = to_dict(net)
    assert doc["x-a"] == [True, None] and doc["expected"]["verdict"] == "stable"


def test_fork_join_loads(corpus_dir):
    """A fork-join-redundancy/1 file loads as a ForkJoinNetwork."""
    net = load(corpus_dir / "fjr-n3k2-max-333333-rho0.90.json")
    assert isinstance(net, ForkJoinNetwork)
    assert (net.n, net.k, net.rate) == (3, 2, Fraction(45, 100))
    assert [s for s, _ in net.servers] == ["1", "2", "3"]
    assert net.servers[0][1] == Fraction(333333333, 10**9)


def test_default_name_is_file_stem(tmp_path):
    """Without a name the network is named after the file stem (or "network")."""
    doc = json.loads(JSON_NET)
    del doc["name"]
    (tmp_path / "my-net.json").write_text(json.dumps(doc))
    assert load(tmp_path / "my-net.json").name == "my-net"
    assert from_dict(doc).name == "network"


def test_station_order_preserved():
    """Stations keep the order of the file, whatever their ids."""
    net = loads('{"format": "jsq-network/1", "stations": {"b": {"mu": 1}, "a": {"mu": 1}, "10": {"mu": 1}}, '
                '"streams": [{"choices": [{"set": ["a"], "prob": 0.5}, {"set": ["b", "10"], "prob": 0.5}], '
                '"rate": 1}]}')
    assert net.station_ids == ("b", "a", "10")
    assert net.streams[0].choices == ((("a",), Fraction(1, 2)), (("b", "10"), Fraction(1, 2)))


def test_dump_and_load(tmp_path):
    """dump writes JSON or TOML that load reads back to an equal network."""
    net = loads(JSON_NET)
    for ext in ("json", "toml"):
        dump(net, tmp_path / f"n.{ext}")
        assert load(tmp_path / f"n.{ext}") == net
    with pytest.raises(NetworkError, match="extension"):
        dump(net, tmp_path / "n.yaml")


def test_to_dict_number_forms():
    """to_dict writes ints for integers, floats when exact, else "p/q" strings."""
    net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 2}, "2": {"mu": "1/3"}},
                     "streams": [{"choice": ["1", "2"], "rate": 0.1}]})
    doc = to_dict(net)
    assert doc["stations"]["1"]["mu"] == 2 and isinstance(doc["stations"]["1"]["mu"], int)
    assert doc["stations"]["2"]["mu"] == "1/3"
    assert doc["streams"][0]["rate"] == 0.1


def test_only_rounded_phase_rates_get_notes(corpus_dir):
    """Of the corpus and models/, only ce-dist-B-h2.json (5/81 rounded) gets a note: its mu comes from the phases."""
    models = Path(__file__).resolve().parents[1] / "models"
    files = sorted(corpus_dir.glob("*.json")) + sorted(models.glob("*.json")) + sorted(models.glob("*.toml"))
    noted = {f.name for f in files if getattr(load(f), "notes", ())}
    assert noted == {"ce-dist-B-h2.json"}


def test_tie_sets_of_every_kind_of_choice_set_load():
    """A tie set may lie in a feedback choice set, a random choices set or a sample draw (len <= d)."""
    doc = {"format": "jsq-network/1", "stations": {s: {"mu": 1} for s in "1234"},
           "streams": [{"choices": [{"set": ["1", "2"], "prob": 0.5}, {"set": ["3"], "prob": 0.5}], "rate": 0.5},
                       {"sample": {"from": ["2", "3", "4"], "d": 2}, "rate": 0.5}],
           "feedback": [{"from": "1", "choice": ["1", "3", "4"], "prob": 0.5}],
           "tie_breaking": [{"set": s, "probs": {x: 1 / len(s) for x in s}}
                            for s in (["1", "2"], ["3", "4"], ["1", "3", "4"], ["2", "4"])]}
    assert len(from_dict(doc).tie_breaking) == 4
