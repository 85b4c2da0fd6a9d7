"""The quadratic template V(x) = x'Px with P copositive (docs/math/foster.md)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from math import lcm
from typing import TYPE_CHECKING, Any

from ..core.latex import frac_tex, poly_tex, quadratic_terms
from ..markov.chain import Chain
from ..markov.drift import RegionDrift
from .linear import LinearTemplate, SideRow
from .readable import Formulas, FunctionText, Piece, Rows, Sentence, Tex

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

__all__ = ["Quadratic"]


class Quadratic(LinearTemplate):
    """V(x) = x'Px, P = N + S with N >= 0 elementwise and S diagonally dominant.

    On a region with mean drift m, AV(x) = 2 m'Px + sum_d rate_d d'Pd, so along a
    cone generator g the drift grows like 2 m'Pg: linear in P.  Copositivity
    (V >= 0 on the orthant) is imposed through the inner approximation
    P_ii >= sum_{j != i} max(-P_ij, 0): the positive off-diagonal part is N, the
    rest is diagonally dominant with a nonnegative diagonal, hence PSD.
    A linear term q'x would change only the constant of AV, not the growth, so it
    is left out.

    Parameters
    ----------
    chain : Chain
        The chain to certify.
    drifts : sequence of RegionDrift
        Its region drifts (:func:`certify.markov.drift.compile_drifts`).
    **options
        None (the template takes no options).

    Examples
    --------
    Two stations sharing one JSQ stream at load 3/4; V = x1^2 + x2^2 already
    decreases (delta = 1/2) far from the origin:

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> from certify.markov.drift import compile_drifts
    >>> net = Network("jsq2", (Station("1", F(1)), Station("2", F(1))), (Stream(F(3, 2), choice=("1", "2")),))
    >>> chain = compile_chain(net)
    >>> tmpl = Quadratic(chain, compile_drifts(chain))
    >>> theta = [F(1), F(0), F(1)]
    >>> tmpl.formula(theta), tmpl.check_side(theta)
    ('V = 1*x1^2 + 1*x2^2', [])
    >>> failures, facts = tmpl.exact_drift(theta, {})
    >>> failures, facts.delta, facts.exceptional_l1_bound
    ([], Fraction(1, 2), Fraction(62, 1))
    """

    name = "quadratic"
    summary = "V = x'Px, P copositive (diagonally dominant + nonnegative)"

    def proved(self, theta: Sequence[Fraction]) -> str:
        """V written out when the network has at most 3 stations, else the summary.

        Parameters
        ----------
        theta : sequence of Fraction
            The certificate's coefficients.

        Returns
        -------
        str
            One phrase.

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> from certify.core.model import Network, Station, Stream
        >>> from certify.markov.chain import compile_chain
        >>> from certify.markov.drift import compile_drifts
        >>> chain = compile_chain(Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),)))
        >>> Quadratic(chain, compile_drifts(chain)).proved([F(1)])
        'V = 1*x1^2'
        """
        return self.formula(theta) if self.chain.J <= 3 else self.summary
    supports_symmetry = True

    def __init__(self, chain: Chain, drifts: Sequence[RegionDrift], **options: Any):
        super().__init__(chain, drifts, **options)
        J = chain.J
        self.pairs = [(i, j) for i in range(J) for j in range(i, J)]
        self.pos = {p: k for k, p in enumerate(self.pairs)}
        self.off = [(i, j) for i, j in self.pairs if i != j]

    def _k(self, i: int, j: int) -> int:
        return self.pos[(i, j) if i <= j else (j, i)]

    # ---- the invariant form: P constant on the orbits of station pairs ----

    def _labels(self) -> list[int]:
        """A label per station: its class (J + k for class k) or itself when fixed by the symmetry."""
        J = self.chain.J
        label = list(range(J))
        for k, cl in enumerate(self.symmetry.classes if self.symmetry is not None else ()):
            for a in cl:
                label[a] = J + k
        return label

    def _orbit_keys(self) -> list[tuple[str, int, int, bool]]:
        """The orbit of each LP variable (P_ij, then t_ij): the kind, the two labels (sorted) and whether i = j."""
        label = self._labels()

        def key(kind: str, i: int, j: int) -> tuple[str, int, int, bool]:
            return (kind, min(label[i], label[j]), max(label[i], label[j]), i == j)

        return [key("P", i, j) for i, j in self.pairs] + [key("t", i, j) for i, j in self.off]

    def tied(self) -> list[int] | None:
        """One group per orbit of station pairs under the station classes (P_ij and t_ij alike).

        With classes, the orbit of a pair (i, j) is fixed by the classes of i and j
        (a fixed station is its own class) and whether i = j: P is then a block
        matrix, constant on the diagonal and off it within each block.
        """
        if self.symmetry is None:
            return None
        groups: dict[tuple[str, int, int, bool], int] = {}
        return [groups.setdefault(k, len(groups)) for k in self._orbit_keys()]

    def tied_lp_matrix(self, E: csr_matrix) -> csr_matrix:
        """The slopes on the orbit variables, from class sums (never the full J(J+1)/2 columns).

        For a region mean m and generator g, with M_L, G_L the sums of m and g over
        label L and D_L the sum of m_i g_i over it, the orbit of the diagonal of L
        has slope 2 D_L, the off-diagonal within L 2 (M_L G_L - D_L), and the block
        (L, L') 2 (M_L G_L' + M_L' G_L); the t columns are zero.
        """
        import numpy as np
        import scipy.sparse as sp

        if self.symmetry is None:
            return super().tied_lp_matrix(E)
        J, D = self.chain.J, self.chain.scale
        label = self._labels()
        uniq = sorted(set(label))
        at = {L: n for n, L in enumerate(uniq)}
        ind = np.zeros((J, len(uniq)))
        ind[np.arange(J), [at[L] for L in label]] = 1.0
        gen = [rd for rd in self.drifts if rd.generators]
        M = np.array([[x / D for x in rd.mean] for rd in gen], dtype=float).reshape(-1, J)
        reg = np.array([r for r, rd in enumerate(gen) for _ in rd.generators], dtype=int)
        G = np.array([g for rd in gen for g in rd.generators], dtype=np.int8).reshape(-1, J)
        ML = (M @ ind)[reg]
        GL = np.empty((len(reg), len(uniq)))
        DL = np.empty((len(reg), len(uniq)))
        step = 20_000  # rows at a time: the products M[reg] * G are J wide
        for lo in range(0, len(reg), step):
            g = G[lo : lo + step].astype(float)
            GL[lo : lo + step] = g @ ind
            DL[lo : lo + step] = (M[reg[lo : lo + step]] * g) @ ind
        keys = self._orbit_keys()
        groups = self.tied()
        assert groups is not None
        cols = np.zeros((len(reg), E.shape[1]))
        done = set()
        for k, grp in zip(keys, groups):
            if grp in done:
                continue
            done.add(grp)
            kind, L1, L2, diag = k
            a, b = at[L1], at[L2]
            if kind == "t":
                continue
            if diag:
                cols[:, grp] = 2 * DL[:, a]
            elif a == b:
                cols[:, grp] = 2 * (ML[:, a] * GL[:, a] - DL[:, a])
            else:
                cols[:, grp] = 2 * (ML[:, a] * GL[:, b] + ML[:, b] * GL[:, a])
        return sp.csr_matrix(cols)

    def invariance_failures(self, theta: Sequence[Fraction]) -> list[str]:
        """Why x'Px is not invariant under each generator (an exchange of two stations of a class): P[s(i), s(j)] = P[i, j]."""
        sym = self.symmetry
        if sym is None:
            return []
        ids, J = self.chain.ids, self.chain.J
        out = []
        for perm in sym.generators(J):
            for i, j in self.pairs:
                a, b = theta[self._k(i, j)], theta[self._k(perm[i], perm[j])]
                if a != b:
                    moved = [ids[x] for x in range(J) if perm[x] != x]
                    out.append(
                        f"V is not invariant under exchanging stations {moved[0]} and {moved[1]}: "
                        f"P[{ids[i]},{ids[j]}] = {a} but P[{ids[perm[i]]},{ids[perm[j]]}] = {b}"
                    )
                    break
        return out

    def strict_side(self) -> bool:
        """True when V needs P strictly diagonally dominant (so that x'Px dominates bounded terms).

        Returns
        -------
        bool
            False here; :class:`certify.templates.table.LinearTable` needs it strict.
        """
        return False

    def variables(self) -> list[str]:
        """``P[i,j]`` for the upper triangle of P, row by row."""
        ids = self.chain.ids
        return [f"P[{ids[i]},{ids[j]}]" for i, j in self.pairs]

    def aux_variables(self) -> list[str]:
        """``t[i,j]`` >= max(-P_ij, 0) for each off-diagonal entry (the copositivity rows use them)."""
        ids = self.chain.ids
        return [f"t[{ids[i]},{ids[j]}]" for i, j in self.off]

    def row_values(self, theta: Sequence[Fraction]) -> tuple[list[int], int]:
        """The slopes 2 m'Pg, exactly (scaled integers)."""
        J = self.chain.J
        P, den = self._integer_matrix(theta)
        scale = den * self.chain.scale
        pm = self._pm_function(theta, P)
        out = []
        for rd in self.drifts:
            if not rd.generators:
                continue
            # 2 m'Pg = 2 (Pm)'g: one matrix-vector product per region.
            Pm = pm(rd.mean)
            for g in rd.generators:
                out.append(2 * sum(Pm[j] for j in range(J) if g[j]))
        return out, scale

    def lp_matrix(self) -> csr_matrix:
        """The slopes 2 m'Pg as a float matrix on (P, t); the t columns are zero."""
        import numpy as np
        import scipy.sparse as sp

        J = self.chain.J
        D = self.chain.scale
        M = np.array([[m / D for m in rd.mean] for rd in self.drifts], dtype=float).reshape(-1, J)
        reg = np.array([r for r, rd in enumerate(self.drifts) for _ in rd.generators], dtype=int)
        G = np.array([g for rd in self.drifts for g in rd.generators], dtype=float).reshape(-1, J)
        Mr = M[reg]
        cols = []
        for i, j in self.pairs:
            cols.append(2 * Mr[:, i] * G[:, i] if i == j else 2 * (Mr[:, i] * G[:, j] + Mr[:, j] * G[:, i]))
        A = np.stack(cols, axis=1) if cols else np.zeros((len(reg), 0))
        aux = np.zeros((len(reg), len(self.off)))
        return sp.csr_matrix(np.hstack([A, aux]))

    def side_rows(self) -> list[SideRow]:
        """t >= -P_ij, t >= 0, and sum of the row's t <= P_ii (with a margin): P diagonally dominant plus nonnegative."""
        n = len(self.pairs)
        rows = []
        for a, (i, j) in enumerate(self.off):
            t = n + a
            rows.append(SideRow(((t, Fraction(-1)), (self._k(i, j), Fraction(-1)))))  # t >= -P_ij
            rows.append(SideRow(((t, Fraction(-1)),)))  # t >= 0
        for i in range(self.chain.J):
            coef = {self._k(i, i): Fraction(-1)}
            for a, (p, q) in enumerate(self.off):
                if i in (p, q):
                    coef[n + a] = Fraction(1)
            rows.append(SideRow(tuple(sorted(coef.items())), margin=True))  # sum t <= P_ii
        return rows

    def _matrix(self, theta: Sequence[Fraction]) -> list[list[Fraction]]:
        J = self.chain.J
        return [[theta[self._k(i, j)] for j in range(J)] for i in range(J)]

    def _deficits(self, theta: Sequence[Fraction]) -> list[tuple[Fraction, Fraction]]:
        P = self._matrix(theta)
        J = self.chain.J
        return [
            (P[i][i], sum((-P[i][j] for j in range(J) if j != i and P[i][j] < 0), Fraction(0))) for i in range(J)
        ]

    def check_side(self, theta: Sequence[Fraction]) -> list[str]:
        """Copositivity through the inner approximation: P_ii >= sum of the negative off-diagonal magnitudes."""
        ids = self.chain.ids
        strict = self.strict_side()
        return [
            f"copositivity: P[{ids[i]},{ids[i]}] = {d} {'<=' if strict else '<'} {need} "
            f"(sum of negative off-diagonal magnitudes; must be {'>' if strict else '>='})"
            for i, (d, need) in enumerate(self._deficits(theta))
            if d < need or (strict and d == need)
        ]

    def repair(self, theta: list[Fraction]) -> list[Fraction]:
        """Raise each diagonal P_ii that rounding left below its off-diagonal deficit."""
        out = list(theta)
        bump = Fraction(1, 2**24) if self.strict_side() else Fraction(0)
        for i, (d, need) in enumerate(self._deficits(theta)):
            if d < need + bump:
                out[self._k(i, i)] = need + bump
        return out

    def _pm_function(self, theta: Sequence[Fraction], P: list[list[int]]) -> Callable[[Sequence[int]], list[int]]:
        """m -> Pm in integers: by blocks when P is invariant under the classes (checked here), else row by row.

        An invariant P is constant on each block: (Pm)_j = base_L + (P_jj - P_off(L, L)) m_j for j in
        label L, with base_L = sum_L' P_off(L, L') M_L' (M_L' the sum of m over L'), which costs
        O(J + labels^2) instead of O(J^2).
        """
        key = tuple(theta)
        cached: tuple[tuple[Fraction, ...], Callable[[Sequence[int]], list[int]]] | None = getattr(self, "_pm_cache", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        fn = self._pm_build(theta, P)
        self._pm_cache = (key, fn)
        return fn

    def _pm_build(self, theta: Sequence[Fraction], P: list[list[int]]) -> Callable[[Sequence[int]], list[int]]:
        J = self.chain.J
        if self.symmetry is None or self.invariance_failures(theta):

            def dense(m: Sequence[int]) -> list[int]:
                return [sum(P[j][i] * m[i] for i in range(J) if m[i]) for j in range(J)]

            return dense
        label = self._labels()
        members: dict[int, list[int]] = {}
        for a, L in enumerate(label):
            members.setdefault(L, []).append(a)
        Ls = list(members)
        first = {L: members[L][0] for L in Ls}
        # the off-diagonal value of each block (0 for the within-block value of a one-station label: no such pair)
        off = {
            (L, K): (P[first[L]][first[K]] if L != K else (P[members[L][0]][members[L][1]] if len(members[L]) > 1 else 0))
            for L in Ls
            for K in Ls
        }
        coef = [P[j][j] - off[(label[j], label[j])] for j in range(J)]

        def blocks(m: Sequence[int]) -> list[int]:
            ML = {L: sum(m[a] for a in members[L]) for L in Ls}
            base = {L: sum(off[(L, K)] * ML[K] for K in Ls if ML[K]) for L in Ls}
            return [base[label[j]] + coef[j] * m[j] for j in range(J)]

        return blocks

    def _integer_matrix(self, theta: Sequence[Fraction]) -> tuple[list[list[int]], int]:
        """P times a common denominator, and that denominator (cached per theta)."""
        key = tuple(theta)
        if getattr(self, "_pint_key", None) != key:
            den = lcm(*(Fraction(t).denominator for t in theta))
            J = self.chain.J
            self._pint = [[int(theta[self._k(i, j)] * den) for j in range(J)] for i in range(J)]
            self._pint_den = den
            self._pint_key = key
        return self._pint, self._pint_den

    def affine_drifts(self, theta: Sequence[Fraction]) -> tuple[list[tuple[list[int], int]], int]:
        """Per region, AV(x) <= (a'x + c) / s: a = 2Pm exactly.

        For the constant, d'Pd <= 4 max|P_ij| for every jump d (at most two entries +-1),
        times the total rate bound.
        """
        P, den = self._integer_matrix(theta)
        big = max(abs(v) for row in P for v in row)
        c = int(4 * big * self.chain.total_rate * self.chain.scale) + 1
        pm = self._pm_function(theta, P)  # a = 2Pm (P is symmetric: m'P = (Pm)')
        out = [([2 * v for v in pm(rd.mean)], c) for rd in self.drifts]
        return out, den * self.chain.scale

    def formula(self, theta: Sequence[Fraction]) -> str:
        """V as a sum of monomials, e.g. ``V = 1*x1^2 + 1*x2^2``."""
        terms = []
        ids = self.chain.ids
        for (i, j), v in zip(self.pairs, theta):
            if v:
                coef = v if i == j else 2 * v
                terms.append(f"{coef}*x{ids[i]}" + ("^2" if i == j else f"*x{ids[j]}"))
        return "V = " + (" + ".join(terms) if terms else "0")

    # ---- the readable proof ----

    def explain_function(self, theta: Sequence[Fraction], max_rows: int) -> FunctionText:
        """V = x'P x written out, and the diagonal dominance that makes it copositive (a table of margins)."""
        return FunctionText((Formulas((f"V(x) = {self._quadratic_tex(theta)}",)), *self._dominance_text(theta)))

    def _quadratic_tex(self, theta: Sequence[Fraction]) -> str:
        """x'Px with P from ``theta`` (its first entries), as LaTeX."""
        return poly_tex(quadratic_terms(zip(self.pairs, theta), self.chain.J), self.chain.ids)

    def _dominance_text(self, theta: Sequence[Fraction]) -> tuple[Piece, ...]:
        """Why V is bounded below: each P_ii against its row's negative off-diagonal mass."""
        ids = self.chain.ids
        rows = tuple(
            (ids[i], Tex(frac_tex(d)), Tex(frac_tex(need)), Tex(frac_tex(d - need))) for i, (d, need) in enumerate(self._deficits(theta))
        )
        why = Sentence((
            "V is bounded below: every diagonal entry P_ii is at least (for the table template: strictly more than) the sum of the "
            "magnitudes of the negative entries of row i, so P is copositive: ", Tex("x^\\top P x \\ge 0"), " on the orthant"
            + (" and dominates the bounded table terms." if self.strict_side() else "."),
        ))
        return why, Rows(("station i", "P_ii", "negative off-diagonal mass", "margin"), rows, "Diagonal dominance of P")
