"""The max-flow bound with an empty station's feedback charged by its inflow (inflow depth n), against enumeration
and the true fluid velocities (tests/independent.py: a per-set recursion and a scipy LP, not certify's terms)."""

import json
import random
from fractions import Fraction as F
from pathlib import Path

import pytest

import certify
from certify.certificates import fluid_flow_certificate
from certify.cli import main
from certify.exact import check_fluid_flow
from certify.exact.fluid_flow import MAX_INFLOW_DEPTH, departure_bounds, flow_weights
from certify.io.loader import from_dict
from certify.markov.chain import compile_chain

from . import independent as ind
from .test_fluid_flow import ones, random_doc

DATA = Path(__file__).resolve().parent / "data" / "networks"
INFLOW = DATA / "inflow-feedback-J3.json"
RANDOM_J10 = DATA / "random-J10-s1-r0.98.json"
DEPTHS = range(1, MAX_INFLOW_DEPTH + 1)


def bound_at(net, w, depth, S):
    """a_n(S) - b(S) from the checker's weights (the terms on sets inside S), as a float."""
    chain = compile_chain(net)
    idx = {s.id: j for j, s in enumerate(net.stations)}
    inside = {idx[s] for s in S}
    a = sum(x for K, x in flow_weights(chain, [w[s.id] for s in net.stations], depth).items() if inside.issuperset(K))
    return float(a - sum(w[s.id] * s.mu for s in net.stations if s.id in S))


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("depth", DEPTHS)
def test_theta_is_the_enumerated_maximum(seed, depth):
    """theta at inflow depth n (and the tightest set) equal the maximum over every station set of the per-set bound."""
    rng = random.Random(300 + seed)
    net = from_dict(random_doc(rng.choice((2, 3, 4, 5)), 300 + seed))
    w = {s.id: F(rng.randint(1, 4), rng.randint(1, 3)) for s in net.stations}
    chk = check_fluid_flow(compile_chain(net), [w[s.id] for s in net.stations], depth)
    theta, where = ind.flow_theta(net, w, depth)
    if theta >= 1:
        assert not chk.ok and "must be < 1" in chk.failures[0] and f"depth {depth}" in chk.failures[0]
    else:
        assert chk.ok and chk.facts.theta == theta and frozenset(chk.facts.tightest) in where


@pytest.mark.parametrize("seed", range(10))
def test_every_true_velocity_is_below_the_bound(seed):
    """At random fluid states, the largest true w'v (the independent LP) is at most a_n(N) - b(N) at every depth."""
    rng = random.Random(seed)
    net = from_dict(random_doc(rng.choice((3, 4)), 500 + seed, load="1"))
    w = {s.id: F(rng.randint(1, 4), rng.randint(1, 3)) for s in net.stations}
    wv = [float(w[s.id]) for s in net.stations]
    checked = 0
    for _ in range(200):
        if checked == 12:
            break
        z = [rng.choice((0, 1, 2, 5)) for _ in net.stations]
        if not any(z):
            continue
        best = ind.fluid_max_rate(net, z, wv)
        if best is None:
            continue
        checked += 1
        N = {s.id for s, x in zip(net.stations, z, strict=True) if x}
        for depth in range(MAX_INFLOW_DEPTH + 1):
            assert best <= bound_at(net, w, depth, N) + 1e-9, (z, depth)
    assert checked >= 6, f"only {checked} of 200 fluid states had admissible velocities"


@pytest.mark.parametrize("seed", range(12))
def test_depth_one_never_loses_to_depth_zero(seed):
    """Charging empty stations by min(mu, inflow) only lowers every a(N): theta at depth 1 <= theta at depth 0."""
    net = from_dict(random_doc(random.Random(seed).choice((3, 4, 5)), 700 + seed))
    assert ind.flow_theta(net, ones(net), 1)[0] <= ind.flow_theta(net, ones(net), 0)[0]


def test_departure_bounds_stay_within_the_rates():
    """Every charge c^n_j lies in [0, mu_j] and every correction g is positive, at every depth."""
    for seed in range(8):
        chain = compile_chain(from_dict(random_doc(5, 900 + seed)))
        for depth in range(MAX_INFLOW_DEPTH + 1):
            c, g = departure_bounds(chain, depth)
            assert all(0 <= c[j] <= chain.mu[j] for j in range(chain.J))
            assert all(x > 0 for d in g for x in d.values())


def test_a_feeder_charged_by_its_inflow_is_proved():
    """A station of rate 2 fed at most 7/10 feeds half its departures on: the bound fails at depth 0, gives 7/8 at depth 1."""
    chain = compile_chain(certify.load(INFLOW))
    zero, one = check_fluid_flow(chain, [F(1)] * 3, 0), check_fluid_flow(chain, [F(1)] * 3, 1)
    assert not zero.ok and "ratio 6/5" in zero.failures[0]
    assert one.ok and one.facts.theta == F(7, 8) and one.facts.tightest == ["2", "3"]


def test_refuses_a_depth_out_of_range():
    """The checker refuses an inflow depth that is not an integer in 0..MAX_INFLOW_DEPTH, naming the rule."""
    chain = compile_chain(certify.load(INFLOW))
    for bad in (-1, MAX_INFLOW_DEPTH + 1, True, 1.0):
        assert check_fluid_flow(chain, [F(1)] * 3, bad).failures == [
            f"the inflow depth {bad!r} must be an integer in 0..{MAX_INFLOW_DEPTH}"]


def test_ten_station_random_feedback_network_is_proved():
    """The random feedback network J = 10 (seed 1) at 0.98 of the static split's critical load: proved by the bound at
    depth 1 with no face listed; the certificate verifies and the enumeration and true velocities confirm it."""
    net = certify.load(RANDOM_J10)
    res = certify.prove(net, simulate=False, time_limit=60)
    assert (res.verdict, res.method) == ("stable", "fluid linear Lyapunov certificate (max-flow bound)")
    cert = res.certificate.to_json()
    assert cert["kind"] == "fluid-flow" and cert["inflow_depth"] == 1
    assert not any(a.stage == "fluid faces" for a in res.attempts)
    assert certify.verify(net, res.certificate).ok
    ind.check_fluid_flow(net, cert, count=20, high=40)


def test_verify_refuses_a_lowered_depth():
    """A depth-1 certificate resealed with inflow_depth 0 is refused: at full charges the bound fails."""
    net = certify.load(INFLOW)
    chain = compile_chain(net)
    cert = fluid_flow_certificate(net, chain, [F(1)] * 3, check_fluid_flow(chain, [F(1)] * 3, 1), 1).to_json()
    assert certify.verify(net, cert).ok
    cert["inflow_depth"] = 0
    res = certify.verify(net, ind.reseal(cert))
    assert not res.ok and any("ratio 6/5" in f for f in res.failures)


def test_cli_refuses_a_malformed_depth(tmp_path, capsys):
    """certify verify calls a certificate whose inflow_depth is not an integer in range invalid, naming field and rule."""
    net = certify.load(INFLOW)
    chain = compile_chain(net)
    cert = fluid_flow_certificate(net, chain, [F(1)] * 3, check_fluid_flow(chain, [F(1)] * 3, 1), 1).to_json()
    cert["inflow_depth"] = "1"
    path = tmp_path / "cert.json"
    path.write_text(json.dumps(ind.reseal(cert)))
    assert main(["verify", str(INFLOW), str(path)]) == 1
    out = capsys.readouterr().out
    assert "INVALID" in out and "malformed certificate: inflow_depth: '1' must be an integer in 0..3" in out


def test_explain_shows_the_departure_bounds(capsys, tmp_path):
    """certify explain of a depth-1 certificate prints the charged departure rates and the terms."""
    net = certify.load(INFLOW)
    chain = compile_chain(net)
    cert = fluid_flow_certificate(net, chain, [F(1)] * 3, check_fluid_flow(chain, [F(1)] * 3, 1), 1)
    path = tmp_path / "cert.json"
    path.write_text(json.dumps(cert.to_json()))
    assert main(["explain", str(INFLOW), str(path)]) == 0
    out = capsys.readouterr().out
    assert "inflow depth 1" in out and "departure bounds of the empty stations" in out
    assert "| $d_{1}$ | $2$ | $\\frac{7}{10}$ | $0$ |" in out
