"""The Poisson box comes before the small tables on six-station reductions, inside nested runs too.

``certify.proof.sink.POISSON_FIRST_J``: J = 8 seed 33 at load 0.87, where station 6 grows (by simulation at 0.9:
mean queue 1,265 after 40,000 time units while station 1 is busy 99% of the time) and R' without 6 is positive
recurrent only through its own sink 1, whose drain needs a box over the six other stations.
"""

from __future__ import annotations

import copy
from fractions import Fraction as F

import pytest

import certify
import certify.proof.sink as sink_stage
from certify.exact.sink import reduced_network
from certify.markov.chain import Chain
from certify.proof.sink import nested_run, with_box
from tests import independent
from tests.real_certificates import sink_growth_decision

pytestmark = pytest.mark.xdist_group("nested-box")  # one worker builds the module's fixture once


def _chain(J: int) -> Chain:
    """A chain of J unit-rate stations with one stream (only its size matters here)."""
    return Chain(tuple(str(k) for k in range(1, J + 1)), (F(1),) * J, (((0, 1), F(1)),), (), (F(1),) * J)


def _nested(fn):
    """fn() evaluated as inside a sink-growth stage's nested run."""
    token = sink_stage._NESTED.set(True)
    try:
        assert nested_run()
        return fn()
    finally:
        sink_stage._NESTED.reset(token)


def test_six_stations_try_the_box_first_in_and_outside_nested_runs():
    """Six stations of R': the box before the first table, in a nested run and outside one."""
    tries = [([0, 1], 2), ([0, 1, 2, 3], 2)]
    six = _chain(6)
    assert with_box(six, tries, True) == [None, *tries]
    assert _nested(lambda: with_box(six, tries, True)) == [None, *tries]


def test_five_stations_keep_the_small_tables_first_in_and_outside_nested_runs():
    """Five stations of R': the small tables stay ahead of the box, in a nested run and outside one."""
    tries = [([0, 1], 2)]
    assert with_box(_chain(5), tries, True) == [*tries, None]
    assert _nested(lambda: with_box(_chain(5), tries, True)) == [*tries, None]


@pytest.fixture(scope="module")
def grown():
    """J = 8 seed 33 at 0.87 and the sink-growth stage's decision."""
    return sink_growth_decision("random-J8-s33-r0.87.json")


def test_the_sink_grows_over_a_reduced_network_drained_by_a_box(grown):
    """Station 6 is proved unstable; R' without 6 is certified by a drain of its sink 1 over a box of the six others."""
    _, decision = grown
    cert = decision.certificate.to_json()
    assert decision.verdict == "unstable" and cert["kind"] == "sink-growth" and cert["sink"] == "6"
    nested = cert["reduced_certificate"]
    assert nested["kind"] == "sink-drain" and nested["sink"] == "1"
    assert nested["table"]["fast"] == ["2", "3", "4", "5", "7", "8"] and len(nested["table"]["K"]) == 6


def test_the_certificate_and_its_nested_box_verify(grown):
    """verify accepts the whole certificate, and the nested one alone against R'."""
    net, decision = grown
    cert = decision.certificate.to_json()
    assert certify.verify(net, cert).ok
    assert certify.verify(reduced_network(net, "6").network, cert["reduced_certificate"]).ok


def test_the_growth_and_the_nested_box_hold_state_by_state(grown):
    """f + A'g >= c on R' and the box drain's inequalities on R'' hold at sampled states, evaluated independently."""
    net, decision = grown
    cert = decision.certificate.to_json()
    independent.check_sink_growth(net, copy.deepcopy(cert), count=100)
    independent.check_sink_drain(reduced_network(net, "6").network, copy.deepcopy(cert["reduced_certificate"]),
                                  count=100)
