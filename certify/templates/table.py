"""Linear x bounded-table corrections: V = x'Px + sum_l x_l T_l(min(x_F, K)) (docs/math/foster.md).

A bounded function of the small ("fast") coordinates times a linear function
plays the part of a Poisson-equation solution for the nearly-tied stations, so
the certificate sees tie-breaking probabilities, which no polynomial can.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import TYPE_CHECKING

from ..core.errors import CertificateError
from ..core.jsontypes import JsonObject, JsonValue
from ..core.latex import station_tex
from ..core.numbers import over_common_denominator
from ..markov.chain import Chain
from ..markov.drift import Clip, RegionDrift, cell_moves, cell_of, clip_levels
from .linear import SideRow
from .options import MAX_REFINEMENT, clip_level, refinement_factor, station_list
from .quadratic import Quadratic
from .readable import Appendix, Coefficients, Formulas, FunctionText, Sentence

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

__all__ = ["table_text", "LinearTable", "TableOptions", "table_options", "table_cells", "cell_name", "default_fast"]


def table_cells(chain: Chain, fast: Sequence[int], K: Clip) -> list[tuple[int, ...]]:
    """Cells (min(x_fast, K), phases) of a table; a phase-type station's phase is empty (-1) iff its x is 0.

    Parameters
    ----------
    chain : Chain
        The chain (its phase space gives the phase part).
    fast : sequence of int
        The stations whose clipped queue lengths index the table.
    K : int or tuple of int
        The clip level (one per station of ``fast``, or one for all).

    Returns
    -------
    list of tuple of int
        The cells: the clipped levels, then the phase vector.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> table_cells(ch, [0, 1], 1)
    [(0, 0), (0, 1), (1, 0), (1, 1)]
    >>> table_cells(ch, [0, 1], (2, 1))
    [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]
    """
    cells = []
    phases = chain.phase_space()
    ph_pos = {i: k for k, i in enumerate(chain.ph_stations)}
    for c in product(*(range(k + 1) for k in clip_levels(fast, K))):
        for phi in phases:
            if all((c[k] == 0) == (phi[ph_pos[a]] < 0) for k, a in enumerate(fast) if a in ph_pos):
                cells.append(tuple(c) + tuple(phi))
    return cells


def cell_name(c: Sequence[int], nfast: int) -> str:
    """The name of a table cell in coefficient names: ``1,0`` for clip levels, phases after a ``;``.

    Parameters
    ----------
    c : sequence of int
        The cell (clipped levels, then phases; ``-1`` = empty station).
    nfast : int
        How many entries are clipped levels.

    Returns
    -------
    str
        E.g. ``1,0`` or ``1;0,-1``.

    Examples
    --------
    >>> cell_name((1, 0), 2), cell_name((1, 0, -1), 1)
    ('1,0', '1;0,-1')
    """
    head = ",".join(map(str, c[:nfast]))
    return head + (";" + ",".join(map(str, c[nfast:])) if len(c) > nfast else "")


def default_fast(chain: Chain) -> list[int]:
    """The stations whose small queue lengths the table follows, chosen from the routing graph.

    Candidates are the stations that share a choice set.  With more than two,
    the table keeps only the choice sets whose members are *distinguishable*
    to the rest of the network: they route their output differently (feedback
    rows differ) or one of them has phase-type service.  When the members of a
    set are interchangeable downstream, which of them serves does not change any
    other station's input, and the quadratic part already accounts for their
    queue lengths (Bramson's and the homogeneous-feedback criteria are exact for
    quadratics).  If no set is distinguishable, all candidates are kept.

    Parameters
    ----------
    chain : Chain
        The chain.

    Returns
    -------
    list of int
        The fast stations, by index.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> # stations 0,1 share a stream and 0 feeds 2; stations 2,3 share another and both leave
    >>> ch = Chain(("1", "2", "3", "4"), (F(1),) * 4, (((0, 1), F(1)), ((2, 3), F(1))), ((0, (2,), F(1)),),
    ...            (F(0), F(1), F(1), F(1)))
    >>> default_fast(ch)
    [0, 1]
    """
    shared = sorted({j for C in chain.routing_sets for j in C})
    if len(shared) <= 2:
        return shared
    phased = set(chain.ph_stations)

    def row(i: int) -> tuple[Fraction, tuple[tuple[tuple[int, ...], Fraction], ...]]:
        return chain.leave[i], tuple(sorted((C, p) for j, C, p in chain.feedback if j == i))

    keep = {
        j
        for C in chain.routing_sets
        if len({row(i) for i in C}) > 1 or phased & set(C)
        for j in C
    }
    return sorted(keep) if keep else shared


@dataclass(frozen=True)
class TableOptions:
    """The canonical options of the table template: the clip level, the fast stations, the multipliers.

    Attributes
    ----------
    K : int
        The clip level (1..MAX_CLIP_LEVEL).
    fast : tuple of str
        The stations whose levels min(x_i, K) index the table, in the network's order.
    multipliers : tuple of str
        The stations l of the terms x_l T_l, in the network's order.

    Examples
    --------
    >>> TableOptions(2, ("1", "2"), ("1",)).to_json()
    {'K': 2, 'fast': ['1', '2'], 'multipliers': ['1']}
    """

    K: int
    fast: tuple[str, ...]
    multipliers: tuple[str, ...]

    def to_json(self) -> JsonObject:
        """The options as certificates store them.

        Returns
        -------
        dict
            ``{"K": ..., "fast": [...], "multipliers": [...]}``.
        """
        return {"K": self.K, "fast": list(self.fast), "multipliers": list(self.multipliers)}


def table_options(chain: Chain, options: Mapping[str, JsonValue]) -> TableOptions:
    """The table template's options with defaults filled in, every option validated.

    ``K`` is an integer in 1..MAX_CLIP_LEVEL (default 6), ``fast`` (default
    :func:`default_fast`) and ``multipliers`` (default all stations) distinct
    known station ids in the network's order, and the table within MAX_REFINEMENT.

    Parameters
    ----------
    chain : Chain
        The chain the options are for.
    options : mapping
        The options as given.

    Returns
    -------
    TableOptions
        The canonical options.

    Raises
    ------
    CertificateError
        When an option is unknown or invalid, or the table would be too large.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> table_options(ch, {"K": 2})
    TableOptions(K=2, fast=('1', '2'), multipliers=('1', '2'))
    """
    unknown = set(options) - {"K", "fast", "multipliers"}
    if unknown:
        raise CertificateError(None, "options", f"unknown option(s) {sorted(unknown)} (template table takes K, fast, multipliers)")
    K = clip_level(options.get("K", 6), "options.K")
    raw_fast = options.get("fast")
    fast = [chain.ids[j] for j in default_fast(chain)] if raw_fast is None else station_list(chain, raw_fast, "options.fast")
    if not fast and not chain.has_phases:
        raise CertificateError(None, "options.fast",
                               f"{fast!r} names no station and the chain has no phases: the table needs fast stations (or phases)")
    raw_mult = options.get("multipliers")
    mult = list(chain.ids) if raw_mult is None else station_list(chain, raw_mult, "options.multipliers", nonempty=True)
    levels = dict(chain.base_levels)
    for s in fast:
        a = chain.ids.index(s)
        levels[a] = max(levels.get(a, 0), K)
    size = refinement_factor(levels)
    cells = (K + 1) ** len(fast) * chain.phase_vectors
    if size > MAX_REFINEMENT or cells * len(mult) > MAX_REFINEMENT:
        raise CertificateError(
            None,
            "options",
            f"K = {K} with {len(fast)} fast station(s) would cut each region into {size} pieces and need "
            f"{cells * len(mult)} table values (at most {MAX_REFINEMENT} each)",
        )
    return TableOptions(K, tuple(fast), tuple(mult))


class LinearTable(Quadratic):
    """V(x) = x'Px + sum_{l in L} x_l T_l[min(x_a, K) for a in F].

    Options: ``K`` (clip level, default 6), ``fast`` (station ids F, default the
    stations sharing a choice set), ``multipliers`` (station ids L, default all).
    The regions are refined by the levels x_a = 0..K or x_a >= K+1 of the fast
    stations; on each refined region the cell c = min(x_F, K) is constant and so
    is every jump's target cell, so along a cone generator g the drift slope is
    2 (Pm)'g + sum_l g_l sum_d rate_d (T_l[c + d] - T_l[c]): linear in (P, T).
    V is bounded below because P is required *strictly* diagonally dominant plus
    nonnegative (x'Px >= eps ``|x|^2``) and T is bounded.

    Parameters
    ----------
    chain : Chain
        The chain to certify.
    drifts : sequence of RegionDrift
        Its drifts on the regions refined by :meth:`clip_levels`.
    **options
        ``K``, ``fast``, ``multipliers`` (see :meth:`resolve_options`).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> from certify.markov.drift import compile_drifts
    >>> from certify.markov.regions import enumerate_regions
    >>> net = Network("jsq2", (Station("1", F(1)), Station("2", F(1))), (Stream(F(3, 2), choice=("1", "2")),))
    >>> chain = compile_chain(net)
    >>> opts = LinearTable.resolve_options(chain, {"K": 2})
    >>> opts, LinearTable.label(opts)
    ({'K': 2, 'fast': ['1', '2'], 'multipliers': ['1', '2']}, 'table (K=2)')
    >>> levels = LinearTable.clip_levels(chain, opts)
    >>> tmpl = LinearTable(chain, compile_drifts(chain, enumerate_regions(chain, levels)), **opts)
    >>> tmpl.variables()[3:6], len(tmpl.variables())
    (['T[1|0,0]', 'T[1|0,1]', 'T[1|0,2]'], 21)
    """

    name = "table"
    supports_symmetry = False  # the table over the fast stations has no invariant form yet
    summary = "V = x'Px + sum_l x_l T_l(min(x_fast, K)), an LP over regions x cells"

    def proved(self, theta: Sequence[Fraction]) -> str:
        """V with its table's argument named (``min(x_{1,2}, 6)``, ``phases``).

        Parameters
        ----------
        theta : sequence of Fraction
            The certificate's coefficients (unused: the phrase names the shape).

        Returns
        -------
        str
            One phrase.

        Examples
        --------
        >>> from certify.io.loader import load
        >>> from certify.markov.chain import compile_chain
        >>> from certify.proof.context import ProofContext
        >>> ctx = ProofContext.for_file("models/tie-breaking-J3.json")
        >>> opts = LinearTable.resolve_options(ctx.chain, {"fast": ["1", "2"], "K": 2})
        >>> LinearTable(ctx.chain, ctx.regions.get(LinearTable.clip_levels(ctx.chain, opts)), **opts).proved([])
        "V = x'Px + sum_l x_l T_l[min(x_{1,2}, 2)]"
        """
        return f"V = x'Px + sum_l x_l T_l[{table_text(self.chain, self.fast, self.K)}]"

    @classmethod
    def resolve_options(cls, chain: Chain, options: Mapping[str, JsonValue]) -> JsonObject:
        """Defaults filled in, every option validated (:func:`table_options`), as JSON.

        Parameters
        ----------
        chain : Chain
            The chain the options are for.
        options : mapping
            The options as given.

        Returns
        -------
        dict
            ``{"K": ..., "fast": [...], "multipliers": [...]}``.

        Raises
        ------
        CertificateError
            When an option is unknown or invalid, or the table would be too large.
        """
        return table_options(chain, options).to_json()

    @classmethod
    def escalation(cls, chain: Chain) -> list[JsonObject]:
        """Phases only (phase-type chains), then growing K while the fast stations share a choice set."""
        steps: list[JsonObject] = [{"fast": []}] if chain.has_phases else []
        if not default_fast(chain):
            return steps  # no station shares a choice set: nothing for a table of queue levels
        return steps + ([{"K": 6}, {"K": 12}, {"K": 24}, {"K": 36}] if len(default_fast(chain)) <= 2 else [{"K": 4}, {"K": 6}])

    @classmethod
    def label(cls, options: Mapping[str, JsonValue]) -> str:
        """``table (K=6)``, or ``table (phases only)`` without fast stations."""
        return f"{cls.name} (K={options['K']})" if options["fast"] else f"{cls.name} (phases only)"

    @classmethod
    def table_level(cls, chain: Chain, options: Mapping[str, JsonValue]) -> int | None:
        """K, or 0 for a table of phases only."""
        opts = table_options(chain, options)
        return opts.K if opts.fast else 0

    @classmethod
    def clip_levels(cls, chain: Chain, options: Mapping[str, JsonValue]) -> dict[int, int]:
        """K at every fast station (and the chain's base levels)."""
        opts = table_options(chain, options)
        levels = dict(chain.base_levels)
        for s in opts.fast:
            a = chain.ids.index(s)
            levels[a] = max(levels.get(a, 0), opts.K)
        return dict(sorted(levels.items()))

    def __init__(self, chain: Chain, drifts: Sequence[RegionDrift], **options: JsonValue):
        super().__init__(chain, drifts, **options)
        ids = chain.ids
        opts = table_options(chain, self.options)
        self.K = opts.K
        self.fast = [ids.index(s) for s in opts.fast]
        self.mult = [ids.index(s) for s in opts.multipliers]
        self.cells = table_cells(chain, self.fast, self.K)
        base = len(self.pairs)
        self.tpos = {(l, c): base + a * len(self.cells) + k for a, l in enumerate(self.mult) for k, c in enumerate(self.cells)}
        self.nq = base
        self._moves = [self._cell_moves(rd) for rd in drifts]

    def strict_side(self) -> bool:
        """True: P strictly diagonally dominant, so that x'Px dominates the bounded table."""
        return True

    def variables(self) -> list[str]:
        """The quadratic's ``P[i,j]``, then ``T[l|cell]`` per multiplier l and cell."""
        ids = self.chain.ids
        nf = len(self.fast)
        tnames = [f"T[{ids[l]}|{cell_name(c, nf)}]" for l in self.mult for c in self.cells]
        return [*super().variables(), *tnames]

    def variable_bounds(self) -> list[Fraction]:
        """1 for P, 50 for the table values."""
        return [Fraction(1)] * self.nq + [Fraction(50)] * (len(self.mult) * len(self.cells))

    def _cell_moves(self, rd: RegionDrift) -> tuple[tuple[int, ...], dict[tuple[int, ...], int], int]:
        if not rd.generators:
            return cell_of(rd, self.fast, self.K), {}, 0
        return cell_moves(rd, self.fast, self.K)

    # The shared part with the quadratic: theta[:nq] is P.
    def _integer_theta(self, theta: Sequence[Fraction]) -> tuple[list[int], int]:
        return over_common_denominator(theta)

    def _q_values(self, T: Sequence[int], k: int) -> dict[int, int]:
        """sum_d rate_d (T_l[c+d] - T_l[c]) for each multiplier l, in scaled integers."""
        c, moves, tot = self._moves[k]
        out = {}
        for l in self.mult:
            v = sum(r * T[self.tpos[(l, c2)]] for c2, r in moves.items()) - tot * T[self.tpos[(l, c)]]
            out[l] = v
        return out

    def row_values(self, theta: Sequence[Fraction]) -> tuple[list[int], int]:
        """The slopes 2 (Pm)'g + sum_l g_l (table drift of T_l), exactly (scaled integers)."""
        J = self.chain.J
        ints, den = self._integer_theta(theta)
        P = [[ints[self._k(i, j)] for j in range(J)] for i in range(J)]
        out = []
        for k, rd in enumerate(self.drifts):
            if not rd.generators:
                continue
            m = rd.mean
            Pm = [2 * sum(P[j][i] * m[i] for i in range(J) if m[i]) for j in range(J)]
            Q = self._q_values(ints, k)
            for l, v in Q.items():
                Pm[l] += v
            for g in rd.generators:
                out.append(sum(Pm[j] for j in range(J) if g[j]))
        return out, den * self.chain.scale

    def lp_matrix(self) -> csr_matrix:
        """The slopes on the columns (P, T, auxiliaries)."""
        import numpy as np
        import scipy.sparse as sp

        quad = super().lp_matrix().tocsr()
        D = self.chain.scale
        nT = len(self.mult) * len(self.cells)
        rows, cols, vals = [], [], []
        r = 0
        for k, rd in enumerate(self.drifts):
            c, moves, tot = self._moves[k]
            for g in rd.generators:
                for l in self.mult:
                    if not g[l]:
                        continue
                    for c2, rate in moves.items():
                        rows.append(r)
                        cols.append(self.tpos[(l, c2)] - self.nq)
                        vals.append(rate / D)
                    if tot:
                        rows.append(r)
                        cols.append(self.tpos[(l, c)] - self.nq)
                        vals.append(-tot / D)
                r += 1
        table = sp.csr_matrix((np.array(vals, dtype=float), (rows, cols)), shape=(r, nT))
        nq, naux = self.nq, len(self.off)
        # column order: P (nq), T (nT), aux (naux); the quadratic matrix is [P | aux]
        return sp.hstack([quad[:, :nq], table, quad[:, nq : nq + naux]]).tocsr()

    def side_rows(self) -> list[SideRow]:
        """The quadratic's copositivity rows, their auxiliaries moved after the table values."""
        # The quadratic's auxiliaries sit after all coefficients (P and T): shift their indices.
        shift = len(self.mult) * len(self.cells)
        out = []
        for row in super().side_rows():
            coeffs = tuple((k + shift if k >= self.nq else k, v) for k, v in row.coeffs)
            out.append(type(row)(coeffs, row.rhs, row.margin))
        return out

    def affine_drifts(self, theta: Sequence[Fraction]) -> tuple[list[tuple[list[int], int]], int]:
        """AV <= (a'x + c)/s: a = 2Pm + (table drift on the multipliers); c bounds the rest.

        The constant collects sum_d rate_d d'Pd <= 4 max|P| per unit rate and
        sum_d rate_d sum_l d_l T_l[c + d] <= 2 max|T| per unit rate.
        """
        J = self.chain.J
        ints, den = self._integer_theta(theta)
        P = [[ints[self._k(i, j)] for j in range(J)] for i in range(J)]
        bigP = max(abs(v) for v in ints[: self.nq])
        bigT = max((abs(v) for v in ints[self.nq :]), default=0)
        c = int((4 * bigP + 2 * bigT) * self.chain.total_rate * self.chain.scale) + 1
        out = []
        for k, rd in enumerate(self.drifts):
            m = rd.mean
            a = [2 * sum(m[i] * P[i][j] for i in range(J) if m[i]) for j in range(J)]
            if rd.generators:
                for l, v in self._q_values(ints, k).items():
                    a[l] += v
            out.append((a, c))
        return out, den * self.chain.scale

    def formula(self, theta: Sequence[Fraction]) -> str:
        """The quadratic part written out, and the shape of the tables."""
        ids = self.chain.ids
        F = ",".join(ids[a] for a in self.fast)
        arg = ", ".join(([f"min(x_{{{F}}}, {self.K})"] if self.fast else []) + (["phases"] if self.chain.has_phases else []))
        return super().formula(theta[: self.nq]) + f" + sum_l x_l T_l[{arg}] ({len(self.mult)} tables of {len(self.cells)} cells)"

    def explain_function(self, theta: Sequence[Fraction], max_rows: int) -> FunctionText:
        """x'Px plus the tables, their cells, the diagonal dominance; the table values go to the appendix."""
        ids = self.chain.ids
        arg = ", ".join(f"\\min({station_tex(ids[a])}, {self.K})" for a in self.fast)
        phases = "\\varphi" if self.chain.has_phases else ""
        mult = ", ".join(ids[m] for m in self.mult)
        targs = ", ".join(a for a in (arg, phases) if a)
        vargs = ", ".join(a for a in ("x", phases) if a)
        v = f"V({vargs}) = {self._quadratic_tex(theta[: self.nq])} + \\sum_{{l \\in \\{{{mult}\\}}}} x_{{l}}\\, T_{{l}}({targs})"
        cells = Sentence((
            f"The tables T_l have {len(self.cells)} cells each: the fast stations {', '.join(ids[a] for a in self.fast) or 'none'} "
            f"clipped at K = {self.K}" + (", and the phase vector" if phases else "") + "; their exact values are in the appendix.",
        ))
        values = Coefficients(tuple(self.variables()[self.nq :]), tuple(theta[self.nq :]), "The table values T[l|cell]")
        return FunctionText((Formulas((v,)), cells, *self._dominance_text(theta)), (Appendix("The tables of V", (values,)),))


def table_text(chain: Chain, fast: list[int] | list[str], K: int) -> str:
    """The table argument named: ``min(x_{1,2}, 12), phases`` (fast given by index or id).

    Parameters
    ----------
    chain : Chain
        The Markovian chain.
    fast : list of int or list of str
        The fast stations (indices or ids).
    K : int
        The clip level.

    Returns
    -------
    str
        The argument of the table, in words.

    Examples
    --------
    >>> from certify.io.loader import load
    >>> from certify.markov.chain import compile_chain
    >>> table_text(compile_chain(load("models/symmetric-jsq-J4.json")), [0, 1], 12)
    'min(x_{1,2}, 12)'
    """
    ids = [chain.ids[a] if isinstance(a, int) else a for a in fast]
    parts = ([f"min(x_{{{','.join(ids)}}}, {K})"] if ids else []) + (["phases"] if chain.has_phases else [])
    return ", ".join(parts)
