"""The cell-by-cell check of the sink kinds' rate inequalities (certify.exact.cell_rates, docs/math/cells.md).

Truth from outside the checker: A'g is evaluated state by state from the model's JSQ rules
(tests/independent.py's ``generator``), and the region-by-region check (certify.exact.rates.rate_failure) decides
the same inequalities on every region.
"""

from __future__ import annotations

import os
import random
import time
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

import certify
import certify.exact.cell_rates as cell_rates
from certify.exact.cell_rates import by_cells, cell_bound, cell_levels, cell_rate_failure
from certify.exact.drain import drain_rate
from certify.exact.growth import growth_levels
from certify.exact.rates import rate_failure
from certify.exact.sink import reduced_network
from certify.markov.chain import compile_chain
from certify.markov.drift import clip_levels, compile_drifts
from certify.markov.regions import iter_regions
from tests.independent import generator

DATA = Path(__file__).parent / "data" / "networks"
# (network file, sink): R' of five stations with ties; of seven with feedback into sets holding its source
NETWORKS = [("random-J6-s21-r0.875.json", "1"), ("random-J8-s16-r0.59.json", "8"), ("random-J8-s15-r0.8828.json", "3")]


def _random_function(chain, rng, full):
    """Random weights and a random table over some stations (every one when ``full``) with levels 1..3."""
    fast = list(range(chain.J)) if full else sorted(rng.sample(range(chain.J), rng.randint(1, 3)))
    K = tuple(rng.randint(1, 3) for _ in fast)
    w = [Fraction(rng.randint(-8, 8), 4) for _ in range(chain.J)]
    table = {c: Fraction(rng.randint(-16, 16), 8) for c in product(*(range(k + 1) for k in K))}
    return w, table, fast, K


def _independent_drift(net, w, table, fast, K, x):
    """A'g at the state x of R' (a Network), from the model's own jump rules: g = w'x + T(min(x_fast, K))."""
    def g(y):
        return sum((a * b for a, b in zip(w, y)), Fraction(0)) + table[tuple(min(y[a], k) for a, k in zip(fast, K))]

    gx = g(x)
    return sum((r * (g(y) - gx) for y, r in generator(net, x)), Fraction(0))


@pytest.mark.parametrize(("name", "sink"), NETWORKS)
@pytest.mark.parametrize("seed", range(2))
def test_the_cell_bounds_enclose_the_drift_at_every_state_of_the_cell(name, sink, seed):
    """At random states of R' (queues up to three past each level) A'g lies between the cell's two bounds."""
    red = reduced_network(certify.load(DATA / name), sink)
    chain = compile_chain(red.network)
    rng = random.Random(seed)
    w, table, fast, K = _random_function(chain, rng, full=seed == 0)
    levels = cell_levels(chain, fast, K)
    D = 8 * 4
    W = [int(v * D) for v in w]
    T = {c: int(v * D) for c, v in table.items()}
    for _ in range(150):
        x = tuple(rng.randint(0, L + 3) for L in levels)
        z = tuple(min(v, L + 1) for v, L in zip(x, levels))
        exact = _independent_drift(red.network, w, table, fast, K, x)
        hi = Fraction(cell_bound(chain, z, levels, W, T, fast, K, "at most"), chain.scale * D)
        lo = Fraction(cell_bound(chain, z, levels, W, T, fast, K, "at least"), chain.scale * D)
        assert lo <= exact <= hi, (x, lo, exact, hi)


@pytest.mark.parametrize(("name", "sink"), NETWORKS[:2])
def test_on_a_cell_that_fixes_every_queue_both_bounds_are_the_drift(name, sink):
    """Where the cell is one state (every queue at or under its level) the bound is A'g there, exactly."""
    red = reduced_network(certify.load(DATA / name), sink)
    chain = compile_chain(red.network)
    rng = random.Random(3)
    w, table, fast, K = _random_function(chain, rng, full=True)
    D = 8 * 4
    W = [int(v * D) for v in w]
    T = {c: int(v * D) for c, v in table.items()}
    for _ in range(60):
        x = tuple(rng.randint(0, k) for k in K)
        exact = _independent_drift(red.network, w, table, fast, K, x)
        for side in ("at most", "at least"):
            assert Fraction(cell_bound(chain, x, K, W, T, fast, K, side), chain.scale * D) == exact


def _drained(seed):
    """R' of J = 6 seed 21 (sink 1), its drain rate u, a random function on a few stations and its regions."""
    red = reduced_network(certify.load(DATA / "random-J6-s21-r0.875.json"), "1")
    chain = compile_chain(red.network)
    w, table, fast, K = _random_function(chain, random.Random(seed), full=False)
    u = lambda empty: drain_rate(red, chain, red.sinks, empty)  # noqa: E731
    drifts = compile_drifts(chain, list(iter_regions(chain, growth_levels(chain, fast, K))))
    return chain, u, w, table, fast, K, drifts


def _both_checks(chain, drifts, rate_of, w, c, table, fast, K, side):
    by_regions = rate_failure(chain, drifts, rate_of, w, c, table, fast, K, side)
    return cell_rate_failure(chain, rate_of, w, c, table, fast, K, side), by_regions


@pytest.mark.parametrize("side", ["at most", "at least"])
def test_the_cell_check_accepts_exactly_the_rates_the_region_check_accepts(side):
    """At the region check's own worst value the cell check passes; a step past it, both refuse."""
    chain, u, w, table, fast, K, drifts = _drained(5)
    values = []
    for rd in drifts:  # the worst value of u + A'g over the regions, from the region check's own answer
        bad = rate_failure(chain, [rd], u, w, Fraction(10**6) if side == "at most" else Fraction(-10**6), table,
                           fast, K, "at least" if side == "at most" else "at most")
        values.append(Fraction(bad.split(" = ")[1].split(" ")[0]))
    worst = max(values) if side == "at most" else min(values)
    step = Fraction(1, 10**6) if side == "at most" else Fraction(-1, 10**6)
    cells, regions = _both_checks(chain, drifts, u, w, worst, table, fast, K, side)
    assert regions is None and cells.failure is None
    cells, regions = _both_checks(chain, drifts, u, w, worst - step, table, fast, K, side)
    assert regions is not None and cells.failure is not None


def test_a_cell_whose_bound_fails_is_checked_region_by_region(monkeypatch):
    """With every cell's bound failing, the check lists each cell's regions and decides as the region check does."""
    chain, u, w, table, fast, K, drifts = _drained(7)
    monkeypatch.setattr(cell_rates._Bounds, "bound", lambda *a, **k: 10**30)
    for c in (Fraction(100), Fraction(-100)):
        got = cell_rate_failure(chain, u, w, c, table, fast, K, "at most")
        assert (got.failure is None) == (rate_failure(chain, drifts, u, w, c, table, fast, K, "at most") is None)
        if got.failure is None:
            assert got.split == got.cells and got.regions == len(drifts)


def test_a_phase_type_chain_is_checked_region_by_region():
    """The cell check is for exponential chains: a chain with phases goes to the region check."""
    from certify.markov.phases import markov_chain

    chain = markov_chain(certify.load(DATA / "cascade3-erlang2-head-r0.97.json"))
    assert not by_cells(chain, [0], 1)
    assert by_cells(compile_chain(certify.load(DATA / "random-J6-s21-r0.875.json")), [0], clip_levels([0], 1))


@pytest.mark.parametrize("side", ["at most", "at least"])
def test_a_check_split_over_processes_answers_as_one_process_does(monkeypatch, side):
    """Forced into two worker processes, the check gives one process's answer: the same first failure and counts."""
    chain, u, w, table, fast, K, drifts = _drained(5)
    worst = Fraction(1 if side == "at most" else 0)
    split = cell_rates._in_processes
    used: list[int] = []
    monkeypatch.setattr(cell_rates, "_in_processes", lambda job, n: used.append(n) or split(job, n))
    monkeypatch.setattr(cell_rates, "PARALLEL_CELLS", 1)
    answers = []
    for processes in ("1", "2"):
        monkeypatch.setenv("CERTIFY_CHECK_PROCESSES", processes)
        answers.append([cell_rate_failure(chain, u, w, c, table, fast, K, side)
                        for c in (worst + 10**6 * (1 if side == "at most" else -1), worst)])
    assert used == [2, 2]  # the second round ran in two processes, the first in this one
    assert answers[0] == answers[1]
    assert answers[0][0].failure is None and answers[0][1].failure is not None  # one passes, one fails
    assert 0 < answers[0][1].cells < answers[0][0].cells  # the failure ends the check: fewer cells


def test_the_deadline_stops_a_check_split_over_processes(monkeypatch):
    """A worker past the deadline stops the whole check with TimeLimitReached, as one process does."""
    import time

    from certify.markov.regions import TimeLimitReached

    chain, u, w, table, fast, K, _ = _drained(5)
    monkeypatch.setattr(cell_rates, "check_processes", lambda: 2)
    monkeypatch.setattr(cell_rates, "PARALLEL_CELLS", 1)
    with pytest.raises(TimeLimitReached, match="the exact check"):
        cell_rate_failure(chain, u, w, Fraction(10**6), table, fast, K, "at most", deadline=time.perf_counter() - 1)


_PARENT = os.getpid()


def _dying_slice(prefix):
    """A worker's part that kills its worker process on the first slice (the parent runs it itself)."""
    if os.getpid() != _PARENT and not any(prefix):
        os._exit(1)
    return cell_rates._JOB.run(prefix)


def _hanging_slice(prefix):
    """A worker's part that hangs for five seconds on the first slice, past any deadline near now."""
    if os.getpid() != _PARENT and not any(prefix):
        time.sleep(5)
    return cell_rates._JOB.run(prefix)


def _split_check(monkeypatch, side):
    """A split check's arguments (a drained box, a claim that fails and one that holds on ``side``) and one process's
    answers to them; every check after this is split, however few its cells."""
    chain, u, w, table, fast, K, _ = _drained(5)
    worst = Fraction(1 if side == "at most" else 0)
    bounds = (worst + 10**6 * (1 if side == "at most" else -1), worst)
    monkeypatch.setattr(cell_rates, "PARALLEL_CELLS", 1)
    monkeypatch.setattr(cell_rates, "check_processes", lambda: 1)
    alone = [cell_rate_failure(chain, u, w, c, table, fast, K, side) for c in bounds]
    return (chain, u, w, table, fast, K), bounds, alone


@pytest.mark.parametrize("side", ["at most", "at least"])
def test_a_check_whose_worker_dies_still_answers_as_one_process_does(monkeypatch, side):
    """A worker killed during a split check costs its slices a run in the parent, not the answer."""
    args, bounds, alone = _split_check(monkeypatch, side)
    here: list[tuple[int, ...]] = []  # the slices the parent runs itself
    run = cell_rates._Cells.run

    def counted(job, prefix):
        if os.getpid() == _PARENT:
            here.append(prefix)
        return run(job, prefix)

    monkeypatch.setattr(cell_rates._Cells, "run", counted)
    monkeypatch.setattr(cell_rates, "check_processes", lambda: 2)
    monkeypatch.setattr(cell_rates, "_run_slice", _dying_slice)
    assert [cell_rate_failure(*args[:3], c, *args[3:], side) for c in bounds] == alone
    assert here and not any(here[0])  # the dead worker's first slice was run here


@pytest.mark.parametrize("side", ["at least", "at most"])
def test_a_pool_that_breaks_while_the_slices_are_handed_out_still_answers_as_one_process_does(monkeypatch, side):
    """A worker that dies before every slice is submitted (the pool refuses the rest) costs those slices a run in the
    parent, not the answer (a race the suite met in a fresh clone's CI run, stop 64)."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    args, bounds, alone = _split_check(monkeypatch, side)

    class Breaking(ProcessPoolExecutor):
        """A pool that refuses every slice after its third, as a broken pool does."""

        def __init__(self, *args, **kw):
            super().__init__(*args, **kw)
            self.handed = 0

        def submit(self, fn, /, *args, **kwargs):
            self.handed += 1
            if self.handed > 3:
                raise BrokenProcessPool("a child process terminated abruptly")
            return super().submit(fn, *args, **kwargs)

    monkeypatch.setattr(cell_rates, "ProcessPoolExecutor", Breaking)
    monkeypatch.setattr(cell_rates, "check_processes", lambda: 2)
    assert [cell_rate_failure(*args[:3], c, *args[3:], side) for c in bounds] == alone


def test_a_hanging_worker_does_not_hold_the_check_past_its_deadline(monkeypatch):
    """A worker that does not answer stops the split check with TimeLimitReached a second past the deadline."""
    from certify.markov.regions import TimeLimitReached

    chain, u, w, table, fast, K, _ = _drained(5)
    monkeypatch.setattr(cell_rates, "PARALLEL_CELLS", 1)
    monkeypatch.setattr(cell_rates, "check_processes", lambda: 2)
    monkeypatch.setattr(cell_rates, "_run_slice", _hanging_slice)
    start = time.perf_counter()
    with pytest.raises(TimeLimitReached, match="the exact check"):
        cell_rate_failure(chain, u, w, Fraction(10**6), table, fast, K, "at most", deadline=start + 1.0)
    assert time.perf_counter() - start < 4.0


def test_check_processes_follows_its_environment_variable(monkeypatch):
    """CERTIFY_CHECK_PROCESSES sets the processes of a large check (a sweep's pool workers set it to 1)."""
    monkeypatch.setenv("CERTIFY_CHECK_PROCESSES", "3")
    assert cell_rates.check_processes() == 3
    monkeypatch.setenv("CERTIFY_CHECK_PROCESSES", "1")
    assert cell_rates.check_processes() == 1
