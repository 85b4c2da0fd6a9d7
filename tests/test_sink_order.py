"""Which LP the sink-growth stage solves first on a table (``certify.proof.sink_rows.nearer_drain``).

The order is search guidance only: the tests check that it spares the growth LP where the drain LP decides,
and that the verdicts and certificates are the ones the exact checks and a state-by-state check accept.
"""

from __future__ import annotations

import copy
import time
from pathlib import Path

import pytest

import certify
import certify.proof.sink as sink_stage
from certify.exact.sink import reduced_network
from certify.markov.chain import compile_chain
from certify.proof.context import ProofContext, RunState
from certify.proof.drain import SinkDrain
from certify.proof.pipeline import prove
from certify.proof.result import Result
from certify.proof.sink import SinkGrowth
from certify.proof.sink_rows import nearer_drain, reduced_drifts, table_key
from tests import independent

DATA = Path(__file__).parent / "data" / "networks"


def _ctx(net):
    return ProofContext(net, Result(net.name), RunState(time.perf_counter() + 120), None, True, ["quadratic"])


@pytest.fixture
def calls(monkeypatch):
    """Every growth LP and drain LP the stage solves, in order, as ("growth" | "drain", table stations, levels)."""
    seen: list[tuple[str, tuple[int, ...], object]] = []
    rate, bound = sink_stage.solve_sink_rate, sink_stage.drain_bound

    def spy_rate(chain, red, drifts, fast, K, **kw):
        seen.append(("growth", tuple(fast), K))
        return rate(chain, red, drifts, fast, K, **kw)

    def spy_bound(ctx, red, chain, fast, K, drifts, stop):
        seen.append(("drain", tuple(fast), K))
        return bound(ctx, red, chain, fast, K, drifts, stop)

    monkeypatch.setattr(sink_stage, "solve_sink_rate", spy_rate)
    monkeypatch.setattr(sink_stage, "drain_bound", spy_bound)
    return seen


def test_below_the_boundary_the_deciding_table_solves_only_its_drain_lp(calls):
    """J = 6 seed 15 at 0.91 (stable): the table whose drain LP decides never has its growth LP solved."""
    net = certify.load(DATA / "random-J6-s15-r0.91.json")
    ctx = _ctx(net)
    assert SinkGrowth(prove).run(ctx).decision is None  # the growth stage proves nothing at a stable load
    last = calls[-1]
    assert last[0] == "drain"
    assert ("growth", last[1], last[2]) not in calls
    assert calls[0][0] == "growth"  # the first table has no earlier optima to go by: growth LP first, as before


def test_the_drain_stage_then_certifies_what_the_growth_stage_found(calls):
    """The drain stage's certificate, from the growth stage's drain LP, verifies and holds state by state."""
    net = certify.load(DATA / "random-J6-s15-r0.91.json")
    ctx = _ctx(net)
    SinkGrowth(prove).run(ctx)
    solved = len(calls)
    out = SinkDrain().run(ctx)
    assert out.decision is not None and out.decision.verdict == "stable"
    assert len(calls) - solved <= 1  # the drain stage reuses the kept answer (one call, returned from the cache)
    cert = out.decision.certificate.to_json()
    assert certify.verify(net, cert).ok
    independent.check_sink_drain(net, copy.deepcopy(cert), count=100)


def test_above_the_boundary_the_growth_certificate_is_unchanged(calls):
    """J = 6 seed 15 at 0.925 (unstable): the growth LP decides, and its certificate verifies and holds state by state."""
    net = certify.load(DATA / "random-J6-s15-r0.925.json")
    out = SinkGrowth(prove).run(_ctx(net))
    assert out.decision is not None and out.decision.verdict == "unstable"
    assert calls[-1][0] == "growth"
    cert = out.decision.certificate.to_json()
    assert certify.verify(net, cert).ok
    independent.check_sink_growth(net, copy.deepcopy(cert), count=100)


def test_nearer_drain_compares_the_two_gaps_in_the_sinks_units():
    """The drain side is nearer exactly when its optimum exceeds mu(G) by less than the growth optimum misses m_G."""
    net = certify.load(DATA / "random-J6-s15-r0.91.json")
    ctx = _ctx(net)
    red = reduced_network(net, "2")
    chain = compile_chain(red.network)
    reduced_drifts(ctx, red.sinks, chain, [0], 2, time.perf_counter() + 60)
    rows = ctx.reduced[table_key(red.sinks, [0], 2)]
    assert not nearer_drain(ctx, red, [0], 2)  # neither LP solved yet
    cap = float(red.capacity)  # station 2 feeds nothing back to itself: m_2 = mu_2 = what it serves
    rows.rate_lp = cap - 0.02
    rows.drain_lp = cap + 0.01
    assert nearer_drain(ctx, red, [0], 2)
    rows.drain_lp = cap + 0.03
    assert not nearer_drain(ctx, red, [0], 2)
