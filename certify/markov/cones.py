"""The recession cone of a region, and the bound on its vertices (pure Python, exact).

:func:`cone_generators` lists the 0/1 generators of a region's recession cone (the
directions along which drift inequalities are checked); :func:`vertex_bound`
bounds the vertices of every region, which bounds the exceptional set of a
certificate.
"""

from __future__ import annotations

from collections.abc import Mapping

from .dbm import INF
from .regions import Region

__all__ = ["cone_generators", "vertex_bound", "VERTEX_BOUND_PER_STATION"]

# Every raw constraint has |c| <= 2, so each vertex coordinate of a region is at
# most 2 per station on a path from the origin: vertices lie in [0, 2J]^J.
VERTEX_BOUND_PER_STATION = 2


def vertex_bound(J: int, levels: Mapping[int, int] | None = None) -> int:
    """A bound on every vertex coordinate of every region: J times the largest raw constant.

    With clip levels (``x_a = k`` for k <= K, or ``x_a >= K+1``) the constants reach K+1.

    Parameters
    ----------
    J : int
        The number of stations.
    levels : mapping of int to int, optional
        Clip level K per station.

    Returns
    -------
    int
        J times the largest constant: max(2, K + 1).

    Examples
    --------
    >>> vertex_bound(2), vertex_bound(2, {0: 6})
    (4, 14)
    """
    top = max([VERTEX_BOUND_PER_STATION, *((k + 1) for k in (levels or {}).values())])
    return J * top


def cone_generators(region: Region) -> list[tuple[int, ...]]:
    """Generators of the recession cone of ``region``, as 0/1 station vectors.

    The cone is {r : r_u <= r_v whenever x_u - x_v is bounded above, r_a = 0 for
    bounded x_a}: a cone of preorders.  Every r in it is a nonnegative combination
    of indicators of up-sets (its level sets), and an up-set splits into its
    connected components, each an up-set; so the indicators of the *connected*
    up-sets generate the cone.  They are found by growing principal up-sets
    ``up(k)`` with overlapping ones.  Empty list: the region is bounded.

    Parameters
    ----------
    region : Region
        The region.

    Returns
    -------
    list of tuple of int
        The generators, in decreasing order.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> from certify.markov.regions import enumerate_regions
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> [cone_generators(r) for r in enumerate_regions(ch)]
    [[(0, 1)], [(1, 1), (0, 1)], [(1, 0)], [(1, 1), (1, 0)], [], [(1, 1)]]
    """
    d = region.dbm
    n = len(d)
    free = [a for a in range(1, n) if d[a][0] >= INF]  # unbounded stations
    # Up-sets as bitmasks over stations (bit a-1 for node a): unions and overlaps are single integer operations.
    fmask = sum(1 << (a - 1) for a in free)
    up = {}
    for a in free:  # r_a <= r_b: the finite entries of row a, among the free stations
        row = d[a]
        up[a] = int("".join("1" if row[b] < INF else "0" for b in range(n - 1, 0, -1)), 2) & fmask
    seen: set[int] = set(up.values())
    stack = list(seen)
    while stack:
        U = stack.pop()
        for a in free:
            if U >> (a - 1) & 1:
                continue
            ua = up[a]
            if ua & U:
                W = U | ua
                if W not in seen:
                    seen.add(W)
                    stack.append(W)
    J = n - 1
    gens = [tuple(map(int, reversed(f"{U:0{J}b}"))) for U in seen]
    return sorted(gens, reverse=True)
