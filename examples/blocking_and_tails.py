"""Exact stationary numbers: the loss system's blocking table and the rho^k tail of JSQ.
=====================================================================================


1. Blocking probability of two symmetric JSQ queues with capacity K (seed 001):
   ``certify.stationary`` solves the finite CTMC exactly (sparse LU) and the table
   compares it with the closed form P_block(K) = rho^(2K) / (sum_{j<=2K} rho^j -
   sum_{m<=K} rho^(m-1) 2^-m), rho = lam / (2 mu).
2. Tail decay of the minimum queue of JSQ among k parallel queues (seed 004):
   P(min = n+1) / P(min = n) -> rho^k with rho = lam / sum mu, for symmetric and
   heterogeneous servers, from the QBD rate matrix of the min-queue process.

Usage::

    python examples/blocking_and_tails.py          # K = 1..6, four loads; k = 2, 3, 4
    python examples/blocking_and_tails.py --fast   # K = 1..3, two loads; k = 2, 3
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction

from certify.io.loader import from_dict
from certify.stationary import loss2_blocking, stationary


def loss_network(a: Fraction, K: int):
    """Two queues, mu = 1, capacity K, one JSQ stream of rate a (so rho = a/2)."""
    return from_dict({"format": "jsq-network/1", "name": f"loss2-a{a}-K{K}",
                      "stations": {"1": {"mu": 1, "capacity": K}, "2": {"mu": 1, "capacity": K}},
                      "streams": [{"choice": ["1", "2"], "rate": str(a)}]})


def parallel_network(lam: Fraction, mus: list[Fraction]):
    ids = [str(i + 1) for i in range(len(mus))]
    return from_dict({"format": "jsq-network/1", "name": f"jsq-k{len(mus)}",
                      "stations": {s: {"mu": str(m)} for s, m in zip(ids, mus)},
                      "streams": [{"choice": ids, "rate": str(lam)}]})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fast", action="store_true", help="a smaller table")
    args = ap.parse_args(argv)
    Ks = range(1, 4) if args.fast else range(1, 7)
    loads = [Fraction(1, 2), Fraction(8, 5)] if args.fast else [Fraction(1, 2), Fraction(1), Fraction(8, 5), Fraction(3)]
    worst = 0.0
    print("Blocking probability of the symmetric two-queue loss system (exact CTMC vs closed form)")
    print(f"{'lam':>6} {'K':>3} {'CTMC':>22} {'closed form':>22} {'rel. diff':>10}")
    for a in loads:
        for K in Ks:
            res = stationary(loss_network(a, K))
            closed = float(loss2_blocking(a / 2, K))
            rel = abs(res.blocking_probability - closed) / closed
            worst = max(worst, rel)
            print(f"{float(a):>6g} {K:>3} {res.blocking_probability:>22.16g} {closed:>22.16g} {rel:>10.1e}")
    print(f"largest relative difference {worst:.1e}")
    print()
    print("Tail decay of the minimum queue (QBD rate matrix) vs rho^k")
    cases = [(Fraction(12, 5), [Fraction(1), Fraction(2)]), (Fraction(27, 10), [Fraction(1)] * 3)]
    if not args.fast:
        cases.append((Fraction(3), [Fraction(1), Fraction(1), Fraction(1), Fraction(1, 2)]))
    bad_tail = 0.0
    for lam, mus in cases:
        res = stationary(parallel_network(lam, mus), truncate=1)
        rho = lam / sum(mus)
        target = float(rho ** len(mus))
        bad_tail = max(bad_tail, abs(res.min_queue_tail_decay_rate - target))
        print(f"  k = {len(mus)}, mu = {[float(m) for m in mus]}, rho = {float(rho):.4f}: "
              f"decay {res.min_queue_tail_decay_rate:.10f}, rho^k = {target:.10f}")
    ok = worst < 1e-9 and bad_tail < 1e-3
    print("all numbers agree with the closed forms" if ok else "MISMATCH with a closed form")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
