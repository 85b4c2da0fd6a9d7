"""The quadratic template V(x) = x'Px with P copositive (DESIGN §3)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import lcm
from typing import TYPE_CHECKING, Any

from ..markov.chain import Chain
from ..markov.drift import RegionDrift
from .linear import LinearTemplate, SideRow

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
    >>> failures, facts["delta"], facts["exceptional_l1_bound"]
    ([], Fraction(1, 2), Fraction(62, 1))
    """

    name = "quadratic"
    summary = "V = x'Px, P copositive (diagonally dominant + nonnegative)"

    def __init__(self, chain: Chain, drifts: Sequence[RegionDrift], **options: Any):
        super().__init__(chain, drifts, **options)
        J = chain.J
        self.pairs = [(i, j) for i in range(J) for j in range(i, J)]
        self.pos = {p: k for k, p in enumerate(self.pairs)}
        self.off = [(i, j) for i, j in self.pairs if i != j]

    def _k(self, i: int, j: int) -> int:
        return self.pos[(i, j) if i <= j else (j, i)]

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
        out = []
        for rd in self.drifts:
            if not rd.generators:
                continue
            m = rd.mean
            # 2 m'Pg = 2 (Pm)'g: one matrix-vector product per region.
            Pm = [sum(P[j][i] * m[i] for i in range(J) if m[i]) for j in range(J)]
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
        J = self.chain.J
        big = max(abs(v) for row in P for v in row)
        c = int(4 * big * self.chain.total_rate * self.chain.scale) + 1
        out = []
        for rd in self.drifts:
            m = rd.mean
            out.append(([2 * sum(m[i] * P[i][j] for i in range(J) if m[i]) for j in range(J)], c))
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
