"""The region compiler against brute-force classification of states."""

import itertools
from fractions import Fraction as F

import pytest

from certify.markov.chain import Chain
from certify.markov.cones import cone_generators
from certify.markov.regions import enumerate_regions, signature


def full(J):
    """One full-choice stream over J unit-rate stations."""
    return Chain(tuple(str(i + 1) for i in range(J)), (F(1),) * J, ((tuple(range(J)), F(J, 2)),), (), (F(1),) * J)


def ring(J):
    """Pair choice sets on a ring of J stations."""
    sets = tuple(sorted(((min(i, (i + 1) % J), max(i, (i + 1) % J)), F(1, 2)) for i in range(J)))
    return Chain(tuple(str(i + 1) for i in range(J)), (F(1),) * J, sets, (), (F(1),) * J)


FEEDBACK = Chain(
    ("1", "2", "3"),
    (F(1),) * 3,
    (((0, 1), F(1)), ((2,), F(1))),
    ((0, (0, 1), F(1, 2)), (0, (2,), F(1, 3)), (1, (0, 1, 2), F(1, 4))),
    (F(1, 6), F(3, 4), F(1)),
)

FEEDBACK4 = Chain(
    ("a", "b", "c", "d"),
    (F(1),) * 4,
    (((0, 1, 2), F(1)), ((2, 3), F(1))),
    ((3, (1, 3), F(1, 2)), (1, (0, 1), F(1, 4)), (2, (0, 1, 2, 3), F(1, 5))),
    (F(1), F(3, 4), F(4, 5), F(1, 2)),
)


# Nested routing sets (two class sets inside a full-choice set, and a pair inside a class set): the enumeration
# skips argmin combinations of nested sets that disagree without building their DBMs.
NESTED = Chain(
    ("1", "2", "3", "4"),
    (F(1), F(1), F(2), F(2)),
    (((0, 1), F(1, 2)), ((0, 1, 2, 3), F(1)), ((1, 2), F(1, 3)), ((2, 3), F(1, 2))),
    (),
    (F(1),) * 4,
)


# FEEDBACK4 (about 10 s) runs in the slow run only; the default run checks the same partition property with
# feedback at J = 3 (FEEDBACK) and at J = 4 without feedback (full(4), ring(4)).
@pytest.mark.parametrize("chain", [full(2), full(3), full(4), ring(4), FEEDBACK, NESTED,
                                   pytest.param(FEEDBACK4, marks=pytest.mark.slow)],
                         ids=lambda c: str(c.J))
def test_regions_match_brute_force(chain):
    """Every state of a box lies in exactly one region, the one with its signature, and every region is hit."""
    regions = enumerate_regions(chain)
    keys = [r.key for r in regions]
    assert len(set(keys)) == len(keys)
    seen = set()
    box = 2 * chain.J + 1  # every region has an integer point with coordinates <= 2J
    for x in itertools.product(range(box + 1), repeat=chain.J):
        s = signature(chain, x)
        hits = [r for r in regions if r.contains(x)]
        assert len(hits) == 1 and hits[0].key == s
        seen.add(s)
    assert seen == set(keys)


@pytest.mark.parametrize("J,count", [(2, 6), (3, 14), (5, 62), (7, 254)])
def test_full_choice_region_count(J, count):
    """One full-choice stream has 2^(J+1) - 2 signature regions (docs/math/measurements.md)."""
    assert len(enumerate_regions(full(J))) == count == 2 ** (J + 1) - 2


def test_ring_region_count():
    """Pair choice sets on a ring of 7 stations give 5,154 regions (docs/math/measurements.md)."""
    assert len(enumerate_regions(ring(7))) == 5154


@pytest.mark.parametrize("chain", [full(4), ring(4), FEEDBACK4], ids=["full4", "ring4", "feedback4"])
def test_cone_generators_are_recession_directions(chain):
    """Each generator keeps the region's points inside the region when added any number of times."""
    for r in enumerate_regions(chain):
        p = r.point()
        assert r.contains(p)
        for g in cone_generators(r):
            for k in (1, 2, 7):
                assert r.contains(tuple(a + k * b for a, b in zip(p, g)))


@pytest.mark.parametrize("chain", [full(4), ring(4), FEEDBACK4], ids=["full4", "ring4", "feedback4"])
def test_cone_generators_generate(chain):
    """Every 0/1 recession direction is a sum of generators with disjoint supports."""
    for r in enumerate_regions(chain):
        gens = cone_generators(r)
        p = r.point()
        for v in itertools.product((0, 1), repeat=chain.J):
            if not any(v) or not all(r.contains(tuple(a + k * b for a, b in zip(p, v))) for k in (1, 5, 20)):
                continue
            rest = list(v)
            for g in sorted(gens, key=sum, reverse=True):
                if all(rest[a] >= g[a] for a in range(chain.J)) and any(g):
                    rest = [x - y for x, y in zip(rest, g)]
            assert not any(rest), (r.describe(chain.ids), v, gens)


@pytest.mark.parametrize("chain", [FEEDBACK, FEEDBACK4], ids=["feedback3", "feedback4"])
def test_mean_drift_is_sum_of_jumps(chain):
    """The fast mean-drift computation equals the sum of the region's individual jumps."""
    from certify.markov.drift import compile_drifts

    for rd in compile_drifts(chain, enumerate_regions(chain, {0: 2})):
        total = [0] * chain.J
        for d, rate in rd.jumps():
            for a, s in d:
                total[a] += s * rate
        assert tuple(total) == rd.mean
