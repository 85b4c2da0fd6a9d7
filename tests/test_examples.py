"""The runnable example and benchmark scripts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_prove_models_fast():
    """examples/prove_models.py --fast exits 0: no proved verdict contradicts a model's expected verdict."""
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "prove_models.py"), "--fast"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "symmetric-jsq-J4.json" in out.stdout


def test_bench_quick(tmp_path):
    """bench/regions_lp.py --quick writes a table mentioning every J of the quick run to --out."""
    target = tmp_path / "bench.md"
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "regions_lp.py"), "--quick", "--out", str(target)],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    text = target.read_text()
    assert "## Regions and LP sizes (issue 2)" in text
    rows = [line.split("|") for line in text.splitlines() if line.startswith(("| symmetric", "| random"))]
    js = {int(r[2]) for r in rows}
    assert js == {2, 3, 4}
    assert all(r[-2].strip() == "stable" for r in rows)


def test_tiebreak_critical_gamma_fast():
    """examples/tiebreak_critical_gamma.py --fast brackets the exact critical gamma between proved verdicts."""
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "tiebreak_critical_gamma.py"), "--fast"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "the exact gamma* lies inside the certified bracket" in out.stdout


def test_forkjoin_maximal_fast():
    """examples/forkjoin_maximal.py --fast: every design proved stable at 0.95 theta and unstable at 1.05 theta."""
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "forkjoin_maximal.py"), "--fast"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "every design decided as its capacity says" in out.stdout


def test_blocking_and_tails_fast():
    """examples/blocking_and_tails.py --fast: exact blocking probabilities equal the closed form, tails decay as rho^k."""
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "blocking_and_tails.py"), "--fast"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "all numbers agree with the closed forms" in out.stdout


def test_distribution_sensitivity_fast(tmp_path):
    """examples/distribution_sensitivity.py --fast brackets lambda_3*(scv) by proofs around the subsystem CTMC's value."""
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "distribution_sensitivity.py"), "--fast",
                          "--out", str(tmp_path / "ds.png")], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count(" inside (") == 2 and "NOT INSIDE" not in out.stdout
    assert (tmp_path / "ds.png").stat().st_size > 0
