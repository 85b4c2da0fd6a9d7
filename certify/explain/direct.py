"""Readable proofs of the direct certificates: a finite state space, and a known theorem.

:func:`explain_finite_state` (kind ``finite-state``): every station has a
finite capacity, the empty state is reachable from every state (the drain
order), so the chain is a finite irreducible CTMC on its closed class: positive
recurrent.  :func:`explain_theorem` (kind ``theorem``): a named theorem whose
hypotheses the checker re-ran on the network, with the numbers that decide it.

Every number is the checker's: the state count and the capacities come from the
verified facts and the reader's chain; the drain order is
:func:`certify.markov.chain.drain_order`, as the checker calls it.

Public: :func:`explain_finite_state`, :func:`explain_theorem`.
"""

from __future__ import annotations

from math import prod

from ..core.latex import station_tex
from ..exact.facts import FiniteStateFacts, TheoremFacts
from ..markov.chain import Chain, drain_order
from .common import Context, claim_section, hypotheses_section, network_section, reachability_para, recheck_section
from .document import Block, Display, Math, Proof, Section, Table, para, summarised

__all__ = ["explain_finite_state", "explain_theorem"]

NORRIS = "J. R. Norris, Markov Chains, Cambridge University Press, 1997, Chapter 3"


def drain_table(chain: Chain) -> Table:
    """The stations in the checker's drain order, each with how a customer of it can leave the network.

    Parameters
    ----------
    chain : Chain
        The chain (its drain order exists: the certificate verified).

    Returns
    -------
    Table
        One row per station, in the order of :func:`~certify.markov.chain.drain_order`.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> tandem = Chain(("1", "2"), (F(1), F(1)), (((0,), F(1)),), ((0, (1,), F(1)),), (F(0), F(1)))
    >>> [row[1:] for row in drain_table(tandem).rows]
    [('2', 'leaves with probability 1'), ('1', 'fed back with probability 1 to {2}, drained earlier')]
    """
    order = drain_order(chain) or []
    rows: list[tuple[str, ...]] = []
    for k, i in enumerate(order):
        earlier = set(order[:k])
        if chain.leave[i] > 0:
            how = f"leaves with probability {chain.leave[i]}"
        else:
            C, p = next((C, p) for src, C, p in chain.feedback if src == i and p > 0 and set(C) <= earlier)
            ids = ", ".join(chain.ids[a] for a in C)
            how = f"fed back with probability {p} to {{{ids}}}, drained earlier"
        rows.append((str(k + 1), chain.ids[i], how))
    return Table(("step", "station", "how its customer can leave"), tuple(rows), "The drain order")


def explain_finite_state(ctx: Context) -> Proof:
    """The proof of a finite-state certificate: finite capacities, the state count, the drain order.

    Parameters
    ----------
    ctx : Context
        A verified ``finite-state`` certificate.

    Returns
    -------
    Proof
        Titled ``NAME is positive recurrent: a finite state space``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.certificates import finite_certificate
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.exact import check_finite
    >>> from certify.explain import explain
    >>> from certify.markov.chain import compile_chain
    >>> lossy = Network("loss", (Station("1", F(1), capacity=3),), (Stream(F(2), choice=("1",)),))
    >>> chain = compile_chain(lossy)
    >>> proof = explain(lossy, finite_certificate(lossy, chain, check_finite(chain, [3])))
    >>> proof.title
    'loss is positive recurrent: a finite state space'
    """
    chain, caps = ctx.reading.args[0], list(ctx.reading.args[1])
    facts: FiniteStateFacts = ctx.facts.checked
    ids = chain.ids
    phases = chain.phase_vectors
    count = phases * prod(k + 1 for k in caps)
    factors = " \\cdot ".join(f"({k} + 1)" for k in caps) + (f" \\cdot {phases}" if chain.has_phases else "")
    # the checker's count is the one stated; the product is its formula, shown when it agrees
    bound = f"{factors} = {facts.states}" if count == facts.states else str(facts.states)
    space = "\\{0, \\dots, K_j\\}"
    checks = [
        para(
            "Finite state space: every station j has a finite capacity K_j (a customer whose choice set holds only full "
            "stations is lost), so ",
            Math(f"{station_tex('j')} \\in {space}"),
            f"; {'with the phase vectors of the phase-type laws, ' if chain.has_phases else 'so '}the state space ",
            Math("\\mathcal{S}"), " has at most ", Math(bound), " states.",
        ),
        reachability_para(chain),
        para("Non-explosion: the jump rates are bounded (a finite state space), so the CTMC is regular."),
    ]
    statement = [para(
        "An irreducible continuous-time Markov chain on a finite state space is positive recurrent: it has a unique "
        "invariant distribution, and the long-run fraction of time in each state is positive."
    )]
    cap_rows = tuple((s, str(k), Math(f"\\{{0, \\dots, {k}\\}}")) for s, k in zip(ids, caps))
    cap_table = Table(("station", "capacity K_j", "queue length"), cap_rows, "Capacities")
    cap_blocks, appendix = summarised(cap_table, ctx.max_rows, "All capacities")
    drain_blocks, drain_app = summarised(drain_table(chain), ctx.max_rows, "The whole drain order")
    space_blocks: list[Block] = [*cap_blocks, Display((f"\\lvert \\mathcal{{S}}\\rvert \\le {bound}",))]
    if chain.has_phases:
        space_blocks.append(para(f"The chain is the phase-type expansion of the network ({phases} phase vectors):"))
        space_blocks.extend(para(line) for line in chain.expansion)
    independent = [
        para(
            "By hand: the state count is the product of (K_j + 1) over the stations in the table above"
            + (" times the number of phase vectors" if chain.has_phases else "")
            + f", {facts.states}; from any state, serving the customers in the drain order (each along its listed route) "
            "empties the network. A breadth-first search of the finite chain from any state reaches the empty state."
        )
    ]
    sections = (
        claim_section(ctx, "positive recurrent", "a finite state space (every station has a capacity)"),
        network_section(ctx.net),
        hypotheses_section("Finite irreducible Markov chains are positive recurrent", NORRIS, statement, checks),
        Section("The state space", tuple(space_blocks)),
        Section("Reachability of the empty state", tuple(drain_blocks)),
        recheck_section(ctx, independent),
    )
    return Proof(f"{ctx.net.name} is positive recurrent: a finite state space", sections, tuple(appendix + drain_app))


def explain_theorem(ctx: Context) -> Proof:
    """The proof of a theorem certificate: the named theorem, its source, its hypotheses and deciding numbers.

    Parameters
    ----------
    ctx : Context
        A verified ``theorem`` certificate.

    Returns
    -------
    Proof
        Titled ``NAME is VERDICT: the theorem "..."``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.certificates import theorem_certificate
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.explain import explain
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> proof = explain(mm1, theorem_certificate(mm1, "generalized Jackson network (traffic equations)"))
    >>> proof.title
    'mm1 is stable: the theorem \u201cgeneralized Jackson network (traffic equations)\u201d'
    """
    facts: TheoremFacts = ctx.facts.checked
    name = f"\u201c{facts.theorem}\u201d"
    checks = [para(h) for h in facts.hypotheses] or [
        para("No hypothesis beyond the model itself.")
    ]
    statement = [para(
        f"The theorem {name} decides, for every network meeting its hypotheses, whether it is stable, by an inequality "
        "between the network's rates; where the inequality is strict it proves the verdict on that side. The checker "
        "re-ran the criterion on this network and checked each hypothesis below exactly (as it reports them)."
    )]
    numbers = Section(
        "The deciding numbers",
        (
            para(f"Re-derived by the checker from the network's exact rates: {facts.numbers}."),
            para(f"So the theorem says: {facts.verdict}."),
        ),
    )
    independent = [para(
        f"By hand: check each hypothesis listed above on the network file, recompute the numbers ({facts.numbers}) from "
        f"the rates in the tables above, and read off the verdict from the theorem's inequality ({facts.source})."
    )]
    sections = (
        claim_section(ctx, facts.verdict, f"the theorem {name}, re-run on the network"),
        network_section(ctx.net),
        hypotheses_section(facts.theorem, facts.source, statement, checks),
        numbers,
        recheck_section(ctx, independent),
    )
    return Proof(f"{ctx.net.name} is {facts.verdict}: the theorem {name}", sections)
