"""Sets of three or four sinks (certify.search.sink_sets): unions of routing sets tried by both sink stages.

Truth from outside the searches: the definition of a union of routing sets scanned over every set of stations,
tests/independent.py's state-by-state re-check of each certificate on R' rebuilt from the network's fields, and
R''s exact stationary law (a truncated CTMC), whose inflow into G the certified rates must bracket.
"""

from __future__ import annotations

import itertools
import time
from fractions import Fraction as F
from pathlib import Path

import networkx as nx
import pytest

import certify
from certify.core.model import Network, Station, Stream
from certify.explain import explain
from certify.io.loader import from_dict
from certify.proof.context import ProofContext, RunState
from certify.proof.drain import SinkDrain
from certify.proof.result import Result
from certify.proof.sink import SinkGrowth
from certify.search.drain import drain_candidates
from certify.search.sink import set_candidates
from certify.search.sink_sets import MAX_UNION_J, densest_set, routing_unions
from certify.stationary import stationary
from tests import independent
from tests.test_sink_set import random_feedback_doc

DATA = Path(__file__).parent / "data" / "networks"
FACE = ["1", "4", "5", "8"]


def _run(stage, net):
    """One sink stage alone on ``net`` (120 s): its outcome."""
    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 120), None, True, ["table"])
    return stage.run(ctx)


def _certified(stage, name: str):
    """The network tests/data/networks/``name`` and the certificate the sink stage ``stage`` alone proves for it."""
    net = certify.load(DATA / name)
    out = _run(stage, net)
    assert out.decision is not None
    return net, out.decision.certificate.to_json()


@pytest.fixture(scope="module")
def below():
    """bench/frontier.py's J = 8 seed 11 at load 0.905 and the drain stage's certificate for it."""
    return _certified(SinkDrain(), "random-J8-s11-r0.905.json")


@pytest.fixture(scope="module")
def above():
    """The same network at load 0.915 and the growth stage's certificate for it."""
    return _certified(SinkGrowth(certify.prove), "random-J8-s11-r0.915.json")


def _inflow(net, sinks, truncate: int = 12):
    """E[u_G] under R''s exact stationary law (truncated at 12 per station: within 1e-4 of truncation at 15, where
    the certified rates lie 0.01 from it): the streams into sets inside G, p times each feeder's throughput for the
    feedback forced into them, the internal feedback and mu(G)."""
    red, inflow, feeds, internal, mu = independent.reduced_set(net, sinks)
    thr = stationary(red, truncate=truncate).throughput
    ids = list(red.station_ids)
    rate = float(sum((r for _, r in inflow), F(0)))
    rate += sum(float(r / net.stations[net.station_ids.index(i)].mu) * thr[ids.index(i)] for i, _, r in feeds)
    return rate, float(sum((r for *_, r in internal), F(0))), float(sum(mu.values(), F(0)))


def test_unions_are_the_sets_covered_and_connected_by_the_routing_sets_inside_them():
    """On seeded random feedback networks, routing_unions lists exactly the 3- and 4-sets G every station of which
    lies in a routing set inside G and whose routing sets inside G connect it (scanning every set of stations,
    connectivity by networkx)."""
    listed = 0
    for seed in range(40):
        net = from_dict(random_feedback_doc(seed))
        sets = [frozenset(C) for st in net.streams for C, r in st.routing_sets() if r > 0]
        sets += [frozenset(f.choice) for f in net.feedback if f.prob > 0]
        want = []
        for n in (3, 4):
            for G in itertools.combinations(net.station_ids, n):
                inside = [C for C in sets if C <= set(G)]
                graph = nx.Graph()
                graph.add_nodes_from(G)
                graph.add_edges_from(e for C in inside for e in itertools.combinations(sorted(C), 2))
                if set().union(*inside) == set(G) and nx.is_connected(graph):
                    want.append(G)
        assert routing_unions(net) == want, seed
        listed += len(want)
    assert listed >= 20  # the comparison saw unions, not only empty lists


def test_no_unions_are_listed_on_large_networks():
    """Beyond MAX_UNION_J stations the list is empty (the stages try single sinks and pairs only)."""
    J = MAX_UNION_J + 1
    net = Network("big", tuple(Station(str(k), F(1)) for k in range(J)),
                  tuple(Stream(F(1, 4), choice=(str(k), str((k + 1) % J))) for k in range(J)))
    assert routing_unions(net) == []
    small = Network("small", net.stations[:4], tuple(Stream(F(1, 4), choice=(str(k), str(k + 1))) for k in range(3)))
    assert routing_unions(small) == [("0", "1", "2"), ("1", "2", "3"), ("0", "1", "2", "3")]


def test_a_set_that_no_routing_set_inside_joins_is_not_listed():
    """Four exponential gadgets into s: {s, a0, b0} is the union of {s} and {a0, b0}, but nothing inside it joins s to
    the gadget, so neither stage offers it (its drain LPs took 20 s of a probe the separable kinds decide)."""
    from tests.test_separable import at_load

    net = at_load(4, 0.97)
    assert all(len(c.sink) <= 2 for c in drain_candidates(net) if not isinstance(c.sink, str))
    assert set_candidates(net, wide=True) == []


def test_the_face_of_the_J8_network_is_a_candidate_of_both_stages():
    """J = 8 seed 11: the face {1, 4, 5, 8} is the most pressed wide set of the growth and the drain stages."""
    net = certify.load(DATA / "random-J8-s11-r0.905.json")
    assert [c.sink for c in set_candidates(net, wide=True)][0] == tuple(FACE)
    assert tuple(FACE) in [c.sink for c in drain_candidates(net)]


def test_below_its_boundary_the_face_is_drained(below):
    """At 0.905 the drain stage proves the network stable with G = {1, 4, 5, 8}, and verify agrees."""
    net, cert = below
    assert cert["kind"] == "sink-drain" and cert["sink"] == FACE
    assert certify.verify(net, cert).ok


def test_above_its_boundary_the_face_grows(above):
    """At 0.915 the growth stage proves the face {1, 4, 5, 8} overloaded, and verify agrees."""
    net, cert = above
    assert cert["kind"] == "sink-growth" and cert["sink"] == FACE
    assert certify.verify(net, cert).ok


def test_the_drain_certificate_holds_state_by_state(below):
    """Every hypothesis of the drain certificate, for G and each subset it lists, re-checked by tests/independent.py."""
    independent.check_sink_drain(*below)


def test_the_growth_certificate_holds_state_by_state(above):
    """Every hypothesis of the growth certificate, for G and each subset it lists, re-checked by tests/independent.py."""
    independent.check_sink_growth(*above)


def test_the_certified_rates_bracket_the_exact_inflow(below, above):
    """The drain's c_G is at least, and the growth's c_G at most, E[u_G] under R''s exact stationary law."""
    for (net, cert), side in ((below, "drain"), (above, "growth")):
        rate, internal, mu = _inflow(net, FACE)
        if side == "drain":
            assert float(F(cert["rate"])) >= rate + internal - 1e-9
            assert rate + internal < mu  # the truth is on the proved side too
        else:
            assert float(F(cert["rate"])) <= rate + 1e-9
            assert rate > mu - internal


@pytest.mark.parametrize("side", ["below", "above"])
def test_explain_lists_all_fifteen_subsets_of_the_face(below, above, side):
    """The readable proof of either side has a row for each of the 15 non-empty subsets of {1, 4, 5, 8}."""
    net, cert = below if side == "below" else above
    text = explain(net, cert).render("markdown")
    for n in range(1, 5):
        for H in itertools.combinations(FACE, n):
            assert f"| {{{', '.join(H)}}} |" in text, H


# ---------------------------------------------------------------- the densest set (stop 47)

DENSE = ["1", "2", "3", "5", "6", "7"]


@pytest.fixture(scope="module")
def dense_below():
    """bench/frontier.py's J = 8 seed 65 at load 0.985 (its linear fluid certificates stop at 0.97) and the drain
    stage's certificate."""
    return _certified(SinkDrain(), "random-J8-s65-r0.985.json")


@pytest.fixture(scope="module")
def dense_above():
    """The same network at load 0.995 (below the static split's 1) and the growth stage's certificate."""
    return _certified(SinkGrowth(certify.prove), "random-J8-s65-r0.995.json")


def _densest_by_enumeration(net) -> tuple[str, ...]:
    """The smallest, then first in combinations order, of the station sets with the largest ratio of the rates of the
    routing sets inside them (streams, feedback at mu_i p) to their capacity, by enumerating every set."""
    mu = {st.id: st.mu for st in net.stations}
    sets = [(set(st.choice), st.rate) for st in net.streams]
    sets += [(set(f.choice), mu[f.source] * f.prob) for f in net.feedback]
    best, arg = F(-1), ()
    for n in range(1, len(mu) + 1):
        for A in itertools.combinations(net.station_ids, n):
            ratio = sum((r for C, r in sets if C <= set(A)), F(0)) / sum((mu[j] for j in A), F(0))
            if ratio > best:
                best, arg = ratio, A
    return arg


def test_the_densest_set_is_found_by_enumerating_every_set():
    """densest_set equals an enumeration of all 255 station sets of J = 8 seed 65: the six stations but 4 and 8."""
    net = certify.load(DATA / "random-J8-s65-r0.985.json")
    assert densest_set(net) == _densest_by_enumeration(net) == tuple(DENSE)


def test_the_densest_set_is_a_candidate_of_both_stages():
    """Both sink stages offer the six-station set, beyond the four stations of the routing unions."""
    net = certify.load(DATA / "random-J8-s65-r0.985.json")
    assert tuple(DENSE) in [c.sink for c in drain_candidates(net)]
    assert set_candidates(net, sets=[tuple(DENSE)])[0].sink == tuple(DENSE)
    assert all(len(G) <= 4 for G in routing_unions(net))


def test_the_six_station_set_is_drained_and_grows_on_either_side(dense_below, dense_above):
    """At 0.985 the drain stage proves stability with G the six stations, at 0.995 the growth stage instability;
    verify accepts both."""
    for (net, cert), kind in ((dense_below, "sink-drain"), (dense_above, "sink-growth")):
        assert cert["kind"] == kind and cert["sink"] == DENSE
        assert certify.verify(net, cert).ok


def test_the_six_station_certificates_hold_state_by_state(dense_below, dense_above):
    """Every hypothesis of both certificates, for G and each of its 62 proper subsets, re-checked by
    tests/independent.py."""
    independent.check_sink_drain(*dense_below, count=100)
    independent.check_sink_growth(*dense_above, count=100)


def test_the_six_station_rates_bracket_the_exact_inflow(dense_below, dense_above):
    """The drain's c_G is at least, and the growth's c_G at most, the exact stationary rate into G from R' = {4, 8}."""
    for (net, cert), side in ((dense_below, "drain"), (dense_above, "growth")):
        rate, internal, mu = _inflow(net, DENSE)
        if side == "drain":
            assert float(F(cert["rate"])) >= rate + internal - 1e-9
            assert rate + internal < mu
        else:
            assert float(F(cert["rate"])) <= rate + 1e-9
            assert rate > mu - internal


def _set_box(load: str):
    """J = 8 seed 65 at ``load``, its reduction by the six-station set, R''s chain and the Poisson try on it."""
    from certify.exact.sink import reduced_network
    from certify.markov.chain import compile_chain
    from certify.proof.poisson import poisson_try

    net = certify.load(DATA / f"random-J8-s65-r{load}.json")
    red = reduced_network(net, tuple(DENSE))
    chain = compile_chain(red.network)
    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 120), None, True, ["table"])
    return net, red, chain, poisson_try(ctx, red, chain, time.perf_counter() + 60)


def test_a_box_serves_a_set_whose_subsets_need_no_function_of_their_own():
    """box_subsets of the six-station set agrees with the definitions for all 62 proper subsets (tests/independent.py):
    every lambda_H above m_H (growth) and every largest u_H below mu(H) (drain), so no subset needs a function."""
    from certify.proof.poisson import box_sides, box_subsets

    net, red, *_ = _set_box("0.985")
    _, inflow, feeds, internal, mu = independent.reduced_set(net, DENSE)
    growth = drain = True
    for n in range(1, len(DENSE)):
        for H in itertools.combinations(DENSE, n):
            lam, _, m = independent._set_rate(H, inflow, feeds, internal, mu)
            growth &= lam > m
            lam_u, forced = independent.drain_rate_of(H, inflow, feeds, internal)
            drain &= lam_u + sum((r for _, r in forced), F(0)) < sum((mu[j] for j in H), F(0))
    assert box_sides(net, red) == (growth, drain) == (True, True)
    assert box_subsets(net, red) == ([], [])


def test_boxes_give_a_set_of_sinks_both_sides():
    """At 0.985 the box's drain candidate and at 0.995 its growth candidate are certificates of the six-station set
    with no subset listed: verify accepts both, they hold state by state, and their rates bracket the exact inflow."""
    from certify.certificates import nested_verdict
    from certify.certificates.kinds.sink_drain import sink_drain_certificate
    from certify.certificates.kinds.sink_growth import sink_growth_certificate
    from certify.exact.drain import check_sink_drain
    from certify.exact.sink import check_sink_growth
    from certify.markov.drift import compile_drifts
    from certify.search.drain import solve_reduced_lyapunov

    net, red, chain, (K, _, rates) = _set_box("0.985")
    P, _ = solve_reduced_lyapunov(chain, compile_drifts(chain))
    w, table, rate = rates.drain
    every = list(range(chain.J))
    chk = check_sink_drain(net, tuple(DENSE), P, w, rate, table, every, K)
    assert chk.ok, chk.failures
    below = sink_drain_certificate(net, tuple(DENSE), P, w, rate, chk, table, every, K, []).to_json()
    assert certify.verify(net, below).ok
    independent.check_sink_drain(net, below, count=100)
    got, internal, mu = _inflow(net, DENSE, truncate=100)  # R' = {4, 8}: the box's levels are 88, the truth finer
    assert float(F(below["rate"])) >= got + internal - 1e-9

    net, red, chain, (K, _, rates) = _set_box("0.995")
    sub = certify.prove(red.network, time_limit=60, simulate=False)
    w, table, rate = rates.growth
    chk = check_sink_growth(net, tuple(DENSE), w, rate, nested_verdict(red.network, sub.certificate), table, every, K)
    assert chk.ok, chk.failures
    above = sink_growth_certificate(net, tuple(DENSE), w, rate, sub.certificate, chk, table, every, K, ()).to_json()
    assert certify.verify(net, above).ok
    independent.check_sink_growth(net, above, count=100)
    got, internal, mu = _inflow(net, DENSE, truncate=100)
    assert float(F(above["rate"])) <= got + 1e-9
