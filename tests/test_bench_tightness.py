"""bench/tightness.py and bench/tightness_unstable.py --quick: run, write their sections, never prove beyond the true boundary."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "tightness.py"
CORPUS = ROOT / "corpus" / "public"
SECTION = "## Tightness: certified / true boundary (issue 3)"


def _rows(text: str) -> tuple[list[str], list[list[str]]]:
    """Header and data rows of the first markdown table after the section heading."""
    body = text.split(SECTION, 1)[1]
    lines = [ln.strip() for ln in body.splitlines() if ln.strip().startswith("|")]
    cells = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]
    return cells[0], cells[2:]


def test_quick_tightness(tmp_path: Path):
    out = tmp_path / "bench.md"
    out.write_text("# Benchmarks\n\n## Other section\n\nkept\n")
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--out", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = out.read_text()
    assert "## Other section\n\nkept" in text  # other sections survive
    head, rows = _rows(text)
    assert rows
    col_t, col_r = head.index("template"), head.index("certified / true")
    assert {"quadratic", "table"} <= {r[col_t] for r in rows}
    ratios = []
    for r in rows:
        cell = r[col_r]
        assert "UNSOUND" not in cell, f"CRITICAL: certified beyond the true boundary: {r}"
        ratios.append(float(cell.removeprefix(">=").strip()))  # every quick row proves at least t = 0.5
    # Soundness: a certified stability boundary can never exceed the true one.
    assert all(x <= 1.0 + 1e-9 for x in ratios), f"CRITICAL: certified/true > 1: {ratios}"


UNSTABLE_SECTION = "## Tightness, the unstable side: proved unstable / true boundary (issue 13)"


def test_quick_unstable_side(tmp_path: Path):
    """The unstable-side bisection writes its section, and no network is proved unstable below its true boundary."""
    out = tmp_path / "bench.md"
    out.write_text("# Benchmarks\n")
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "tightness_unstable.py"), "--quick", "--out", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    body = out.read_text().split(UNSTABLE_SECTION, 1)[1]
    lines = [ln.strip() for ln in body.splitlines() if ln.strip().startswith("|")]
    cells = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]
    col = cells[0].index("proved unstable / true")
    ratios = [float(r[col]) for r in cells[2:]]
    assert ratios and all(1.0 <= x <= 1.05 for x in ratios), f"CRITICAL or loose: {ratios}"
