"""Quartic Lyapunov functions with SOS multipliers per region (docs/math/foster.md, the SDP path).

V(x) = V4(x) = ``sum_{|a|=4} c_a x^a``, a homogeneous quartic form (lower-degree terms
would not change the growth of the drift, so there are none).

Theorem (what :meth:`QuarticSOS.check_side` and :meth:`QuarticSOS.exact_drift`
establish, in exact rational arithmetic).  Suppose

(i)  V4(x) = m(x)' T m(x) + sum_a w_a x^a, with m(x) the vector of degree-2
     monomials, T positive semidefinite and every w_a >= 0.  Then V >= 0 on the
     orthant.
(ii) delta > 0, and on every unbounded region R, with recession-cone
     generators g_1..g_K (0/1 vectors) and C_R the cubic part of AV on R
     (C_R(y) = m_R . grad V4(y), m_R the mean drift), the polynomial identity in
     lam = (lam_1..lam_K)

         -C_R(sum_k lam_k g_k) - delta (sum_k lam_k)^3
             = sum_k lam_k lam' Q_{R,k} lam + ``sum_{|b|=3} n_{R,b} lam^b``

     holds coefficient by coefficient, with every Q_{R,k} PSD and every
     n_{R,b} >= 0 (regions with one generator have no Gram matrix: the n alone).

Then AV(x) <= -delta whenever ``|x|_1`` >= N, for the N reported as
``exceptional_l1_bound``; with V >= 0, non-explosion and the empty state reachable
(checked by :func:`certify.exact.check_foster`), Foster's criterion gives positive
recurrence.

Proof of the bound.  The right side of the identity is >= 0 for lam >= 0, so
-C_R(y) >= delta (sum lam)^3 for every y = G lam in the cone; since
``|y|_1`` = sum_k lam_k ``|g_k|_1`` <= h_R sum lam (h_R = max_k ``|g_k|_1`` <= J),
C_R(y) <= -delta s^3 / h_R^3 with s = ``|y|_1``.  Every state x of R is p + y with p
in [0, L]^J (a point of the region's polytope, L = :func:`vertex_bound`) and y in
the cone, so s >= ``|x|_1`` - J L.  Write AV = C_R + P_R with deg P_R <= 2, exactly.
Since 0 <= p_i <= L and 0 <= y_i <= s, each cubic monomial satisfies
``|(p + y)^a - y^a|`` <= (L + s)^3 - s^3 and each lower monomial ``|(p + y)^a|`` <= (L + s)^|a|,
so AV(x) <= -delta s^3 / h^3 + e2 s^2 + e1 s + e0 with e_i >= 0 computed from the
absolute values of the coefficients.  For s >= max(1, h^3 (e2 + e1 + e0 + delta) / delta)
this is <= -delta s^2 <= -delta; N = J L + that bound, maximised over the regions.

The numeric search (:func:`certify.search.sdp.solve_quartic`) is one SDP (cvxpy; Clarabel, else
SCS) maximising delta with ``|c_a|`` <= 1 and the Gram matrices kept a little inside
the PSD cone.  Rounding (:meth:`QuarticSOS.candidates`, Peyrl–Parrilo): c and
delta are rounded first (delta a little down), which fixes every left side
exactly; then the Gram matrices are rounded and, per monomial, the nonnegative
slack (n, or w on the V side) takes the residual when it can, else the Gram
entries of that monomial are projected exactly onto the identity
(:func:`certify.templates.gram.fit_with_slack`).  PSD is then checked by exact LDL^T
(:func:`certify.templates.gram.ldl_psd`).  The certificate stores c, T, delta, every Q and
every n by name, so ``certify verify`` re-checks everything from the file.

Like every homogeneous polynomial, V cannot see tie-breaking probabilities
(docs/math/measurements.md).  Pure Python: the SDP (numpy and cvxpy) lives in
:mod:`certify.search.sdp`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import ceil, floor, lcm

from ..core.jsontypes import JsonObject, JsonValue
from ..core.latex import frac_tex, norm_tex, poly_tex, set_tex
from ..markov.chain import Chain
from ..markov.cones import cone_generators, vertex_bound
from ..markov.drift import Jump, RegionDrift
from ..markov.regions import enumerate_regions
from ..markov.symmetry import Symmetry
from .base import DENOMINATORS, DriftFacts, Template, round_to_grid
from .gram import fit_with_slack, ldl_psd
from .monomials import Mono, exponent_str, jump_poly, linear_power, mono_str, monomials, multinomial
from .readable import Appendix, Coefficients, DriftText, Formulas, FunctionText, Part, Sentence, Tex, region_cell

__all__ = ["QuarticSOS", "MAX_STATIONS", "MAX_GENERATORS", "GRAM_MARGIN", "DELTA_SHAVE"]

# The template declines larger networks (escalation returns no option set).
MAX_STATIONS = 4
MAX_GENERATORS = 8
# The search keeps every Gram matrix at least this far inside the PSD cone
# (smallest eigenvalue), so that rounding to rationals keeps it PSD.
GRAM_MARGIN = 1e-5
# Rounding lowers delta by this fraction: room for the nonnegative slacks n.
DELTA_SHAVE = 2.0**-10

@dataclass
class _Block:
    """One unbounded region's multipliers: K Gram matrices (when K >= 2) and the n's."""

    region: int
    G: tuple[tuple[int, ...], ...]
    K: int
    gram: bool
    bmonos: list[Mono]
    qoff: int  # index in theta of the first Gram entry
    noff: int  # index in theta of the first n
    # per monomial index: [(theta index, coefficient, weight)] of its Gram entries
    eqs: list[list[tuple[int, int, int]]]
    # per generator: the theta indices of Q_k's upper triangle, row-major
    qidx: list[list[tuple[int, int, int]]]


class QuarticSOS(Template):
    """V = quartic form >= 0 on the orthant; per region an SOS certificate of the cubic drift.

    Coefficients (``variables()``), exponents listed station by station in model order:
    ``V[a]`` (c_a, ``|a|`` = 4), ``T[a|b]`` (the Gram matrix T over degree-2 monomials,
    upper triangle), ``delta``, ``Q[r<region>.g<k>][i,j]`` (Gram matrix of the
    multiplier lam_k on region ``region``, upper triangle) and ``n[r<region>][b]``
    (the nonnegative cubic coefficients, b an exponent over the generators).
    Regions are numbered as :func:`certify.markov.regions.enumerate_regions` lists them,
    generators as :func:`certify.markov.cones.cone_generators` does.

    An SDP template: it derives from :class:`~certify.templates.base.Template`
    alone (no linear rows); its search is :func:`certify.search.sdp.solve_quartic`.

    Parameters
    ----------
    chain : Chain
        The chain to certify (exponential; see :meth:`escalation`).
    drifts : sequence of RegionDrift
        Its region drifts (:func:`certify.markov.drift.compile_drifts`).
    **options
        None (the template takes no options).

    Examples
    --------
    V = (x1^2 + x2^2)^2 on two stations sharing a JSQ stream at load 3/4: T is
    the Gram matrix of x1^2 + x2^2, and the rounding fills in the multipliers:

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> from certify.markov.drift import compile_drifts
    >>> net = Network("jsq2", (Station("1", F(1)), Station("2", F(1))), (Stream(F(3, 2), choice=("1", "2")),))
    >>> chain = compile_chain(net)
    >>> tmpl = QuarticSOS(chain, compile_drifts(chain))
    >>> names = tmpl.variables()
    >>> names[:6], len(names)
    (['V[4,0]', 'V[3,1]', 'V[2,2]', 'V[1,3]', 'V[0,4]', 'T[2,0|2,0]'], 35)
    >>> x = [0.0] * len(names)
    >>> for n in ("V[4,0]", "V[0,4]", "T[2,0|2,0]", "T[2,0|0,2]", "T[0,2|0,2]"):
    ...     x[names.index(n)] = 1.0
    >>> x[names.index("V[2,2]")] = 2.0
    >>> x[tmpl.idelta] = 0.5
    >>> theta = tmpl.round(x, 2**12)
    >>> tmpl.formula(theta)
    'V = 1*x1^4 + 2*x1^2*x2^2 + 1*x2^4'
    >>> failures, facts = tmpl.exact_drift(theta, {})
    >>> tmpl.check_side(theta), failures, facts.delta
    ([], [], Fraction(1023, 2048))
    """

    name = "quartic"
    summary = "V = quartic form, SOS multipliers per region (SDP)"
    problem = "SDP"

    @classmethod
    def escalation(cls, chain: Chain) -> list[JsonObject]:
        """One attempt, or none for J > 4, phase-type chains, or a region with > 8 cone generators."""
        if chain.has_phases or chain.J > MAX_STATIONS:
            return []
        if any(len(cone_generators(r)) > MAX_GENERATORS for r in enumerate_regions(chain)):
            return []
        return [{}]

    def __init__(self, chain: Chain, drifts: Sequence[RegionDrift], symmetry: Symmetry | None = None, **options: JsonValue):
        super().__init__(chain, drifts, symmetry, **options)
        J = chain.J
        ids = chain.ids
        self.vmonos = monomials(J, 4)
        self.vpos = {a: k for k, a in enumerate(self.vmonos)}
        self.qmonos = monomials(J, 2)
        m2 = len(self.qmonos)
        self.tpairs = [(i, j) for i in range(m2) for j in range(i, m2)]
        names = [f"V[{exponent_str(a)}]" for a in self.vmonos]
        self.toff = len(names)
        names += [f"T[{exponent_str(self.qmonos[i])}|{exponent_str(self.qmonos[j])}]" for i, j in self.tpairs]
        # per quartic monomial: the T entries that produce it in m(x)'T m(x)
        self.teqs: list[list[tuple[int, int, int]]] = [[] for _ in self.vmonos]
        for t, (i, j) in enumerate(self.tpairs):
            a = tuple(p + q for p, q in zip(self.qmonos[i], self.qmonos[j]))
            self.teqs[self.vpos[a]].append((self.toff + t, 1 if i == j else 2, 1 if i == j else 2))
        self.idelta = len(names)
        names.append("delta")
        self.blocks: list[_Block] = []
        for r, rd in enumerate(drifts):
            if not rd.generators:
                continue
            G = tuple(rd.generators)
            K = len(G)
            bmonos = monomials(K, 3)
            bpos = {b: k for k, b in enumerate(bmonos)}
            gram = K >= 2
            qoff = len(names)
            eqs: list[list[tuple[int, int, int]]] = [[] for _ in bmonos]
            qidx: list[list[tuple[int, int, int]]] = []
            if gram:
                for k in range(K):
                    ent = []
                    for i in range(K):
                        for j in range(i, K):
                            b = [0] * K
                            b[k] += 1
                            b[i] += 1
                            b[j] += 1
                            idx = len(names)
                            names.append(f"Q[r{r}.g{k}][{i},{j}]")
                            eqs[bpos[tuple(b)]].append((idx, 1 if i == j else 2, 1 if i == j else 2))
                            ent.append((i, j, idx))
                    qidx.append(ent)
            noff = len(names)
            names += [f"n[r{r}][{exponent_str(b)}]" for b in bmonos]
            self.blocks.append(_Block(r, G, K, gram, bmonos, qoff, noff, eqs, qidx))
        self._names = names
        self.n_equations = sum(len(b.bmonos) for b in self.blocks)
        self._powers: dict[tuple[tuple[tuple[int, ...], ...], Mono], dict[Mono, int]] = {}
        self._ids = ids

    # ---- the Template interface ----

    def variables(self) -> list[str]:
        """c (``V[a]``), T, delta, then per unbounded region its Gram matrices Q and slacks n."""
        return list(self._names)

    def formula(self, theta: Sequence[Fraction]) -> str:
        """The quartic form, e.g. ``V = 1*x1^4 + 2*x1^2*x2^2 + 1*x2^4``."""
        xs = [f"x{s}" for s in self._ids]
        terms = [f"{v}*{mono_str(a, xs)}" for a, v in zip(self.vmonos, theta) if v]
        return "V = " + (" + ".join(terms) if terms else "0")

    # ---- exact pieces shared by the checker and the rounding ----

    def _t_matrix(self, theta: Sequence[Fraction]) -> list[list[Fraction]]:
        m2 = len(self.qmonos)
        T = [[Fraction(0)] * m2 for _ in range(m2)]
        for t, (i, j) in enumerate(self.tpairs):
            T[i][j] = T[j][i] = Fraction(theta[self.toff + t])
        return T

    def _v_slacks(self, theta: Sequence[Fraction]) -> list[Fraction]:
        """w_a = c_a - (coefficient of x^a in m(x)'T m(x)), per quartic monomial."""
        return [
            Fraction(theta[k]) - sum((co * Fraction(theta[idx]) for idx, co, _ in self.teqs[k]), Fraction(0))
            for k in range(len(self.vmonos))
        ]

    def _power(self, G: tuple[tuple[int, ...], ...], alpha: Mono) -> dict[Mono, int]:
        key = (G, alpha)
        p = self._powers.get(key)
        if p is None:
            p = self._powers[key] = linear_power(G, alpha)
        return p

    def _drift_polys(self, theta: Sequence[Fraction]) -> tuple[list[dict[Mono, int]], int]:
        """AV on every block's region as {monomial: integer}, and the common denominator.

        AV(x) = sum_d rate_d (V(x + d) - V(x)) exactly, with rates from the chain's
        scaled integers (true rate = value / chain.scale).
        """
        c = [Fraction(theta[k]) for k in range(len(self.vmonos))]
        cden = lcm(*(v.denominator for v in c))
        cint = {a: int(v * cden) for a, v in zip(self.vmonos, c)}
        cache: dict[Jump, dict[Mono, int]] = {}
        out = []
        for blk in self.blocks:
            av: dict[Mono, int] = defaultdict(int)
            for d, rate in self.drifts[blk.region].jumps():
                jp = cache.get(d)
                if jp is None:
                    jp = cache[d] = jump_poly(cint, d)
                for e, co in jp.items():
                    av[e] += rate * co
            out.append(av)
        return out, cden * self.chain.scale

    def _lhs(self, blk: _Block, av: dict[Mono, int], den: int, delta: Fraction) -> list[Fraction]:
        """Coefficients of -C_R(G lam) - delta (sum lam)^3, in ``blk.bmonos`` order."""
        acc: dict[Mono, int] = defaultdict(int)
        for a, co in av.items():
            if co and sum(a) == 3:
                for b, e in self._power(blk.G, a).items():
                    acc[b] += co * e
        return [Fraction(-acc.get(b, 0), den) - delta * multinomial(b) for b in blk.bmonos]

    def _gen_mono(self, blk: _Block, b: Mono) -> str:
        names = ["lam{" + ",".join(self._ids[i] for i, v in enumerate(g) if v) + "}" for g in blk.G]
        return mono_str(b, names)

    def check_side(self, theta: Sequence[Fraction]) -> list[str]:
        """V >= 0 on the orthant: T PSD (exact LDL^T) and every w_a = c_a - (m'Tm)_a >= 0."""
        out = []
        res = ldl_psd(self._t_matrix(theta))
        if not res.psd:
            assert res.pivot is not None
            out.append(f"V >= 0: Gram matrix T is not PSD ({res.reason}, at monomial {exponent_str(self.qmonos[res.pivot])})")
        xs = [f"x{s}" for s in self._ids]
        for a, w in zip(self.vmonos, self._v_slacks(theta)):
            if w < 0:
                out.append(f"V >= 0: coefficient of {mono_str(a, xs)} minus its part in m(x)'T m(x) is {w} (must be >= 0)")
        return out

    def exact_drift(
        self, theta: Sequence[Fraction], levels: dict[int, int], max_failures: int = 5
    ) -> tuple[list[str], DriftFacts]:
        """The identities of the theorem, region by region, and the exceptional-set bound N."""
        J, ids = self.chain.J, self._ids
        theta = [Fraction(t) for t in theta]
        facts = DriftFacts(len(self.drifts), self.n_equations)
        if self.chain.has_phases:  # V would ignore the phases: not covered by the theorem
            return ["the quartic template does not handle phase-type chains"], facts
        if not self.blocks:
            return ["no unbounded region: nothing to check"], facts
        failures: list[str] = []
        bad = 0

        def fail(msg: str) -> None:
            nonlocal bad
            bad += 1
            if bad <= max_failures:
                failures.append(msg)

        delta = theta[self.idelta]
        if delta <= 0:
            fail(f"delta = {delta} (must be > 0)")
        L = vertex_bound(J, levels)
        N = Fraction(J * L + 1)
        polys, den = self._drift_polys(theta)
        for blk, av in zip(self.blocks, polys):
            where = f"region {self.drifts[blk.region].describe(ids)} (r{blk.region})"
            for k, ent in enumerate(blk.qidx):
                Q = [[Fraction(0)] * blk.K for _ in range(blk.K)]
                for i, j, idx in ent:
                    Q[i][j] = Q[j][i] = theta[idx]
                res = ldl_psd(Q)
                if not res.psd:
                    fail(f"{where}: Gram matrix of generator {k} is not PSD ({res.reason})")
            lhs = self._lhs(blk, av, den, delta)
            for m, b in enumerate(blk.bmonos):
                n = theta[blk.noff + m]
                if n < 0:
                    fail(f"{where}: n of {self._gen_mono(blk, b)} is {n} (must be >= 0)")
                rhs = n + sum((co * theta[idx] for idx, co, _ in blk.eqs[m]), Fraction(0))
                if rhs != lhs[m]:
                    fail(
                        f"{where}: identity fails at {self._gen_mono(blk, b)}: -C - delta (sum lam)^3 has {lhs[m]}, "
                        f"the SOS side {rhs}"
                    )
            if delta > 0:
                A = [Fraction(0)] * 4
                for a, co in av.items():
                    A[sum(a)] += Fraction(abs(co), den)
                e2 = 3 * L * A[3] + A[2]
                e1 = 3 * L * L * A[3] + 2 * L * A[2] + A[1]
                e0 = L**3 * A[3] + L * L * A[2] + L * A[1] + A[0]
                h = max(sum(g) for g in blk.G)
                s0 = max(Fraction(1), h**3 * (e2 + e1 + e0 + delta) / delta)
                N = max(N, J * L + s0)
        if bad > max_failures:
            failures.append(f"... and {bad - max_failures} more violated conditions")
        if not failures:
            facts = DriftFacts(facts.regions, facts.rows, delta, Fraction(ceil(N)))
        return failures, facts

    # ---- the readable proof ----

    def explain_function(self, theta: Sequence[Fraction], max_rows: int) -> FunctionText:
        """The quartic form, and why it is nonnegative (the Gram matrix T and the slacks w); every coefficient in the appendix."""
        V = poly_tex(dict(zip(self.vmonos, theta)), self._ids)
        m2 = len(self.qmonos)
        why = Sentence((
            "V is nonnegative on the orthant: V(x) = m(x)'T m(x) + sum_a w_a x^a with m(x) the degree-2 monomials, "
            f"T positive semidefinite (exact LDL' factorisation, {m2} x {m2}) and every w_a >= 0 "
            f"(the least is {min(self._v_slacks(theta))}).",
        ))
        every = Coefficients(tuple(self.variables()), tuple(theta), "Every coefficient")
        return FunctionText((Formulas((f"V(x) = {V}",)), why), (Appendix("The Gram matrices and multipliers", (every,)),))

    def explain_drift(self, theta: Sequence[Fraction], delta: Fraction) -> DriftText:
        """Per unbounded region: AV exactly (a cubic), the cone generators, the least n of its SOS identity."""
        ids = self._ids
        polys, den = self._drift_polys(theta)
        rows: list[tuple[Fraction, tuple[Part, ...]]] = []
        for blk, av in zip(self.blocks, polys):
            least = min((Fraction(theta[blk.noff + m]) for m in range(len(blk.bmonos))), default=Fraction(0))
            poly = poly_tex({a: Fraction(co, den) for a, co in av.items()}, ids)
            gens = ", ".join(set_tex([ids[k] for k in range(len(g)) if g[k]]) for g in blk.G)
            rows.append((least, (f"r{blk.region}", region_cell(self.drifts[blk.region], ids), Tex(gens), Tex(f"AV(x) = {poly}"),
                                 Tex(frac_tex(least)))))
        rows.sort(key=lambda row: row[0])
        method = Sentence((
            "On each unbounded region R with generators g_1..g_K, writing y = sum_k lam_k g_k, the identity ",
            Tex("-C_R(y) - \\delta (\\textstyle\\sum_k \\lambda_k)^3 = "
                "\\sum_k \\lambda_k \\lambda' Q_{R,k} \\lambda + \\sum_{b} n_{R,b} \\lambda^b"),
            " holds coefficient by coefficient, with ", Tex(f"\\delta = {frac_tex(delta)}"),
            ", every Q_{R,k} positive semidefinite (exact LDL') and every n_{R,b} >= 0; C_R is the cubic part of AV on R. "
            f"({self.n_equations} identities.) So the cubic part decreases at least like -delta (|y|_1/J)^3, and AV(x) <= -delta far out:",
        ))
        hence = ("Hence, with the lower-degree part of AV on R bounded from its coefficients at the points p (the bound "
                 "of certify.templates.polynomial), ", Tex("AV(x) \\le -\\delta s^3/h^3 + e_2 s^2 + e_1 s + e_0"),
                 " with ", Tex(f"s = {norm_tex()} - JL"), "; taken over the regions, ")
        return DriftText(method, ("", "region", "cone generators", "drift on the region (exact)", "least n_b"),
                         tuple(cells for _, cells in rows), hence)

    # ---- numeric search and rounding ----

    def candidates(self, theta: Sequence[float]) -> Iterator[list[Fraction]]:
        """Peyrl–Parrilo roundings (:meth:`round`) on each grid of ``DENOMINATORS``, coarse first.

        Parameters
        ----------
        theta : sequence of float
            The SDP's solution, in :meth:`variables` order.

        Yields
        ------
        list of Fraction
            A candidate whose identities hold exactly (PSD is left to the check).
        """
        x = [float(v) for v in theta]
        for D in DENOMINATORS:
            yield self.round(x, D)

    def round(self, x: Sequence[float], D: int) -> list[Fraction]:
        """Round a float solution to the grid 1/D and make every identity hold exactly.

        c and delta are rounded first (delta a little down), which fixes every left
        side; then per monomial the slack (n, or w on the V side) takes the
        residual when it can, else the Gram entries of that monomial are projected
        (:func:`certify.templates.gram.fit_with_slack`).

        Parameters
        ----------
        x : sequence of float
            A float solution, in :meth:`variables` order.
        D : int
            The grid's denominator.

        Returns
        -------
        list of Fraction
            The rounded coefficients (see the class example).
        """
        th = round_to_grid(x, D)
        th[self.idelta] = Fraction(floor(x[self.idelta] * (1 - DELTA_SHAVE) * D), D)
        vals = dict(enumerate(th))
        for k in range(len(self.vmonos)):
            changed, _ = fit_with_slack(vals, self.teqs[k], th[k])
            vals.update(changed)
        th = [vals[k] for k in range(len(th))]
        polys, den = self._drift_polys(th)
        delta = th[self.idelta]
        for blk, av in zip(self.blocks, polys):
            lhs = self._lhs(blk, av, den, delta)
            for m in range(len(blk.bmonos)):
                changed, slack = fit_with_slack(vals, blk.eqs[m], lhs[m])
                vals.update(changed)
                vals[blk.noff + m] = slack
        return [vals[k] for k in range(len(th))]
