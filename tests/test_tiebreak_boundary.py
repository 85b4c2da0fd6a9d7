"""Tie-breaking networks within 1% of the exact boundary, on both sides (truth: a finite CTMC solve)."""

import importlib.util
from fractions import Fraction as F
from pathlib import Path

import pytest

import certify
from certify.io.loader import from_dict

_spec = importlib.util.spec_from_file_location("criteria", Path(__file__).resolve().parents[1] / "models" / "criteria.py")
criteria = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(criteria)


def tie_network(lam12, gamma, lam3):
    """Stations 1, 2 share a JSQ stream (ties to 1 w.p. gamma); 1 feeds 3; 3 has its own stream; all mu = 1."""
    return from_dict(
        {
            "format": "jsq-network/1",
            "name": "tie",
            "stations": {"1": {"mu": 1}, "2": {"mu": 1}, "3": {"mu": 1}},
            "streams": [{"choice": ["1", "2"], "rate": str(lam12)}, {"choice": ["3"], "rate": str(lam3)}],
            "feedback": [{"from": "1", "choice": ["3"], "prob": 1}],
            "tie_breaking": [{"set": ["1", "2"], "probs": {"1": str(gamma), "2": str(1 - gamma)}}],
        }
    )


@pytest.mark.parametrize("lam12,gamma", [(F(1, 2), F(1, 2)), (F(6, 5), F(3, 10)), (F(3, 2), F(9, 10)), (F(4, 5), F(0))])
@pytest.mark.parametrize("load", [F(99, 100), F(101, 100)])
def test_decided_within_one_percent(lam12, gamma, load):
    """Station 3's effective load (lam3 + d_1) at 0.99 is proved stable and at 1.01 proved unstable."""
    d1, lost = criteria.subsystem_throughput(float(lam12), float(gamma))
    assert lost < 1e-12
    lam3 = (load - F(d1)).limit_denominator(10**6)
    res = certify.prove(tie_network(lam12, gamma, lam3))
    assert res.verdict == ("stable" if load < 1 else "unstable"), res.reasons
    assert certify.verify(tie_network(lam12, gamma, lam3), res.certificate).ok


def tie_network_j4(lam12, gamma, lam34, lam4):
    """Four stations: 1, 2 share a JSQ stream (ties to 1 w.p. gamma), 1 feeds 3; 3, 4 share a stream; 4 has its own."""
    return from_dict(
        {
            "format": "jsq-network/1",
            "name": "tie-J4",
            "stations": {s: {"mu": 1} for s in "1234"},
            "streams": [
                {"choice": ["1", "2"], "rate": str(lam12)},
                {"choice": ["3", "4"], "rate": str(lam34)},
                {"choice": ["4"], "rate": str(lam4)},
            ],
            "feedback": [{"from": "1", "choice": ["3"], "prob": 1}],
            "tie_breaking": [{"set": ["1", "2"], "probs": {"1": str(gamma), "2": str(1 - gamma)}}],
        }
    )


@pytest.mark.parametrize("lam12,gamma", [(F(6, 5), F(9, 10)), (F(3, 2), F(1, 2))])
@pytest.mark.parametrize("load", [F(99, 100), F(101, 100)])
def test_four_station_network_decided_within_one_percent(lam12, gamma, load):
    """J = 4: the pair {3,4} at load (d_1 + lam34 + lam4)/2 = 0.99 is proved stable, at 1.01 unstable (table over {1,2})."""
    d1, lost = criteria.subsystem_throughput(float(lam12), float(gamma))
    assert lost < 1e-12
    lam4 = F(1, 5)
    lam34 = (2 * load - F(d1) - lam4).limit_denominator(10**6)
    net = tie_network_j4(lam12, gamma, lam34, lam4)
    res = certify.prove(net)
    assert res.verdict == ("stable" if load < 1 else "unstable"), res.reasons
    assert certify.verify(net, res.certificate).ok
