"""The quadratic template V(x) = x'Px with P copositive (DESIGN §3)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from .base import DriftRow, SideRow, Template

__all__ = ["Quadratic"]


class Quadratic(Template):
    """V(x) = x'Px, P = N + S with N >= 0 elementwise and S diagonally dominant.

    On a region with mean drift m, AV(x) = 2 m'Px + sum_d rate_d d'Pd, so along a
    cone generator g the drift grows like 2 m'Pg: linear in P.  Copositivity
    (V >= 0 on the orthant) is imposed through the inner approximation
    P_ii >= sum_{j != i} max(-P_ij, 0): the positive off-diagonal part is N, the
    rest is diagonally dominant with a nonnegative diagonal, hence PSD.
    A linear term q'x would change only the constant of AV, not the growth, so it
    is left out.
    """

    name = "quadratic"
    summary = "V = x'Px, P copositive (diagonally dominant + nonnegative)"

    def __init__(self, chain, drifts):
        super().__init__(chain, drifts)
        J = chain.J
        self.pairs = [(i, j) for i in range(J) for j in range(i, J)]
        self.pos = {p: k for k, p in enumerate(self.pairs)}
        self.off = [(i, j) for i, j in self.pairs if i != j]

    def _k(self, i: int, j: int) -> int:
        return self.pos[(i, j) if i <= j else (j, i)]

    def variables(self) -> list[str]:
        ids = self.chain.ids
        return [f"P[{ids[i]},{ids[j]}]" for i, j in self.pairs]

    def aux_variables(self) -> list[str]:
        ids = self.chain.ids
        return [f"t[{ids[i]},{ids[j]}]" for i, j in self.off]

    def drift_rows(self) -> list[DriftRow]:
        rows = []
        for r, rd in enumerate(self.drifts):
            m = rd.mean
            for g in rd.generators:
                coef: dict[int, Fraction] = {}
                for i, j in self.pairs:
                    # 2 m'Pg: P_ij appears as m_i g_j + m_j g_i (once on the diagonal).
                    v = m[i] * g[j] + (m[j] * g[i] if i != j else 0)
                    if v:
                        coef[self.pos[(i, j)]] = 2 * v
                rows.append(DriftRow(r, g, tuple(sorted(coef.items())), sum(g)))
        return rows

    def side_rows(self) -> list[SideRow]:
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

    def check_side(self, theta: Sequence[Fraction]) -> list[str]:
        P = self._matrix(theta)
        bad = []
        for i in range(self.chain.J):
            need = sum((-P[i][j] for j in range(self.chain.J) if j != i and P[i][j] < 0), Fraction(0))
            if P[i][i] < need:
                bad.append(
                    f"copositivity: P[{self.chain.ids[i]},{self.chain.ids[i]}] = {P[i][i]} "
                    f"< {need} (sum of negative off-diagonal magnitudes)"
                )
        return bad

    def repair(self, theta: list[Fraction]) -> list[Fraction]:
        P = self._matrix(theta)
        out = list(theta)
        for i in range(self.chain.J):
            need = sum((-P[i][j] for j in range(self.chain.J) if j != i and P[i][j] < 0), Fraction(0))
            if P[i][i] < need:
                out[self._k(i, i)] = need
        return out

    def affine_drift(self, theta: Sequence[Fraction], k: int) -> tuple[list[Fraction], Fraction]:
        P = self._matrix(theta)
        J = self.chain.J
        m = self.drifts[k].mean
        a = [2 * sum((m[i] * P[i][j] for i in range(J)), Fraction(0)) for j in range(J)]
        c = Fraction(0)
        for d, rate in self.drifts[k].jumps:
            c += rate * sum((s * t * P[i][j] for i, s in d for j, t in d), Fraction(0))
        return a, c

    def formula(self, theta: Sequence[Fraction]) -> str:
        terms = []
        ids = self.chain.ids
        for (i, j), v in zip(self.pairs, theta):
            if v:
                coef = v if i == j else 2 * v
                terms.append(f"{coef}*x{ids[i]}" + ("^2" if i == j else f"*x{ids[j]}"))
        return "V = " + (" + ".join(terms) if terms else "0")
