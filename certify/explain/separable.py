"""Readable proof of a separable Foster certificate: the drift bounded cluster by cluster.

Every number is the checker's: the clusters and their families, the regions of
each cluster, the budgets' sums, delta and the drift bound B, re-derived from the
network and the file.  The theorem is in ``docs/math/separable.md``.
"""

from __future__ import annotations

from fractions import Fraction

from ..core.latex import frac_tex
from ..exact.clusters import form_value
from ..exact.facts import SeparableFacts, SeparableGrowthFacts
from ..exact.separable import Structure, cluster_name, clusters, families
from ..exact.separable_growth import growth_forms
from ..markov.chain import Chain
from ..markov.drift import clip_text
from .common import Context, claim_section, hypotheses_section, network_section, reachability_para, recheck_section
from .document import Block, Math, Para, Proof, Section, Table, para, summarised

__all__ = ["explain_separable", "explain_separable_growth"]


def _clip(st: Structure) -> str:
    """The clip levels as the page prints them: ``K = 2``, or one level per station of each group."""
    if isinstance(st.K, int):
        return clip_text(st.K)
    return "; ".join(clip_text(k) for k in st.K) + " (a level per station of each group)"


def _laws(chain: Chain) -> Para:
    if chain.has_phases:
        return para("The service laws are phase-type and expanded: the chain is on queue lengths and phases ("
                    + "; ".join(chain.expansion) + "), and the streams are Poisson.")
    return para("The laws are exponential (the network's rates are its jump rates).")


def explain_separable(ctx: Context) -> Proof:
    """The proof of a ``separable-foster`` certificate.

    Parameters
    ----------
    ctx : Context
        A verified separable certificate.

    Returns
    -------
    Proof
        Titled ``NAME is positive recurrent: a separable Lyapunov function``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.certificates.kinds.separable import separable_certificate
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.exact.separable import Structure, check_separable
    >>> from certify.explain import explain
    >>> from certify.markov.chain import compile_chain
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> chain, st = compile_chain(mm1), Structure((), (), 1, ((0, 0),))
    >>> b = {(0,): {0: F(2)}}
    >>> proof = explain(mm1, separable_certificate(mm1, chain, st, [F(1)], b, check_separable(chain, st, [F(1)], b)))
    >>> proof.title, "cluster by cluster" in proof.render("markdown")
    ('mm1 is positive recurrent: a separable Lyapunov function', True)
    """
    chain, st, theta, budgets = ctx.reading.args
    assert isinstance(st, Structure)
    facts: SeparableFacts = ctx.facts.checked
    ids = chain.ids
    fams = families(chain)
    cl = clusters(chain, st)
    rows = []
    for c in cl:
        b = budgets.get(c.stations, {})
        rows.append((
            "{" + cluster_name(chain, c) + "}",
            ", ".join(fams[n].name for n in c.families),
            ", ".join(f"{ids[i]}: {v}" for i, v in sorted(b.items())) or "none",
        ))
    cl_blocks, appendix = summarised(Table(("cluster U", "families", "budgets c_{U,i}"), tuple(rows), "The clusters"),
                                     ctx.max_rows, "Every cluster")
    total = [sum((budgets.get(c.stations, {}).get(i, Fraction(0)) for c in cl), Fraction(0)) for i in range(chain.J)]
    sums = Table(("station i", "sum over U of c_{U,i}"), tuple((ids[i], Math(frac_tex(t))) for i, t in enumerate(total)),
                 "Each station's budgets")
    groups = "; ".join("{" + ",".join(ids[a] for a in F) + "}" for F in st.groups) or "none"
    statement: list[Block] = [para(
        "Write the generator's drift of V as a sum over families of jumps (one stream's arrivals, one station's "
        "services). A family's jumps depend only on its active stations; put each family in the cluster U of the "
        "blocks its active stations and the groups it moves meet. On every region of U's own stations the linear "
        "part of U's drift is ", Math("\\sum_{a \\in U} \\alpha_a x_a + \\sum_{i \\notin U} \\beta_i x_i"),
        " with constant coefficients. If, for budgets ", Math("c_{U,i}"), ", every passive coefficient satisfies ",
        Math("\\beta_i + c_{U,i} \\le 0"), ", the active slope ", Math("\\alpha + c_U"),
        " is at most 0 along every generator of the region's recession cone, and every station's budgets sum to "
        "at least ", Math("\\delta > 0"), ", then ", Math("AV(x) \\le B - \\delta |x|_1"),
        " at every state (B from the regions' vertices and the bounded constant parts). With V bounded below and "
        "the empty state reachable from every state, Foster's criterion gives positive recurrence.",
    )]
    checks: list[Para] = [
        _laws(chain),
        para(f"The tables' groups are {groups}, clipped at {_clip(st)}; P is strictly diagonally dominant where it is "
             "negative, so V is bounded below."),
        reachability_para(chain),
        para(f"The {facts.clusters} clusters have {facts.regions} regions together; the {facts.rows} inequalities "
             "hold, checked cluster by cluster on each cluster's own regions (never their product). The least budget sum is ",
             Math(f"\\delta = {frac_tex(facts.delta)}"), " and ", Math(f"B = {frac_tex(facts.drift_bound)}"),
             ", so ", Math("AV(x) \\le -\\delta"), " whenever ",
             Math(f"|x|_1 \\ge {frac_tex(facts.exceptional_l1_bound)}"), "."),
    ]
    sections = (
        claim_section(ctx, "positive recurrent", "a separable Lyapunov function, its drift checked cluster by cluster"),
        network_section(ctx.net),
        hypotheses_section("A separable Foster certificate", "Foster's criterion; docs/math/separable.md", statement, checks),
        Section("The clusters and their budgets", (*cl_blocks, sums)),
        recheck_section(ctx, [para(
            "By hand: at any state, sum rate times the change of V over every jump of the network; the result is at "
            "most ", Math("B - \\delta |x|_1"), " (tests/independent.py does this at random states).",
        )]),
    )
    return Proof(f"{ctx.net.name} is positive recurrent: a separable Lyapunov function", sections, tuple(appendix))


def explain_separable_growth(ctx: Context) -> Proof:
    """The proof of a ``separable-growth`` certificate.

    Parameters
    ----------
    ctx : Context
        A verified separable growth certificate.

    Returns
    -------
    Proof
        Titled ``NAME is not positive recurrent (transient): a separable growth function``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.certificates.kinds.separable import separable_growth_certificate
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.exact.separable_growth import check_separable_growth, growth_structure
    >>> from certify.explain import explain
    >>> from certify.markov.chain import compile_chain
    >>> over = Network("over", (Station("1", F(1)),), (Stream(F(2), choice=("1",)),))
    >>> chain, st = compile_chain(over), growth_structure((), 1)
    >>> cert = separable_growth_certificate(over, chain, st, [F(1)], check_separable_growth(chain, st, [F(1)]))
    >>> explain(over, cert).title
    'over is not positive recurrent (transient): a separable growth function'
    """
    chain, st, theta = ctx.reading.args
    assert isinstance(st, Structure)
    facts: SeparableGrowthFacts = ctx.facts.checked
    ids = chain.ids
    fams = families(chain)
    rows = []
    for c in clusters(chain, st):
        least = min((form_value(gf.form, theta) for gf in growth_forms(chain, st, c)),
                    default=Fraction(0))
        rows.append(("{" + cluster_name(chain, c) + "}", ", ".join(fams[n].name for n in c.families), Math(frac_tex(least))))
    rows.sort(key=lambda r: str(r[0]))
    cl_blocks, appendix = summarised(Table(("cluster U", "families", "m_U: least drift of U's part"), tuple(rows),
                                           "The clusters"), ctx.max_rows, "Every cluster")
    groups = "; ".join("{" + ",".join(ids[a] for a in F) + "}" for F in st.groups) or "none"
    w = ", ".join(f"w_{ids[i]} = {theta[i]}" for i in range(chain.J) if theta[i])
    statement: list[Block] = [para(
        "Let f have bounded increments. Write its drift as a sum over families of jumps (one stream's arrivals, one "
        "station's services), each family in the cluster U of the blocks its active stations and the groups it "
        "moves meet. f has no product term, so on every region of U's own stations U's part of the drift is one "
        "number; let ", Math("m_U"), " be the least over U's regions. Then ", Math("Af(x) \\ge \\sum_U m_U = \\delta"),
        " at every state. If ", Math("\\delta > 0"), " and the empty state is reachable from every state, f grows "
        "like ", Math("\\delta t"), " in expectation from the empty state, so the chain's one closed class reaches "
        "every level of f, and the chain is transient (Fayolle-Malyshev-Menshikov 1995, Thm 2.2.7): not positive "
        "recurrent.",
    )]
    checks: list[Para] = [
        _laws(chain),
        para(f"f = w'x + the tables of the groups {groups}, clipped at {_clip(st)}; its increments are at most ",
             Math(frac_tex(facts.increment_bound)), "."),
        reachability_para(chain),
        para(f"Over the {facts.clusters} clusters' {facts.regions} regions the least drifts sum to ",
             Math(f"\\delta = {frac_tex(facts.delta)} > 0"), " (checked cluster by cluster, never their product)."),
    ]
    sections = (
        claim_section(ctx, "not positive recurrent (transient)", "a separable growth function, its drift checked cluster by cluster"),
        network_section(ctx.net),
        hypotheses_section("A separable growth certificate", "Fayolle-Malyshev-Menshikov 1995, Thm 2.2.7; docs/math/separable.md",
                           statement, checks),
        Section("The weights and the clusters", (para("The weights: ", w or "none", "."), *cl_blocks)),
        recheck_section(ctx, [para(
            "By hand: at any state, sum rate times the change of f over every jump of the network; the result is at "
            "least ", Math("\\delta"), " (tests/independent.py does this at random states, the empty one included).",
        )]),
    )
    return Proof(f"{ctx.net.name} is not positive recurrent (transient): a separable growth function", sections, tuple(appendix))
