"""The tables the sink stages try on R' (certify.proof.sink.table_tries): one station short of R' before all of it.

Truth from outside the stage: the station sets are re-derived from certify.search.sink.sink_fast's rule, and the
certificate the step gives is re-checked state by state by tests/independent.py on R' rebuilt from the network's
fields and bracketed by a long simulation recorded in docs/benchmarks.md.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import certify
from certify.exact.sink import reduced_network
from certify.io.loader import from_dict
from certify.markov.chain import compile_chain
from certify.proof.context import ProofContext, RunState
from certify.proof.drain import SinkDrain
from certify.proof.result import Result
from certify.proof.sink import LIGHT_BUSY, SINK_FINEST_J, SINK_STEP_J, busy_shares, table_tries
from certify.search.sink import MAX_SINK_FAST
from certify.stationary import stationary
from tests import independent
from tests.test_sink_set import random_feedback_doc

DATA = Path(__file__).parent / "data" / "networks"


def _tries(net, sink):
    """The tables tried on R' without ``sink``, as station-name sets with their clip levels."""
    red = reduced_network(net, sink)
    chain = compile_chain(red.network)
    return chain.J, [({chain.ids[a] for a in fast}, K) for fast, K in table_tries(chain, red)]


def test_a_seven_station_reduction_tries_six_stations_before_all_seven():
    """J = 8 seed 16 without its sink 8: after the five-station table, the six stations {1, ..., 6}, then all seven
    (the light table first, then every station at K = 2)."""
    J, tries = _tries(certify.load(DATA / "random-J8-s16-r0.59.json"), "8")
    assert J == SINK_STEP_J == 7
    sizes = [len(F) for F, _ in tries]
    assert sizes == [2, 4, 5, 6, 7, 7]
    assert tries[3] == ({"1", "2", "3", "4", "5", "6"}, 2)
    assert tries[2][0] < tries[3][0] < tries[4][0] == tries[5][0]
    assert 1 in tries[4][1] and set(tries[5][1]) == {2}


def test_a_table_between_five_stations_and_all_of_r_is_tried_only_on_seven_station_reductions():
    """On 60 random feedback networks, every sink's tables have at most MAX_SINK_FAST stations or all of R', except
    one station short of R' when R' has SINK_STEP_J stations (and that case occurs)."""
    seen = 0
    for seed in range(60):
        net = from_dict(random_feedback_doc(seed))
        for st in net.stations:
            J, tries = _tries(net, st.id)
            between = [F for F, _ in tries if MAX_SINK_FAST < len(F) < J]
            assert between == [] or (J == SINK_STEP_J and [len(F) for F in between] == [J - 1]), (seed, st.id)
            seen += bool(between)
    assert seen > 0


@pytest.fixture(scope="module")
def drained():
    """J = 8 seed 16 at load 0.59 and the drain stage's certificate for it (120 s), the rate-LP tables only: since
    stop 45 a Poisson box over all seven stations comes first there and proves it (certify.proof.sink.POISSON_FIRST_J),
    so the box is held back to test the tables."""
    import certify.proof.sink

    net = certify.load(DATA / "random-J8-s16-r0.59.json")
    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 120), None, True, ["table"])
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(certify.proof.sink, "POISSON_FIRST_J", 10**6)
        out = SinkDrain().run(ctx)
    assert out.decision is not None
    return net, out.decision.certificate.to_json()


@pytest.mark.slow
def test_six_stations_drain_the_sink_at_0_59(drained):
    """At 0.59 the drain stage proves J = 8 seed 16 stable with the six-station table, and verify agrees."""
    net, cert = drained
    assert cert["kind"] == "sink-drain" and cert["sink"] == "8"
    assert certify.verify(net, cert).ok
    assert cert["table"]["fast"] == ["1", "2", "3", "4", "5", "6"] and cert["table"]["K"] == 2


@pytest.mark.slow
def test_the_six_station_certificate_holds_state_by_state(drained):
    """Every hypothesis of the drain certificate re-checked state by state by tests/independent.py."""
    independent.check_sink_drain(*drained)


def test_a_five_station_reduction_tries_its_largest_table_at_three_clip_levels():
    """J = 6 seed 39 without its sink 5 (R' of five stations): the largest table at K = 2, 3 and then 4."""
    J, tries = _tries(certify.load(DATA / "random-J6-s39-r0.8432.json"), "5")
    assert J == SINK_FINEST_J == 5
    whole = {"1", "2", "3", "4", "6"}
    assert [K for F, K in tries if F == whole] == [2, 3, 4]
    assert tries[-1] == (whole, 4)


def test_only_reductions_of_at_most_five_stations_try_clip_level_four():
    """On 60 random feedback networks a table at K = 4 is tried exactly where R' has at most SINK_FINEST_J stations."""
    seen = 0
    for seed in range(60):
        net = from_dict(random_feedback_doc(seed))
        for st in net.stations:
            J, tries = _tries(net, st.id)
            if not tries:
                continue
            assert any(K == 4 for _, K in tries) == (J <= SINK_FINEST_J), (seed, st.id, J, tries)
            seen += J <= SINK_FINEST_J
    assert seen > 0


@pytest.mark.slow
def test_clip_level_four_drains_the_five_station_reduction(monkeypatch):
    """J = 6 seed 39 at 0.8432 (K = 3 bounds u by more than mu_5 = 1 there): the drain stage proves it with the K = 4
    table (the Poisson tables, tried before it otherwise, held back), verify accepts, and tests/independent.py
    re-checks it state by state."""
    from certify.proof import sink as proof_sink

    monkeypatch.setattr(proof_sink, "poisson_before", lambda *a: False)
    net = certify.load(DATA / "random-J6-s39-r0.8432.json")
    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 120), None, True, ["table"])
    out = SinkDrain().run(ctx)
    assert out.decision is not None
    cert = out.decision.certificate.to_json()
    assert cert["sink"] == "5" and cert["table"]["K"] == 4
    assert certify.verify(net, cert).ok
    independent.check_sink_drain(net, cert, count=100)


def _exact_busy(net):
    """Each station's busy share from the exact stationary law of the chain truncated at 30 per station."""
    res = stationary(net, truncate=30)
    return [t / float(st.mu) for t, st in zip(res.throughput, net.stations)]


def test_busy_shares_match_the_exact_stationary_law():
    """On a three-station JSQ network with feedback, the seeded simulation's busy shares are within 0.03 of the
    exact ones (a truncated CTMC), and the same on every call."""
    doc = {"format": "jsq-network/1", "name": "b", "stations": {"1": {"mu": 1}, "2": {"mu": 2}, "3": {"mu": "1/2"}},
           "streams": [{"choice": ["1", "2"], "rate": "6/5"}, {"choice": ["3"], "rate": "1/5"}],
           "feedback": [{"from": "1", "choice": ["2", "3"], "prob": "1/4"}]}
    net = from_dict(doc)
    got = busy_shares(net)
    assert got == busy_shares(net)
    assert all(abs(g - e) < 0.03 for g, e in zip(got, _exact_busy(net))), (got, _exact_busy(net))


def test_the_light_table_sets_level_one_exactly_below_the_busy_threshold():
    """On 60 random feedback networks, a reduction of seven stations that does not split into groups tries every
    station of R' with clip level 1 exactly where its busy share is below LIGHT_BUSY (when some are); no other does."""
    seen = 0
    for seed in range(60):
        net = from_dict(random_feedback_doc(seed))
        for st in net.stations:
            red = reduced_network(net, st.id)
            chain = compile_chain(red.network)
            mixed = [K for fast, K in table_tries(chain, red) if isinstance(K, tuple) and 1 in K]
            if chain.J != SINK_STEP_J:
                assert mixed == []
                continue
            busy = busy_shares(red.network)
            for K in mixed:
                assert [k == 1 for k in K] == [b < LIGHT_BUSY for b in busy]
                seen += 1
    assert seen > 0


@pytest.mark.slow
def test_the_light_table_drains_j8_seed_35_at_0_95():
    """J = 8 seed 35 at 0.95 (simulated u_2 about 0.995 against 1): the light table over R''s seven stations gives a
    sink-drain certificate within a 60 s run, which verifies and holds state by state."""
    net = certify.load(DATA / "random-J8-s35-r0.95.json")
    res = certify.prove(net, time_limit=60, simulate=False)
    assert res.verdict == "stable" and res.certificate is not None
    cert = res.certificate.to_json()
    assert cert["kind"] == "sink-drain" and cert["sink"] == "2"
    assert certify.verify(net, cert).ok
    independent.check_sink_drain(net, cert)


@pytest.mark.slow
def test_the_poisson_table_drains_the_five_station_reduction_too():
    """The same network with the Poisson tables in their place: proved by a table over all five stations of R'."""
    net = certify.load(DATA / "random-J6-s39-r0.8432.json")
    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 120), None, True, ["table"])
    out = SinkDrain().run(ctx)
    assert out.decision is not None
    cert = out.decision.certificate.to_json()
    assert cert["sink"] == "5" and len(cert["table"]["fast"]) == 5 and isinstance(cert["table"]["K"], list)
    assert certify.verify(net, cert).ok
    independent.check_sink_drain(net, cert, count=100)
