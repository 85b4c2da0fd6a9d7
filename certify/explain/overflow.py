"""Readable proofs of the overflow certificates: one uncapped station, f = x_u + h(capped levels).

Every number is the checker's: the level L, the table, and the drift at every
capped level vector (:func:`~certify.exact.overflow.overflow_drifts`), re-derived
from the network and the file.  The theorem is in ``docs/math/capacities.md``.
"""

from __future__ import annotations

from ..core.latex import frac_tex
from ..exact.facts import OverflowFacts
from ..exact.overflow import overflow_drifts
from .common import Context, claim_section, hypotheses_section, network_section, reachability_para, recheck_section
from .document import Block, Math, Para, Proof, Section, Table, para, summarised

__all__ = ["explain_overflow"]


def explain_overflow(ctx: Context) -> Proof:
    """The proof of an ``overflow-foster`` or ``overflow-growth`` certificate.

    Parameters
    ----------
    ctx : Context
        A verified overflow certificate.

    Returns
    -------
    Proof
        Titled ``NAME is positive recurrent: ...`` or ``NAME is not positive recurrent: ...``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.certificates import overflow_certificate
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.exact.overflow import check_overflow
    >>> from certify.explain import explain
    >>> from certify.markov.chain import compile_chain
    >>> net = Network("spill", (Station("1", F(1), capacity=1), Station("2", F(1))), (Stream(F(9, 5), choice=("1", "2")),))
    >>> chain, h = compile_chain(net), {(0,): F(0), (1,): F(9, 14)}
    >>> cert = overflow_certificate(net, chain, "overflow-growth", 1, h, check_overflow(chain, [1, None], 1, h, "overflow-growth"))
    >>> explain(net, cert).title
    'spill is not positive recurrent: the overflow into station 2'
    """
    chain, caps, u, h, kind = ctx.reading.args
    facts: OverflowFacts = ctx.facts.checked
    stable = kind == "overflow-foster"
    s = facts.station
    L = facts.level
    capped = [chain.ids[j] for j in range(chain.J) if j != u]
    D = overflow_drifts(chain, caps, u, h)
    rows = tuple(
        (", ".join(f"x_{c} = {k}" for c, k in zip(capped, y)), Math(frac_tex(h[y])), Math(frac_tex(D[y])))
        for y in sorted(D, key=lambda y: D[y], reverse=not stable)
    )
    table_blocks, appendix = summarised(
        Table(("capped levels y", "h(y)", "drift D(y) where x_" + s + f" >= {L}"), rows, "The table and the drift"),
        ctx.max_rows, "The whole table",
    )
    sign = "\\le -\\delta" if stable else "\\ge \\delta"
    statement: list[Block] = [para(
        "Let every station but u have a capacity and every law be exponential. For ", Math("x_u \\ge L = \\max K + 2"),
        " a non-full capped station is strictly shorter than u, for arrivals and for customers fed back by u, so the "
        "jump rates depend on the capped levels y alone (shift invariance). For ", Math("f = x_u + h(y)"),
        " the drift D(y) at any such state is then a function of y. If ", Math(f"D(y) {sign}"), " for every y ",
        "and the empty state is reachable from every state, the chain is "
        + ("positive recurrent (Foster's criterion: the set where x_u < L is finite)." if stable else
           "transient (f has bounded increments and grows on {f > L - 1 + max h}, a set reached from the empty "
           "state; Fayolle-Malyshev-Menshikov Thm 2.2.7): not positive recurrent."),
    )]
    checks: list[Para] = [
        para(f"Station {s} alone has no capacity; the capped stations are {', '.join(capped)} "
             f"(capacities {', '.join(str(caps[j]) for j in range(chain.J) if j != u)}), so ", Math(f"L = {L}"), "."),
        para("The laws are exponential (the network's rates are its jump rates)."),
        reachability_para(chain),
        para(f"The drift is {'at most' if stable else 'at least'} ",
             Math(("-" if stable else "") + frac_tex(facts.delta)), f" at each of the {facts.states} level vectors."),
    ]
    sections = (
        claim_section(ctx, "positive recurrent" if stable else "not positive recurrent",
                      f"the overflow into station {s}, the one station without a capacity"),
        network_section(ctx.net),
        hypotheses_section("The overflow of the one uncapped station", "Foster's criterion" if stable else
                           "Fayolle-Malyshev-Menshikov 1995, Thm 2.2.7", statement, checks),
        Section("The function and its drift", (
            para("The certificate's function is ", Math(f"f(x) = x_{{{s}}} + h(y)"), ", y the levels of ",
                 ", ".join(capped), "; its drift wherever ", Math(f"x_{{{s}}} \\ge {L}"), ":"),
            *table_blocks,
        )),
        recheck_section(ctx, [para(
            "By hand: at a state with ", Math(f"x_{{{s}}} = {L}"), " and capped levels y, list every arrival (to the "
            "shortest non-full station of its choice set), every service and its feedback, and sum rate times the "
            "change of f; each sum is the table's last column.",
        )]),
    )
    what = "positive recurrent" if stable else "not positive recurrent"
    return Proof(f"{ctx.net.name} is {what}: the overflow into station {s}", sections, tuple(appendix))
