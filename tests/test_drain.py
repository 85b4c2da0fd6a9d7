"""Sink drain (docs/math/drain.md): the rest of the network drains a sink, or a set of sinks, proved stable.

Truth comes from outside the checker: a gadget's exact throughput (a truncated CTMC) gives the exact boundary
and the exact stationary inflow that the certified rate must bound from above; tests/independent.py re-checks
every hypothesis state by state on R' rebuilt from the network's fields, and evaluates the proof's own Lyapunov
function V = |s|^2/2 + Lambda + kappa W on the whole network far from the origin.
"""

from __future__ import annotations

import copy
import json
import time
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest

import certify
from certify.certificates.kinds.sink_drain import sink_drain_certificate
from certify.exact.drain import (
    check_sink_drain,
    directions,
    excess_network,
    largest_drain_rate,
    tie_excess,
)
from certify.exact.growth import growth_levels
from certify.exact.sink import proper_subsets, reduced_network
from certify.explain import explain
from certify.io.loader import from_dict
from certify.markov.chain import compile_chain
from certify.markov.drift import compile_drifts
from certify.markov.regions import iter_regions
from certify.proof.context import ProofContext, RunState
from certify.proof.drain import SinkDrain
from certify.proof.result import Result
from certify.search.drain import drain_candidates, solve_drain_rate, solve_reduced_lyapunov
from certify.stationary import stationary
from tests import independent
from tests.independent import reseal
from tests.test_separable import at_load, throughput
from tests.test_sink_set import pair_doc, random_feedback_doc

DATA = Path(__file__).parent / "data" / "networks"


def drain_certificate(net, sink, fast, K, subsets_on_rest=False, check=True):
    """A sink-drain certificate for ``net`` built by the search (table on the stations ``fast`` of R'), or None.

    The subsets' functions are found on R'_eps where ties add work to R' (hypothesis 1), or on R' itself with
    ``subsets_on_rest`` (a certificate the theorem does not support; ``check=False`` builds it unchecked)."""
    red = reduced_network(net, sink)
    chain = compile_chain(red.network)
    excess = tie_excess(net, red.sinks)
    wchain = compile_chain(excess_network(red.network, excess))  # R'_eps: R' when no tie adds
    lyap = solve_reduced_lyapunov(wchain, compile_drifts(wchain))
    if lyap is None:
        return None
    idx = [chain.ids.index(i) for i in fast]
    drifts = compile_drifts(chain, list(iter_regions(chain, growth_levels(chain, idx, K))))
    mu = {s.id: s.mu for s in net.stations}
    got = solve_drain_rate(chain, red, drifts, idx, K, red.sinks, sum((mu[j] for j in red.sinks), F(0)))
    if got is None:
        return None
    subsets = []
    on = chain if subsets_on_rest or not excess else wchain
    wdrifts = compile_drifts(on, [d.region for d in drifts])
    for H in sorted(proper_subsets(red.sinks)):
        cap = sum((mu[j] for j in H), F(0))
        if largest_drain_rate(red, H) < cap:
            continue
        dirs = [chain.ids.index(t) for t in directions(net, red.sinks, H) | set(excess)]
        gH = solve_drain_rate(on, red, wdrifts, idx, K, H, cap, dirs)
        if gH is None:
            return None
        subsets.append((H, gH[0], gH[2], gH[1]))
    w, table, rate = got
    chk = check_sink_drain(net, sink, lyap[0], w, rate, table, idx, K, drifts=drifts, subsets=subsets)
    if not check:
        return lyap[0], w, rate, table, idx, subsets, chk
    assert chk.ok, chk.failures
    return sink_drain_certificate(net, sink, lyap[0], w, rate, chk, table, idx, K, subsets).to_json()


def pair_with_side_doc(r: float) -> dict:
    """Two gadgets into the pair {s, t} (tests/test_sink_set.py) and a station x sharing a stream {t, x}.

    When t is short it takes work that R' sends to x: x is a direction of the subset {s} (Dirs({s}) = {x}), whose
    largest inflow (both gadgets' a busy: 2) exceeds mu_s, so {s} needs its own monotone g.
    """
    doc = pair_doc(2, r)
    doc["stations"]["x"] = {"mu": 1}
    doc["streams"].append({"choice": ["t", "x"], "rate": "1/2"})
    return doc


def _stage(net, limit=120):
    """The sink-drain stage alone on ``net``: its outcome and the run's attempts."""
    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + limit), None, True, ["table"])
    return SinkDrain().run(ctx), ctx.res.attempts


@pytest.fixture(scope="module")
def gadget():
    """One gadget into its sink at 0.95 of the exact boundary, and a drain certificate for it."""
    net = at_load(1, 0.95)
    return net, drain_certificate(net, "s", ["a0", "b0"], 3)


@pytest.fixture(scope="module")
def pair():
    """The pair with a side station at 0.95 of its boundary, and the stage's certificate for it."""
    net = from_dict(pair_with_side_doc(0.95))
    out, _ = _stage(net)
    assert out.decision is not None
    return net, out.decision.certificate.to_json()


def test_a_sink_below_its_boundary_is_certified(gadget):
    """A gadget's sink at 0.95 of its exact boundary has a drain certificate that verifies."""
    net, cert = gadget
    assert cert is not None and cert["kind"] == "sink-drain"
    assert certify.verify(net, cert).ok


def test_the_certified_rate_is_at_least_the_exact_inflow(gadget):
    """c bounds from above the exact stationary rate of what reaches the sink, lambda_S + d (d from the CTMC)."""
    net, cert = gadget
    lam_s = next(st.rate for st in net.streams if st.choice == ("s",))
    d = F(throughput()).limit_denominator(10**9)
    assert F(cert["rate"]) >= lam_s + d - F(1, 10**7)
    assert F(cert["rate"]) < F(cert["claims"]["capacity"])


def test_the_certificate_holds_state_by_state(gadget):
    """Every hypothesis re-checked state by state on R' rebuilt from the network's fields."""
    net, cert = gadget
    independent.check_sink_drain(net, copy.deepcopy(cert))


def test_above_the_boundary_no_rate_below_the_capacity_is_found():
    """At 1.03 of the exact boundary the rate LP finds no c below mu_S: the stationary inflow is above it."""
    assert drain_certificate(at_load(1, 1.03), "s", ["a0", "b0"], 3) is None


def test_a_lowered_rate_is_refused(gadget):
    """A resealed certificate claiming c below what u + A'g reaches is refused, naming the region."""
    net, cert = gadget
    bad = copy.deepcopy(cert)
    bad["rate"] = str(F(bad["rate"]) - F(1, 100))
    bad["claims"]["rate"] = bad["rate"]
    res = certify.verify(net, reseal(bad))
    assert not res.ok and any("u + A g" in f and "on the region" in f for f in res.failures), res.failures


@pytest.mark.parametrize("entry, value, rule", [("P[a0,b0]", "-1/1000", "every entry >= 0"),
                                                ("P[a0,a0]", "0", "diagonal entry must be > 0")])
def test_a_reduced_lyapunov_function_that_an_arrival_may_decrease_is_refused(gadget, entry, value, rule):
    """W with a negative entry, or a zero diagonal entry, is refused with the entry named."""
    net, cert = gadget
    bad = copy.deepcopy(cert)
    bad["reduced_lyapunov"][entry] = value
    res = certify.verify(net, reseal(bad))
    assert not res.ok and any(entry in f and rule in f for f in res.failures), res.failures


def test_a_pair_with_a_side_station_below_its_boundary_is_proved_stable(pair):
    """The stage proves the pair's network stable; {s} is listed with its own g, whose direction is x."""
    net, cert = pair
    assert cert["kind"] == "sink-drain" and cert["sink"] == ["s", "t"]
    assert [e["set"] for e in cert["subsets"]] == [["s"]]
    assert directions(net, ("s", "t"), ("s",)) == {"x"}
    assert certify.verify(net, cert).ok


def test_the_pair_certificate_holds_state_by_state(pair):
    """Every subset's inequality, the monotonicity along x and W re-checked state by state on R'."""
    net, cert = pair
    independent.check_sink_drain(net, copy.deepcopy(cert))


def test_a_subset_function_that_decreases_along_its_direction_is_refused(pair):
    """{s}'s g given a negative weight on x (where t takes work from R') is refused, naming the station."""
    net, cert = pair
    bad = copy.deepcopy(cert)
    bad["subsets"][0]["weights"]["x"] = "-1/1000"
    res = certify.verify(net, reseal(bad))
    assert not res.ok and any("decreases along station x" in f for f in res.failures), res.failures


def test_an_unlisted_subset_whose_largest_inflow_reaches_its_capacity_is_refused(pair):
    """Dropping {s}'s own g leaves its largest inflow (2) against mu_s < 2: refused."""
    net, cert = pair
    bad = copy.deepcopy(cert)
    bad.pop("subsets")
    res = certify.verify(net, reseal(bad))
    assert not res.ok and any("largest u_H" in f for f in res.failures), res.failures


@pytest.mark.parametrize("which", ["gadget", "pair"])
def test_the_proofs_lyapunov_function_decreases_far_from_the_origin(gadget, pair, which):
    """V = |s|^2/2 + Lambda(s, y) + kappa y'Py (kappa = 20) has AV < 0 at sampled far states of the whole network."""
    net, cert = gadget if which == "gadget" else pair
    V = independent.drain_lyapunov(net, cert, F(20))
    rng = np.random.default_rng(3)
    for x in independent.far_states(rng, net, 10**5, 150):
        vx = V(x)
        av = sum((r * (V(y) - vx) for y, r in independent.generator(net, x)), F(0))
        assert av < 0, f"AV at {x} is {av}"


def test_certified_rates_bound_the_exact_stationary_inflow_on_random_networks():
    """On seeded random feedback networks (J <= 5), every drain certificate's c is at least E[u] under R''s exact
    stationary law (a CTMC truncated at 25 per station)."""
    checked = 0
    for seed in range(200):
        doc = random_feedback_doc(seed)
        if len(doc["stations"]) > 5:
            continue
        net = from_dict(doc)
        for cand in drain_candidates(net):
            red = cand.reduction
            if red.network.J > 4 or not isinstance(cand.sink, str):
                continue
            ids = list(red.network.station_ids)
            cert = drain_certificate(net, cand.sink, ids, 2)
            if cert is None:
                continue
            thr = stationary(red.network, truncate=25).throughput
            mu = {s.id: s.mu for s in net.stations}
            exact = float(sum((r for _, r in red.inflow), F(0)) + sum((r for _, _, r in red.internal), F(0)))
            exact += sum(float(r / mu[i]) * thr[ids.index(i)] for i, _, r in red.feeds)  # mu_i p P(busy) = p thr_i
            assert float(F(cert["rate"])) >= exact - 1e-9, (seed, cand.sink, cert["rate"], exact)
            checked += 1
    assert checked >= 5


def test_candidates_are_forced_sinks_then_linked_pairs_then_wider_unions():
    """The pair's network offers s (forced inflow from the gadgets), then the pair {s, t}, then {s, t, x} (the union
    of the streams {s, t} and {t, x})."""
    net = from_dict(pair_with_side_doc(0.95))
    assert [c.sink for c in drain_candidates(net)] == ["s", ("s", "t"), ("s", "t", "x")]


def test_the_exact_check_stops_at_a_past_deadline():
    """check_sink_drain given a deadline in the past raises TimeLimitReached, never a verdict."""
    from certify.markov.regions import TimeLimitReached

    net = at_load(1, 0.95)
    red = reduced_network(net, "s")
    chain = compile_chain(red.network)
    lyap = solve_reduced_lyapunov(chain, compile_drifts(chain))
    assert lyap is not None
    with pytest.raises(TimeLimitReached):
        check_sink_drain(net, "s", lyap[0], [F(0)] * chain.J, F(1, 2), deadline=time.perf_counter() - 1)


def test_the_random_J6_network_below_its_jsq_boundary_is_proved_stable():
    """bench/frontier.py's J = 6 seed 15 at load 0.91 (its JSQ boundary is near 0.922): the stage proves it stable."""
    net = certify.load(DATA / "random-J6-s15-r0.91.json")
    out, _ = _stage(net)
    assert out.decision is not None and out.decision.verdict == "stable"
    cert = out.decision.certificate.to_json()
    assert cert["sink"] == "2"
    assert certify.verify(net, cert).ok
    independent.check_sink_drain(net, copy.deepcopy(cert), count=100)


def test_prove_tries_the_drain_before_the_quadratic_fluid_lp():
    """On the J = 6 seed 15 network at 0.91 the drain is tried after the linear fluid search, before the quadratic one."""
    res = certify.prove(certify.load(DATA / "random-J6-s15-r0.91.json"), time_limit=120, simulate=False)
    stages = [a.stage for a in res.attempts]
    assert res.method == "sink-drain certificate"
    assert stages.index("fluid linear Lyapunov") < stages.index("sink drain at 2")
    assert "fluid quadratic Lyapunov" not in stages


def test_the_early_instance_runs_from_ten_stations_where_the_max_flow_bound_fails():
    """From J = 10 the early drain applies where the max-flow bound fails, the other one does not; below, the reverse."""

    def ctx(name):
        net = certify.load(DATA / name)
        return ProofContext(net, Result(net.name), RunState(time.perf_counter() + 60), None, True, ["table"])

    big = ctx("random-J10-s3-r0.5.json")
    assert not big.flow_proves()
    assert SinkDrain(early=True).applies(big) and not SinkDrain().applies(big)
    small = ctx("random-J6-s15-r0.91.json")
    assert SinkDrain().applies(small) and not SinkDrain(early=True).applies(small)


def test_the_early_instance_leaves_what_the_max_flow_bound_proves_to_it():
    """On a J = 10 network whose fluid model the max-flow bound proves stable the early drain does not apply."""

    net = certify.load(DATA / "random-J10-s1-r0.5.json")
    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 60), None, True, ["table"])
    assert ctx.flow_proves() and not SinkDrain(early=True).applies(ctx)


@pytest.mark.slow
def test_a_ten_station_network_is_drained():
    """J = 10 seed 3 at load 0.5 (sink 6, fed by forced feedback) is proved stable by the drain; the file verifies."""
    net = certify.load(DATA / "random-J10-s3-r0.5.json")
    res = certify.prove(net, time_limit=300, simulate=False)
    assert (res.verdict, res.method) == ("stable", "sink-drain certificate")
    assert certify.verify(net, res.certificate).ok


def test_the_cli_prints_the_drain_and_writes_a_file_that_verifies(tmp_path, capsys):
    """``certify prove`` on the J = 6 seed 15 network at 0.91 says stable by sink drain; ``verify`` accepts the file."""
    from certify.cli import main

    path, out = str(DATA / "random-J6-s15-r0.91.json"), str(tmp_path / "c.json")
    assert main(["prove", path, "--sim-budget", "0", "--time-limit", "120", "--out", out]) == 0
    assert "verdict: stable (markovian; sink-drain certificate)" in capsys.readouterr().out
    assert main(["verify", path, out]) == 0


@pytest.mark.slow
def test_prove_reports_the_drain(tmp_path):
    """``certify prove`` on the J = 8 seed 8 network at 0.925 ends with the pair {5, 8} drained, and writes the file."""
    net = certify.load(DATA / "random-J8-s8-r0.925.json")
    res = certify.prove(net, time_limit=120, simulate=False, out=tmp_path / "c.json")
    assert (res.verdict, res.method) == ("stable", "sink-drain certificate")
    assert res.certificate["sink"] == ["5", "8"]
    assert certify.verify(net, json.loads((tmp_path / "c.json").read_text())).ok


def test_explain_names_the_sinks_and_every_subset(pair):
    """The readable proof names the pair, each subset with its rate and capacity, and W."""
    net, cert = pair
    text = explain(net, cert).render("markdown")
    assert "drains the stations {s, t}" in text
    for H in ("{s}", "{t}", "{s, t}"):
        assert f"| {H} |" in text
    assert "W = y'Py" in text


def test_a_rate_lp_stopped_by_its_deadline_is_no_answer():
    """The drain and the sink rate LPs given a deadline in the past raise TimeLimitReached, never "no rate found"."""
    from certify.markov.regions import TimeLimitReached
    from certify.search.sink import solve_sink_rate

    net = at_load(1, 0.95)
    red = reduced_network(net, "s")
    chain = compile_chain(red.network)
    drifts = compile_drifts(chain)
    late = time.perf_counter() - 1
    with pytest.raises(TimeLimitReached):
        solve_drain_rate(chain, red, drifts, [], 0, ("s",), F(1), deadline=late)
    with pytest.raises(TimeLimitReached):
        solve_sink_rate(chain, red, drifts, [], 0, deadline=late)


def test_the_growth_stage_gives_its_drain_lp_part_of_the_drain_stage_time(monkeypatch):
    """The drain LP the growth stage solves after a failed table may run past the growth stage's share (the drain
    stage keeps its answer), but not past the run's deadline."""
    import certify.proof.sink as proof_sink
    from certify.proof.context import Timer

    net = at_load(1, 0.95)
    red = reduced_network(net, "s")
    chain = compile_chain(red.network)
    now = time.perf_counter()
    ctx = ProofContext(net, Result("n"), RunState(now + 100), None, True, ["quadratic"])
    proof_sink.reduced_drifts(ctx, red.sinks, chain, [], 0, now + 100)
    seen: list[float] = []
    monkeypatch.setattr(proof_sink, "drain_bound", lambda *a: seen.append(a[-1]))
    stop = now + 10
    assert not proof_sink.SinkGrowth._below(ctx, Timer(Result("n"), "t"), red, chain, [], 0, stop)
    assert stop + 40 < seen[0] <= ctx.run.deadline


def test_a_candidate_refused_by_a_hair_is_checked_again_halfway_to_the_capacity(monkeypatch):
    """A drain rate claimed just below what its own g gives is refused, then passes halfway to the capacity."""
    from certify.exact import drain as exact_drain
    from certify.proof import drain as proof_drain
    from certify.proof import sink_rows

    def lowered(*a, **kw):
        got = solve_drain_rate(*a, **kw)
        return None if got is None else (got[0], got[1], got[2] - F(1, 1000))

    checks = []

    def spy(*a, **kw):
        checks.append(exact_drain.check_sink_drain(*a, **kw))
        return checks[-1]

    monkeypatch.setattr(sink_rows, "solve_drain_rate", lowered)
    monkeypatch.setattr(proof_drain, "check_sink_drain", spy)
    net = at_load(1, 0.95)
    out, _ = _stage(net)
    assert [c.ok for c in checks] == [False, True]
    cert = out.decision.certificate.to_json()
    assert F(cert["rate"]) < F(cert["claims"]["capacity"])
    independent.check_sink_drain(net, copy.deepcopy(cert))
