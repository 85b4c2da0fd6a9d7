"""Named forgeries (issue 10): certificate files a forger writes by hand, resealed; ``verify`` must refuse each.

Each forged file is input data (what an adversary would hand to ``certify verify``),
written out below and sealed with the current network digest and a recomputed body
digest, so that neither digest check is what refuses it.
"""

import copy
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

import certify
from certify.certificates import FORMAT, network_digest
from certify.io.loader import from_dict, to_dict
from tests.independent import check_foster, check_growth, reseal, verify_isolated

CLI = [sys.executable, "-m", "certify.cli"]
MODELS = Path(__file__).resolve().parents[1] / "models"

# Station 2 gets arrivals at rate 2 and serves at rate 1: not stable under any policy.
OVERLOADED = {
    "format": "jsq-network/1",
    "name": "overloaded",
    "stations": {"1": {"mu": 1}, "2": {"mu": 1}},
    "streams": [{"choice": ["1"], "rate": 0.5}, {"choice": ["2"], "rate": 2}],
}

# Rate 1 into an M/M/1 with mu 10 whose output goes to an M/M/1 with mu 2: stable (loads 0.1 and 0.5).
TANDEM = {
    "format": "jsq-network/1",
    "name": "stable-tandem",
    "stations": {"1": {"mu": 10}, "2": {"mu": 2}},
    "streams": [{"choice": ["1"], "rate": 1}],
    "feedback": [{"from": "1", "choice": ["2"], "prob": 1}],
}

# A table Foster certificate with station 1 listed twice in "fast" and K = 1: the jumps of station 1 lead
# to the cells (0,1) and (1,0), which no state occupies, and their free values carry the drift.  Found with
# the table template's own LP and rounding (commit cb234e4), where ``verify`` accepted it.
FAST_TWICE_FOSTER = {
    "kind": "foster",
    "template": "table",
    "options": {"K": 1, "fast": ["1", "1"], "multipliers": ["1", "2"]},
    "coefficients": {
        "P[1,1]": "1", "P[1,2]": "819/4096", "P[2,2]": "1/16777216",
        "T[1|0,0]": "0", "T[1|0,1]": "0", "T[1|1,0]": "0", "T[1|1,1]": "0",
        "T[2|0,0]": "17255/4096", "T[2|0,1]": "-17255/4096", "T[2|1,0]": "-10207/4096", "T[2|1,1]": "10207/4096",
    },
    "claims": {"delta": "1677311/8388608", "exceptional_set": {"norm": "l1", "bound": "317"}, "regions": 6, "rows": 5},
    "semantics": "markovian",
    "statement": "V >= 0 on the orthant and AV(x) <= -delta for every state with |x|_1 >= bound; "
    "the empty state is reachable from every state: positive recurrent (Foster).",
}

# The same trick in a growth (transience) certificate for the stable tandem (found by certify's growth LP).
FAST_TWICE_GROWTH = {
    "kind": "growth",
    "weights": {"1": "43622135/1048576", "2": "52495749/1048576"},
    "table": {
        "K": 1,
        "fast": ["1", "1"],
        "values": {"0,0": "-35261561/1048576", "0,1": "35261561/1048576", "1,0": "242301/131072", "1,1": "-242301/131072"},
    },
    "claims": {"delta": "9153759/1048576", "level": "419733097/1048576", "increment_bound": "43878655/262144"},
    "semantics": "markovian",
    "statement": "f = w'x (+ bounded table) has bounded increments and Af >= delta on {f > level}: transient "
    "(Fayolle-Malyshev-Menshikov Thm 2.2.7), hence not positive recurrent.",
}


def seal(net, body):
    """A complete certificate file for ``net`` around ``body``: format, network digest, version, body digest."""
    cert = {"format": FORMAT, "network": {"name": net.name, "digest": network_digest(net)}, **copy.deepcopy(body)}
    cert["certify_version"] = certify.__version__
    return reseal(cert)


def refused(net, cert):
    """verify's failures for a certificate it must refuse (asserting it does, without raising or hanging)."""
    res = verify_isolated(net, cert, timeout=10)
    assert res[0] == "ok", res
    assert res[1] is False, "verify accepted the forgery"
    assert not any("digest" in f for f in res[2]), res[2]  # refused for what it says, not for its seal
    return res[2]


def cli_refuses(tmp_path, net, cert):
    """``certify verify`` exits 1 or 2 on the forgery, within seconds, with no traceback; returns the process."""
    nf, cf = tmp_path / "net.json", tmp_path / "cert.json"
    nf.write_text(json.dumps(to_dict(net)))
    cf.write_text(json.dumps(cert))
    t0 = time.perf_counter()
    out = subprocess.run([*CLI, "verify", str(nf), str(cf)], capture_output=True, text=True, timeout=60)
    assert time.perf_counter() - t0 < 30
    assert out.returncode in (1, 2), out.stdout + out.stderr
    assert "Traceback" not in out.stderr and not out.stdout.startswith("valid")
    return out


@pytest.fixture(scope="module")
def overloaded():
    return from_dict(OVERLOADED)


@pytest.fixture(scope="module")
def tandem():
    return from_dict(TANDEM)


@pytest.fixture(scope="module")
def table_cert():
    """A real table Foster certificate (tie-breaking matters: stations 1, 2 share a stream, ties 0.1/0.9)."""
    net = certify.load(MODELS / "tie-breaking-J3.json")
    res = certify.prove(net, templates=["table"], simulate=False)
    assert res.verdict == "stable" and res.certificate["template"] == "table", res.reasons
    return net, res.certificate


@pytest.fixture(scope="module")
def markovian_cert():
    """A real quadratic Foster certificate, whose semantics is markovian."""
    net = certify.load(MODELS / "two-station-feedback.json")
    res = certify.prove(net, templates=["quadratic"], simulate=False)
    assert res.verdict == "stable" and res.certificate["semantics"] == "markovian", res.reasons
    return net, res.certificate


# ---------------------------------------------------------------- a station listed twice in the table


def test_fast_twice_foster_is_false(overloaded):
    """The duplicated-station table Foster certificate is false: its V has AV > -delta at some far state."""
    with pytest.raises(AssertionError, match="AV at"):
        check_foster(overloaded, seal(overloaded, FAST_TWICE_FOSTER), count=300)


def test_fast_twice_foster_refused(overloaded):
    """verify refuses a table Foster certificate for an overloaded network whose fast list names station 1 twice."""
    failures = refused(overloaded, seal(overloaded, FAST_TWICE_FOSTER))
    assert any("fast" in f for f in failures), failures


def test_fast_twice_foster_refused_by_cli(tmp_path, overloaded):
    """certify verify exits 1 or 2, without a traceback, on the duplicated-station Foster forgery."""
    cli_refuses(tmp_path, overloaded, seal(overloaded, FAST_TWICE_FOSTER))


def test_fast_twice_growth_is_false(tandem):
    """The duplicated-station growth certificate is false: its f has Af < delta at some state with f > level."""
    with pytest.raises(AssertionError, match="Af at"):
        check_growth(tandem, seal(tandem, FAST_TWICE_GROWTH), count=400)


def test_fast_twice_growth_refused(tandem):
    """verify refuses a growth certificate for a stable tandem whose table lists station 1 twice."""
    failures = refused(tandem, seal(tandem, FAST_TWICE_GROWTH))
    assert any("fast" in f for f in failures), failures


def test_fast_twice_growth_refused_by_cli(tmp_path, tandem):
    """certify verify exits 1 or 2, without a traceback, on the duplicated-station growth forgery."""
    cli_refuses(tmp_path, tandem, seal(tandem, FAST_TWICE_GROWTH))


def test_fast_twice_in_a_real_table_refused(table_cert):
    """A real table certificate whose fast list repeats its first station (digest resealed) is refused."""
    net, cert = table_cert
    bad = copy.deepcopy(cert)
    bad["options"]["fast"] = [bad["options"]["fast"][0]] * 2
    failures = refused(net, reseal(bad))
    assert any("fast" in f for f in failures), failures


# ---------------------------------------------------------------- semantics and statement are derived


def semantic_forgery(cert):
    """The certificate claiming general semantics and stability for every service law, resealed."""
    bad = copy.deepcopy(cert)
    bad["semantics"] = "general"
    bad["statement"] = "stable for every service distribution"
    return reseal(bad)


def test_semantic_forgery_refused(markovian_cert):
    """A markovian Foster certificate relabelled general, with a general statement, is refused."""
    net, cert = markovian_cert
    assert certify.verify(net, cert).ok  # the original is valid
    refused(net, semantic_forgery(cert))


def test_semantics_alone_refused(markovian_cert):
    """Changing only the semantics of a markovian certificate to general is refused."""
    net, cert = markovian_cert
    bad = copy.deepcopy(cert)
    bad["semantics"] = "general"
    refused(net, reseal(bad))


def test_statement_alone_refused(markovian_cert):
    """Changing only the statement of a certificate is refused (the statement is derived, not read)."""
    net, cert = markovian_cert
    bad = copy.deepcopy(cert)
    bad["statement"] = "stable for every service distribution"
    refused(net, reseal(bad))


def test_semantic_forgery_refused_by_cli(tmp_path, markovian_cert):
    """certify verify never prints the forged statement: it exits 1 or 2 on the semantic forgery."""
    net, cert = markovian_cert
    out = cli_refuses(tmp_path, net, semantic_forgery(cert))
    assert "valid:" not in out.stdout


# ---------------------------------------------------------------- the K bomb and malformed K


def test_huge_K_refused_quickly(table_cert):
    """options.K = 10000000 is refused in under 10 seconds (the checker sizes the expansion before building it)."""
    net, cert = table_cert
    bad = copy.deepcopy(cert)
    bad["options"]["K"] = 10_000_000
    t0 = time.perf_counter()
    res = verify_isolated(net, reseal(bad), timeout=20)
    assert time.perf_counter() - t0 < 10, res
    assert res[0] == "ok" and res[1] is False, res


def test_huge_K_refused_quickly_by_cli(tmp_path, table_cert):
    """certify verify on a certificate with K = 10000000 exits 1 or 2 within 10 seconds, without a traceback."""
    net, cert = table_cert
    bad = copy.deepcopy(cert)
    bad["options"]["K"] = 10_000_000
    nf, cf = tmp_path / "net.json", tmp_path / "cert.json"
    nf.write_text(json.dumps(to_dict(net)))
    cf.write_text(json.dumps(reseal(bad)))
    t0 = time.perf_counter()
    try:
        out = subprocess.run([*CLI, "verify", str(nf), str(cf)], capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("certify verify ran past 20 s on K = 10000000")
    assert time.perf_counter() - t0 < 10
    assert out.returncode in (1, 2) and "Traceback" not in out.stderr, out.stdout + out.stderr


@pytest.mark.parametrize("K", [6.9, "6", True, -1, 0], ids=["float", "string", "bool", "negative", "zero"])
def test_malformed_K_refused_naming_the_field(table_cert, K):
    """A table certificate whose options.K is not an integer >= 1 is refused with a failure naming options.K."""
    net, cert = table_cert
    bad = copy.deepcopy(cert)
    bad["options"]["K"] = K
    failures = refused(net, reseal(bad))
    assert any("options.K" in f for f in failures), failures


@pytest.mark.parametrize("K", [6.9, "6", True, -1, 0], ids=["float", "string", "bool", "negative", "zero"])
def test_malformed_K_refused_by_cli(tmp_path, table_cert, K):
    """certify verify exits 1 or 2, without a traceback, on a table certificate with a malformed options.K."""
    net, cert = table_cert
    bad = copy.deepcopy(cert)
    bad["options"]["K"] = K
    cli_refuses(tmp_path, net, reseal(bad))
