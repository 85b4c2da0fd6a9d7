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
from certify.stationary import caudal_root, jsq_tail_theorem, loss2_blocking, qbd_blocks, rate_matrix, stationary
from certify.stationary.caudal import perron_abscissa, phase_blocks
from certify.stationary.qbd import min_queue_decay
from certify.stationary.tail_sequence import decay_sequence, increasing_limit

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "public"
QUANTITY_FILES = sorted(
    p.name for p in CORPUS.glob("*.json") if "quantity" in json.loads(p.read_text()).get("expected", {})
)


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


# An independent build of a small two-station chain, straight from the rules of the network format (docs/guide/format.md).
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


# --- the min-queue tail decay at scale (issue 12): sparse caudal numerics, error bounds, the theorem line ---

K5_RATES = [0.4, 0.8, 1.0, 1.3, 1.5]  # the heterogeneous k = 5 network of issue 12, load 0.9: rho^5 = 0.59049


def tie_split_07(B):
    """A non-uniform tie rule: the lowest-numbered tied station takes 0.7 of a two-way tie, else uniform."""
    return [(B[0], 0.7), (B[1], 0.3)] if len(B) == 2 else [(j, 1 / len(B)) for j in B]


@pytest.mark.parametrize("mus,D,lump,split", [
    (K5_RATES, 3, False, None), ([1.0, 1.0, 1.5, 1.5], 4, True, None), ([1.0] * 4, 5, True, None),
    ([1.0, 2.0, 3.0], 4, False, tie_split_07),
], ids=["k5-het", "two-classes", "symmetric", "unequal-ties"])
def test_phase_blocks_equal_the_reference_loop(mus, D, lump, split):
    """The numpy block builder gives exactly the blocks and phase order of the per-phase loop of qbd_blocks."""
    b = phase_blocks(2.0, mus, D, split, lump)
    A0, A1, A2, ph = qbd_blocks(2.0, mus, D, split, lump=lump)
    assert b.phases.tolist() == [list(p) for p in ph]
    for ours, ref in zip((b.A0, b.A1, b.A2), (A0, A1, A2)):
        assert abs(ours - ref).max() < 1e-14
    assert np.abs(b.M(0.37).toarray() - (A0 / 0.37 + A1 + 0.37 * A2).toarray()).max() < 1e-14


def test_perron_abscissa_against_dense_eigenvalues():
    """Arnoldi's Perron root of M(z) equals the largest real eigenvalue of the dense matrix from the reference loop."""
    A0, A1, A2, _ = qbd_blocks(3.0, [0.5, 1.0, 2.0], 6)
    b = phase_blocks(3.0, [0.5, 1.0, 2.0], 6)
    assert b.phases.shape[0] > 64  # the Arnoldi path, not the dense one
    for z in (0.2, 0.5, 0.9):
        dense = max(np.linalg.eigvals((A0 / z + A1 + z * A2).toarray()).real)
        chi, v = perron_abscissa(b, z)
        assert chi == pytest.approx(dense, abs=1e-10)
        assert v.min() >= 0 and np.abs(b.M(z) @ v - chi * v).max() < 1e-9


def test_caudal_root_agrees_with_rate_matrix():
    """The root of decay_sequence at D = 4 equals sp(R) of logarithmic reduction on the same (reference) blocks."""
    steps = decay_sequence(3.0, [0.5, 1.0, 2.0], 4)
    R = rate_matrix(*qbd_blocks(3.0, [0.5, 1.0, 2.0], 4)[:3])
    assert [s.D for s in steps] == [1, 2, 3, 4]
    assert steps[-1].eta == pytest.approx(max(abs(np.linalg.eigvals(R))), abs=1e-9)
    assert all(a.eta < b.eta for a, b in zip(steps, steps[1:]))  # capping removes customers: increasing in D


@pytest.mark.parametrize("lam,mus", [(1.8, [1, 1]), (2.7, [1, 1, 1])], ids=["k2", "k3"])
def test_tail_numerics_symmetric_load_09(lam, mus):
    """Symmetric JSQ at load 0.9: the numerics reach rho^k within their error bound, and the bound is below 1e-7."""
    d = min_queue_decay(parallel(lam, mus))
    truth = 0.9 ** len(mus)
    assert d.error <= 1e-7 and abs(d.rate - truth) <= d.error
    assert d.theorem == pytest.approx(truth, rel=1e-15)


@pytest.mark.parametrize("lam,mus,lump", [(3.0, [1.0, 3.0], False), (3.75, [1.0, 1.5, 2.5], False),
                                          (2.7, [1.0, 1.0, 1.0], True), (3.6, [0.5, 0.5, 1.5, 1.5], True)],
                         ids=["k2-het", "k3-het", "k3-sym", "k4-two-classes"])
def test_error_bound_covers_true_error_at_every_D(lam, mus, lump):
    """Wherever increasing_limit claims a bound along the sequence D = 1, 2, ..., the true rho^k lies within it."""
    steps = decay_sequence(lam, mus, 14, lump=lump, max_phases=3000)
    truth = (lam / sum(mus)) ** len(mus)
    etas = [s.eta for s in steps]
    assert all(e < truth + 1e-9 for e in etas)  # every truncation is below the limit
    bounded = 0
    for n in range(1, len(etas) + 1):
        lim = increasing_limit(etas[:n])
        if lim.bounded:
            bounded += 1
            assert abs(lim.value - truth) <= lim.error, (n, lim)
    assert bounded >= 4


def test_increasing_limit_refuses_a_bound_while_ratios_rise():
    """Difference ratios still rising (below 1): an Aitken value but no bound; ratios falling: a bracket that holds."""
    rising = np.cumsum(np.cumprod([0.5, 0.3, 0.35, 0.4, 0.45, 0.5]))
    lim = increasing_limit(rising)
    assert not lim.bounded and lim.value > rising[-1]
    diffs = [0.5 ** (n + n * n / 20) for n in range(1, 80)]  # ratios 0.5^(1 + (2n + 1) / 20), falling
    lim = increasing_limit(np.cumsum(diffs[:8]))
    assert lim.bounded and abs(lim.value - sum(diffs)) <= lim.error


def test_tail_k5_heterogeneous_bound_at_D6():
    """Issue 12's k = 5 network, D <= 6 (9031 phases): the bound covers the true error and is below 2e-3."""
    d = min_queue_decay(parallel(4.5, K5_RATES), max_phases=10_000)
    assert d.max_difference == 6 and sorted(d.raw) == [1, 2, 3, 4, 5, 6] and d.bounded
    assert abs(d.rate - 0.59049) <= d.error < 2e-3


@pytest.mark.slow
def test_tail_k5_heterogeneous_default():
    """Issue 12's k = 5 network with the default budget: within 1e-4 of rho^5 = 0.59049, inside its bound."""
    d = min_queue_decay(parallel(4.5, K5_RATES))
    assert d.error < 1e-4 and abs(d.rate - 0.59049) <= d.error
    assert d.theorem == 0.59049


def test_theorem_exact_for_heterogeneous_full_choice():
    """jsq_tail_theorem gives (lam / sum mu)^k exactly for heterogeneous parallel JSQ with fair ties."""
    net = net_of({"1": {"mu": "2/5"}, "2": {"mu": "4/5"}, "3": {"mu": 1}}, [{"choice": ["1", "2", "3"], "rate": "3/2"}])
    assert jsq_tail_theorem(net) == (Fraction(3, 2) / Fraction(11, 5)) ** 3


@pytest.mark.parametrize("net", [
    net_of({"1": {"mu": 1}, "2": {"mu": 1}}, [{"choice": ["1", "2"], "rate": 1.2}],
           feedback=[{"from": "1", "choice": ["1", "2"], "prob": 0.2}]),
    net_of({"1": {"mu": 1}, "2": {"mu": 1}}, [{"choice": ["1", "2"], "rate": 1.0}, {"choice": ["1"], "rate": 0.5}]),
    net_of({"1": {"mu": 1}, "2": {"mu": 2}}, [{"choice": ["1", "2"], "rate": 2.0}],
           tie_breaking=[{"set": ["1", "2"], "probs": {"1": 0.7, "2": 0.3}}]),
    net_of({"1": {"mu": 1, "capacity": 5}, "2": {"mu": 1, "capacity": 5}}, [{"choice": ["1", "2"], "rate": 1.0}]),
    net_of({"1": {"mu": 1, "service": {"dist": "erlang", "k": 2}}, "2": {"mu": 1}}, [{"choice": ["1", "2"], "rate": 1.0}]),
    net_of({"1": {"mu": 1}}, [{"choice": ["1"], "rate": 0.5}]),
    net_of({"1": {"mu": 1}, "2": {"mu": 1}}, [{"choice": ["1", "2"], "rate": 2.5}]),
], ids=["feedback", "partial-choice", "unequal-ties", "capacities", "erlang", "k1", "unstable"])
def test_theorem_absent_where_a_hypothesis_fails(net):
    """No theorem value (and no theorem line) for feedback, partial choice sets, unequal ties, capacities,
    non-exponential service, a single queue or overload."""
    assert jsq_tail_theorem(net) is None
    res = stationary(net, truncate=2 if net.J > 1 else 20)
    assert res.tail_theorem is None and "theorem" not in res.table()
    assert res.to_json()["min_queue_tail_decay_theorem"] is None


def test_unequal_ties_still_get_numerics():
    """Unequal ties: the QBD numerics still run (without lumping) while the theorem line is withheld."""
    net = net_of({"1": {"mu": 1}, "2": {"mu": 2}}, [{"choice": ["1", "2"], "rate": 2.0}],
                 tie_breaking=[{"set": ["1", "2"], "probs": {"1": 0.7, "2": 0.3}}])
    res = stationary(net, truncate=2)
    assert res.min_queue_tail_decay_rate is not None and res.tail_error < 1e-6
    assert res.tail_max_difference is not None and "numerical, D = " in res.table()


def test_theorem_line_beside_the_numerics(tmp_path):
    """`certify stationary` on heterogeneous parallel JSQ prints the numerical rate with D and rho^k from the theorem;
    the JSON carries the theorem value and the sequence D = 1..D."""
    ids = ["1", "2", "3"]
    path = tmp_path / "het3.json"
    path.write_text(json.dumps({"format": "jsq-network/1", "name": "het3", "stations": {i: {"mu": m} for i, m in
                                zip(ids, [1, 1.5, 2.5])}, "streams": [{"choice": ids, "rate": 3.75}]}))
    out = run("stationary", path, "--truncate", "2")
    assert out.returncode == 0, out.stderr
    line = next(ln for ln in out.stdout.splitlines() if "min-queue tail decay:" in ln)
    assert "(numerical, D = " in line and line.endswith("theorem (Kobayashi, Sakuma and Miyazawa 2013): rho^k = 0.421875")
    assert "min-queue tail-decay rate 0.4218" in out.stdout  # the existing line is kept
    obj = json.loads(json.dumps(stationary(certify.load(path), truncate=2).to_json()))  # what --json prints
    assert obj["min_queue_tail_decay_theorem"] == 0.421875
    seq = obj["min_queue_tail_sequence"]
    assert list(seq) == [str(D) for D in range(1, obj["min_queue_tail_max_difference"] + 1)]
    assert obj["min_queue_tail_error_bounded"] is True
    assert abs(obj["min_queue_tail_decay_rate"] - 0.421875) <= obj["tail_error"]
