"""Benchmark: JSQ region counts, quadratic-template LP sizes and prove times.

Two families:

(a) symmetric JSQ: one full-choice stream over J stations, all mu = 1, load 0.99
    (rate 0.99 J), J = 2..9;
(b) random partial-choice networks, J = 4..8 (numpy Generator, ``--seed``): a few
    random choice sets of size 2-3 plus one full-choice stream, no feedback,
    rates scaled so that max over station sets A of (sum of lam_C, C subset A)/mu(A)
    = 0.9 (Bramson's subset condition, computed by brute force).

For each network: regions (and unbounded ones), LP rows and variables of the
quadratic template, region + drift compilation time, LP solve time, total
``certify.prove`` wall time and verdict.  A baseline measured in the same run
(``certify.prove`` on symmetric J = 2, best of 5) gives machine-independent
ratios.  The markdown table goes to ``docs/benchmarks.md`` (section "Regions and
LP sizes (issue 2)", replaced if present) or to ``--out PATH``.

Usage::

    python bench/regions_lp.py            # full run
    python bench/regions_lp.py --quick    # J <= 4, a few seconds
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import platform
import sys
import time
from pathlib import Path

import numpy as np
from docs_section import write_section  # noqa: E402  (sibling module; scripts run as files)

import certify
from certify.markov.chain import compile_chain
from certify.markov.drift import compile_drifts
from certify.search.lp import solve_template
from certify.templates import Quadratic

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "docs" / "benchmarks.md"
SECTION = "## Regions and LP sizes (issue 2)"
TARGET_J8_S = 10.0


def symmetric(J: int, load: float = 0.99) -> dict:
    """One full-choice stream over J unit-rate stations at the given load."""
    ids = [str(i) for i in range(1, J + 1)]
    return {"format": "jsq-network/1", "name": f"symmetric-J{J}",
            "stations": {i: {"mu": 1} for i in ids},
            "streams": [{"choice": ids, "rate": round(load * J, 10)}]}


def subset_load(mu: dict[str, float], lam: dict[frozenset, float]) -> float:
    """max over non-empty station sets A of (sum of lam_C over C subset of A) / mu(A), by brute force."""
    ids = list(mu)
    worst = 0.0
    for k in range(1, len(ids) + 1):
        for A in itertools.combinations(ids, k):
            a = frozenset(A)
            worst = max(worst, sum(r for C, r in lam.items() if C <= a) / sum(mu[s] for s in A))
    return worst


def random_partial(J: int, rng: np.random.Generator, load: float = 0.9) -> dict:
    """A few random choice sets of size 2-3 plus a full-choice stream, scaled to the given subset load."""
    ids = [str(i) for i in range(1, J + 1)]
    mu = {i: float(rng.choice([0.5, 1.0, 1.5, 2.0])) for i in ids}
    n_sets = max(2, J // 2)
    sets: list[frozenset] = []
    while len(sets) < n_sets:
        C = frozenset(rng.choice(ids, size=int(rng.integers(2, 4)), replace=False).tolist())
        if C not in sets:
            sets.append(C)
    sets.append(frozenset(ids))
    raw = {C: float(rng.uniform(0.5, 1.5)) for C in sets}
    scale = load / subset_load(mu, raw)
    lam = {C: round(r * scale, 4) for C, r in raw.items()}
    key = {s: k for k, s in enumerate(ids)}
    streams = [{"choice": sorted(C, key=key.get), "rate": r} for C, r in lam.items()]
    return {"format": "jsq-network/1", "name": f"random-partial-J{J}",
            "stations": {i: {"mu": mu[i]} for i in ids}, "streams": streams,
            "x-load": subset_load(mu, lam), "x-sets": len(streams)}


def measure(doc: dict) -> dict:
    """Regions, LP size and times for one network."""
    net = certify.from_dict({k: v for k, v in doc.items() if not k.startswith("x-")})
    t0 = time.perf_counter()
    chain = compile_chain(net)
    drifts = compile_drifts(chain)
    t_regions = time.perf_counter() - t0
    tmpl = Quadratic(chain, drifts)
    lp = solve_template(tmpl)
    t0 = time.perf_counter()
    res = certify.prove(net)
    t_prove = time.perf_counter() - t0
    return {"name": doc["name"], "J": len(doc["stations"]), "sets": len(doc["streams"]),
            "load": doc.get("x-load", 0.99), "regions": len(drifts),
            "unbounded": sum(1 for d in drifts if d.generators), "rows": lp.rows, "vars": lp.variables,
            "t_regions": t_regions, "t_lp": lp.solve_s, "t_prove": t_prove, "verdict": res.verdict,
            "method": res.method}


def baseline(repeat: int = 5) -> float:
    """Best-of-``repeat`` wall time of ``certify.prove`` on symmetric J = 2 (load 0.99)."""
    net = certify.from_dict(symmetric(2))
    certify.prove(net)  # warm up imports and solver
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        certify.prove(net)
        best = min(best, time.perf_counter() - t0)
    return best


def table(rows: list[dict], base: float) -> str:
    head = ("family", "J", "streams", "load", "regions", "unbounded", "LP rows", "LP vars",
            "regions+drifts s", "LP solve s", "prove s", "prove / baseline", "verdict")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        lines.append("| " + " | ".join([
            r["family"], str(r["J"]), str(r["sets"]), f"{r['load']:.3f}", str(r["regions"]), str(r["unbounded"]),
            str(r["rows"]), str(r["vars"]), f"{r['t_regions']:.3f}", f"{r['t_lp']:.3f}", f"{r['t_prove']:.3f}",
            f"{r['t_prove'] / base:.1f}x", r["verdict"]]) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Region counts, LP sizes and prove times.")
    ap.add_argument("--quick", action="store_true", help="small run: J up to 4")
    ap.add_argument("--seed", type=int, default=2024, help="seed of the random partial-choice networks")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="markdown file to write (default docs/benchmarks.md)")
    args = ap.parse_args(argv)

    sym_js = range(2, 5) if args.quick else range(2, 10)
    rnd_js = range(4, 5) if args.quick else range(4, 9)
    rng = np.random.default_rng(args.seed)

    t_start = time.perf_counter()
    base = baseline()
    rows = []
    for J in sym_js:
        rows.append(measure(symmetric(J)) | {"family": "symmetric"})
        print(f"symmetric J={J}: {rows[-1]['regions']} regions, prove {rows[-1]['t_prove']:.2f}s", file=sys.stderr)
    for J in rnd_js:
        rows.append(measure(random_partial(J, rng)) | {"family": f"random partial (seed {args.seed})"})
        print(f"random J={J}: {rows[-1]['regions']} regions, prove {rows[-1]['t_prove']:.2f}s", file=sys.stderr)
    total = time.perf_counter() - t_start

    cmd = "python bench/regions_lp.py" + (" --quick" if args.quick else "") + \
        (f" --seed {args.seed}" if args.seed != 2024 else "")
    j8 = next((r for r in rows if r["family"] == "symmetric" and r["J"] == 8), None)
    notes = [
        f"Machine: 2-core machine ({platform.processor() or platform.machine()}), "
        f"Python {platform.python_version()}, certify {certify.__version__}. "
        f"Date: {datetime.date.today().isoformat()}. Command: `{cmd}` (total {total:.1f} s).",
        "",
        f"Baseline (same run): `certify.prove` on symmetric J = 2 at load 0.99, best of 5: {base * 1000:.1f} ms. "
        "The ratio column is prove time / baseline.",
        "",
        "Columns: `regions` = JSQ signature regions (unbounded = with a non-trivial recession cone); "
        "`LP rows`/`LP vars` = quadratic-template LP after merging identical rows; "
        "`regions+drifts s` = chain compilation, region enumeration and drift compilation; "
        "`LP solve s` = cvxpy solve (constraint generation included); `prove s` = total `certify.prove` wall time "
        "(necessary-condition LP, regions, quadratic LP, exact check). Random networks: "
        "max(2, J//2) random choice sets of size 2-3 plus a full-choice stream, mu in {0.5, 1, 1.5, 2}, "
        "rates scaled so the subset load is 0.9 (rounded to 4 decimals; the exact load is in the table).",
    ]
    if j8 is not None:
        ok = "meets" if j8["t_prove"] < TARGET_J8_S else "MISSES"
        notes += ["", f"**Symmetric J = 8 at load 0.99: {j8['regions']} regions, {j8['rows']} LP rows x {j8['vars']} "
                      f"variables, prove {j8['t_prove']:.2f} s wall ({ok} the < {TARGET_J8_S:g} s target), "
                      f"verdict {j8['verdict']}.**"]
    section = "\n".join([SECTION, "", *notes, "", table(rows, base), ""])
    write_section(args.out, SECTION, section)
    print(section)
    print(f"written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
