"""The tie-breaking counterexample's critical gamma: exact d_1 against the certified boundary.
===========================================================================================


Stations 1 and 2 share a JSQ stream; ties go to station 1 with probability
gamma; station 1's output feeds station 3, which also has its own stream.
Station 3 is stable iff lam_3 + d_1(gamma) < mu_3, with d_1 the throughput of
station 1 in the autonomous 1-2 subsystem.  This script

1. computes d_1(gamma) from the truncated CTMC of the 1-2 subsystem
   (``models/criteria.py``, independent of certify) and the exact critical gamma*
   (d_1 is linear in gamma for equal exponential servers);
2. bisects gamma with ``certify.prove`` (exactly checked certificates only:
   ``stable`` below, ``unstable`` above) and prints the certified bracket.

Usage::

    python examples/tiebreak_critical_gamma.py            # models/tie-breaking-J3.json, lam_3 = 0.55
    python examples/tiebreak_critical_gamma.py --fast     # 4 bisection steps
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from fractions import Fraction
from pathlib import Path

import certify
from certify.io.loader import from_dict, to_dict

ROOT = Path(__file__).resolve().parents[1]


def _criteria():
    spec = importlib.util.spec_from_file_location("criteria", ROOT / "models" / "criteria.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def with_gamma(doc: dict, gamma: Fraction, lam3: Fraction) -> dict:
    """The model document with tie probability gamma (to station 1) and station 3's own rate lam3."""
    doc = to_dict(from_dict(doc))
    doc["tie_breaking"] = [{"set": ["1", "2"], "probs": {"1": str(gamma), "2": str(1 - gamma)}}]
    for st in doc["streams"]:
        if st.get("choice") == ["3"]:
            st["rate"] = str(lam3)
    return doc


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fast", action="store_true", help="4 bisection steps")
    ap.add_argument("--lam3", type=Fraction, default=Fraction(55, 100), help="station 3's own arrival rate")
    args = ap.parse_args(argv)
    crit = _criteria()
    doc = crit.read(ROOT / "models" / "tie-breaking-J3.json")
    lam12 = sum(float(s["rate"]) for s in doc["streams"] if s["choice"] == ["1", "2"])
    d0, _ = crit.subsystem_throughput(lam12, 0.0)
    d1_, _ = crit.subsystem_throughput(lam12, 1.0)
    g_star = (1 - float(args.lam3) - d0) / (d1_ - d0)
    print(f"lam_12 = {lam12:g}, lam_3 = {float(args.lam3):g}: d_1(gamma) = {d0:.6f} + {d1_ - d0:.6f} gamma (truncated CTMC)")
    print(f"exact critical gamma* = {g_star:.6f}  (station 3 stable iff gamma < gamma*)")
    lo, hi = Fraction(0), Fraction(1)
    steps = 4 if args.fast else 10
    verdicts = {}
    for g in (lo, hi):
        verdicts[g] = certify.prove(from_dict(with_gamma(doc, g, args.lam3)), simulate=False).verdict
    print(f"gamma = 0: {verdicts[lo]}, gamma = 1: {verdicts[hi]}")
    if verdicts[lo] != "stable" or verdicts[hi] != "unstable":
        print("the endpoints are not decided as expected; nothing to bisect")
        return 1
    # certified bracket: largest gamma proved stable, smallest proved unstable
    stable_at, unstable_at = lo, hi
    for _ in range(steps):
        mid = (stable_at + unstable_at) / 2
        v = certify.prove(from_dict(with_gamma(doc, mid, args.lam3)), simulate=False).verdict
        print(f"  gamma = {float(mid):.6f}: {v}")
        if v == "stable":
            stable_at = mid
        elif v == "unstable":
            unstable_at = mid
        else:
            break
    print(f"certified: stable at gamma = {float(stable_at):.6f}, unstable at gamma = {float(unstable_at):.6f}")
    ok = float(stable_at) < g_star < float(unstable_at)
    print("the exact gamma* lies inside the certified bracket" if ok else "CONTRADICTION: gamma* outside the bracket")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
