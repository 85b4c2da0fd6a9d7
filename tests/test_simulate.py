"""The simulator against independent truth: closed forms, exact CTMC solutions and ciw, within confidence intervals.

Every comparison uses a fixed seed and a 99% t interval across replications
(``level=0.99``): a check that fails is a bug, not bad luck to be re-seeded.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import brentq
from scipy.sparse.linalg import spsolve

import certify
from certify.io.loader import from_dict
from certify.markov.laws import phase_type
from certify.simulation import kernel as K
from certify.simulation import simulate as simulation
from certify.simulation.simulate import check_x0, replication_state, simulate
from certify.simulation.tables import compile_network

ROOT = Path(__file__).resolve().parents[1]
LEVEL = 0.99


def net_of(stations: dict, streams: list, feedback: list | None = None, ties: list | None = None, name: str = "t"):
    """A network from the parts of a ``jsq-network/1`` document."""
    doc = {"format": "jsq-network/1", "name": name, "stations": stations, "streams": streams,
           "feedback": feedback or []}
    if ties:
        doc["tie_breaking"] = ties
    return from_dict(doc)


def mm1(lam: float, mu: float = 1.0, service: dict | None = None, interarrival: dict | None = None):
    st: dict = {"mu": mu}
    if service:
        st["service"] = service
    sm: dict = {"choice": ["1"], "rate": lam}
    if interarrival:
        sm["interarrival"] = interarrival
    return net_of({"1": st}, [sm])


def assert_within(ivs, truth, what: str = "mean queue", slack: float = 0.0):
    """Every truth value lies in its interval (widened by ``slack``)."""
    for k, (iv, x) in enumerate(zip(ivs, truth)):
        assert iv.lo - slack <= x <= iv.hi + slack, \
            f"{what}[{k}]: truth {x:.5g} outside [{iv.lo:.5g}, {iv.hi:.5g}] (estimate {iv.estimate:.5g})"


# ------------------------------------------------------------------------ exact CTMC
def jsq_target(net, members, n, cap):
    """(station index, prob) pairs of where a customer with choice set ``members`` goes from state ``n``."""
    ids = net.station_ids
    open_ = [ids.index(m) for m in members if n[ids.index(m)] < cap[ids.index(m)]]
    if not open_:
        return []
    best = min(n[j] for j in open_)
    tied = tuple(ids[j] for j in open_ if n[j] == best)
    if len(tied) == 1:
        return [(ids.index(tied[0]), 1.0)]
    return [(ids.index(s), float(p)) for s, p in net.tie_probs(tied).items() if p > 0]


def ctmc(net, trunc: int = 0):
    """Stationary mean queue lengths and per-stream blocking of a Markovian network, by a sparse solve.

    Stations with a capacity are exact; the others are truncated at ``trunc`` (a
    customer routed above it is dropped).  Built from the model's semantics, not
    from the simulator.
    """
    cap = [st.capacity if st.capacity is not None else 10**9 for st in net.stations]
    top = [min(c, trunc if st.capacity is None else c) for c, st in zip(cap, net.stations)]
    states = list(itertools.product(*(range(t + 1) for t in top)))
    index = {s: i for i, s in enumerate(states)}
    rows, cols, vals = [], [], []

    def add(i, n2, rate, instead=None):
        """Transition to ``n2``; to ``instead`` (the customer dropped) if ``n2`` is above the truncation."""
        if not all(x <= t for x, t in zip(n2, top)):
            n2 = instead
        if n2 is not None and n2 != states[i]:
            rows.append(i)
            cols.append(index[n2])
            vals.append(rate)

    for i, n in enumerate(states):
        for sm in net.streams:
            for members, rate in sm.routing_sets():
                for j, p in jsq_target(net, members, n, cap):
                    add(i, tuple(x + (k == j) for k, x in enumerate(n)), float(rate) * p)
        for a, st in enumerate(net.stations):
            if n[a] == 0:
                continue
            after = tuple(x - (k == a) for k, x in enumerate(n))
            left = 1.0
            for fb in net.feedback:
                if fb.source == st.id:
                    left -= float(fb.prob)
                    targets = jsq_target(net, fb.choice, after, cap)
                    if not targets:
                        add(i, after, float(st.mu * fb.prob))
                    for j, p in targets:
                        add(i, tuple(x + (k == j) for k, x in enumerate(after)), float(st.mu * fb.prob) * p, after)
            if left > 0:
                add(i, after, float(st.mu) * left)
    m = len(states)
    Q = sp.csr_matrix((vals, (rows, cols)), shape=(m, m))
    Q = Q - sp.diags(np.asarray(Q.sum(axis=1)).ravel())
    A = Q.T.tolil()
    A[0, :] = np.ones(m)
    b = np.zeros(m)
    b[0] = 1.0
    pi = spsolve(A.tocsr(), b)
    arr = np.array(states)
    blocking = []
    for sm in net.streams:
        lost = 0.0
        for members, rate in sm.routing_sets():
            full = np.array([not jsq_target(net, members, n, cap) for n in states])
            lost += float(rate / sm.rate) * pi[full].sum()
        blocking.append(lost)
    return pi @ arr, np.array(blocking), pi


# ------------------------------------------------------------------ closed forms
def test_mm1_mean_queue():
    """M/M/1 at rho = 0.7: the time-average queue length is rho / (1 - rho)."""
    res = simulate(mm1(0.7), 40_000, replications=8, seed=11, warmup=500, progress=False)
    assert_within(res.mean_queue(LEVEL), [0.7 / 0.3])
    assert_within(res.throughput(LEVEL), [0.7], "throughput")


def test_jackson_network_mean_queues():
    """Singleton choice sets with feedback (a Jackson network): L_i = rho_i / (1 - rho_i) from the traffic equations."""
    mu = np.array([1.0, 1.2, 0.8])
    gamma = np.array([0.4, 0.3, 0.0])
    P = np.zeros((3, 3))
    P[0, 1], P[1, 2], P[2, 0] = 0.5, 0.6, 0.3
    lam = np.linalg.solve(np.eye(3) - P.T, gamma)
    rho = lam / mu
    net = net_of({"1": {"mu": 1.0}, "2": {"mu": 1.2}, "3": {"mu": 0.8}},
                 [{"choice": ["1"], "rate": 0.4}, {"choice": ["2"], "rate": 0.3}],
                 [{"from": "1", "choice": ["2"], "prob": 0.5}, {"from": "2", "choice": ["3"], "prob": 0.6},
                  {"from": "3", "choice": ["1"], "prob": 0.3}])
    res = simulate(net, 40_000, replications=8, seed=12, warmup=500, progress=False)
    assert_within(res.mean_queue(LEVEL), rho / (1 - rho))
    assert_within(res.throughput(LEVEL), lam, "throughput")


def p_block(a: float, K_: int) -> float:
    """Blocking probability of the symmetric two-queue JSQ loss system (corpus/README.md), a = lam/mu."""
    rho = a / 2
    return rho ** (2 * K_) / (sum(rho**j for j in range(2 * K_ + 1)) - sum(rho ** (m - 1) * 2.0**-m for m in range(1, K_ + 1)))


def test_loss_system_blocking_probability():
    """Two queues of capacity 3 with JSQ: the fraction of arrivals lost is the closed-form blocking probability."""
    net = net_of({"1": {"mu": 1, "capacity": 3}, "2": {"mu": 1, "capacity": 3}}, [{"choice": ["1", "2"], "rate": 1.6}])
    res = simulate(net, 40_000, replications=8, seed=13, warmup=100, progress=False)
    assert_within(res.loss_fraction(LEVEL), [p_block(1.6, 3)], "blocking")
    assert res.samples.max() <= 3
    assert_within(res.loss_rate(LEVEL), [1.6 * p_block(1.6, 3)], "loss rate")


def loss_files() -> list[Path]:
    corpus = ROOT / "corpus" / "public"
    return sorted(corpus.glob("loss2-*.json"))


@pytest.mark.parametrize("path", loss_files(), ids=lambda p: p.stem)
def test_corpus_loss_expected_is_closed_form(path: Path):
    """Each loss2-* corpus file's expected blocking probability is the closed form of the corpus README."""
    net = certify.load(path)
    exp = net.expected
    assert exp["quantity"] == "blocking_probability"
    a = float(net.streams[0].rate / net.stations[0].mu)
    assert abs(p_block(a, net.stations[0].capacity) - exp["value"]) <= max(exp.get("tol", 0), 1e-12)


@pytest.mark.parametrize("path", [p for p in loss_files() if certify.load(p).expected["value"] > 1e-3],
                         ids=lambda p: p.stem)
def test_corpus_loss_files_simulated(path: Path):
    """Each loss2-* corpus file with a blocking probability above 1e-3: the simulated fraction lost agrees with it.

    (loss2-a0.5-K5 blocks 1.3e-6 of its arrivals: about 10^9 arrivals would be needed to see it.)
    """
    net = certify.load(path)
    res = simulate(net, 20_000, replications=8, seed=14, warmup=100, progress=False)
    assert_within(res.loss_fraction(LEVEL), [net.expected["value"]], "blocking")


def test_md1_pollaczek_khinchine():
    """M/D/1 at rho = 0.7: mean queue length rho + rho^2 / (2 (1 - rho)) (deterministic service has the right mean)."""
    res = simulate(mm1(0.7, service={"dist": "deterministic"}), 40_000, replications=8, seed=15, warmup=500,
                   progress=False)
    assert_within(res.mean_queue(LEVEL), [0.7 + 0.49 / 0.6])


def ph_scv(dist, rate: Fraction) -> float:
    """Squared coefficient of variation of a phase-type law, from alpha (-S)^-k 1 (independent of the sampler)."""
    ph = phase_type(dist, rate)
    n = ph.n
    S = np.zeros((n, n))
    for i in range(n):
        S[i, i] -= float(ph.exit[i])
    for i, j, r in ph.moves:
        S[i, i] -= float(r)
        S[i, j] += float(r)
    M = np.linalg.inv(-S)
    alpha = np.array([float(x) for x in ph.alpha])
    m1 = alpha @ M @ np.ones(n)
    m2 = 2 * alpha @ M @ M @ np.ones(n)
    return m2 / m1**2 - 1


SERVICE_LAWS = {
    "erlang-3": ({"dist": "erlang", "k": 3}, 1 / 3),
    "gamma-scv0.5": ({"dist": "gamma", "scv": 0.5}, 0.5),
    "gamma-scv2.5": ({"dist": "gamma", "scv": 2.5}, 2.5),
    "lognormal-scv2": ({"dist": "lognormal", "scv": 2}, 2.0),
    "hyperexp-scv3": ({"dist": "hyperexponential", "scv": 3}, 3.0),
    "hyperexp-explicit": ({"dist": "hyperexponential", "probs": [0.2, 0.8], "rates": [0.25, 4]}, None),
    "coxian": ({"dist": "coxian", "rates": [2, 1], "probs": [0.5]}, None),
}


@pytest.mark.parametrize("law", SERVICE_LAWS, ids=str)
def test_mg1_pollaczek_khinchine(law: str):
    """M/G/1 at rho = 0.6 for every service law: mean queue rho + rho^2 (1 + scv) / (2 (1 - rho))."""
    dist, scv = SERVICE_LAWS[law]
    net = mm1(0.6, service=dist)
    if scv is None:
        scv = ph_scv(net.stations[0].service, net.stations[0].mu)
    res = simulate(net, 100_000, replications=8, seed=16, warmup=1000, progress=False)
    assert_within(res.mean_queue(LEVEL), [0.6 + 0.36 * (1 + scv) / 0.8])


INTERARRIVAL_LAWS = {
    "deterministic": {"dist": "deterministic"},
    "erlang-2": {"dist": "erlang", "k": 2},
    "gamma-scv3": {"dist": "gamma", "scv": 3},
    "lognormal-scv2": {"dist": "lognormal", "scv": 2},
    "hyperexp-scv4": {"dist": "hyperexponential", "scv": 4},
    "coxian": {"dist": "coxian", "rates": [2.5, 1.25], "probs": [0.5]},
}


@pytest.mark.parametrize("law", INTERARRIVAL_LAWS, ids=str)
def test_throughput_equals_arrival_rate(law: str):
    """A stable station's throughput equals the stream's rate, for every interarrival law (means come from the rate).

    Departures in [0, T] are the arrivals less those present at T: an edge effect
    of a few customers, which deterministic arrivals (no variance) make visible;
    the interval is widened by 5 / T for it.
    """
    T = 40_000
    res = simulate(mm1(1.25, mu=2.0, interarrival=INTERARRIVAL_LAWS[law]), T, replications=8, seed=17,
                   progress=False)
    assert_within(res.throughput(LEVEL), [1.25], "throughput", slack=5 / T)


def test_dm1_mean_queue():
    """D/M/1 at rho = 0.7: mean queue rho / (1 - sigma), sigma the root of sigma = exp(-mu (1 - sigma) / lam)."""
    lam = 0.7
    sigma = brentq(lambda s: s - math.exp(-(1 - s) / lam), 1e-9, 1 - 1e-9)
    res = simulate(mm1(lam, interarrival={"dist": "deterministic"}), 40_000, replications=8, seed=18, warmup=500,
                   progress=False)
    assert_within(res.mean_queue(LEVEL), [lam / (1 - sigma)])


def test_random_selection_splits_poisson_streams():
    """`choices` with singleton sets and `sample` with d = 1 split Poisson arrivals: every station is an M/M/1 queue."""
    net = net_of({"1": {"mu": 1}, "2": {"mu": 1}, "3": {"mu": 2}},
                 [{"choices": [{"set": ["1"], "prob": 0.25}, {"set": ["2"], "prob": 0.75}], "rate": 0.4},
                  {"sample": {"from": ["1", "2", "3"], "d": 1}, "rate": 1.2}])
    lam = np.array([0.1 + 0.4, 0.3 + 0.4, 0.4])
    rho = lam / np.array([1.0, 1.0, 2.0])
    res = simulate(net, 40_000, replications=8, seed=19, warmup=500, progress=False)
    assert_within(res.mean_queue(LEVEL), rho / (1 - rho))


# ------------------------------------------------------------------- exact CTMCs
def three_station_net():
    return net_of({"1": {"mu": 1.0}, "2": {"mu": 1.2}, "3": {"mu": 0.9}},
                  [{"choice": ["1", "2"], "rate": 0.7}, {"choice": ["2", "3"], "rate": 0.6},
                   {"choice": ["1", "2", "3"], "rate": 0.3}],
                  [{"from": "1", "choice": ["3"], "prob": 0.3}, {"from": "3", "choice": ["1", "2"], "prob": 0.2}],
                  [{"set": ["1", "2"], "probs": {"1": 0.8, "2": 0.2}},
                   {"set": ["1", "2", "3"], "probs": {"1": 0.5, "2": 0.3, "3": 0.2}}])


def test_three_station_jsq_feedback_matches_ctmc():
    """Three-station JSQ with feedback and tie-breaking: mean queues match the truncated CTMC's stationary solution."""
    net = three_station_net()
    mean, _, _ = ctmc(net, trunc=22)
    res = simulate(net, 40_000, replications=10, seed=20, warmup=500, progress=False)
    assert_within(res.mean_queue(LEVEL), mean)


def test_capacities_sample_choices_match_ctmc():
    """Capacities, power-of-2 sampling, random choice sets, feedback and ties: means and blocking match the exact CTMC."""
    net = net_of({"1": {"mu": 1, "capacity": 3}, "2": {"mu": 1, "capacity": 2}, "3": {"mu": 1, "capacity": 4}},
                 [{"sample": {"from": ["1", "2", "3"], "d": 2}, "rate": 1.5},
                  {"choices": [{"set": ["1"], "prob": 0.5}, {"set": ["2", "3"], "prob": 0.5}], "rate": 1.0}],
                 [{"from": "2", "choice": ["1", "3"], "prob": 0.25}],
                 [{"set": ["1", "3"], "probs": {"1": 0.3, "3": 0.7}}])
    mean, blocking, _ = ctmc(net)
    res = simulate(net, 40_000, replications=10, seed=21, warmup=100, progress=False)
    assert_within(res.mean_queue(LEVEL), mean)
    assert_within(res.loss_fraction(LEVEL), blocking, "blocking")


def test_tie_breaking_changes_the_outcome():
    """Tie-breaking probabilities matter and the simulator follows them: gamma = 1 and 0.2 give the CTMC's two answers."""
    out = []
    for g in (1, 0.2):
        net = net_of({"1": {"mu": 1}, "2": {"mu": 1}}, [{"choice": ["1", "2"], "rate": 1.2}], [],
                     [{"set": ["1", "2"], "probs": {"1": g, "2": 1 - g}}])
        mean, _, _ = ctmc(net, trunc=40)
        res = simulate(net, 40_000, replications=8, seed=22, warmup=500, progress=False)
        assert_within(res.mean_queue(LEVEL), mean)
        out.append(res.throughput()[0].estimate)
    assert out[0] > out[1] + 0.1  # station 1 serves more when it wins the ties


# -------------------------------------------------------------------- growth rate
def test_unstable_network_grows():
    """An overloaded M/M/1 queue (lam = 1.2, mu = 1): the growth-rate interval lies above 0 and contains lam - mu."""
    res = simulate(mm1(1.2), 5_000, replications=8, seed=23, progress=False)
    g = res.growth_rate(LEVEL)
    assert g.lo > 0
    assert g.contains(0.2)


def test_stable_network_drains_and_shows_no_growth():
    """A stable queue started at 300 drains; over the second half of the horizon the growth rate is about 0."""
    res = simulate(mm1(0.5), 5_000, replications=8, seed=24, x0=[300], progress=False)
    g = res.growth_rate(LEVEL)
    assert g.lo < 0 < g.hi or abs(g.estimate) < 1e-3
    assert abs(g.estimate) < 5e-3
    assert res.samples[:, 0, 0].tolist() == [300] * 8  # x0 is the state at time 0
    assert res.samples[:, -1].max() < 100


# ------------------------------------------------------------------ reproducibility
def test_same_seed_same_results():
    """The same seed gives identical results; a replication does not depend on how many others run."""
    net = three_station_net()
    a = simulate(net, 2_000, replications=4, seed=5, progress=False)
    b = simulate(net, 2_000, replications=4, seed=5, progress=False)
    c = simulate(net, 2_000, replications=2, seed=5, progress=False)
    assert np.array_equal(a.samples, b.samples) and np.array_equal(a.rep_mean_queue, b.rep_mean_queue)
    assert np.array_equal(a.samples[:2], c.samples) and np.array_equal(a.rep_events[:2], c.rep_events)


def test_different_seeds_differ():
    """Different seeds (and different replications of one run) give different sample paths."""
    net = three_station_net()
    a = simulate(net, 2_000, replications=2, seed=5, progress=False)
    b = simulate(net, 2_000, replications=2, seed=6, progress=False)
    assert not np.array_equal(a.samples, b.samples)
    assert not np.array_equal(a.samples[0], a.samples[1])


def test_memory_does_not_grow_with_the_horizon():
    """The result's arrays have the same size for horizons 100 and 100000 (the grid, not the events, sets the size)."""
    net = three_station_net()
    small = simulate(net, 100, replications=2, seed=1, progress=False)
    big = simulate(net, 100_000, replications=2, seed=1, progress=False)
    assert small.samples.shape == big.samples.shape == (2, 1001, 3)
    assert big.events > 500 * small.events


# ---------------------------------------------------------------------- samplers
@pytest.mark.parametrize("law", ["exponential", "erlang-3", "gamma-scv0.5", "gamma-scv2.5", "lognormal-scv2",
                                 "hyperexp-scv3", "coxian", "deterministic"])
def test_sampler_mean_and_variance(law: str):
    """Each law's sampler has mean 1/rate and variance scv/rate^2 (rate 1, a million samples)."""
    dist = {"exponential": {"dist": "exponential"}, "deterministic": {"dist": "deterministic"}}.get(law)
    dist = dist or SERVICE_LAWS[law][0]
    net = mm1(0.5, mu=1.0, service=dist)
    scv = {"exponential": 1.0, "deterministic": 0.0}.get(law)
    if scv is None:
        scv = SERVICE_LAWS[law][1] if SERVICE_LAWS[law][1] is not None else ph_scv(net.stations[0].service, Fraction(1))
    laws = compile_network(net).laws
    x = K.sample_law(laws, 1, replication_state(3, 0), 1_000_000)
    assert abs(x.mean() - 1.0) < 5 * math.sqrt(scv / x.size) + 1e-12
    assert abs(x.var() - scv) < 0.05 * scv + 1e-12


def test_exponential_sampler_distribution():
    """The ziggurat exponential sampler passes a Kolmogorov-Smirnov test, tail included."""
    from scipy.stats import kstest

    laws = compile_network(mm1(1.0)).laws
    x = K.sample_law(laws, 0, replication_state(4, 0), 1_000_000)
    assert kstest(x, "expon").pvalue > 1e-3
    assert abs(np.mean(x > 8) / math.exp(-8) - 1) < 0.2  # beyond the ziggurat's base layer (7.7)


# --------------------------------------------------------------- API and failures
def test_x0_rules():
    """`x0` needs one non-negative integer per station, within the capacities."""
    net = net_of({"a": {"mu": 1}, "b": {"mu": 1, "capacity": 2}}, [{"choice": ["a", "b"], "rate": 1}])
    assert check_x0(net, [0, 2]).tolist() == [0, 2]
    for bad, msg in (([1], "one non-negative integer per station"), ([1, -1], "non-negative"),
                     ([1, 3], "capacity 2"), ({"c": 1}, "unknown station")):
        with pytest.raises(ValueError, match=msg):
            check_x0(net, bad)


def test_ctrl_c_keeps_finished_replications(monkeypatch):
    """Ctrl-C during the third replication returns the two finished ones, marked interrupted."""
    calls = {"n": 0}
    real = simulation.K.run

    def run(*args):
        if args[-1] > 0:  # a real chunk, not the compile call
            calls["n"] += 1
            if calls["n"] == 3:
                raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(simulation.K, "run", run)
    res = simulate(mm1(0.5), 100, replications=5, seed=1, progress=False)
    assert res.interrupted and res.replications == 2


def test_result_json_summary():
    """`to_json` carries events, wall time, mean queues, throughputs, growth rate and loss rates."""
    res = simulate(three_station_net(), 500, replications=3, seed=1, progress=False)
    obj = json.loads(json.dumps(res.to_json()))
    assert {"events", "wall_s", "mean_queue", "throughput", "growth_rate", "loss_rate"} <= set(obj)
    assert set(obj["mean_queue"]) == {"1", "2", "3"} and len(obj["growth_rate"]["ci"]) == 2


# ------------------------------------------------------------------------------ CLI
def cli(*args):
    return subprocess.run([sys.executable, "-m", "certify.cli", "simulate", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_cli_json_last_line():
    """`certify simulate --json` prints one object on the last line with the required keys."""
    out = cli(ROOT / "models" / "symmetric-jsq-J4.json", "--horizon", 1000, "--reps", 4, "--seed", 1, "--json")
    assert out.returncode == 0, out.stderr
    obj = json.loads(out.stdout.strip().splitlines()[-1])
    assert {"events", "wall_s", "mean_queue", "throughput", "growth_rate", "loss_rate"} <= set(obj)
    assert set(obj["growth_rate"]) == {"estimate", "ci"} and obj["events"] > 0


def test_cli_bad_x0_one_line():
    """A bad `--x0` exits 2 with one line naming the option and the rule."""
    out = cli(ROOT / "models" / "symmetric-jsq-J4.json", "--horizon", 10, "--x0", "1,2")
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "--x0" in lines[0] and "4 comma-separated non-negative integers" in lines[0]


def test_cli_table_and_plot(tmp_path):
    """The human table lists every station, and `--plot` writes a PNG."""
    png = tmp_path / "q.png"
    out = cli(ROOT / "models" / "symmetric-jsq-J4.json", "--horizon", 200, "--reps", 2, "--x0", "5,0,0,0",
              "--plot", png)
    assert out.returncode == 0, out.stderr
    assert "growth rate" in out.stdout and "mean queue" in out.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------------- ciw (slow)
def bench_module():
    """bench/simulate.py (its ciw model of a certify network), imported from its file."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        spec = importlib.util.spec_from_file_location("bench_simulate", ROOT / "bench" / "simulate.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return mod


@pytest.mark.slow
@pytest.mark.parametrize("general", [False, True], ids=["exponential", "general"])
def test_ciw_agrees(general: bool):
    """ciw (JSQ by LoadBalancing dispatcher nodes) and certify give the same mean queue lengths within their intervals."""
    pytest.importorskip("ciw")
    bench = bench_module()
    net = bench.network(general)
    runs = [bench.run_ciw(net, 10_000, seed, warmup=500) for seed in range(6)]
    ciw_mean, ciw_half = bench.t_interval(np.array([r["mean_queue"] for r in runs]), LEVEL)
    res = simulate(net, 200_000, replications=8, seed=7, warmup=1000, progress=False)
    for j, iv in enumerate(res.mean_queue(LEVEL)):
        assert abs(iv.estimate - ciw_mean[j]) <= (iv.hi - iv.estimate) + ciw_half[j], (j, iv, ciw_mean[j])


@pytest.mark.slow
def test_ciw_agrees_with_ctmc():
    """ciw's model of the three-station network with feedback matches the truncated CTMC (the ciw model is right)."""
    pytest.importorskip("ciw")
    bench = bench_module()
    net = bench.network(False)
    mean, _, _ = ctmc(net, trunc=25)
    runs = [bench.run_ciw(net, 10_000, seed, warmup=500) for seed in range(6)]
    m, half = bench.t_interval(np.array([r["mean_queue"] for r in runs]), LEVEL)
    assert np.all(np.abs(m - mean) <= half)


@pytest.mark.slow
def test_bench_quick_writes_section(tmp_path):
    """bench/simulate.py --quick writes its section with both rates and their ratio, keeping other sections."""
    out = tmp_path / "bench.md"
    out.write_text("# Benchmarks\n\n## Other section\n\nkept\n")
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "simulate.py"), "--quick", "--out", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = out.read_text()
    assert "## Other section\n\nkept" in text and "## Simulator: certify vs ciw (issue 4)" in text
    rows = [ln for ln in text.splitlines() if ln.startswith("| exponential |") or ln.startswith("| general |")]
    assert any("x** |" in r for r in rows)
