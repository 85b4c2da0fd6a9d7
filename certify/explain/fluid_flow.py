"""The readable proof of a ``fluid-flow`` certificate: V(z) = w'z, dV/dt bounded by one max-flow computation.

The flows into each choice set, their weights a_C and the worst station set
are those of the checker (:func:`~certify.exact.fluid_flow.flow_rates`,
:func:`~certify.exact.fluid_flow.flow_weights`, :func:`~certify.exact.flows.max_ratio`),
so the numbers printed are the ones the check saw.
"""

from __future__ import annotations

from fractions import Fraction

from ..core.hypotheses import DAI_CONDITIONS, dai_violations
from ..core.latex import frac_tex, linear_tex, set_tex, station_tex, text_tex
from ..core.model import Network
from ..core.render import plural
from ..exact.facts import FluidFlowFacts
from ..exact.fluid_flow import departure_bounds, flow_rates, flow_terms, flow_weights
from ..markov.chain import Chain
from .common import Context, claim_section, hypotheses_section, network_section, recheck_section
from .document import Block, Display, Inline, Math, Proof, Section, Table, para, summarised
from .fluid import DAI, DAI_SOURCE

__all__ = ["explain_fluid_flow"]


def _sources(chain: Chain, C: tuple[int, ...]) -> str:
    """Where the flow into C comes from: exogenous streams and feedback, in words."""
    parts = [f"{text_tex('stream')}\\ {frac_tex(lam)}" for S, lam in chain.arrivals if S == C]
    mu = "\\mu"
    parts += [f"{text_tex('feedback')}\\ {frac_tex(p)} \\cdot {station_tex(chain.ids[i], mu)}"
              for i, S, p in chain.feedback if S == C]
    return ",\\ ".join(parts)


def _term_rows(chain: Chain, w: list[Fraction], depth: int) -> list[tuple[Fraction, tuple[Inline, ...]]]:
    """At inflow depth >= 1: one row per station set K carrying terms, with the choice sets D they flow into."""
    terms = flow_terms(chain, depth)
    weights = flow_weights(chain, w, depth, terms=terms)
    parts: dict[tuple[int, ...], list[str]] = {}
    for (K, D), r in terms.items():
        parts.setdefault(K, []).append(f"{frac_tex(r)} \\to {set_tex([chain.ids[j] for j in D])}")
    rows: list[tuple[Fraction, tuple[Inline, ...]]] = [
        (weights[K], (Math(set_tex([chain.ids[j] for j in K])), Math(",\\ ".join(parts[K])), Math(frac_tex(weights[K]))))
        for K in parts]
    rows.sort(key=lambda t: -t[0])
    return rows


def _charge_rows(chain: Chain, depth: int) -> tuple[tuple[Inline, ...], ...]:
    """The departure bound of each station whose charge is below its rate: c_e and the g_{e,m}."""
    c, g = departure_bounds(chain, depth)
    rows = []
    for e in range(chain.J):
        if c[e] == chain.mu[e] and not g[e]:
            continue
        extra = " + ".join(f"{frac_tex(x)}\\,[{set_tex([chain.ids[m]])} \\subseteq N]" for m, x in g[e].items())
        rows.append((Math(station_tex(chain.ids[e], "d")), Math(frac_tex(chain.mu[e])), Math(frac_tex(c[e])),
                     Math(extra or "0")))
    return tuple(rows)


def _set_rows(chain: Chain, w: list[Fraction]) -> list[tuple[Fraction, tuple[Inline, ...]]]:
    rates, weights = flow_rates(chain), flow_weights(chain, w)
    rows: list[tuple[Fraction, tuple[Inline, ...]]] = []
    for C, R in rates.items():
        cells = (Math(set_tex([chain.ids[j] for j in C])), Math(_sources(chain, C)), Math(frac_tex(R)),
                 Math(frac_tex(max(w[j] for j in C))), Math(frac_tex(weights[C])))
        rows.append((weights[C], cells))
    rows.sort(key=lambda t: -t[0])
    return rows


def explain_fluid_flow(ctx: Context) -> Proof:
    """The proof of stability from a ``fluid-flow`` certificate (every law with these means, under Dai's conditions).

    Parameters
    ----------
    ctx : Context
        A verified ``fluid-flow`` certificate and its network.

    Returns
    -------
    Proof
        Claim, network, Dai's theorem with its hypotheses checked, V in closed
        form, the lemma bounding dV/dt by the flows, every choice set's flow and
        weight, the tightest station set, and how to re-check.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.certificates import fluid_flow_certificate
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.exact import check_fluid_flow
    >>> from certify.explain import explain
    >>> from certify.markov.chain import compile_chain
    >>> net = Network("jsq2", (Station("1", F(1)), Station("2", F(1))), (Stream(F(3, 2), choice=("1", "2")),))
    >>> chain = compile_chain(net)
    >>> cert = fluid_flow_certificate(net, chain, [F(1), F(1)], check_fluid_flow(chain, [F(1), F(1)]))
    >>> md = explain(net, cert).render("markdown")
    >>> "max-flow bound" in md, "= \\\\frac{3}{4} < 1" in md
    (True, True)
    """
    chain, w, depth = ctx.reading.args
    facts: FluidFlowFacts = ctx.facts.checked
    net = ctx.net
    assert isinstance(net, Network)
    general = ctx.facts.semantics == "general"
    violations = dai_violations(net)
    tight = set_tex(facts.tightest)
    checks = [
        para("The fluid model is the network's: each station j works at rate mu_j while it has fluid, each stream's fluid "
             "goes to the least-loaded stations of its choice set (split in any way among ties: every tie-breaking rule), "
             "feedback in proportion to the service flow; only the means enter."),
        para("V >= eta |z|_1 with ", Math(f"\\eta = {frac_tex(facts.eta)} > 0"), ": every weight is positive (the least is eta)."),
        para("The bound (lemma): at a fluid state whose non-empty stations are N, an empty station's level stays 0, a "
             "non-empty one changes at its inflow minus mu_j, and a flow that joins the shortest queue of C reaches N only "
             "when C lies inside N (otherwise the empty stations of C take it), at a rate at most R_C (feedback from i at "
             "most mu_i p). So dV/dt <= a(N) - b(N) with a(N) the sum of a_C = R_C max_C w over the sets C inside N and "
             "b(N) the sum of w_j mu_j over N.") if not depth else
        para(f"The bound (lemma, inflow depth {depth}): at a fluid state whose non-empty stations are N, an empty "
             "station's level stays 0, so it departs at the rate of its inflow, which comes from the choice sets holding "
             "it; by induction on the depth, an empty station e departs at most at c_e + sum over m in N of g_(e,m) (the "
             "table of departure bounds), a non-empty one at mu_e. A flow that joins the shortest queue of D reaches N "
             "only when D lies inside N, and each unit adds at most max_D w; a feedback (e, D, q) is charged q c_e on D, "
             "q (mu_e - c_e) on D with e, q g_(e,m) on D with m: terms on station sets K containing D that count when K "
             "lies inside N. So dV/dt <= a(N) - b(N) with a(N) the sum of a_K = (terms on K) x max_D w over the sets K "
             "inside N and b(N) the sum of w_j mu_j over N (docs/math/fluid.md)."),
        para("The worst N, by exact max flows (Dinkelbach's iteration; no enumeration of the 2^J sets): ",
             Math(f"\\theta^* = \\max_{{N \\ne \\emptyset}} a(N)/b(N) = {frac_tex(facts.theta)} < 1"), ", attained at ",
             Math(f"N = {tight}"), ". Hence dV/dt <= -(1 - theta*) b(N) <= ",
             Math(f"-\\delta,\\ \\delta = (1 - \\theta^*) \\min_j w_j \\mu_j = {frac_tex(facts.delta)}"),
             ", at every fluid state away from 0 and for every admissible velocity."),
        para(f"The interarrival laws ({DAI_CONDITIONS}): "
             + ("hold: every stream's law has a density on (0, infinity)." if not violations else
                "do NOT hold (" + "; ".join(violations) + "): the proof covers the fluid model only.")),
    ]
    statement: list[Block] = [para(
        "If every fluid path reaches 0 in a time proportional to its initial size and stays there, the network is positive "
        "Harris recurrent for every i.i.d. service and interarrival law with the given means whose interarrival times are "
        "unbounded and spread out, under every tie-breaking rule. A function V with V(z) >= eta |z|_1 and dV/dt <= -delta "
        "along every fluid path away from 0 shows that the fluid model is stable."
    )]
    if not depth:
        rows = _set_rows(chain, list(w))
        table = Table(("choice set C", "flows into C", "R_C", "max_C w", "a_C"), tuple(c for _, c in rows),
                      "the flow into each choice set and its weight, largest first")
        intro: list[Block] = [para(
            f"The {plural(facts.sets, 'choice set')} that receive a flow, with their rates R_C "
            "(exogenous streams plus mu_i p for each feedback (i, C, p)) and weights a_C = R_C max_C w:")]
    else:
        rows = _term_rows(chain, list(w), depth)
        table = Table(("station set K", "terms (rate -> choice set D)", "a_K"), tuple(c for _, c in rows),
                      "the terms on each station set and its weight, largest first")
        charges = Table(("departure rate", "mu_e", "c_e", "g: extra while stations are busy"), _charge_rows(chain, depth),
                        f"departure bounds of the empty stations at inflow depth {depth} (stations charged at mu_e left out)")
        intro = [para(f"An empty station departs at most at c_e + sum over m in N of g_(e,m) (inflow depth {depth}):"),
                 charges,
                 para(f"The {plural(facts.sets, 'station set')} that carry terms, with their weights "
                      "a_K = sum of the terms on K, each times max_D w:")]
    shown, appendix = summarised(table, ctx.max_rows, "the flow into every choice set" if not depth else "every term")
    fn = Section("The fluid Lyapunov function", (
        para("V (linear), with the certificate's exact weights, on the fluid levels ", Math(station_tex("j", "z")), ":"),
        Display((f"V(z) = {linear_tex(list(w), chain.ids, var='z')}",)),
    ))
    sets_section = Section("The flows and the worst station set", (
        *intro,
        *shown,
        para("The maximum flow from the sets (supplies a_K) to their stations (capacities theta* w_j mu_j) routes every a_K: "
             "so a(N) <= theta* b(N) for every N (the cut lemma of certify.exact.flows), with equality at ", Math(tight), "."),
    ))
    verdict = "stable (positive Harris recurrent)" if general else "fluid-stable (its fluid model is stable)"
    independent = [para(
        "Independently: at any fluid state z, the admissible velocities are those of the fluid rules above (an LP over the "
        "splits of each stream among its least-loaded stations and the throughputs of the empty stations); the maximum of "
        "dV/dt over them must be at most -delta. certify's test suite solves that LP with scipy at random fluid states "
        "(tests/independent.py), and recomputes theta* by enumerating every station set on small networks."
    )]
    sections = (
        claim_section(ctx, verdict, "a linear fluid Lyapunov certificate checked by one max-flow bound"),
        network_section(net),
        hypotheses_section(DAI, DAI_SOURCE, statement, checks),
        fn,
        sets_section,
        recheck_section(ctx, independent),
    )
    return Proof(f"{net.name} is {verdict}: a fluid Lyapunov certificate (max-flow bound)", sections, tuple(appendix))
