"""Fork-join networks with redundancy: capacity, transitions, certificates and verdicts."""

import copy
import random
from fractions import Fraction as F
from itertools import product

import pytest

import certify
from certify.cli import main
from certify.core.envelope import _body_digest, dumps
from certify.core.model import ForkJoinNetwork
from certify.exact.forkjoin import check_capacity, check_forkjoin_foster
from certify.exact.forkjoin_capacity import maximal_design, mu_star, server_rates, throughput_capacity, traffic_intensity
from certify.exact.forkjoin_lags import (
    canonical,
    count_patterns,
    equal_rate_classes,
    in_state_space,
    lag_cells,
    lag_regions,
    region_drift,
    state_region,
    transitions,
)
from certify.io.loader import load
from certify.proof.forkjoin import find_foster_table
from tests.conftest import assert_runs_without_numpy


def fj(rates, k, lam, name="fj"):
    """A fork-join network with exact rates."""
    return ForkJoinNetwork(name, len(rates), k, F(lam), tuple((str(i + 1), F(r)) for i, r in enumerate(rates)))


def at_margin(rates, k, margin):
    """The design ``rates`` with job rate margin * theta, exactly."""
    base = fj(rates, k, 1)
    return fj(rates, k, throughput_capacity(base) * F(margin), f"fj-{margin}")


def fjr_files(corpus_dir):
    files = sorted(corpus_dir.glob("fjr-*.json"))
    assert len(files) >= 6
    return files


def water_level(d, k):
    """Brute force: bisection for the largest t with sum_i min(d_i, t) >= k t (the left side is concave in t)."""
    lo, hi = F(0), sum(d, F(0)) + 1
    for _ in range(80):
        mid = (lo + hi) / 2
        if sum((min(x, mid) for x in d), F(0)) >= k * mid:
            lo = mid
        else:
            hi = mid
    return float(lo)


# --- an independent job-level model, written from the fork/cancel rules -------------------------------


def job_jumps(d, k, lam, jobs):
    """Jumps of the job-level state (oldest job first; each job = the set of servers that finished its task)."""
    out = [(jobs + (frozenset(),), F(lam))]
    for i in range(len(d)):
        pending = [j for j, done in enumerate(jobs) if i not in done]
        if not pending:
            continue  # server i is idle
        j = pending[0]  # FCFS: server i works on the oldest job whose task it still holds
        done = jobs[j] | {i}
        kept = (done,) if len(done) < k else ()  # k tasks done: the job leaves, its other tasks are cancelled
        out.append((jobs[:j] + kept + jobs[j + 1 :], F(d[i])))
    return out


def queues(jobs, n):
    return tuple(sum(1 for done in jobs if i not in done) for i in range(n))


def random_job_states(d, k, steps, seed, grow=3.0):
    """Job-level states visited by a random walk from empty that favours arrivals."""
    rng = random.Random(seed)
    jobs, seen = (), []
    for _ in range(steps):
        jumps = job_jumps(d, k, 1, jobs)
        weights = [grow if s == 0 else float(r) for s, (_, r) in enumerate(jumps)]
        jobs = rng.choices([j for j, _ in jumps], weights)[0]
        seen.append(jobs)
    return seen


# --- capacity ----------------------------------------------------------------------------------------


def test_theta_matches_corpus_boundary(corpus_dir):
    """theta, rho and the maximal-design flag agree with every public fork-join case's x-case.boundary."""
    for f in fjr_files(corpus_dir):
        net = load(f)
        b = dict(net.extras)["x-case"]["boundary"]
        assert float(throughput_capacity(net)) == pytest.approx(b["theta"], abs=2e-9), f.name
        assert float(traffic_intensity(net)) == pytest.approx(b["rho"], abs=2e-9), f.name
        assert maximal_design(net) == b["maximal_design"], f.name
        assert float(net.k * throughput_capacity(net) / mu_star(net)) == pytest.approx(b["rho_crit_static"], abs=2e-9)


def test_theta_matches_brute_force_water_filling():
    """theta equals a bisection root of sum_i min(d_i, t) = k t and solves it exactly, on random designs."""
    rng = random.Random(5)
    for _ in range(200):
        n = rng.randint(1, 8)
        k = rng.randint(1, n)
        d = [F(rng.randint(1, 40), rng.randint(1, 12)) for _ in range(n)]
        theta = throughput_capacity(fj(d, k, 1))
        assert sum((min(x, theta) for x in d), F(0)) == k * theta
        assert float(theta) == pytest.approx(water_level(d, k), rel=1e-12)


def test_maximal_design_is_seed_003_condition():
    """maximal_design is max d_i <= mu*/k, which holds exactly when theta = mu*/k (seed 003)."""
    rng = random.Random(11)
    hits = set()
    for _ in range(300):
        n = rng.randint(2, 6)
        k = rng.randint(1, n)
        d = [F(rng.randint(1, 6)) for _ in range(n)]
        net = fj(d, k, 1)
        want = max(d) <= sum(d) / k
        assert maximal_design(net) == want
        assert (throughput_capacity(net) == sum(d) / k) == want
        hits.add(want)
    assert hits == {True, False}


# --- the chain -----------------------------------------------------------------------------------------


def test_transitions_match_job_level_model():
    """At random reachable states, the queue-length jumps equal those of the job-level fork/cancel model."""
    for d, k, seed in (([3, 2, 1], 2, 1), ([1, 1, 1, 1], 2, 2), ([5, 1, 2, 3, 1], 3, 3), ([2, 1, 1], 3, 4), ([1, 2], 1, 5)):
        net = fj(d, k, F(7, 10))
        for jobs in random_job_states(d, k, 400, seed):
            state = queues(jobs, len(d))
            assert in_state_space(net, state)
            want: dict = {}
            for nxt, rate in job_jumps(d, k, F(7, 10), jobs):
                want[queues(nxt, len(d))] = want.get(queues(nxt, len(d)), 0) + rate
            assert transitions(net, state) == want, (state, jobs)


def test_region_drift_matches_generator_at_random_states():
    """The compiled drift of V = N + h(min(lags, K)) equals sum rate (V(q') - V(q)) from the job-level model."""
    rng = random.Random(8)
    checked = idle = 0
    for d, k in (([F(3), F(1, 2), F(1, 3)], 2), ([F(5), F(1), F(2), F(1, 4)], 3), ([F(2), F(3, 2), F(1), F(1, 2), F(1, 3)], 3)):
        K, lam = 2, F(4, 5)
        n = len(d)
        net = fj(d, k, lam)
        assert all(len(c) == 1 for c in equal_rate_classes(net))
        table = {c: F(rng.randint(-50, 50), 7) for c in lag_cells(n, k, K)}
        regions = set(lag_regions(n, k, K))

        def V(q, table=table, K=K):
            top = max(q)
            return top + table[tuple(min(top - x, K) for x in q)]

        for jobs in random_job_states(d, k, 1500, rng.randint(0, 99), grow=0.7 * float(max(d))):
            q = queues(jobs, n)
            if max(q) < K + 1:
                continue
            direct = sum((r * (V(queues(nxt, n)) - V(q)) for nxt, r in job_jumps(d, k, lam, jobs)), F(0))
            assert state_region(q, K) in regions  # the enumerated regions cover every state with N > K
            cell, const, moves = region_drift(d, lam, k, K, state_region(q, K))
            compiled = const + sum((r * (table[c2] - table[cell]) for c2, r in moves.items()), F(0))
            assert compiled == direct, q
            checked += 1
            idle += 0 in q
    assert checked > 1000 and idle > 30


def test_region_counts_match_enumeration():
    """count_patterns equals the number of enumerated regions and cells, with and without symmetry classes."""
    rng = random.Random(3)
    for _ in range(200):
        n = rng.randint(1, 6)
        k = rng.randint(1, n)
        top = rng.randint(1, 5)
        idx = list(range(n))
        rng.shuffle(idx)
        classes = []
        while idx:
            m = rng.randint(1, len(idx))
            classes.append(tuple(sorted(idx[:m])))
            idx = idx[m:]
        for cl in (None, classes):
            assert count_patterns(n, k, top, cl) == len(lag_cells(n, k, top, cl))
            assert count_patterns(n, k, top + 1, cl) == len(lag_regions(n, k, top, cl))


def test_orbit_check_agrees_with_full_check():
    """Checking one region per orbit of equal-rate servers gives the same verdict and delta as checking all regions."""
    net = at_margin([F(1, 4), F(1, 4), F(1, 4), F(1, 8), F(1, 8)], 3, F(9, 10))
    classes = equal_rate_classes(net)
    found, _, _ = find_foster_table(net)
    assert found is not None
    K, table, chk = found
    full = check_forkjoin_foster(net, K, table, classes, orbits=False)
    assert full.ok and full.facts.delta == chk.facts.delta
    assert full.facts.regions > chk.facts.regions
    assert all(canonical(c, classes) == c for c in table)


# --- verdicts and certificates --------------------------------------------------------------------------


def test_public_cases_proved_with_verified_certificates(corpus_dir, tmp_path):
    """Every public fork-join case gets its expected verdict, and its certificate file passes certify.verify."""
    for f in fjr_files(corpus_dir):
        net = load(f)
        out = tmp_path / (f.stem + ".cert.json")
        res = certify.prove(net, out=out, time_limit=60)
        assert res.verdict == net.expected["verdict"], (f.name, res.reasons)
        assert res.certificate is not None and out.exists()
        chk = certify.verify(net, str(out))
        assert chk.ok, (f.name, chk.failures)
        assert any("theta" in r for r in res.reasons) and any("rho" in r for r in res.reasons)


def test_lag_table_proves_every_stable_public_case(corpus_dir):
    """The Lyapunov table alone (no (k,k) shortcut) proves every stable public case, the non-maximal ones included."""
    stable = [load(f) for f in fjr_files(corpus_dir) if load(f).expected["verdict"] == "stable"]
    assert {maximal_design(n) for n in stable} == {True, False} and any(n.k == n.n for n in stable)
    for net in stable:
        found, _, _ = find_foster_table(net)
        assert found is not None, net.name
        K, table, chk = found
        assert chk.ok and chk.facts.delta > 0
        assert check_forkjoin_foster(net, K, table, orbits=False).ok


def test_lp_search_gives_checked_table(corpus_dir):
    """The cvxpy LP over the regions yields a table that passes the exact check."""
    from certify.search.forkjoin import lp_table

    net = load(corpus_dir / "fjr-n3k2-nonmax-602020-rho0.72.json")
    classes = equal_rate_classes(net)
    srch = lp_table(net, 4, classes)
    assert srch.margin is not None and srch.margin > 0
    assert any(check_forkjoin_foster(net, 4, cand, classes).ok for cand in srch.candidates)


@pytest.mark.parametrize(
    "rates,k",
    [((F(3, 5), F(1, 5), F(1, 5)), 2), ((F(3, 5), F(3, 10), F(1, 20), F(1, 20)), 2), ((F(6, 5), F(1, 2), F(1, 2), F(1, 2), F(1, 2)), 3)],
)
def test_nonmaximal_designs_near_theta(rates, k):
    """Non-maximal designs at 0.97 theta are proved stable and at 1.03 theta unstable, with verified certificates."""
    assert not maximal_design(fj(rates, k, 1))
    for margin, want in ((F(97, 100), "stable"), (F(103, 100), "unstable")):
        net = at_margin(rates, k, margin)
        res = certify.prove(net, time_limit=60)
        assert res.verdict == want, res.reasons
        assert certify.verify(net, res.certificate).ok


def test_kk_system_uses_independent_queues():
    """A (k,k) system below min d_i is proved stable by V = sum Q_i^2 and refused at or above it."""
    net = fj([F(2, 5), F(3, 10), F(3, 10)], 3, F(29, 100))
    res = certify.prove(net, time_limit=60)
    assert res.verdict == "stable" and res.certificate["kind"] == "fork-join-independent"
    assert certify.verify(net, res.certificate).ok
    assert not certify.verify(fj([F(2, 5), F(3, 10), F(3, 10)], 3, F(3, 10)), res.certificate).ok


def test_critical_load_is_undecided():
    """At lam = theta neither certificate applies and the verdict is undecided."""
    res = certify.prove(at_margin([F(3, 5), F(1, 5), F(1, 5)], 2, 1), time_limit=30)
    assert res.verdict == "undecided" and res.certificate is None


def test_tampered_certificates_refused(corpus_dir):
    """Edited certificates are refused, by the digest or, once resealed, by the exact check."""
    net = load(corpus_dir / "fjr-n3k2-nonmax-602020-rho0.72.json")
    cert = certify.prove(net, time_limit=60).certificate
    assert cert["kind"] == "fork-join-foster" and certify.verify(net, cert).ok
    bad = copy.deepcopy(cert)
    bad["table"]["0,0,0"] = "-100"
    assert "digest" in certify.verify(net, bad).failures[0]
    bad["digest"] = _body_digest(bad)
    chk = certify.verify(net, bad)
    assert not chk.ok and any("AV" in f for f in chk.failures)
    other = fj(server_rates(net), net.k, F(2, 5))  # the same design at lam = theta
    assert not certify.verify(other, cert).ok

    unst = load(corpus_dir / "fjr-n5k3-max-3030201010-rho1.05.json")
    cap = certify.prove(unst, time_limit=60).certificate
    assert cap["kind"] == "fork-join-capacity" and certify.verify(unst, cap).ok
    bad = copy.deepcopy(cap)
    bad["capped"] = ["1", "2", "3"]  # more than k-1 servers
    bad["digest"] = _body_digest(bad)
    assert not certify.verify(unst, bad).ok
    bad = copy.deepcopy(cap)
    bad["claims"]["bound"] = "1/4"
    bad["digest"] = _body_digest(bad)
    assert any("claim bound" in f for f in certify.verify(unst, bad).failures)


def test_capacity_check_needs_a_real_bound():
    """The capacity check accepts a set R only when d(R^c)/(k-|R|) < lam."""
    net = fj([F(3, 5), F(1, 5), F(1, 5)], 2, F(41, 100))
    assert check_capacity(net, ["1"]).ok  # bound 2/5
    assert not check_capacity(net, []).ok  # bound 1/2 is not below 41/100
    assert not check_capacity(net, ["9"]).ok


def test_foster_check_rejects_a_table_for_overload():
    """No table passes the exact check when lam > theta (each region's drift is checked, not trusted)."""
    net = at_margin([F(3, 5), F(1, 5), F(1, 5)], 2, F(101, 100))
    classes = equal_rate_classes(net)
    for K in (2, 4):
        for vals in product(range(-3, 4), repeat=2):
            cells = lag_cells(3, 2, K, classes)
            table = {c: F(vals[0] * c[0] + vals[1] * (c[1] + c[2]), 3) for c in cells}
            assert not check_forkjoin_foster(net, K, table, classes).ok


def test_verify_refuses_kind_for_other_model(corpus_dir):
    """A fork-join certificate is refused for a JSQ network and a JSQ kind for a fork-join network."""
    fjnet = load(corpus_dir / "fjr-n3k2-max-333333-rho0.90.json")
    cert = certify.prove(fjnet, time_limit=60).certificate
    jsq = certify.loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 2}}, "streams": [{"choice": ["1"], "rate": 1}]}')
    assert not certify.verify(jsq, cert).ok
    wrong = dict(cert, kind="foster")
    wrong["digest"] = _body_digest(wrong)
    assert not certify.verify(fjnet, wrong).ok


def test_checker_imports_no_numpy(corpus_dir, tmp_path):
    """Verifying fork-join certificates never imports numpy, scipy or cvxpy."""
    paths = []
    for name in ("fjr-n3k2-nonmax-602020-rho0.72", "fjr-n5k3-max-3030201010-rho1.05"):
        net = load(corpus_dir / f"{name}.json")
        out = tmp_path / f"{name}.cert.json"
        out.write_text(dumps(certify.prove(net, time_limit=60).certificate))
        paths.append((str(corpus_dir / f"{name}.json"), str(out)))
    code = (
        "import sys, json\n"
        "from certify.io.loader import load\n"
        "from certify.certificates import verify\n"
        f"for net, cert in {paths!r}:\n"
        "    assert verify(load(net), json.load(open(cert))).ok\n"
    )
    assert_runs_without_numpy(code)


def test_cli_prove_prints_stable_and_certificate(corpus_dir, tmp_path, capsys):
    """`certify prove` on the non-maximal n3k2 case prints verdict stable and writes a certificate that verifies."""
    f = corpus_dir / "fjr-n3k2-nonmax-602020-rho0.72.json"
    cert = tmp_path / "c.json"
    assert main(["prove", str(f), "--out", str(cert), "--expect", "stable"]) == 0
    text = capsys.readouterr().out
    assert "verdict: stable" in text and f"certificate: {cert}" in text
    assert main(["verify", str(f), str(cert)]) == 0
