"""Benchmark: how close do proofs get to the true stability boundary from *both* sides? (issue 13)

``bench/tightness.py`` measures the stable side only (the largest load a Foster
template proves stable).  Here :func:`certify.boundary` bisects lambda_3 (the rate
of the stream that chooses station 3 alone) on the DHK-type counterexample
networks -- stations 1 and 2 share a JSQ stream, station 1's output feeds station
3 -- where the true boundary is lambda_3* = mu_3 - d_1, d_1 the throughput of the
1-2 subsystem from its own CTMC (corpus: ``x-case.boundary.lambda3_star``; models:
``models/criteria.py``, which does not import certify).  Each run starts from
[0.8, 1.2] x lambda_3* and stops at ``--tol``; the table gives both ends relative
to lambda_3*, the width, and the probes and time it took, in the same run.

Usage::

    python bench/boundary.py            # writes its section into docs/benchmarks.md
    python bench/boundary.py --quick    # two networks, prints only
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from docs_section import write_section  # noqa: E402

import certify  # noqa: E402

HEADING = "## Boundaries proved on both sides (issue 13)"
CORPUS = ROOT / "corpus" / "public"
CORPUS_FILES = ("ce-dist-A-exp.json", "ce-dist-B-h2.json", "ce-tie-expA-g0.00.json", "ce-tie-expA-g1.00.json",
                "ce-tie-expB-g0.50.json")
MODEL_FILES = ("tie-breaking-J3.json", "distribution-h2-J3.json")


def _criteria():
    spec = importlib.util.spec_from_file_location("criteria", ROOT / "models" / "criteria.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


def cases(quick: bool) -> list[tuple[str, Path, int, float]]:
    """(label, file, index of the station-3 stream, lambda_3*) for each network."""
    out = []
    for name in CORPUS_FILES[:1] if quick else CORPUS_FILES:
        doc = json.loads((CORPUS / name).read_text())
        k = next(i for i, st in enumerate(doc["streams"]) if st["choice"] == ["3"])
        out.append((f"corpus {name}", CORPUS / name, k, float(doc["x-case"]["boundary"]["lambda3_star"])))
    crit = _criteria()
    for name in MODEL_FILES[:1] if quick else MODEL_FILES:
        path = ROOT / "models" / name
        doc = json.loads(path.read_text())
        k = next(i for i, st in enumerate(doc["streams"]) if st["choice"] == ["3"])
        mu3, lam3 = float(doc["stations"]["3"]["mu"]), float(doc["streams"][k]["rate"])
        margin = crit.tie_breaking(doc)["margin"]  # (lam_3 + d_1) / mu_3 from the subsystem CTMC
        out.append((f"models/{name}", path, k, mu3 - (margin * mu3 - lam3)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="two networks; print only")
    ap.add_argument("--tol", default="0.001", help="bracket width to stop at (default 0.001)")
    args = ap.parse_args()
    t_all = time.perf_counter()
    rows = []
    for label, path, k, star in cases(args.quick):
        lo, hi = (Fraction(round(f * star, 4)).limit_denominator(10**4) for f in (0.8, 1.2))
        t0 = time.perf_counter()
        res = certify.boundary(certify.load(path), f"streams[{k}].rate", lo, hi, tol=args.tol, point_limit=120)
        wall = time.perf_counter() - t0
        s = float(res.stable_at) / star if res.stable_at is not None else None
        u = float(res.unstable_at) / star if res.unstable_at is not None else None
        ok = res.bracketed and float(res.stable_at) < star < float(res.unstable_at)
        rows.append((label, star, s, u, res.width, len(res.steps), wall, ok,
                     res.certificates.get("stable", {}).get("kind"), res.certificates.get("unstable", {}).get("kind")))
        print(f"{label:>40}  lambda3* {star:.6f}  stable/* {s}  unstable/* {u}  width {res.width}  "
              f"{len(res.steps)} probes {wall:.1f}s  contains: {ok}", flush=True)
    total = time.perf_counter() - t_all
    lines = [HEADING, "",
             f"Machine: 2-core machine ({platform.machine()}), Python {platform.python_version()}. "
             f"Date: {time.strftime('%Y-%m-%d')}. Command: `python bench/boundary.py` (total {total:.1f} s).", "",
             "`certify.boundary` bisects lambda_3 from [0.8, 1.2] x lambda_3* with a proof at every probe "
             f"(tolerance {args.tol}, 120 s per probe); lambda_3* = mu_3 - d_1 comes from the 1-2 subsystem's CTMC "
             "(corpus `x-case.boundary`, `models/criteria.py`), independent of certify. Stable side / unstable side: "
             "the bracket's ends over lambda_3* (the stable side of `bench/tightness.py`, and the unstable side it never "
             "measured).", "",
             "| network | lambda_3* | stable end / lambda_3* | unstable end / lambda_3* | width | probes | time (s) | "
             "contains lambda_3* | certificates |", "|---|---|---|---|---|---|---|---|---|"]
    for label, star, s, u, width, n, wall, ok, ks, ku in rows:
        lines.append(f"| {label} | {star:.6f} | {s:.5f} | {u:.5f} | {float(width):.2g} | {n} | {wall:.1f} | "
                     f"{'yes' if ok else 'NO'} | {ks} / {ku} |" if width is not None else
                     f"| {label} | {star:.6f} | {s} | {u} | - | {n} | {wall:.1f} | no | {ks} / {ku} |")
    text = "\n".join(lines) + "\n"
    if not args.quick:
        write_section(ROOT / "docs" / "benchmarks.md", HEADING, text)
    print(text)
    return 0 if all(r[7] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
