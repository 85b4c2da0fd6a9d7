"""The first separable try runs before the sink-drain stage where the network splits into groups."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import certify
from certify.io.loader import from_dict, load, to_dict
from tests import independent
from tests.real_certificates import stage_context

DATA = Path(__file__).parent / "data" / "networks"
HET = DATA / "het-gadgets-G3-r0.97.json"


def _labels(res) -> list[str]:
    """The stages of the run's attempts, in order."""
    return [a.stage for a in res.attempts]


def _proved(net, verdict: str, kind: str) -> tuple[list[str], dict]:
    """``prove`` on ``net`` (60 s): asserted to decide ``verdict`` with a certificate of ``kind`` that verifies; the
    stages of its attempts, in order, and the certificate."""
    res = certify.prove(net, time_limit=60, simulate=False)
    assert res.verdict == verdict and res.certificate is not None
    cert = res.certificate.to_json()
    assert cert["kind"] == kind
    assert certify.verify(net, cert).ok
    return _labels(res), cert


def test_heterogeneous_gadgets_are_proved_by_the_early_separable_try():
    """Three gadgets with their own rates and ties at 0.97 of the exact boundary: the separable Foster certificate,
    found before any sink-drain table (which took 57 s there), verifies and holds state by state."""
    net = load(HET)
    labels, cert = _proved(net, "stable", "separable-foster")
    assert not any(label.startswith("sink drain") for label in labels)
    independent.check_separable(net, cert)


def test_the_markovian_stage_does_not_repeat_the_early_try(monkeypatch):
    """An early try that ran to its end without a certificate is not run again by the Markovian schedule."""
    import certify.proof.drain
    import certify.proof.markovian as markovian
    import certify.proof.separable_first as first
    import certify.proof.sink

    early, later = [], []

    def failed(ctx, item, deadline=None):
        early.append(item)
        return None

    def recorded(ctx, item, deadline=None):
        later.append(item)
        return None

    monkeypatch.setattr(first, "run_separable", failed)
    monkeypatch.setattr(markovian, "run_separable", recorded)
    monkeypatch.setattr(certify.proof.sink.SinkGrowth, "applies", lambda self, ctx: False)  # the sink stages would
    monkeypatch.setattr(certify.proof.drain, "DRAIN_MIN_J", 100)  # spend the time limit
    monkeypatch.setattr(certify.proof.sink, "LATE_MIN_J", 100)
    certify.prove(load(HET), time_limit=20, simulate=False)
    assert [(t.K, t.merged) for t in early] == [(6, False)]
    assert later and all((t.K, t.merged) != (6, False) for t in later)


def test_a_fluid_certificate_keeps_precedence():
    """At half the load the linear fluid certificate (valid for every law) decides before the separable try runs."""
    doc = to_dict(load(HET))
    for st in doc["streams"]:
        st["rate"] = str(Fraction(st["rate"]) / 2)
    res = certify.prove(from_dict(doc), time_limit=30, simulate=False)
    assert res.verdict == "stable" and res.certificate is not None
    assert res.certificate.to_json()["kind"].startswith("fluid")
    assert "separable certificates (K=6)" not in _labels(res)


def _overloaded_gadgets():
    """Two JSQ pairs whose first stations send half of what they serve to the slow station s (3/5 against a forced
    flow of about 3/4), and an M/M/1 queue: R' without s splits into three groups."""
    from certify.core.model import Feedback, Network, Station, Stream

    F = Fraction
    pairs = [Station(f"{x}{g}", F(1)) for g in (0, 1) for x in "ab"]
    return Network("g", (Station("s", F(3, 5)), *pairs, Station("m", F(1))),
                   (*(Stream(F(3, 2), choice=(f"a{g}", f"b{g}")) for g in (0, 1)), Stream(F(1, 2), choice=("m",))),
                   tuple(Feedback(f"a{g}", ("s",), F(1, 2)) for g in (0, 1)))


def test_the_sink_growth_stage_leaves_a_split_reduced_network_to_the_separable_try():
    """Three gadgets above their boundary: the separable growth certificate decides, and no sink-growth table was
    solved before it (4-7 s there until stop 64)."""
    doc = to_dict(load(HET))
    for st in doc["streams"]:
        st["rate"] = str(Fraction(st["rate"]) * Fraction(103, 97))
    net = from_dict(doc)
    labels, cert = _proved(net, "unstable", "separable-growth")
    assert not any(label.startswith("sink growth") for label in labels)
    independent.check_separable_growth(net, cert)


def test_the_first_sink_growth_instance_tries_no_candidate_that_waits():
    """The instance before the separable try leaves the candidate whose R' splits into groups untried."""
    from certify.proof.pipeline import prove
    from certify.proof.sink import SinkGrowth

    ctx = stage_context(_overloaded_gadgets())
    out = SinkGrowth(prove).run(ctx)
    assert out.decision is None and ctx.run.ran == []


def test_the_later_sink_growth_instance_tries_the_candidates_that_waited():
    """After the separable try the second instance proves the overloaded sink with a certificate that verifies and
    holds state by state."""
    from certify.proof.pipeline import prove
    from certify.proof.sink import SinkGrowth

    net = _overloaded_gadgets()
    ctx = stage_context(net)
    out = SinkGrowth(prove, after_separable=True).run(ctx)
    assert ctx.run.ran == ["sink growth at s"]
    assert out.decision is not None and out.decision.verdict == "unstable"
    cert = out.decision.certificate
    assert cert["kind"] == "sink-growth"
    assert certify.verify(net, cert).ok
    independent.check_sink_growth(net, cert)


def test_the_later_instance_does_not_run_where_the_separable_try_does_not():
    """On a random network that does not split into groups the second instance does not apply (the first tried every
    candidate)."""
    from certify.proof.pipeline import prove
    from certify.proof.sink import SinkGrowth

    ctx = stage_context(load(DATA / "random-J6-s8-r0.92.json"))
    assert SinkGrowth(prove).applies(ctx)
    assert not SinkGrowth(prove, after_separable=True).applies(ctx)
