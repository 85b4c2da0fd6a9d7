"""Every rule of the network format (docs/guide/format.md) is enforced with a message naming file, field path and rule."""

import copy
import json

import pytest

from certify.core.errors import NetworkError
from certify.io.loader import from_dict, load

BASE = {
    "format": "jsq-network/1",
    "name": "base",
    "stations": {"1": {"mu": 1.0}, "2": {"mu": 1.0}, "3": {"mu": 1.5}},
    "streams": [
        {"choice": ["1", "2"], "rate": 1.2},
        {"choice": ["3"], "rate": 0.5},
    ],
    "feedback": [{"from": "1", "choice": ["3"], "prob": 0.3}],
    "tie_breaking": [{"set": ["1", "2"], "probs": {"1": 0.7, "2": 0.3}}],
}
FJ = {"format": "fork-join-redundancy/1", "name": "fj", "n": 2, "k": 1, "rate": 0.5,
      "servers": {"1": {"mu": 0.6}, "2": {"mu": 0.2}}}


def put(path, value, base=BASE):
    """A mutation: set the field at ``path`` (a tuple of keys/indices) to ``value``."""
    def mutate(doc):
        obj = doc
        for k in path[:-1]:
            obj = obj[k]
        if isinstance(obj, list) and path[-1] == len(obj):
            obj.append(value)
        else:
            obj[path[-1]] = value
    return mutate, base


def drop(path, base=BASE):
    """A mutation: delete the field at ``path``."""
    def mutate(doc):
        obj = doc
        for k in path[:-1]:
            obj = obj[k]
        del obj[path[-1]]
    return mutate, base


H2 = {"dist": "hyperexponential", "probs": [0.5, 0.5], "rates": [2.0, 0.5]}  # mean 1.25, station mu = 0.8

CASES = [
    # (rule id, (mutation, base doc), field path in the message, phrase of the rule)
    ("format-missing", drop(("format",)), "format", "required field is missing"),
    ("format-unknown", put(("format",), "jsq-network/2"), "format", "not a known format"),
    ("top-level-unknown-field", put(("colour",), "red"), "colour", 'unknown field "colour"'),
    ("top-level-not-a-map", (lambda d: None, ["not", "a", "map"]), "(top level)", "must be a map"),
    ("name-not-string", put(("name",), 3), "name", "must be a string"),
    ("stations-required", drop(("stations",)), "stations", "required field is missing"),
    ("stations-not-map", put(("stations",), [{"mu": 1}]), "stations", "must be a map"),
    ("stations-empty", put(("stations",), {}), "stations", "must not be empty"),
    ("station-unknown-field", put(("stations", "1", "speed"), 2), "stations.1.speed", 'unknown field "speed"'),
    ("station-not-map", put(("stations", "2"), 1.0), "stations.2", "must be a map"),
    ("mu-missing", put(("stations", "1"), {"capacity": 2}), "stations.1.mu", "required field is missing"),
    ("mu-positive", put(("stations", "3", "mu"), 0), "stations.3.mu", "0 must be > 0"),
    ("mu-boolean-not-number", put(("stations", "3", "mu"), True), "stations.3.mu", "must be a number, got boolean"),
    ("mu-finite", put(("stations", "3", "mu"), "inf"), "stations.3.mu", "must be a finite number"),
    ("number-string-invalid", put(("stations", "3", "mu"), "fast"), "stations.3.mu", "is not a number"),
    ("capacity-integer", put(("stations", "1", "capacity"), 2.5), "stations.1.capacity", "must be an integer"),
    ("capacity-at-least-1", put(("stations", "1", "capacity"), 0), "stations.1.capacity", "must be an integer >= 1"),
    ("streams-required", drop(("streams",)), "streams", "required field is missing"),
    ("streams-not-list", put(("streams",), {"choice": ["1"]}), "streams", "must be a list"),
    ("streams-empty", put(("streams",), []), "streams", "must be a non-empty list"),
    ("stream-unknown-field", put(("streams", 1, "weight"), 1), "streams[1].weight", 'unknown field "weight"'),
    ("stream-needs-a-choice", drop(("streams", 1, "choice")), "streams[1]", "exactly one of"),
    ("stream-one-choice-kind-only", put(("streams", 0, "sample"), {"from": ["1"], "d": 1}), "streams[0]",
     "exactly one of"),
    ("rate-required", drop(("streams", 0, "rate")), "streams[0].rate", "required field is missing"),
    ("rate-positive", put(("streams", 0, "rate"), -1), "streams[0].rate", "-1 must be > 0"),
    ("choice-not-list", put(("streams", 0, "choice"), "1"), "streams[0].choice", "must be a list"),
    ("choice-non-empty", put(("streams", 0, "choice"), []), "streams[0].choice", "at least 1 station"),
    ("choice-known-station", put(("streams", 1, "choice"), ["1", "9"]), "streams[1].choice[1]",
     'unknown station "9"'),
    ("choice-ids-are-strings", put(("streams", 1, "choice"), [1]), "streams[1].choice[0]",
     "station ids are strings"),
    ("choice-no-duplicates", put(("streams", 0, "choice"), ["1", "2", "1"]), "streams[0].choice[2]",
     "appears twice"),
    ("choices-sum-to-1", put(("streams", 0), {"choices": [{"set": ["1"], "prob": 0.5}, {"set": ["2"], "prob": 0.6}],
                                             "rate": 1}), "streams[0].choices",
     "sum to 1.1 (must be 1; a sum within 1e-9 of 1 is normalised)"),
    ("choices-prob-nonnegative", put(("streams", 0), {"choices": [{"set": ["1"], "prob": -0.5},
                                                                  {"set": ["2"], "prob": 1.5}], "rate": 1}),
     "streams[0].choices[0].prob", "must be a probability"),
    ("choices-entry-fields", put(("streams", 0), {"choices": [{"set": ["1"], "p": 1}], "rate": 1}),
     "streams[0].choices[0].p", 'unknown field "p"'),
    ("choices-set-valid", put(("streams", 0), {"choices": [{"set": ["7"], "prob": 1}], "rate": 1}),
     "streams[0].choices[0].set[0]", 'unknown station "7"'),
    ("sample-d-at-most-size", put(("streams", 0), {"sample": {"from": ["1", "2"], "d": 3}, "rate": 1}),
     "streams[0].sample.d", "<= 2"),
    ("sample-d-integer", put(("streams", 0), {"sample": {"from": ["1", "2"], "d": "2"}, "rate": 1}),
     "streams[0].sample.d", "must be an integer"),
    ("sample-from-required", put(("streams", 0), {"sample": {"d": 1}, "rate": 1}),
     "streams[0].sample.from", "required field is missing"),
    ("interarrival-known-dist", put(("streams", 1, "interarrival"), {"dist": "weibull"}),
     "streams[1].interarrival.dist", 'unknown distribution "weibull"'),
    ("feedback-not-list", put(("feedback",), {"from": "1"}), "feedback", "must be a list"),
    ("feedback-from-known", put(("feedback", 0, "from"), "4"), "feedback[0].from", 'unknown station "4"'),
    ("feedback-choice-valid", put(("feedback", 0, "choice"), []), "feedback[0].choice", "at least 1 station"),
    ("feedback-prob-positive", put(("feedback", 0, "prob"), 0), "feedback[0].prob", "(0, 1]"),
    ("feedback-prob-at-most-1", put(("feedback", 0, "prob"), 1.5), "feedback[0].prob", "(0, 1]"),
    ("feedback-field-required", drop(("feedback", 0, "prob")), "feedback[0].prob", "required field is missing"),
    ("feedback-sum-at-most-1", put(("feedback", 1), {"from": "1", "choice": ["2"], "prob": 0.9}),
     'feedback from station "1"', "probabilities sum to 1.2 (must be <= 1)"),
    ("tie-set-two-stations", put(("tie_breaking", 0), {"set": ["1"], "probs": {"1": 1}}), "tie_breaking[0].set",
     "at least 2 stations"),
    ("tie-probs-only-set-keys", put(("tie_breaking", 0, "probs", "3"), 0), 'tie_breaking[0].probs.3',
     "not in the tied set"),
    ("tie-probs-all-set-keys", drop(("tie_breaking", 0, "probs", "2")), "tie_breaking[0].probs",
     'missing a probability for station "2"'),
    ("tie-probs-sum-to-1", put(("tie_breaking", 0, "probs", "2"), 0.2), "tie_breaking[0].probs",
     "sum to 0.9 (must be 1; a sum within 1e-9 of 1 is normalised)"),
    ("tie-probs-nonnegative", put(("tie_breaking", 0, "probs"), {"1": 1.5, "2": -0.5}), "tie_breaking[0].probs.1",
     "must be a probability"),
    ("tie-no-duplicate-sets", put(("tie_breaking", 1), {"set": ["2", "1"], "probs": {"1": 0.5, "2": 0.5}}),
     "tie_breaking[1].set", "already given in tie_breaking[0]"),
    ("dist-required", put(("stations", "1", "service"), {"k": 2}), "stations.1.service.dist",
     "required field is missing"),
    ("dist-unknown-parameter", put(("stations", "1", "service"), {"dist": "exponential", "rate": 2}),
     "stations.1.service.rate", 'exponential has no parameter "rate"'),
    ("erlang-k-required", put(("stations", "1", "service"), {"dist": "erlang"}), "stations.1.service.k",
     "required field is missing"),
    ("erlang-k-at-least-1", put(("stations", "1", "service"), {"dist": "erlang", "k": 0}),
     "stations.1.service.k", "must be an integer >= 1"),
    ("hyperexp-scv-at-least-1", put(("stations", "1", "service"), {"dist": "hyperexponential", "scv": 0.5}),
     "stations.1.service.scv", "must be >= 1"),
    ("hyperexp-scv-or-probs", put(("stations", "1", "service"), {"dist": "hyperexponential"}),
     "stations.1.service", 'needs "scv" or both "probs" and "rates"'),
    ("hyperexp-not-both", put(("stations", "1", "service"), {**H2, "scv": 2}), "stations.1.service", "not both"),
    ("hyperexp-equal-lengths", put(("stations", "1", "service"), {**H2, "rates": [2.0]}), "stations.1.service",
     "must be equal"),
    ("hyperexp-probs-sum", put(("stations", "1"), {"mu": 0.8, "service": {**H2, "probs": [0.5, 0.6]}}),
     "stations.1.service.probs", "sum to 1.1"),
    ("hyperexp-rates-positive", put(("stations", "1"), {"mu": 0.8, "service": {**H2, "rates": [2.0, 0]}}),
     "stations.1.service.rates[1]", "0 must be > 0"),
    ("hyperexp-mean-matches", put(("stations", "1"), {"mu": 1.0, "service": H2}), "stations.1.service",
     "must equal the mean"),
    ("gamma-scv-positive", put(("stations", "1", "service"), {"dist": "gamma", "scv": 0}),
     "stations.1.service.scv", "0 must be > 0"),
    ("lognormal-scv-required", put(("stations", "1", "service"), {"dist": "lognormal"}),
     "stations.1.service.scv", "required field is missing"),
    ("expected-verdict-value", put(("expected",), {"verdict": "maybe"}), "expected.verdict",
     'must be "stable" or "unstable"'),
    ("expected-verdict-or-quantity", put(("expected",), {"how": "?"}), "expected", 'must have a "verdict"'),
    ("expected-value-number", put(("expected",), {"quantity": "q", "value": "high"}), "expected.value",
     "is not a number"),
    ("fj-n-equals-servers", put(("n",), 3, FJ), "n", "must equal the number of servers (2)"),
    ("fj-k-at-most-n", put(("k",), 3, FJ), "k", "<= 2"),
    ("fj-rate-positive", put(("rate",), 0, FJ), "rate", "0 must be > 0"),
    ("fj-servers-non-empty", put(("servers",), {}, FJ), "servers", "must not be empty"),
    ("fj-server-mu-positive", put(("servers", "2", "mu"), -0.2, FJ), "servers.2.mu", "-0.2 must be > 0"),
    ("fj-unknown-field", put(("stations",), {}, FJ), "stations", 'unknown field "stations"'),
    # numbers in range (loader module docstring); rates out of [1e-9, 1e9] are divided by the largest (test_normalise)
    ("mu-1e999", put(("stations", "3", "mu"), "1e999"), "stations.3.mu",
     "has 1000 digits in its numerator or denominator (at most 60 allowed)"),
    ("mu-1e-999", put(("stations", "3", "mu"), "1e-999"), "stations.3.mu",
     "has 1000 digits in its numerator or denominator (at most 60 allowed)"),
    ("mu-400-digits", put(("stations", "3", "mu"), 10**400), "stations.3.mu",
     "has 401 digits in its numerator or denominator (at most 60 allowed)"),
    ("mu-exponent-5000", put(("stations", "3", "mu"), "1e5000"), "stations.3.mu", "exponent beyond +-1000"),
    ("rates-spread-above", put(("streams", 0, "rate"), 2e19), "streams[1].rate",
     "0.5 is 4e+19 times smaller than the largest rate, streams[0].rate = 20000000000000000000 "
     "(the largest rate of a network may be at most 1e18 times its smallest)"),
    ("rates-spread-below", put(("streams", 1, "rate"), "1/10000000000000000000"), "streams[1].rate",
     "is 1.5e+19 times smaller than the largest rate, stations.3.mu = 1.5"),
    ("rate-digits", put(("streams", 1, "rate"), "1/" + "3" * 61), "streams[1].rate",
     "has 61 digits in its numerator or denominator (at most 60 allowed)"),
    ("prob-digits", put(("feedback", 0, "prob"), "1/" + "3" * 61), "feedback[0].prob",
     "has 61 digits in its numerator or denominator (at most 60 allowed)"),
    ("mu-digits", put(("stations", "3", "mu"), "1" + "0" * 61 + "1/" + "1" + "0" * 61), "stations.3.mu",
     "has 63 digits in its numerator or denominator (at most 60 allowed)"),
    ("phase-rates-spread", put(("stations", "1"), {"mu": 0.8, "service": {**H2, "rates": ["1e19", 0.4]}}),
     "stations.1.service.rates[1]", "0.4 is 2.5e+19 times smaller than the largest rate, "
     "stations.1.service.rates[0] = 10000000000000000000"),
    ("erlang-k-at-most-1000", put(("stations", "1", "service"), {"dist": "erlang", "k": 100000}),
     "stations.1.service.k", "100000 must be an integer >= 1 and <= 1000"),
    ("coxian-at-most-1000-phases", put(("stations", "1", "service"), {"dist": "coxian", "rates": [1] * 1001,
                                                                      "probs": [1] * 1000}),
     "stations.1.service.rates", "has 1001 phases (at most 1000 allowed)"),
    ("gamma-scv-at-least-0.001", put(("stations", "1", "service"), {"dist": "gamma", "scv": 0.0001}),
     "stations.1.service.scv", "must be >= 0.001 for a gamma law"),
    ("lognormal-scv-at-most-1000", put(("stations", "1", "service"), {"dist": "lognormal", "scv": 1001}),
     "stations.1.service.scv", "must be <= 1000 (the largest scv allowed)"),
    ("hyperexp-scv-at-most-1000", put(("stations", "1", "service"), {"dist": "hyperexponential", "scv": 1e4}),
     "stations.1.service.scv", "must be <= 1000"),
    ("capacity-at-most-1e9", put(("stations", "1", "capacity"), 10**10), "stations.1.capacity",
     "must be an integer >= 1 and <= 1000000000"),
    ("sample-at-most-100000-sets", (lambda d: d.update(stations={str(i): {"mu": 1} for i in range(40)},
                                                       streams=[{"sample": {"from": [str(i) for i in range(40)],
                                                                            "d": 20}, "rate": 1}],
                                                       feedback=[], tie_breaking=[]), BASE),
     "streams[0].sample", "137846528820 possible sets (at most 100000 allowed)"),
    ("hyperexp-mean-beyond-1e-6", put(("stations", "1"), {"mu": 1, "service": {**H2, "rates": [2, "5000000/7500011"]}}),
     "stations.1.service", "mean 1.0000011, which must equal the mean 1/mu = 1 (stations.1.mu = 1) "
     "within a relative 1e-6"),
    ("coxian-mean-beyond-1e-6", put(("streams", 1, "interarrival"), {"dist": "coxian", "rates": [4, 4],
                                                                     "probs": [1]}),
     "streams[1].interarrival", "mean 0.5, which must equal the mean 1/rate = 2 (streams[1].rate = 0.5)"),
    ("tie-probs-beyond-1e-9", put(("tie_breaking", 0, "probs"), {"1": 0.7, "2": 0.300000002}),
     "tie_breaking[0].probs", "sum to 1.000000002 (must be 1"),
    ("choices-beyond-1e-9", put(("streams", 0), {"choices": [{"set": ["1"], "prob": 0.5},
                                                             {"set": ["2"], "prob": 0.499999998}], "rate": 1}),
     "streams[0].choices", "sum to 0.999999998 (must be 1"),
    ("hyperexp-probs-beyond-1e-9", put(("stations", "1"), {"mu": 0.8, "service": {**H2, "probs": [0.5, 0.500000002]}}),
     "stations.1.service.probs", "sum to 1.000000002 (must be 1"),
    ("feedback-sum-no-tolerance", put(("feedback", 1), {"from": "1", "choice": ["2"], "prob": 0.7000000001}),
     'feedback from station "1"', "probabilities sum to 1.0000000001 (must be <= 1)"),
    ("fj-rates-spread", put(("rate",), 1e19, FJ), "servers.2.mu", "0.2 is 5e+19 times smaller than the largest rate"),
    ("fj-server-mu-spread", put(("servers", "2", "mu"), "1e-19", FJ), "servers.2.mu",
     "is 6e+18 times smaller than the largest rate, servers.1.mu = 0.6"),
    ("rate-unit-reserved", put(("x-certify-rate-unit",), "2"), "x-certify-rate-unit", "is reserved"),
    # a tie_breaking set must be a set of 2 or more stations of some choice set (jsq_schema.check_tie_sets)
    ("tie-set-of-no-choice-set", put(("tie_breaking", 0), {"set": ["1", "3"], "probs": {"1": 0.5, "3": 0.5}}),
     "tie_breaking[0].set", '["1", "3"] can never be a tied-shortest set: a tie is among 2 or more stations of one '
     'choice set, and no choice set holds all of these (choice sets with 2 or more stations: ["1", "2"] '
     "(streams[0].choice))"),
    ("tie-set-no-ties-at-all", (lambda d: d["streams"].__setitem__(0, {"choice": ["1"], "rate": 0.5}), BASE),
     "tie_breaking[0].set", "no choice set has 2 or more stations, so no tie ever happens"),
    ("tie-set-larger-than-sample", (lambda d: d.update(streams=[{"sample": {"from": ["1", "2", "3"], "d": 2}, "rate": 1}],
                                                       tie_breaking=[{"set": ["1", "2", "3"],
                                                                      "probs": {"1": 0.5, "2": 0.25, "3": 0.25}}]), BASE),
     "tie_breaking[0].set", 'choice sets with 2 or more stations: any 2 of ["1", "2", "3"] (streams[0].sample)'),
]


@pytest.mark.parametrize("rule,change,path,phrase", CASES, ids=[c[0] for c in CASES])
def test_rule(tmp_path, rule, change, path, phrase):
    """A file breaking one rule is refused with file name, field path and the rule in the message."""
    mutate, base = change
    doc = copy.deepcopy(base)
    mutate(doc)
    f = tmp_path / f"{rule}.json"
    f.write_text(json.dumps(doc))
    with pytest.raises(NetworkError) as info:
        load(f)
    err = info.value
    msg = str(err)
    assert "\n" not in msg
    assert f"{rule}.json" in msg and err.file == str(f)
    assert err.path == path, msg
    assert f"{rule}.json: {path}: " in msg
    assert phrase in err.rule, msg


FILE_CASES = [
    ("json-syntax", "net.json", '{"format": "jsq-network/1",\n "name": }', "line 2, column 10", "invalid JSON"),
    ("json-duplicate-key", "net.json", '{"format": "jsq-network/1", "format": "x"}', None, 'duplicate key "format"'),
    ("toml-syntax", "net.toml", 'format = "jsq-network/1"\nname = \n', "line 2, column 8", "invalid TOML"),
    ("unknown-extension", "net.yaml", "format: x", None, "unknown file extension '.yaml'"),
    ("not-utf8", "net.json", b"\xff\xfe{}", None, "not valid UTF-8"),
]


@pytest.mark.parametrize("rule,name,text,path,phrase", FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_file_rule(tmp_path, rule, name, text, path, phrase):
    """An unparsable file is refused naming the file, the line/column if known, and the problem."""
    f = tmp_path / name
    if isinstance(text, bytes):
        f.write_bytes(text)
    else:
        f.write_text(text)
    with pytest.raises(NetworkError) as info:
        load(f)
    err = info.value
    assert err.file == str(f) and str(err).startswith(f"{f}: ")
    assert err.path == path
    assert phrase in err.rule


def test_unreadable_file(tmp_path):
    """A file that cannot be read is a NetworkError naming it."""
    f = tmp_path / "missing.json"
    with pytest.raises(NetworkError, match="missing.json: cannot read file"):
        load(f)


def test_error_without_file():
    """from_dict without a source gives a message without the file part."""
    doc = copy.deepcopy(BASE)
    doc["streams"][0]["rate"] = -1
    with pytest.raises(NetworkError) as info:
        from_dict(doc)
    assert str(info.value) == "streams[0].rate: -1 must be > 0"
    assert info.value.file is None


def _tie_typo(tmp_path):
    """models/tie-breaking-J3.json with lambda_3 = 0.55 and the tie set {1, 2} mistyped as {1, 3}."""
    doc = json.loads(open("models/tie-breaking-J3.json").read())
    doc["streams"][1]["rate"] = 0.55
    doc["tie_breaking"][0] = {"set": ["1", "3"], "probs": {"1": 0.1, "3": 0.9}}
    f = tmp_path / "typo.json"
    f.write_text(json.dumps(doc))
    return f


def test_cli_refuses_tie_set_of_no_choice_set(tmp_path, capsys):
    """`certify prove` on a tie set no choice set produces exits 2 with one line naming file, field, set and rule."""
    from certify.cli import main

    f = _tie_typo(tmp_path)
    assert main(["prove", str(f)]) == 2
    err = capsys.readouterr().err
    assert err == (f'certify: {f}: tie_breaking[0].set: ["1", "3"] can never be a tied-shortest set: a tie is among '
                   "2 or more stations of one choice set, and no choice set holds all of these (choice sets with 2 or "
                   'more stations: ["1", "2"] (streams[0].choice))\n')


def test_cli_tie_set_refusal_has_no_traceback(tmp_path):
    """The console command prints the refusal without a traceback and exits 2."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "certify.cli", "prove", str(_tie_typo(tmp_path))],
                         capture_output=True, text=True)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert "tie_breaking[0].set" in out.stderr


def test_cli_refuses_tie_set_in_graph():
    """A networkx graph's tie set is checked by the same rule, naming graph["tie_breaking"][i].set."""
    import networkx as nx

    from certify.io.graph import from_graph

    G = nx.DiGraph(tie_breaking=[{"set": ["1", "3"], "probs": {"1": 0.5, "3": 0.5}}])
    for s in ("1", "2", "3"):
        G.add_node(s, mu=1)
    G.add_node("in", rate=1)
    G.add_edges_from([("in", "1"), ("in", "2")])
    with pytest.raises(NetworkError) as info:
        from_graph(G)
    assert info.value.path == 'graph["tie_breaking"][0].set'
    assert "can never be a tied-shortest set" in info.value.rule
