"""The Poisson tables' rows over cells (certify.search.cell_rows), against the exact cell bounds and the model's rules.

Truth from outside the search: the box's generator is rebuilt state by state from the model's JSQ rules
(tests/independent.py's ``generator``, arrivals past the box blocked), and each cell's float value from the exact
checker's own bound (certify.exact.cell_rates.cell_bound), in rationals.
"""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import product
from pathlib import Path

import numpy as np
import pytest

import certify
from certify.exact.cell_rates import cell_bound
from certify.exact.drain import drain_rate
from certify.exact.sink import reduced_network
from certify.markov.chain import compile_chain
from certify.search.cell_rows import CellRows
from tests.independent import generator

DATA = Path(__file__).parent / "data" / "networks"
NETWORKS = [("random-J6-s21-r0.875.json", "1", (3, 2, 2, 2, 2)), ("random-J8-s16-r0.59.json", "8", (1, 2, 1, 1, 2, 1, 1))]


def _rows(name, sink, K):
    red = reduced_network(certify.load(DATA / name), sink)
    chain = compile_chain(red.network)
    return red, chain, CellRows(chain, K, [lambda e: drain_rate(red, chain, red.sinks, e)])


@pytest.mark.parametrize(("name", "sink", "K"), NETWORKS)
def test_the_box_generator_is_the_chain_cut_to_the_box(name, sink, K):
    """Row by row, the box's generator is R''s jumps from the model's rules, each arrival past the box blocked."""
    red, chain, rows = _rows(name, sink, K)
    Q = rows.box_generator().toarray()
    states = list(product(*(range(k + 1) for k in K)))
    index = {x: c for c, x in enumerate(states)}
    for x in random.Random(0).sample(states, 60):
        expect = np.zeros(len(states))
        for y, r in generator(red.network, x):
            y = tuple(min(v, k) for v, k in zip(y, K))  # past the box: blocked, the state stays
            if y != x:
                expect[index[y]] += float(r)
                expect[index[x]] -= float(r)
        assert np.abs(Q[index[x]] - expect).max() < 1e-12


@pytest.mark.parametrize(("name", "sink", "K"), NETWORKS)
@pytest.mark.parametrize("sign", [1, -1])
def test_each_cells_value_is_the_exact_checkers_bound(name, sink, K, sign):
    """u + A'g with every free move at its worst candidate equals u plus the exact cell bound, on every cell."""
    red, chain, rows = _rows(name, sink, K)
    rng = random.Random(1)
    w = [Fraction(rng.randint(-8, 8), 4) for _ in range(chain.J)]
    cells = list(product(*(range(k + 1) for k in K)))
    table = {c: Fraction(rng.randint(-16, 16), 8) for c in cells}
    values, _ = rows.values(rows.rates[0], np.array([float(v) for v in w]),
                            np.array([float(table[c]) for c in cells]), sign)
    D = 32
    W = [int(v * D) for v in w]
    T = {c: int(v * D) for c, v in table.items()}
    side = "at least" if sign > 0 else "at most"
    for r in rng.sample(range(len(rows.Z)), 300):
        z = tuple(int(v) for v in rows.Z[r])
        empty = tuple(a for a, v in enumerate(z) if v == 0)
        exact = drain_rate(red, chain, red.sinks, empty) + Fraction(
            cell_bound(chain, z, K, W, T, list(range(chain.J)), K, side), chain.scale * D)
        assert abs(values[r] - float(exact)) < 1e-9


def _box_solver(name, sink, K):
    """The box law and Poisson solver of the box K (elimination order), and the box generator as a dense array."""
    from certify.search.poisson import box_law, elimination_order

    _, _, rows = _rows(name, sink, K)
    Q = rows.box_generator()
    pi, solve = box_law(Q, range(rows.columns), order=elimination_order(K))
    return pi, solve, Q.toarray()


@pytest.mark.parametrize(("name", "sink", "K"), NETWORKS)
def test_the_box_law_in_elimination_order_solves_the_box_chain_in_its_own_order(name, sink, K):
    """pi and h from the reordered factorisation solve pi Q = 0 and Q h = pi(r) - r (h(0) = 0) by a dense solve."""
    pi, solve, D = _box_solver(name, sink, K)
    n = len(D)
    law = np.linalg.solve(np.vstack([D.T[1:], np.ones(n)]), np.eye(n)[-1])  # pi Q = 0, sum pi = 1
    r = np.random.default_rng(0).normal(size=n)
    r -= law @ r
    h = np.zeros(n)
    h[1:] = np.linalg.solve(D[1:, 1:], r[1:])
    assert np.abs(pi - law).max() < 1e-9
    assert np.abs(solve(r) - h).max() < 1e-7 * max(1.0, np.abs(h).max())


def test_an_lp_over_w_stopped_by_the_deadline_is_not_reported_as_a_bound(monkeypatch):
    """When the solver stops a side's LP at the deadline in force, the try raises TimeLimitReached instead of
    returning a NaN worst cell (which read as "no rate found" and kept the drain stage from its own try)."""
    import certify.search.cell_rows as cell_rows
    from certify.markov.chain import Chain
    from certify.markov.regions import TimeLimitReached

    real = cell_rows.solve_lp
    monkeypatch.setattr(cell_rows, "solve_lp", lambda *a, **k: real(*a, **{**k, "time_limit": 0.0}))
    mm1 = Chain(("1",), (Fraction(1),), (((0,), Fraction(1, 2)),), (), (Fraction(1),))
    busy = lambda e: Fraction(0 if e else 1)  # noqa: E731
    with pytest.raises(TimeLimitReached):
        cell_rows.cell_poisson_rates(CellRows(mm1, (3,), [busy, busy]), Fraction(2, 5), Fraction(3, 5))
    monkeypatch.setattr(cell_rows, "solve_lp", real)
    got, _ = cell_rows.cell_poisson_rates(CellRows(mm1, (3,), [busy, busy]), Fraction(2, 5), Fraction(3, 5))
    assert got.growth is not None and got.drain is not None


@pytest.mark.parametrize("sign", [1, -1])
def test_the_generated_lp_has_the_optimum_of_the_lp_over_every_row(monkeypatch, sign):
    """With a working set of three rows, constraint generation over two blocks of 400 random rows reaches the optimum
    that SciPy's own LP over all 800 rows gives."""
    from scipy.optimize import linprog

    import certify.search.cell_rows as cr

    monkeypatch.setattr(cr, "WORKING_ROWS", 3)
    rng = np.random.default_rng(7)
    J = 4
    blocks = [(rng.normal(size=400), rng.normal(size=(400, J))) for _ in range(2)]
    bounds = (np.concatenate([np.full(J, -100.0), [-np.inf]]), np.concatenate([np.full(J, 100.0), [np.inf]]))
    cost = np.zeros(J + 1)
    cost[-1] = -sign
    x = cr._generated_lp(blocks, sign, cost, bounds, np.zeros(J), None, None)
    v = np.concatenate([b[0] for b in blocks])
    D = np.vstack([b[1] for b in blocks])
    full = linprog(cost, A_ub=np.hstack([-sign * D, sign * np.ones((len(v), 1))]), b_ub=sign * v,
                   bounds=list(zip(bounds[0], bounds[1])), method="highs")
    assert full.status == 0
    assert x[-1] == pytest.approx(full.x[-1], abs=1e-7)
    assert (sign * (v + D @ x[:-1] - x[-1]) >= -1e-7).all()


@pytest.mark.parametrize(("name", "sink", "K"), NETWORKS)
@pytest.mark.parametrize("sign", [1, -1])
def test_the_lp_rows_at_w_are_the_cells_values_at_w(name, sink, K, sign):
    """v + D w from the rows of the candidates values() picked equals values() itself at that w, on every cell."""
    _, chain, rows = _rows(name, sink, K)
    rng = np.random.default_rng(3)
    h0, H, w = rng.normal(size=rows.columns), rng.normal(size=(rows.columns, chain.J)), rng.normal(size=chain.J)
    values, picks = rows.values(rows.rates[0], w, h0 + H @ w, sign)
    v, D = rows.rows(rows.rates[0], h0, H, picks)
    assert np.abs(v + D @ w - values).max() < 1e-9


@pytest.mark.parametrize("sign", [1, -1])
def test_the_lp_rows_built_in_small_chunks_are_the_cells_values(monkeypatch, sign):
    """rows() over chunks of 7 cells (every chunk boundary inside the table) still gives values() at w on every cell."""
    import certify.search.cell_rows as cr

    name, sink, K = NETWORKS[0]
    _, chain, rows = _rows(name, sink, K)
    rng = np.random.default_rng(4)
    h0, H, w = rng.normal(size=rows.columns), rng.normal(size=(rows.columns, chain.J)), rng.normal(size=chain.J)
    values, picks = rows.values(rows.rates[0], w, h0 + H @ w, sign)
    monkeypatch.setattr(cr, "ROWS_CHUNK", 7)
    v, D = rows.rows(rows.rates[0], h0, H, picks)
    assert np.abs(v + D @ w - values).max() < 1e-9


def test_both_sides_in_two_threads_give_what_one_thread_gives(monkeypatch):
    """The drain side solved in a second thread gives the same weights, table and rates as both sides in turn."""
    import os

    import certify.search.cell_rows as cr

    red = reduced_network(certify.load(DATA / NETWORKS[0][0]), NETWORKS[0][1])
    chain = compile_chain(red.network)
    rows = CellRows(chain, (3, 2, 2, 2, 2), [lambda e: Fraction(1 if len(e) < 2 else 0),
                                             lambda e: drain_rate(red, chain, red.sinks, e)])
    threaded, _ = cr.cell_poisson_rates(rows, Fraction(1, 2), Fraction(3, 2))
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    serial, _ = cr.cell_poisson_rates(rows, Fraction(1, 2), Fraction(3, 2))
    assert threaded.growth_value == serial.growth_value and threaded.drain_value == serial.drain_value
    assert threaded.growth == serial.growth and threaded.drain == serial.drain
    assert threaded.drain is not None


def test_a_side_told_to_stop_raises_at_its_next_round():
    """A side whose stop event is set (the other side stopped) raises TimeLimitReached instead of solving on."""
    import threading

    import certify.search.cell_rows as cr
    from certify.markov.chain import Chain
    from certify.markov.regions import TimeLimitReached

    mm1 = Chain(("1",), (Fraction(1),), (((0,), Fraction(1, 2)),), (), (Fraction(1),))
    rows = CellRows(mm1, (3,), [lambda e: Fraction(0 if e else 1)])
    stop = threading.Event()
    stop.set()
    with pytest.raises(TimeLimitReached):
        cr._side(rows, rows.rates[0], np.zeros(rows.columns), np.zeros((rows.columns, 1)), Fraction(2, 5), 1, None,
                 None, stop)


def test_an_interrupted_growth_side_stops_the_drain_side_before_the_interrupt_goes_on(monkeypatch):
    """Ctrl-C in the growth side sets the drain side's stop event, waits for that thread, then reaches the caller."""
    import threading

    import certify.search.cell_rows as cr
    from certify.markov.regions import TimeLimitReached

    seen = {}

    def side(rows, f, h0, H, bound, sign, deadline, solver, stop=None):
        if sign > 0:
            raise KeyboardInterrupt
        seen["thread"] = threading.current_thread()
        if not stop.wait(10):  # a drain side that is never told to stop would end the wait at 10 s
            return None, 0.0
        seen["stopped"] = True
        raise TimeLimitReached("told to stop")

    monkeypatch.setattr(cr, "_side", side)
    monkeypatch.setattr(cr.os, "cpu_count", lambda: 2)
    z = np.zeros(1)
    with pytest.raises(KeyboardInterrupt):
        cr._both_sides(None, (z, z, Fraction(1), []), (z, z, Fraction(1), []), z, None, None)
    assert seen["stopped"] and not seen["thread"].is_alive()


@pytest.mark.parametrize(("name", "sink", "K"), NETWORKS)
def test_the_box_laws_solver_on_several_right_hand_sides_solves_each_by_a_dense_solve(name, sink, K):
    """box_law's solver given an n x k array returns, column by column, the dense solution of Q h = r (h(0) = 0)."""
    pi, solve, D = _box_solver(name, sink, K)
    n = len(D)
    R = np.random.default_rng(1).normal(size=(n, 4))
    R -= pi @ R
    R[:, 2] = 0.0  # a zero right-hand side: h = 0
    want = np.zeros((n, 4))
    want[1:] = np.linalg.solve(D[1:, 1:], R[1:])
    got = solve(R)
    assert got.shape == (n, 4)
    assert np.abs(got - want).max() < 1e-7 * max(1.0, np.abs(want).max())
