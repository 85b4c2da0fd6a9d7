"""Poisson boxes for a set of sinks whose subsets need functions of their own (certify.search.cell_rows.SubsetRate).

Truth from outside the search: the definitions of f_H, m_H, u_H and mu(H) scanned over every subset
(tests/independent.py), tests/independent.py's state-by-state re-check of each certificate on R' rebuilt from the
network's fields (every subset H with its g_H, each drain g_H nondecreasing along Dirs(H)), each rate's Poisson
equation solved on its own, g's increments read cell by cell, and SciPy's LP over every row.
"""

from __future__ import annotations

import itertools
import time
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest

import certify
from certify.certificates import nested_verdict
from certify.certificates.kinds.sink_drain import sink_drain_certificate
from certify.certificates.kinds.sink_growth import sink_growth_certificate
from certify.core.model import Feedback, Network, Station, Stream, TieBreak
from certify.exact.drain import check_sink_drain, drain_rate, tie_excess
from certify.exact.sink import check_sink_growth, forced_rate, reduced_network
from certify.markov.chain import compile_chain
from certify.markov.drift import compile_drifts
from certify.proof.context import ProofContext, RunState
from certify.proof.poisson import box_sides, box_subsets, poisson_try
from certify.proof.result import Result
from certify.search.cell_rows import CellRows, rate_solutions
from certify.search.drain import solve_reduced_lyapunov
from certify.search.poisson import box_law, elimination_order
from tests import independent

DATA = Path(__file__).parent / "data" / "networks"
G = ("2", "4", "8")  # J = 8 seed 70's set: R' = {1, 3, 5, 6, 7}


def _set(load: str):
    """bench/frontier.py's J = 8 seed 70 at ``load``, its reduction by G and R''s chain."""
    net = certify.load(DATA / f"random-J8-s70-r{load}.json")
    red = reduced_network(net, G)
    return net, red, compile_chain(red.network)


def _tried(load: str):
    """The Poisson try on G at ``load`` (60 s): the network, the reduction, R''s chain, and the try's answer."""
    net, red, chain = _set(load)
    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 120), None, True, ["table"])
    return net, red, chain, poisson_try(ctx, red, chain, time.perf_counter() + 60)


def test_the_subsets_given_functions_are_those_the_definitions_say_need_one():
    """On seed 70's set the box's subsets are, over all six proper subsets, those whose lambda_H is not above m_H
    (growth) and whose largest u_H is not below mu(H) (drain), by the definitions of tests/independent.py."""
    net, red, _ = _set("0.965")
    _, inflow, feeds, internal, mu = independent.reduced_set(net, list(G))
    growth, drain = [], []
    for n in range(1, len(G)):
        for H in itertools.combinations(G, n):
            lam, _, m = independent._set_rate(H, inflow, feeds, internal, mu)
            if not lam > m:
                growth.append(H)
            lam_u, forced = independent.drain_rate_of(H, inflow, feeds, internal)
            if not lam_u + sum((r for _, r in forced), F(0)) < sum((mu[j] for j in H), F(0)):
                drain.append(H)
    got = box_subsets(net, red)
    assert (sorted(got[0] or []), sorted(got[1] or [])) == (sorted(growth), sorted(drain))
    assert got == ([("4", "8")], [("2",), ("2", "8")])


def test_a_drain_side_whose_subset_needs_a_function_is_not_served_where_ties_send_r_prime_more():
    """Ties with the sinks that send R' more put a subset's drain inequality on R'_eps, whose box chain is not R''s:
    the box serves the growth side only."""
    stations = (Station("1", F(1)), Station("2", F(1)), Station("3", F(1, 2)), Station("4", F(1)))
    streams = (Stream(F(1, 2), choice=("1", "3", "4")), Stream(F(1, 2), choice=("2", "3")))
    feedback = (Feedback("1", ("3",), F(3, 4)),)
    net = Network("ties", stations, streams, feedback, (TieBreak(("1", "4"), (("1", F(1, 4)), ("4", F(3, 4)))),))
    red = reduced_network(net, ("2", "3"))
    assert tie_excess(net, ("2", "3"))  # the uniform tie {1, 3, 4} gives 1 a third where R''s rule gives it a quarter
    assert box_subsets(net, red) == ([("2",), ("3",)], None) and box_sides(net, red) == (True, False)
    uniform = Network("uniform", stations, streams, feedback)  # no tie rule: no excess, and the box serves {3}
    assert box_subsets(uniform, reduced_network(uniform, ("2", "3"))) == ([("2",), ("3",)], [("3",)])


def test_the_rates_solved_by_busy_stations_are_each_rates_own_solution():
    """The forced rates and u of G and of its subsets, solved as sums of busy stations' solutions (two solves for
    six rates), equal each rate's own Poisson solution on the box."""
    net, red, chain = _set("0.965")
    fns = [lambda e: forced_rate(red, chain, e), lambda e: drain_rate(red, chain, G, e)]
    fns += [lambda e, H=H: forced_rate(red.part(H), chain, e) for H in [("4", "8"), ("2",)]]
    fns += [lambda e, H=H: drain_rate(red, chain, H, e) for H in [("2",), ("2", "8")]]
    rows = CellRows(chain, (3, 2, 3, 2, 3), fns)
    pi, poisson = box_law(rows.box_generator(), range(rows.columns), None, elimination_order(rows.K))
    solves: list[int] = []
    got = rate_solutions(rows, pi, lambda r: solves.append(r.shape[1] if r.ndim == 2 else 1) or poisson(r))
    assert sum(solves) == 2  # stations 5 and 6 feed G: every rate is a constant plus their busy shares
    for k, r in enumerate(rows.rates):
        own = poisson(pi @ r[rows.box] - r[rows.box])
        assert np.abs(got[:, k] - own).max() < 1e-7


def test_monotone_rows_are_gs_increments_less_the_margin():
    """v + D w of the monotonicity rows is w_t + T(c + e_t) - T(c) - margin on every table cell below t's level, and
    w_t - margin once per direction, read cell by cell from T = h0 + H w."""
    _, _, chain = _set("0.965")
    K = (2, 1, 3, 1, 2)
    rows = CellRows(chain, K, [])
    rng = np.random.default_rng(5)
    h0, H, w = rng.normal(size=rows.columns), rng.normal(size=(rows.columns, chain.J)), rng.normal(size=chain.J)
    T = dict(zip(map(tuple, rows.Z[rows.box].tolist()), h0 + H @ w))
    v, D = rows.monotone_rows(h0, H, [3, 0], 0.125)
    want = []
    for t in (3, 0):
        for c in itertools.product(*[range(k + 1) for k in K]):
            if c[t] < K[t]:
                up = tuple(x + (a == t) for a, x in enumerate(c))
                want.append(w[t] + T[up] - T[c] - 0.125)
        want.append(w[t] - 0.125)
    assert np.allclose(np.sort(v + D @ w), np.sort(want), atol=1e-12)


@pytest.mark.parametrize("sign", [1, -1])
def test_the_generated_lp_keeps_the_extra_rows(monkeypatch, sign):
    """With a working set of three rows, constraint generation over 400 rate rows and 300 extra rows (v + D w >= 0,
    no rate) reaches the optimum of SciPy's LP over all 700."""
    from scipy.optimize import linprog

    import certify.search.cell_rows as cr

    monkeypatch.setattr(cr, "WORKING_ROWS", 3)
    rng = np.random.default_rng(11)
    J = 4
    v, D = rng.normal(size=400), rng.normal(size=(400, J))
    eD, w0 = rng.normal(size=(300, J)), rng.normal(size=J)
    ev = rng.uniform(0.0, 0.5, size=300) - eD @ w0  # every extra row holds at w0: a feasible LP
    bounds = (np.concatenate([np.full(J, -100.0), [-np.inf]]), np.concatenate([np.full(J, 100.0), [np.inf]]))
    cost = np.zeros(J + 1)
    cost[-1] = -sign
    x = cr._generated_lp([(v, D)], sign, cost, bounds, np.zeros(J), None, None, extra=(ev, eD))
    A = np.vstack([np.hstack([-sign * D, sign * np.ones((400, 1))]), np.hstack([-eD, np.zeros((300, 1))])])
    full = linprog(cost, A_ub=A, b_ub=np.concatenate([sign * v, ev]), bounds=list(zip(bounds[0], bounds[1])),
                   method="highs")
    assert full.status == 0
    assert x[-1] == pytest.approx(full.x[-1], abs=1e-7)
    assert (ev + eD @ x[:-1] >= -1e-7).all()
    free = cr._generated_lp([(v, D)], sign, cost, bounds, np.zeros(J), None, None)
    assert (ev + eD @ free[:-1]).min() < -1e-3  # the extra rows bind: without them the optimum breaks one


def test_a_box_gives_the_drain_side_with_the_subsets_functions():
    """At 0.965 the box's drain candidate lists {2} and {2, 8} with their own functions: the exact check and verify
    accept it, and it holds state by state, each subset's g_H nondecreasing along Dirs(H) (tests/independent.py)."""
    net, red, chain, (K, _, rates) = _tried("0.965")
    assert rates.drain is not None
    assert [H for H, *_ in rates.drain_subsets] == [("2",), ("2", "8")]
    P, _ = solve_reduced_lyapunov(chain, compile_drifts(chain))
    w, table, rate = rates.drain
    every = list(range(chain.J))
    subsets = list(rates.drain_subsets)
    chk = check_sink_drain(net, G, P, w, rate, table, every, K, subsets=subsets)
    assert chk.ok, chk.failures
    cert = sink_drain_certificate(net, G, P, w, rate, chk, table, every, K, subsets).to_json()
    assert certify.verify(net, cert).ok
    independent.check_sink_drain(net, cert, count=60)
    for H, _, c_H, _ in subsets:
        assert c_H < red.served(H)


def test_a_box_gives_the_growth_side_with_the_subsets_functions():
    """At 0.98 the box's growth candidate lists {4, 8} with its own function: the exact check and verify accept it,
    and it holds state by state (tests/independent.py)."""
    net, red, chain, (K, _, rates) = _tried("0.98")
    assert rates.growth is not None
    assert [H for H, *_ in rates.growth_subsets] == [("4", "8")]
    sub = certify.prove(red.network, time_limit=60, simulate=False)
    w, table, rate = rates.growth
    every = list(range(chain.J))
    subsets = list(rates.growth_subsets)
    chk = check_sink_growth(net, G, w, rate, nested_verdict(red.network, sub.certificate), table, every, K,
                            subsets=subsets)
    assert chk.ok, chk.failures
    cert = sink_growth_certificate(net, G, w, rate, sub.certificate, chk, table, every, K, subsets).to_json()
    assert certify.verify(net, cert).ok
    independent.check_sink_growth(net, cert, count=60)


@pytest.mark.slow
def test_the_drain_stage_proves_the_set_by_a_box_that_lists_the_subsets_functions():
    """At 0.9703125, where the region tables stop short, the sink-drain stage alone proves seed 70 stable by a box
    over every station of R' whose certificate lists {2} and {2, 8} with their own functions; verify accepts it and it
    holds state by state (tests/independent.py)."""
    from certify.proof.drain import SinkDrain

    net = certify.load(DATA / "random-J8-s70-r0.9703125.json")
    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 120), None, True, ["table"])
    out = SinkDrain().run(ctx)
    assert out.decision is not None and out.decision.verdict == "stable"
    cert = out.decision.certificate.to_json()
    assert cert["sink"] == list(G) and cert["table"]["fast"] == ["1", "3", "5", "6", "7"]
    assert isinstance(cert["table"]["K"], list)  # a level per station: the box's table, not a region table's
    assert [s["set"] for s in cert["subsets"]] == [["2"], ["2", "8"]]
    assert certify.verify(net, cert).ok
    independent.check_sink_drain(net, cert, count=40)
