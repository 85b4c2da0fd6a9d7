"""The sink stages' late instances: on networks of fewer than six stations they run after the Markovian stage.

A five-station random network (`random_feedback(5, 301)` of bench/frontier.py, stop 65's screen) whose sink 1 is
decided by R''s stationary law: the Markovian stage's tables over the whole network decide neither side near its
boundary, the late instances do (stable at 0.939, unstable at 0.942). Truth comes from outside the checker:
tests/independent.py re-checks every hypothesis of each certificate state by state on R' rebuilt from the fields.
"""

from __future__ import annotations

import copy
import time
from pathlib import Path

import pytest

import certify
from certify.proof.drain import DRAIN_MIN_J, SinkDrain
from certify.proof.markovian import Markovian
from certify.proof.pipeline import JSQ_STAGES
from certify.proof.sink import SINK_MIN_J, SinkGrowth, late_applies
from tests import independent
from tests.real_certificates import stage_context

DATA = Path(__file__).resolve().parent / "data" / "networks"


def _late_certificate(load: str, verdict: str, kind: str, stage: str):
    """``(network, certificate)``: prove on the stored network at ``load`` (60 s, no simulation), asserted to give
    ``verdict`` by a ``kind`` certificate from ``stage``, after the Markovian stage's tables, valid under verify."""
    net = certify.load(DATA / f"random-J5-s301-r{load}.json")
    res = certify.prove(net, time_limit=60, simulate=False)
    stages = [a.stage for a in res.attempts]
    assert res.verdict == verdict and res.method == f"{kind} certificate", res.reasons
    assert stages.index("table (K=4) Foster") < stages.index(stage)
    cert = res.certificate
    assert cert["sink"] == "1" and certify.verify(net, cert).ok
    return net, copy.deepcopy(cert)


def test_the_late_instances_come_after_the_markovian_stage():
    """In the pipeline both late instances follow the Markovian stage, growth first."""
    kinds = [(type(s), getattr(s, "late", False)) for s in JSQ_STAGES]
    markov = kinds.index((Markovian, False))
    assert kinds.index((SinkGrowth, True)) == markov + 1 and kinds.index((SinkDrain, True)) == markov + 2


@pytest.mark.parametrize("stations", [5, 6])
def test_a_late_instance_applies_exactly_where_its_own_instance_does_not(stations):
    """On five stations only the late instances apply; on six only the stages' own ones."""
    net = certify.load(DATA / ("random-J5-s301-r0.939.json" if stations == 5 else "random-J6-s15-r0.91.json"))
    ctx = stage_context(net)
    late = SinkGrowth(certify.prove, late=True).applies(ctx), SinkDrain(late=True).applies(ctx)
    own = SinkGrowth(certify.prove).applies(ctx), SinkDrain().applies(ctx)
    assert late == ((True, True) if stations < min(SINK_MIN_J, DRAIN_MIN_J) else (False, False))
    assert own == ((False, False) if stations < min(SINK_MIN_J, DRAIN_MIN_J) else (True, True))
    assert late_applies(stations, SINK_MIN_J) == late[0]


def test_below_its_boundary_the_late_drain_proves_the_network_stable():
    """At 0.939 the Markovian stage decides nothing and the late sink-drain stage proves sink 1 drained."""
    independent.check_sink_drain(*_late_certificate("0.939", "stable", "sink-drain", "sink drain at 1"), count=100)


def test_above_its_boundary_the_late_growth_proves_the_sink_overloaded():
    """At 0.942 the Markovian stage decides nothing and the late sink-growth stage proves sink 1 grows."""
    independent.check_sink_growth(*_late_certificate("0.942", "unstable", "sink-growth", "sink growth at 1"),
                                  count=100)


@pytest.mark.slow
def test_deep_boxes_on_four_stations_keep_the_time_limit():
    """On R' of four stations the boxes grow only as fast as their factorisations allow: a 60-s run ends by 66 s.

    J = 5 seed 324 at 0.965 (undecided): before the boxes were capped by their predecessors' times
    (certify.proof.poisson.steep_states) a box of 399,167 states took 74 s to factorise and the run 88 s.
    """
    net = certify.load(DATA / "random-J5-s324-r0.965.json")
    t0 = time.perf_counter()
    res = certify.prove(net, time_limit=60, simulate=False)
    assert time.perf_counter() - t0 < 66 and res.verdict == "undecided", res.reasons
    assert any(a.stage == "sink growth at 3" for a in res.attempts)
