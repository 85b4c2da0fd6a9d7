"""Symmetric networks at scale (issue 12): `certify prove` and `certify verify` wall time and peak memory.

Each network is written to a temporary file and proved by the command line in a
fresh process (start-up included), then its certificate is re-checked by
`certify verify`; the peak resident memory of each child comes from
``resource.getrusage(RUSAGE_CHILDREN)``.  The baseline, measured in the same
run, is the same prove with the symmetry reduction turned off
(``--no-symmetry``) at the largest size it finishes within its time limit.
The fluid rows are proved with ``--no-flow-bound`` (the faces listed one per
orbit: the reduction is what is measured), and each again with the default
pipeline, where the max-flow bound decides these networks without listing faces.

Usage::

    python bench/symmetry.py            # writes the section into docs/benchmarks.md
    python bench/symmetry.py --quick    # smaller sizes, prints only
"""

from __future__ import annotations

import argparse
import itertools
import json
import platform
import subprocess
import sys
import tempfile
import time
from fractions import Fraction as F
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from docs_section import write_section  # noqa: E402

HEADING = "## Symmetric networks at scale (issue 12)"


def symmetric(J: int, load: F) -> dict:
    """J identical stations sharing one full-choice stream."""
    ids = [str(a + 1) for a in range(J)]
    return {"format": "jsq-network/1", "name": f"symmetric-J{J}", "stations": {i: {"mu": 1} for i in ids},
            "streams": [{"rate": str(load * J), "choice": ids}]}


def classes(per: int, load: F) -> dict:
    """Three server classes (rates 1/2, 1, 2) of ``per`` stations each, one full-choice stream."""
    rates = [F(1, 2), F(1), F(2)]
    st = {f"{c}{k + 1}": {"mu": str(r)} for c, r in zip("abc", rates) for k in range(per)}
    total = sum(rates) * per
    return {"format": "jsq-network/1", "name": f"classes-3x{per}", "stations": st,
            "streams": [{"rate": str(load * total), "choice": list(st)}]}


def power_of_two(J: int, load: F) -> dict:
    """J identical stations; a stream per pair of stations (power-of-two choices), equal rates."""
    ids = [str(a + 1) for a in range(J)]
    pairs = list(itertools.combinations(ids, 2))
    lam = load * J / len(pairs)
    return {"format": "jsq-network/1", "name": f"power-of-two-J{J}", "stations": {i: {"mu": 1} for i in ids},
            "streams": [{"rate": str(lam), "choice": list(p)} for p in pairs]}


_PEAK = (
    "import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(r.returncode)"
)


def run(cmd: list[str], timeout: float = 600) -> tuple[float, float, str, int]:
    """Wall seconds, peak MB of this one command (measured by a wrapper process), its stdout, its exit status."""
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _PEAK, *cmd], capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - t0
    peak_kb = int(out.stderr.strip().splitlines()[-1]) if out.stderr.strip() else 0
    return wall, peak_kb / 1024, out.stdout, out.returncode


def case(doc: dict, tmp: Path, limit: float, extra: list[str] | None = None) -> dict:
    net = tmp / f"{doc['name']}.json"
    cert = tmp / f"{doc['name']}.cert.json"
    net.write_text(json.dumps(doc))
    if cert.exists():
        cert.unlink()
    # --theorem-share 1: a theorem decides these networks, and the benchmark measures the certificates
    wall, mb, out, rc = run([sys.executable, "-m", "certify", "prove", str(net), "--json", "--sim-budget", "0",
                             "--time-limit", str(limit), "--theorem-share", "1", "--out", str(cert), *(extra or [])])
    res = json.loads(out.strip().splitlines()[-1]) if out.strip() else {"verdict": f"exit {rc}", "method": ""}
    vwall, vmb, vout, vrc = (0.0, 0.0, "", -1)
    if cert.exists():
        vwall, vmb, vout, vrc = run([sys.executable, "-m", "certify", "verify", str(net), str(cert)])
    return {"name": doc["name"], "J": len(doc["stations"]), "verdict": res["verdict"], "method": res["method"],
            "prove_s": wall, "prove_mb": mb, "verify_s": vwall, "verified": vrc == 0}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes; print only")
    args = ap.parse_args()
    t_all = time.perf_counter()
    sizes = (20, 50) if args.quick else (20, 50, 100)
    docs = [symmetric(J, F(97, 100)) for J in sizes] + [symmetric(sizes[-1], F(103, 100))]
    docs += [classes(sizes[0] if args.quick else 20, F(97, 100)), power_of_two(8 if args.quick else 16, F(97, 100))]
    # the Markov path reduced too: the quadratic Foster template alone, on the chamber's regions
    quad = [symmetric(24 if args.quick else 48, F(97, 100)), classes(4 if args.quick else 20, F(97, 100))]
    rows = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for k, doc in enumerate(docs + quad):
            quadratic = k >= len(docs)
            extra = ["--template", "quadratic"] if quadratic else ["--no-flow-bound"]
            rows.append(case(doc, tmp, 300 if quadratic else 120, extra=extra))
            rows[-1]["default"] = None if quadratic else case(doc, tmp, 120)
            if quadratic:
                rows[-1]["name"] += " (--template quadratic)"
            r = rows[-1]
            print(f"{r['name']:>20} J={r['J']:>3} {r['verdict']:>9} {r['prove_s']:7.2f}s {r['prove_mb']:6.0f} MB "
                  f"verify {r['verify_s']:6.2f}s {'ok' if r['verified'] else '-'}  {r['method']}", flush=True)
        base_J = 12 if args.quick else 14
        base = case(symmetric(base_J, F(97, 100)), tmp, 300, extra=["--no-symmetry", "--no-flow-bound"])
        red = case(symmetric(base_J, F(97, 100)), tmp, 300, extra=["--no-flow-bound"])
    ratio = base["prove_s"] / red["prove_s"] if red["prove_s"] else float("nan")
    print(f"baseline (no symmetry) J={base_J}: {base['prove_s']:.2f}s vs {red['prove_s']:.2f}s ({ratio:.1f}x)")
    total = time.perf_counter() - t_all
    lines = [HEADING, "",
             f"Machine: 2-core machine ({platform.machine()}), Python {platform.python_version()}. "
             f"Date: {time.strftime('%Y-%m-%d')}. Command: `python bench/symmetry.py` (total {total:.1f} s).", "",
             "Each network is proved by `certify prove FILE --json --sim-budget 0 --theorem-share 1 --out CERT` in a fresh process "
             "(start-up included; peak resident memory of that process), then its certificate is re-checked by `certify verify`. "
             "The fluid rows pass `--no-flow-bound`: the station classes are found exactly and the fluid faces are listed one "
             "per orbit (the sorted chamber); the last two columns are the default pipeline on the same network, where the "
             "max-flow bound (kind `fluid-flow`) decides without listing faces; "
             "with `--template quadratic` the Foster search runs on the chamber's regions with P constant on the orbits "
             "of station pairs, and verify re-checks the generators, the invariance and the chamber's regions.", "",
             f"**Baseline in the same run:** symmetric J = {base_J} without the reduction (`--no-symmetry --no-flow-bound`): "
             f"{base['prove_s']:.2f} s; with it: {red['prove_s']:.2f} s ({ratio:.1f}x).", "",
             "| network | J | verdict | method | prove s | peak MB | verify s | verified | default pipeline | default s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        d = r["default"]
        now = (f"{d['verdict']}, {d['method']}{'' if d['verified'] else ' (NOT verified)'} | {d['prove_s']:.2f}"
               if d is not None else "- | -")
        lines.append(f"| {r['name']} | {r['J']} | {r['verdict']} | {r['method']} | {r['prove_s']:.2f} | {r['prove_mb']:.0f} | "
                     f"{r['verify_s']:.2f} | {'yes' if r['verified'] else 'no'} | {now} |")
    text = "\n".join(lines) + "\n"
    if not args.quick:
        write_section(ROOT / "docs" / "benchmarks.md", HEADING, text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
