"""Stability atlas of the tie-breaking counterexample over (gamma, lambda_12), against the exact boundary.
=======================================================================================================


Stations 1 and 2 share a JSQ stream of rate lambda_12 (``streams[0].rate``);
ties go to station 1 with probability gamma (``tie_breaking[0].probs.1``; the
sweep sets ``probs.2`` to 1 - gamma); station 1's output feeds station 3, which
also has its own stream lambda_3.  Station 3 is stable iff

    lambda_3 + d_1(gamma, lambda_12) < mu_3,

with d_1 the throughput of station 1 in the autonomous 1-2 subsystem.  This script

1. sweeps ``certify.prove`` (exactly checked certificates only, no simulation)
   over a gamma x lambda_12 grid of ``models/tie-breaking-J3.json`` (21 x 21;
   5 x 5 with ``--fast``) on a local process pool;
2. computes d_1 from the truncated CTMC of the 1-2 subsystem
   (``models/criteria.py``, independent of certify), hence every cell's effective
   load (lambda_3 + d_1)/mu_3 and the exact boundary, and draws the boundary over
   the atlas;
3. prints how many cells at least 1% (in effective load) from the boundary are
   proved on the right side, and exits with status 1 if any such cell is proved
   on the wrong side or not proved (or any cell at all is proved on the wrong side).

Usage::

    python examples/atlas_tiebreak.py                    # 21 x 21, writes atlas_tiebreak.png
    python examples/atlas_tiebreak.py --fast --out a.png  # 5 x 5
    python examples/atlas_tiebreak.py --store atlas.sqlite  # resumable: re-run to finish an interrupted run
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from fractions import Fraction
from pathlib import Path

import certify
from certify.core.numbers import exact_str
from certify.io.loader import load as load_network

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "models" / "tie-breaking-J3.json"
GAMMA, LAM12 = "tie_breaking[0].probs.1", "streams[0].rate"
LAM12_RANGE = ("0.6", "1.6")
BAND = 0.01  # cells whose effective load is within 1% of 1 may stay undecided


def _criteria():
    spec = importlib.util.spec_from_file_location("criteria", ROOT / "models" / "criteria.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Subsystem:
    """d_1(gamma, lambda_12) of the 1-2 subsystem, from its truncated CTMC (models/criteria.py).

    For each lambda_12 it solves gamma = 0, 1/2, 1; when d_1(1/2) is the mean of
    the two ends (d_1 is linear in gamma: equal exponential servers), other gammas
    are interpolated, else solved directly.
    """

    def __init__(self, mu1: float, mu2: float):
        self.crit = _criteria()
        self.mu1, self.mu2 = mu1, mu2
        self.rows: dict[float, tuple[float, float, bool]] = {}

    def _solve(self, lam12: float, gamma: float) -> float:
        d1, lost = self.crit.subsystem_throughput(lam12, gamma, self.mu1, self.mu2)
        if lost > 1e-9:
            raise SystemExit(f"truncated CTMC loses {lost:.2g} arrivals per unit time at lambda_12 = {lam12}: d_1 inexact")
        return d1

    def row(self, lam12: float) -> tuple[float, float, bool]:
        if lam12 not in self.rows:
            d0, d1 = self._solve(lam12, 0.0), self._solve(lam12, 1.0)
            linear = abs(self._solve(lam12, 0.5) - (d0 + d1) / 2) < 1e-9
            self.rows[lam12] = (d0, d1, linear)
        return self.rows[lam12]

    def d1(self, gamma: float, lam12: float) -> float:
        d0, d1, linear = self.row(lam12)
        return d0 + gamma * (d1 - d0) if linear else self._solve(lam12, gamma)

    def gamma_at(self, lam12: float, target: float) -> float | None:
        """The gamma where d_1 = target on this row (None if the row is not linear or d_1 does not vary)."""
        d0, d1, linear = self.row(lam12)
        return (target - d0) / (d1 - d0) if linear and d1 != d0 else None


def _clip(pts: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The polyline (gamma, lambda_12) cut to 0 <= gamma <= 1 (ends interpolated)."""
    out: list[tuple[float, float]] = []
    for (g0, l0), (g1, l1) in zip(pts, pts[1:]):
        for g, lam in ((g0, l0), (g1, l1)):
            if 0 <= g <= 1 and (not out or out[-1] != (g, lam)):
                out.append((g, lam))
        for edge in (0.0, 1.0):
            if (g0 - edge) * (g1 - edge) < 0:
                lam = l0 + (l1 - l0) * (edge - g0) / (g1 - g0)
                out.append((edge, lam))
    return sorted(set(out), key=lambda p: p[1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fast", action="store_true", help="a 5 x 5 grid instead of 21 x 21")
    ap.add_argument("--out", default="atlas_tiebreak.png", help="the atlas image (default atlas_tiebreak.png)")
    ap.add_argument("--store", help="SQLite results file (resumable; default: none)")
    ap.add_argument("--time-limit", type=float, default=8.0, help="seconds of search per point (default 8)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    args = ap.parse_args(argv)

    net = load_network(MODEL)
    n = 5 if args.fast else 21
    t0 = time.perf_counter()
    res = certify.sweep(net, [(GAMMA, f"0:1:{n}"), (LAM12, f"{LAM12_RANGE[0]}:{LAM12_RANGE[1]}:{n}")],
                        time_limit=args.time_limit, out=args.store, workers=args.workers)
    swept = time.perf_counter() - t0
    print(f"swept {len(res.points)} points ({n} x {n}) in {swept:.1f} s with {args.workers} workers, "
          f"{args.time_limit:g} s search per point ({res.computed} computed, {res.reused} reused)")

    mu = {s.id: float(s.mu) for s in net.stations}
    lam3 = float(net.streams[1].rate)
    sub = Subsystem(mu["1"], mu["2"])
    tally = {"far": 0, "far_right": 0, "far_wrong": 0, "far_unproved": 0, "near": 0, "near_proved": 0, "near_wrong": 0}
    bad = []
    for p in res.points:
        gamma, lam12 = float(p.values[0]), float(p.values[1])
        load = (lam3 + sub.d1(gamma, lam12)) / mu["3"]  # effective load of station 3
        truth = "stable" if load < 1 else "unstable"
        proved = p.verdict in ("stable", "unstable")
        wrong = proved and p.verdict != truth
        if abs(load - 1) >= BAND:
            tally["far"] += 1
            key = "far_wrong" if wrong else "far_right" if proved else "far_unproved"
            tally[key] += 1
            if key != "far_right":
                bad.append(f"  {key}: gamma = {p.values[0]}, lambda_12 = {p.values[1]}, load {load:.4f}, "
                           f"verdict {p.verdict} ({p.method})")
        else:
            tally["near"] += 1
            tally["near_proved"] += proved
            tally["near_wrong"] += wrong
            if wrong:
                bad.append(f"  near_wrong: gamma = {p.values[0]}, lambda_12 = {p.values[1]}, load {load:.6f}, "
                           f"verdict {p.verdict} ({p.method})")

    # The exact boundary and the 1% band, on a finer lambda_12 grid than the cells.
    lo, hi = (float(Fraction(x)) for x in LAM12_RANGE)
    m = 2 * n - 1
    lams = [lo + (hi - lo) * k / (m - 1) for k in range(m)]
    curves = {}
    for name, level in (("boundary", 1.0), ("minus", 1 - BAND), ("plus", 1 + BAND)):
        pts = [(sub.gamma_at(lam, level * mu["3"] - lam3), lam) for lam in lams]
        curves[name] = _clip([(g, lam) for g, lam in pts if g is not None])
    overlays = [
        {"x": [g for g, _ in curves["boundary"]], "y": [lam for _, lam in curves["boundary"]],
         "label": "exact boundary lambda_3 + d_1(gamma, lambda_12) = mu_3 (d_1: CTMC of the 1-2 subsystem)",
         "style": {"color": "black", "lw": 2.2}},
    ]
    for k, name in enumerate(("minus", "plus")):
        overlays.append({"x": [g for g, _ in curves[name]], "y": [lam for _, lam in curves[name]],
                         "label": "effective load 0.99 and 1.01 (cells between may stay undecided)" if k == 0 else None,
                         "style": {"color": "black", "lw": 0.9, "ls": ":"}})
    res.plot(args.out, overlays=overlays,
             title=f"{res.network}: (gamma, lambda_12) atlas, lambda_3 = {exact_str(net.streams[1].rate)}, "
                   f"{args.time_limit:g} s per point")

    print(f"{tally['far_right']} of {tally['far']} cells at least 1% (in effective load) from the exact boundary are "
          f"proved on the right side ({tally['far_wrong']} on the wrong side, {tally['far_unproved']} not proved)")
    print(f"{tally['near']} cells within 1% of the boundary: {tally['near_proved']} proved "
          f"({tally['near_wrong']} on the wrong side), {tally['near'] - tally['near_proved']} undecided")
    print("verdicts: " + ", ".join(f"{v} {c}" for v, c in sorted(res.counts().items())))
    print(f"atlas: {args.out}")
    for line in bad:
        print(line)
    failed = tally["far_wrong"] + tally["far_unproved"] + tally["near_wrong"]
    if failed:
        print(f"FAILED: {failed} cell(s) proved on the wrong side or, at least 1% from the boundary, not proved")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
