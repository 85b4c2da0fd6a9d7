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
from certify.proof.sink import SINK_FINEST_J, SINK_STEP_J, table_tries
from certify.search.sink import MAX_SINK_FAST
from tests import independent
from tests.test_sink_set import random_feedback_doc

DATA = Path(__file__).parent / "data" / "networks"


def _tries(net, sink):
    """The tables tried on R' without ``sink``, as station-name sets with their clip levels."""
    red = reduced_network(net, sink)
    chain = compile_chain(red.network)
    return chain.J, [({chain.ids[a] for a in fast}, K) for fast, K in table_tries(chain, red)]


def test_a_seven_station_reduction_tries_six_stations_before_all_seven():
    """J = 8 seed 16 without its sink 8: after the five-station table, the six stations {1, ..., 6}, then all seven."""
    J, tries = _tries(certify.load(DATA / "random-J8-s16-r0.59.json"), "8")
    assert J == SINK_STEP_J == 7
    sizes = [len(F) for F, _ in tries]
    assert sizes == [2, 4, 5, 6, 7]
    assert tries[3] == ({"1", "2", "3", "4", "5", "6"}, 2)
    assert tries[2][0] < tries[3][0] < tries[4][0]


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
    """J = 8 seed 16 at load 0.59 and the drain stage's certificate for it (120 s)."""
    net = certify.load(DATA / "random-J8-s16-r0.59.json")
    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 120), None, True, ["table"])
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
def test_clip_level_four_drains_the_five_station_reduction():
    """J = 6 seed 39 at 0.8432 (K = 3 bounds u by more than mu_5 = 1 there): the drain stage proves it with the K = 4
    table, verify accepts, and tests/independent.py re-checks it state by state."""
    net = certify.load(DATA / "random-J6-s39-r0.8432.json")
    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 120), None, True, ["table"])
    out = SinkDrain().run(ctx)
    assert out.decision is not None
    cert = out.decision.certificate.to_json()
    assert cert["sink"] == "5" and cert["table"]["K"] == 4
    assert certify.verify(net, cert).ok
    independent.check_sink_drain(net, cert, count=100)
