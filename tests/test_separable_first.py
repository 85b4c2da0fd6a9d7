"""The first separable try runs before the sink-drain stage where the network splits into groups."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import certify
from certify.io.loader import from_dict, load, to_dict
from tests import independent

DATA = Path(__file__).parent / "data" / "networks"
HET = DATA / "het-gadgets-G3-r0.97.json"


def _labels(res) -> list[str]:
    """The stages of the run's attempts, in order."""
    return [a.stage for a in res.attempts]


def test_heterogeneous_gadgets_are_proved_by_the_early_separable_try():
    """Three gadgets with their own rates and ties at 0.97 of the exact boundary: the separable Foster certificate,
    found before any sink-drain table (which took 57 s there), verifies and holds state by state."""
    net = load(HET)
    res = certify.prove(net, time_limit=60, simulate=False)
    assert res.verdict == "stable" and res.certificate is not None
    cert = res.certificate.to_json()
    assert cert["kind"] == "separable-foster"
    assert not any(label.startswith("sink drain") for label in _labels(res))
    assert certify.verify(net, cert).ok
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
    monkeypatch.setattr(certify.proof.sink, "SINK_MIN_J", 100)  # the sink stages would spend the time limit
    monkeypatch.setattr(certify.proof.drain, "DRAIN_MIN_J", 100)
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
