"""JSQ regions: the polyhedra on which every routing decision is constant.

A region is the set of states with one *routing signature*: for each choice set
C in use the tied-shortest set argmin_C x, the set of empty stations, and, for
each feedback from a station i into a set C containing i, argmin_C (x - e_i)
while i is busy.  Every condition is a difference constraint
``x_u - x_v <= c`` (integer c; a strict ``<`` is ``<= -1`` on integers), so a
region is stored as a closed difference-bound matrix (DBM) over the nodes
``0`` (the origin) and ``1..J`` (the stations).  Feasibility of such a system
over the integers equals feasibility over the reals (no negative cycle), so the
enumeration below is exact and visits only non-empty regions.

Pure Python, exact: the checker relies on this module.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations

from .chain import Chain
from .dbm import INF, describe_dbm, empty_dbm, tighten
from .symmetry import Symmetry, chamber_argmins

__all__ = [
    "Region",
    "enumerate_regions",
    "iter_regions",
    "region_of",
    "signature",
    "TimeLimitReached",
    "check_deadline",
]

#: The tied-shortest sets, one per routing set (or per shifted set) in order.
_Argmins = tuple[tuple[int, ...], ...]
#: A routing signature (:attr:`Region.key`): argmin per routing set, empty stations, shifted argmins, clipped levels.
RegionKey = tuple[_Argmins, tuple[int, ...], _Argmins, tuple[int, ...]]


class TimeLimitReached(Exception):
    """A long enumeration or compilation passed the run's deadline; ``stage`` names what was cut short.

    Raised (never a partial result) by :func:`enumerate_regions`,
    :func:`certify.markov.drift.compile_drifts` and :func:`certify.markov.fluid.fluid_faces`
    when given a ``deadline``; :func:`certify.prove` turns it into the reason
    "time limit reached during <stage>" and the verdict ``undecided``.

    Parameters
    ----------
    stage : str
        What was cut short, e.g. ``region enumeration``.

    Examples
    --------
    >>> str(TimeLimitReached("region enumeration"))
    'time limit reached during region enumeration'
    >>> import pickle  # raised in a worker process (a large cell check), it comes back as it was
    >>> str(pickle.loads(pickle.dumps(TimeLimitReached("region enumeration"))))
    'time limit reached during region enumeration'
    """

    def __init__(self, stage: str):
        super().__init__(f"time limit reached during {stage}")
        self.stage = stage

    def __reduce__(self) -> tuple[type[TimeLimitReached], tuple[str]]:
        return type(self), (self.stage,)


def check_deadline(deadline: float | None, stage: str) -> None:
    """Raise :class:`TimeLimitReached` when ``deadline`` (a ``time.perf_counter()`` value) has passed.

    Parameters
    ----------
    deadline : float or None
        The deadline (None: no deadline).
    stage : str
        What is running, for the message.

    Raises
    ------
    TimeLimitReached
        When the deadline has passed.

    Examples
    --------
    >>> import time
    >>> check_deadline(None, "region enumeration")             # no deadline: returns
    >>> check_deadline(time.perf_counter() - 1, "region enumeration")
    Traceback (most recent call last):
    ...
    certify.markov.regions.TimeLimitReached: time limit reached during region enumeration
    """
    if deadline is not None and time.perf_counter() > deadline:
        raise TimeLimitReached(stage)


# Deadlines are polled once per this many steps of a long loop (a step costs microseconds).
POLL_EVERY = 256



@cache
def _tied_constraints(C: tuple[int, ...], B: tuple[int, ...], shift: int | None) -> tuple[tuple[int, int, int], ...]:
    """Constraints (u, v, c) on DBM nodes saying argmin_C (x - e_shift) = B."""
    def s(a: int) -> int:
        return 1 if a == shift else 0

    cons = []
    b0 = B[0]
    for b in reversed(B[1:]):  # the farthest first: on a sorted chamber the others are then implied (cheap)
        # y_b - y_b0 = 0 with y = x - e_shift
        cons.append((b + 1, b0 + 1, s(b) - s(b0)))
        cons.append((b0 + 1, b + 1, s(b0) - s(b)))
    for c in C:
        if c not in B:
            # y_b0 - y_c <= -1
            cons.append((b0 + 1, c + 1, -1 + s(b0) - s(c)))
    return tuple(cons)


@dataclass(frozen=True)
class Region:
    """One non-empty region.

    Attributes
    ----------
    argmin : for each routing set C (in ``chain.routing_sets`` order) the tied-shortest set.
    empty : the empty stations.
    shifted : for each (i, C) of ``chain.shifted_sets``, argmin_C (x - e_i), or ``()`` when i is empty.
    dbm : the closed difference-bound matrix; ``dbm[u][v]`` bounds ``x_u - x_v`` (node 0 is the origin).
    levels : for each clipped station (in the order of the ``levels`` argument of
        :func:`enumerate_regions`), its level: ``k <= K`` means ``x_a = k``, ``K+1`` means ``x_a >= K+1``.

    Examples
    --------
    Two stations sharing a JSQ stream; the region where station 1 is strictly shorter and busy:

    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(3, 2)),), (), (F(1), F(1)))
    >>> r = enumerate_regions(ch)[1]
    >>> r.describe(ch.ids), r.argmin, r.empty, r.point()
    ('x1 < x2, x1 >= 1', ((0,),), (), (1, 2))
    >>> r.contains((1, 3)), r.contains((3, 1)), r.key == signature(ch, (1, 3))
    (True, False, True)
    """

    argmin: tuple[tuple[int, ...], ...]
    empty: tuple[int, ...]
    shifted: tuple[tuple[int, ...], ...]
    dbm: tuple[tuple[int, ...], ...]
    levels: tuple[int, ...] = ()

    @property
    def key(self) -> RegionKey:
        """The routing signature (argmin, empty, shifted, levels): :func:`signature` of every state of the region."""
        return (self.argmin, self.empty, self.shifted, self.levels)

    @property
    def routing(self) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...], tuple[int, ...]]:
        """(argmin, shifted, empty): all that the jumps out of the region's states depend on (not its levels)."""
        return (self.argmin, self.shifted, self.empty)

    def contains(self, x: Sequence[int]) -> bool:
        """True if the state ``x`` satisfies every constraint of the region."""
        v = (0, *x)
        n = len(v)
        return all(
            self.dbm[u][w] >= INF or v[u] - v[w] <= self.dbm[u][w] for u in range(n) for w in range(n)
        )

    def point(self) -> tuple[int, ...]:
        """An integer state of the region (x_a = -dbm[0][a], the least solution)."""
        return tuple(-self.dbm[0][a] for a in range(1, len(self.dbm)))

    def describe(self, ids: Sequence[str], names: Sequence[str] | None = None) -> str:
        """A minimal exact description, e.g. ``x1 = x2, x1 < x3, x1 >= 1`` (:func:`certify.markov.dbm.describe_dbm`)."""
        return describe_dbm(self.dbm, ids, names)


def signature(chain: Chain, x: Sequence[int], levels: Mapping[int, int] | None = None) -> RegionKey:
    """The routing signature (region key) of state ``x``, computed directly.

    Parameters
    ----------
    chain : Chain
        The chain.
    x : sequence of int
        A state (queue lengths).
    levels : mapping of int to int, optional
        Clip levels, as given to :func:`enumerate_regions`.

    Returns
    -------
    tuple
        (argmin per routing set, empty stations, shifted argmins, clipped levels):
        the :attr:`Region.key` of the region holding ``x``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> signature(ch, (2, 5)), signature(ch, (2, 5), {0: 1})
    ((((0,),), (), (), ()), (((0,),), (), (), (2,)))
    """
    def argmin(C: Sequence[int], y: Sequence[int]) -> tuple[int, ...]:
        m = min(y[c] for c in C)
        return tuple(c for c in C if y[c] == m)

    am = tuple(argmin(C, x) for C in chain.routing_sets)
    empty = tuple(a for a in range(chain.J) if x[a] == 0)
    sh: list[tuple[int, ...]] = []
    for i, C in chain.shifted_sets:
        if x[i] == 0:
            sh.append(())
        else:
            y = list(x)
            y[i] -= 1
            sh.append(argmin(C, y))
    lv = tuple(min(x[a], K + 1) for a, K in (levels or {}).items())
    return (am, empty, tuple(sh), lv)


def enumerate_regions(
    chain: Chain,
    levels: Mapping[int, int] | None = None,
    deadline: float | None = None,
    symmetry: Symmetry | None = None,
) -> list[Region]:
    """All non-empty regions of ``chain``, by backtracking over the signature.

    Each partial signature is kept as a closed DBM; a branch is cut as soon as its
    constraints have a negative cycle, so only non-empty regions are produced.
    ``levels`` maps stations to clip levels K: the regions are then refined by
    ``x_a = 0, 1, ..., K`` or ``x_a >= K+1`` (for bounded-table templates).
    With a ``deadline`` (a ``time.perf_counter()`` value) the backtracking polls
    the clock every :data:`POLL_EVERY` nodes and raises :class:`TimeLimitReached`
    once it has passed (the overshoot is one poll interval, microseconds).
    With a ``symmetry`` (station classes, :mod:`certify.markov.symmetry`) only the
    regions that meet the sorted chamber are listed, each *restricted to the
    chamber* (its DBM has the chamber's inequalities); every orbit of regions has
    a member among them, and :func:`region_of` rebuilds a whole region from its
    signature.

    Parameters
    ----------
    chain : Chain
        The chain.
    levels : mapping of int to int, optional
        Clip level K per station.
    deadline : float, optional
        A ``time.perf_counter()`` value.
    symmetry : Symmetry, optional
        Station classes: list the regions that meet the sorted chamber only.

    Returns
    -------
    list of Region
        The non-empty regions; they partition the states (the chamber, with a ``symmetry``).

    Raises
    ------
    TimeLimitReached
        When the deadline passes.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> len(enumerate_regions(ch))   # x1=x2 (empty or not), x1<x2, x2<x1 (x_min empty or not)
    6
    >>> from certify.markov.symmetry import Symmetry
    >>> len(enumerate_regions(ch, symmetry=Symmetry(((0, 1),))))   # x1 <= x2: the x2 < x1 regions are images
    4
    """
    return list(iter_regions(chain, levels, deadline, symmetry))


def iter_regions(
    chain: Chain,
    levels: Mapping[int, int] | None = None,
    deadline: float | None = None,
    symmetry: Symmetry | None = None,
    within: Sequence[tuple[int, int, int]] = (),
) -> Iterator[Region]:
    """The regions of :func:`enumerate_regions`, one at a time (a generator: memory stays flat as they stream).

    Parameters
    ----------
    chain : Chain
        The chain.
    levels : mapping of int to int, optional
        Clip level K per station.
    deadline : float, optional
        A ``time.perf_counter()`` value.
    symmetry : Symmetry, optional
        Station classes: yield the regions that meet the sorted chamber only.
    within : sequence of (int, int, int), optional
        Difference constraints ``x_u - x_v <= c`` on DBM nodes (0 the origin, station a at a + 1): only the
        regions of the listing that meet them are yielded, each cut to them (for a set the levels fix exactly,
        such as one cell of :mod:`certify.exact.cell_rates`, the regions are whole).

    Yields
    ------
    Region
        The non-empty regions, in the order :func:`enumerate_regions` lists them.

    Raises
    ------
    TimeLimitReached
        When the deadline passes.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> next(iter_regions(ch)).describe(ch.ids)
    'x1 = 0, x2 >= 1'
    """
    J = chain.J
    sets = chain.routing_sets
    shifted = chain.shifted_sets
    clip = dict(levels or {})
    order = list(clip)
    steps = [0]

    def tick() -> None:
        steps[0] += 1
        if deadline is not None and steps[0] % POLL_EVERY == 0:
            check_deadline(deadline, "region enumeration")

    def subsets(C: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        for k in range(1, len(C) + 1):
            yield from combinations(C, k)

    def rec_shift(d: list[list[int]], k: int, empty: tuple[int, ...], am: _Argmins, sh: _Argmins) -> Iterator[Region]:
        tick()
        if k == len(shifted):
            lv = tuple(_level(d, a, clip[a]) for a in order)
            yield Region(am, empty, sh, tuple(tuple(r) for r in d), lv)
            return
        i, C = shifted[k]
        if i in empty:
            yield from rec_shift(d, k + 1, empty, am, (*sh, ()))
            return
        for B in subsets(C):
            d2: list[list[int]] | None = d
            for u, v, c in _tied_constraints(C, B, i):
                d2 = tighten(d2, u, v, c) if d2 is not None else None
                if d2 is None:
                    break
            if d2 is not None:
                yield from rec_shift(d2, k + 1, empty, am, (*sh, B))

    def rec_empty(d: list[list[int]], a: int, empty: tuple[int, ...], am: _Argmins) -> Iterator[Region]:
        tick()
        if a == J:
            yield from rec_shift(d, 0, empty, am, ())
            return
        if a in clip:
            K = clip[a]
            for k in range(K + 2):
                dk = tighten(d, 0, a + 1, -k)  # x_a >= k
                if dk is not None and k <= K:
                    dk = tighten(dk, a + 1, 0, k)  # x_a <= k
                if dk is not None:
                    yield from rec_empty(dk, a + 1, (*empty, a) if k == 0 else empty, am)
            return
        if d[a + 1][0] <= 0:  # x_a <= 0 already holds: x_a = 0 (the tightenings below would say the same)
            yield from rec_empty(d, a + 1, (*empty, a), am)
            return
        if d[0][a + 1] <= -1:  # x_a >= 1 already holds
            yield from rec_empty(d, a + 1, empty, am)
            return
        d0 = tighten(d, a + 1, 0, 0)  # x_a = 0
        if d0 is not None:
            yield from rec_empty(d0, a + 1, (*empty, a), am)
        d1 = tighten(d, 0, a + 1, -1)  # x_a >= 1
        if d1 is not None:
            yield from rec_empty(d1, a + 1, empty, am)

    # For nested routing sets the argmins must agree (a cheap test that spares the DBM): if C' is inside C, the
    # argmin B of C meets C' in nothing or in exactly the argmin B' of C'; if C is inside C', B = B' & C when that
    # is not empty.  Only combinations that no state has are skipped.
    fsets = [frozenset(C) for C in sets]
    nested = [[(j, fsets[j] <= fsets[k], fsets[k] <= fsets[j]) for j in range(k)
               if fsets[j] <= fsets[k] or fsets[k] <= fsets[j]] for k in range(len(sets))]

    def agrees(k: int, B: tuple[int, ...], am: _Argmins) -> bool:
        Bs = frozenset(B)
        for j, inside, outside in nested[k]:
            Bj = frozenset(am[j])
            if inside:
                meet = Bs & fsets[j]
                if meet and meet != Bj:
                    return False
            if outside:
                meet = Bj & fsets[k]
                if meet and Bs != meet:
                    return False
        return True

    def rec_sets(d: list[list[int]], k: int, am: _Argmins) -> Iterator[Region]:
        tick()
        if k == len(sets):
            yield from rec_empty(d, 0, (), am)
            return
        C = sets[k]
        if symmetry is not None:
            inner = [(fsets[j], frozenset(am[j])) for j, inside, _ in nested[k] if inside]
            candidates: Iterator[tuple[int, ...]] = chamber_argmins(C, symmetry, inner)
        else:
            candidates = subsets(C)
        for B in candidates:
            if nested[k] and not agrees(k, B, am):
                continue
            d2: list[list[int]] | None = d
            for u, v, c in _tied_constraints(C, B, None):
                d2 = tighten(d2, u, v, c) if d2 is not None else None
                if d2 is None:
                    break
            if d2 is not None:
                yield from rec_sets(d2, k + 1, (*am, B))

    # The backtracking recurses once per routing set, station and shifted set: make room for hundreds of stations.
    depth = len(sets) + J + len(shifted) + 100
    if sys.getrecursionlimit() < depth + 1000:
        sys.setrecursionlimit(depth + 1000)
    start: list[list[int]] | None = empty_dbm(J)
    for a, b in symmetry.chamber() if symmetry is not None else ():
        start = tighten(start, a + 1, b + 1, 0) if start is not None else None  # x_a <= x_b
    for u, v, c in within:
        start = tighten(start, u, v, c) if start is not None else None
    if start is not None:
        yield from rec_sets(start, 0, ())


def region_of(chain: Chain, key: RegionKey, levels: Mapping[int, int] | None = None) -> Region:
    """The whole region with routing signature ``key`` (:attr:`Region.key`), its DBM rebuilt from the signature.

    Parameters
    ----------
    chain : Chain
        The chain.
    key : tuple
        (argmin per routing set, empty stations, shifted argmins, clipped levels).
    levels : mapping of int to int, optional
        The clip levels the signature was made with.

    Returns
    -------
    Region
        The region of every state with that signature.

    Raises
    ------
    ValueError
        When no state has that signature.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> from certify.markov.symmetry import Symmetry
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> r = enumerate_regions(ch, symmetry=Symmetry(((0, 1),)))[1]
    >>> r.describe(ch.ids), region_of(ch, r.key).describe(ch.ids)
    ('x1 < x2, x1 >= 1', 'x1 < x2, x1 >= 1')
    """
    am, empty, sh, lv = key
    clip = dict(levels or {})
    d: list[list[int]] | None = empty_dbm(chain.J)
    cons: list[tuple[int, int, int]] = []
    for C, B in zip(chain.routing_sets, am):
        cons.extend(_tied_constraints(C, B, None))
    for (i, C), B in zip(chain.shifted_sets, sh):
        if B:
            cons.extend(_tied_constraints(C, B, i))
    level = dict(zip(clip, lv))
    for a in range(chain.J):
        if a in level:
            k, K = level[a], clip[a]
            cons.append((0, a + 1, -k))  # x_a >= k
            if k <= K:
                cons.append((a + 1, 0, k))  # x_a <= k
        elif a in empty:
            cons.append((a + 1, 0, 0))
        else:
            cons.append((0, a + 1, -1))
    for u, v, c in cons:
        d = tighten(d, u, v, c) if d is not None else None
    if d is None:
        raise ValueError(f"no state has the signature {key!r}")
    return Region(am, empty, sh, tuple(tuple(r) for r in d), tuple(lv))


def _level(d: list[list[int]], a: int, K: int) -> int:
    lo = -d[0][a + 1]
    return lo if lo <= K else K + 1
