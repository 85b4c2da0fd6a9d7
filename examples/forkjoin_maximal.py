"""Fork-join with redundancy: which static allocations are maximal (seed 003), checked by certificates.
====================================================================================================


For an (n,k) fork-join system with static server rates d_i, the job throughput
capacity theta solves sum_i min(d_i, theta) = k theta; it equals mu*/k (the best
possible, rho < 1) exactly when max d_i <= mu*/k.  For each design this script
prints theta, mu*/k and the maximal-design flag, and asks ``certify.prove`` for
exactly checked verdicts at 0.95 theta (must be stable) and 1.05 theta (must be
unstable).  A non-maximal design is unstable at some rho < 1: the script shows
the proved instability at rho = 1.05 theta k / mu* < 1.

Usage::

    python examples/forkjoin_maximal.py          # the corpus designs and a few more
    python examples/forkjoin_maximal.py --fast   # three designs
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction

import certify
from certify.core.model import ForkJoinNetwork
from certify.exact.forkjoin_capacity import maximal_design, throughput_capacity

DESIGNS = [
    (2, ("1/3", "1/3", "1/3")),
    (2, ("0.6", "0.2", "0.2")),
    (3, ("0.4", "0.3", "0.3")),
    (2, ("0.4", "0.3", "0.3")),
    (3, ("0.3", "0.3", "0.2", "0.1", "0.1")),
    (2, ("0.5", "0.3", "0.1", "0.1")),
]


def design(k: int, rates: tuple[str, ...], lam: Fraction) -> ForkJoinNetwork:
    servers = tuple((str(i + 1), Fraction(r)) for i, r in enumerate(rates))
    return ForkJoinNetwork(f"n{len(rates)}k{k}", len(rates), k, lam, servers)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fast", action="store_true", help="three designs only")
    args = ap.parse_args(argv)
    bad = 0
    print(f"{'design':<34} {'theta':>8} {'mu*/k':>8} {'maximal':>8} {'rho at 1.05 theta':>18}  0.95 theta / 1.05 theta")
    for k, rates in DESIGNS[:3] if args.fast else DESIGNS:
        probe = design(k, rates, Fraction(1))
        theta = throughput_capacity(probe)
        mu_star = sum((Fraction(r) for r in rates), Fraction(0))
        lo = certify.prove(design(k, rates, theta * Fraction(95, 100)), simulate=False).verdict
        hi = certify.prove(design(k, rates, theta * Fraction(105, 100)), simulate=False).verdict
        rho_hi = k * theta * Fraction(105, 100) / mu_star
        ok = lo == "stable" and hi == "unstable" and maximal_design(probe) == (theta == mu_star / k)
        bad += not ok
        name = f"k={k}, d=({', '.join(rates)})"
        print(f"{name:<34} {float(theta):>8.4f} {float(mu_star / k):>8.4f} {str(maximal_design(probe)):>8} "
              f"{float(rho_hi):>18.4f}  {lo} / {hi}{'' if ok else '   <-- MISMATCH'}")
    print("every design decided as its capacity says" if not bad else f"{bad} design(s) not decided as expected")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
