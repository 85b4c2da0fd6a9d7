"""The quartic SOS template: proofs, refusals, tampering, and the theorem against direct drift evaluation."""

import copy
import random
import subprocess
import sys
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest

import certify
from certify.core.envelope import _body_digest
from certify.core.model import Network, Station, Stream
from certify.exact import check_foster
from certify.markov.chain import Chain, compile_chain
from certify.markov.drift import compile_drifts
from certify.search.template import search_template
from certify.templates import TEMPLATES
from certify.templates import polynomial as poly
from certify.templates.polynomial import QuarticSOS

MODELS = Path(__file__).resolve().parents[1] / "models"


def jsq(mus, lam, name="jsq"):
    """One full-choice Poisson stream of rate lam over stations with rates mus."""
    ids = [str(i + 1) for i in range(len(mus))]
    return Network(name, tuple(Station(s, F(m)) for s, m in zip(ids, mus)), (Stream(F(lam), choice=tuple(ids)),))


def prove_quartic(net, tmp_path):
    """prove with the quartic template only; returns (result, certificate path)."""
    path = tmp_path / "cert.json"
    res = certify.prove(net, templates=["quartic"], out=path)
    return res, path


def V_of(cert, J):
    """V(x) = sum_a c_a x^a from the certificate's ``V[a]`` coefficients."""
    c = {tuple(int(e) for e in k[2:-1].split(",")): F(v) for k, v in cert["coefficients"].items() if k.startswith("V[")}
    assert all(len(a) == J and sum(a) == 4 for a in c)
    return lambda x: sum((v * np.prod([F(xi) ** e for xi, e in zip(x, a)]) for a, v in c.items()), F(0))


def generator(net, x):
    """Jumps (new state, rate) out of state x, written directly from the JSQ rules (no feedback)."""
    ids = net.station_ids
    out = []
    for st in net.streams:
        for choice, rate in st.routing_sets():
            m = min(x[ids.index(s)] for s in choice)
            tied = [s for s in choice if x[ids.index(s)] == m]
            for s, p in net.tie_probs(tuple(tied)).items():
                y = list(x)
                y[ids.index(s)] += 1
                out.append((tuple(y), rate * p))
    for i, station in enumerate(net.stations):
        if x[i]:
            y = list(x)
            y[i] -= 1
            out.append((tuple(y), station.mu))
    return out


def AV(net, V, x):
    """The generator applied to V at state x, exactly."""
    vx = V(x)
    return sum((r * (V(y) - vx) for y, r in generator(net, x)), F(0))


@pytest.mark.parametrize(
    "net",
    [jsq([2], 1, "mm1"), jsq([1, 1], F(9, 5), "jsq2"), jsq([1, 1, 1], F(27, 10), "jsq3")],
    ids=["mm1", "jsq2", "jsq3"],
)
def test_proves_stable_networks(net, tmp_path):
    """M/M/1 and symmetric two- and three-station JSQ at load 0.9 are proved stable by the quartic, and verify passes."""
    res, path = prove_quartic(net, tmp_path)
    assert res.verdict == "stable", res.table()
    assert res.method == "quartic Foster-Lyapunov certificate"
    assert res.certificate["template"] == "quartic"
    chk = certify.verify(net, str(path))
    assert chk.ok, chk.failures
    assert chk.facts.checked.delta > 0


def test_hand_certificate_mm1():
    """V = x^4 for M/M/1 (lam 1, mu 2): the identity, delta = 1 and N = 284 match a hand computation."""
    # AV = -4x^3 + 18x^2 - 4x + 3 on x >= 1; -C - delta lam^3 = 3 lam^3; L = 2, h = 1:
    # e2 = 3*2*4 + 18 = 42, e1 = 3*4*4 + 2*2*18 + 4 = 124, e0 = 8*4 + 4*18 + 2*4 + 3 = 115,
    # s0 = (42 + 124 + 115 + 1) / 1 = 282, N = 1*2 + 282 = 284.
    chain = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    theta = {"V[4]": F(1), "T[2|2]": F(1), "delta": F(1), "n[r1][3]": F(3)}
    res = check_foster(chain, "quartic", theta)
    assert res.ok, res.failures
    assert res.facts.delta == 1 and res.facts.exceptional_l1_bound == 284
    assert check_foster(chain, "quartic", {**theta, "n[r1][3]": F(2)}).failures[0].startswith("region")


def test_overloaded_network_is_not_proved():
    """No quartic certificate exists for JSQ with lam > sum mu: the SDP finds none, and x^4 is refused exactly."""
    chain = compile_chain(jsq([1, 1], 3))
    tmpl = QuarticSOS(chain, compile_drifts(chain))
    assert not search_template(tmpl).found
    mm1 = Chain(("1",), (F(2),), (((0,), F(3)),), (), (F(1),))  # lam 3 > mu 2
    res = check_foster(mm1, "quartic", {"V[4]": F(1), "T[2|2]": F(1), "delta": F(1), "n[r1][3]": F(3)})
    assert not res.ok and any("identity fails" in f for f in res.failures)
    assert certify.prove(jsq([1, 1], 3), templates=["quartic"]).verdict != "stable"


@pytest.fixture(scope="module")
def jsq2_cert(tmp_path_factory):
    """A quartic certificate for symmetric two-station JSQ at load 0.9."""
    net = jsq([1, 1], F(9, 5))
    res, path = prove_quartic(net, tmp_path_factory.mktemp("q"))
    assert res.certificate is not None
    return net, res.certificate


def _reseal(cert, name, change):
    """A copy of the certificate with one coefficient changed and the body digest recomputed."""
    bad = copy.deepcopy(cert)
    bad["coefficients"][name] = str(F(bad["coefficients"][name]) + change)
    bad["digest"] = _body_digest(bad)
    return bad


def test_changed_gram_entry_is_refused(jsq2_cert):
    """Changing one Gram entry (digest resealed) breaks the polynomial identity and verify refuses it."""
    net, cert = jsq2_cert
    name = next(k for k in sorted(cert["coefficients"]) if k.startswith("Q[") and k.endswith("[0,1]"))
    chk = certify.verify(net, _reseal(cert, name, F(1, 1000)))
    assert not chk.ok
    assert any("identity fails" in f for f in chk.failures), chk.failures
    assert not any("digest" in f for f in chk.failures)


def test_changed_V_coefficient_is_refused(jsq2_cert):
    """Changing one coefficient of V (digest resealed) is refused by verify."""
    net, cert = jsq2_cert
    chk = certify.verify(net, _reseal(cert, "V[4,0]", F(1, 1000)))
    assert not chk.ok and chk.failures
    assert not any("digest" in f for f in chk.failures)


def test_non_psd_gram_is_refused(jsq2_cert):
    """A diagonal Gram entry made negative (n adjusted so the identity still holds) fails the exact LDL^T test."""
    net, cert = jsq2_cert
    chain = compile_chain(net)
    tmpl = QuarticSOS(chain, compile_drifts(chain))
    theta = {k: F(v) for k, v in cert["coefficients"].items()}
    blk = next(b for b in tmpl.blocks if b.gram)
    name = f"Q[r{blk.region}.g0][0,0]"
    bump = theta[name] + 1
    theta[name] -= bump  # Q00 now -1, the monomial lam_0^3 lost `bump`: give it to n
    b = tuple(3 if i == 0 else 0 for i in range(blk.K))
    nname = f"n[r{blk.region}][{','.join(map(str, b))}]"
    theta[nname] += bump
    res = check_foster(chain, "quartic", theta)
    assert not res.ok
    assert any("not PSD" in f and "negative pivot 0" in f for f in res.failures), res.failures
    assert not any("identity fails" in f for f in res.failures)


def test_V_must_be_nonnegative():
    """A V whose quartic part is not certified >= 0 on the orthant (w < 0) is refused by the side check."""
    chain = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    res = check_foster(chain, "quartic", {"V[4]": F(-1), "T[2|2]": F(0), "delta": F(1), "n[r1][3]": F(-5)})
    assert not res.ok and any(f.startswith("V >= 0") for f in res.failures)


def test_certificate_carries_every_multiplier(jsq2_cert):
    """The certificate stores V, T, delta, every Gram entry and every n under the template's variable names."""
    net, cert = jsq2_cert
    chain = compile_chain(net)
    names = QuarticSOS(chain, compile_drifts(chain)).variables()
    assert set(cert["coefficients"]) == set(names)
    assert {k.split("[")[0] for k in names} == {"V", "T", "delta", "Q", "n"}


@pytest.fixture(scope="module")
def hetero():
    """Heterogeneous three-station JSQ at load 8/9, its template and its float SDP solution."""
    chain = compile_chain(jsq([1, 2, F(3, 2)], 4))
    drifts = compile_drifts(chain)
    tmpl = QuarticSOS(chain, drifts)
    sol = search_template(tmpl)
    assert sol.found
    return chain, drifts, tmpl, np.array(sol.theta, dtype=float)


@pytest.mark.parametrize("seed", range(3))
def test_rounding_survives_noise(hetero, seed):
    """Float Gram entries with noise of 1e-7 still round to an exactly checked certificate."""
    chain, drifts, tmpl, x = hetero
    x = x.copy()
    rng = np.random.default_rng(seed)
    for blk in tmpl.blocks:
        for ent in blk.qidx:
            for _, _, idx in ent:
                x[idx] += rng.normal(scale=1e-7)
    res = check_foster(chain, "quartic", tmpl.round(x, 2**30), drifts=drifts)
    assert res.ok, res.failures


def test_rounding_projects_onto_the_identity(hetero):
    """When the rounded Gram side exceeds the left side, projection makes every identity exact, n >= 0 wherever a Gram entry can absorb."""
    chain, drifts, tmpl, x = hetero
    x = x.copy()
    x[tmpl.idelta] *= 1.05  # the left sides drop below the Gram sides on the tight monomials
    theta = tmpl.round(x, 2**30)
    grid = [F(round(v * 2**30), 2**30) for v in x]
    moved = [idx for blk in tmpl.blocks for ent in blk.qidx for _, _, idx in ent if theta[idx] != grid[idx]]
    assert moved
    res = check_foster(chain, "quartic", theta, drifts=drifts, max_failures=10**6)
    assert not any("identity fails" in f for f in res.failures), res.failures[:3]
    assert all(theta[blk.noff + m] >= 0 for blk in tmpl.blocks for m, eq in enumerate(blk.eqs) if eq)


def test_drift_beyond_N_is_below_minus_delta(jsq2_cert):
    """At states with |x|_1 >= N, the generator applied to V, evaluated directly from the JSQ rules, is <= -delta."""
    net, cert = jsq2_cert
    V = V_of(cert, 2)
    delta = F(cert["claims"]["delta"])
    N = int(F(cert["claims"]["exceptional_set"]["bound"]))
    rng = random.Random(0)
    states = [(N, 0), (0, N), (N // 2, N - N // 2), (N // 2 + 1, N // 2)]
    states += [(k, N - k) for k in (rng.randint(0, N) for _ in range(20))]
    states += [(N + 7, 3), (1, 2 * N)]
    for x in states:
        assert AV(net, V, x) <= -delta, x


def test_drift_polynomial_matches_generator(jsq2_cert):
    """The exact drift polynomial of each region equals AV computed state by state from the JSQ rules."""
    net, cert = jsq2_cert
    chain = compile_chain(net)
    tmpl = QuarticSOS(chain, compile_drifts(chain))
    theta = [F(cert["coefficients"][k]) for k in tmpl.variables()]
    polys, den = tmpl._drift_polys(theta)
    V = V_of(cert, 2)
    rng = random.Random(1)
    for blk, p in zip(tmpl.blocks, polys):
        region = tmpl.drifts[blk.region].region
        base = region.point()
        for _ in range(5):
            x = list(base)
            for g in blk.G:
                t = rng.randint(0, 30)
                x = [xi + t * gi for xi, gi in zip(x, g)]
            assert region.contains(x)
            val = sum((F(co, den) * np.prod([F(xi) ** e for xi, e in zip(x, a)]) for a, co in p.items()), F(0))
            assert val == AV(net, V, tuple(x))


def test_escalation_declines_what_it_cannot_handle(monkeypatch):
    """The template offers no attempt for J > 4, for phase-type chains, or when a region has too many generators."""
    assert QuarticSOS.escalation(compile_chain(jsq([1] * 5, 4))) == []
    small = compile_chain(jsq([1, 1, 1], 2))
    assert QuarticSOS.escalation(small) == [{}]

    class Phased(Chain):
        @property
        def has_phases(self):
            return True

    phased = Phased(small.ids, small.mu, small.arrivals, small.feedback, small.leave)
    assert QuarticSOS.escalation(phased) == []
    monkeypatch.setattr(poly, "MAX_GENERATORS", 2)
    assert QuarticSOS.escalation(small) == []


def test_registered_after_existing_templates():
    """The quartic template is registered under its name, after the quadratic one."""
    names = list(TEMPLATES)
    assert TEMPLATES["quartic"] is QuarticSOS
    assert names.index("quartic") > names.index("quadratic")


def test_cli_prove_with_quartic_template(tmp_path):
    """``certify prove <model> --template quartic`` prints verdict stable for a small stable model."""
    out = subprocess.run(
        [sys.executable, "-m", "certify.cli", "prove", str(MODELS / "two-station-feedback.json"), "--template", "quartic"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert "verdict: stable" in out.stdout and "quartic Foster" in out.stdout
