"""Prove every canonical model in ``models/`` and compare with its ``expected`` verdict.
=====================================================================================


Usage::

    python examples/prove_models.py            # every model
    python examples/prove_models.py --fast     # skip models with many regions

Prints one row per model (file, expected, verdict, method, time) and exits with
status 1 if any *proved* verdict (``stable``/``unstable``) contradicts the
model's ``expected`` block.  ``undecided`` is reported but is not a failure.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import certify
from certify.core.model import ForkJoinNetwork
from certify.markov.chain import compile_chain
from certify.markov.regions import enumerate_regions

MODELS = Path(__file__).resolve().parents[1] / "models"
FAST_MAX_REGIONS = 200
PROVED = ("stable", "unstable")


def model_files(directory: Path) -> list[Path]:
    """Network files (``.json``/``.toml``) in ``directory``, sorted by name."""
    return sorted(p for p in directory.iterdir() if p.suffix in (".json", ".toml"))


def region_count(net) -> int:
    """Number of JSQ regions of a network (cheap: no LP); 0 for fork-join networks (their own regions)."""
    if isinstance(net, ForkJoinNetwork):
        return 0
    return len(enumerate_regions(compile_chain(net)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fast", action="store_true",
                    help=f"skip models with more than --max-regions regions (default {FAST_MAX_REGIONS})")
    ap.add_argument("--max-regions", type=int, default=FAST_MAX_REGIONS, help="region limit used by --fast")
    ap.add_argument("--dir", type=Path, default=MODELS, help="directory of model files (default: models/)")
    ap.add_argument("--time-limit", type=float, default=60.0, help="time limit per model for certify.prove")
    args = ap.parse_args(argv)

    rows, bad, skipped = [], [], []
    t_all = time.perf_counter()
    for path in model_files(args.dir):
        net = certify.load(path)
        expected = (net.expected or {}).get("verdict", "?")
        if args.fast:
            n = region_count(net)
            if n > args.max_regions:
                skipped.append(f"{path.name} ({n} regions)")
                continue
        res = certify.prove(net, time_limit=args.time_limit)
        flag = ""
        if res.verdict in PROVED and expected in PROVED and res.verdict != expected:
            flag = "  <-- CONTRADICTS expected"
            bad.append(path.name)
        rows.append((path.name, expected, res.verdict, res.method, f"{res.time_s:.2f}s", flag))

    head = ("file", "expected", "verdict", "method", "time", "")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(5)]
    for r in [head, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r[:5], widths, strict=True)).rstrip() + r[5])
    if skipped:
        print(f"skipped (--fast, more than {args.max_regions} regions): {', '.join(skipped)}")
    proved = sum(1 for r in rows if r[2] in PROVED)
    print(f"{len(rows)} models, {proved} proved, {len(bad)} contradictions, "
          f"{time.perf_counter() - t_all:.1f}s total")
    if bad:
        print(f"ERROR: proved verdict contradicts expected for: {', '.join(bad)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
