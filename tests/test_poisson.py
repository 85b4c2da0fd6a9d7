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


def test_the_growth_stage_tries_no_other_sink_once_a_box_leaves_a_drain_candidate():
    """J = 8 seed 8 at 0.925: once a candidate's box bounds its inflow below what it serves, the growth stage tries no
    other candidate (it tried a third until stop 60) and the drain stage proves the network stable with that box."""
    res = certify.prove(certify.load(DATA / "random-J8-s8-r0.925.json"), time_limit=60, simulate=False)
    growth = [a for a in res.attempts if a.stage.startswith("sink growth at")]
    assert "left to the drain stage (no other candidate of this stage is tried)" in growth[-1].outcome
    assert res.verdict == "stable" and res.certificate["kind"] == "sink-drain"
    assert growth[-1].stage.replace("growth", "drain") in [a.stage for a in res.attempts]


def test_the_growth_stage_goes_on_where_the_drain_stage_would_not_try_the_sink(monkeypatch):
    """J = 8 seed 8 at 0.925 with the drain stage trying no sink: the box that leaves a drain candidate does not end
    the growth stage, which says so and tries its next candidate."""
    import certify.proof.sink as sink_stage

    monkeypatch.setattr(sink_stage, "tried_drains", lambda net: [])
    res = certify.prove(certify.load(DATA / "random-J8-s8-r0.925.json"), time_limit=60, simulate=False)
    growth = [a for a in res.attempts if a.stage.startswith("sink growth at")]
    first = next(i for i, a in enumerate(growth) if "below the capacity" in a.outcome)
    assert "the drain stage does not try this sink" in growth[first].outcome
    assert not any("left to the drain stage" in a.outcome for a in growth)
    assert len(growth) > first + 1


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
    """With an hour left, a box of R' with four cells per state stays under BOX_CELLS cells (MANY_CELLS on R' of eight
    stations), below the exact check's bound on a table, and one with a cell per state under POISSON_STATES states
    (WIDE_STATES on R' of seven stations, whose factorisation grows faster)."""
    from certify.proof.poisson import BOX_CELLS, MANY_CELLS, WIDE_STATES, _states
    from certify.search.poisson import POISSON_STATES
    from certify.templates.options import MAX_REFINEMENT

    later = time.perf_counter() + 3600
    assert _states(later, 4) * 4 <= BOX_CELLS < MAX_REFINEMENT
    assert _states(later, 4, 8) * 4 <= MANY_CELLS < BOX_CELLS
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


def test_near_the_boundary_a_deeper_box_is_tried_when_the_first_clears_neither_side(monkeypatch):
    """At 0.995 a first box of 16 states decides neither side; a deeper box's drain rate bounds the inflow."""
    import certify.proof.poisson as try_module

    monkeypatch.setattr(try_module, "FIRST_STATES", 16)
    net = at_load(1, 0.995)
    (K, _, rates), red, _ = _try(net)
    assert min(K) > 3
    assert _exact_inflow(net) - F(1, 10**7) <= rates.drain[2] < red.capacity


@pytest.fixture
def small_boxes(monkeypatch):
    """The try with boxes of at most 140 states (too small to decide at 0.999): the levels of every box it solves."""
    import certify.proof.poisson as try_module

    solved = []
    real_solved = try_module._solved
    monkeypatch.setattr(try_module, "FIRST_STATES", 16)
    monkeypatch.setattr(try_module, "POISSON_STATES", 140)
    monkeypatch.setattr(try_module, "WIDE_STATES", 140)
    monkeypatch.setattr(try_module, "MIN_STATES", 16)
    monkeypatch.setattr(try_module, "_solved", lambda ctx, red, chain, K, stop: solved.append(K) or real_solved(
        ctx, red, chain, K, stop))
    return solved


def test_a_middle_box_of_its_share_of_the_states_comes_before_the_last_one(monkeypatch, small_boxes):
    """Near the boundary (0.999, boxes of at most 140 states) the try solves the first box, a middle box of at most
    MIDDLE_SHARE of the states the time allows, and a last box larger than the middle one."""
    import certify.proof.poisson as try_module

    solved, allowed = small_boxes, []
    real_states = try_module._states
    monkeypatch.setattr(try_module, "_states", lambda *a: allowed.append(real_states(*a)) or allowed[-1])
    net = at_load(1, 0.999)
    (K, _, rates), _, _ = _try(net)
    sizes = [int(np.prod([k + 1 for k in L])) for L in solved]
    assert len(solved) == 3 and solved[0] == (3, 3) and K == solved[2]
    assert sizes[1] <= try_module.MIDDLE_SHARE * allowed[1] and sizes[1] < sizes[2] <= allowed[2]


def test_on_wide_r_prime_the_middle_box_has_uniform_levels(monkeypatch, small_boxes):
    """With WIDE_J at two stations the middle box is the largest uniform box of its share, and the last box is balanced
    from its law."""
    import certify.proof.poisson as try_module
    from certify.search.poisson import box_levels

    monkeypatch.setattr(try_module, "WIDE_J", 2)
    _try(at_load(1, 0.999))
    assert len(small_boxes) == 3 and small_boxes[1] == box_levels(2, int(140 * try_module.MIDDLE_SHARE)) == (4, 4)


def test_a_step_box_of_at_most_step_growth_times_the_box_before_comes_before_the_last(monkeypatch, small_boxes):
    """With room for 4,000 states, a middle box of a 64th of them and none deciding (0.99999), each box after the
    middle one has more states than the box before and at most STEP_GROWTH times as many, up to a last box larger
    than them all."""
    import certify.proof.poisson as try_module

    monkeypatch.setattr(try_module, "POISSON_STATES", 4000)
    monkeypatch.setattr(try_module, "WIDE_STATES", 4000)
    monkeypatch.setattr(try_module, "MIDDLE_SHARE", 1 / 64)
    _try(at_load(1, 0.99999))
    sizes = [int(np.prod([k + 1 for k in L])) for L in small_boxes]
    assert len(sizes) >= 5
    assert all(a < b <= try_module.STEP_GROWTH * a for a, b in zip(sizes[1:-2], sizes[2:-1]))
    assert sizes[-1] > max(sizes[:-1])


def _product_law(rhos, K):
    """The product-form stationary law of independent M/M/1 queues cut to the box K (exact, floats), and its states."""
    law = np.ones(1)
    for rho, k in zip(rhos, K):
        law = np.multiply.outer(law, float(rho) ** np.arange(k + 1)).ravel()
    return law / law.sum(), np.indices([k + 1 for k in K]).reshape(len(K), -1).T


def test_balanced_levels_bound_the_exact_inflow_more_tightly_than_a_uniform_box():
    """A gadget and a light M/M/1 queue (load 1/5) feed the sink: with 1,000 states, the levels balanced from a box
    of levels 3 go to the gadget, and their box's two sides bound the exact stationary inflow lam_s + d + 1/5 less
    than half as far apart as the uniform box of levels 9."""
    from certify.io.loader import from_dict
    from certify.proof.poisson import _solved
    from certify.search.poisson import balanced_levels
    from tests.test_separable import gadgets

    doc = gadgets(1, F(3), F(1, 2))
    doc["stations"]["c"] = {"mu": 1}
    doc["streams"].append({"choice": ["c"], "rate": "1/5"})
    doc["feedback"].append({"from": "c", "choice": ["s"], "prob": 1})
    net = from_dict(doc)
    red = reduced_network(net, "s")
    chain = compile_chain(red.network)
    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 60), None, True, ["table"])
    rows, _, pi = _solved(ctx, red, chain, (3, 3, 3), time.perf_counter() + 60)
    levels = balanced_levels(pi, rows.Z[rows.box], (3, 3, 3), 1000)
    assert levels[2] < min(levels[:2]) and np.prod([k + 1 for k in levels]) <= 1000
    exact = 0.5 + throughput() + 0.2
    widths = []
    for K in ((9, 9, 9), levels):
        _, rates, _ = _solved(ctx, red, chain, K, time.perf_counter() + 60)
        assert rates.growth_value <= exact + 1e-9 and exact - 1e-9 <= rates.drain_value
        widths.append(rates.drain_value - rates.growth_value)
    assert widths[1] < widths[0] / 2


@pytest.mark.parametrize("seed", range(6))
def test_balanced_levels_fit_and_come_near_the_least_predicted_mass(seed):
    """On product-form laws of three queues the levels fit the states and cells, and their predicted top mass (the
    law's tail below K, its decay above) is within 15% of the least over every box that fits (found by enumeration)."""
    import itertools
    from math import prod

    from certify.search.poisson import balanced_levels

    rng = np.random.default_rng(seed)
    rhos, K, states = rng.uniform(0.1, 0.9, 3), tuple(int(k) for k in rng.integers(1, 5, 3)), int(rng.integers(64, 400))
    cells = int(states * rng.uniform(1.5, 3))
    pi, box = _product_law(rhos, K)

    def tail(a, level):  # P(x_a >= level) for the geometric law cut at K_a, in closed form
        return (rhos[a] ** level - rhos[a] ** (K[a] + 1)) / (1 - rhos[a] ** (K[a] + 1))

    decay = np.clip(rhos, 0.2, 0.95)  # the law's own ratio from level to level

    def mass(L):
        return sum(tail(a, L[a]) if L[a] < K[a] else tail(a, K[a]) * decay[a] ** (L[a] - K[a]) for a in range(3))

    def fits(L):
        return prod(k + 1 for k in L) <= states and prod(k + 2 for k in L) <= cells

    levels = balanced_levels(pi, box, K, states, cells)
    assert fits(levels) and min(levels) >= 1
    least = min(mass(L) for L in itertools.product(range(1, 64), repeat=3) if fits(L))
    assert mass(levels) <= 1.15 * least


def _independent_chain(rates):
    """R' of independent M/M/1 queues (service 1, Poisson arrivals at ``rates``): its chain, compiled from a network."""
    from certify.io.loader import from_dict

    doc = {"format": "jsq-network/1", "name": "mm1s", "stations": {f"q{k}": {"mu": 1} for k in range(len(rates))},
           "streams": [{"choice": [f"q{k}"], "rate": str(r)} for k, r in enumerate(rates)]}
    return compile_chain(from_dict(doc))


def _law(chain, K):
    """The box law of ``chain`` cut to K (certify.search.poisson.box_law) and the box's states."""
    from certify.search.cell_rows import CellRows
    from certify.search.poisson import box_law, elimination_order

    rows = CellRows(chain, K, [])
    pi, _ = box_law(rows.box_generator(), range(rows.columns), None, elimination_order(rows.K))
    return pi, rows.Z[rows.box]


def test_top_ratios_of_independent_queues_are_their_loads():
    """In a box of independent M/M/1 queues the law is the product of geometrics cut to the box: each station's mass
    at its top level over the mass one level below is its load, and the stations at or above PILING pile."""
    from certify.search.poisson import PILING, piling, top_ratios

    rates = (F(1, 2), F(19, 20), F(23, 25))
    pi, Z = _law(_independent_chain(rates), (3, 4, 2))
    assert np.allclose(top_ratios(pi, Z, (3, 4, 2)), [float(r) for r in rates], atol=1e-8)
    assert piling(pi, Z, (3, 4, 2)) == [k for k, r in enumerate(rates) if r >= PILING] == [1, 2]


def _pair_doc(mu_s="179/100"):
    """A sink s fed by a (which joins the JSQ pair {a, b}, b with a stream of its own that keeps it long) and by c,
    an M/M/1 queue at load 1/2; s also has its own stream 1/2."""
    return {"format": "jsq-network/1", "name": "pair", "stations": {"s": {"mu": mu_s}, "a": {"mu": 1}, "b": {"mu": 1},
                                                                     "c": {"mu": 1}},
            "streams": [{"choice": ["s"], "rate": "1/2"}, {"choice": ["b"], "rate": "17/20"},
                        {"choice": ["a", "b"], "rate": "9/10"}, {"choice": ["c"], "rate": "1/2"}],
            "feedback": [{"from": "a", "choice": ["s"], "prob": 1}, {"from": "c", "choice": ["s"], "prob": 1}]}


def test_a_station_above_its_partners_reach_does_not_pile():
    """In the pair {a, b} a joins only when it is the shorter, so in a box with a at 7 and b at 3 a never passes 4:
    its top level holds no mass, its ratio is 0 and it does not pile (b, at load 0.85 and more, does)."""
    from certify.io.loader import from_dict
    from certify.search.poisson import piling, top_ratios

    red = reduced_network(from_dict(_pair_doc()), "s")
    chain = compile_chain(red.network)
    K = tuple(7 if s == "a" else 3 for s in red.network.station_ids)
    pi, Z = _law(chain, K)
    a, b = red.network.station_ids.index("a"), red.network.station_ids.index("b")
    assert pi[Z[:, a] >= 5].sum() < 1e-12 and top_ratios(pi, Z, K)[a] == 0
    assert piling(pi, Z, K) == [b]


def test_resolving_the_piling_station_bounds_the_exact_inflow_more_tightly(monkeypatch, small_boxes):
    """With boxes of at most 400 states, the try that first resolves the piling station b by its law alone bounds
    the exact stationary inflow (1/2 + a's throughput + 1/2, from the pair's own chain cut at 80) at least twice as
    tightly as the try without (RESOLVE_ROUNDS 0), whose balanced boxes leave b low; both sides bracket it."""
    import certify.proof.poisson as try_module
    from certify.io.loader import from_dict
    from certify.stationary import stationary

    monkeypatch.setattr(try_module, "POISSON_STATES", 400)
    monkeypatch.setattr(try_module, "WIDE_STATES", 400)
    doc = _pair_doc()
    net = from_dict(doc)
    pair = from_dict(doc | {"stations": {"a": {"mu": 1}, "b": {"mu": 1}}, "streams": doc["streams"][1:3],
                            "feedback": []})
    exact = 1 + stationary(pair, truncate=80).throughput[pair.station_ids.index("a")]
    widths = []
    for rounds in (try_module.RESOLVE_ROUNDS, 0):
        monkeypatch.setattr(try_module, "RESOLVE_ROUNDS", rounds)
        (_, _, rates), _, _ = _try(net)
        assert rates.growth_value <= exact + 1e-9 <= rates.drain_value + 2e-9
        widths.append(rates.drain_value - rates.growth_value)
    assert widths[0] < widths[1] / 2


@pytest.mark.parametrize("seed", range(8))
def test_resolving_levels_raise_the_piling_keep_the_kept_and_fit(seed):
    """The piling stations' levels become 2 K + 1 (at most MAX_CLIP_LEVEL), the kept ones stay, the others are lowered
    to no less than 2 (nor raised), and the box fits the states; None only when no lowering fits it."""
    from math import prod

    from certify.search.poisson import resolving_levels
    from certify.templates.options import MAX_CLIP_LEVEL

    rng = np.random.default_rng(seed)
    J = int(rng.integers(2, 6))
    K = [int(k) for k in rng.integers(1, 8, J)]
    piled = sorted(int(a) for a in rng.choice(J, int(rng.integers(1, J + 1)), replace=False))
    kept = [a for a in range(J) if a not in piled and rng.random() < 0.3]
    states = int(rng.integers(10, 4 * prod(k + 1 for k in K)))
    L = resolving_levels(K, piled, kept, states)
    least = [min(2 * K[a] + 1, MAX_CLIP_LEVEL) if a in piled else K[a] if a in kept else min(K[a], 2) for a in range(J)]
    if L is None:
        assert prod(k + 1 for k in least) > states
        return
    assert prod(k + 1 for k in L) <= states
    for a in range(J):
        if a in piled:
            assert L[a] == min(2 * K[a] + 1, MAX_CLIP_LEVEL)
        elif a in kept:
            assert L[a] == K[a]
        else:
            assert min(K[a], 2) <= L[a] <= K[a]


def test_a_station_that_piles_at_every_level_is_raised_once():
    """An M/M/1 queue at load 19/20 piles at every level (its ratio is its load): the resolution raises it from 3 to 7
    once, not to 15 and 31 in later rounds, and leaves the queue at load 1/2 alone."""
    from certify.proof.poisson import _resolved

    chain = _independent_chain((F(1, 2), F(19, 20)))
    pi, Z = _law(chain, (3, 3))
    _, Z2, K = _resolved(chain, pi, Z, (3, 3), 10_000, time.perf_counter() + 60)
    assert K == (3, 7) and len(Z2) == 4 * 8


def test_the_drain_stage_checks_a_kept_box_past_its_share(monkeypatch):
    """J = 8 seed 8 at 0.925 with the drain stage's share of the time set to 0: the drain candidate the growth stage
    kept is still checked, in what the run has left, and proves the network stable."""
    import certify.proof.drain as drain_stage

    monkeypatch.setattr(drain_stage, "DRAIN_SHARE", 0.0)
    res = certify.prove(certify.load(DATA / "random-J8-s8-r0.925.json"), time_limit=60, simulate=False)
    assert res.verdict == "stable" and res.certificate["kind"] == "sink-drain"
    assert certify.verify(certify.load(DATA / "random-J8-s8-r0.925.json"), res.certificate).ok


def test_the_growth_stages_box_may_use_box_share_of_what_the_run_has_left(monkeypatch):
    """J = 8 seed 8 at 0.925 with 60 s: the growth stage's Poisson try is given until the stage's share and BOX_SHARE of
    what is left after it (about 54 s from the start; 45 s until stop 62)."""
    import certify.proof.sink as sink_stage

    stops: list[float] = []
    real = sink_stage.poisson_try

    def recorded(ctx, red, chain, stop):
        stops.append(stop)
        return real(ctx, red, chain, stop)

    monkeypatch.setattr(sink_stage, "poisson_try", recorded)
    start = time.perf_counter()
    certify.prove(certify.load(DATA / "random-J8-s8-r0.925.json"), time_limit=60, simulate=False)
    share = sink_stage.SINK_SHARE + sink_stage.BOX_SHARE * (1 - sink_stage.SINK_SHARE)
    assert stops and 60 * share - 1 <= stops[0] - start <= 60 * share + 1
