"""The readable proof of a Foster–Lyapunov certificate (kind ``foster``: quadratic, table, piecewise, quartic).

Everything is recomputed by the checker's own code: the template is rebuilt by
:func:`~certify.exact.stability.foster_template` on the regions the check
evaluates (the sorted chamber's under a symmetry), the drift rows and their
exact slopes by the template (``row_keys``, ``row_values``, ``affine_drifts``,
or the quartic's drift polynomials), so the slack printed on each region is the
one the check saw.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import comb
from typing import Any

from ..core.latex import frac_tex, linear_tex, norm_tex, poly_tex, quadratic_terms, region_tex, set_tex, station_tex, text_tex
from ..exact.facts import FosterFacts
from ..exact.stability import foster_template
from ..markov.chain import Chain
from ..markov.jumps import RegionDrift
from ..templates.base import Template
from ..templates.linear import LinearTemplate
from .common import (
    Context,
    claim_section,
    coefficient_table,
    hypotheses_section,
    network_section,
    reachability_para,
    recheck_section,
)
from .document import Block, Display, Inline, Math, Proof, Section, Table, para, summarised

__all__ = ["explain_foster", "region_cell", "count_tex"]

GE, LE = "\\ge", "\\le"

FOSTER = "Foster's criterion for continuous-time Markov chains"
FOSTER_SOURCE = (
    "F. G. Foster, 'On the stochastic matrices associated with certain queuing processes', Ann. Math. Statist. 24 (1953); "
    "in CTMC form, S. P. Meyn and R. L. Tweedie, 'Stability of Markovian processes III', Adv. Appl. Probab. 25 (1993)"
)
_TEMPLATE_WORDS = {
    "quadratic": "a quadratic form",
    "table": "a quadratic form plus linear terms weighted by bounded tables",
    "piecewise": "a continuous piecewise-quadratic function",
    "quartic": "a quartic form with sum-of-squares multipliers",
}


def region_cell(rd: RegionDrift, ids: Sequence[str]) -> Math:
    """A region's constraints as math (and the phases of a phase-type region, as text).

    Parameters
    ----------
    rd : RegionDrift
        The region's drift (its region, and its phases for a phase-type chain).
    ids : sequence of str
        The station ids.

    Returns
    -------
    Math
        E.g. ``x_{1} \\le x_{2},\\ x_{1} \\ge 1``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> from certify.markov.drift import compile_drifts
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> region_cell(compile_drifts(ch)[-1], ch.ids).tex
    'x_{1} = x_{2},\\\\ x_{1} \\\\ge 1'
    """
    tex = region_tex(rd.region.describe(ids, [station_tex(s) for s in ids]))
    phases = rd.describe(ids).partition("; ")[2]
    return Math(tex + (f";\\ {text_tex(phases)}" if phases else ""))


def count_tex(n: int) -> str:
    """An exact count, or its order of magnitude when it has more than 12 digits.

    Parameters
    ----------
    n : int
        The count.

    Returns
    -------
    str
        LaTeX math.

    Examples
    --------
    >>> count_tex(1234), count_tex(10**20 + 7)
    ('1234', '\\\\approx 10^{20}')
    """
    return str(n) if n < 10**12 else f"\\approx 10^{{{len(str(n)) - 1}}}"


# ---------------------------------------------------------------- V in closed form

def _function(tmpl: Template, theta: list[Fraction], names: list[str], ctx: Context) -> tuple[list[Block], list[Section]]:
    """V written out, the condition that makes it bounded below, and the long coefficient lists for the appendix."""
    ids, J, name = tmpl.chain.ids, tmpl.chain.J, tmpl.name
    blocks: list[Block] = []
    appendix: list[Section] = []
    t: Any = tmpl
    if name in ("quadratic", "table"):
        quad = poly_tex(quadratic_terms(zip(t.pairs, theta[: len(t.pairs)]), J), ids)
        if name == "quadratic":
            blocks.append(Display((f"V(x) = {quad}",)))
        else:
            arg = ", ".join(f"\\min({station_tex(ids[a])}, {t.K})" for a in t.fast)
            phases = "\\varphi" if tmpl.chain.has_phases else ""
            mult = ", ".join(ids[m] for m in t.mult)
            targs = ", ".join(a for a in (arg, phases) if a)
            vargs = ", ".join(a for a in ("x", phases) if a)
            blocks.append(Display((f"V({vargs}) = {quad} + \\sum_{{l \\in \\{{{mult}\\}}}} x_{{l}}\\, T_{{l}}({targs})",)))
            blocks.append(para(
                f"The tables T_l have {len(t.cells)} cells each: the fast stations {', '.join(ids[a] for a in t.fast) or 'none'} "
                f"clipped at K = {t.K}" + (", and the phase vector" if phases else "") + "; their exact values are in the appendix."
            ))
            table = coefficient_table(names[len(t.pairs):], theta[len(t.pairs):], "The table values T[l|cell]")
            appendix.append(Section("The tables of V", (table,)))
        deficits = t._deficits(theta)
        strict = t.strict_side()
        rows = tuple(
            (ids[i], Math(frac_tex(d)), Math(frac_tex(need)), Math(frac_tex(d - need))) for i, (d, need) in enumerate(deficits)
        )
        blocks.append(para(
            "V is bounded below: every diagonal entry P_ii is at least (for the table template: strictly more than) the sum of the "
            "magnitudes of the negative entries of row i, so P is copositive: ", Math("x^\\top P x \\ge 0"), " on the orthant"
            + (" and dominates the bounded table terms." if strict else "."),
        ))
        blocks.append(Table(("station i", "P_ii", "negative off-diagonal mass", "margin"), rows, "Diagonal dominance of P"))
    elif name == "piecewise":
        arr = t.arr
        pieces = []
        for c in range(len(arr.cells)):
            vals = [theta[t._p(c, i, j)] for i, j in t.pairs]
            signs = [f"{station_tex(ids[a])} {GE if sg > 0 else LE} {station_tex(ids[b])}"
                     for (a, b), sg in zip(arr.walls, arr.cells[c])]
            pieces.append((",\\ ".join(signs) or "\\text{all states}", poly_tex(quadratic_terms(zip(t.pairs, vals), J), ids)))
        walls = ", ".join(f"x{ids[a]} = x{ids[b]}" for a, b in arr.walls) or "none"
        blocks.append(para(f"V(x) = x'P_s x on each of the {len(arr.cells)} ordering cells s cut by the walls {walls}; "
                           "continuity across each wall is checked exactly (P_+ - P_- = h t' + t h'):"))
        lines = tuple(f"V(x) &= {q} && \\text{{where }} {cell}" for cell, q in pieces)
        if len(lines) <= ctx.max_rows:
            blocks.append(Display(lines))
        else:
            blocks.append(Display(lines[: ctx.max_rows]))
            blocks.append(para(f"(the first {ctx.max_rows} of {len(lines)} cells; all coefficients are in the appendix)"))
            appendix.append(Section("The pieces of V", (coefficient_table(names, theta, "Every coefficient"),)))
        blocks.append(para("V is bounded below: on each cell s, G_s'P_s G_s is diagonally dominant plus nonnegative "
                           "(G_s the generators of the cell's closure), so x'P_s x >= 0 there (checked exactly)."))
    else:  # quartic
        nv = len(t.vmonos)
        blocks.append(Display((f"V(x) = {poly_tex(dict(zip(t.vmonos, theta[:nv])), ids)}",)))
        slacks = t._v_slacks(theta)
        blocks.append(para(
            "V is nonnegative on the orthant: V(x) = m(x)'T m(x) + sum_a w_a x^a with m(x) the degree-2 monomials, "
            f"T positive semidefinite (exact LDL' factorisation, {len(t.qmonos)} x {len(t.qmonos)}) and every w_a >= 0 "
            f"(the least is {min(slacks)})."
        ))
        appendix.append(Section("The Gram matrices and multipliers", (coefficient_table(names, theta, "Every coefficient"),)))
    return blocks, appendix


# ---------------------------------------------------------------- the drift on each region

def _linear_rows(tmpl: LinearTemplate, theta: list[Fraction], delta: Fraction) -> list[tuple[Fraction, tuple[Any, ...]]]:
    ids = tmpl.chain.ids
    values, scale = tmpl.row_values(theta)
    affine, s = tmpl.affine_drifts(theta)
    worst: dict[int, Fraction] = {}
    count: dict[int, int] = {}
    for row, v in zip(tmpl.row_keys(), values):
        ratio = Fraction(v, scale * row.weight)
        worst[row.region] = max(worst.get(row.region, ratio), ratio)
        count[row.region] = count.get(row.region, 0) + 1
    out = []
    for r, w in worst.items():
        a, c = affine[r]
        bound = linear_tex([Fraction(ai, s) for ai in a], ids, Fraction(c, s))
        cells = (f"r{r}", region_cell(tmpl.drifts[r], ids), str(count[r]), Math(f"AV(x) \\le {bound}"), Math(frac_tex(w)),
                 Math(frac_tex(-w - delta)))
        out.append((-w - delta, cells))
    return out


def _quartic_rows(tmpl: Any, theta: list[Fraction]) -> list[tuple[Fraction, tuple[Any, ...]]]:
    ids = tmpl.chain.ids
    polys, den = tmpl._drift_polys(theta)
    out = []
    for blk, av in zip(tmpl.blocks, polys):
        least = min((theta[blk.noff + m] for m in range(len(blk.bmonos))), default=Fraction(0))
        poly = poly_tex({a: Fraction(co, den) for a, co in av.items()}, ids)
        gens = ", ".join(set_tex([ids[k] for k in range(len(g)) if g[k]]) for g in blk.G)
        cells = (f"r{blk.region}", region_cell(tmpl.drifts[blk.region], ids), Math(gens), Math(f"AV(x) = {poly}"), Math(frac_tex(least)))
        out.append((least, cells))
    return out


def _drift_section(
    tmpl: Template, theta: list[Fraction], facts: FosterFacts, levels: dict[int, int], ctx: Context
) -> tuple[Section, list[Section]]:
    J, delta, N = tmpl.chain.J, facts.delta, facts.exceptional_l1_bound
    L = tmpl.vertex_bound(levels)
    bounded = sum(1 for rd in tmpl.drifts if not rd.generators)
    lead: list[Block] = [para(
        f"The states are cut into {facts.regions} regions on which every routing decision, hence every jump rate, is fixed"
        + (" (pairs of a region of queue lengths and a phase vector)" if tmpl.chain.has_phases else "")
        + ("; the clipped stations " + ", ".join(f"{tmpl.chain.ids[a]} (levels 0..{k} and >= {k + 1})" for a, k in levels.items())
           + " cut each region further" if levels else "")
        + (" - the regions of the sorted chamber, one per orbit of the station classes (see the hypotheses)" if facts.symmetry else "")
        + f". {bounded} of them {'is' if bounded == 1 else 'are'} bounded (inside the exceptional set); "
        f"on each of the other {facts.regions - bounded}, every state is "
        "p + y with ", Math(f"p \\in [0, {L}]^{{{J}}}"), " and y in the region's recession cone, generated by 0/1 vectors g.",
    )]
    if isinstance(tmpl, LinearTemplate):
        rows = _linear_rows(tmpl, theta, delta)
        header: tuple[str, ...] = ("", "region", "generators", "drift on the region", "steepest slope per unit of |g|_1", "slack")
        lead.append(para(
            "On each unbounded region the drift is bounded by an affine function whose slope along every generator g is at most ",
            Math("-\\delta \\lVert g\\rVert_{1}"), " with ", Math(f"\\delta = {frac_tex(delta)}"),
            f" ({facts.rows} inequalities, each checked exactly). The slack is how far the steepest slope stays below ",
            Math("-\\delta"), ":",
        ))
    else:
        rows = _quartic_rows(tmpl, theta)
        header = ("", "region", "cone generators", "drift on the region (exact)", "least n_b")
        lead.append(para(
            "On each unbounded region R with generators g_1..g_K, writing y = sum_k lam_k g_k, the identity ",
            Math("-C_R(y) - \\delta (\\textstyle\\sum_k \\lambda_k)^3 = "
                 "\\sum_k \\lambda_k \\lambda' Q_{R,k} \\lambda + \\sum_{b} n_{R,b} \\lambda^b"),
            " holds coefficient by coefficient, with ", Math(f"\\delta = {frac_tex(delta)}"),
            ", every Q_{R,k} positive semidefinite (exact LDL') and every n_{R,b} >= 0; C_R is the cubic part of AV on R. "
            f"({facts.rows} identities.) So the cubic part decreases at least like -delta (|y|_1/J)^3, and AV(x) <= -delta far out:",
        ))
    rows.sort(key=lambda t: t[0])
    table = Table(header, tuple(cells for _, cells in rows), "The drift on each unbounded region, tightest first")
    shown, appendix = summarised(table, ctx.max_rows, "The drift on every region")
    lead += shown
    if isinstance(tmpl, LinearTemplate):
        hence: list[Inline] = ["Hence ", Math(f"AV(x) \\le M_R - \\delta {norm_tex()}"),
                               " on each region R, with M_R the region's bound at the points p; taken over the regions, "]
    else:
        hence = ["Hence, with the lower-degree part of AV on R bounded from its coefficients at the points p (the bound "
                 "of certify.templates.polynomial), ", Math("AV(x) \\le -\\delta s^3/h^3 + e_2 s^2 + e_1 s + e_0"),
                 " with ", Math(f"s = {norm_tex()} - JL"), "; taken over the regions, "]
    lead.append(para(*hence, Math(f"AV(x) \\le -\\delta = {frac_tex(-delta)}"), " at every state with ",
                     Math(f"{norm_tex()} \\ge N = {frac_tex(N)}"), "."))
    return Section("The drift condition, region by region", tuple(lead)), appendix


# ---------------------------------------------------------------- hypotheses and the whole proof

def _hypotheses(chain: Chain, facts: FosterFacts, ctx: Context) -> Section:
    ids = chain.ids
    checks = [
        para("Non-explosive: the rates are bounded; the total rate out of any state is at most ",
             Math(f"\\Lambda = {frac_tex(chain.total_rate)}"), ", so the chain is uniformisable."),
        para("Irreducibility. ", *reachability_para(chain).parts),
        para("V is bounded below (below, with the function)."),
        para(Math("AV(x) \\le -\\delta"), " outside a finite set: ", Math(f"\\delta = {frac_tex(facts.delta)}"), ", the finite set ",
             Math(f"\\{{x : {norm_tex()} < {frac_tex(facts.exceptional_l1_bound)}\\}}"), " (below, region by region)."),
    ]
    if facts.symmetry:
        classes = "; ".join(set_tex([ids[a] for a in c]) for c in facts.symmetry)
        checks.append(para(
            "Symmetry (used to check one region per orbit): the station classes ", Math(classes),
            " are exchangeable: each exchange of two stations of a class maps the network to itself (rates, laws, streams, "
            "feedback, tie-breaking; checked), and V is invariant under it (P[gi, gj] = P[i, j]; checked). Then "
            "AV(gx) = AV(x), and every orbit of states meets the sorted chamber, whose regions are the ones listed."
        ))
    statement: list[Block] = [
        para("Let X be an irreducible, non-explosive continuous-time Markov chain on a countable set S with generator q, and "
             "V : S -> R bounded below with"),
        Display(("AV(x) = \\sum_{y \\ne x} q(x, y)\\,\\bigl(V(y) - V(x)\\bigr) \\le -\\delta \\quad \\text{for every } x \\notin C,",)),
        para("for some delta > 0 and a finite set C. Then X is positive recurrent."),
    ]
    return hypotheses_section(FOSTER, FOSTER_SOURCE, statement, checks)


def _exceptional(chain: Chain, facts: FosterFacts) -> Section:
    J, N = chain.J, int(facts.exceptional_l1_bound)
    states = comb(N - 1 + J, J) * (len(chain.phase_space()) if chain.has_phases else 1)
    return Section("The exceptional set", (para(
        "C = ", Math(f"\\{{x \\in \\mathbb{{N}}^{{{J}}} : {norm_tex()} < {N}\\}}"),
        (" (times the phase vectors)" if chain.has_phases else ""), " is finite: it has ", Math(count_tex(states)),
        " states. Outside it ", Math("AV \\le -\\delta"),
        ", as shown above; inside it AV is finite (bounded rates), as Foster's criterion allows.",
    ),))


def explain_foster(ctx: Context) -> Proof:
    """The proof of positive recurrence from a Foster–Lyapunov certificate.

    Parameters
    ----------
    ctx : Context
        A verified ``foster`` certificate and its network.

    Returns
    -------
    Proof
        Claim, network, Foster's criterion with its hypotheses checked, V in closed
        form (and why it is bounded below), the drift on each region with its
        slack, the exceptional set, and how to re-check.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify import prove
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.explain import explain
    >>> net = Network("jsq2", (Station("1", F(1)), Station("2", F(1))), (Stream(F(3, 2), choice=("1", "2")),))
    >>> cert = prove(net, templates=["quadratic"], fluid=False, simulate=False).certificate
    >>> md = explain(net, cert).render("markdown")
    >>> "Foster's criterion" in md, "cut into 4 regions" in md, "## The exceptional set" in md
    (True, True, True)
    """
    chain, template, theta_map = ctx.reading.args
    built = foster_template(chain, template, ctx.reading.kwargs.get("options"), ctx.reading.kwargs.get("symmetry"))
    if isinstance(built, list):  # verify built the same template a moment ago
        raise AssertionError(built)
    tmpl, levels = built
    facts: FosterFacts = ctx.facts.checked
    names = tmpl.variables()
    theta = [theta_map[n] for n in names]
    function, app1 = _function(tmpl, theta, names, ctx)
    words = _TEMPLATE_WORDS.get(template, template)
    function.insert(0, para(f"The Lyapunov function (template {template}: {words}), with the certificate's exact coefficients:"))
    drift, app2 = _drift_section(tmpl, theta, facts, levels, ctx)
    independent = [para(
        "Independently of the regions: for any state x, AV(x) is the sum over the transitions out of x (an arrival to a shortest "
        "queue of its stream's choice set, broken by the tie-breaking rule; a service; a feedback routing, all as listed in "
        "'The network') of the rate times the change of V; at every state with ", Math(f"{norm_tex()} \\ge N"),
        " it must be at most ", Math("-\\delta"), ". certify's test suite evaluates it this way, with its own transition rules, "
        "at random far states (tests/independent.py)."
    )]
    sections = (
        claim_section(ctx, "positive recurrent (stable)", f"a Foster-Lyapunov certificate (template {template})"),
        network_section(ctx.net),
        _hypotheses(chain, facts, ctx),
        Section("The Lyapunov function", tuple(function)),
        drift,
        _exceptional(chain, facts),
        recheck_section(ctx, independent),
    )
    return Proof(f"{ctx.net.name} is positive recurrent: a Foster-Lyapunov certificate", sections, tuple(app1 + app2))
