"""The fluid-flow certificate: V = w'z checked by one max-flow bound, against enumeration and true velocities."""

import json
import random
from fractions import Fraction as F
from pathlib import Path

import pytest

import certify
from certify.certificates import fluid_flow_certificate
from certify.cli import main
from certify.core.errors import CertificateError
from certify.exact import check_fluid_flow
from certify.exact.theory import no_feedback
from certify.io.loader import from_dict
from certify.markov.chain import compile_chain

from . import independent as ind

MODELS = Path(__file__).resolve().parents[1] / "models"
RATES = ("1/2", "2/3", "1", "3/2", "2")


def random_doc(J, seed, feedback=True, load=None):
    """A random network: rates from RATES, stream i into {i} plus 0-2 random others, optional random feedback."""
    rng = random.Random(seed)
    ids = [str(a + 1) for a in range(J)]
    stations = {i: {"mu": rng.choice(RATES)} for i in ids}
    streams = []
    for a in range(J):
        others = rng.sample([b for b in range(J) if b != a], min(J - 1, rng.choice((0, 1, 2))))
        streams.append({"rate": rng.choice(("1/4", "1/2", "3/4")), "choice": [ids[b] for b in sorted([a, *others])]})
    doc = {"format": "jsq-network/1", "name": f"random-J{J}-s{seed}", "stations": stations, "streams": streams}
    if feedback:
        fb = []
        for a in range(J):
            if rng.random() < 0.4:
                choice = sorted(rng.sample(range(J), rng.choice((1, 2))))
                fb.append({"from": ids[a], "choice": [ids[b] for b in choice], "prob": rng.choice(("1/10", "1/5", "1/2"))})
        if fb:
            doc["feedback"] = fb
    if load is not None:
        doc = at_load(doc, load)
    return doc


def at_load(doc, load):
    """The network with its arrival rates scaled so that theta*(w = 1) is ``load`` exactly without feedback, and at
    most ``load`` (feedback halved where it alone is too much) with it."""
    out, load = json.loads(json.dumps(doc)), F(load)
    for k in range(40):
        net = from_dict(out)
        theta = ind.flow_theta(net, {s.id: F(1) for s in net.stations})[0]
        if theta == load or (theta < load and net.feedback and k):
            return out
        for st in out["streams"]:
            st["rate"] = str(F(st["rate"]) * load / theta)
        if net.feedback and k % 4 == 3:  # the feedback alone carries some set past the load
            for fb in out["feedback"]:
                fb["prob"] = str(F(fb["prob"]) / 2)
    raise AssertionError(f"could not bring {doc['name']} to load {load}")


def ones(net):
    return {s.id: F(1) for s in net.stations}


@pytest.mark.parametrize("seed", range(12))
def test_theta_is_the_enumerated_maximum(seed):
    """theta (and the tightest set) equal the maximum of a(N)/b(N) over every station set, enumerated, for random weights."""
    rng = random.Random(100 + seed)
    net = from_dict(random_doc(rng.choice((2, 3, 4, 5)), seed))
    w = {s.id: F(rng.randint(1, 4), rng.randint(1, 3)) for s in net.stations}
    chk = check_fluid_flow(compile_chain(net), [w[s.id] for s in net.stations])
    theta, where = ind.flow_theta(net, w)
    if theta >= 1:
        assert not chk.ok and "must be < 1" in chk.failures[0]
    else:
        assert chk.ok and chk.facts.theta == theta and frozenset(chk.facts.tightest) in where


@pytest.mark.parametrize("seed", range(10))
def test_bound_holds_at_every_true_velocity(seed):
    """At random fluid states (ties, zeros) no true velocity, from the independent LP, has dV/dt above -delta."""
    net = from_dict(random_doc(3 + seed % 3, seed, load="9/10"))
    chain = compile_chain(net)
    chk = check_fluid_flow(chain, [F(1)] * net.J)
    if not chk.ok:  # feedback from an empty station is bounded by its full rate: the bound may fail
        pytest.skip(chk.failures[0])
    ind.check_fluid_flow(net, fluid_flow_certificate(net, chain, [F(1)] * net.J, chk), count=60, seed=seed,
                         high=40)


@pytest.mark.parametrize("seed", range(6))
def test_bound_is_attained_without_feedback(seed):
    """Without feedback, with the tightest set's stations tied and the others empty, dV/dt is exactly -(1 - theta) b(N)."""
    net = from_dict(random_doc(4, seed, feedback=False, load="9/10"))
    chk = check_fluid_flow(compile_chain(net), [F(1)] * net.J)
    assert chk.ok
    tight = set(chk.facts.tightest)
    z = [1 if s.id in tight else 0 for s in net.stations]
    best = ind.fluid_max_rate(net, z, [1.0] * net.J)
    if best is None:
        pytest.skip("the empty stations cannot keep their inflow: no admissible velocity there")
    b = sum(s.mu for s in net.stations if s.id in tight)
    assert best == pytest.approx(-float((1 - chk.facts.theta) * b), abs=1e-9)


@pytest.mark.parametrize("seed", range(12))
def test_unit_weights_are_best(seed):
    """No positive weights give a smaller theta than w = 1 (the layer-cake lemma of certify.exact.fluid_flow)."""
    rng = random.Random(seed)
    net = from_dict(random_doc(rng.choice((2, 3, 4)), 50 + seed))
    base, _ = ind.flow_theta(net, ones(net))
    for _ in range(5):
        w = {s.id: F(rng.randint(1, 9), rng.randint(1, 9)) for s in net.stations}
        assert ind.flow_theta(net, w)[0] >= base


@pytest.mark.parametrize("seed", range(10))
def test_without_feedback_it_is_the_subset_condition(seed):
    """Without feedback the bound passes with w = 1 exactly when Bramson's subset condition proves the network stable."""
    rng = random.Random(seed)
    doc = random_doc(rng.choice((3, 4, 5)), 200 + seed, feedback=False, load=rng.choice(("9/10", "1", "11/10")))
    chain = compile_chain(from_dict(doc))
    assert check_fluid_flow(chain, [F(1)] * chain.J).ok == (no_feedback(chain).verdict == "stable")


def test_refuses_a_weight_that_is_not_positive():
    """A zero weight is refused: V would not bound |z|_1."""
    chain = compile_chain(from_dict(random_doc(3, 1, load="1/2")))
    assert check_fluid_flow(chain, [F(1), F(0), F(1)]).failures == [
        "linear fluid weights must be one positive number per station"]


def test_names_the_overloaded_set():
    """When some set of stations cannot carry its flows, the failure names it and the ratio."""
    doc = {"format": "jsq-network/1", "name": "over", "stations": {"1": {"mu": "1"}, "2": {"mu": "1"}, "3": {"mu": "5"}},
           "streams": [{"rate": "3", "choice": ["1", "2"]}, {"rate": "1", "choice": ["3"]}]}
    chk = check_fluid_flow(compile_chain(from_dict(doc)), [F(1)] * 3)
    assert not chk.ok and "non-empty stations are {1,2}" in chk.failures[0] and "ratio 3/2" in chk.failures[0]


def test_prove_twelve_heterogeneous_stations_by_certificate():
    """A random heterogeneous network of 12 stations at margin 3% is proved by a fluid-flow certificate that verifies."""
    net = from_dict(random_doc(12, 7, feedback=False, load="97/100"))
    res = certify.prove(net, simulate=False, time_limit=60)
    assert (res.verdict, res.method) == ("stable", "fluid linear Lyapunov certificate (max-flow bound)")
    assert res.certificate["kind"] == "fluid-flow" and certify.verify(net, res.certificate).ok
    ind.check_fluid_flow(net, res.certificate, count=20, high=40)


def test_a_ring_of_24_is_proved_by_certificate():
    """A ring of 24 (stream i joins the shorter of i, i+1) near its boundary gets a certificate, not only a theorem."""
    ids = [str(i + 1) for i in range(24)]
    doc = {"format": "jsq-network/1", "name": "ring24", "stations": {i: {"mu": "1"} for i in ids},
           "streams": [{"rate": "97/100", "choice": [ids[i], ids[(i + 1) % 24]]} for i in range(24)]}
    net = from_dict(doc)
    res = certify.prove(net, simulate=False, time_limit=60)
    assert res.verdict == "stable" and res.certificate["kind"] == "fluid-flow"
    assert res.certificate["claims"]["theta"] == "97/100"


def test_small_networks_with_feedback_list_faces():
    """With feedback and fewer than FLOW_FIRST_ORBITS station orbits, prove lists the fluid faces first (kind fluid)."""
    res = certify.prove(certify.load(MODELS / "homogeneous-feedback-J3.json"), simulate=False, time_limit=60)
    assert res.verdict == "stable" and res.certificate["kind"] == "fluid"
    assert not any("max-flow" in a.stage for a in res.attempts)


def test_without_feedback_the_bound_goes_first():
    """A small network without feedback is proved by the max-flow bound, listing no fluid face."""
    net = from_dict(random_doc(4, 3, feedback=False, load="9/10"))
    res = certify.prove(net, simulate=False, time_limit=60)
    assert res.certificate["kind"] == "fluid-flow" and not any(a.stage == "fluid faces" for a in res.attempts)


def test_no_flow_bound_lists_the_faces():
    """flow_bound=False lists the fluid faces first, as before the bound (for comparisons)."""
    net = from_dict(random_doc(4, 3, feedback=False, load="9/10"))
    res = certify.prove(net, simulate=False, time_limit=60, flow_bound=False)
    assert res.certificate["kind"] == "fluid" and not any("max-flow" in a.stage for a in res.attempts)


def test_a_failed_bound_falls_back_to_the_faces():
    """Two feeders sharing one stream, each charged its whole inflow: the bound fails at every depth, later stages prove it."""
    ids = [str(i + 1) for i in range(8)]
    mu = {i: {"1": "2", "3": "3/2"}.get(i, "1") for i in ids}
    doc = {"format": "jsq-network/1", "name": "twin-feeders", "stations": {i: {"mu": mu[i]} for i in ids},
           "streams": [{"rate": "1", "choice": ["1", "3"]}]
           + [{"rate": f"{i}/20", "choice": [i]} for i in ids if i not in ("1", "3")],  # distinct rates: no classes
           "feedback": [{"from": "1", "choice": ["2"], "prob": "1/2"}, {"from": "3", "choice": ["2"], "prob": "1/2"}]}
    net = from_dict(doc)
    res = certify.prove(net, simulate=False, time_limit=60)
    flow = next(a for a in res.attempts if "max-flow" in a.stage)
    assert flow.outcome.startswith("no certificate (the max-flow bound does not show dV/dt < 0")
    assert "inflow depths 1..3 fail too" in flow.outcome
    assert any(a.stage == "fluid faces" for a in res.attempts)
    assert res.verdict == "stable" and res.certificate["kind"] != "fluid-flow" and certify.verify(net, res.certificate).ok


def test_verify_refuses_an_edited_weight(tmp_path):
    """A resealed certificate whose weight was changed is refused: its claims no longer match what the checker derives."""
    net = from_dict(random_doc(12, 7, feedback=False, load="97/100"))
    cert = certify.prove(net, simulate=False, time_limit=60).certificate.to_json()
    cert["weights"]["1"] = "1/1000"  # still a valid V, but delta and eta change: the claims no longer match
    res = certify.verify(net, ind.reseal(cert))
    assert not res.ok and any(f.startswith("claim delta") for f in res.failures)


def test_verify_refuses_a_missing_weight():
    """A certificate that does not name every station's weight is refused with the field named."""
    net = from_dict(random_doc(12, 7, feedback=False, load="97/100"))
    cert = certify.prove(net, simulate=False, time_limit=60).certificate.to_json()
    del cert["weights"]["12"]
    res = certify.verify(net, ind.reseal(cert))
    assert not res.ok and any("weights: must name exactly 12 values" in f for f in res.failures)


def test_cli_prove_verify_explain(tmp_path, capsys):
    """certify prove writes a fluid-flow certificate that certify verify accepts and certify explain renders."""
    path = tmp_path / "random.json"
    path.write_text(json.dumps(random_doc(10, 4, feedback=False, load="97/100")))
    cert = tmp_path / "cert.json"
    assert main(["prove", str(path), "--out", str(cert), "--sim-budget", "0"]) == 0
    assert json.loads(cert.read_text())["kind"] == "fluid-flow"
    assert main(["verify", str(path), str(cert)]) == 0
    assert main(["explain", str(path), str(cert)]) == 0
    out = capsys.readouterr().out
    assert "max-flow bound" in out and "theta^* = \\max_{N \\ne \\emptyset} a(N)/b(N) = \\frac{97}{100}" in out


def test_large_weights_certificate_checks_fast():
    """A 400-station symmetric network's bound is exact and cheap: theta is the load."""
    doc = {"format": "jsq-network/1", "name": "sym400", "stations": {str(i): {"mu": "1"} for i in range(1, 401)},
           "streams": [{"rate": "388", "choice": [str(i) for i in range(1, 401)]}]}
    chk = check_fluid_flow(compile_chain(from_dict(doc)), [F(1)] * 400)
    assert chk.ok and chk.facts.theta == F(97, 100) and chk.facts.delta == F(3, 100)


def test_exact_integer_weights():
    """The checker takes any exact weights (ints as well as Fractions) and derives the same facts."""
    chain = compile_chain(from_dict(random_doc(3, 2, feedback=False, load="1/2")))
    assert check_fluid_flow(chain, [2, 2, 2]).facts.theta == check_fluid_flow(chain, [F(1)] * 3).facts.theta == F(1, 2)


def test_reader_refuses_a_non_map():
    """weights must be a map from station ids to rationals."""
    from certify.certificates.kinds.fluid_flow import read_fluid_flow

    net = from_dict(random_doc(3, 2, feedback=False, load="1/2"))
    with pytest.raises(CertificateError, match="weights: must be a map"):
        read_fluid_flow(net, {"weights": ["1", "1", "1"]})


def test_reader_refuses_weights_whose_common_denominator_is_huge():
    """Weights whose common denominator has more than MAX_DENOMINATOR_BITS bits are refused before any max flow runs."""
    from certify.certificates.kinds.fluid_flow import read_fluid_flow

    doc = {"format": "jsq-network/1", "name": "wide", "stations": {str(i): {"mu": "1"} for i in range(1, 41)},
           "streams": [{"rate": "1", "choice": [str(i) for i in range(1, 41)]}]}
    net = from_dict(doc)
    primes = [p for p in range(10**6, 10**6 + 2000) if all(p % d for d in range(2, 1001))][:40]
    weights = {str(i + 1): f"1/{primes[i] ** 12}" for i in range(40)}  # 40 x 240 bits: over 8192 together
    with pytest.raises(CertificateError, match="common denominator of the weights exceeds"):
        read_fluid_flow(net, {"weights": weights})


def test_cli_no_flow_bound_lists_the_faces(tmp_path, capsys):
    """`certify prove --no-flow-bound` lists the fluid faces and writes a fluid certificate instead of a fluid-flow one."""
    path = tmp_path / "random.json"
    path.write_text(json.dumps(random_doc(4, 3, feedback=False, load="9/10")))
    cert = tmp_path / "cert.json"
    assert main(["prove", str(path), "--no-flow-bound", "--out", str(cert), "--sim-budget", "0"]) == 0
    assert json.loads(cert.read_text())["kind"] == "fluid" and "fluid faces" in capsys.readouterr().out


def test_ring_of_400_never_searches_for_station_classes(monkeypatch):
    """The bound needs no station classes: a ring of 400 is proved without the all-pairs search for them."""
    import certify.proof.context as context

    def refuse(chain):
        raise AssertionError("station classes searched")

    monkeypatch.setattr(context, "station_classes", refuse)
    ids = [str(i + 1) for i in range(400)]
    doc = {"format": "jsq-network/1", "name": "ring400", "stations": {i: {"mu": "1"} for i in ids},
           "streams": [{"rate": "97/100", "choice": [ids[i], ids[(i + 1) % 400]]} for i in range(400)]}
    res = certify.prove(from_dict(doc), simulate=False, time_limit=60)
    assert res.certificate["kind"] == "fluid-flow"
