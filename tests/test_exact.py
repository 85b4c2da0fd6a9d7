"""The exact checker: its import boundary, and that it accepts only true certificates."""

from fractions import Fraction as F

from certify.exact import check_foster, check_growth, check_static_split
from certify.io.loader import from_dict
from certify.markov.chain import Chain, compile_chain
from tests.conftest import assert_runs_without_numpy


def mm1(lam, mu):
    """An M/M/1 queue as a chain."""
    return Chain(("1",), (F(mu),), (((0,), F(lam)),), (), (F(1),))


def parallel(lam, mus):
    """M/M-JSQ with one full-choice stream."""
    J = len(mus)
    return Chain(tuple(str(i + 1) for i in range(J)), tuple(map(F, mus)), ((tuple(range(J)), F(lam)),), (), (F(1),) * J)


def test_checker_imports_no_numpy_or_solver():
    """Loading a network and checking a certificate exactly never imports numpy, scipy or cvxpy."""
    code = (
        "import sys\n"
        "from fractions import Fraction as F\n"
        "from certify.io.loader import loads\n"
        "from certify.markov.chain import compile_chain\n"
        "from certify.exact import check_foster\n"
        "import certify.certificates\n"
        "net = loads('{\"format\": \"jsq-network/1\", \"stations\": {\"1\": {\"mu\": 2}, \"2\": {\"mu\": 1}},"
        " \"streams\": [{\"choice\": [\"1\", \"2\"], \"rate\": 2}]}')\n"
        "res = check_foster(compile_chain(net), 'quadratic', [F(1), F(0), F(1)])\n"
        "assert res.ok, res.failures\n"
    )
    assert_runs_without_numpy(code)


def test_identity_quadratic_proves_stable_mm1():
    """V = x^2 proves an M/M/1 queue with lam < mu stable, with delta = 2(mu - lam) exactly."""
    res = check_foster(mm1(1, 3), "quadratic", [F(1)])
    assert res.ok
    assert res.facts.delta == 4


def test_quadratic_rejected_for_overloaded_mm1():
    """No quadratic is accepted for an M/M/1 queue with lam >= mu."""
    for lam in (3, 4):
        res = check_foster(mm1(lam, 3), "quadratic", [F(1)])
        assert not res.ok and "drift slope" in res.failures[0]


def test_squared_norm_is_exact_without_feedback():
    """|x|^2 proves M/M-JSQ stable exactly when lam < sum mu, the subset condition (docs/math/measurements.md)."""
    assert check_foster(parallel(F(299, 100), [1, 2]), "quadratic", [F(1), F(0), F(1)]).ok
    assert not check_foster(parallel(3, [1, 2]), "quadratic", [F(1), F(0), F(1)]).ok


def test_copositivity_enforced():
    """A P that is not certified copositive is refused even if the drift rows hold."""
    res = check_foster(parallel(1, [1, 2]), "quadratic", [F(1), F(-2), F(1)])
    assert not res.ok and any("copositivity" in f for f in res.failures)


def test_drain_condition_enforced():
    """A station that never releases customers blocks a stability verdict."""
    trap = Chain(("1", "2"), (F(1), F(1)), (((0,), F(1, 10)),), ((0, (1,), F(1)), (1, (0,), F(1))), (F(0), F(0)))
    res = check_foster(trap, "quadratic", [F(1), F(0), F(1)])
    assert not res.ok and "reachable" in res.failures[0]


def test_static_split_dual_checked():
    """The dual certificate of an overloaded M/M-JSQ is accepted; a weak one is not."""
    ch = parallel(4, [1, 2])
    good = check_static_split(ch, {(0, 1): F(-1, 2)}, [F(1, 2), F(1, 2)])
    assert good.ok and good.facts.dual_value == F(-1, 2)
    weak = check_static_split(parallel(2, [1, 2]), {(0, 1): F(-1, 2)}, [F(1, 2), F(1, 2)])
    assert not weak.ok


def test_growth_certificate_checked():
    """w = 1 proves transience of an overloaded M/M-JSQ and is refused for a stable one."""
    assert check_growth(parallel(4, [1, 2]), [F(1), F(1)]).ok
    assert not check_growth(parallel(2, [1, 2]), [F(1), F(1)]).ok


def test_rates_are_exact():
    """Decimal rates from a file arrive in the chain as exact fractions."""
    net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 0.1}}, "streams": [{"choice": ["1"], "rate": 0.07}]})
    ch = compile_chain(net)
    assert ch.mu == (F(1, 10),) and ch.arrivals == (((0,), F(7, 100)),)


def test_finite_capacities_checked():
    """A network with every station capped is stable by finiteness; one uncapped station is not enough."""
    from certify.exact import check_finite

    ch = parallel(5, [1, 2])
    assert check_finite(ch, [3, 4]).ok and check_finite(ch, [3, 4]).facts.states == 20
    assert not check_finite(ch, [3, None]).ok
