"""--time-limit bounds the whole run: enumerations stop at the deadline and the verdict is undecided."""

import time

import pytest

import certify
from certify.io.loader import from_dict
from certify.markov.chain import compile_chain
from certify.markov.fluid import fluid_faces
from certify.markov.regions import TimeLimitReached, enumerate_regions
from certify.proof.pipeline import prove


def ring(J=9):
    """Stream i chooses {i, i+1}; station i feeds {i+1, i+2} with probability 0.3 (heterogeneous feedback), and
    station 1 with probability 0.15: the max-flow bound charges that feedback at full rate (9 x 0.15 > mu_1), fails,
    and the fluid faces must be listed."""
    st = {str(i + 1): {"mu": 1} for i in range(J)}
    streams = [{"choice": [str(i + 1), str((i + 1) % J + 1)], "rate": "0.3"} for i in range(J)]
    fb = [{"from": str(i + 1), "choice": [str((i + 1) % J + 1), str((i + 2) % J + 1)], "prob": "0.3"} for i in range(J)]
    fb += [{"from": str(i + 1), "choice": ["1"], "prob": "0.15"} for i in range(J)]
    return from_dict({"format": "jsq-network/1", "name": f"ring{J}", "stations": st, "streams": streams, "feedback": fb})


def test_ring_returns_within_the_time_limit():
    """A J=9 feedback ring under a 3 s limit returns within the limit plus a small overshoot, undecided, naming the stage."""
    net = ring()
    t0 = time.perf_counter()
    res = prove(net, time_limit=3, simulate=False)
    assert time.perf_counter() - t0 < 3 + 2 and res.time_s < 3 + 1
    assert res.verdict == "undecided" and res.certificate is None
    assert any(r.startswith("time limit reached during ") for r in res.reasons)


def test_ring_markov_stages_stop_at_the_deadline():
    """Without fluid certificates the deadline interrupts the region stage (enumeration or drift compilation): undecided."""
    t0 = time.perf_counter()
    res = certify.prove(ring(), time_limit=2, fluid=False, simulate=False)
    assert time.perf_counter() - t0 < 5
    cut = [r for r in res.reasons if r.startswith("time limit reached during ")]
    assert cut and cut[0].endswith(": nothing is concluded from a partial enumeration"), res.reasons
    assert res.verdict == "undecided"


@pytest.mark.parametrize("enumerate_", [lambda ch, d: enumerate_regions(ch, deadline=d), lambda ch, d: fluid_faces(ch, deadline=d)])
def test_past_deadline_raises(enumerate_):
    """An enumeration given a deadline in the past raises TimeLimitReached instead of returning a partial list."""
    with pytest.raises(TimeLimitReached):
        enumerate_(compile_chain(ring(6)), time.perf_counter() - 1)


def test_time_limit_reason_does_not_claim_every_template_failed():
    """A theorem verdict after a zero time limit says which searches ran, never 'no certificate found by any template'."""
    net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 1}, "2": {"mu": 2}},
                     "streams": [{"choice": ["1", "2"], "rate": 2}]})
    res = certify.prove(net, time_limit=0, simulate=False)
    assert res.verdict == "stable" and res.method.startswith("theorem")
    assert not any("by any template" in r for r in res.reasons)
    assert any("searches run: none" in r for r in res.reasons)


DHK = "theorem: homogeneous feedback (Lambda_C + lam*/(1-p*) P_C < mu_C)"


def fed_ring(J: int):
    """Stream i chooses {i, i+1} at rate 1/2, unit rates, every station feeds station 1 with probability 1/10.

    The Dai-Hasenbein-Kim criterion decides it (stable, ratio 8/9 at {1}); the max-flow bound charges the feedback
    at full rate (16/10 > mu_1) and fails, so the certificate stages must list the faces of 16 stations.
    """
    st = {str(i + 1): {"mu": 1} for i in range(J)}
    streams = [{"choice": [str(i + 1), str((i + 1) % J + 1)], "rate": "1/2"} for i in range(J)]
    fb = [{"from": str(i + 1), "choice": ["1"], "prob": "1/10"} for i in range(J)]
    return from_dict({"format": "jsq-network/1", "name": f"fed-ring{J}", "stations": st, "streams": streams, "feedback": fb})


def test_theorem_decided_network_gets_its_verdict_after_a_share_of_the_time():
    """A ring too big for the certificate stages is decided by the subset theorem once a quarter of the limit is spent."""
    t0 = time.perf_counter()
    res = prove(fed_ring(16), time_limit=8, simulate=False)
    assert time.perf_counter() - t0 < 8 / 4 + 2
    assert res.verdict == "stable" and res.method == DHK
    assert any("certificate stages' budget (2 s" in r for r in res.reasons), res.reasons


def test_explicit_templates_keep_the_whole_time_limit():
    """Asking for a template turns the share off: the search may use the whole limit, even where a theorem decides."""
    res = prove(fed_ring(16), time_limit=3, templates=["quadratic"], simulate=False)
    assert res.time_s > 3 * 0.9 and not any("budget" in r for r in res.reasons), res.reasons


def test_a_theorem_share_of_one_keeps_the_whole_time_limit():
    """theorem_share=1 lets the certificate stages use the whole limit before the theorem's verdict is given."""
    res = prove(fed_ring(16), time_limit=3, theorem_share=1, simulate=False)
    assert res.time_s > 3 * 0.9 and res.method == DHK
    assert not any("budget" in r for r in res.reasons), res.reasons
