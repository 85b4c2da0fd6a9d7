"""Exact stationary analysis (certify.stationary, `certify stationary`) against independent truth."""

import json
import subprocess
import sys
from fractions import Fraction
from itertools import product
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq

import certify
from certify.core.errors import NetworkError
from certify.io.loader import from_dict
from certify.stationary import caudal_root, loss2_blocking, qbd_blocks, rate_matrix, stationary

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "public"
QUANTITY_FILES = sorted(
    p.name for p in CORPUS.glob("*.json") if "quantity" in json.loads(p.read_text()).get("expected", {})
) if CORPUS.is_dir() else []


def net_of(stations, streams, feedback=(), tie_breaking=()):
    """A jsq-network/1 network from plain dicts."""
    return from_dict({"format": "jsq-network/1", "name": "t", "stations": stations, "streams": list(streams),
                      "feedback": list(feedback), "tie_breaking": list(tie_breaking)})


def parallel(lam, mus):
    """Parallel JSQ: one stream choosing among every station."""
    ids = [str(i + 1) for i in range(len(mus))]
    return net_of({i: {"mu": m} for i, m in zip(ids, mus)}, [{"choice": ids, "rate": lam}])


@pytest.mark.parametrize("name", QUANTITY_FILES)
def test_corpus_quantity(corpus_dir, name):
    """Every quantity case of the public corpus is matched within its tolerance (blocking probabilities to relative 1e-9)."""
    net = certify.load(corpus_dir / name)
    exp = net.expected
    # the tail rate comes from the min-queue QBD, not from the truncated solve: keep that small for J >= 3
    res = stationary(net, truncate=None if net.J <= 2 else 1)
    value = getattr(res, exp["quantity"])
    assert value is not None
    assert abs(value - float(exp["value"])) <= float(exp["tol"])
    if exp["quantity"] == "blocking_probability":
        assert res.exact
        assert value == pytest.approx(float(exp["value"]), rel=1e-9, abs=0)
        assert res.blocking_closed_form == pytest.approx(float(exp["value"]), rel=1e-12, abs=0)


def test_closed_form_by_hand():
    """For K = 1 the closed form reduces to the birth-death value rho^2 / (1/2 + rho + rho^2)."""
    for rho in (Fraction(1, 3), Fraction(1), Fraction(7, 2)):
        assert loss2_blocking(rho, 1) == rho**2 / (Fraction(1, 2) + rho + rho**2)


@pytest.mark.parametrize("lam,K", [(0.3, 1), (1.9, 4), (2.0, 6), (4.0, 3), (0.7, 8)])
def test_loss2_solve_matches_closed_form(lam, K):
    """The sparse solve of the symmetric two-queue loss system matches the closed form to relative 1e-9 beyond the corpus."""
    net = net_of({"1": {"mu": 1, "capacity": K}, "2": {"mu": 1, "capacity": K}}, [{"choice": ["1", "2"], "rate": lam}])
    res = stationary(net)
    exact = loss2_blocking(Fraction(lam).limit_denominator(1000) / 2, K)
    assert res.exact and res.blocking_closed_form == pytest.approx(float(exact), rel=1e-15)
    assert res.blocking_probability == pytest.approx(float(exact), rel=1e-9, abs=0)


def test_mm1_with_capacity_closed_form():
    """M/M/1/K: blocking rho^K (1-rho)/(1-rho^(K+1)), its mean queue and throughput lam (1 - blocking)."""
    lam, mu, K = 1.3, 1.0, 6
    rho = lam / mu
    p = np.array([rho**n for n in range(K + 1)])
    p /= p.sum()
    res = stationary(net_of({"1": {"mu": mu, "capacity": K}}, [{"choice": ["1"], "rate": lam}]))
    assert res.exact and len(res.pi) == K + 1
    assert res.blocking_probability == pytest.approx(p[K], rel=1e-12)
    assert res.mean_queue[0] == pytest.approx(float(p @ np.arange(K + 1)), rel=1e-12)
    assert res.throughput[0] == pytest.approx(lam * (1 - p[K]), rel=1e-12)
    assert res.loss_rate == pytest.approx(lam * p[K], rel=1e-12)


def test_mm1_truncated_within_reported_error():
    """A truncated M/M/1 misses rho/(1-rho) by no more than the reported mean-queue error, which is not loose."""
    rho = 0.9
    res = stationary(net_of({"1": {"mu": 1}}, [{"choice": ["1"], "rate": rho}]), truncate=60)
    err = res.truncation_error.mean_queue[0]
    off = abs(res.mean_queue[0] - rho / (1 - rho))
    assert not res.exact and off <= err and off >= 0.5 * err
    assert res.truncation_error.boundary_mass == pytest.approx((1 - rho) * rho**60 / (1 - rho**61), rel=1e-9)
    assert res.truncation_error.lost_rate == pytest.approx(rho * res.truncation_error.boundary_mass, rel=1e-9)


# An independent build of a small two-station chain, straight from the rules of FORMAT.md.
CAPS = (3, 4)
MU = (1.0, 1.5)
STREAMS = [((0, 1), 1.2), ((0, 1), 0.8 * 0.25), ((1,), 0.8 * 0.75)]
FEEDBACK = {0: [((0, 1), 0.4)], 1: [((0,), 0.2)]}
TIES = {(0, 1): (0.7, 0.3)}


def balance_net():
    """Capacities, a random selection set, feedback into its own set, non-uniform ties."""
    return net_of(
        {"a": {"mu": 1.0, "capacity": 3}, "b": {"mu": 1.5, "capacity": 4}},
        [{"choice": ["a", "b"], "rate": 1.2}, {"choices": [{"set": ["a", "b"], "prob": 0.25}, {"set": ["b"], "prob": 0.75}], "rate": 0.8}],
        feedback=[{"from": "a", "choice": ["a", "b"], "prob": 0.4}, {"from": "b", "choice": ["a"], "prob": 0.2}],
        tie_breaking=[{"set": ["a", "b"], "probs": {"a": 0.7, "b": 0.3}}],
    )


def route(y, C):
    """{station: prob} for a customer joining the shortest non-full queue of C from y; {} when it is lost."""
    free = [j for j in C if y[j] < CAPS[j]]
    if not free:
        return {}
    low = min(y[j] for j in free)
    tied = tuple(j for j in free if y[j] == low)
    return {tied[0]: 1.0} if len(tied) == 1 else dict(zip(tied, TIES[tied]))


def independent_chain():
    """(states, dense generator, exogenous loss rate per state, feedback loss rate per state)."""
    states = list(product(range(CAPS[0] + 1), range(CAPS[1] + 1)))
    idx = {s: k for k, s in enumerate(states)}
    n = len(states)
    Q = np.zeros((n, n))
    lost_exo, lost_fb = np.zeros(n), np.zeros(n)

    def go(k, y, C, rate, lost):
        to = route(y, C)
        if not to:
            lost[k] += rate
            Q[k, idx[tuple(y)]] += rate
        for j, p in to.items():
            z = list(y)
            z[j] += 1
            Q[k, idx[tuple(z)]] += rate * p

    for k, x in enumerate(states):
        for C, r in STREAMS:
            go(k, list(x), C, r, lost_exo)
        for i in (0, 1):
            if x[i] == 0:
                continue
            y = list(x)
            y[i] -= 1
            stay = sum(p for _, p in FEEDBACK[i])
            Q[k, idx[tuple(y)]] += MU[i] * (1 - stay)
            for C, p in FEEDBACK[i]:
                go(k, y, C, MU[i] * p, lost_fb)
    np.fill_diagonal(Q, 0.0)
    Q -= np.diag(Q.sum(axis=1))
    return states, Q, lost_exo, lost_fb


def test_global_balance_two_station():
    """The solution for a two-station JSQ with capacities, feedback and ties balances the independently built chain."""
    res = stationary(balance_net())
    states, Q, _, _ = independent_chain()
    pi = np.array([res.probability(s) for s in states])
    assert res.exact and len(res.pi) == len(states)
    assert pi.sum() == pytest.approx(1.0, abs=1e-14) and pi.min() > 0
    assert np.max(np.abs(pi @ Q)) < 1e-13


def test_flows_match_independent_chain():
    """Loss rates, throughputs and mean queues equal the flows of the independently built chain."""
    res = stationary(balance_net())
    states, Q, lost_exo, lost_fb = independent_chain()
    A = np.vstack([Q.T, np.ones(len(states))])
    pi = np.linalg.lstsq(A, np.r_[np.zeros(len(states)), 1.0], rcond=None)[0]
    X = np.array(states)
    assert res.exogenous_loss_rate == pytest.approx(pi @ lost_exo, rel=1e-10)
    assert res.feedback_loss_rate == pytest.approx(pi @ lost_fb, rel=1e-10) and res.feedback_loss_rate > 0
    assert res.blocking_probability == pytest.approx(pi @ lost_exo / 2.0, rel=1e-10)
    for i in (0, 1):
        assert res.throughput[i] == pytest.approx(MU[i] * pi @ (X[:, i] > 0), rel=1e-10)
        assert res.mean_queue[i] == pytest.approx(pi @ X[:, i], rel=1e-10)


@pytest.mark.parametrize("lam,mus", [(1.4, [1, 1]), (2.1, [1, 1, 1])], ids=["k2", "k3"])
def test_tail_rate_symmetric(lam, mus):
    """Symmetric parallel JSQ: the min-queue tail-decay rate is rho^k."""
    res = stationary(parallel(lam, mus), truncate=4)
    rho = lam / sum(mus)
    assert res.min_queue_tail_decay_rate == pytest.approx(rho ** len(mus), abs=1e-6)
    assert res.tail_error < 1e-5


@pytest.mark.parametrize("lam,mus", [(3.0, [1, 3]), (3.75, [1, 1.5, 2.5])], ids=["k2", "k3"])
def test_tail_rate_heterogeneous(lam, mus):
    """Heterogeneous parallel JSQ: the min-queue tail-decay rate is rho^k, rho = lam / sum mu."""
    res = stationary(parallel(lam, mus), truncate=4)
    rho = lam / sum(mus)
    assert res.min_queue_tail_decay_rate == pytest.approx(rho ** len(mus), abs=1e-6)


def test_rate_matrix_and_caudal_root_agree():
    """sp(R) from logarithmic reduction equals the caudal characteristic root, and R solves its equation."""
    A0, A1, A2, _ = qbd_blocks(3.0, [0.5, 1.0, 2.0], 4)
    R = rate_matrix(A0, A1, A2)
    A0, A1, A2 = (a.toarray() for a in (A0, A1, A2))
    assert R.min() >= -1e-14
    assert np.max(np.abs(A0 + R @ A1 + R @ R @ A2)) < 1e-12
    assert max(abs(np.linalg.eigvals(R))) == pytest.approx(caudal_root(A0, A1, A2), abs=1e-9)


def test_unstable_parallel_has_no_tail():
    """Overloaded parallel JSQ gets no tail-decay rate and a note saying why."""
    res = stationary(parallel(2.2, [1, 1]), truncate=30)
    assert res.min_queue_tail_decay_rate is None and any("unstable" in n for n in res.notes)


def test_empirical_tail_of_jackson_network():
    """Two dedicated M/M/1 queues: the empirical min-queue ratio of the truncated solve is rho_1 rho_2."""
    net = net_of({"1": {"mu": 1}, "2": {"mu": 1}}, [{"choice": ["1"], "rate": 0.5}, {"choice": ["2"], "rate": 0.6}])
    res = stationary(net, truncate=150)
    assert res.min_queue_tail_decay_rate == pytest.approx(0.3, rel=1e-9)
    assert "empirical" in res.tail_method


def test_erlang_service_pollaczek_khinchine():
    """M/E2/1 (phase-type service): the mean queue is the Pollaczek-Khinchine value rho + lam^2 E[S^2] / (2 (1 - rho))."""
    lam = 0.7
    net = net_of({"1": {"mu": 1, "service": {"dist": "erlang", "k": 2}}}, [{"choice": ["1"], "rate": lam}])
    res = stationary(net, truncate=150)
    assert res.mean_queue[0] == pytest.approx(lam + lam**2 * 1.5 / (2 * (1 - lam)), rel=1e-10)
    assert res.throughput[0] == pytest.approx(lam, rel=1e-10)


def test_erlang_arrivals_gi_m_1():
    """E2/M/1 (phase-type arrivals): the mean queue is rho / (1 - sigma), sigma = A*(mu (1 - sigma))."""
    lam = 0.7
    net = net_of({"1": {"mu": 1}}, [{"choice": ["1"], "rate": lam, "interarrival": {"dist": "erlang", "k": 2}}])
    res = stationary(net, truncate=150)
    sigma = brentq(lambda s: s - (2 * lam / (2 * lam + 1 - s)) ** 2, 1e-9, 1 - 1e-9, xtol=1e-15)
    assert res.mean_queue[0] == pytest.approx(lam / (1 - sigma), rel=1e-9)
    assert res.arrival_rate == pytest.approx(lam, rel=1e-12)


def test_fork_join_refused(corpus_dir):
    """Fork-join files are refused with a NetworkError (and by the CLI with one line, exit 2)."""
    path = corpus_dir / "fjr-n3k2-max-333333-rho0.90.json"
    with pytest.raises(NetworkError, match="fork-join"):
        stationary(certify.load(path))
    out = run("stationary", path)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr


def run(*args):
    """Run the CLI and return the completed process (text mode)."""
    return subprocess.run([sys.executable, "-m", "certify.cli", *map(str, args)], capture_output=True, text=True)


def test_cli_json_last_line(corpus_dir):
    """`stationary --json` prints one object on the last line with the corpus quantity names, exact and truncation_error."""
    path = corpus_dir / "loss2-a1.0-K2.json"
    out = run("stationary", path, "--json")
    assert out.returncode == 0, out.stderr
    obj = json.loads(out.stdout.strip().splitlines()[-1])
    assert {"mean_queue", "throughput", "loss_rate", "blocking_probability", "min_queue_tail_decay_rate",
            "exact", "truncation_error"} <= set(obj)
    expected = json.loads(path.read_text())["expected"]["value"]
    assert obj["exact"] is True and obj["blocking_probability"] == pytest.approx(expected, rel=1e-9, abs=0)
    assert obj["mean_queue"]["1"] == pytest.approx(obj["mean_queue"]["2"], rel=1e-12)


def test_cli_table_and_truncate(corpus_dir):
    """The human report shows the blocking probability with its closed form; --truncate sets the truncation."""
    out = run("stationary", corpus_dir / "loss2-a1.0-K2.json")
    assert out.returncode == 0 and "blocking probability 0.047619047619 (closed form 0.047619047619)" in out.stdout
    out = run("stationary", corpus_dir / "kingman-k2-rho0.8.json", "--truncate", "12", "--json")
    obj = json.loads(out.stdout.strip().splitlines()[-1])
    assert obj["exact"] is False and obj["levels"] == {"1": 12, "2": 12} and obj["truncation_error"]["boundary_mass"] > 0
    assert run("stationary", corpus_dir / "kingman-k2-rho0.8.json", "--truncate", "0").returncode == 2


@pytest.mark.slow
def test_phase_type_network_agrees_with_simulation():
    """A phase-type network with feedback and capacities agrees with the simulator within its confidence intervals."""
    from certify.simulation.simulate import simulate

    net = net_of(
        {"1": {"mu": 1.0, "service": {"dist": "hyperexponential", "scv": "5/3"}, "capacity": 4},
         "2": {"mu": 1.5, "capacity": 3, "service": {"dist": "erlang", "k": 2}}},
        [{"choice": ["1", "2"], "rate": 1.8, "interarrival": {"dist": "erlang", "k": 3}}, {"choice": ["1"], "rate": 0.3}],
        feedback=[{"from": "1", "choice": ["1", "2"], "prob": 0.3}, {"from": "2", "choice": ["1"], "prob": 0.2}],
    )
    res = stationary(net)
    sim = simulate(net, 20000, replications=4, seed=1, warmup=500, progress=False).to_json()
    for k, sid in enumerate(res.station_ids):
        for ours, key in ((res.mean_queue[k], "mean_queue"), (res.throughput[k], "throughput")):
            lo, hi = sim[key][sid]["ci"]
            assert lo <= ours <= hi, (key, sid, ours, lo, hi)
    lo, hi = sim["loss_rate"]["total"]["ci"]
    assert lo <= res.loss_rate <= hi
