"""Sink-growth certificates (docs/math/sink.md): a station overloaded by the forced flow of a positive recurrent rest."""

from __future__ import annotations

import copy
import json
import time
from fractions import Fraction as F
from pathlib import Path

import pytest

import certify
from certify.certificates import nested_verdict
from certify.core.model import Feedback, Network, Station, Stream
from certify.exact.sink import check_sink_growth, reduced_network, sink_problem
from certify.explain import explain
from certify.io.loader import from_dict
from certify.proof.context import ProofContext, RunState
from certify.proof.result import Result
from certify.proof.sink import SinkGrowth
from certify.stationary import stationary
from tests import independent
from tests.independent import reseal
from tests.test_separable import at_load, gadgets, throughput

DATA = Path(__file__).parent / "data" / "networks"
MODELS = Path(__file__).parent.parent / "models"


def _sink(net: Network):
    """The sink-growth stage alone on ``net``: its outcome and the run's attempts."""
    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 120), None, True, ["table"])
    return SinkGrowth(certify.prove).run(ctx), ctx.res.attempts


def _exact_forced_rate(G: int, net: Network) -> F:
    """lambda_S + G d with d from the gadget's own chain (truncated at 40 per station): the true forced rate."""
    lam = next(s.rate for s in net.streams if s.choice == ("s",))
    return lam + G * F(throughput()).limit_denominator(10**9)


@pytest.mark.parametrize("G", [1, 2])
def test_gadget_sink_above_its_boundary_is_proved_unstable(G):
    """G gadgets into a sink at 1.03 of the exact boundary: the stage proves instability, and verify agrees."""
    net = at_load(G, 1.03)
    out, _ = _sink(net)
    assert out.decision is not None and out.decision.verdict == "unstable"
    cert = out.decision.certificate
    assert cert["kind"] == "sink-growth" and cert["sink"] == "s"
    assert certify.verify(net, cert).ok


@pytest.mark.parametrize("G, r", [(1, 1.03), (1, 1.2), (2, 1.03), (2, 1.5)])
def test_the_certified_rate_never_exceeds_the_exact_forced_rate(G, r):
    """The rate c, a lower bound on the stationary forced flow into the sink, is at most lambda_S + G d (exact CTMC)."""
    net = at_load(G, r)
    out, _ = _sink(net)
    assert out.decision is not None
    c = F(out.decision.certificate["rate"])
    assert c <= _exact_forced_rate(G, net) + F(1, 10**6)


def test_below_the_boundary_nothing_is_proved():
    """At 0.97 of the exact boundary no rate above the sink's capacity exists: the stage proves nothing."""
    out, attempts = _sink(at_load(2, 0.97))
    assert out.decision is None
    assert "no rate above the capacity" in attempts[-1].outcome


def test_gadget_certificate_holds_state_by_state():
    """f + A'g >= rate at every state of a box of R' and at far states, by the JSQ rules rebuilt in the tests."""
    net = at_load(2, 1.03)
    out, _ = _sink(net)
    independent.check_sink_growth(net, copy.deepcopy(out.decision.certificate))


def test_the_reduced_network_matches_an_independent_build():
    """R' built by certify and by tests/independent.py from the network's fields are the same network."""
    net = at_load(2, 1.03)
    mine = reduced_network(net, "s")
    red, lam, forced, cap = independent.reduced(net, "s")
    assert mine.network == red and mine.constant == lam and mine.forced == forced and mine.capacity == cap


def test_the_stationary_forced_rate_is_above_the_certified_rate_on_a_small_network():
    """On a three-station network, the exact stationary rate of R' into the sink is at least the certified c."""
    doc = {"format": "jsq-network/1", "name": "three", "stations": {"a": {"mu": 1}, "b": {"mu": "3/2"}, "s": {"mu": "1/2"}},
           "streams": [{"choice": ["a", "b"], "rate": "8/5"}, {"choice": ["s", "b"], "rate": "1/5"}],
           "feedback": [{"from": "a", "choice": ["s"], "prob": "3/4"}],
           "tie_breaking": [{"set": ["a", "b"], "probs": {"a": "3/10", "b": "7/10"}}]}
    net = from_dict(doc)
    out, _ = _sink(net)
    assert out.decision is not None and out.decision.verdict == "unstable"
    red = reduced_network(net, "s")
    st = stationary(red.network, truncate=40)
    exact = red.constant + F(3, 4) * F(st.throughput[red.network.station_ids.index("a")]).limit_denominator(10**9)
    assert F(out.decision.certificate["rate"]) <= exact + F(1, 10**6)
    independent.check_sink_growth(net, copy.deepcopy(out.decision.certificate))


def _cert():
    net = at_load(1, 1.2)
    out, _ = _sink(net)
    return net, out.decision.certificate


def test_a_raised_rate_is_refused():
    """A rate raised above what the function proves fails the exact check on some region of R'."""
    net, cert = _cert()
    forged = reseal({**json.loads(json.dumps(dict(cert))), "rate": str(F(cert["rate"]) + F(1, 20))})
    res = certify.verify(net, forged)
    assert not res.ok and any("< c =" in f for f in res.failures), res.failures


def test_a_rate_at_the_capacity_is_refused():
    """A rate equal to the sink's capacity proves nothing (hypothesis 3)."""
    net, cert = _cert()
    forged = reseal({**json.loads(json.dumps(dict(cert))), "rate": cert["claims"]["capacity"]})
    res = certify.verify(net, forged)
    assert not res.ok and any("hypothesis 3" in f for f in res.failures), res.failures


def test_a_nested_certificate_for_another_network_is_refused():
    """The nested certificate must be about R' rebuilt from this network: a valid one for another network fails."""
    net, cert = _cert()
    other = certify.prove(certify.load(MODELS / "symmetric-jsq-J4.json")).certificate
    doc = json.loads(json.dumps(dict(cert)))
    doc["reduced_certificate"] = json.loads(json.dumps(dict(other)))
    res = certify.verify(net, reseal(doc))
    assert not res.ok and any(f.startswith("reduced_certificate:") for f in res.failures), res.failures


def test_nested_certificates_do_not_chain():
    """A sink-growth certificate nested in another is refused before it is verified (one level only)."""
    net, cert = _cert()
    doc = json.loads(json.dumps(dict(cert)))
    doc["reduced_certificate"] = json.loads(json.dumps(dict(cert)))
    res = certify.verify(net, reseal(doc))
    assert not res.ok and any("may not" in f for f in res.failures), res.failures


@pytest.mark.parametrize("edit, field", [
    (lambda c: c.update(rate=0.5), "rate"),
    (lambda c: c.update(rate="2/4"), "rate"),
    (lambda c: c.update(sink="9"), "sink"),
    (lambda c: c.update(reduced_certificate=[]), "reduced_certificate"),
    (lambda c: c["weights"].update({"zz": "1"}), "weights"),
    (lambda c: c["table"].update(K=10**6), "table.K"),
    (lambda c: (c["weights"].update({k: f"1/{3**3700}" for k in c["weights"]}),
                c["table"]["values"].update({k: f"1/{5**2500}" for k in c["table"]["values"]})), "weights"),
], ids=["float-rate", "non-canonical-rate", "unknown-sink", "nested-not-object", "extra-weight", "huge-K",
        "huge-denominator"])
def test_malformed_fields_are_named(edit, field):
    """A malformed field is refused with a failure naming it, before any region is listed."""
    net, cert = _cert()
    doc = json.loads(json.dumps(dict(cert)))
    edit(doc)
    res = certify.verify(net, reseal(doc))
    assert not res.ok and any(f.startswith(field) or f"{field}:" in f for f in res.failures), res.failures


def test_an_instability_certificate_does_not_stand_for_stability():
    """A valid certificate for R' that proves it unstable is refused as the nested certificate."""
    doc = {"format": "jsq-network/1", "name": "over", "stations": {"a": {"mu": 1}, "s": {"mu": "1/2"}},
           "streams": [{"choice": ["a"], "rate": "3/2"}], "feedback": [{"from": "a", "choice": ["s"], "prob": "1/2"}]}
    net = from_dict(doc)
    red = reduced_network(net, "s").network
    unstable = certify.prove(red, time_limit=20, simulate=False).certificate
    assert unstable is not None and certify.verify(red, unstable).ok
    chk = check_sink_growth(net, "s", [F(0)], F(3, 4), nested_verdict(red, unstable))
    assert not chk.ok and any("does not prove R' positive recurrent" in f for f in chk.failures), chk.failures


def test_phase_type_networks_are_not_covered():
    """The theorem is for exponential networks: a gadget with Erlang service at a is declined, with the reason."""
    net = from_dict(gadgets(1, F(2), F(1, 2), {"dist": "erlang", "k": 2}))
    assert "not exponential" in (sink_problem(net, "s") or "")


def test_a_sink_that_cannot_be_filled_is_declined():
    """Without a way to fill the sink from empty (hypothesis 4) the theorem is not applied."""
    net = Network("n", (Station("a", F(1)), Station("s", F(1, 2))), (Stream(F(1, 2), choice=("a",)),),
                  (Feedback("a", ("s",), F(1, 2)),))
    assert sink_problem(net, "s") is None  # the stream reaches a, which feeds s
    alone = Network("n", (Station("a", F(1)), Station("b", F(1)), Station("s", F(1, 2))),
                    (Stream(F(1, 2), choice=("b",)),), (Feedback("a", ("s",), F(1, 2)),))
    assert "hypothesis 4" in (sink_problem(alone, "s") or "")


def test_explain_renders_the_proof():
    """explain gives the sink-growth proof with its hypotheses and the reduced network."""
    net, cert = _cert()
    text = explain(net, cert).render("markdown")
    assert "overloaded by the rest of the network" in text and "R'" in text


@pytest.mark.slow
def test_random_J8_seed3_is_proved_unstable_far_below_the_static_split():
    """J = 8 seed 3 at 0.6 of the static split's critical load (simulation: station 5 grows) is proved unstable."""
    net = certify.load(DATA / "random-J8-s3-r0.6.json")
    res = certify.prove(net, time_limit=120, simulate=False)
    assert res.verdict == "unstable" and res.certificate["kind"] == "sink-growth"
    assert certify.verify(net, res.certificate).ok
    independent.check_sink_growth(net, copy.deepcopy(res.certificate), count=100)


def test_no_growth_search_where_the_max_flow_bound_proves_the_fluid_model_stable():
    """A network with a sink candidate whose fluid model the max-flow bound proves stable gets no sink-growth search."""
    from certify.search.sink import sink_candidates

    net = certify.load(DATA / "random-J10-s1-r0.5.json")
    assert sink_candidates(net)  # the stage would have a candidate to search
    out, attempts = _sink(net)
    assert out.decision is None and not out.stop
    assert not any(a.stage.startswith("sink growth") for a in attempts)


def test_a_candidate_refused_by_a_hair_is_checked_again_halfway_to_the_capacity(monkeypatch):
    """A growth rate claimed just above what its own g gives is refused, then passes halfway to the capacity."""
    from certify.exact import sink as exact_sink
    from certify.proof import sink as proof_sink

    original = proof_sink.solve_sink_rate

    def raised(*a, **kw):
        got = original(*a, **kw)
        return None if got is None else (got[0], got[1], got[2] + F(1, 1000))

    checks = []

    def spy(*a, **kw):
        checks.append(exact_sink.check_sink_growth(*a, **kw))
        return checks[-1]

    monkeypatch.setattr(proof_sink, "solve_sink_rate", raised)
    monkeypatch.setattr(proof_sink, "check_sink_growth", spy)
    net = at_load(1, 1.2)
    out, _ = _sink(net)
    assert [c.ok for c in checks] == [False, True]
    cert = out.decision.certificate
    assert F(cert["rate"]) > F(cert["claims"]["capacity"])
    independent.check_sink_growth(net, copy.deepcopy(cert))
