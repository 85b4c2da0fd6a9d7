"""The fork-join chain: its state space, its jumps, and the regions and cells of lag levels.

The (n,k) system of the fork-join redundancy paper: jobs arrive at rate ``lam``; each forks one task
to every one of the n FCFS servers (exponential rates d_i); a job leaves when
k of its tasks are done and its n-k other tasks are cancelled.  With Q_i the
tasks at server i and N = max_i Q_i (the number of jobs present), server i has
finished the tasks of the N - Q_i oldest jobs (its *lag* L_i = N - Q_i); at
most k-1 servers have L_i > 0.  The queue lengths form a CTMC (jumps out of q):

* an arrival (rate lam): q -> q + 1;
* a completion at a busy server i (rate d_i): if L_i > 0, or if fewer than k-1
  lags are positive, q -> q - e_i; otherwise (L_i = 0 and exactly k-1 lags
  positive) it is the k-th task of the oldest job, which leaves: every server at
  N drops by one (its own completion, the others' cancellations).

For N >= K+1 every server with L_i <= K is busy, so the drift of a function of
N and of the clipped lags min(L, K) is constant on each *region* (each server's
lag level 0..K or ">= K+1", at most k-1 of them positive): :func:`region_drift`.
Servers of equal rate are interchangeable, and one region per orbit suffices
(:func:`canonical`).  The exact check that uses these is
:func:`certify.exact.forkjoin.check_forkjoin_foster`.  Exact, numpy-free.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from fractions import Fraction
from itertools import combinations, product
from math import comb
from typing import Any

from ..core.model import ForkJoinNetwork
from .forkjoin_capacity import server_rates

__all__ = [
    "State",
    "in_state_space",
    "transitions",
    "equal_rate_classes",
    "canonical",
    "count_patterns",
    "lag_regions",
    "lag_cells",
    "region_drift",
    "state_region",
]

State = tuple[int, ...]


def in_state_space(net: ForkJoinNetwork, state: Sequence[int]) -> bool:
    """True for non-negative integer queue lengths with at most k-1 of them below the maximum.

    Parameters
    ----------
    net : ForkJoinNetwork
        The fork-join network.
    state : sequence of int
        Queue lengths Q_i, one per server.

    Returns
    -------
    bool
        Whether ``state`` is a state of the chain.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(1), (("1", F(3)), ("2", F(2)), ("3", F(1))))
    >>> in_state_space(net, (1, 2, 2)), in_state_space(net, (0, 1, 2))
    (True, False)
    """
    if len(state) != net.n or any(not isinstance(x, int) or x < 0 for x in state):
        return False
    top = max(state)
    return sum(1 for x in state if x < top) <= net.k - 1


def transitions(net: ForkJoinNetwork, state: Sequence[int]) -> dict[State, Fraction]:
    """The jumps out of ``state`` (queue lengths) with their rates, by the fork/cancel rules.

    Parameters
    ----------
    net : ForkJoinNetwork
        The fork-join network.
    state : sequence of int
        Queue lengths (a state of the chain, :func:`in_state_space`).

    Returns
    -------
    dict of state to Fraction
        The target states and their rates.

    Examples
    --------

    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(1), (("1", F(3)), ("2", F(2)), ("3", F(1))))
    >>> sorted(transitions(net, (1, 2, 2)).items())   # server 1 is ahead: a completion at 2 or 3 ends the oldest job
    [((0, 2, 2), Fraction(3, 1)), ((1, 1, 1), Fraction(3, 1)), ((2, 3, 3), Fraction(1, 1))]
    """
    d = server_rates(net)
    s = tuple(state)
    top = max(s)
    ahead = sum(1 for x in s if x < top)
    out: dict[State, Fraction] = defaultdict(Fraction)
    out[tuple(x + 1 for x in s)] += Fraction(net.rate)
    for i, x in enumerate(s):
        if x == 0:
            continue
        if x == top and ahead == net.k - 1:
            nxt = tuple(y - 1 if y == top else y for y in s)
        else:
            nxt = s[:i] + (x - 1,) + s[i + 1 :]
        out[nxt] += d[i]
    return dict(out)


def equal_rate_classes(net: ForkJoinNetwork) -> list[tuple[int, ...]]:
    """Servers grouped by equal rate (indices), in order of first appearance.

    Parameters
    ----------
    net : ForkJoinNetwork
        The fork-join network.

    Returns
    -------
    list of tuple of int
        The classes of interchangeable servers.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(9, 25), (("1", F(3, 5)), ("2", F(1, 5)), ("3", F(1, 5))))
    >>> equal_rate_classes(net)
    [(0,), (1, 2)]
    """
    d = server_rates(net)
    groups: dict[Fraction, list[int]] = {}
    for i, x in enumerate(d):
        groups.setdefault(x, []).append(i)
    return [tuple(g) for g in groups.values()]


def canonical(levels: Sequence[int], classes: Sequence[Sequence[int]]) -> State:
    """The orbit representative: within each class the levels sorted in decreasing order.

    Parameters
    ----------
    levels : sequence of int
        One lag level per server.
    classes : sequence of sequence of int
        Classes of interchangeable servers (:func:`equal_rate_classes`).

    Returns
    -------
    tuple of int
        The representative of the orbit of ``levels``.

    Examples
    --------
    >>> canonical((0, 1, 3), [(0,), (1, 2)])
    (0, 3, 1)
    """
    out = None
    for cls in classes:
        if len(cls) < 2:
            continue
        if out is None:
            out = list(levels)
        vals = sorted((levels[i] for i in cls), reverse=True)
        for i, v in zip(cls, vals):
            out[i] = v
    return tuple(levels) if out is None else tuple(out)


def _patterns(n: int, k: int, top: int, classes: Sequence[Sequence[int]] | None) -> Iterator[State]:
    """Level vectors in {0..top}^n with at most k-1 positive entries (orbit representatives if ``classes``)."""
    if classes is None:
        for m in range(min(k - 1, n) + 1):
            for pos in combinations(range(n), m):
                for vals in product(range(1, top + 1), repeat=m):
                    lv = [0] * n
                    for i, v in zip(pos, vals):
                        lv[i] = v
                    yield tuple(lv)
        return

    def per_class(size: int, budget: int) -> Iterator[tuple[int, ...]]:
        # non-increasing sequences of length ``size`` over 0..top with at most ``budget`` positive entries
        def rec(prefix: tuple[int, ...], hi: int) -> Iterator[tuple[int, ...]]:
            if len(prefix) == size:
                yield prefix
                return
            positive = sum(1 for v in prefix if v > 0)
            for v in range(hi, -1, -1):
                if v > 0 and positive >= budget:
                    continue
                yield from rec((*prefix, v), v)

        yield from rec((), top)

    def rec_classes(c: int, lv: list[int], budget: int) -> Iterator[State]:
        if c == len(classes):
            yield tuple(lv)
            return
        cls = classes[c]
        for vals in per_class(len(cls), budget):
            for i, v in zip(cls, vals):
                lv[i] = v
            yield from rec_classes(c + 1, lv, budget - sum(1 for v in vals if v > 0))
        for i in cls:
            lv[i] = 0

    yield from rec_classes(0, [0] * n, k - 1)


def count_patterns(n: int, k: int, top: int, classes: Sequence[Sequence[int]] | None = None) -> int:
    """How many vectors :func:`lag_regions` (top = K+1) or :func:`lag_cells` (top = K) lists, without listing them.

    Parameters
    ----------
    n, k : int
        Servers, and tasks a job needs.
    top : int
        The largest level.
    classes : sequence of sequence of int, optional
        Count orbit representatives under these classes.

    Returns
    -------
    int
        The number of level vectors in {0..top}^n with at most k-1 positive entries.

    Examples
    --------

    >>> count_patterns(3, 2, 5), count_patterns(3, 2, 5, [(0, 1, 2)]), len(lag_regions(3, 2, 4, [(0, 1, 2)]))
    (16, 6, 6)
    """
    groups = [(i,) for i in range(n)] if classes is None else classes
    ways = [1] + [0] * (k - 1)  # ways[p]: patterns of the classes so far with p positive entries
    for cls in groups:
        new = [0] * k
        for p, w in enumerate(ways):
            for extra in range(min(len(cls), k - 1 - p) + 1):
                new[p + extra] += w * comb(top + extra - 1, extra)  # multisets of ``extra`` values in 1..top
        ways = new
    return sum(ways)


def lag_regions(n: int, k: int, K: int, classes: Sequence[Sequence[int]] | None = None) -> list[State]:
    """Regions: each server's lag level 0..K or K+1 (meaning >= K+1), at most k-1 positive.

    With ``classes``, one representative per orbit of the permutations within classes.

    Parameters
    ----------
    n, k : int
        Servers, and tasks a job needs.
    K : int
        The clip level.
    classes : sequence of sequence of int, optional
        Classes of interchangeable servers.

    Returns
    -------
    list of tuple of int
        The regions, as lag level vectors.

    Examples
    --------

    >>> len(lag_regions(3, 2, 4)), len(lag_regions(3, 2, 4, [(0, 1, 2)]))
    (16, 6)
    """
    return list(_patterns(n, k, K + 1, classes))


def lag_cells(n: int, k: int, K: int, classes: Sequence[Sequence[int]] | None = None) -> list[State]:
    """Table cells: clipped lags min(L, K), at most k-1 positive (orbit representatives if ``classes``).

    Parameters
    ----------
    n, k : int
        Servers, and tasks a job needs.
    K : int
        The clip level.
    classes : sequence of sequence of int, optional
        Classes of interchangeable servers.

    Returns
    -------
    list of tuple of int
        The cells, as clipped lag vectors (the keys of a table h).

    Examples
    --------
    >>> lag_cells(3, 2, 2, [(0, 1, 2)])
    [(2, 0, 0), (1, 0, 0), (0, 0, 0)]
    """
    return list(_patterns(n, k, K, classes))


def region_drift(d: Sequence[Any], lam: Any, k: int, K: int, region: Sequence[int]) -> tuple[State, Any, dict[State, Any]]:
    """(cell, lam - departure rate, {target cell: rate}) on a region, for states with N >= K+1.

    AV = (lam - departure rate) + sum_targets rate (h[target] - h[cell]) for
    V = N + h(min(L, K)); only jumps that change the clipped lags are listed.
    Rates may be Fractions or integers (all scaled alike).

    Parameters
    ----------
    d : sequence
        The server rates.
    lam : Fraction or int
        The job rate.
    k, K : int
        Tasks a job needs, and the clip level.
    region : sequence of int
        Lag levels 0..K+1 (:func:`lag_regions`).

    Returns
    -------
    cell : tuple of int
        The region's clipped lags.
    constant : Fraction or int
        lam minus the departure rate (the drift of N).
    moves : dict
        Target cell to rate, for the jumps that change the clipped lags.

    Examples
    --------

    >>> from fractions import Fraction as F
    >>> region_drift([F(3, 5), F(1, 5), F(1, 5)], F(9, 25), 2, 4, (2, 0, 0))  # server 1 two jobs ahead
    ((2, 0, 0), Fraction(-1, 25), {(3, 0, 0): Fraction(3, 5), (1, 0, 0): Fraction(2, 5)})
    """
    n = len(d)
    ahead = [i for i in range(n) if region[i] > 0]
    full = len(ahead) == k - 1
    cell = tuple(min(x, K) for x in region)
    moves: dict[State, Any] = defaultdict(int)
    dep = 0 * lam
    for i in range(n):
        x = region[i]
        if x > 0:
            if x < K:  # L_i -> L_i + 1 stays <= K; from K or >= K+1 the clipped lag stays K
                moves[cell[:i] + (x + 1,) + cell[i + 1 :]] += d[i]
        elif full:
            dep += d[i]  # the k-th task of the oldest job: it leaves, every lag > 0 drops by one
        else:
            moves[cell[:i] + (1,) + cell[i + 1 :]] += d[i]
    if dep:
        target = tuple(min(x - 1, K) if x > 0 else 0 for x in region)
        if target != cell:
            moves[target] += dep
    return cell, lam - dep, dict(moves)


def state_region(state: Sequence[int], K: int) -> State:
    """The region of a state: each lag clipped to K+1 (K+1 meaning >= K+1).

    Parameters
    ----------
    state : sequence of int
        Queue lengths.
    K : int
        The clip level.

    Returns
    -------
    tuple of int
        The lags N - Q_i, clipped to K+1.

    Examples
    --------
    >>> state_region((2, 9, 9), 4)
    (5, 0, 0)
    """
    top = max(state)
    return tuple(min(top - x, K + 1) for x in state)
