"""The readable proof of a sink-drain certificate (``docs/math/drain.md``)."""

from __future__ import annotations

from ..core.latex import frac_tex
from ..exact.facts import SinkDrainFacts
from ..exact.sink import reduced_network
from ..markov.chain import compile_chain
from ..markov.drift import clip_text
from ..templates import TEMPLATES
from .common import Context, checked_on, claim_section, coefficient_table, hypotheses_section, network_section, recheck_section
from .document import Math, Para, Proof, Section, Table, para, summarised

__all__ = ["explain_sink_drain"]

_STATEMENT = (
    "Let G be the sinks and R' the network without them (choice sets lose G's stations, the feedback from R' into choice "
    "sets inside G is forced into G, G's feedback into R' becomes Poisson streams). For a non-empty subset H of G let u_H "
    "be the work of the routing sets inside H (streams, feedback of busy stations of R' and feedback of G's stations): "
    "all that can reach H while its stations hold G's longest queues. Let eps_t be the most that ties with stations of G "
    "can send a station t of R' beyond what R' sends it, and R'_eps R' with a Poisson stream of rate eps_t into each t. "
    "If R'_eps has a quadratic Foster function W = y'Py with P >= 0 entrywise (no arrival decreases it), if for every "
    "H the inequality u_H + A'g_H <= c_H holds at every state of R' with c_H < mu(H), g_H not decreasing where a station "
    "of G outside H may take an arrival from R' (and g_H = 0 for every proper subset when some eps_t > 0), and if the "
    "empty state is reachable from every state, then the network "
    "is positive recurrent: V = |s|^2/2 + (the Lovász extension of H -> g_H) + kappa W decreases by a rate proportional "
    "to |x| far from the origin, for kappa large (docs/math/drain.md).")


def explain_sink_drain(ctx: Context) -> Proof:
    """The proof of a sink-drain certificate: the reduced network, W, every subset's rate against its capacity.

    Parameters
    ----------
    ctx : Context
        A verified ``sink-drain`` certificate.

    Returns
    -------
    Proof
        Titled ``NAME is positive recurrent: the rest of the network drains station S``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.certificates.kinds.sink_drain import sink_drain_certificate
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.exact.drain import check_sink_drain
    >>> from certify.explain import explain
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(3, 5))), (Stream(F(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> chk = check_sink_drain(net, "2", [F(1)], [F(1)], F(1, 2))
    >>> cert = sink_drain_certificate(net, "2", [F(1)], [F(1)], F(1, 2), chk)
    >>> explain(net, cert).title
    'n is positive recurrent: the rest of the network drains station 2'
    """
    net, sink, lyapunov, w, _rate = ctx.reading.args[:5]
    facts: SinkDrainFacts = ctx.facts.checked
    red = reduced_network(net, sink)
    G = red.sinks
    name = G[0] if len(G) == 1 else "{" + ", ".join(G) + "}"
    what = f"station {name}" if len(G) == 1 else f"the stations {name}"
    chain = compile_chain(red.network)
    ids = list(chain.ids)
    rows = [(name, Math(frac_tex(facts.rate)), Math(frac_tex(facts.capacity)), "g (the weights above)")]
    listed = {tuple(H) for H, *_ in ctx.reading.kwargs.get("subsets", ())}
    rows += [("{" + ", ".join(H) + "}", Math(frac_tex(c)), Math(frac_tex(m)),
              "its own g_H" if tuple(H) in listed else "largest u_H (every feeder busy)")
             for H, c, m in facts.subsets]
    rates, appendix = summarised(Table(("H", "c_H", "mu(H)", "from"), tuple(rows), "Every subset H of the sinks: c_H < mu(H)"),
                                 ctx.max_rows, "All subsets")
    names = TEMPLATES["quadratic"](chain, []).variables()
    w_table, w_appendix = summarised(coefficient_table(names, lyapunov, "W = y'Py on R' (every entry >= 0)"), ctx.max_rows,
                                     "All entries of P")
    weights, w_rows = summarised(coefficient_table(ids, w, "The weights w of g on R' (for G)"), ctx.max_rows,
                                 "All weights of g")
    table = ctx.reading.kwargs.get("table")
    g_text = "w'y" + (f" + T(min(y_F, K)) over F = "
                      f"{{{', '.join(ids[a] for a in ctx.reading.kwargs['fast'])}}}, {clip_text(ctx.reading.kwargs['K'])}"
                      if table is not None else "")
    if facts.excess:
        more = ", ".join(f"{v} into {t}" for t, v in facts.excess)
        ties = para("Ties: a tie of a routing set with stations of G sends some stations of R' more than the same tie "
                    f"without G; the most it can add is {more} per unit time (eps_t). W is checked on R'_eps, R' with "
                    "Poisson streams of these rates added. A proper subset of G has its own function only where no "
                    "departure from R' carries that excess; its rate inequality is then checked on R'_eps, and its g_H "
                    "does not decrease along the stations the ties add work to.")
        rest = "R'_eps"
    else:
        ties = para("Ties: no tie of a routing set with stations of G sends a station of R' more than the same tie "
                    "without G (every eps_t is 0).")
        rest = "R'"
    checks: list[Para] = [
        ties,
        para("The empty state is reachable from every state (the drain order of the network)."),
        para(f"W = y'Py is a Foster function of {rest}: its quadratic certificate passed the exact Foster check on it, "
             "rebuilt from this network (drift slope <= -delta |g|_1 along every cone generator, delta = ",
             Math(frac_tex(facts.delta)), "), and every entry of P is >= 0 with a positive diagonal."),
        para(f"Rate inequalities: u_H + A'g_H <= c_H for G and for each listed subset, {checked_on(facts.regions, facts.cells)}; "
             "every listed g_H does not decrease along its directions; an unlisted subset's c_H is its largest u_H."),
        para("Every rate is below its capacity (the table)."),
    ]
    body = Section("The sinks and the reduced network", (
        para(f"The sinks are G = {name}; R' has the stations {', '.join(ids)}. For G, g = {g_text}."),
        *weights,
        *rates,
        *w_table,
    ))
    independent = [para("By hand: rebuild R' from the network file (drop G's stations from every choice set), evaluate "
                        "u_H + A'g_H state by state on a box of states for each H, and A'W at states far from the origin.")]
    sections = (
        claim_section(ctx, "positive recurrent", f"the rest of the network drains {what}"),
        network_section(ctx.net),
        hypotheses_section("Sinks drained by a positive recurrent rest", "docs/math/drain.md (a Foster function with "
                           "the Lovász extension of the subsets' correction functions)", [para(_STATEMENT)], checks),
        body,
        recheck_section(ctx, independent),
    )
    return Proof(f"{ctx.net.name} is positive recurrent: the rest of the network drains {what}", sections,
                 (*appendix, *w_rows, *w_appendix))
