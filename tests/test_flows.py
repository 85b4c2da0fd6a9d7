"""The worst station set by max flows (certify.exact.flows) against enumerating every station set."""

import random
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certify.exact.flows import max_closure, max_ratio
from tests.subset_enumeration import enumerate_max_closure, enumerate_max_ratio


def random_instance(seed, max_j=10):
    """Random choice sets and weights on J <= max_j stations, drawn from few values so that ratios often tie."""
    rng = random.Random(seed)
    J = rng.randint(1, max_j)
    mu = [F(rng.choice([1, 1, 2, 3]), rng.choice([1, 1, 2])) for _ in range(J)]
    weights = {}
    for _ in range(rng.randint(0, 2 * J)):
        C = tuple(sorted(rng.sample(range(J), rng.randint(1, min(J, rng.choice([1, 2, 3, J]))))))
        weights[C] = F(rng.randint(0, 4), rng.choice([1, 2]))
    if J >= 4 and rng.random() < 0.3:  # a copy of stations {0, 1} on {2, 3}: an exact tie between disjoint sets
        mu[2], mu[3] = mu[0], mu[1]
        for C in [C for C in weights if set(C) <= {0, 1}]:
            weights[tuple(j + 2 for j in C)] = weights[C]
    return weights, mu


def test_max_ratio_equals_enumeration_on_random_networks():
    """On 300 seeded random networks (J <= 10, ties included) the max flows give the enumeration's ratio and set."""
    for seed in range(300):
        weights, mu = random_instance(seed)
        got = max_ratio(weights, mu)
        assert (got.ratio, got.argmax) == enumerate_max_ratio(weights, mu), (seed, weights, mu)


@pytest.mark.slow
def test_max_ratio_equals_enumeration_on_many_random_networks():
    """The same comparison on 3000 further seeded random networks (J <= 12)."""
    for seed in range(1000, 4000):
        weights, mu = random_instance(seed, max_j=12)
        got = max_ratio(weights, mu)
        assert (got.ratio, got.argmax) == enumerate_max_ratio(weights, mu), (seed, weights, mu)


def test_max_closure_equals_enumeration():
    """max_A w(A) - theta mu(A) and its least maximizer (the cut lemma) equal the enumeration's, at random theta."""
    rng = random.Random(7)
    for seed in range(200):
        weights, mu = random_instance(seed, max_j=8)
        theta = F(rng.randint(0, 6), rng.randint(1, 3))
        assert max_closure(weights, mu, theta) == enumerate_max_closure(weights, mu, theta), (seed, theta)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(st.integers(1, 7).flatmap(lambda J: st.tuples(
    st.lists(st.sampled_from([F(1), F(2), F(1, 2), F(3)]), min_size=J, max_size=J),
    st.dictionaries(st.sets(st.integers(0, J - 1), min_size=1).map(lambda s: tuple(sorted(s))),
                    st.sampled_from([F(0), F(1), F(2), F(1, 3)]), max_size=8))))
def test_max_ratio_equals_enumeration_property(data):
    """For any weights on any choice sets (hypothesis, derandomized), max_ratio agrees with the enumeration."""
    mu, weights = data
    got = max_ratio(weights, mu)
    assert (got.ratio, got.argmax) == enumerate_max_ratio(weights, mu)


def test_smaller_maximizer_is_reported_before_an_earlier_larger_one():
    """A tie between {3} and {0, 1}: the enumeration by size meets {3} first, and so does max_ratio."""
    weights = {(0, 1): F(2), (3,): F(1)}
    got = max_ratio(weights, (F(1), F(1), F(1), F(1)))
    assert got.ratio == 1 and got.argmax == (3,)


def test_nested_maximizers_report_the_smaller():
    """{0} and {0, 1} both reach ratio 2 (the second stream adds exactly 2 mu_1): {0} is reported."""
    got = max_ratio({(0,): F(2), (0, 1): F(2)}, (F(1), F(1)))
    assert got.ratio == 2 and got.argmax == (0,)


def test_equal_disjoint_maximizers_report_the_first():
    """Two identical disjoint pairs at the same ratio: the lexicographically first pair is reported."""
    got = max_ratio({(2, 3): F(3), (0, 1): F(3), (4,): F(1)}, (F(1),) * 5)
    assert got.ratio == F(3, 2) and got.argmax == (0, 1)


def test_no_weight_reports_the_first_station():
    """With every weight 0 every set has ratio 0; the enumeration's first set, {0}, is reported."""
    assert max_ratio({(1, 2): F(0)}, (F(1), F(2), F(3)))[:2] == (F(0), (0,))


def test_equal_rates_take_at_most_j_plus_one_flows():
    """With equal rates mu(A_k) strictly decreases over the iterations, so at most J + 1 max flows are computed."""
    for seed in range(50):
        weights, mu = random_instance(seed, max_j=10)
        assert max_ratio(weights, [F(1)] * len(mu)).flows <= len(mu) + 1


def test_large_ring_has_its_closed_form():
    """A ring of 300 unit stations, stream i on {i, i+1} of rate i % 3 + 1: the worst set is the full ring, ratio 2."""
    J = 300
    weights = {tuple(sorted((i, (i + 1) % J))): F(i % 3 + 1) for i in range(J)}
    got = max_ratio(weights, [F(1)] * J)
    assert got.ratio == 2 and got.argmax == tuple(range(J))


@pytest.mark.parametrize("weights, mu", [({(0,): F(1)}, (F(0),)), ({(0,): F(-1)}, (F(1),)), ({(1,): F(1)}, (F(1),)),
                                         ({(): F(1)}, (F(1),))])
def test_bad_data_is_refused(weights, mu):
    """A zero rate, a negative weight, an unknown station or an empty set is refused, not computed on."""
    with pytest.raises(ValueError):
        max_ratio(weights, mu)


def test_witness_check_refuses_a_flow_over_a_station_capacity():
    """The flow re-read from its arcs must route every weight within theta mu_j: one moved unit over the cap is refused."""
    from certify.exact.flows import _network, _routes_everything

    items, mu, theta = [((0, 1), F(2))], [F(1), F(1)], F(1)
    net, total, scale = _network(items, mu, theta)
    assert net.max_flow() == total and _routes_everything(net, items, mu, theta, scale)
    to_0, to_1 = (e for e in net.adj[2] if e % 2 == 0)  # the arcs {0,1} -> station 0 and -> station 1
    net.cap[to_0 ^ 1] += 1  # one more unit to station 0 ...
    net.cap[to_1 ^ 1] -= 1  # ... one less to station 1: the weight is still routed, station 0 is over theta mu_0
    assert not _routes_everything(net, items, mu, theta, scale)
