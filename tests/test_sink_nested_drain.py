"""A sink-growth certificate whose reduced network R' is proved positive recurrent by its own sink drain.

The sink-drain stage runs inside the sink-growth stage's nested run (``certify.proof.drain.NESTED_DRAIN_SHARE``):
J = 8 seed 58 at load 0.95, where station 8 grows (by simulation: mean queue 1,400-1,700 after 40,000 time units)
and R' without 8 is stable only because the rest of it drains the set {2, 4, 5}.
"""

from __future__ import annotations

import copy

import pytest

import certify
from certify.exact.sink import reduced_network
from tests import independent
from tests.real_certificates import sink_growth_decision

pytestmark = pytest.mark.xdist_group("nested-drain")  # one worker builds the module's fixture once


@pytest.fixture(scope="module")
def grown():
    """J = 8 seed 58 at 0.95 and the sink-growth stage's certificate."""
    return sink_growth_decision("random-J8-s58-r0.95.json")


def test_the_sink_grows_over_a_reduced_network_that_drains_its_own_set(grown):
    """The stage proves station 8 unstable, with R' certified by a sink drain of {2, 4, 5}."""
    _, decision = grown
    cert = decision.certificate.to_json()
    assert decision.verdict == "unstable" and cert["kind"] == "sink-growth" and cert["sink"] == "8"
    nested = cert["reduced_certificate"]
    assert nested["kind"] == "sink-drain" and sorted(nested["sink"]) == ["2", "4", "5"]


def test_the_certificate_and_its_nested_drain_verify(grown):
    """verify accepts the whole certificate, and the nested one alone against R'."""
    net, decision = grown
    cert = decision.certificate.to_json()
    assert certify.verify(net, cert).ok
    assert certify.verify(reduced_network(net, "8").network, cert["reduced_certificate"]).ok


def test_the_growth_and_the_nested_drain_hold_state_by_state(grown):
    """f + A'g >= c on R' and the drain's inequalities on R'' hold at sampled states, evaluated independently."""
    net, decision = grown
    cert = decision.certificate.to_json()
    independent.check_sink_growth(net, copy.deepcopy(cert), count=100)
    independent.check_sink_drain(reduced_network(net, "8").network, copy.deepcopy(cert["reduced_certificate"]), count=100)


def test_a_tampered_nested_drain_is_refused(grown):
    """A nested drain whose rate is lowered below what its tables support fails the exact check, and so does the whole."""
    net, decision = grown
    cert = decision.certificate.to_json()
    bad = copy.deepcopy(cert)
    bad["reduced_certificate"]["rate"] = "1/2"
    assert not certify.verify(net, bad).ok
