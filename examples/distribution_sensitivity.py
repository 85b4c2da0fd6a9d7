"""How the service distribution moves a stability boundary: lambda_3*(scv), proved on both sides.
=================================================================================================


The distribution counterexample (Dai-Hasenbein-Kim type; ``ce-dist-A-exp`` of the
corpus): stations 1 and 2 share a JSQ stream of rate 3/2 (fair ties), station 1's
output feeds station 3, which has its own stream lambda_3; every mean service
time is 1.  Station 3 is stable iff lambda_3 + d_1 < mu_3, with d_1 the throughput
of station 1 in the 1-2 subsystem -- which depends on station 2's whole service
law, not only on its mean.  This script gives station 2 a Coxian-2 law with
squared coefficient of variation scv (mean fixed; exact rational phases at every
point: ``{"dist": "coxian", "scv": c}``) and, for each scv on a grid,

1. brackets the boundary lambda_3* with ``certify.boundary``: the largest
   lambda_3 proved stable and the smallest proved unstable, each by an exactly
   checked certificate (Foster / growth with tables over the phases);
2. computes lambda_3* = mu_3 - d_1 independently, from the truncated CTMC of the
   1-2 subsystem on (x_1, x_2, phase of station 2) (``models/criteria.py``, which
   does not import certify), and checks that it lies in the bracket;
3. draws the bracket against scv, with the exponential point (lambda_3* = 1/4)
   and the mean-only bound: the fluid model of this network is unstable for every
   lambda_3 > 0 (at fluid scale the shared stream may send all of station 1's
   capacity to station 3), so the means alone prove nothing here.

Usage::

    python examples/distribution_sensitivity.py                 # scv 0.5 .. 8, writes distribution_sensitivity.png
    python examples/distribution_sensitivity.py --fast          # two points, coarse tolerance
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from fractions import Fraction
from pathlib import Path

import certify
from certify.markov.laws import coxian2

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "corpus" / "public" / "ce-dist-A-exp.json"
FULL_GRID = ("1/2", "3/4", "1", "3/2", "2", "3", "4", "6", "8")
FAST_GRID = ("1/2", "2")


def _criteria():
    spec = importlib.util.spec_from_file_location("criteria", ROOT / "models" / "criteria.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


def network(scv: Fraction) -> dict:
    """The counterexample with station 2's service a Coxian-2 of mean 1 and this scv."""
    doc = json.loads(BASE.read_text())
    for key in ("expected", "x-case"):
        doc.pop(key, None)
    doc["name"] = f"ce-dist-coxian-scv{float(scv):g}"
    doc["stations"]["2"]["service"] = {"dist": "coxian", "scv": str(scv)}
    return doc


def exact_boundary(crit, scv: Fraction, N: int) -> float:
    """mu_3 - d_1, d_1 from the subsystem CTMC with station 2's Coxian-2 phases (floats of the exact ones)."""
    (r1, r2), (go,) = coxian2(scv, Fraction(1))
    ph2 = ([1.0, 0.0], [float(r1 * (1 - go)), float(r2)], [(0, 1, float(r1 * go))])
    ph1 = ([1.0], [1.0], [])
    d1, lost = crit.subsystem_throughput_ph(1.5, 0.5, ph1, ph2, N=N)
    assert lost < 1e-6, f"truncation loses {lost:.1e} per unit time at scv {scv}: raise N"
    return 1.0 - d1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fast", action="store_true", help="two scv points, tolerance 0.02")
    ap.add_argument("--out", default="distribution_sensitivity.png", help="the figure (PNG)")
    ap.add_argument("--tol", default=None, help="bracket width (default 0.005; 0.02 with --fast)")
    args = ap.parse_args()
    grid = [Fraction(c) for c in (FAST_GRID if args.fast else FULL_GRID)]
    tol = args.tol or ("0.02" if args.fast else "0.005")
    crit = _criteria()
    rows = []
    t_all = time.perf_counter()
    for scv in grid:
        t0 = time.perf_counter()
        res = certify.boundary(certify.from_dict(network(scv)), "streams[1].rate", "0.05", "0.45", tol=tol,
                               point_limit=120)
        star = exact_boundary(crit, scv, N=50 if args.fast else 80)
        ok = res.bracketed and float(res.stable_at) < star < float(res.unstable_at)
        rows.append((scv, res, star, ok, time.perf_counter() - t0))
        s = float(res.stable_at) if res.stable_at is not None else float("nan")
        u = float(res.unstable_at) if res.unstable_at is not None else float("nan")
        print(f"scv {float(scv):5.3g}: proved stable at {s:.5f}, unstable at {u:.5f}; exact lambda_3* {star:.5f} "
              f"{'inside' if ok else 'NOT INSIDE'} ({len(res.steps)} probes, {rows[-1][4]:.1f} s)", flush=True)
    total = time.perf_counter() - t_all
    print("\n| scv | proved stable at | proved unstable at | exact lambda_3* | inside | probes | time (s) |")
    print("|---|---|---|---|---|---|---|")
    for scv, res, star, ok, wall in rows:
        print(f"| {scv} | {float(res.stable_at):.5f} | {float(res.unstable_at):.5f} | {star:.5f} | "
              f"{'yes' if ok else 'no'} | {len(res.steps)} | {wall:.1f} |" if res.bracketed else
              f"| {scv} | - | - | {star:.5f} | no | {len(res.steps)} | {wall:.1f} |")
    print(f"\ntotal {total:.1f} s")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    xs = [float(r[0]) for r in rows]
    ax.fill_between(xs, [float(r[1].stable_at) if r[1].bracketed else float("nan") for r in rows],
                    [float(r[1].unstable_at) if r[1].bracketed else float("nan") for r in rows],
                    color="0.8", label="bracket (both ends proved)")
    ax.plot(xs, [float(r[1].stable_at) if r[1].stable_at is not None else float("nan") for r in rows], "o",
            color="tab:green", label="largest lambda_3 proved stable")
    ax.plot(xs, [float(r[1].unstable_at) if r[1].unstable_at is not None else float("nan") for r in rows], "s",
            color="tab:red", label="smallest lambda_3 proved unstable")
    ax.plot(xs, [r[2] for r in rows], "k-", lw=1, label="exact lambda_3* (subsystem CTMC)")
    ax.plot([1.0], [0.25], "*", color="tab:blue", ms=12, label="exponential service (1/4)")
    ax.text(0.02, 0.03, "mean-only (fluid) bound: lambda_3 = 0 (the fluid model is unstable for every lambda_3 > 0)",
            transform=ax.transAxes, fontsize=7, color="tab:purple")
    ax.set_xscale("log")
    ax.set_xticks(xs, [f"{x:g}" for x in xs])
    ax.minorticks_off()
    ax.set_xlabel("scv of station 2's service (Coxian-2, mean 1)")
    ax.set_ylabel("lambda_3")
    ax.set_title("Stability boundary of station 3 against the service law of station 2")
    ax.legend(fontsize=7, loc="upper right", framealpha=0.9)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"figure: {args.out}")
    return 0 if all(r[3] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
