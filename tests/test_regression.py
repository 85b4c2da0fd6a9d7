"""Certificate regression: a directory or manifest of (network, certificate) pairs, the CLI, and the pytest plugin."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import certify
from certify.certificates import dumps
from certify.workflows.regression import find_pairs, verify_pairs

pytest_plugins = ["pytester"]


@pytest.fixture
def certs(tmp_path, corpus_dir):
    """A directory with a fluid certificate and a table (Foster) certificate beside their networks."""
    for name in ("dhk2-A-m0.97", "ce-tie-expB-g0.50"):
        shutil.copy(corpus_dir / f"{name}.json", tmp_path / f"{name}.json")
        res = certify.prove(certify.load(tmp_path / f"{name}.json"))
        assert res.verdict == "stable"
        (tmp_path / f"{name}.cert.json").write_text(dumps(res.certificate))
    return tmp_path


def _break(path: Path, factor: float = 1.1) -> None:
    """Edit the network: every arrival rate times ``factor`` (past the old certificate's reach)."""
    doc = json.loads(path.read_text())
    for st in doc["streams"]:
        st["rate"] = st["rate"] * factor
    path.write_text(json.dumps(doc))


def test_directory_pairs_all_valid(certs):
    """Every NAME.cert.json of a directory is paired with NAME.json and re-checks."""
    results = verify_pairs(certs)
    assert len(results) == 2 and all(r.ok for r in results)


def test_manifest_pairs(certs):
    """A manifest names the pairs explicitly, with paths relative to it."""
    (certs / "manifest.json").write_text(json.dumps({"pairs": [
        {"network": "dhk2-A-m0.97.json", "certificate": "dhk2-A-m0.97.cert.json"}]}))
    assert [p.network.name for p in find_pairs(certs / "manifest.json")] == ["dhk2-A-m0.97.json"]


def test_cli_verify_directory_exit_codes(certs):
    """`certify verify DIR` exits 0 when all hold and 1 (naming the broken pair) when a network changed."""
    run = [sys.executable, "-m", "certify.cli", "verify", str(certs)]
    assert subprocess.run(run, capture_output=True, text=True).returncode == 0
    _break(certs / "ce-tie-expB-g0.50.json")
    out = subprocess.run(run, capture_output=True, text=True)
    assert out.returncode == 1 and "INVALID" in out.stdout and "ce-tie-expB-g0.50" in out.stdout


def test_plugin_passes_valid_certificates(pytester, certs):
    """`pytest --certify-certs DIR` collects one passing item per certificate."""
    result = pytester.runpytest("--certify-certs", str(certs))
    result.assert_outcomes(passed=2)


def test_plugin_counts_its_items_as_collected(pytester, certs):
    """pytest's "collected N items" line counts the certificate items (it said 0 before running them)."""
    result = pytester.runpytest("-p", "no:xdist", "--certify-certs", str(certs))
    result.stdout.fnmatch_lines(["collected 2 items"])


def test_plugin_names_network_region_and_inequality(pytester, certs):
    """An edited network fails its item with the network, the region and the violated inequality."""
    _break(certs / "ce-tie-expB-g0.50.json")
    result = pytester.runpytest("--certify-certs", str(certs))
    result.assert_outcomes(passed=1, failed=1)
    text = result.stdout.str()
    assert "ce-tie-expB-g0.50.json" in text
    assert "region x" in text and "drift slope along" in text and "(must be < 0)" in text


def test_plugin_fluid_failure_names_face(pytester, certs):
    """A fluid certificate broken by a model change names the fluid face and the rate that is not negative."""
    _break(certs / "dhk2-A-m0.97.json")
    result = pytester.runpytest("--certify-certs", str(certs))
    result.assert_outcomes(passed=1, failed=1)
    assert "fluid face" in result.stdout.str() and "must be < 0" in result.stdout.str()


def test_plugin_bad_directory_is_a_usage_error(pytester, tmp_path):
    """A directory without certificates is one clear usage error, not a traceback."""
    result = pytester.runpytest("--certify-certs", str(tmp_path))
    assert result.ret != 0
    assert "no *.cert.json certificate files found" in result.stderr.str() + result.stdout.str()
