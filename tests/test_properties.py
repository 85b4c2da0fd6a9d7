"""Property tests: validation never crashes, and every valid network round-trips exactly."""

import copy
import json
import tempfile
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from certify.core.errors import NetworkError
from certify.core.model import ForkJoinNetwork, Network
from certify.io.graph import from_graph, to_graph
from certify.io.loader import dump, from_dict, load, to_dict

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "public"
SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CORPUS_DOCS = [json.loads(f.read_text(), parse_float=Decimal) for f in sorted(CORPUS.glob("*.json"))][::3]

IDS = st.text(alphabet="abcxyz019-_ .", min_size=1, max_size=3)


def as_written(x: Fraction):
    """Strategy: ``x`` as a user might write it (Fraction, "p/q", or a float / Decimal when exact)."""
    forms = [st.just(x), st.just(f"{x.numerator}/{x.denominator}")]
    if x.denominator == 1:
        forms.append(st.just(int(x)))
    if Fraction(repr(float(x))) == x:
        forms += [st.just(float(x)), st.just(Decimal(repr(float(x))))]
    return st.one_of(forms)


POSITIVE = st.one_of(
    st.fractions(min_value=Fraction(1, 100), max_value=20, max_denominator=100),
    st.decimals(min_value=Decimal("0.01"), max_value=Decimal(20), places=2).map(Fraction),
)


@st.composite
def number(draw, strategy=POSITIVE):
    return draw(as_written(draw(strategy)))


@st.composite
def split(draw, n, total=Fraction(1), allow_zero=True):
    """``n`` probabilities summing to ``total`` (as written by a user)."""
    w = draw(st.lists(st.integers(0 if allow_zero else 1, 9), min_size=n, max_size=n))
    if not sum(w):
        w[0] = 1
    return [draw(as_written(total * Fraction(x, sum(w)))) for x in w]


@st.composite
def dist(draw, mean: Fraction):
    kind = draw(st.sampled_from(["exponential", "deterministic", "erlang", "h2-scv", "h2", "gamma", "lognormal"]))
    if kind in ("exponential", "deterministic"):
        return {"dist": kind}
    if kind == "erlang":
        return {"dist": "erlang", "k": draw(st.integers(1, 6))}
    if kind == "h2-scv":
        return {"dist": "hyperexponential", "scv": draw(number(st.fractions(1, 10, max_denominator=20)))}
    if kind == "h2":
        n = draw(st.integers(1, 3))
        probs = [Fraction(p) for p in draw(split(n))]
        base = draw(st.lists(st.fractions(Fraction(1, 10), 10, max_denominator=10), min_size=n, max_size=n))
        s = sum(p / r for p, r in zip(probs, base))
        rates = [r * s / mean for r in base]  # sum(p / rate) == mean exactly
        return {"dist": "hyperexponential", "probs": probs, "rates": [draw(as_written(r)) for r in rates]}
    return {"dist": kind, "scv": draw(number(st.fractions(Fraction(1, 10), 10, max_denominator=20)))}


def subset(ids, min_size=1):
    return st.lists(st.sampled_from(ids), min_size=min_size, max_size=len(ids), unique=True)


@st.composite
def valid_doc(draw):
    """A random valid jsq-network/1 (or fork-join) document."""
    ids = draw(st.lists(IDS, min_size=1, max_size=5, unique=True))
    if draw(st.integers(0, 9)) == 0:
        n = len(ids)
        return {"format": "fork-join-redundancy/1", "name": "fj", "n": n, "k": draw(st.integers(1, n)),
                "rate": draw(number()), "servers": {i: {"mu": draw(number())} for i in ids}}
    stations = {}
    for i in ids:
        mu = draw(POSITIVE)
        st_doc = {"mu": draw(as_written(mu))}
        if draw(st.booleans()):
            st_doc["service"] = draw(dist(1 / mu))
        if draw(st.booleans()):
            st_doc["capacity"] = draw(st.integers(1, 9))
        stations[i] = st_doc
    streams = []
    for _ in range(draw(st.integers(1, 3))):
        rate = draw(POSITIVE)
        s = {"rate": draw(as_written(rate))}
        kind = draw(st.sampled_from(["choice", "choices", "sample"]))
        if kind == "choice":
            s["choice"] = draw(subset(ids))
        elif kind == "choices":
            sets = draw(st.lists(subset(ids), min_size=1, max_size=3))
            s["choices"] = [{"set": c, "prob": p} for c, p in zip(sets, draw(split(len(sets))))]
        else:
            pool = draw(subset(ids))
            s["sample"] = {"from": pool, "d": draw(st.integers(1, len(pool)))}
        if draw(st.booleans()):
            s["interarrival"] = draw(dist(1 / rate))
        streams.append(s)
    feedback = []
    for i in ids:
        n = draw(st.integers(0, 2))
        if n:
            total = draw(st.fractions(Fraction(1, 10), 1, max_denominator=10))
            for p in draw(split(n, total, allow_zero=False)):
                feedback.append({"from": i, "choice": draw(subset(ids)), "prob": p})
    doc = {"format": "jsq-network/1", "stations": stations, "streams": streams, "feedback": feedback}
    # A tie set must be able to occur: 2 or more stations inside one choice set (a sample stream's: at most d).
    hosts = [(s["choice"], len(s["choice"])) for s in streams if "choice" in s]
    hosts += [(c["set"], len(c["set"])) for s in streams for c in s.get("choices", [])]
    hosts += [(s["sample"]["from"], s["sample"]["d"]) for s in streams if "sample" in s]
    hosts += [(f["choice"], len(f["choice"])) for f in feedback]
    hosts = [(h, m) for h, m in hosts if m >= 2]
    if hosts:
        tie_set = st.sampled_from(hosts).flatmap(lambda hm: st.lists(st.sampled_from(hm[0]), min_size=2, max_size=hm[1],
                                                                     unique=True))
        sets = draw(st.lists(tie_set, max_size=3, unique_by=frozenset))
        doc["tie_breaking"] = [{"set": c, "probs": dict(zip(c, draw(split(len(c)))))} for c in sets]
    if draw(st.booleans()):
        doc["name"] = draw(st.text(alphabet="abc -_1", max_size=8))
    if draw(st.booleans()):
        doc["expected"] = draw(st.sampled_from([{"verdict": "stable", "how": "x"},
                                                {"quantity": "q", "value": 0.25, "tol": 1e-3}]))
    if draw(st.booleans()):
        doc["x-meta"] = {"id": draw(st.integers(0, 99)), "tags": ["a", "b"], "w": 0.5}
    return doc


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=4) | st.sampled_from(["1/0", "1/3", "", "nan", "1e999999"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)


def locations(obj, out):
    """All (container, key) pairs inside a document."""
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for k, v in items:
        out.append((obj, k))
        locations(v, out)
    return out


@st.composite
def mutated_doc(draw):
    doc = copy.deepcopy(draw(st.sampled_from(CORPUS_DOCS) | valid_doc()))
    for _ in range(draw(st.integers(1, 3))):
        locs = locations(doc, [])
        if not locs:
            break
        obj, key = draw(st.sampled_from(locs))
        op = draw(st.sampled_from(["delete", "replace", "negate", "unknown-id", "zero", "duplicate"]))
        if op == "delete":
            del obj[key]
        elif op == "replace":
            obj[key] = draw(JSON_VALUES)
        elif op == "negate" and isinstance(obj[key], (int, float, Decimal, Fraction)):
            obj[key] = -obj[key]
        elif op == "unknown-id":
            obj[key] = "no-such-station"
        elif op == "zero":
            obj[key] = 0
        elif op == "duplicate" and isinstance(obj[key], list) and obj[key]:
            obj[key].append(copy.deepcopy(obj[key][0]))
    return doc


@SETTINGS
@given(mutated_doc())
def test_mutated_documents_never_crash(doc):
    """A randomly damaged document gives a model or a NetworkError, never another exception."""
    try:
        net = from_dict(doc)
    except NetworkError as e:
        assert str(e) and "\n" not in str(e)
    else:
        assert isinstance(net, (Network, ForkJoinNetwork))
        assert from_dict(to_dict(net)) == net


@SETTINGS
@given(valid_doc())
def test_valid_networks_round_trip(doc):
    """A valid network survives dict -> model -> dict -> model, the graph and JSON/TOML files exactly."""
    net = from_dict(doc)
    again = from_dict(to_dict(net))
    assert again == net
    assert to_dict(again) == to_dict(net)
    if isinstance(net, Network):
        assert from_graph(to_graph(net)) == net
    with tempfile.TemporaryDirectory() as tmp:
        for ext in ("json", "toml"):
            path = Path(tmp) / f"net.{ext}"
            dump(net, path)
            assert load(path) == net
