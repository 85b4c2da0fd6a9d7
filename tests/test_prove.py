"""prove on networks built here, against closed-form stability criteria (docs/math/theorems.md)."""

from fractions import Fraction as F
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

import certify
from certify.io.loader import from_dict


def network(mus, streams, feedback=(), ties=()):
    """A jsq-network/1 model from station rates, (choice, rate) streams and (from, choice, prob) feedback."""
    doc = {
        "format": "jsq-network/1",
        "name": "built",
        "stations": {str(i + 1): {"mu": str(m)} for i, m in enumerate(mus)},
        "streams": [{"choice": [str(j + 1) for j in c], "rate": str(r)} for c, r in streams],
        "feedback": [{"from": str(i + 1), "choice": [str(j + 1) for j in c], "prob": str(p)} for i, c, p in feedback],
    }
    if ties:
        doc["tie_breaking"] = [{"set": [str(j + 1) for j in s], "probs": {str(j + 1): str(p) for j, p in zip(s, ps)}} for s, ps in ties]
    return from_dict(doc)


def _q(x):
    return F(x).limit_denominator(1000)


def _random_sets(rng, J, count):
    """Up to ``count`` distinct random non-empty choice sets over J stations, sorted."""
    return sorted({tuple(sorted(rng.choice(J, size=int(rng.integers(1, J + 1)), replace=False).tolist())) for _ in range(count)})


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("margin", [F(9, 10), F(11, 10)])
def test_mm_jsq_closed_form(seed, margin):
    """M/M-JSQ over heterogeneous servers: stable iff lam < sum mu, proved on both sides."""
    rng = np.random.default_rng(seed)
    J = int(rng.integers(2, 5))
    mus = [_q(rng.uniform(0.2, 2)) for _ in range(J)]
    net = network(mus, [(tuple(range(J)), margin * sum(mus))])
    assert certify.prove(net).verdict == ("stable" if margin < 1 else "unstable")


def _subset_load(J, streams, mus):
    """Bramson's subset condition: max over station sets A of (rates of streams inside A) / mu(A)."""
    best = F(0)
    for k in range(1, J + 1):
        for A in combinations(range(J), k):
            lam = sum((r for c, r in streams if set(c) <= set(A)), F(0))
            best = max(best, lam / sum(mus[a] for a in A))
    return best


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("margin", [F(9, 10), F(21, 20)])
def test_no_feedback_subset_condition(seed, margin):
    """Random partial-choice networks without feedback follow Bramson's subset condition."""
    rng = np.random.default_rng(100 + seed)
    J = int(rng.integers(3, 5))
    mus = [_q(rng.uniform(0.3, 2)) for _ in range(J)]
    streams = [(c, _q(rng.uniform(0.2, 1))) for c in _random_sets(rng, J, J)]
    rho = _subset_load(J, streams, mus)
    streams = [(c, r * margin / rho) for c, r in streams]
    assert certify.prove(network(mus, streams)).verdict == ("stable" if margin < 1 else "unstable")


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("margin", [F(93, 100), F(107, 100)])
def test_homogeneous_feedback_dhk_criterion(seed, margin):
    """Homogeneous feedback p[i][C] = p_C follows the DHK criterion Lambda_C + lam*/(1-p*) P_C < mu_C."""
    rng = np.random.default_rng(200 + seed)
    J = int(rng.integers(2, 4))
    mus = [_q(rng.uniform(0.5, 2)) for _ in range(J)]
    streams = [(c, _q(rng.uniform(0.2, 1))) for c in _random_sets(rng, J, 3)]
    fsets = _random_sets(rng, J, 2)
    p = {c: _q(rng.uniform(0.05, 0.3)) for c in fsets}
    pstar = sum(p.values())
    lam_star = sum(r for _, r in streams)
    demand = {
        C: sum((r for c, r in streams if set(c) <= set(C)), F(0))
        + lam_star / (1 - pstar) * sum((q for c, q in p.items() if set(c) <= set(C)), F(0))
        for k in range(1, J + 1)
        for C in combinations(range(J), k)
    }
    s_star = min(sum(mus[a] for a in C) / d for C, d in demand.items() if d > 0)
    streams = [(c, r * margin * s_star) for c, r in streams]
    feedback = [(i, c, q) for i in range(J) for c, q in p.items()]
    assert certify.prove(network(mus, streams, feedback)).verdict == ("stable" if margin < 1 else "unstable")


def _two_station_s_star(lam1, lam2, lam12, mu1, mu2, p):
    """Largest scale s of the exogenous rates for which C0, C1 and C2 (corpus README) hold."""
    p1s = p["11"] + p["12"] + p["1b"]
    p2s = p["21"] + p["22"] + p["2b"]
    c1 = 1 - p["11"] - p["1b"]
    c2 = 1 - p["22"] - p["2b"]
    bounds = [(mu1 * (1 - p1s) + mu2 * (1 - p2s)) / (lam1 + lam2 + lam12)]
    # C1: s (lam1 c2 + p21 (lam2 + lam12)) < mu1 (1 - p11) c2 - p21 mu1 (p12 + p1b)
    for a, b, mua, paa, pab, pba, cb in [
        (lam1, lam2, mu1, p["11"], p["12"] + p["1b"], p["21"], c2),
        (lam2, lam1, mu2, p["22"], p["21"] + p["2b"], p["12"], c1),
    ]:
        rhs = mua * (1 - paa) * cb - pba * mua * pab
        bounds.append(rhs / (a * cb + pba * (b + lam12)) if rhs > 0 else F(0))
    return min(bounds)


@pytest.mark.parametrize("seed", range(6))
def test_two_station_heterogeneous_feedback(seed):
    """Two stations with heterogeneous feedback: proved stable below the C0/C1/C2 boundary, never contradicted above."""
    rng = np.random.default_rng(300 + seed)
    lam1, lam2, lam12 = (_q(rng.uniform(0.05, 1)) for _ in range(3))
    mu1, mu2 = _q(rng.uniform(0.5, 3)), _q(rng.uniform(0.5, 3))
    p = {k: _q(rng.uniform(0, 0.2)) for k in ("11", "12", "1b", "21", "22", "2b")}
    s_star = _two_station_s_star(lam1, lam2, lam12, mu1, mu2, p)
    assert s_star > 0
    fb = [(0, (0,), p["11"]), (0, (1,), p["12"]), (0, (0, 1), p["1b"]), (1, (0,), p["21"]), (1, (1,), p["22"]), (1, (0, 1), p["2b"])]
    fb = [f for f in fb if f[2] > 0]
    for margin, want in ((F(9, 10), "stable"), (F(11, 10), "unstable")):
        s = margin * s_star
        net = network([mu1, mu2], [((0,), s * lam1), ((1,), s * lam2), ((0, 1), s * lam12)], fb)
        verdict = certify.prove(net).verdict
        if want == "stable":
            assert verdict == "stable"
        else:
            assert verdict in ("unstable", "undecided")


def test_tie_breaking_reported_with_certificate():
    """A proved-stable tie-breaking network carries a certificate naming the quadratic template."""
    net = network([1, 1, 1], [((0, 1), F(1, 2)), ((2,), F(7, 10))], [(0, (2,), F(1))], ties=[((0, 1), (F(0), F(1)))])
    res = certify.prove(net)
    assert res.verdict == "stable" and res.certificate["template"] == "quadratic"


def test_non_exponential_gets_general_verdicts_only():
    """Deterministic service: stable through the fluid model, unstable through flow balance, never a Markovian verdict."""
    doc = {
        "format": "jsq-network/1",
        "stations": {"1": {"mu": 1, "service": {"dist": "deterministic"}}, "2": {"mu": 1}},
        "streams": [{"choice": ["1", "2"], "rate": 1.5}],
    }
    res = certify.prove(from_dict(doc))
    assert res.verdict == "stable" and res.semantics == "general" and res.certificate["kind"] == "fluid-flow"
    res = certify.prove(from_dict(doc), fluid=False, simulate=False)
    assert any("no finite phase-type" in r for r in res.reasons)  # no Markovian form
    assert res.verdict == "stable" and res.semantics == "general" and res.method.startswith("theorem: ")
    doc["streams"][0]["rate"] = 2.5
    res = certify.prove(from_dict(doc))
    assert res.verdict == "unstable" and res.semantics == "general"


def test_from_graph_network_proves():
    """A network built as a networkx graph is proved like a file."""
    import networkx as nx

    G = nx.DiGraph()
    G.add_node("1", mu=1)
    G.add_node("2", mu=2)
    G.add_node("in", rate=F(27, 10))
    G.add_edge("in", "1")
    G.add_edge("in", "2")
    assert certify.prove(certify.from_graph(G)).verdict == "stable"


def test_table_declines_networks_without_shared_choice_sets():
    """With singleton choice sets only (a Jackson network), forcing the table template skips it cleanly (the theorem answers)."""
    net = from_dict(
        {
            "format": "jsq-network/1",
            "name": "jackson",
            "stations": {"1": {"mu": 1}, "2": {"mu": 1}},
            "streams": [{"choice": ["1"], "rate": 0.5}, {"choice": ["2"], "rate": 0.5}],
        }
    )
    res = certify.prove(net, templates=["table"])
    assert not any(a.stage.startswith("table") for a in res.attempts)
    assert res.certificate["kind"] == "theorem" and res.method.startswith("theorem: generalized Jackson")


def test_progress_hears_every_attempt_as_it_happens(corpus_dir):
    """prove(progress=...) is called once per recorded attempt, in order, while the run goes on."""
    heard = []
    res = certify.prove(certify.load(corpus_dir / "ce-tie-expB-g0.50.json"), progress=heard.append)
    assert heard == list(res.attempts) and len(heard) >= 5


def test_closed_set_is_exactly_unstable():
    """Customers that never leave station 2, which a stream enters directly, give an exact closed-set certificate."""
    from certify.certificates import verify

    net = network([1, 1], [((0, 1), F(1, 2)), ((1,), F(1, 10))], [(1, (1,), 1)])
    res = certify.prove(net, simulate=False)
    assert res.verdict == "unstable" and res.semantics == "general" and res.certificate["kind"] == "closed-set"
    assert verify(net, res.certificate).ok


def test_closed_set_fed_by_feedback_gets_a_finite_dual():
    """A trap fed only through feedback makes the static split primal infeasible; the bounded dual proves instability."""
    net = network([1, 1], [((0,), F(1, 2))], [(1, (1,), 1), (0, (1,), F(1, 2))])
    res = certify.prove(net, simulate=False)
    assert res.verdict == "unstable" and res.method.startswith("static split")
    assert not any("solver failure" in a.outcome for a in res.attempts)


def test_critical_load_reasons_agree():
    """At exactly critical load the report never says both 'looks infeasible' and 'the necessary condition holds'."""
    res = certify.prove(network([1, 1], [((0, 1), 2)]), time_limit=10, simulate=False)
    assert res.verdict == "undecided"
    assert not any("looks infeasible" in r for r in res.reasons)
    assert not any("the necessary condition holds;" in r or r.endswith("the necessary condition holds") for r in res.reasons)
    assert any("at best with equality" in r for r in res.reasons)


def _cascade(s):
    """Stations 1,2 share a JSQ stream, 1 feeds 3; Erlang-2 service at 1, H2 (scv 4) at 2; rates scaled by s."""
    return from_dict({
        "format": "jsq-network/1",
        "name": "cascade",
        "stations": {
            "1": {"mu": 1, "service": {"dist": "erlang", "k": 2}},
            "2": {"mu": 1, "service": {"dist": "hyperexponential", "probs": ["1/25", "24/25"], "rates": ["1/7", "4/3"]}},
            "3": {"mu": 1},
        },
        "streams": [{"choice": ["1", "2"], "rate": str(F(3, 2) * s)}, {"choice": ["3"], "rate": str(F(22, 100) * s)}],
        "feedback": [{"from": "1", "choice": ["3"], "prob": 1}],
    })


def test_cascade_growth_certificate_does_not_wait_for_every_table_level():
    """The J=3 Erlang-2/H2 cascade at 1.05 of its boundary (s* = 1.01225) gets its growth certificate within 20 s."""
    res = certify.prove(_cascade(F(10629, 10000)), time_limit=20, simulate=False)
    assert res.verdict == "unstable" and res.method.startswith("growth")
    assert not any(a.stage.startswith("table (K=36)") for a in res.attempts)


def test_table_reason_names_the_fast_stations_and_K():
    """The bounded-table reason names its stations and clip level, e.g. min(x_{1,2}, 6)."""
    res = certify.prove(_cascade(F(10629, 10000)), time_limit=20, simulate=False)
    assert any("min(x_{1,2}, " in r for r in res.reasons) and not any("x_fast" in r for r in res.reasons)


def test_size_text_counts_streams_as_written():
    """One stream is '1 stream'; a sample stream is one stream with its routing sets named separately."""
    one = certify.prove(network([2], [((0,), 1)]), simulate=False)
    assert one.attempts[0].size == "1 stream, 1 station"
    doc = {"format": "jsq-network/1", "stations": {str(i): {"mu": 1} for i in range(1, 5)},
           "streams": [{"sample": {"from": ["1", "2", "3", "4"], "d": 2}, "rate": 2}]}
    res = certify.prove(from_dict(doc), simulate=False)
    assert res.attempts[0].size == "1 stream (6 routing sets), 4 stations"


def test_finite_state_verdict_writes_a_certificate(tmp_path):
    """prove(out=...) writes a finite-state certificate that verify re-checks."""
    from certify.certificates import load_certificate, verify

    net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 1, "capacity": 3}, "2": {"mu": 1, "capacity": 2}},
                     "streams": [{"choice": ["1", "2"], "rate": 3}]})
    res = certify.prove(net, out=tmp_path / "f.json")
    assert res.verdict == "stable" and res.certificate["kind"] == "finite-state"
    assert verify(net, load_certificate(tmp_path / "f.json")).ok


def test_an_empty_template_list_runs_no_foster_stage(monkeypatch):
    """prove(templates=[], fluid=True) tries the fluid certificates and no Foster template (None would mean all of them)."""
    import certify.proof.sink

    monkeypatch.setattr(certify.proof.sink, "LATE_MIN_J", 10**6)  # the late sink-drain stage would prove it stable
    net = certify.load(Path(__file__).resolve().parents[1] / "models" / "tie-breaking-J3.json")
    res = certify.prove(net, templates=[], fluid=True, simulate=False)
    assert res.verdict == "undecided" and any(a.stage.startswith("fluid") for a in res.attempts)
    assert not [a.stage for a in res.attempts if a.stage.endswith("Foster")]
