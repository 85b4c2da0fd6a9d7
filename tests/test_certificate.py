"""Certificate files: round trip, tamper detection, and the verify command."""

import copy
import json
import subprocess
import sys
from fractions import Fraction

import pytest

import certify
from certify.certificates import verify
from certify.core.envelope import _body_digest
from certify.io.loader import load

CASES = ["dhk2-A-m0.97.json", "ce-tie-expB-g0.50.json", "fm-gsq1-m1.05.json", "ce-tie-expA-g1.00.json"]


@pytest.fixture(scope="module")
def certs(corpus_dir):
    """A certificate of each kind: fluid and foster (stable), static split and growth (unstable)."""
    out = {}
    for name in CASES:
        net = load(corpus_dir / name)
        res = certify.prove(net)
        assert res.certificate is not None, res.reasons
        out[name] = (net, res.certificate.to_json())  # the file's JSON object, to edit
    assert {c["kind"] for _, c in out.values()} == {"fluid", "foster", "static-split", "growth"}
    return out


def _numbers(obj, path=()):
    """Paths of every number written in the certificate (rationals as strings, and integers)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _numbers(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _numbers(v, (*path, i))
    elif isinstance(obj, int) and not isinstance(obj, bool):
        yield path
    elif isinstance(obj, str) and path[-1] != "digest":
        try:
            Fraction(obj)
        except ValueError:
            return
        yield path


def _set(obj, path, value):
    for k in path[:-1]:
        obj = obj[k]
    obj[path[-1]] = value


def _get(obj, path):
    for k in path:
        obj = obj[k]
    return obj


def test_certificates_verify(certs):
    """Each freshly made certificate passes the exact re-check."""
    for net, cert in certs.values():
        res = verify(net, cert)
        assert res.ok, res.failures


def test_changing_any_number_invalidates(certs):
    """Changing any number of a valid certificate makes it invalid."""
    for net, cert in certs.values():
        paths = list(_numbers(cert))
        assert paths
        for path in paths:
            bad = copy.deepcopy(cert)
            old = _get(bad, path)
            new = old + 1 if isinstance(old, int) else str(Fraction(old) + Fraction(1, 7))
            _set(bad, path, new)
            assert not verify(net, bad).ok, path


def test_semantic_check_without_digest(certs):
    """Even with its digest recomputed, a certificate with a broken coefficient or claim is refused."""
    net, cert = certs["ce-tie-expB-g0.50.json"]
    bad = copy.deepcopy(cert)
    bad["coefficients"]["P[1,1]"] = "-1"
    bad["digest"] = _body_digest(bad)
    res = verify(net, bad)
    assert not res.ok and all("digest" not in f for f in res.failures)
    bad = copy.deepcopy(cert)
    bad["claims"]["delta"] = "1"
    bad["digest"] = _body_digest(bad)
    assert not verify(net, bad).ok


def test_fluid_semantic_check_without_digest(certs):
    """A fluid certificate with a weight made negative, or an extra coefficient, is refused even with a fresh digest."""
    net, cert = certs["dhk2-A-m0.97.json"]
    assert cert["kind"] == "fluid" and cert["semantics"] == "general"
    for change in ({"w[1]": "-1"}, {"P[1,1]": "1"}):
        bad = copy.deepcopy(cert)
        bad["coefficients"].update(change)
        bad["digest"] = _body_digest(bad)
        res = verify(net, bad)
        assert not res.ok and all("digest" not in f for f in res.failures)


def test_certificate_for_other_network_refused(certs, corpus_dir):
    """A certificate checked against a different network is invalid and says so."""
    _, cert = certs["dhk2-A-m0.97.json"]
    other = load(corpus_dir / "dhk2-A-m0.90.json")
    res = verify(other, cert)
    assert not res.ok and any("different network" in f for f in res.failures)


def test_verify_cli_exit_codes(certs, corpus_dir, tmp_path):
    """`certify verify` exits 0 for a valid certificate, 1 for an invalid one, 2 for an unreadable one."""
    net_path = corpus_dir / "dhk2-A-m0.97.json"
    _, cert = certs["dhk2-A-m0.97.json"]
    good = tmp_path / "good.json"
    good.write_text(json.dumps(cert))
    bad_cert = copy.deepcopy(cert)
    bad_cert["claims"]["rows"] = 3
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(bad_cert))
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    run = [sys.executable, "-m", "certify.cli", "verify", str(net_path)]
    assert subprocess.run([*run, str(good)], capture_output=True).returncode == 0
    out = subprocess.run([*run, str(bad)], capture_output=True, text=True)
    assert out.returncode == 1 and "INVALID" in out.stdout
    out = subprocess.run([*run, str(junk)], capture_output=True, text=True)
    assert out.returncode == 2 and "junk.json" in out.stderr and "Traceback" not in out.stderr
