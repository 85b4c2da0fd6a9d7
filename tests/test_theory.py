"""Known theorems: hypotheses checked exactly, verdicts against the corpus labels and the independent criteria."""

import importlib.util
import json
from fractions import Fraction as F
from pathlib import Path

import pytest

import certify
from certify.exact.theory import homogeneous_feedback, jackson, no_feedback, theorem_verdicts, two_station
from certify.io.loader import from_dict, load
from certify.markov.chain import compile_chain
from tests.conftest import CORPUS

ROOT = Path(__file__).resolve().parents[1]
THEOREM_FAMILIES = {"dhk_homogeneous", "bramson_no_feedback", "mm_jsq_parallel", "dhk_two_station", "foley_mcdonald_gsq",
                    "jackson_singleton"}


def _family_cases():
    out = []
    for f in sorted(CORPUS.glob("*.json")):
        doc = json.loads(f.read_text())
        if doc.get("x-case", {}).get("family") in THEOREM_FAMILIES and "verdict" in doc.get("expected", {}):
            out.append(pytest.param(f, id=f.stem))
    return out


@pytest.mark.parametrize("path", _family_cases())
def test_theorem_matches_corpus_label(path):
    """Every public verdict case of a family with a theorem gets that theorem's verdict, equal to the label."""
    net = load(path)
    found = theorem_verdicts(compile_chain(net))
    assert found, "no theorem applied"
    assert {t.verdict for t in found} == {net.expected["verdict"]}


def _criteria():
    spec = importlib.util.spec_from_file_location("models_criteria", ROOT / "models" / "criteria.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("name", ["foley-mcdonald.json", "homogeneous-feedback-J3.json", "two-station-feedback.json",
                                  "partial-choice-J5.json", "overloaded-unstable.json", "mm-jsq-heterogeneous.json"])
def test_theorem_matches_independent_criteria_script(name):
    """The theorem's verdict equals the one computed by models/criteria.py (floats, no certify import)."""
    r = _criteria().evaluate(ROOT / "models" / name)
    found = theorem_verdicts(compile_chain(load(ROOT / "models" / name)))
    assert found and all(t.verdict == r["verdict"] for t in found)


def net(streams, feedback=(), mu=(1, 1, 1)):
    return compile_chain(from_dict({
        "format": "jsq-network/1",
        "stations": {str(i + 1): {"mu": m} for i, m in enumerate(mu)},
        "streams": [{"choice": c, "rate": r} for c, r in streams],
        "feedback": [{"from": s, "choice": c, "prob": p} for s, c, p in feedback],
    }))


def test_boundary_is_critical_not_a_verdict():
    """On the boundary (lam = sum mu) the theorem says 'critical', which prove never turns into a verdict."""
    ch = net([(["1", "2", "3"], 3)])
    assert no_feedback(ch).verdict == "critical"


def test_hypotheses_are_checked():
    """Heterogeneous feedback on three stations matches no theorem; homogeneous feedback and singleton sets do."""
    hetero = net([(["1", "2"], 1)], [("1", ["3"], 0.5)])
    assert theorem_verdicts(hetero) == []
    homog = net([(["1", "2"], 1)], [(s, ["1", "2", "3"], 0.2) for s in "123"])
    assert homogeneous_feedback(homog) is not None and no_feedback(homog) is None
    jack = net([(["1"], 0.5), (["2"], 0.2)], [("1", ["3"], 0.5)])
    assert jackson(jack).verdict == "stable" and two_station(jack) is None


def test_jackson_traffic_equations_exact():
    """A tandem with feedback: a = (lam/(1-p), lam/(1-p)) decides exactly at a_1 = mu_1."""
    ch = net([(["1"], F(1, 2))], [("1", ["2"], 1), ("2", ["1"], F(1, 2))], mu=(1, 2))
    tv = jackson(ch)
    assert tv.verdict == "critical" and "1" in tv.numbers


def test_prove_reports_theorem_when_no_certificate(tmp_path):
    """With no time for the certificate searches, prove reports the theorem's verdict as the proof and writes its certificate."""
    n = load(CORPUS / "dhk-hom-J3-s12-m0.97.json")
    res = certify.prove(n, time_limit=0, simulate=False, out=tmp_path / "c.json")
    assert res.verdict == "stable" and res.method.startswith("theorem: homogeneous feedback")
    assert res.theorems and res.theorems[0]["source"].startswith("J. G. Dai")
    assert res.certificate["kind"] == "theorem" and (tmp_path / "c.json").exists()


def test_critical_theorem_is_reported_as_boundary():
    """A critical theorem outcome is unproved, and prove says the network is on the theorem's stability boundary."""
    ch = net([(["1", "2", "3"], 3)])
    assert not no_feedback(ch).proved and not no_feedback(ch).decides
    n = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 1}, "2": {"mu": 1}},
                   "streams": [{"choice": ["1", "2"], "rate": 2}]})
    res = certify.prove(n, time_limit=5, simulate=False)
    assert res.verdict == "undecided" and any("on its stability boundary (critical" in r for r in res.reasons)


def test_disagreement_is_flagged_and_gives_no_verdict(monkeypatch):
    """If a theorem and an exactly checked certificate ever disagree, prove says so loudly and gives no verdict."""
    import certify.exact.theory as theory

    real = theory.no_feedback

    def wrong(chain, hyp=theory.MARKOVIAN):
        tv = real(chain, hyp)
        return None if tv is None else theory.TheoremVerdict(tv.theorem, "unstable", tv.source, tv.numbers)

    monkeypatch.setattr(theory, "CRITERIA", (wrong,))
    res = certify.prove(load(CORPUS / "mmjsq-k2-m0.90.json"))
    assert res.verdict == "undecided" and res.certificate is None
    assert res.reasons[0].startswith("DISAGREEMENT")


def test_fork_join_theorem_matches_corpus(corpus_dir):
    """Seed 003's criterion (lam < theta) gives every public fork-join label, and prove reports it."""
    for path in sorted(corpus_dir.glob("fjr-*.json")):
        net = load(path)
        from certify.exact.forkjoin_capacity import fork_join

        assert fork_join(net).verdict == net.expected["verdict"], path.name
        assert certify.prove(net).theorems[0]["theorem"].startswith("fork-join")


def _random_chain(seed, feedback):
    """A random chain on J <= 10 stations: random choice sets and rates from few values (ties), homogeneous feedback or none."""
    import random

    from certify.markov.chain import Chain

    rng = random.Random(seed)
    J = rng.randint(1, 10)
    mu = tuple(F(rng.choice([1, 1, 2, 3]), rng.choice([1, 2])) for _ in range(J))
    arr = {}
    for _ in range(rng.randint(1, 2 * J)):
        C = tuple(sorted(rng.sample(range(J), rng.randint(1, min(J, rng.choice([1, 2, 3, J]))))))
        arr[C] = arr.get(C, F(0)) + F(rng.randint(1, 4), rng.choice([1, 2, 4]))
    pC = {}
    if feedback:
        for _ in range(rng.randint(1, 3)):
            C = tuple(sorted(rng.sample(range(J), rng.randint(1, J))))
            pC[C] = pC.get(C, F(0)) + F(rng.randint(1, 3), 12)
    fb = tuple((i, C, p) for i in range(J) for C, p in sorted(pC.items()))
    p_star = sum(pC.values(), F(0))
    return Chain(tuple(str(j + 1) for j in range(J)), mu, tuple(sorted(arr.items())), fb, (1 - p_star,) * J)


@pytest.mark.parametrize("feedback", [False, True], ids=["no-feedback", "homogeneous-feedback"])
def test_subset_criteria_equal_the_enumeration_on_random_networks(feedback):
    """On 150 seeded random networks the max-flow criterion reports the verdict, ratio and set the enumeration of 2^J sets did."""
    from tests import subset_enumeration as ref

    new, old = (homogeneous_feedback, ref.homogeneous_feedback) if feedback else (no_feedback, ref.no_feedback)
    for seed in range(150):
        ch = _random_chain(seed, feedback)
        assert new(ch) == old(ch), seed


def test_subset_criteria_equal_the_enumeration_on_corpus_and_models():
    """On every public corpus file and model the subset criteria give exactly what the enumeration gave."""
    from certify.core.model import Network
    from tests import subset_enumeration as ref

    compared = 0
    for path in [*sorted(CORPUS.glob("*.json")), *sorted((ROOT / "models").glob("*.json"))]:
        n = load(path)
        if not isinstance(n, Network):
            continue
        ch = compile_chain(n)
        for new, old in ((no_feedback, ref.no_feedback), (homogeneous_feedback, ref.homogeneous_feedback)):
            tv = new(ch)
            assert tv == old(ch), path.name
            compared += tv is not None
    assert compared >= 40


def _split_network(J, load, seed):
    """J stations, stream i on {i, i+1} (and a random third station half the time), built from a static split.

    Each stream's rate is split over its choice set in random positive parts and
    mu_j is station j's share divided by 0.9; the rates are then scaled by
    load / 0.9.  By construction (Hall) the worst set is the whole network, with
    ratio exactly ``load``: every proper set misses a stream that is split into it.
    """
    import random

    from certify.core.model import Network, Station, Stream

    rng = random.Random(seed)
    sets = [sorted({i, (i + 1) % J} | ({rng.randrange(J)} if rng.random() < 0.5 else set())) for i in range(J)]
    rates = [F(rng.randint(1, 4), rng.randint(1, 3)) for _ in range(J)]
    work = [F(0)] * J
    for C, r in zip(sets, rates):
        parts = [rng.randint(1, 3) for _ in C]
        for j, p in zip(C, parts):
            work[j] += r * p / sum(parts)
    stations = tuple(Station(str(j + 1), work[j] / F(9, 10)) for j in range(J))
    streams = tuple(Stream(r * load / F(9, 10), choice=tuple(str(j + 1) for j in C)) for C, r in zip(sets, rates))
    return Network(f"split-J{J}", stations, streams)


@pytest.mark.parametrize("load, verdict", [(F(9, 10), "stable"), (F(11, 10), "unstable")])
def test_theorem_certificate_of_200_stations_proves_and_verifies(load, verdict):
    """J = 200 without feedback: the subset condition decides (ratio = load at the full set, by construction) and verify re-derives it."""
    from certify.certificates import theorem_certificate

    n = _split_network(200, load, seed=1)
    (tv,) = theorem_verdicts(compile_chain(n), n)
    assert tv.decides and tv.verdict == verdict
    assert tv.numbers == f"max_A Lambda_A/mu(A) = {float(load):g} at A = {{{','.join(str(j) for j in range(1, 201))}}}"
    res = certify.verify(n, theorem_certificate(n, tv))
    assert res.ok, res.failures


def test_prove_gives_the_theorem_verdict_on_200_stations_past_the_time_limit():
    """With no time for the certificate stages, prove still decides a J = 200 network by the subset condition."""
    n = _split_network(200, F(9, 10), seed=2)
    res = certify.prove(n, time_limit=0, simulate=False)
    assert any("time limit reached" in r for r in res.reasons)
    assert res.verdict == "stable" and res.method == "theorem: no feedback: subset condition"
    assert res.certificate["kind"] == "theorem" and certify.verify(n, res.certificate).ok
