"""Readable proofs of the instability certificates under every law: the static-split dual, a closed set.

(A growth function, the Markovian transience certificate, is explained in
:mod:`certify.explain.growth`.)

* :func:`explain_static_split` (kind ``static-split``): a dual solution of the
  flow-balance LP with value < 0, every dual constraint with its slack.
* :func:`explain_closed_set` (kind ``closed-set``): a set of stations no customer
  leaves, entered at a positive rate.

Public: :func:`explain_static_split`, :func:`explain_closed_set`.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from ..core.latex import frac_tex, set_tex, station_tex
from ..core.render import plural
from ..exact.facts import ClosedSetFacts, StaticSplitFacts
from ..exact.instability import routed_sets
from ..markov.chain import Chain
from .common import Context, claim_section, hypotheses_section, network_section, recheck_section
from .document import Block, Display, Math, Para, Proof, Section, Table, joined, para, summarised

__all__ = ["explain_static_split", "explain_closed_set"]


def _ids(chain: Chain, C: Sequence[int]) -> list[str]:
    return [chain.ids[a] for a in C]




# ---------------------------------------------------------------- static split


def _u_tex(chain: Chain, C: Sequence[int]) -> str:
    return f"u_{{{set_tex(_ids(chain, C))}}}"


def explain_static_split(ctx: Context) -> Proof:
    """The proof of a static-split certificate: the dual multipliers, every dual constraint's slack, the value < 0.

    Parameters
    ----------
    ctx : Context
        A verified ``static-split`` certificate.

    Returns
    -------
    Proof
        Titled ``NAME is not positive recurrent: a dual of the static-split LP``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.certificates import static_split_certificate
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.exact import check_static_split
    >>> from certify.explain import explain
    >>> from certify.markov.chain import compile_chain
    >>> over = Network("over", (Station("1", F(1)),), (Stream(F(2), choice=("1",)),))
    >>> chain = compile_chain(over)
    >>> u, w = {(0,): F(-1)}, [F(1)]
    >>> proof = explain(over, static_split_certificate(over, chain, u, w, check_static_split(chain, u, w)))
    >>> proof.title
    'over is not positive recurrent: a dual of the static-split LP'
    """
    chain, u, w = ctx.reading.args[0], dict(ctx.reading.args[1]), list(ctx.reading.args[2])
    facts: StaticSplitFacts = ctx.facts.checked
    ids, sets = chain.ids, routed_sets(chain)
    lam = dict(chain.arrivals)
    fb: dict[int, list[tuple[tuple[int, ...], Fraction]]] = {}
    for i, c, p in chain.feedback:
        fb.setdefault(i, []).append((c, p))
    rows = []
    for C in sets:
        for j in C:
            back = sum((p * u[c2] for c2, p in fb.get(j, [])), Fraction(0))
            terms = f"{frac_tex(u[C])} + {frac_tex(w[j])}" + "".join(
                f" - {frac_tex(p)} \\cdot ({frac_tex(u[c2])})" for c2, p in fb.get(j, [])
            )
            rows.append((u[C] + w[j] - back, C, j, terms))
    rows.sort(key=lambda r: r[0])
    con_rows = tuple(
        (Math(set_tex(_ids(chain, C))), ids[j], Math(terms), Math(frac_tex(val))) for val, C, j, terms in rows
    )
    con_table = Table(("set C", "station j", "u_C + w_j - sum_C' p_j(C') u_C'", "slack (>= 0)"), con_rows,
                      "The dual constraints, tightest first")
    con_blocks, appendix = summarised(con_table, ctx.max_rows, "All dual constraints")
    mult_rows = tuple((Math(_u_tex(chain, C)), Math(frac_tex(u[C]))) for C in sets) + tuple(
        (Math(station_tex(s, "w")), Math(frac_tex(v))) for s, v in zip(ids, w)
    )
    mult_blocks, app = summarised(Table(("multiplier", "value"), mult_rows, "The multipliers, exactly"), ctx.max_rows, "All multipliers")
    appendix += app
    value_terms = [f"{frac_tex(lam.get(C, Fraction(0)))} \\cdot ({frac_tex(u[C])})" for C in sets if lam.get(C, 0)]
    value_terms += [f"{frac_tex(chain.mu[j])} \\cdot {frac_tex(w[j])}" for j in range(chain.J) if w[j]]
    value_line = (" + ".join(value_terms) + " = " if len(value_terms) <= 12 else "") + frac_tex(facts.dual_value)
    over = set_tex(facts.overloaded)
    primal = para(
        "In a stationary regime (whatever the routing policy, the tie-breaking and the service and interarrival laws "
        "with these means) station j completes services at rate ", Math("d_j = \\mu_j P(\\text{station } j \\text{ busy}) \\le \\mu_j"),
        ", and the customers routed to each choice set C (exogenously at rate ", Math("\\lambda_C"), ", or fed back from "
        "station i with probability ", Math("p_i(C)"), ") split into long-run flows ", Math("f_{C,j} \\ge 0"), " with ",
        Math("\\sum_{j \\in C} f_{C,j} = \\lambda_C + \\sum_i d_i\\, p_i(C)"), " and ", Math("d_j = \\sum_{C \\ni j} f_{C,j}"),
        ": a static split. The linear program asking for one with ", Math("d \\le \\mu"),
        " has the dual below; by weak duality a dual solution with negative value shows that none exists.",
    )
    statement: list[Block] = [primal]
    checks = [
        para("Station weights: ", Math("w \\ge 0"), " and ", Math(f"\\sum_j w_j = {frac_tex(sum(w, Fraction(0)))}"),
             "; the support of w is ", Math(over), "."),
        para(f"Dual constraints: for each of the {plural(len(sets), 'routed choice set')} C and each j in C, ",
             Math("u_C + w_j - \\sum_{C'} p_j(C')\\, u_{C'} \\ge 0"), f"; all {len(rows)} hold, the least slack is ",
             Math(frac_tex(rows[0][0]) if rows else "0"), "."),
        para("Value: ", Math(f"\\sum_C \\lambda_C u_C + \\sum_j \\mu_j w_j = {value_line} < 0"), "."),
    ]
    derivation = Display((
        "0 &\\le \\sum_{C} \\sum_{j \\in C} f_{C,j} \\Bigl(u_C + w_j - \\sum_{C'} p_j(C')\\, u_{C'}\\Bigr)",
        "&= \\sum_C \\lambda_C u_C + \\sum_j d_j w_j",
        f"&\\le \\sum_C \\lambda_C u_C + \\sum_j \\mu_j w_j = {frac_tex(facts.dual_value)} < 0",
    ))
    why: list[Block] = [
        para("Multiply each dual constraint by its flow and sum (the flows are nonnegative); the flow balance turns the sum "
             "into the dual value with d in place of mu, and ", Math("d \\le \\mu"), " with ", Math("w \\ge 0"),
             " bounds it by the value:"),
        derivation,
        para("a contradiction. So no static split keeps every station at or below its rate: every split has ",
             Math(f"\\sum_j w_j d_j \\ge \\sum_j w_j \\mu_j + {frac_tex(-facts.dual_value)}"),
             ", so some station of the overloaded set ", Math(over), " would need throughput above its service rate. "
             "No stationary regime exists: the network is not positive recurrent under any policy."),
    ]
    independent: list[Block] = [
        para("By hand, from the network file and the multipliers above: w is nonnegative and sums to 1; each row of the "
             "constraint table is the left side with the numbers substituted (p_j(C') the feedback probabilities of "
             "station j), and is nonnegative; the value is"),
        Display((f"\\sum_C \\lambda_C u_C + \\sum_j \\mu_j w_j = {value_line}",)),
    ]
    sections = (
        claim_section(ctx, "not positive recurrent", "a dual solution of the static-split (flow-balance) linear program"),
        network_section(ctx.net),
        hypotheses_section("Flow balance: the static-split linear program and its dual",
                           "conservation of flow in a stationary regime; weak duality of linear programming", statement, checks),
        Section("The multipliers", (para("One multiplier u_C per routed choice set and one weight w_j per station:"), *mult_blocks)),
        Section("The dual constraints", tuple(con_blocks)),
        Section("Why no static split exists", tuple(why)),
        recheck_section(ctx, independent),
    )
    return Proof(f"{ctx.net.name} is not positive recurrent: a dual of the static-split LP", sections, tuple(appendix))


# ---------------------------------------------------------------- closed set


def explain_closed_set(ctx: Context) -> Proof:
    """The proof of a closed-set certificate: the set, the routing facts keeping customers in it, the inflow.

    Parameters
    ----------
    ctx : Context
        A verified ``closed-set`` certificate.

    Returns
    -------
    Proof
        Titled ``NAME is not positive recurrent: a closed set of stations``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.certificates import closed_set_certificate
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.exact import check_closed_set
    >>> from certify.explain import explain
    >>> from certify.markov.chain import compile_chain
    >>> streams = (Stream(F(1, 2), choice=("1",)), Stream(F(1, 10), choice=("2",)))
    >>> trap = Network("trap", (Station("1", F(1)), Station("2", F(1))), streams, (Feedback("2", ("2",), F(1)),))
    >>> chain = compile_chain(trap)
    >>> explain(trap, closed_set_certificate(trap, chain, [1], check_closed_set(chain, [1]))).title
    'trap is not positive recurrent: a closed set of stations'
    """
    chain, S = ctx.reading.args[0], list(ctx.reading.args[1])
    facts: ClosedSetFacts = ctx.facts.checked
    inside = set(S)
    s_tex = set_tex(facts.stations)
    fb_rows = tuple(
        (chain.ids[i], Math(set_tex(_ids(chain, C))), Math(frac_tex(p))) for i, C, p in chain.feedback if i in inside
    )
    entering = [(C, r) for C, r in chain.arrivals if set(C) <= inside]
    in_rows = tuple((Math(set_tex(_ids(chain, C))), Math(frac_tex(r))) for C, r in entering)
    inflow_line = (" + ".join(frac_tex(r) for _, r in entering) + " = " if len(entering) > 1 else "") + frac_tex(facts.inflow)
    fb_blocks, appendix = summarised(Table(("from", "joins the shortest of (inside S)", "probability"), fb_rows,
                                           "Feedback from the stations of S"), ctx.max_rows, "All feedback from S")
    in_blocks, app = summarised(Table(("choice set (inside S)", "rate"), in_rows, "Exogenous arrivals that must join S"),
                                ctx.max_rows, "All arrivals into S")
    appendix += app
    station_checks = [
        para(f"No customer leaves S from station {chain.ids[i]}: it lets customers leave with probability ",
             Math(frac_tex(chain.leave[i])), "; after service they join the shortest of ",
             *joined([Math(f"{set_tex(_ids(chain, C))}\\ \\text{{with probability}}\\ {frac_tex(p)}")
                     for k, C, p in chain.feedback if k == i]),
             ", each a subset of S (the probabilities sum to ",
             Math(frac_tex(sum((p for k, _, p in chain.feedback if k == i), Fraction(0)))), ").")
        for i in S
    ]
    statement: list[Block] = [para(
        "Let S be a set of stations such that a customer served at a station of S is always routed again to a station "
        "of S, and let exogenous arrivals whose choice sets lie inside S come at total rate ", Math("r > 0"), ". Then ",
        Math("N_S(t) = \\sum_{j \\in S} x_j(t)"), " never decreases and ", Math("N_S(t) \\ge A_S(t)"),
        ", the number of those arrivals by time t; ", Math("A_S(t)/t \\to r"), " almost surely (the renewal law of large "
        "numbers), so the queues of S grow without bound, under every tie-breaking rule and every i.i.d. service and "
        "interarrival law with these means: no stationary regime exists.",
    )]
    checks: list[Para] = [
        *station_checks,
        para("Positive inflow: the exogenous choice sets inside S receive ", Math(f"r = {inflow_line} > 0"), "."),
    ]
    growth = para(
        "Every event changes ", Math("N_S"), " by ", Math("+1"), " (an arrival that joins S, exogenous or fed back from outside) or by "
        "0 (a service in S is followed by a rejoin in S; events outside S do not touch it). So ",
        Math("N_S(t) \\ge N_S(0) + A_S(t)"), " and ", Math(f"\\liminf_{{t\\to\\infty}} N_S(t)/t \\ge {frac_tex(facts.inflow)}"),
        " almost surely: the number in S grows without bound.",
    )
    independent = [para(
        "By hand, from the network file: each station of ", Math(s_tex), " has feedback entries summing to probability 1, "
        "naming only stations of the set (the table above); the streams whose choice sets lie inside it have rates ",
        Math(inflow_line), ".",
    )]
    sections = (
        claim_section(ctx, "not positive recurrent", "a closed set of stations that customers never leave"),
        network_section(ctx.net),
        hypotheses_section("Customers that never leave a closed set of stations",
                           "the strong law of large numbers for renewal processes", statement, checks),
        Section("The closed set", (para("The set is ", Math(f"S = {s_tex}"), "."), *fb_blocks, *in_blocks, growth)),
        recheck_section(ctx, independent),
    )
    return Proof(f"{ctx.net.name} is not positive recurrent: a closed set of stations", sections, tuple(appendix))

