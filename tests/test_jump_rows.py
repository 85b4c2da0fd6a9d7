"""The float rows of the sink LPs and Poisson tables (certify.search.sink.jump_rows) and the memoised jumps.

Truth from outside the fast paths: B is rebuilt region by region from certify.markov.drift.cell_moves (the exact
checker's own reading of a table's moves), and each region's jumps and mean drift are recomputed without the
memo, from the chain's rates alone.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

import certify
from certify.exact.growth import growth_levels
from certify.exact.sink import reduced_network
from certify.markov.chain import compile_chain
from certify.markov.drift import cell_moves, compile_drifts
from certify.markov.jumps import _jumps, _mean, _Rates
from certify.markov.phases import markov_chain
from certify.markov.regions import iter_regions
from certify.search.sink import jump_rows

DATA = Path(__file__).parent / "data" / "networks"


def _loop_B(chain, drifts, fast, K, pos):
    """B of jump_rows built region by region from cell_moves, as a dense array."""
    B = np.zeros((len(drifts), len(pos)))
    for r, rd in enumerate(drifts):
        c, moves, tot = cell_moves(rd, list(fast), K)
        for c2, rate in moves.items():
            B[r, pos[c2]] += rate / chain.scale
        B[r, pos[c]] -= tot / chain.scale
    return B


@pytest.mark.parametrize("seed", range(4))
def test_the_vectorised_rows_equal_the_region_by_region_moves(seed):
    """On R' of J = 6 seed 21 (sink 1), random tables with one or several clip levels give the same B as cell_moves."""
    red = reduced_network(certify.load(DATA / "random-J6-s21-r0.875.json"), "1")
    chain = compile_chain(red.network)
    rng = random.Random(seed)
    fast = sorted(rng.sample(range(chain.J), rng.randint(1, chain.J)))
    K = tuple(rng.randint(1, 3) for _ in fast) if seed % 2 else rng.randint(1, 2)
    drifts = compile_drifts(chain, list(iter_regions(chain, growth_levels(chain, fast, K))))
    rows = jump_rows(chain, drifts, fast, K)
    assert np.abs(rows.B.toarray() - _loop_B(chain, drifts, fast, K, rows.pos)).max() < 1e-12


def test_the_rows_of_a_phase_type_chain_still_follow_cell_moves():
    """A chain with phases (Erlang-2 at a cascade's head) keeps the region-by-region path: the same B."""
    net = certify.load(DATA / "cascade3-erlang2-head-r0.97.json")
    chain = markov_chain(net)
    assert chain.has_phases
    fast, K = [0, 1], 1
    drifts = compile_drifts(chain, list(iter_regions(chain, growth_levels(chain, fast, K))))
    rows = jump_rows(chain, drifts, fast, K)
    assert np.abs(rows.B.toarray() - _loop_B(chain, drifts, fast, K, rows.pos)).max() < 1e-12


def test_memoised_jumps_and_means_equal_those_computed_afresh():
    """Every region of J = 8 seed 16 (K = 1 on every station) has the jumps and mean drift of a fresh computation."""
    chain = compile_chain(certify.load(DATA / "random-J8-s16-r0.59.json"))
    fast = list(range(chain.J))
    drifts = compile_drifts(chain, list(iter_regions(chain, growth_levels(chain, fast, 1))))
    assert len({rd.region.routing for rd in drifts}) < len(drifts)
    for rd in drifts:
        fresh = _Rates(chain)
        assert rd.jumps() == list(_jumps(chain, rd.region, fresh))
        assert rd.mean == _mean(chain, rd.region, fresh)
