"""Poisson tables (certify.search.poisson): sink candidates from the Poisson equations of R' cut to a box.

Truth comes from outside the search and the checker: a gadget's exact throughput (its own chain truncated at 40 per
station) gives the sink's exact boundary and the exact stationary inflow, which every certified drain rate must
bound from above and every certified growth rate from below; tests/independent.py re-checks each certificate state
by state on R' rebuilt from the network's fields.
"""

from __future__ import annotations

import copy
import time
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest

import certify
from certify.certificates import nested_verdict
from certify.certificates.kinds.sink_drain import sink_drain_certificate
from certify.certificates.kinds.sink_growth import sink_growth_certificate
from certify.exact.drain import check_sink_drain
from certify.exact.sink import check_sink_growth, reduced_network
from certify.markov.chain import compile_chain
from certify.markov.drift import compile_drifts
from certify.proof.context import ProofContext, RunState
from certify.proof.poisson import poisson_try
from certify.proof.result import Result
from certify.search.drain import solve_reduced_lyapunov
from tests import independent
from tests.test_separable import at_load, throughput

DATA = Path(__file__).parent / "data" / "networks"


def _try(net):
    """The Poisson try on the sink s of ``net``: (levels, cells, candidates) and R''s chain."""
    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 120), None, True, ["table"])
    red = reduced_network(net, "s")
    chain = compile_chain(red.network)
    return poisson_try(ctx, red, chain, time.perf_counter() + 120), red, chain


def _exact_inflow(net) -> F:
    """lambda_S + d: the sink's exact stationary inflow (d from the gadget's own chain)."""
    lam = next(s.rate for s in net.streams if s.choice == ("s",))
    return lam + F(throughput()).limit_denominator(10**9)


@pytest.fixture(scope="module")
def below():
    """One gadget at 0.995 of its exact boundary, the Poisson try's drain candidate and its exact check."""
    net = at_load(1, 0.995)
    (K, _, rates), red, chain = _try(net)
    P, _ = solve_reduced_lyapunov(chain, compile_drifts(chain))
    w, table, rate = rates.drain
    fast = list(range(chain.J))
    chk = check_sink_drain(net, "s", P, w, rate, table, fast, K)
    return net, chk, sink_drain_certificate(net, "s", P, w, rate, chk, table, fast, K, []).to_json(), (red, chain)


@pytest.fixture(scope="module")
def above():
    """One gadget at 1.005 of its exact boundary, the Poisson try's growth candidate and its exact check."""
    net = at_load(1, 1.005)
    (K, _, rates), red, chain = _try(net)
    sub = certify.prove(red.network, time_limit=60, simulate=False)
    w, table, rate = rates.growth
    fast = list(range(chain.J))
    chk = check_sink_growth(net, "s", w, rate, nested_verdict(red.network, sub.certificate), table, fast, K)
    return net, chk, sink_growth_certificate(net, "s", w, rate, sub.certificate, chk, table, fast, K, ()).to_json()


def test_a_drain_candidate_half_a_percent_below_the_boundary_passes_the_exact_check(below):
    """At 0.995 of the exact boundary the Poisson drain candidate passes the exact check, and verify agrees."""
    net, chk, cert, _ = below
    assert chk.ok, chk.failures
    assert certify.verify(net, cert).ok


def test_the_certified_drain_rate_bounds_the_exact_inflow_from_above(below):
    """c >= lambda_S + d (exact), and c < mu_S: the bound is a true one, and tight enough to decide."""
    net, _, cert, _ = below
    assert _exact_inflow(net) - F(1, 10**7) <= F(cert["rate"]) < F(cert["claims"]["capacity"])


def test_the_drain_certificate_holds_state_by_state(below):
    """Every hypothesis re-checked state by state on R' rebuilt from the network's fields."""
    net, _, cert, _ = below
    independent.check_sink_drain(net, copy.deepcopy(cert))


def test_u_plus_the_generator_of_g_is_the_same_on_every_state_of_the_box(below):
    """The construction's identity: on the box, u + A'g is one number (pi_K(u) + w . pi_K(d)), up to rounding."""
    _, _, cert, (red, chain) = below
    from certify.exact.drain import drain_rate
    from certify.search.cell_rows import CellRows

    K = tuple(cert["table"]["K"])
    assert [chain.ids.index(i) for i in cert["table"]["fast"]] == list(range(chain.J))  # every station of R'
    rows = CellRows(chain, K, [lambda e: drain_rate(red, chain, red.sinks, e)])
    w = np.array([float(F(cert["weights"][i])) for i in chain.ids])
    T = np.zeros(rows.columns)
    stride = [int(np.prod([k + 1 for k in K[a + 1:]])) for a in range(chain.J)]
    for cell, v in cert["table"]["values"].items():
        T[sum(int(c) * s for c, s in zip(cell.split(","), stride))] = float(F(v))
    values, _ = rows.values(rows.rates[0], w, T, -1)
    assert len(rows.box) == rows.columns and values[rows.box].max() - values[rows.box].min() < 1e-4


def test_a_growth_candidate_half_a_percent_above_the_boundary_passes_and_stays_below_the_exact_rate(above):
    """At 1.005 the Poisson growth candidate passes the exact check and its rate is at most lambda_S + d (exact)."""
    net, chk, cert = above
    assert chk.ok, chk.failures
    assert certify.verify(net, cert).ok
    assert F(cert["claims"]["capacity"]) < F(cert["rate"]) <= _exact_inflow(net) + F(1, 10**7)


def test_the_growth_certificate_holds_state_by_state(above):
    """f + A'g >= rate at every state of a box of R' and at far states, by the JSQ rules rebuilt in the tests."""
    net, _, cert = above
    independent.check_sink_growth(net, copy.deepcopy(cert))


@pytest.mark.slow
def test_the_random_J6_seed21_network_at_0875_is_proved_stable_by_a_poisson_table():
    """J = 6 seed 21 of bench/frontier.py at 0.875 (its rate LPs stop near 0.86): stable, by the Poisson table."""
    res = certify.prove(certify.load(DATA / "random-J6-s21-r0.875.json"), time_limit=150, simulate=False)
    assert res.verdict == "stable" and res.certificate["kind"] == "sink-drain"
    assert len(res.certificate["table"]["fast"]) == 5


@pytest.mark.parametrize("levels, rule", [
    (lambda K: [0, *K[1:]], "must be an integer in 1..100"),
    (lambda K: [101, *K[1:]], "must be an integer in 1..100"),
    (lambda K: [True, *K[1:]], "must be an integer in 1..100"),
    (lambda K: K[:-1], "one per fast station"),
    (lambda K: [float(k) for k in K], "must be an integer in 1..100"),
])
def test_a_box_certificate_with_bad_levels_is_refused(above, levels, rule):
    """A growth certificate's per-station levels out of 1..100, not integers or one short: refused, table.K named."""
    net, _, cert = above
    bad = copy.deepcopy(cert)
    bad["table"]["K"] = levels(list(cert["table"]["K"]))
    res = certify.verify(net, bad)
    assert not res.ok
    assert any("K" in f and rule in f for f in res.failures), res.failures


def test_a_box_is_sized_under_its_cell_bound_whatever_the_time_left():
    """With an hour left, a box of R' with four cells per state stays under BOX_CELLS cells, and one with a cell per
    state under POISSON_STATES states (WIDE_STATES on R' of seven stations, whose factorisation grows faster)."""
    from certify.proof.poisson import BOX_CELLS, WIDE_STATES, _states
    from certify.search.poisson import POISSON_STATES

    later = time.perf_counter() + 3600
    assert _states(later, 4) * 4 <= BOX_CELLS
    assert _states(later, 1, 5) == POISSON_STATES
    assert _states(later, 1, 7) == WIDE_STATES < POISSON_STATES


def test_a_box_is_sized_to_the_time_left_with_its_check():
    """Ten seconds left allow at most 10 / SECONDS_PER_CELL cells, and a past stop no state at all."""
    from certify.proof.poisson import SECONDS_PER_CELL, _states

    assert _states(time.perf_counter() + 10, 5) * 5 <= 10 / SECONDS_PER_CELL
    assert _states(time.perf_counter() - 1, 5) == 0


def test_far_from_the_boundary_the_first_box_decides(monkeypatch):
    """At 0.9 of the exact boundary a first box of 16 states bounds the exact inflow below mu_S: no second box."""
    import certify.proof.poisson as try_module

    monkeypatch.setattr(try_module, "FIRST_STATES", 16)
    net = at_load(1, 0.9)
    (K, cells, rates), red, _ = _try(net)
    assert (K, cells) == ((3, 3), 25)
    assert _exact_inflow(net) <= rates.drain[2] < red.capacity


def test_near_the_boundary_a_second_box_is_tried_when_the_first_clears_neither_side(monkeypatch):
    """At 0.995 a first box of 16 states decides neither side; the deeper second box's drain rate bounds the inflow."""
    import certify.proof.poisson as try_module

    monkeypatch.setattr(try_module, "FIRST_STATES", 16)
    net = at_load(1, 0.995)
    (K, _, rates), red, _ = _try(net)
    assert min(K) > 3
    assert _exact_inflow(net) - F(1, 10**7) <= rates.drain[2] < red.capacity
