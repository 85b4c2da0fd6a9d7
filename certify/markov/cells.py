"""Ordering cells of the wall arrangement, and JSQ regions refined by small differences.

Exact and numpy-free: the checker of the piecewise-quadratic template relies on it.

Walls are the hyperplanes x_a = x_b for the pairs (a, b), a < b, that share a
routing set.  A *cell* is a sign vector over the walls that some strict total
order of the stations induces (an acyclic orientation of the wall graph):
sign +1 on wall (a, b) means the closed side x_a >= x_b, -1 the side
x_a <= x_b.  Every state x gets one *canonical* cell, sign +1 exactly when
x_a >= x_b (the order of x with ties broken by station index induces it, so
it is a cell, and x lies in its closure).

Two cells are adjacent when they differ on one wall only; their common face is
then (J-1)-dimensional.  A minimal gallery (a shortest path in the adjacency
graph) between two cells crosses each wall separating them exactly once.

A jump changes a difference x_a - x_b by at most :data:`SPAN` = 2, so a JSQ
region refined by the value of every wall difference (exactly, for
``|x_a - x_b|`` <= 2, or the side of ``|x_a - x_b|`` >= 3) fixes the canonical cell of x
and of every x + d, and the difference at every wall a jump crosses.
The refinement adds difference constraints with constants up to 3, so every
vertex of a refined region has coordinates in [0, 3J] (:func:`refined_vertex_bound`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from itertools import permutations

from .chain import Chain
from .cones import VERTEX_BOUND_PER_STATION
from .dbm import tighten
from .regions import Region

__all__ = ["SPAN", "FAR", "walls_of", "Arrangement", "refine", "refined_vertex_bound"]

# The largest change of a difference x_a - x_b in one jump (a feedback move -e_a + e_b).
SPAN = 2
# Differences are refined exactly on [-SPAN, SPAN]; FAR stands for "x_a - x_b >= FAR" (and -FAR for <= -FAR).
FAR = SPAN + 1


def walls_of(chain: Chain) -> tuple[tuple[int, int], ...]:
    """Pairs (a, b), a < b, of stations that share a routing set.

    Parameters
    ----------
    chain : Chain
        The chain.

    Returns
    -------
    tuple of (int, int)
        The walls, sorted.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2", "3"), (F(1),) * 3, (((0, 1), F(1)), ((2,), F(1))), (), (F(1),) * 3)
    >>> walls_of(ch)
    ((0, 1),)
    """
    pairs = {(a, b) for C in chain.routing_sets for i, a in enumerate(C) for b in C[i + 1 :]}
    return tuple(sorted(pairs))


class Arrangement:
    """The cells of the walls of J stations, their adjacencies and minimal galleries.

    Parameters
    ----------
    J : int
        The number of stations.
    walls : sequence of (int, int)
        The walls (a, b), a < b (:func:`walls_of`).

    Attributes
    ----------
    cells : list of tuple of int
        The sign vectors over the walls, in decreasing order.
    index : dict
        Cell number of each sign vector.
    adjacency : list of (int, int, int)
        (wall, plus cell, minus cell) for each pair of cells that differ on one wall only.

    Examples
    --------
    >>> arr = Arrangement(3, ((0, 1), (0, 2), (1, 2)))
    >>> len(arr.cells), len(arr.adjacency)
    (6, 6)
    >>> arr.cell_of((5, 5, 2)) == arr.index[(1, 1, 1)]
    True
    """

    def __init__(self, J: int, walls: Sequence[tuple[int, int]]):
        self.J = J
        self.walls = tuple(walls)
        signs = set()
        for perm in permutations(range(J)):
            pos = {s: k for k, s in enumerate(perm)}
            signs.add(tuple(1 if pos[a] < pos[b] else -1 for a, b in self.walls))
        self.cells: list[tuple[int, ...]] = sorted(signs, reverse=True)
        self.index = {s: k for k, s in enumerate(self.cells)}
        # (wall, plus cell, minus cell): the cells differ on this wall only.
        self.adjacency: list[tuple[int, int, int]] = []
        self.neighbours: list[list[tuple[int, int, int]]] = [[] for _ in self.cells]  # (cell, adjacency, step sign)
        for k, s in enumerate(self.cells):
            for w, sw in enumerate(s):
                if sw != 1:
                    continue
                other = self.index.get((*s[:w], -1, *s[w + 1 :]))
                if other is not None:
                    e = len(self.adjacency)
                    self.adjacency.append((w, k, other))
                    self.neighbours[k].append((other, e, -1))  # plus -> minus
                    self.neighbours[other].append((k, e, 1))  # minus -> plus
        self._galleries: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {}

    def cell_of_diffs(self, diffs: Sequence[int]) -> int:
        """The canonical cell of a state whose wall differences x_a - x_b are ``diffs`` (sign +1 when >= 0).

        Parameters
        ----------
        diffs : sequence of int
            x_a - x_b per wall.

        Returns
        -------
        int
            The cell's number.
        """
        return self.index[tuple(1 if k >= 0 else -1 for k in diffs)]

    def cell_of(self, x: Sequence[int]) -> int:
        """The canonical cell of state ``x``.

        Parameters
        ----------
        x : sequence of int
            A state.

        Returns
        -------
        int
            The cell's number.
        """
        return self.cell_of_diffs([x[a] - x[b] for a, b in self.walls])

    def gallery(self, c: int, c2: int) -> tuple[tuple[int, int], ...]:
        """A minimal gallery from cell ``c`` to ``c2``: (adjacency, sign) per step, sign +1 from minus to plus side.

        Parameters
        ----------
        c, c2 : int
            Cells.

        Returns
        -------
        tuple of (int, int)
            The steps; it crosses exactly the walls that separate the cells.

        Examples
        --------
        >>> Arrangement(2, ((0, 1),)).gallery(0, 1)       # from x1 >= x2 across the wall
        ((0, -1),)
        """
        key = (c, c2)
        out = self._galleries.get(key)
        if out is None:
            prev: dict[int, tuple[int, int, int]] = {c: (-1, -1, 0)}
            queue = deque([c])
            while queue and c2 not in prev:
                u = queue.popleft()
                for v, e, sgn in self.neighbours[u]:
                    if v not in prev:
                        prev[v] = (u, e, sgn)
                        queue.append(v)
            steps = []
            v = c2
            while v != c:
                u, e, sgn = prev[v]
                steps.append((e, sgn))
                v = u
            out = tuple(reversed(steps))
            sep = sum(1 for s, t in zip(self.cells[c], self.cells[c2]) if s != t)
            if len(out) != sep:  # a minimal gallery crosses exactly the separating walls
                raise AssertionError("gallery is not minimal")
            self._galleries[key] = out
        return out

    def cone(self, c: int) -> list[tuple[int, ...]]:
        """Generators of the closure of cell ``c`` in the orthant: indicators of its connected up-sets.

        The closure is {x >= 0 : x_a >= x_b on the walls oriented a over b}; every
        point is a nonnegative sum of indicators of its upper level sets, which are
        up-sets, and an up-set splits into connected (in the wall graph) up-sets.

        Parameters
        ----------
        c : int
            The cell.

        Returns
        -------
        list of tuple of int
            The generators (0/1 station vectors).

        Examples
        --------
        >>> Arrangement(2, ((0, 1),)).cone(0)             # x1 >= x2 >= 0: spanned by e_1 and e_1 + e_2
        [(1, 0), (1, 1)]
        """
        J = self.J
        above: list[list[int]] = [[] for _ in range(J)]  # above[b]: stations a with x_a >= x_b
        nbr: list[set[int]] = [set() for _ in range(J)]
        for (a, b), s in zip(self.walls, self.cells[c]):
            hi, lo = (a, b) if s > 0 else (b, a)
            above[lo].append(hi)
            nbr[a].add(b)
            nbr[b].add(a)
        out = []
        for mask in range(1, 1 << J):
            U = [a for a in range(J) if mask >> a & 1]
            if any(not (mask >> h & 1) for b in U for h in above[b]):
                continue
            seen, stack = {U[0]}, [U[0]]
            while stack:
                u = stack.pop()
                for v in nbr[u]:
                    if mask >> v & 1 and v not in seen:
                        seen.add(v)
                        stack.append(v)
            if len(seen) == len(U):
                out.append(tuple(1 if mask >> a & 1 else 0 for a in range(J)))
        return out

    def name(self, c: int, ids: Sequence[str]) -> str:
        """The cell's name in coefficient names, e.g. ``1>=2,1<=3`` (the closed cell); ``all`` without walls.

        Parameters
        ----------
        c : int
            The cell.
        ids : sequence of str
            The station ids.

        Returns
        -------
        str
            The name.

        Examples
        --------
        >>> Arrangement(2, ((0, 1),)).name(1, ["1", "2"])
        '1<=2'
        """
        parts = [f"{ids[a]}{'>=' if s > 0 else '<='}{ids[b]}" for (a, b), s in zip(self.walls, self.cells[c])]
        return ",".join(parts) if parts else "all"


def refine(region: Region, walls: Sequence[tuple[int, int]]) -> list[tuple[Region, tuple[int, ...]]]:
    """Split ``region`` by every wall difference x_a - x_b in {<= -3, -2, ..., 2, >= 3}.

    Parameters
    ----------
    region : Region
        The region.
    walls : sequence of (int, int)
        The walls.

    Returns
    -------
    list of (Region, tuple of int)
        The non-empty pieces with their difference values (-FAR and FAR
        standing for <= -FAR and >= FAR).  The pieces partition the region.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.regions import enumerate_regions
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> r = enumerate_regions(ch)[1]
    >>> r.describe(ch.ids), [vals for _, vals in refine(r, walls_of(ch))]
    ('x1 < x2, x1 >= 1', [(-3,), (-2,), (-1,)])
    """
    out: list[tuple[Region, tuple[int, ...]]] = []

    def rec(d: list[list[int]], w: int, vals: tuple[int, ...]) -> None:
        if w == len(walls):
            dbm = tuple(tuple(r) for r in d)
            out.append((Region(region.argmin, region.empty, region.shifted, dbm, region.levels), vals))
            return
        a, b = walls[w]
        u, v = a + 1, b + 1
        for k in range(-FAR, FAR + 1):
            if k == -FAR:
                d2 = tighten(d, u, v, -FAR)  # x_a - x_b <= -FAR
            elif k == FAR:
                d2 = tighten(d, v, u, -FAR)  # x_b - x_a <= -FAR
            else:
                d2 = tighten(d, u, v, k)
                d2 = tighten(d2, v, u, -k) if d2 is not None else None
            if d2 is not None:
                rec(d2, w + 1, (*vals, k))

    rec([list(r) for r in region.dbm], 0, ())
    return out


def refined_vertex_bound(J: int, has_walls: bool) -> int:
    """Every vertex coordinate of a refined region is at most this (J times the largest raw constant).

    A vertex is fixed by tight difference constraints forming a tree rooted at the
    origin node, so each coordinate is a sum of at most J raw constants.

    Parameters
    ----------
    J : int
        The number of stations.
    has_walls : bool
        Whether the regions were refined at all.

    Returns
    -------
    int
        3J with walls (the constants reach FAR = 3), else 2J.

    Examples
    --------
    >>> refined_vertex_bound(2, True), refined_vertex_bound(2, False)
    (6, 4)
    """
    return J * (max(VERTEX_BOUND_PER_STATION, FAR) if has_walls else VERTEX_BOUND_PER_STATION)
