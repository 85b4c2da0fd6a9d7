"""Benchmark: the Poisson box's linear solves in one block against two halves in two threads (issue 21, stop 58).

A sink stage's Poisson try (docs/math/poisson.md) solves the box chain's Poisson equations for J' + 2 or more
right-hand sides with one incomplete LU factorisation preconditioning BiCGSTAB. Since stop 58 they are solved as two
halves of the columns, the second in a second thread (``certify.search.krylov.halved_block_bicgstab``). For each
case below the box's generator and its right-hand sides (each station's drift, the forced rate and the drain's u,
less their stationary means) are built once, then solved three ways in the same run:

- ``one block``: ``block_bicgstab`` on every column at once (the baseline: the solves until stop 58);
- ``halves in turn``: the two halves one after the other (what one core does: the same answer, bit for bit);
- ``two threads``: the halves at once (what ``box_law`` does on two cores or more).

Best of ``--reps`` each; the ratio is the baseline's time over each. The cases are the J = 8 random networks of
``bench/frontier.py`` near their boundaries, with the boxes their probes solved (the second at its largest, a box of
a larger probe).

Usage::

    python bench/box_solves.py            # both cases, best of 2 (about two minutes)
    python bench/box_solves.py --quick    # the smaller case, once, printed only
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from docs_section import merge_table_section  # noqa: E402
from frontier import _scaled, random_feedback  # noqa: E402

from certify.exact.drain import drain_rate  # noqa: E402
from certify.exact.sink import forced_rate, reduced_network  # noqa: E402
from certify.io.loader import from_dict  # noqa: E402
from certify.markov.chain import compile_chain  # noqa: E402
from certify.search.cell_rows import CellRows  # noqa: E402
from certify.search.krylov import block_bicgstab, halved_block_bicgstab  # noqa: E402
from certify.search.poisson import SOLVE_RTOL, box_system, elimination_order, factored_law  # noqa: E402

SECTION = "## The box's block solves in two threads (issue 21)"
#: (name, J, seed, load, sink, levels): the boxes of two probes near their boundaries.
CASES = [
    ("random-J8-s85 @ 0.865", 8, 85, 0.865, "1", (4, 4, 5, 3, 5, 8, 6)),
    ("random-J8-s99 @ 0.9", 8, 99, 0.9, "4", (2, 5, 9, 8, 3, 5, 9)),
]


def system(J: int, seed: int, load: float, sink: str, K: tuple[int, ...]):
    """The box's matrix without the origin (in the elimination order), its ILU, and the right-hand sides."""
    net = from_dict(_scaled(random_feedback(J, seed), load))
    red = reduced_network(net, sink)
    chain = compile_chain(red.network)
    rows = CellRows(chain, K, [lambda e: forced_rate(red, chain, e), lambda e: drain_rate(red, chain, (sink,), e)])
    factored = box_system(rows.box_generator(), range(rows.columns), elimination_order(rows.K))
    pi, _ = factored_law(factored)
    f = np.column_stack([np.asarray(rows.rates[k], dtype=float)[rows.box] for k in (0, 1)])
    R = np.column_stack([rows.box_drifts(), f])
    R = (pi @ R)[None, :] - R
    return factored.rest, factored.ilu, np.ascontiguousarray(R[factored.at][1:]), len(pi)


def best(solve, reps: int) -> tuple[float, np.ndarray]:
    """The best wall time of ``solve()`` over ``reps`` runs, and its answer."""
    t, X = float("inf"), None
    for _ in range(reps):
        t0 = time.perf_counter()
        X, info = solve()
        t = min(t, time.perf_counter() - t0)
        assert (info == 0).all(), info
    return t, X


def measure(name: str, J: int, seed: int, load: float, sink: str, K: tuple[int, ...], reps: int) -> list[str]:
    """One case's row: the three ways' best times, their ratio, and how their answers compare."""
    rest, ilu, B, states = system(J, seed, load, sink, K)
    A = rest.__matmul__
    t1, X1 = best(lambda: block_bicgstab(A, ilu.solve, B, SOLVE_RTOL, 2000), reps)
    t2, X2 = best(lambda: halved_block_bicgstab(A, ilu.solve, B, SOLVE_RTOL, 2000, threads=1), reps)
    t3, X3 = best(lambda: halved_block_bicgstab(A, ilu.solve, B, SOLVE_RTOL, 2000, threads=2), reps)
    same = "yes" if np.array_equal(X2, X3) else "NO"
    apart = float(np.abs(X3 - X1).max() / np.abs(X1).max())
    return [name, f"{states:,}", str(B.shape[1]), f"{t1:.2f}", f"{t2:.2f}", f"{t3:.2f}", f"{t1 / t3:.2f}", same,
            f"{apart:.1e}", datetime.date.today().isoformat()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2, help="runs of each way (default 2)")
    ap.add_argument("--quick", action="store_true", help="the smaller case, once; print only")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks.md")
    args = ap.parse_args()
    cases, reps = (CASES[:1], 1) if args.quick else (CASES, args.reps)
    rows = []
    for case in cases:
        rows.append(measure(*case, reps))
        print(" | ".join(rows[-1]), flush=True)
    if not args.quick:
        intro = (f"`python bench/box_solves.py` (best of {reps}; {platform.machine()}, Python "
                 f"{platform.python_version()}): each box's Poisson equations (every station's drift, the forced rate "
                 "and the drain's u, less their means) solved by BiCGSTAB with the box's incomplete LU, in one block "
                 "(the baseline, the solves until stop 58), as two halves in turn (one core) and as two halves in two "
                 "threads (`box_law` since stop 58); ratio = one block / two threads; `same` = the halves' answers "
                 "bit for bit; `apart` = the largest difference from one block, relative to its largest value.")
        header = ["box", "states", "right-hand sides", "one block s", "halves in turn s", "two threads s", "ratio",
                  "same", "apart", "measured"]
        merge_table_section(args.out, SECTION, intro, header, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
