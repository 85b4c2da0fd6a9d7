"""The readable proof of a growth certificate: f = w'x (+ a bounded table) grows, so the chain is transient.

:func:`explain_growth` (kind ``growth``): f with bounded increments and
Af >= delta on {f > level}: transient by the Fayolle–Malyshev–Menshikov
criterion (Thm 2.2.7), hence not positive recurrent.  Each region's Af is
recomputed with the checker's exact functions
(:func:`~certify.exact.growth.growth_drift`, :func:`~certify.markov.drift.compile_drifts`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import NamedTuple

from ..core.latex import frac_tex, linear_tex, region_tex, set_tex, station_tex, vector_tex
from ..core.render import plural
from ..exact.facts import GrowthFacts
from ..exact.growth import GrowthDrift, growth_drift, growth_levels
from ..markov.chain import Chain
from ..markov.cones import vertex_bound
from ..markov.drift import Clip, RegionDrift, clip_levels, compile_drifts
from ..markov.phases import PhaseChain
from ..markov.regions import enumerate_regions
from ..templates.table import table_cells
from .common import Context, claim_section, hypotheses_section, network_section, reachability_para, recheck_section
from .document import Block, Display, Inline, Math, Proof, Section, Table, joined, para, summarised

__all__ = ["explain_growth"]

FMM = (
    "G. Fayolle, V. A. Malyshev and M. V. Menshikov, Topics in the Constructive Theory of Countable Markov Chains, "
    "Cambridge University Press, 1995, Theorem 2.2.7"
)


class _Region(NamedTuple):
    """One region of the checker's refinement and f's drift there (exact, as the checker computes it)."""

    rd: RegionDrift
    gd: GrowthDrift


def _growth_regions(
    chain: Chain, w: Sequence[Fraction], table: Mapping[tuple[int, ...], Fraction] | None, fast: Sequence[int], K: Clip
) -> tuple[list[_Region], dict[int, int]]:
    """The regions check_growth compiles, each with Af (constant on it) split as w'm_R + table term."""
    levels = growth_levels(chain, fast, K) if table is not None else dict(chain.base_levels)
    drifts = compile_drifts(chain, enumerate_regions(chain, levels))
    return [_Region(rd, growth_drift(chain, rd, w, table, fast, K)) for rd in drifts], levels


def _phases(chain: Chain, rd: RegionDrift) -> str:
    names = chain.phase_names() if isinstance(chain, PhaseChain) else []
    return ", ".join(f"{n}: {'empty' if v < 0 else v + 1}" for n, v in zip(names, rd.phase))


def _state(chain: Chain, rd: RegionDrift) -> str:
    x = str(rd.region.point())
    return f"x = {x}, phase indices ({', '.join(map(str, rd.phase))})" if chain.has_phases else x


def _region_cells(chain: Chain, reg: _Region) -> list[Inline]:
    names = [station_tex(s) for s in chain.ids]
    cells: list[Inline] = [Math(region_tex(reg.rd.region.describe(chain.ids, names)))]
    if chain.has_phases:
        cells.append(_phases(chain, reg.rd))
    return cells


def explain_growth(ctx: Context) -> Proof:
    """The proof of a growth certificate: f in closed form, Af on every region where f is unbounded, the level.

    Parameters
    ----------
    ctx : Context
        A verified ``growth`` certificate.

    Returns
    -------
    Proof
        Titled ``NAME is not positive recurrent (transient): a growth function``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.certificates import growth_certificate
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.exact import check_growth
    >>> from certify.explain import explain
    >>> from certify.markov.chain import compile_chain
    >>> over = Network("over", (Station("1", F(1)),), (Stream(F(2), choice=("1",)),))
    >>> chain = compile_chain(over)
    >>> proof = explain(over, growth_certificate(over, chain, [F(1)], check_growth(chain, [F(1)])))
    >>> proof.title
    'over is not positive recurrent (transient): a growth function'
    """
    chain, w = ctx.reading.args[0], list(ctx.reading.args[1])
    table = ctx.reading.kwargs.get("table")
    fast, K = list(ctx.reading.kwargs.get("fast", [])), ctx.reading.kwargs.get("K", 0)
    facts: GrowthFacts = ctx.facts.checked
    ids, J = chain.ids, chain.J
    regions, levels = _growth_regions(chain, w, table, fast, K)
    grow = sorted((r for r in regions if r.gd.unbounded), key=lambda r: r.gd.drift)
    flat = [r for r in regions if not r.gd.unbounded]
    big_t = max((abs(v) for v in (table or {}).values()), default=Fraction(0))
    B, wsum, wmax = vertex_bound(J, levels), sum(w, Fraction(0)), max(w)
    lam = chain.total_rate
    wx = linear_tex(w, ids)
    phi = ", \\varphi" if chain.has_phases else ""
    clip = ", ".join(f"\\min({station_tex(ids[a])}, {k})" for a, k in zip(fast, clip_levels(fast, K)))
    arg = ", ".join(p for p in (clip, "\\varphi" if chain.has_phases else "") if p)
    maxt = "\\max\\lvert T\\rvert"
    f_tex = f"f(x{phi}) = {wx}" + (f" + T({arg})" if table is not None else "")
    t_tex = f" + {maxt}" if table is not None else ""
    d_tex = "2\\max_j w_j" + (f" + 2{maxt}" if table is not None else "")
    level_sum = B * wsum + big_t
    level_tex = f"{B} \\cdot {frac_tex(wsum)}" + (f" + {frac_tex(big_t)}" if table is not None else "")
    level_tex = f"{level_tex} = " if level_sum == facts.level else ""  # the checker's level, decomposed when it agrees
    inc_tex = f"2 \\cdot {frac_tex(wmax)}" + (f" + 2 \\cdot {frac_tex(big_t)}" if table is not None else "")
    inc_tex = f"{inc_tex} = " if 2 * wmax + 2 * big_t == facts.increment_bound else ""
    zero = ", ".join(["0"] * len(fast) + (["\\varphi"] if chain.has_phases else []))
    zero_tex = f"f(0{phi}) = T({zero}) \\le {maxt} \\le C" if table is not None else "f(0) = 0 \\le C"
    fed = [j for j in range(J) if w[j] > 0 and any(j in C for C, _ in chain.arrivals)]
    tight = grow[0] if grow else None

    statement: list[Block] = [
        para(
            "Let (X_n) be an irreducible Markov chain on a countable set and f a function on it. If for some ",
            Math("\\varepsilon > 0"), ", C and d: (i) the sets ", Math("\\{f > C\\}"), " and ", Math("\\{f \\le C\\}"),
            " are non-empty; (ii) ", Math("E[f(X_{n+1}) - f(X_n) \\mid X_n = x] \\ge \\varepsilon"), " whenever ",
            Math("f(x) > C"), "; (iii) ", Math("\\lvert f(X_{n+1}) - f(X_n)\\rvert \\le d"), "; then (X_n) is transient.",
        ),
        para(
            "It is applied to the uniformized chain of the CTMC: with ", Math(f"\\Lambda = {frac_tex(lam)}"),
            " (the total arrival and service rate, at least the jump rate out of any state) it jumps from x to y with "
            "probability ", Math("q(x, y)/\\Lambda"), ", so its expected increment is ", Math("Af(x)/\\Lambda"),
            ", where ", Math("Af(x) = \\sum_y q(x, y)\\,(f(y) - f(x))"),
            ". It is transient exactly when the CTMC is, and a transient chain is not positive recurrent.",
        ),
    ]
    checks = [
        para("Irreducibility. ", *reachability_para(chain).parts),
        para(
            "Bounded increments (iii). A jump adds, removes or moves one customer, so w'x changes by at most ",
            Math(f"\\max_j w_j = {frac_tex(wmax)}"),
            *(("; the table changes by at most ", Math(f"2{maxt} = {frac_tex(2 * big_t)}")) if table is not None else ()),
            ". The checker's bound is ", Math(f"d = {d_tex} = {inc_tex}{frac_tex(facts.increment_bound)}"), ".",
        ),
        para(
            f"Drift (ii). On each of the {plural(len(grow), 'region')} where f is unbounded (some generator g of the "
            "region's recession cone has ", Math("w^{\\top} g > 0"), ") every jump rate is constant, so Af is constant; "
            "it is at least ", Math(f"\\delta = {frac_tex(facts.delta)}"), " on each (the table below; the tightest is ",
            *(_region_cells(chain, tight)[:1] if tight else ["none"]), "). So ",
            Math(f"\\varepsilon = \\delta/\\Lambda = {frac_tex(facts.delta / lam)}"), ".",
        ),
        para(
            f"The level C. On each of the other {plural(len(flat), 'region')} every cone generator g has ",
            Math("w^{\\top} g = 0"), ", so w'x is at most its largest value at a vertex of the region; every vertex "
            "coordinate of every region is at most ", Math(f"B = {B}"),
            f" ({J} times the largest constant in the regions' constraints), so there ",
            Math(f"f \\le B \\sum_j w_j{t_tex} = {level_tex}{frac_tex(facts.level)} = C"), ". Hence ",
            Math("\\{f > C\\}"), " lies in the regions of (ii), where ", Math("Af \\ge \\delta"), ".",
        ),
        para(
            "Non-empty sets (i). ", Math(zero_tex), "; and the stations ", Math(set_tex([chain.ids[a] for a in fed])),
            " have exogenous arrivals and ", Math("w_j > 0"), ": a run of arrivals of one stream with no service "
            "completion (positive probability) raises every queue of its choice set without bound, so f is unbounded "
            "on the states reachable from the empty state.",
        ),
    ]
    f_blocks: list[Block] = [Display((f_tex,))]
    appendix: list[Section] = []
    if table is not None:
        cells = table_cells(chain, fast, K)
        pnames = chain.phase_names() if isinstance(chain, PhaseChain) else []
        head = (*(f"min(x{ids[a]}, {k})" for a, k in zip(fast, clip_levels(fast, K))), *(f"{n} (index)" for n in pnames), "T")
        rows: tuple[tuple[Inline, ...], ...] = tuple((*(str(v) for v in c), Math(frac_tex(table[c]))) for c in cells)
        appendix.append(Section("The table T", (Table(head, rows, f"The {len(cells)} values of the table T"),)))
        f_blocks.append(para(
            f"T is a bounded table with one value per cell ({len(cells)} cells; all in the appendix, \u201cThe table T\u201d), ",
            Math(f"\\max\\lvert T\\rvert = {frac_tex(big_t)}"), ". It corrects the drift of w'x by the average behaviour of the "
            "fast stations" + (" and the phases" if chain.has_phases else "") + ".",
        ))
    if chain.has_phases:
        f_blocks.append(para(
            f"The chain is the phase-type expansion of the network ({'; '.join(chain.expansion)}); ", Math("\\varphi"),
            " is its phase vector. In a cell (and in the certificate file) a phase is an index from 0, or -1 for an empty "
            "station; the tables' phase columns count phases from 1."
        ))
    f_blocks.append(para("The weights, exactly: ", *joined([Math(f"{station_tex(s, 'w')} = {frac_tex(v)}") for s, v in zip(ids, w)]), "."))

    ph_head = ("phases",) if chain.has_phases else ()
    tab_head = ("cell", "w'm_R", "table term") if table is not None else ()
    drift_rows = tuple(
        (*_region_cells(chain, r), _state(chain, r.rd), Math(vector_tex([Fraction(m, chain.scale) for m in r.rd.mean])),
         *((str(r.gd.cell), Math(frac_tex(r.gd.linear)), Math(frac_tex(r.gd.table))) if table is not None else ()),
         Math(frac_tex(r.gd.drift)), Math(frac_tex(r.gd.drift - facts.delta)))
        for r in grow
    )
    drift_table = Table(("region", *ph_head, "a state of it", "mean drift m_R", *tab_head, "Af", "slack Af - delta"),
                        drift_rows, "Af on every region where f is unbounded, tightest first")
    drift_blocks, app = summarised(drift_table, ctx.max_rows, "Drift of f on all regions where it is unbounded")
    appendix += app
    formula = ["Af(x) &= \\sum_{y} q(x, y)\\,(f(y) - f(x))"]
    formula.append("&= w^{\\top} m_R + \\sum_{c'} r_R(c, c')\\,(T(c') - T(c)) \\quad (x \\in R)" if table is not None
                   else "&= w^{\\top} m_R \\quad (x \\in R)")
    rates = " and r_R(c, c') the rate of the jumps from R's cell c into cell c'" if table is not None else ""
    drift_intro = para(
        "The state space is split into regions on which every jump rate is constant (which queues are shortest in each "
        "choice set, which are empty" + (", the levels of the table's stations" if table is not None else "")
        + (", the phases" if chain.has_phases else "") + f"): {plural(len(regions), 'region')}. On region R, with m_R the mean drift "
        f"(the expected change of x per unit time){rates}:"
    )
    flat_rows = tuple(
        (*_region_cells(chain, r), Math(", ".join(vector_tex(g) for g in r.rd.generators)) if r.rd.generators else "none (bounded)")
        for r in flat
    )
    flat_blocks, app = summarised(Table(("region", *ph_head, "cone generators g (each w'g = 0)"), flat_rows, "Regions where f is bounded"),
                                  ctx.max_rows, "All regions where f is bounded")
    appendix += app
    exceptional = [
        para("The set where the drift is not claimed is ", Math(f"\\{{f \\le {frac_tex(facts.level)}\\}}"),
             f"; it contains the {plural(len(flat), 'region')} on which f is bounded:"),
        *flat_blocks,
    ]
    independent = [para(
        "Independently: at the state listed in each row of the drift table (or at any state of its region), compute ",
        Math("Af(x) = \\sum_y q(x, y)\\,(f(y) - f(x))"), " from the network's rules (each arrival joins a shortest queue "
        "of its choice set, ties as stated; station j serves at rate ", Math("\\mu_j"), "; feedback as listed) and the "
        "certificate's w" + (" and T" if table is not None else "") + ": it equals the row's Af. Every state with ",
        Math(f"f > {frac_tex(facts.level)}"), " lies in one of those regions.",
    )]
    sections = (
        claim_section(ctx, "not positive recurrent (transient)", "a growth function f with positive drift where it is large"),
        network_section(ctx.net),
        hypotheses_section("The Fayolle\u2013Malyshev\u2013Menshikov transience criterion", FMM, statement, checks),
        Section("The function f", tuple(f_blocks)),
        Section("The drift of f where it is unbounded", (drift_intro, Display(tuple(formula)), *drift_blocks)),
        Section("The exceptional set", tuple(exceptional)),
        recheck_section(ctx, independent),
    )
    return Proof(f"{ctx.net.name} is not positive recurrent (transient): a growth function", sections, tuple(appendix))
