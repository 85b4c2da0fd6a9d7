"""Hypothesis 4 of the set-sink theorem with relays (a station of R that a stream reaches fills G through its feedback)
and transfers (a station of G fills another through its own feedback inside G)."""

from __future__ import annotations

import copy
import random
from fractions import Fraction as F
from functools import cache
from pathlib import Path

import pytest

import certify
from certify.exact.sink import sink_problem
from certify.io.loader import from_dict, load, to_dict
from tests import independent

DATA = Path(__file__).parent / "data" / "networks"


def relay_doc(stream_to_relay: bool = True) -> dict:
    """G = {s, t}: a stream into t alone; s is reached only by the relay r's feedback into {s, t}."""
    streams = [{"choice": ["t"], "rate": "1/2"}, {"choice": ["u"], "rate": "1/2"}]
    if stream_to_relay:
        streams.append({"choice": ["r", "u"], "rate": "1"})
    return {"format": "jsq-network/1", "name": "relay",
            "stations": {"s": {"mu": "1"}, "t": {"mu": "1"}, "r": {"mu": "2"}, "u": {"mu": "2"}},
            "streams": streams,
            "feedback": [{"from": "r", "choice": ["s", "t"], "prob": "1/2"}]}


def transfer_doc(stream_to_source: bool = True) -> dict:
    """G = {s, t}: no routing set inside G or relay reaches s; t feeds back into {s} alone (a transfer)."""
    streams = [{"choice": ["u"], "rate": "1/2"}]
    if stream_to_source:
        streams.append({"choice": ["t"], "rate": "1/2"})
    return {"format": "jsq-network/1", "name": "transfer",
            "stations": {"s": {"mu": "1"}, "t": {"mu": "2"}, "u": {"mu": "1"}},
            "streams": streams,
            "feedback": [{"from": "t", "choice": ["s"], "prob": "1/2"}]}


@pytest.mark.parametrize("doc", [relay_doc, transfer_doc], ids=["relay", "transfer"])
def test_a_relay_or_a_transfer_fills_a_set_no_routing_set_inside_reaches(doc):
    """s is reached only through a relay r (or t's own feedback, once a stream has raised t): hypothesis 4 holds, as
    the states show."""
    net = from_dict(doc())
    assert sink_problem(net, ("s", "t")) is None
    assert all(independent.fills(net, {"s", "t"}, level, level + 1) for level in (1, 2, 3))


@pytest.mark.parametrize("doc", [relay_doc, transfer_doc], ids=["relay", "transfer"])
def test_a_relay_or_a_transfer_nothing_raises_does_not_fill(doc):
    """Without a stream into the relay (or into t), s can never be filled (the search over states agrees): hypothesis
    4 fails."""
    net = from_dict(doc(False))
    problem = sink_problem(net, ("s", "t"))
    assert problem is not None and "hypothesis 4" in problem
    assert not independent.fills(net, {"s", "t"}, 1, 3)


def random_doc(rng: random.Random) -> dict:
    """A random network on four or five stations with streams, feedback and declared ties (some of them zero)."""
    ids = [str(i) for i in range(rng.randint(4, 5))]

    def pick():
        return sorted(rng.sample(ids, rng.choice([1, 1, 2, 2, 3])))

    streams = [{"rate": f"{rng.randint(1, 4)}/4", "choice": pick()} for _ in range(rng.randint(1, 4))]
    feedback = [{"from": i, "prob": f"{rng.randint(1, 9)}/10", "choice": pick()} for i in ids if rng.random() < 0.7]
    ties = []
    for C in {tuple(c["choice"]) for c in streams + feedback if len(c["choice"]) == 2}:
        p = rng.choice([0, 0, F(1, 2), F(1, 3), 1])
        ties.append({"set": list(C), "probs": {C[0]: str(p), C[1]: str(1 - p)}})
    return {"format": "jsq-network/1", "name": "r", "stations": {i: {"mu": str(rng.choice([1, 2]))} for i in ids},
            "streams": streams, "feedback": feedback, "tie_breaking": ties}


def accepted_sets(net):
    """The pairs and triples of consecutive stations that the set-sink theorem's hypotheses accept on ``net``."""
    ids = net.station_ids
    for size in (2, 3):
        for k in range(len(ids) - size + 1):
            if sink_problem(net, G := tuple(ids[k:k + size])) is None:
                yield G


def test_every_set_said_fillable_is_filled_state_by_state():
    """On 150 random networks, each pair and triple that hypothesis 4's check accepts (some through relays only)
    reaches (l 1_G, 0) from the empty state, l = 1, 2."""
    rng = random.Random(21)
    accepted = relayed = 0
    for _ in range(150):
        net = from_dict(random_doc(rng))
        for G in accepted_sets(net):
            accepted += 1
            inside = set().union(*([set(C) for st in net.streams for C, r in st.routing_sets()
                                     if r > 0 and set(C) <= set(G)] or [set()]))
            relayed += inside != set(G)  # some station of G is filled through a relay only
            assert all(independent.fills(net, set(G), level, level + 2, rest=1) for level in (1, 2)), (net, G)
    assert accepted >= 20 and relayed >= 3


def test_every_set_said_fillable_through_a_transfer_is_filled_state_by_state():
    """On 300 random networks, each pair and triple that hypothesis 4's check accepts only with the sinks' own
    feedback inside G (declined once that feedback is removed) reaches (l 1_G, 0) from the empty state, l = 1, 2."""
    rng = random.Random(57)
    transferred = 0
    for _ in range(300):
        doc = random_doc(rng)
        net = from_dict(doc)
        for G in accepted_sets(net):
            kept = [f for f in doc["feedback"] if not (f["from"] in G and set(f["choice"]) <= set(G))]
            sets = [set(c["choice"]) for c in doc["streams"] + kept]
            plain = dict(doc, feedback=kept, tie_breaking=[t for t in doc["tie_breaking"]
                                                           if any(set(t["set"]) <= C for C in sets)])
            if sink_problem(from_dict(plain), G) is None:
                continue  # filled without a transfer: the test above covers it
            transferred += 1
            assert all(independent.fills(net, set(G), level, level + 2, rest=1) for level in (1, 2)), (net, G)
    assert transferred >= 5, transferred


@cache
def _proved(name: str) -> tuple[certify.Network, certify.Result]:
    """The stored network ``name`` and certify's answer on it (60 s, no simulation), proved once per session."""
    net = load(DATA / f"{name}.json")
    return net, certify.prove(net, time_limit=60, simulate=False)


@pytest.mark.parametrize(("name", "pair"), [
    # J = 8 seed 46 at 0.97 (simulation: 6 and 7 grow): {6, 7} is filled from R only by station 2's feedback (a relay)
    ("random-J8-s46-r0.97", ["6", "7"]),
    # J = 8 seed 101 at 0.89 (simulation: 1 and 7 grow from about 0.869): station 1 has no stream and fills only
    # through 7's forced feedback (a transfer)
    ("random-J8-s101-r0.89", ["1", "7"]),
])
def test_a_random_j8_pair_filled_through_feedback_is_proved_unstable(name, pair):
    """A pair that only feedback fills (a relay, a transfer) gets a sink-growth certificate that verifies and holds
    state by state."""
    net, out = _proved(name)
    assert out.verdict == "unstable" and out.certificate is not None
    cert = out.certificate.to_json()
    assert cert["kind"] == "sink-growth" and sorted(cert["sink"]) == pair
    assert certify.verify(net, cert).ok
    independent.check_sink_growth(net, cert)


def test_the_independent_check_re_derives_a_nested_fluid_certificate_on_six_stations():
    """J = 8 seed 101's pair nests a fluid certificate of its six-station R': the independent fluid check finds states
    with a velocity there and refuses the certificate once its claimed decay is raised past what they show."""
    net, out = _proved("random-J8-s101-r0.89")
    cert = out.certificate.to_json()
    nested = copy.deepcopy(cert["reduced_certificate"])
    assert nested["kind"] == "fluid"
    red = independent.reduced_set(net, cert["sink"])[0]
    independent.NESTED["fluid"](red, copy.deepcopy(nested))
    nested["claims"]["delta"] = str(1000 * F(nested["claims"]["delta"]))
    with pytest.raises(AssertionError, match="some velocity has dV/dt"):
        independent.NESTED["fluid"](red, nested)


def test_the_pair_is_declined_without_its_relays():
    """No stream's choice set inside {6, 7} reaches 6: without the relays (the feedback of 2 into {6, 7} and of 5
    into {6}) the pair is declined."""
    plain = to_dict(load(DATA / "random-J8-s46-r0.97.json"))
    plain["feedback"] = [f for f in plain["feedback"] if not set(f["choice"]) <= {"6", "7"} or f["from"] in ("6", "7")]
    problem = sink_problem(from_dict(plain), ("6", "7"))
    assert problem is not None and "hypothesis 4" in problem


def test_the_independent_check_refuses_a_set_the_network_cannot_fill():
    """A stored set-growth certificate read against its network without the streams into its sinks is refused by the
    independent check for hypothesis 4 (searched state by state), as certify's own check refuses that set."""
    from tests.real_certificates import case

    net, cert = case("sink-set")
    G = set(cert["sink"])
    doc = to_dict(net)
    doc["streams"] = [s for s in doc["streams"] if not set(s["choice"]) & G]
    starved = from_dict(doc)
    assert "hypothesis 4" in (sink_problem(starved, tuple(cert["sink"])) or "")
    with pytest.raises(AssertionError, match="hypothesis 4"):
        independent.check_sink_growth(starved, cert)
    independent.check_sink_growth(net, cert)  # the certificate itself is confirmed, hypothesis 4 included
