"""The readable proof of a sink-growth certificate (``docs/math/sink.md``)."""

from __future__ import annotations

from fractions import Fraction

from ..core.latex import frac_tex, set_tex
from ..exact.facts import SinkGrowthFacts
from ..exact.sink import Reduction, reduced_network
from ..markov.drift import clip_text
from .common import Context, checked_on, claim_section, hypotheses_section, network_section, recheck_section
from .document import Block, Math, Para, Proof, Section, Table, para, summarised

__all__ = ["explain_sink_growth"]

_SET_STATEMENT = (
    "Let R' be the network without the set G of sinks (choice sets lose G's stations, the feedback from R' into choice "
    "sets inside G is forced into G, G's feedback into R' becomes Poisson streams). For a subset H of G let f_H be the "
    "inflow that JSQ sends into H when H holds G's shortest queues (streams and forced feedback into choice sets inside "
    "G that meet H) and m_H what H serves, less G's feedback into those sets. If R' is positive recurrent and every "
    "station of R' exits it with positive probability, if for every non-empty H the inequality f_H + A'g_H >= c_H holds "
    "at every state of R' with c_H > m_H, and if G can be filled from empty by the routing sets inside it (streams, "
    "or the feedback of a station of R' that a stream reaches while R' is empty) and its own feedback inside it, "
    "then from empty "
    "the shortest queue of G tends to infinity with positive probability (a soft minimum of G's queues grows at a "
    "positive rate: docs/math/sink.md, sets of sinks).")


def explain_sink_growth(ctx: Context) -> Proof:
    """The proof of a sink-growth certificate: the reduced network, the forced flow, the rate inequality.

    Parameters
    ----------
    ctx : Context
        A verified ``sink-growth`` certificate.

    Returns
    -------
    Proof
        Titled ``NAME is not positive recurrent: station S is overloaded by the rest``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.certificates import fluid_flow_certificate, nested_verdict
    >>> from certify.certificates.kinds.sink_growth import sink_growth_certificate
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.exact.fluid_flow import check_fluid_flow
    >>> from certify.exact.sink import check_sink_growth
    >>> from certify.explain import explain
    >>> from certify.markov.chain import compile_chain
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(2, 5))), (Stream(F(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> red = reduced_network(net, "2").network
    >>> ch = compile_chain(red)
    >>> sub = fluid_flow_certificate(red, ch, [F(1)], check_fluid_flow(ch, [F(1)]))
    >>> chk = check_sink_growth(net, "2", [F(1)], F(1, 2), nested_verdict(red, sub))
    >>> cert = sink_growth_certificate(net, "2", [F(1)], F(1, 2), sub, chk)
    >>> explain(net, cert).title
    'n is not positive recurrent: station 2 is overloaded by the rest of the network'
    """
    net, sink, w, rate = ctx.reading.args[:4]
    facts: SinkGrowthFacts = ctx.facts.checked
    red = reduced_network(net, sink)
    if not isinstance(sink, str):
        return _explain_set(ctx, red, w, facts)
    ids = [s.id for s in red.network.stations]
    forced_rows = tuple((i, Math(frac_tex(r))) for i, r in sorted(red.forced.items()))
    forced, appendix = summarised(Table(("station i of R'", "mu_i p into {S}"), forced_rows,
                                        "The forced feedback into the sink (while i is busy)"), ctx.max_rows,
                                  "All forced feedback")
    weights = ", ".join(f"{s}: {frac_tex(v)}" for s, v in zip(ids, w)) or "none"
    table = ctx.reading.kwargs.get("table")
    g_text = "w'x" + (f" + T(min(x_F, K)) over F = "
                      f"{set_tex([ids[a] for a in ctx.reading.kwargs['fast']])}, {clip_text(ctx.reading.kwargs['K'])}"
                      if table is not None else "")
    statement: list[Block] = [para(
        "Let R' be the network without the sink S (its choice sets lose S, its forced feedback into {S} leaves, S's other "
        "feedback becomes Poisson streams at rate mu_S p). If R' is positive recurrent and every station of R' exits it "
        "with positive probability, if f + A'g >= c at every state of R' for the forced rate f and some g with bounded "
        "increments, if c > mu_S (1 - p_SS), and if the sink can be filled from empty, then from empty the sink's queue "
        "tends to infinity with positive probability: while S is the longest of every choice set it shares, the rest runs "
        "as R', the forced arrivals into S average at least c and S serves at most mu_S (1 - p_SS).")]
    checks: list[Para] = [
        para(f"R' is positive recurrent: its {facts.reduced} certificate passed its own exact check against R' rebuilt "
             "from this network."),
        para("Rate inequality: f + A'g >= ", Math(frac_tex(facts.rate)), f" {checked_on(facts.regions, facts.cells)}."),
        para("The rate exceeds the capacity: ", Math(f"{frac_tex(facts.rate)} > {frac_tex(facts.capacity)}"), "."),
    ]
    body = Section("The sink and the reduced network", (
        para(f"The sink is station {sink}; R' has the stations {', '.join(ids)}. The forced rate is "
             f"f(x) = {frac_tex(red.constant)} + the rates below while their stations are busy."),
        *forced,
        para(f"g = {g_text}, with weights {weights}."),
    ))
    independent = [para("By hand: rebuild R' from the network file (drop the sink from every choice set), verify the nested "
                        "certificate on it, and evaluate f + A'g state by state on a box of states: it is at least the rate.")]
    sections = (
        claim_section(ctx, "not positive recurrent", f"station {sink} is overloaded by the rest of the network"),
        network_section(ctx.net),
        hypotheses_section("A sink overloaded by the forced flow of a positive recurrent rest",
                           "docs/math/sink.md (regeneration, the martingale strong law, a coupling)", statement, checks),
        body,
        recheck_section(ctx, independent),
    )
    return Proof(f"{ctx.net.name} is not positive recurrent: station {sink} is overloaded by the rest of the network",
                 sections, tuple(appendix))


def _explain_set(ctx: Context, red: Reduction, w: list[Fraction], facts: SinkGrowthFacts) -> Proof:
    """The proof of a set-sink certificate: R', every subset's rate and capacity, the rate inequalities."""
    G = red.sinks
    name = "{" + ", ".join(G) + "}"
    ids = [s.id for s in red.network.stations]
    rows = [(name, Math(frac_tex(facts.rate)), Math(frac_tex(facts.capacity)), "g (the weights above)")]
    listed = {tuple(H) for H, *_ in ctx.reading.kwargs.get("subsets", ())}
    rows += [("{" + ", ".join(H) + "}", Math(frac_tex(c)), Math(frac_tex(m)), "its own g_H" if tuple(H) in listed
              else "constant inflow") for H, c, m in facts.subsets]
    subsets, appendix = summarised(Table(("H", "c_H", "m_H", "from"), tuple(rows), "Every subset H: c_H > m_H"),
                                   ctx.max_rows, "All subsets")
    weights = ", ".join(f"{s}: {frac_tex(v)}" for s, v in zip(ids, w)) or "none"
    checks: list[Para] = [
        para(f"R' is positive recurrent: its {facts.reduced} certificate passed its own exact check against R' rebuilt "
             "from this network."),
        para(f"Rate inequalities: f_H + A'g_H >= c_H for G and for each listed subset, {checked_on(facts.regions, facts.cells)}; "
             "an unlisted subset's c_H is its constant inflow, a lower bound of f_H at every state."),
        para("Every rate exceeds its capacity (the table)."),
        para(f"G can be filled from empty by the routing sets that lie inside {name} (streams, or the feedback of a station "
             "of R' that a stream reaches while R' is empty: a relay) and the feedback of its own stations inside it "
             "(a transfer), R' staying empty."),
    ]
    body = Section("The sinks and the reduced network", (
        para(f"The sinks are G = {name}; R' has the stations {', '.join(ids)}. For G, g has the weights {weights}."),
        *subsets,
    ))
    independent = [para("By hand: rebuild R' from the network file (drop G's stations from every choice set), verify the "
                        "nested certificate on it, and evaluate f_H + A'g_H state by state on a box of states for each H.")]
    sections = (
        claim_section(ctx, "not positive recurrent", f"the stations {name} are overloaded by the rest of the network"),
        network_section(ctx.net),
        hypotheses_section("A set of sinks overloaded by the forced flow of a positive recurrent rest",
                           "docs/math/sink.md, sets of sinks (a soft minimum, regeneration, a coupling)",
                           [para(_SET_STATEMENT)], checks),
        body,
        recheck_section(ctx, independent),
    )
    return Proof(f"{ctx.net.name} is not positive recurrent: the stations {name} are overloaded by the rest of the network",
                 sections, tuple(appendix))
