"""Sink tables with one clip level per station (``table.K`` a list): cells, certificates, refusals, the choice of levels."""

from __future__ import annotations

import copy
import json
import time
from itertools import product
from math import prod
from pathlib import Path

import pytest

import certify
from certify.exact.growth import growth_levels
from certify.exact.sink import reduced_network
from certify.explain import explain
from certify.io.loader import from_dict
from certify.markov.chain import compile_chain
from certify.markov.drift import cell_of, compile_drifts
from certify.markov.regions import iter_regions
from certify.proof import sink as sink_stage
from certify.proof.context import ProofContext, RunState
from certify.proof.drain import SinkDrain
from certify.proof.result import Result
from certify.proof.sink import SinkGrowth
from certify.search.drain import drain_candidates
from certify.search.sink import MIXED_CELLS, mixed_levels
from certify.templates.table import table_cells
from tests import independent
from tests.independent import reseal
from tests.test_drain import drain_certificate
from tests.test_separable import at_load
from tests.test_sink_set import random_feedback_doc

DATA = Path(__file__).parent / "data" / "networks"
MIXED = (3, 2)


@pytest.fixture(scope="module")
def drained():
    """One gadget into its sink at 0.95 of the exact boundary, drained with a table at K = 3 on a0 and 2 on b0."""
    net = at_load(1, 0.95)
    return net, drain_certificate(net, "s", ["a0", "b0"], MIXED)


def test_the_cells_are_the_product_of_each_stations_levels():
    """The table's cells are every vector with entry a in 0..K_a, and each refined region lies in one of them."""
    net = at_load(1, 0.95)
    red = reduced_network(net, "s")
    chain = compile_chain(red.network)
    fast = [chain.ids.index("a0"), chain.ids.index("b0")]
    cells = table_cells(chain, fast, MIXED)
    assert sorted(cells) == sorted(product(range(4), range(3)))
    drifts = compile_drifts(chain, list(iter_regions(chain, growth_levels(chain, fast, MIXED))))
    seen = {cell_of(rd, fast, MIXED) for rd in drifts}
    assert seen == set(cells)
    for rd in drifts:  # the region's least state has the cell's clipped levels
        low = rd.region.point()
        assert cell_of(rd, fast, MIXED) == tuple(min(low[a], k) for a, k in zip(fast, MIXED))


def test_a_drain_certificate_with_one_level_per_station_verifies(drained):
    """The drain certificate writes table.K as a list, and verify accepts it."""
    net, cert = drained
    assert cert is not None and cert["table"]["K"] == list(MIXED)
    assert certify.verify(net, cert).ok


def test_the_drain_certificate_holds_state_by_state(drained):
    """Every hypothesis of the drain theorem re-checked state by state, the table clipped station by station."""
    net, cert = drained
    independent.check_sink_drain(net, copy.deepcopy(cert))


def test_a_growth_certificate_with_one_level_per_station_holds_state_by_state(monkeypatch):
    """The sink-growth stage with only a per-station table to try proves the overloaded gadget; both checks agree."""
    net = at_load(1, 1.2)
    monkeypatch.setattr(sink_stage, "table_tries", lambda chain, red: [([chain.ids.index("a0"), chain.ids.index("b0")],
                                                                         MIXED)])
    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 60), None, True, ["table"])
    out = SinkGrowth(certify.prove).run(ctx)
    assert out.decision is not None and out.decision.verdict == "unstable"
    cert = out.decision.certificate.to_json()
    assert cert["table"]["K"] == list(MIXED)
    assert certify.verify(net, cert).ok
    independent.check_sink_growth(net, copy.deepcopy(cert))


@pytest.mark.parametrize("K, rule", [
    ([3], "one per fast station"),
    ([3, 0], "one per fast station"),
    ([3, "2"], "one per fast station"),
    ([3, True], "one per fast station"),
])
def test_levels_that_do_not_fit_the_fast_stations_are_named(drained, K, rule):
    """A level list of the wrong length, or with a level that is not an integer in 1..100, is refused naming table.K."""
    net, cert = drained
    doc = json.loads(json.dumps(cert))
    doc["table"]["K"] = K
    res = certify.verify(net, reseal(doc))
    assert not res.ok and any("table.K:" in f and rule in f for f in res.failures), res.failures


def test_swapped_levels_are_refused(drained):
    """Swapping the two levels changes the cells: the values no longer name them, and the file is refused."""
    net, cert = drained
    doc = json.loads(json.dumps(cert))
    doc["table"]["K"] = list(reversed(MIXED))
    res = certify.verify(net, reseal(doc))
    assert not res.ok and any("table.values" in f for f in res.failures), res.failures


def test_explain_prints_each_stations_level(drained):
    """The readable proof names the table's levels station by station."""
    net, cert = drained
    assert "K = (3, 2)" in explain(net, cert).render("markdown")


def test_mixed_levels_raise_the_feeders_first_within_the_budget():
    """On the drain candidates of forty random feedback networks: levels are K and K + 1, the feeders are raised
    before any other station, the cells stay within the budget and one more raised station would exceed it."""
    cands = [c for seed in range(1, 41) for c in drain_candidates(from_dict(random_feedback_doc(seed)))]
    assert len(cands) >= 5
    for cand in cands:
        chain = compile_chain(cand.reduction.network)
        got = mixed_levels(chain, cand.reduction, 2)
        if got is None:
            assert 3 ** chain.J > MIXED_CELLS
            continue
        fast, levels = got
        assert fast == list(range(chain.J)) and set(levels) <= {2, 3}
        cells = prod(k + 1 for k in levels)
        assert cells <= MIXED_CELLS
        if 2 in levels:
            assert cells // 3 * 4 > MIXED_CELLS  # raising one more would exceed the budget
        feeders = [chain.ids.index(i) for i in cand.reduction.forced]
        raised = [a for a in range(chain.J) if levels[a] == 3]
        if len(raised) < len(feeders):
            assert set(raised) <= set(feeders)
        else:
            assert set(feeders) <= set(raised)


@pytest.mark.slow
def test_random_J8_seed15_just_below_its_boundary_is_drained_with_one_level_per_station():
    """J = 8 seed 15 at 0.8828 (simulation puts its boundary near 0.8868) is proved stable by the drain stage with a
    per-station table over the six stations of R' (the uniform K = 3 table's LP takes minutes); both checks agree."""
    net = certify.load(DATA / "random-J8-s15-r0.8828.json")
    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 120), None, True, ["table"])
    out = SinkDrain().run(ctx)
    assert out.decision is not None and out.decision.verdict == "stable"
    cert = out.decision.certificate.to_json()
    assert isinstance(cert["table"]["K"], list) and len(cert["table"]["fast"]) == 6
    assert certify.verify(net, cert).ok
    independent.check_sink_drain(net, copy.deepcopy(cert), count=100)


@pytest.mark.slow
def test_random_J8_seed15_just_above_its_boundary_is_proved_unstable_with_one_level_per_station():
    """J = 8 seed 15 at 0.8887 is proved unstable by the sink-growth stage with a per-station table; both checks agree."""
    net = certify.load(DATA / "random-J8-s15-r0.8887.json")
    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 120), None, True, ["table"])
    out = SinkGrowth(certify.prove).run(ctx)
    assert out.decision is not None and out.decision.verdict == "unstable"
    cert = out.decision.certificate.to_json()
    assert isinstance(cert["table"]["K"], list)
    assert certify.verify(net, cert).ok
    independent.check_sink_growth(net, copy.deepcopy(cert), count=100)


def test_growth_stops_at_the_first_table_whose_drain_lp_is_below_the_capacity(monkeypatch):
    """Below the boundary the growth stage leaves the larger tables untried once the drain LP on a table bounds the
    inflow below the capacity, and keeps that LP's answer for the drain stage."""
    net = at_load(1, 0.95)
    tried = []

    def tries(chain, red):
        small = ([chain.ids.index("a0"), chain.ids.index("b0")], 2)
        large = ([chain.ids.index("a0"), chain.ids.index("b0")], MIXED)
        return [small, large]

    monkeypatch.setattr(sink_stage, "table_tries", tries)
    real = sink_stage.reduced_drifts
    monkeypatch.setattr(sink_stage, "reduced_drifts", lambda ctx, s, ch, fast, K, stop: tried.append(K) or real(
        ctx, s, ch, fast, K, stop))
    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 60), None, True, ["table"])
    assert SinkGrowth(certify.prove).run(ctx).decision is None
    assert tried and all(K == 2 for K in tried)  # the small table only (its rows are read again, from the run's cache)
    assert "no larger table was tried" in ctx.res.attempts[-1].outcome
    (rows,) = ctx.reduced.values()
    mu_s = next(s.mu for s in net.stations if s.id == "s")
    assert rows.drain_solved and rows.drain is not None and rows.drain[2] < mu_s


@pytest.mark.parametrize("G, listed", [(1, True), (6, False)])
def test_tables_over_gadgets_whose_regions_multiply_beyond_the_bound_are_not_listed(G, listed):
    """R' of G gadgets splits into G groups: a table is listed only while the product of their regions times its
    cells stays within SINK_REGIONS (one gadget: 2 stations; six: 46,656 regions before any table)."""
    red = reduced_network(at_load(G, 0.97), "s")
    chain = compile_chain(red.network)
    fast = [chain.ids.index("a0"), chain.ids.index("b0")]
    assert sink_stage.listable(chain, fast, 2) is listed


def test_no_per_station_table_where_the_reduced_network_splits_into_groups():
    """Three gadgets: the sink stages keep to the uniform tables (the separable certificates decide such networks),
    while a random network whose R' is one group gets the per-station table last."""
    red = reduced_network(at_load(3, 0.97), "s")
    assert all(isinstance(K, int) for _, K in sink_stage.table_tries(compile_chain(red.network), red))
    net = certify.load(DATA / "random-J8-s15-r0.8828.json")
    (cand, *_) = drain_candidates(net)
    tries = sink_stage.table_tries(compile_chain(cand.reduction.network), cand.reduction)
    assert isinstance(tries[-1][1], tuple) and len(tries[-1][0]) == 6
