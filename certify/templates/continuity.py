"""The coefficients of a continuous piecewise quadratic: their layout, the continuity equalities, their exact solution.

V(x) = x'P_s x on the cells s of a wall arrangement (:class:`certify.markov.cells.Arrangement`).
For adjacent cells s+ (x_a >= x_b) and s- across the wall h = e_a - e_b the
certificate holds a vector t with

    P_{s+} - P_{s-} = h t' + t h'        (checked exactly, :meth:`ContinuousPieces.rows`),

so the two pieces agree on the wall; agreement across every codimension-one
wall makes V well defined and continuous on the whole orthant.

Continuity is a system of linear equalities; the LP does not carry it as
paired inequalities (interior-point solvers fail on them).  It is solved once,
exactly (:meth:`ContinuousPieces.reduced`): every P entry and every t is a fixed
rational combination of the *free* P entries (:meth:`ContinuousPieces.substitution`),
so the search runs over those, and rounding them never breaks continuity.

Pure Python, exact: the checker of :class:`certify.templates.piecewise.PiecewiseQuadratic` relies on it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from fractions import Fraction

from ..markov.cells import Arrangement

__all__ = ["ContinuousPieces"]


class ContinuousPieces:
    """Where each coefficient of a piecewise quadratic sits, and its continuity across the walls.

    The coefficient vector theta holds, cell by cell, the upper triangle of P_c
    (``pairs`` order), then, adjacency by adjacency (``arr.adjacency`` order),
    the J entries of t_e: ``np_vars`` P entries and ``nv`` coefficients in all.

    Parameters
    ----------
    J : int
        The number of stations.
    arr : Arrangement
        The cells of the walls.

    Examples
    --------
    Two stations, one wall x1 = x2, two cells: 3 + 3 P entries and one t of 2 entries.
    Continuity is one equation (``D = P_+ - P_-`` vanishes at e_1 + e_2), so five P
    entries are free, and t_1 = D_11 / 2:

    >>> from certify.markov.cells import Arrangement
    >>> pieces = ContinuousPieces(2, Arrangement(2, ((0, 1),)))
    >>> pieces.np_vars, pieces.nv, pieces.free()
    (6, 8, [0, 1, 2, 3, 4])
    >>> pieces.p(1, 0, 0), pieces.t(0, 0), pieces.substitution()[6]
    (3, 6, {0: Fraction(1, 2), 3: Fraction(-1, 2)})
    """

    def __init__(self, J: int, arr: Arrangement):
        self.J = J
        self.arr = arr
        self.pairs = [(i, j) for i in range(J) for j in range(i, J)]
        self.pos = {p: k for k, p in enumerate(self.pairs)}
        self.nP = len(self.pairs)
        self.np_vars = len(arr.cells) * self.nP
        self.nv = self.np_vars + len(arr.adjacency) * J
        self._rref: dict[int, dict[int, Fraction]] | None = None
        self._sub: list[dict[int, Fraction]] | None = None

    def p(self, c: int, i: int, j: int) -> int:
        """The index in theta of entry (i, j) of P_c (either order).

        Parameters
        ----------
        c : int
            The cell.
        i, j : int
            Stations.

        Returns
        -------
        int
            The index.
        """
        return c * self.nP + self.pos[(i, j) if i <= j else (j, i)]

    def t(self, e: int, j: int) -> int:
        """The index in theta of entry j of the vector t of adjacency e.

        Parameters
        ----------
        e : int
            The adjacency (index in ``arr.adjacency``).
        j : int
            A station.

        Returns
        -------
        int
            The index.
        """
        return self.np_vars + e * self.J + j

    def rows(self) -> Iterator[tuple[int, int, int, int, dict[int, int]]]:
        """The continuity equalities: per adjacency e and entry (i, j), ``(P_+ - P_- - h t' - t h')[i, j]`` = 0.

        Yields
        ------
        e : int
            The adjacency.
        w : int
            Its wall.
        i, j : int
            The entry.
        row : dict of int to int
            {variable index: coefficient} of the entry, which must vanish.
        """
        for e, (w, cp, cm) in enumerate(self.arr.adjacency):
            a, b = self.arr.walls[w]
            h = [0] * self.J
            h[a], h[b] = 1, -1
            for i, j in self.pairs:
                row: dict[int, int] = defaultdict(int)
                row[self.p(cp, i, j)] += 1
                row[self.p(cm, i, j)] -= 1
                if h[i]:
                    row[self.t(e, j)] -= h[i]
                if h[j]:
                    row[self.t(e, i)] -= h[j]
                yield e, w, i, j, {v: k for v, k in row.items() if k}

    def reduced(self) -> dict[int, dict[int, Fraction]]:
        """Continuity on the P entries alone, in reduced form: pivot entry = sum coef * free entry.

        Returns
        -------
        dict of int to dict of int to Fraction
            {pivot P index: {free P index: coefficient}} (computed once).

        Notes
        -----
        ``P_+ - P_- = h t' + t h'`` for some t iff ``D = P_+ - P_-`` vanishes on h-perp, spanned
        by e_k (k not in {a, b}) and e_a + e_b: D_kl = 0, D_ka + D_kb = 0, D_aa + 2 D_ab + D_bb = 0.
        """
        if self._rref is not None:
            return self._rref
        J = self.J
        rows: dict[int, dict[int, Fraction]] = {}
        for w, cp, cm in self.arr.adjacency:
            a, b = self.arr.walls[w]
            others = [k for k in range(J) if k not in (a, b)]
            perp = [{k: 1} for k in others] + [{a: 1, b: 1}]
            for x in range(len(perp)):
                for y in range(x, len(perp)):
                    eq: dict[int, Fraction] = defaultdict(Fraction)
                    for i, ui in perp[x].items():
                        for j, vj in perp[y].items():
                            eq[self.p(cp, i, j)] += ui * vj
                            eq[self.p(cm, i, j)] -= ui * vj
                    # substitute the pivots found so far
                    red: dict[int, Fraction] = defaultdict(Fraction)
                    for v, q in eq.items():
                        if v in rows:
                            for u, r in rows[v].items():
                                red[u] += q * r
                        else:
                            red[v] += q
                    red = {v: q for v, q in red.items() if q}
                    if not red:
                        continue
                    p = max(red)
                    qp = red.pop(p)
                    expr = {v: -q / qp for v, q in red.items()}
                    for ex in rows.values():
                        if p in ex:
                            qe = ex.pop(p)
                            for u, r in expr.items():
                                ex[u] = ex.get(u, Fraction(0)) + qe * r
                                if not ex[u]:
                                    del ex[u]
                    rows[p] = expr
        self._rref = rows
        return rows

    def substitution(self) -> list[dict[int, Fraction]]:
        """Every coefficient as a combination of the free P entries (continuity solved exactly).

        Pivot P entries come from :meth:`reduced`; t follows from ``D = P_+ - P_- = h t' + t h'``:
        t_a = D_aa / 2, t_b = -D_bb / 2, t_k = D_ka for the other stations k.

        Returns
        -------
        list of dict of int to Fraction
            Per coefficient index (``nv`` of them), {free P index: coefficient} (computed once).
        """
        if self._sub is not None:
            return self._sub
        rows = self.reduced()
        J = self.J
        sub: list[dict[int, Fraction]] = [rows[v] if v in rows else {v: Fraction(1)} for v in range(self.np_vars)]
        for w, cp, cm in self.arr.adjacency:
            a, b = self.arr.walls[w]
            for k in range(J):
                i, j, f = (a, a, Fraction(1, 2)) if k == a else ((b, b, Fraction(-1, 2)) if k == b else (k, a, Fraction(1)))
                acc: dict[int, Fraction] = defaultdict(Fraction)
                for u, q in sub[self.p(cp, i, j)].items():
                    acc[u] += f * q
                for u, q in sub[self.p(cm, i, j)].items():
                    acc[u] -= f * q
                sub.append({u: q for u, q in acc.items() if q})
        self._sub = sub
        return sub

    def free(self) -> list[int]:
        """The free P entries: those the substitution leaves as themselves.

        Returns
        -------
        list of int
            Their indices in theta, increasing.
        """
        sub = self.substitution()
        return [v for v in range(self.np_vars) if sub[v] == {v: Fraction(1)}]
