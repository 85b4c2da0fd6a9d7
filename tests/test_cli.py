"""The certify command line: prove, verify, regions, and clean errors."""

import json
import subprocess
import sys

import pytest

CLI = [sys.executable, "-m", "certify.cli"]


def run(*args):
    """Run the CLI and return the completed process (text mode)."""
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True)


def test_prove_json_last_line(corpus_dir, tmp_path):
    """`prove --json` prints one object on the last line with the required keys, and writes the certificate."""
    cert = tmp_path / "c.json"
    out = run("prove", corpus_dir / "mmjsq-k2-m0.90.json", "--json", "--out", cert)
    assert out.returncode == 0, out.stderr
    obj = json.loads(out.stdout.strip().splitlines()[-1])
    assert {"verdict", "semantics", "method", "certificate", "reasons", "time_s"} <= set(obj)
    assert obj["verdict"] == "stable" and obj["semantics"] == "general" and obj["certificate"] == str(cert)
    assert run("verify", corpus_dir / "mmjsq-k2-m0.90.json", cert).returncode == 0


def test_prove_expect(corpus_dir):
    """`--expect` exits 0 when the verdict matches and 1 when it differs."""
    assert run("prove", corpus_dir / "mmjsq-k2-m1.05.json", "--expect", "unstable").returncode == 0
    out = run("prove", corpus_dir / "mmjsq-k2-m1.05.json", "--expect", "stable")
    assert out.returncode == 1 and "expected stable" in out.stderr


def test_prove_human_table(corpus_dir):
    """The human report lists each search with its size, time and outcome, then the verdict."""
    out = run("prove", corpus_dir / "dhk2-A-m0.90.json")
    assert "necessary condition" in out.stdout and "fluid linear Lyapunov" in out.stdout
    assert "verdict: stable (general" in out.stdout
    out = run("prove", corpus_dir / "dhk2-A-m0.90.json", "--template", "quadratic")
    assert "quadratic Foster" in out.stdout and not any(ln.startswith("  fluid") for ln in out.stdout.splitlines())
    assert "verdict: stable (markovian" in out.stdout


@pytest.mark.parametrize(
    "text,needle",
    [
        ('{"format": "jsq-network/1", "stations": {"1": {"mu": 0}}, "streams": [{"choice": ["1"], "rate": 1}]}', "stations.1.mu"),
        ('{"format": "jsq-network/1", "stations": {"1": {"mu": 1}}, "streams": [{"choice": ["9"], "rate": 1}]}', "streams[0].choice[0]"),
        ("{broken", "line 1"),
    ],
    ids=["nonpositive-mu", "unknown-station", "syntax"],
)
def test_bad_input_exit_2(tmp_path, text, needle):
    """Bad input: one line naming the file and field on stderr, exit status 2, no traceback."""
    f = tmp_path / "net.json"
    f.write_text(text)
    for cmd in ("prove", "regions"):
        out = run(cmd, f)
        assert out.returncode == 2
        assert "net.json" in out.stderr and needle in out.stderr
        assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_missing_file_exit_2(tmp_path):
    """A file that does not exist is named in a clean error."""
    out = run("prove", tmp_path / "nope.json")
    assert out.returncode == 2 and "nope.json" in out.stderr and "Traceback" not in out.stderr


def test_regions_count(corpus_dir):
    """`regions --json` reports the region count of a network (254 for one full-choice stream over 7 stations)."""
    import certify

    net = certify.load(corpus_dir / "mmjsq-k2-m0.90.json")
    out = run("regions", corpus_dir / "mmjsq-k2-m0.90.json", "--json")
    assert json.loads(out.stdout)["regions"] == 6 == 2 ** (net.J + 1) - 2
    out = run("regions", corpus_dir / "mmjsq-k2-m0.90.json", "--list")
    assert out.stdout.count("drift (") == 6
