"""Sink growth for a set of sinks (docs/math/sink.md, sets of sinks): two stations the rest overloads together."""

from __future__ import annotations

import copy
import itertools
import json
import random
import time
from fractions import Fraction as F
from pathlib import Path

import pytest

import certify
from certify.certificates import nested_verdict
from certify.certificates.kinds.sink_growth import read_sink_growth
from certify.core.errors import CertificateError
from certify.core.model import Network, Station, Stream
from certify.exact.sink import check_sink_growth, reduced_network, sink_problem
from certify.explain import explain
from certify.io.loader import from_dict
from certify.proof.context import ProofContext, RunState
from certify.proof.result import Result
from certify.search.sink import set_candidates
from tests import independent
from tests.independent import reseal
from tests.real_certificates import GrowthStages
from tests.test_separable import gadgets, throughput

LAM_T = F(1, 2)  # the stream into t alone; mu_t = 1
DATA = Path(__file__).parent / "data" / "networks"


def pair_doc(G: int, r: float) -> dict:
    """G gadgets into the pair {s, t} (a stream {s, t}, a stream {t}), at load factor r of the exact boundary.

    The gadgets' stations a feed s; mu_s = G d + 1/2, mu_t = 1, lambda_t = 1/2. The pair is overloaded iff
    lambda_st + lambda_t + G d > mu_s + mu_t (d: a gadget's exact throughput into s), i.e. r > 1; each station
    alone is overloaded when it is the shorter whatever r near 1 (lambda_st > 1/2).
    """
    d = F(throughput()).limit_denominator(10**6)
    mu_s = (G * d + F(1, 2)).limit_denominator(10**6)
    cap = mu_s + 1
    lam_st = (F(r).limit_denominator(1000) * cap - LAM_T - G * d).limit_denominator(10**6)
    doc = gadgets(G, mu_s, lam_st)
    doc["name"] = f"pair-gadgets-{G}"
    doc["stations"]["t"] = {"mu": 1}
    doc["streams"][0] = {"choice": ["s", "t"], "rate": str(lam_st)}
    doc["streams"].append({"choice": ["t"], "rate": str(LAM_T)})
    return doc


def _stage(net):
    """The sink-growth stage alone on ``net`` (J >= 6 for the stage): its outcome and the run's attempts."""
    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 120), None, True, ["table"])
    return GrowthStages().run(ctx), ctx.res.attempts


@pytest.fixture(scope="module")
def above():
    """Two gadgets into the pair at 1.03 of the boundary, and the stage's certificate for it."""
    net = from_dict(pair_doc(2, 1.03))
    out, _ = _stage(net)
    assert out.decision is not None
    return net, out.decision.certificate.to_json()


def test_pair_above_its_boundary_is_proved_unstable(above):
    """At 1.03 of the exact boundary the stage proves the pair {s, t} overloaded, and verify agrees."""
    net, cert = above
    assert cert["kind"] == "sink-growth" and cert["sink"] == ["s", "t"]
    assert certify.verify(net, cert).ok


def test_the_certified_rate_never_exceeds_the_exact_inflow(above):
    """c_G, a lower bound on the stationary inflow forced into the pair, is at most lambda_st + lambda_t + 2 d."""
    net, cert = above
    lam = sum((s.rate for s in net.streams if set(s.choice) <= {"s", "t"}), F(0))
    exact = lam + 2 * F(throughput()).limit_denominator(10**9)
    assert F(cert["rate"]) <= exact + F(1, 10**6)


def test_pair_certificate_holds_state_by_state(above):
    """f_H + A'g_H >= c_H for every subset H at every state of a box of R' and far states, rebuilt in the tests."""
    net, cert = above
    independent.check_sink_growth(net, copy.deepcopy(cert))


def test_below_the_boundary_nothing_is_proved():
    """At 0.97 of the boundary no rate above the pair's capacity exists: the stage proves nothing."""
    out, attempts = _stage(from_dict(pair_doc(2, 0.97)))
    assert out.decision is None
    assert any("{s,t}" in a.stage and "no rate above the capacity" in a.outcome for a in attempts)


def test_the_reduced_network_matches_an_independent_build():
    """R' without {s, t} built by certify and by tests/independent.py, and every subset's inflow and capacity, agree."""
    net = from_dict(pair_doc(2, 1.03))
    red = reduced_network(net, ("t", "s"))
    mine, inflow, feeds, internal, mu = independent.reduced_set(net, ["s", "t"])
    assert red.network == mine
    for H in (("s",), ("t",), ("s", "t")):
        lam, forced, m = independent._set_rate(H, inflow, feeds, internal, mu)
        part = red.part(H)
        assert (part.constant, part.capacity) == (lam, m)
        assert part.forced == {i: r for i, r in forced}


def test_a_pair_is_a_candidate_only_when_linked_inside():
    """The pair {s, t} shares a stream and is a candidate; no pair of gadget stations is (nothing is forced on them)."""
    net = from_dict(pair_doc(2, 1.03))
    assert [c.sink for c in set_candidates(net)] == [("s", "t")]


def _all_pairs(net):
    """The pairs that set_candidates keeps, found by scanning every pair of stations (the definition, O(J^2))."""
    out = []
    for G in itertools.combinations(net.station_ids, 2):
        if sink_problem(net, G) is not None:
            continue
        red = reduced_network(net, G)
        parts = [red, *(red.part((j,)) for j in G)]
        if red.capacity > 0 and red.constant < red.capacity and red.forced and all(
                p.constant + sum(p.forced.values(), F(0)) > p.capacity for p in parts):
            out.append(G)
    return out


def random_feedback_doc(seed):
    """A seeded random feedback network on 4..9 stations: choice sets of size 1..3, feedback on most stations."""
    rng = random.Random(seed)
    ids = [str(i + 1) for i in range(rng.randint(4, 9))]

    def pick():
        return sorted(rng.sample(ids, rng.choice([1, 1, 2, 2, 3])), key=ids.index)

    return {"format": "jsq-network/1", "name": f"r{seed}",
            "stations": {i: {"mu": str(rng.choice([1, 2, 3]))} for i in ids},
            "streams": [{"rate": f"{rng.randint(1, 9)}/4", "choice": pick()} for _ in range(rng.randint(1, 5))],
            "feedback": [{"from": i, "prob": f"{rng.randint(1, 9)}/10", "choice": pick()}
                         for i in ids if rng.random() < 0.7]}


def test_candidate_pairs_equal_the_all_pairs_scan_on_random_networks():
    """On 120 seeded random feedback networks (J = 4..9) the listed candidate pairs are those of the all-pairs scan."""
    kept = 0
    for seed in range(120):
        net = from_dict(random_feedback_doc(seed))
        got = [c.sink for c in set_candidates(net)]
        assert sorted(got) == sorted(_all_pairs(net)), seed
        kept += len(got)
    assert kept >= 5  # the comparison saw pairs that are candidates, not only empty lists


def test_a_raised_set_rate_is_refused(above):
    """A resealed certificate claiming c_G above what f + A'g reaches is refused by verify."""
    net, cert = above
    forged = reseal({**copy.deepcopy(cert), "rate": str(F(cert["rate"]) + F(1, 10))})
    res = certify.verify(net, forged)
    assert not res.ok and any("f + A g" in f for f in res.failures)


def test_an_unlisted_subset_that_its_constant_does_not_carry_is_refused(above):
    """{s} needs its forced inflow (its constant is below m_s): a file without its subsets entry is refused."""
    net, cert = above
    part = reduced_network(net, ("s", "t")).part(("s",))
    assert part.constant <= part.capacity and [e["set"] for e in cert["subsets"]] == [["s"]]
    forged = reseal({k: v for k, v in copy.deepcopy(cert).items() if k != "subsets"})
    res = certify.verify(net, forged)
    assert not res.ok and any("for H = {s}" in f and "constant inflow" in f for f in res.failures)


def test_a_subset_listed_twice_or_outside_the_set_is_refused(above):
    """A subsets entry naming G itself, a station outside G, or a subset twice is refused by the check."""
    net, cert = above
    red = reduced_network(net, ("s", "t"))
    ids = list(red.network.station_ids)
    zero = [F(0)] * len(ids)
    sub = nested_verdict(red.network, cert["reduced_certificate"])
    for subsets, rule in [([(("s", "t"), zero, F(9), None)], "not a proper"),
                          ([(("a0",), zero, F(9), None)], "not a proper"),
                          ([(("s",), zero, F(9), None), (("s",), zero, F(9), None)], "listed twice")]:
        chk = check_sink_growth(net, ("s", "t"), zero, F(9), sub, subsets=subsets)
        assert not chk.ok and rule in chk.failures[0]


@pytest.mark.parametrize("value, rule", [(["s", "s"], "distinct"), (["s"], "at least two"), (["s", "zz"], "station id"),
                                         ([], "at least two"), ([1, 2], "station id")])
def test_a_malformed_sink_list_names_the_field(above, value, rule):
    """``sink`` must be one station id or a list of at least two distinct ones: the error names the field."""
    net, cert = above
    with pytest.raises(CertificateError, match=rf"^sink: .*{rule}"):
        read_sink_growth(net, {**cert, "sink": value})


def test_subsets_on_a_single_sink_are_refused(above):
    """A ``subsets`` field is for a set of sinks: on a single sink the reader names it."""
    net, cert = above
    with pytest.raises(CertificateError, match="^subsets: is only for a set"):
        read_sink_growth(net, {**cert, "sink": "s", "subsets": []})


def test_a_subset_entry_with_a_missing_field_names_it(above):
    """Each subsets entry has exactly set, weights, rate (and values with a table): the error names the entry."""
    net, cert = above
    entry = {"set": ["s"], "rate": "2"}
    with pytest.raises(CertificateError, match=r"^subsets\[0\]: must have exactly the fields"):
        read_sink_growth(net, {**cert, "subsets": [entry]})


def test_a_set_that_nothing_inside_fills_is_declined():
    """Hypothesis 4 for a set: with no stream into {s, t} and no feedback into s, nothing fills s; not applied."""
    doc = pair_doc(2, 1.03)
    doc["streams"][0] = {"choice": ["t"], "rate": doc["streams"][0]["rate"]}
    doc["feedback"] = []
    problem = sink_problem(from_dict(doc), ("s", "t"))
    assert problem is not None and "hypothesis 4" in problem


def test_a_set_its_feeders_relay_into_is_not_declined():
    """With the stream into {s, t} moved to t alone, the gadgets' stations a (which their streams reach with tie
    probability 3/10) still fill s through their feedback: hypothesis 4 holds."""
    doc = pair_doc(2, 1.03)
    doc["streams"][0] = {"choice": ["t"], "rate": doc["streams"][0]["rate"]}
    assert sink_problem(from_dict(doc), ("s", "t")) is None


def test_explain_names_the_pair_and_every_subset(above):
    """The readable proof names the pair, the soft-minimum theorem, and a row per subset with c_H and m_H."""
    net, cert = above
    text = explain(net, cert).render("markdown")
    assert "the stations {s, t} are overloaded" in text
    assert "soft minimum" in text
    for H in ("{s}", "{t}", "{s, t}"):
        assert f"| {H} |" in text


def test_the_certificate_file_round_trips(above, tmp_path):
    """Written as JSON and read back, the pair's certificate still verifies."""
    net, cert = above
    path = tmp_path / "pair.cert.json"
    path.write_text(json.dumps(cert))
    assert certify.verify(net, json.loads(path.read_text())).ok


@pytest.mark.slow
@pytest.mark.parametrize("name, sink", [("random-J8-s15-r0.9", ["3", "4"]), ("random-J6-s15-r0.925", "2")])
def test_random_feedback_networks_above_their_jsq_boundary_are_proved_unstable(name, sink):
    """bench/frontier.py's J8-s15 at 0.9 (a pair) and J6-s15 at 0.925 (one sink, K = 3): prove finds the sink."""
    net = certify.load(DATA / f"{name}.json")
    res = certify.prove(net, time_limit=120, simulate=False)
    assert res.verdict == "unstable" and res.certificate["kind"] == "sink-growth"
    assert res.certificate["sink"] == sink
    cert = res.certificate.to_json()
    assert certify.verify(net, cert).ok
    independent.check_sink_growth(net, copy.deepcopy(cert), count=100)


def test_a_set_of_too_many_sinks_is_declined():
    """A set of more than MAX_SET sinks is declined before its 2^|G| subsets are visited (a hostile file's size)."""
    net = Network("n", tuple(Station(str(k), F(1)) for k in range(10)), (Stream(F(1), choice=("0",)),))
    assert "more than" not in (sink_problem(net, tuple(str(k) for k in range(8))) or "")
    problem = sink_problem(net, tuple(str(k) for k in range(9)))
    assert problem is not None and "more than 8" in problem
