"""Difference-bound matrices (DBMs): closed systems of constraints x_u - x_v <= c over the integers.

A DBM over the nodes ``0`` (the origin) and ``1..J`` (the stations) stores in
``d[u][v]`` the tightest bound on ``x_u - x_v`` (:data:`INF` for none); it is
*closed* when every entry is the shortest path between its nodes.  Feasibility
over the integers equals feasibility over the reals (no negative cycle), so
adding constraints one at a time with :func:`tighten` decides exactly whether a
region is empty.  :func:`describe_dbm` prints a closed DBM minimally.

Pure Python, exact: the regions (:mod:`certify.markov.regions`) and cells
(:mod:`certify.markov.cells`) are built on it, and the checker relies on them.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["INF", "empty_dbm", "tighten", "describe_dbm"]

#: "No bound" in a DBM (larger than any constant that occurs).
INF = 1 << 60


def empty_dbm(J: int) -> list[list[int]]:
    """The closed DBM of the orthant x >= 0 in J stations.

    Parameters
    ----------
    J : int
        The number of stations.

    Returns
    -------
    list of list of int
        ``d[u][v]`` bounds x_u - x_v (node 0 is the origin; :data:`INF` for no bound).

    Examples
    --------
    >>> empty_dbm(1) == [[0, 0], [INF, 0]]
    True
    """
    n = J + 1
    d = [[INF] * n for _ in range(n)]
    for u in range(n):
        d[u][u] = 0
    for a in range(1, n):
        d[0][a] = 0  # x_0 - x_a <= 0, i.e. x_a >= 0
    return d


def tighten(d: list[list[int]], u: int, v: int, c: int) -> list[list[int]] | None:
    """The closure of ``d`` plus ``x_u - x_v <= c``, or None if the system becomes infeasible.

    ``d`` is not changed; unchanged rows are shared with the result.

    Parameters
    ----------
    d : list of list of int
        A closed DBM.
    u, v : int
        Nodes (0 the origin, a + 1 station a).
    c : int
        The bound.

    Returns
    -------
    list of list of int or None
        The closed DBM, or None (a negative cycle: no state satisfies it).

    Examples
    --------
    >>> d = tighten(empty_dbm(2), 1, 2, -1)          # x1 <= x2 - 1
    >>> d[0][2]                                      # hence x2 >= 1
    -1
    >>> tighten(d, 2, 1, 0) is None                  # and x2 <= x1 is infeasible
    True
    """
    if d[u][v] <= c:
        return d
    if d[v][u] + c < 0:
        return None
    n = len(d)
    # Only finite entries of row v can shorten a path; rows that do not change are shared.
    fin = [(j, rv) for j, rv in enumerate(d[v]) if rv < INF]
    out = []
    for i in range(n):
        row = d[i]
        cu = row[u]
        if cu >= INF:
            out.append(row)
            continue
        base = cu + c
        if base >= row[v]:
            # d closed: d[i][j] <= d[i][v] + d[v][j], so a path through the new edge is shorter only if base < d[i][v]
            out.append(row)
            continue
        new = None
        for j, rv in fin:
            val = base + rv
            if val < row[j]:
                if new is None:
                    new = list(row)
                new[j] = val
        out.append(row if new is None else new)
    return out


def describe_dbm(dbm: Sequence[Sequence[int]], ids: Sequence[str], names: Sequence[str] | None = None) -> str:
    """A minimal exact description of a closed DBM, e.g. ``x1 = x2, x1 < x3, x1 >= 1`` (``x >= 0`` is implied).

    The closed difference-bound matrix is reduced (Larsen et al.,
    "Efficient verification of real-time systems: compact data structure and
    state-space reduction", 1997): stations tied by equalities form classes,
    written as one chain ``x1 = x2 = x3`` (``x1 = x2 = 0`` for the class of
    the origin, ``x4 = x1 + 1`` for a fixed offset); between the classes'
    first members only the bounds not implied by a path through another
    class are kept.  The constraints printed define exactly the region
    (within the states, x >= 0).

    Parameters
    ----------
    dbm : sequence of sequence of int
        A closed difference-bound matrix over the origin and the stations.
    ids : sequence of str
        The station ids.
    names : sequence of str, optional
        How to write each station's variable (default ``x`` and the id; LaTeX
        names for :mod:`certify.explain`).

    Returns
    -------
    str
        The constraints, comma-separated (``all states`` when there are none).

    Examples
    --------
    >>> d = tighten(empty_dbm(3), 1, 2, 0)          # x1 <= x2
    >>> d = tighten(tighten(d, 2, 1, 0), 0, 1, -1)   # x2 <= x1, x1 >= 1
    >>> describe_dbm(tighten(d, 1, 3, -1), ["1", "2", "3"])
    'x1 = x2, x1 < x3, x1 >= 1'
    >>> describe_dbm(empty_dbm(2), ["1", "2"])
    'all states'
    """
    d = dbm
    n = len(d)

    labels = list(names) if names is not None else [f"x{s}" for s in ids]

    def name(u: int) -> str:
        return labels[u - 1]

    # classes of nodes tied by equalities (x_u - x_v = d[u][v] = -d[v][u]); node 0 is the origin
    rep = list(range(n))
    for v in range(n):
        for u in range(v):
            if d[u][v] < INF and d[v][u] < INF and d[u][v] + d[v][u] == 0:
                rep[v] = rep[u]
                break
    reps = [u for u in range(n) if rep[u] == u]
    parts: list[str] = []
    origin: list[str] = []
    for r in reps:
        members = [v for v in range(n) if rep[v] == r]
        if len(members) == 1:
            continue
        offsets: dict[int, list[int]] = {}
        for v in members:
            offsets.setdefault(d[v][r], []).append(v)  # x_v = x_r + d[v][r]
        if r == 0:
            for off, vs in sorted(offsets.items()):
                names = [name(v) for v in vs if v]
                if names:
                    origin.append(" = ".join([*names, str(off)]))
            continue
        base = name(r)
        for off, vs in sorted(offsets.items(), key=lambda kv: (kv[0] != 0, kv[0])):
            names = [name(v) for v in vs]
            if off == 0:
                if len(names) > 1:  # the representative alone says nothing
                    parts.append(" = ".join(names))
            else:
                parts.append(" = ".join(names) + f" = {base} {'+' if off > 0 else '-'} {abs(off)}")
    bounds: list[str] = []
    for u in reps:
        for v in reps:
            c = d[u][v]
            if u == v or c >= INF:
                continue
            if any(d[u][w] < INF and d[w][v] < INF and d[u][w] + d[w][v] <= c for w in reps if w not in (u, v)):
                continue  # implied by a path through another class
            if u == 0:  # x_v >= -c
                if c < 0:
                    bounds.append(f"{name(v)} >= {-c}")
            elif v == 0:  # x_u <= c
                bounds.append(f"{name(u)} <= {c}")
            elif c == 0:
                parts.append(f"{name(u)} <= {name(v)}")
            elif c == -1:
                parts.append(f"{name(u)} < {name(v)}")
            else:
                parts.append(f"{name(u)} <= {name(v)} {'-' if c < 0 else '+'} {abs(c)}")
    out = parts + origin + bounds
    return ", ".join(out) if out else "all states"
