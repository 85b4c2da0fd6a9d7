"""Rate inequalities checked cell by cell: f + A'g >= c or u + A'g <= c without listing R''s regions.

docs/math/cells.md states the bound and proves it.  A *cell* of a chain with levels L_a (the table's clip level
K_a at its stations, 0 elsewhere) fixes z_a = min(x_a, L_a + 1) at every station: the empty stations, the
table's cell min(x_F, K) and, for every jump, the table's cell after it are then fixed; only the JSQ decisions
between stations whose queues the cell does not fix may vary.  Each move of the generator (an arrival stream, a
service, a feedback) is bounded on its own by the best (drain) or worst (growth) of the stations it may join on
the cell, which is where the per-region check spends its time: a chain of seven stations has about twenty regions
per cell of a box.  A cell whose bound fails is checked region by region
(:func:`certify.exact.rates.rate_failure` on its regions), so a function passes here exactly when it passes on
every region: the check is the same, only faster.

Exponential chains only (the sink kinds' R').  Pure Python, integers and rationals only.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from math import lcm, prod
from operator import itemgetter
from typing import Literal

from ..markov.chain import Chain
from ..markov.drift import Clip, RegionDrift, clip_levels, compile_drifts
from ..markov.jumps import _Rates
from ..markov.regions import POLL_EVERY, TimeLimitReached, check_deadline, iter_regions
from .growth import growth_levels
from .rates import rate_failure

__all__ = ["MAX_CELLS", "PARALLEL_CELLS", "CellCheck", "check_processes",
           "Claim", "cell_levels", "cell_count", "cell_constraints", "cell_bound",
           "cell_rate_failure", "by_cells", "claims_failure", "checked_text"]

#: The most cells the check visits; a function whose cells are more (a long R' with a small table) is checked
#: region by region instead.
MAX_CELLS = 4_000_000

#: "No upper bound" on a queue the cell does not fix.
_FREE = 1 << 60


@dataclass(frozen=True)
class CellCheck:
    """What :func:`cell_rate_failure` found: the first failure (or None), the cells, and the cells split into regions.

    Attributes
    ----------
    failure : str or None
        ``"f + A g = v < c = b on the region ..."`` for the first region that fails, or None.
    cells : int
        The cells visited.
    split : int
        The cells whose bound did not hold and were checked region by region.
    regions : int
        The regions of those cells.

    Examples
    --------
    >>> CellCheck(None, 12, 0, 0).failure is None
    True
    """

    failure: str | None
    cells: int
    split: int
    regions: int


def cell_levels(chain: Chain, fast: Sequence[int], K: Clip) -> tuple[int, ...]:
    """The level L_a of every station: the table's clip level at its stations, 0 at the others.

    Parameters
    ----------
    chain : Chain
        The chain.
    fast : sequence of int
        The table's stations.
    K : int or tuple of int
        The table's clip level (or one per fast station).

    Returns
    -------
    tuple of int
        L_a per station; a cell gives each station a value in 0..L_a or "L_a + 1 or more".

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2", "3"), (F(1),) * 3, (((0, 1, 2), F(1)),), (), (F(1),) * 3)
    >>> cell_levels(ch, [2], 3)
    (0, 0, 3)
    """
    levels = [0] * chain.J
    for a, k in zip(fast, clip_levels(fast, K)):
        levels[a] = k
    return tuple(levels)


def cell_count(chain: Chain, fast: Sequence[int], K: Clip) -> int:
    """The number of cells: the product of L_a + 2 over the stations.

    Parameters
    ----------
    chain : Chain
        The chain.
    fast : sequence of int
        The table's stations.
    K : int or tuple of int
        The table's clip level (or one per fast station).

    Returns
    -------
    int
        The cells :func:`cell_rate_failure` visits.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2", "3"), (F(1),) * 3, (((0, 1, 2), F(1)),), (), (F(1),) * 3)
    >>> cell_count(ch, [2], 3)
    20
    """
    return prod(k + 2 for k in cell_levels(chain, fast, K))


def cell_constraints(z: Sequence[int], levels: Sequence[int]) -> tuple[tuple[int, int, int], ...]:
    """The cell z as difference constraints on DBM nodes: x_a = z_a, or x_a >= L_a + 1 where z_a = L_a + 1.

    Parameters
    ----------
    z : sequence of int
        The cell.
    levels : sequence of int
        L_a per station.

    Returns
    -------
    tuple of (int, int, int)
        (u, v, c) meaning x_u - x_v <= c (node 0 the origin, station a at node a + 1).

    Examples
    --------
    >>> cell_constraints((0, 3), (1, 2))     # x1 = 0, x2 >= 3
    ((1, 0, 0), (0, 1, 0), (0, 2, -3))
    """
    out: list[tuple[int, int, int]] = []
    for a, (v, L) in enumerate(zip(z, levels)):
        if v <= L:
            out += [(a + 1, 0, v), (0, a + 1, -v)]
        else:
            out.append((0, a + 1, -v))
    return tuple(out)


class _Bounds:
    """The cell bounds of one function g on one chain: its moves, the table as a flat list, the candidates' memo.

    The table's cell min(z_F, K) is kept as one column number (mixed radix over K_a + 1); a jump that moves
    station a up or down moves it by a's stride where the cell lets a's table coordinate move (a below its level,
    or at or under it and busy), else not at all.
    """

    def __init__(self, chain: Chain, levels: Sequence[int], W: Sequence[int], T: Mapping[tuple[int, ...], int] | None,
                 fast: Sequence[int], K: Sequence[int]):
        J = chain.J
        rates = _Rates(chain)
        self.J, self.levels, self.W, self.rates = J, tuple(levels), list(W), rates
        self.total = [int(r * chain.scale) for r in rates.rate_of]
        self.leave = rates.leave
        # moves into choice sets: (memo key, set, rate index, server or None, whether the set compares after the
        # departure), the arrivals and then each station's feedback
        self.arrivals = [(n, C, k, None, False) for n, (C, k) in enumerate(rates.arrivals)]
        self.feedback: list[list[tuple[int, tuple[int, ...], int, int | None, bool]]] = []
        n = len(self.arrivals)
        for i in range(J):
            self.feedback.append([(n + m, C, k, i, i in C and len(C) > 1) for m, (C, k) in enumerate(rates.feedback[i])])
            n += len(rates.feedback[i])
        self.table_level = [-1] * J  # -1: not a table station
        self.stride = [0] * J
        step = 1
        for a, k in reversed(list(zip(fast, K))):
            self.table_level[a], self.stride[a] = k, step
            step *= k + 1
        self.fast = list(fast)
        if T is None:
            self.T = [0]
        else:
            self.T = [0] * step
            for c, v in T.items():
                self.T[sum(x * self.stride[a] for x, a in zip(c, fast))] = v
        # per move (its memo key): the queues of its set read at once, and its candidates by those queues
        self._read = [itemgetter(*C) for _, C, *_ in [*self.arrivals, *(f for fs in self.feedback for f in fs)]]
        self._cand: list[dict[object, tuple[tuple[int, ...], tuple[tuple[int, int], ...] | None]]] = [
            {} for _ in self._read]

    def _candidates(self, key: int, C: tuple[int, ...], k: int, z: Sequence[int], shift: int | None
                    ) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...] | None]:
        """The stations of C that are a shortest one (of x, or of x - e_shift) at some state of the cell, and the
        move's split over them (scaled rates) when the cell fixes them (no candidate above its level), else None."""
        memo = self._cand[key]
        pattern = self._read[key](z)
        got = memo.get(pattern)
        if got is None:
            zc = tuple(z[b] for b in C)
            lows = [v - (1 if b == shift else 0) for v, b in zip(zc, C)]
            top = [v > self.levels[b] for v, b in zip(zc, C)]
            fixed = [v for v, t in zip(lows, top) if not t]
            m = min(fixed) if fixed else _FREE
            cand = tuple(b for v, b in zip(lows, C) if v <= m)
            exact = not any(t for v, t in zip(lows, top) if v <= m)
            got = memo[pattern] = (cand, self.rates.split(cand, k) if exact else None)
        return got

    def bound(self, z: Sequence[int], side: Literal["at least", "at most"]) -> int:
        """The bound on A'g (times the scale and the denominator) at every state of the cell z."""
        W, T, tl, st, J = self.W, self.T, self.table_level, self.stride, self.J
        col = sum(min(z[a], tl[a]) * st[a] for a in self.fast)
        here = T[col]
        up = [st[a] if z[a] < tl[a] else 0 for a in range(J)]
        # joining station j from this cell: g changes by join[j]
        join = [W[j] + T[col + up[j]] - here for j in range(J)]
        worst = max if side == "at most" else min
        num = 0
        read, memo = self._read, self._cand
        for key, C, k, _, _ in self.arrivals:
            got = memo[key].get(read[key](z)) or self._candidates(key, C, k, z, None)
            cand, split = got
            if split is None:
                num += self.total[k] * worst(join[j] for j in cand)
            elif len(split) == 1:
                num += split[0][1] * join[split[0][0]]
            else:
                num += sum(r * join[j] for j, r in split)
        for i in range(J):
            if not z[i]:
                continue
            base = col - (st[i] if z[i] <= tl[i] else 0)  # the cell after i's departure
            gone = T[base] - here - W[i]  # g's change when the customer leaves i (and R')
            if self.leave[i]:
                num += self.leave[i] * gone
            for key, C, k, frm, shifted in self.feedback[i]:
                cand, split = memo[key].get(read[key](z)) or self._candidates(key, C, k, z, frm if shifted else None)
                deltas = {j: 0 if j == i else gone + W[j] + T[base + up[j]] - T[base] for j in cand}
                if split is not None:
                    num += sum(r * deltas[j] for j, r in split)
                else:
                    num += self.total[k] * worst(deltas.values())
        return num


def cell_bound(chain: Chain, z: Sequence[int], levels: Sequence[int], W: Sequence[int],
               T: Mapping[tuple[int, ...], int] | None, fast: Sequence[int], K: Sequence[int],
               side: Literal["at least", "at most"]) -> int:
    """A bound on A'g (times the scale) at every state of the cell z: >= all of them (drain), <= all (growth).

    Parameters
    ----------
    chain : Chain
        An exponential chain.
    z : sequence of int
        The cell: z_a = min(x_a, L_a + 1).
    levels : sequence of int
        L_a per station (:func:`cell_levels`).
    W : sequence of int
        g's weights (integers over a common denominator D).
    T : dict or None
        g's table over min(x_fast, K) (integers over D), or None.
    fast : sequence of int
        The table's stations.
    K : sequence of int
        Their clip levels.
    side : {"at least", "at most"}
        "at most": an upper bound (every move at its largest); "at least": a lower bound.

    Returns
    -------
    int
        The bound times ``chain.scale * D``.

    Examples
    --------
    Two stations of rate 1 sharing a stream of rate 1, g = x_1 - x_2, both queues 2 or more: the services give
    -1 + 1 and the arrival +1 or -1 (it may join either), so A'g lies in [-1, 1].

    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> [F(cell_bound(ch, (2, 2), (1, 1), [1, -1], None, [], [], side), ch.scale) for side in ("at most", "at least")]
    [Fraction(1, 1), Fraction(-1, 1)]
    """
    return _Bounds(chain, levels, W, T, fast, K).bound(z, side)


def cell_rate_failure(chain: Chain, rate_of: Callable[[tuple[int, ...]], Fraction], w: Sequence[Fraction],
                      bound: Fraction, table: Mapping[tuple[int, ...], Fraction] | None, fast: Sequence[int], K: Clip,
                      side: Literal["at least", "at most"], deadline: float | None = None,
                      names: tuple[str, str] = ("f", "c"), stage: str = "the exact check of a rate inequality"
                      ) -> CellCheck:
    """Check ``rate + A'g`` against ``bound`` at every state, cell by cell (regions only where a cell's bound fails).

    Parameters
    ----------
    chain : Chain
        An exponential chain.
    rate_of : callable
        The rate on a cell, from its empty stations (sorted); called once per set of empty stations.
    w : sequence of Fraction
        g's weights, one per station.
    bound : Fraction
        c.
    table : dict or None
        g's bounded table over min(x_fast, K), or None (g linear).
    fast : sequence of int
        The table's stations.
    K : int or tuple of int
        The table's clip level (or one per fast station).
    side : {"at least", "at most"}
        ``rate + A'g >= c`` (growth) or ``<= c`` (drain) at every state.
    deadline : float, optional
        A ``time.perf_counter()`` value; the loop raises TimeLimitReached past it.
    names : (str, str)
        How the failure names the rate and the bound.
    stage : str
        What the time-limit message says was stopped.

    Returns
    -------
    CellCheck
        The first failing region's message (as :func:`~certify.exact.rates.rate_failure` words it) or None, and
        the counts.

    Examples
    --------
    An M/M/1 queue (rate 1/2 in, 1 out) with f its busy indicator and g = x: f + A'g = 1/2 at every state.

    >>> mm1 = Chain(("1",), (Fraction(1),), (((0,), Fraction(1, 2)),), (), (Fraction(1),))
    >>> busy = lambda empty: Fraction(0) if 0 in empty else Fraction(1)
    >>> cell_rate_failure(mm1, busy, [Fraction(1)], Fraction(1, 2), None, [], 0, "at most")
    CellCheck(failure=None, cells=2, split=0, regions=0)
    >>> cell_rate_failure(mm1, busy, [Fraction(1)], Fraction(2, 5), None, [], 0, "at most").failure[:27]
    'f + A g = 1/2 > c = 2/5 on '
    """
    levels = cell_levels(chain, fast, K)
    Ks = list(clip_levels(fast, K))
    D = 1
    for v in [*w, *(table.values() if table is not None else ())]:
        D = lcm(D, v.denominator)
    W = [int(v * D) for v in w]
    T = {c: int(v * D) for c, v in table.items()} if table is not None else None
    job = _Cells(chain, rate_of, w, bound, table, fast, K, Ks, levels, _Bounds(chain, levels, W, T, fast, Ks),
                 chain.scale * D, side, deadline, names, stage)
    workers = check_processes()
    if workers > 1 and prod(L + 2 for L in levels) >= PARALLEL_CELLS:
        return _in_processes(job, workers)
    return job.run(())


@dataclass
class _Cells:
    """One rate inequality's cell check, over every cell or over the cells whose first coordinates are given."""

    chain: Chain
    rate_of: Callable[[tuple[int, ...]], Fraction]
    w: Sequence[Fraction]
    bound: Fraction
    table: Mapping[tuple[int, ...], Fraction] | None
    fast: Sequence[int]
    K: Clip
    Ks: list[int]
    levels: tuple[int, ...]
    bounds: _Bounds
    unit: int
    side: Literal["at least", "at most"]
    deadline: float | None
    names: tuple[str, str]
    stage: str

    def run(self, prefix: tuple[int, ...]) -> CellCheck:
        """The cells z with z[:len(prefix)] == prefix, in lexicographic order, up to the first failing region."""
        chain, bound, side, deadline, unit = self.chain, self.bound, self.side, self.deadline, self.unit
        rates: dict[tuple[int, ...], Fraction] = {}
        cells = split = listed = 0
        rest = [range(L + 2) for L in self.levels[len(prefix):]]
        for tail in product(*rest):
            if deadline is not None and cells % POLL_EVERY == 0:
                check_deadline(deadline, self.stage)
            cells += 1
            z = prefix + tail
            empty = tuple(a for a, v in enumerate(z) if v == 0)
            f = rates.get(empty)
            if f is None:
                f = rates[empty] = self.rate_of(empty)
            num = self.bounds.bound(z, side)
            lhs = num * f.denominator * bound.denominator + f.numerator * unit * bound.denominator
            rhs = bound.numerator * unit * f.denominator
            if not ((lhs < rhs) if side == "at least" else (lhs > rhs)):
                continue
            # the bound fails on this cell: its regions, each exactly
            split += 1
            regions = list(iter_regions(chain, dict(zip(self.fast, self.Ks)), deadline=deadline,
                                        within=cell_constraints(z, self.levels)))
            listed += len(regions)
            bad = rate_failure(chain, compile_drifts(chain, regions, deadline=deadline), self.rate_of, self.w, bound,
                               self.table, self.fast, self.K, side, deadline, self.names, self.stage)
            if bad is not None:
                return CellCheck(bad, cells, split, listed)
        return CellCheck(None, cells, split, listed)


#: A cell check of at least this many cells runs in :func:`check_processes` worker processes where there are two or
#: more (J = 8 seed 33 at 0.85, sink 6: 635,040 cells in 8.8 s in one process, about 14 us a cell).
PARALLEL_CELLS = 100_000

#: The check a worker process runs (set in the parent before the workers are forked: they inherit it).
_JOB: _Cells | None = None
_FORKING = threading.Lock()


def check_processes() -> int:
    """How many processes a large cell check uses: ``CERTIFY_CHECK_PROCESSES`` if set (a sweep's pool workers set
    it to 1), else the CPUs this process may run on (1 where processes cannot be forked).

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> check_processes() >= 1
    True
    """
    if "fork" not in multiprocessing.get_all_start_methods() or multiprocessing.current_process().daemon:
        return 1
    given = os.environ.get("CERTIFY_CHECK_PROCESSES", "").strip()
    if given.isdigit() and int(given) >= 1:
        return int(given)
    cpus = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else range(os.cpu_count() or 1)
    return max(1, len(cpus))


def _run_slice(prefix: tuple[int, ...]) -> CellCheck:
    """A worker's part: the inherited check over the cells that begin with ``prefix``."""
    assert _JOB is not None
    return _JOB.run(prefix)


def _quiet() -> None:
    """A worker ignores Ctrl-C: the parent stops it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _in_processes(job: _Cells, workers: int) -> CellCheck:
    """The check split by the cells' first coordinates (a few dozen slices, in order) over forked processes: the
    same answer as one process gives (the first failing region in lexicographic order, the cells up to it).

    A worker that dies (killed: the pool breaks) costs its slice and the ones after it a run in this process, not the
    answer, whether it dies before every slice was handed out or after; a slice whose answer has not come back a
    second past the deadline raises TimeLimitReached here, so that the deadline holds whatever becomes of the
    workers."""
    global _JOB
    depth = 1
    while depth < len(job.levels) and prod(L + 2 for L in job.levels[:depth]) < 16 * workers:
        depth += 1
    slices = list(product(*(range(L + 2) for L in job.levels[:depth])))
    with _FORKING:  # one split check at a time in this process (the workers read _JOB)
        _JOB = job
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"), initializer=_quiet)
        try:
            futures: list[Future[CellCheck] | None] = []
            for s in slices:
                try:
                    futures.append(pool.submit(_run_slice, s))
                except BrokenProcessPool:  # a worker died while the slices were handed out: the rest run here
                    futures.extend([None] * (len(slices) - len(futures)))
                    break
            cells = split = listed = 0
            for prefix, future in zip(slices, futures):
                got = job.run(prefix) if future is None else _answer(job, prefix, future)
                cells, split, listed = cells + got.cells, split + got.split, listed + got.regions
                if got.failure is not None:  # every slice before it passed: this is the first failure
                    return CellCheck(got.failure, cells, split, listed)
            return CellCheck(None, cells, split, listed)
        finally:
            _JOB = None
            pool.shutdown(wait=False, cancel_futures=True)  # the slices still running end by themselves


def _answer(job: _Cells, prefix: tuple[int, ...], future: Future[CellCheck]) -> CellCheck:
    """One slice's answer: its worker's, or this process's where the pool broke (a worker died)."""
    wait = None if job.deadline is None else max(0.0, job.deadline - time.perf_counter()) + 1.0
    try:
        return future.result(timeout=wait)
    except BrokenProcessPool:
        return job.run(prefix)
    except FutureTimeout:
        raise TimeLimitReached(job.stage) from None


def by_cells(chain: Chain, fast: Sequence[int], K: Clip) -> bool:
    """Whether the cell check applies: an exponential chain with at most :data:`MAX_CELLS` cells.

    Parameters
    ----------
    chain : Chain
        The chain.
    fast : sequence of int
        The table's stations.
    K : int or tuple of int
        The table's clip level (or one per fast station).

    Returns
    -------
    bool
        True: :func:`cell_rate_failure`; False: region by region.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> by_cells(Chain(("1",), (F(1),), (((0,), F(1, 2)),), (), (F(1),)), [0], 3)
    True
    """
    return not chain.has_phases and cell_count(chain, fast, K) <= MAX_CELLS


Claim = tuple[str, Callable[[tuple[int, ...]], Fraction], Sequence[Fraction], Fraction,
              "Mapping[tuple[int, ...], Fraction] | None"]


def claims_failure(chain: Chain, claims: Sequence[Claim], fast: Sequence[int], K: Clip,
                   side: Literal["at least", "at most"], by: Literal["cells", "regions"] = "cells",
                   drifts: Sequence[RegionDrift] | None = None, deadline: float | None = None,
                   names: tuple[str, str] = ("f", "c"), stage: str = "the exact check of a rate inequality"
                   ) -> CellCheck:
    """Check rate inequalities that share a table's stations and levels: cell by cell, or region by region.

    Parameters
    ----------
    chain : Chain
        The chain.
    claims : sequence of (str, callable, sequence of Fraction, Fraction, dict or None)
        (prefix of a failure, rate on a set of empty stations, weights, c, table) per inequality, in order.
    fast : sequence of int
        The tables' stations.
    K : int or tuple of int
        Their clip level (or one per fast station).
    side : {"at least", "at most"}
        ``rate + A'g >= c`` or ``<= c`` at every state.
    by : {"cells", "regions"}
        "cells" (:func:`cell_rate_failure`, where :func:`by_cells` allows it) or every region
        (:func:`~certify.exact.rates.rate_failure`: how certificates written before the cell check were checked).
    drifts : sequence of RegionDrift, optional
        Every region refined by the levels (listed here when needed and not given).
    deadline : float, optional
        A ``time.perf_counter()`` value.
    names : (str, str)
        How a failure names the rate and the bound.
    stage : str
        What the time-limit message says was stopped.

    Returns
    -------
    CellCheck
        The first failure (with its claim's prefix) or None; the cells (0 when checked by regions), the cells split
        and the regions listed.

    Examples
    --------
    >>> mm1 = Chain(("1",), (Fraction(1),), (((0,), Fraction(1, 2)),), (), (Fraction(1),))
    >>> busy = lambda empty: Fraction(0) if 0 in empty else Fraction(1)
    >>> one = [("", busy, [Fraction(1)], Fraction(1, 2), None)]
    >>> claims_failure(mm1, one, [], 0, "at most"), claims_failure(mm1, one, [], 0, "at most", by="regions")
    (CellCheck(failure=None, cells=2, split=0, regions=0), CellCheck(failure=None, cells=0, split=0, regions=2))
    """
    if by == "cells" and by_cells(chain, fast, K):
        split = listed = cells = 0
        for prefix, rate_of, w, c, table in claims:
            got = cell_rate_failure(chain, rate_of, w, c, table, fast, K, side, deadline, names, stage)
            cells, split, listed = got.cells, split + got.split, listed + got.regions
            if got.failure is not None:
                return CellCheck(prefix + got.failure, cells, split, listed)
        return CellCheck(None, cells, split, listed)
    if drifts is None:
        levels = growth_levels(chain, fast, K) if any(t is not None for *_, t in claims) else dict(chain.base_levels)
        drifts = compile_drifts(chain, list(iter_regions(chain, levels, deadline=deadline)), deadline=deadline)
    for prefix, rate_of, w, c, table in claims:
        bad = rate_failure(chain, drifts, rate_of, w, c, table, fast, K, side, deadline, names, stage)
        if bad is not None:
            return CellCheck(prefix + bad, 0, 0, len(drifts))
    return CellCheck(None, 0, 0, len(drifts))


def checked_text(regions: int, cells: int) -> str:
    """What a rate inequality was checked on, for a verdict's sentence: the cells (and regions listed) or the regions.

    Parameters
    ----------
    regions : int
        The regions listed.
    cells : int
        The cells checked (0: checked region by region).

    Returns
    -------
    str
        E.g. ``on 25 cells`` or ``on 27 regions``.

    Examples
    --------
    >>> checked_text(27, 0), checked_text(0, 25), checked_text(4, 25)
    ('on 27 regions', 'on 25 cells', "on 25 cells (4 regions where a cell's bound did not hold)")
    """
    if not cells:
        return f"on {regions} regions"
    return f"on {cells} cells" + (f" ({regions} regions where a cell's bound did not hold)" if regions else "")
