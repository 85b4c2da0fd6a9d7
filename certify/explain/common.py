"""What every readable proof shares: the context it is built from, the claim, the network, and how to re-check.

An explainer (one per certificate kind, named by the kind: :func:`certify.explain.explainers`)
receives a :class:`Context`: the network, the certificate file's content, the
facts :func:`~certify.certificates.verify` derived from it (an explanation is
only written for a certificate that verified), the checker's arguments as the
certificate's reader produced them, and how the reader names the files.  It
returns a :class:`~certify.explain.document.Proof` built from the sections here
and its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..certificates.reading import Reading
from ..certificates.verifier import Verified
from ..core.latex import frac_tex, set_tex, station_tex
from ..core.model import ForkJoinNetwork, Network
from ..markov.chain import Chain, drain_order
from .document import Block, Commands, Items, Math, Para, Section, Table, para

__all__ = [
    "Context", "claim_section", "network_section", "recheck_section", "hypotheses_section", "reachability_para",
    "coefficient_table", "SEMANTICS",
]

#: What each semantics means, in a sentence.
SEMANTICS = {
    "markovian": "The proof is about the continuous-time Markov chain of this network: Poisson (or the given phase-type) "
    "arrivals and exponential (or the given phase-type) service, with this network's tie-breaking.",
    "general": "The proof holds for every i.i.d. service and interarrival law with this network's means "
    "(for the stable side, with the interarrival conditions named below).",
    "fork-join-markovian": "The proof is about the continuous-time Markov chain of this system: Poisson job arrivals "
    "and exponential service at every server.",
    "fluid-model": "The proof is about the fluid model only: it shows that every fluid path drains, "
    "and says nothing about the stochastic network (some interarrival law is not unbounded and spread out).",
}


@dataclass(frozen=True)
class Context:
    """What an explainer is given.

    Attributes
    ----------
    net : Network or ForkJoinNetwork
        The network.
    cert : mapping
        The certificate, as read from its file.
    facts : Verified
        What :func:`~certify.certificates.verify` derived (the certificate verified).
    reading : Reading
        The checker's arguments, from the kind's reader.
    network_file : str
        The network file's name, for the re-check commands.
    certificate_file : str
        The certificate file's name, for the re-check commands.
    max_rows : int
        The longest table kept in the text (longer ones go to the appendix).

    Examples
    --------
    >>> Context.__dataclass_fields__["max_rows"].type
    'int'
    """

    net: Network | ForkJoinNetwork
    cert: Mapping[str, Any]
    facts: Verified[Any]
    reading: Reading
    network_file: str = "NETWORK"
    certificate_file: str = "CERT"
    max_rows: int = 20


def claim_section(ctx: Context, verdict: str, what: str) -> Section:
    """The verdict, what it proves (the checker's statement) and for which laws.

    Parameters
    ----------
    ctx : Context
        The context.
    verdict : str
        ``stable`` or ``unstable`` (or ``not positive recurrent``), as the proof concludes.
    what : str
        The kind of proof, e.g. ``a Foster-Lyapunov certificate``.

    Returns
    -------
    Section
        "Claim".

    Examples
    --------
    >>> ctx = _example_context()  # station 2 feeds itself back with probability 1: a closed set
    >>> claim_section(ctx, "not positive recurrent", "a closed set").blocks[0].parts[0][:34]
    'The network trap is not positive r'
    """
    f = ctx.facts
    return Section(
        "Claim",
        (
            para(f"The network {ctx.net.name} is {verdict}. The proof is {what}, checked exactly in rational arithmetic."),
            para(f"What it proves (as derived by the checker): {f.statement}"),
            para(SEMANTICS[key] if (key := _semantics_key(ctx)) in SEMANTICS else f"Semantics: {f.semantics}."),
        ),
    )


def _semantics_key(ctx: Context) -> str:
    fj = isinstance(ctx.net, ForkJoinNetwork) and ctx.facts.semantics == "markovian"
    return "fork-join-markovian" if fj else ctx.facts.semantics


def _choice(st: Any) -> Math | str:
    if st.choice is not None:
        return Math(set_tex(st.choice))
    if st.choices is not None:
        return "; ".join(f"{{{','.join(c)}}} w.p. {p}" for c, p in st.choices)
    from_set, d = st.sample
    return f"the shortest of {d} sampled uniformly from {{{','.join(from_set)}}}"


def network_section(net: Network | ForkJoinNetwork) -> Section:
    """The network's data: stations (rates, laws, capacities), streams, feedback and tie-breaking.

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        The network.

    Returns
    -------
    Section
        "The network", with exact rates.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> net = Network("jsq2", (Station("1", F(1)), Station("2", F(1))), (Stream(F(3, 2), choice=("1", "2")),))
    >>> sec = network_section(net)
    >>> sec.title, [c if isinstance(c, str) else c.tex for c in sec.blocks[3].rows[0][:3]]
    ('The network', ['1', '\\\\frac{3}{2}', '\\\\{1, 2\\\\}'])
    """
    if isinstance(net, ForkJoinNetwork):
        rows = tuple((sid, Math(frac_tex(mu))) for sid, mu in net.servers)
        return Section(
            "The network",
            (
                para(
                    "A fork-join redundancy system: jobs arrive at rate ", Math(frac_tex(net.rate)),
                    f"; each job forks into a task at every one of the n = {net.n} servers and leaves when k = {net.k} of its "
                    f"tasks are done (the other {net.n - net.k} are cancelled).",
                ),
                Table(("server", "service rate"), rows, "Servers"),
            ),
        )
    st_rows = tuple(
        (s.id, Math(frac_tex(s.mu)), s.service.describe(), "none" if s.capacity is None else str(s.capacity))
        for s in net.stations
    )
    blocks: list[Block] = [
        para(f"{len(net.stations)} stations; ", Math(station_tex("j")), " is the number of customers at station j."),
        Table(("station", "service rate", "service law", "capacity"), st_rows, "Stations"),
    ]
    stream_rows = tuple(
        (str(k), Math(frac_tex(st.rate)), _choice(st), st.interarrival.describe()) for k, st in enumerate(net.streams, 1)
    )
    blocks.append(para("Each arriving customer joins a shortest queue of its stream's choice set."))
    blocks.append(Table(("stream", "rate", "joins the shortest of", "interarrival law"), stream_rows, "Arrival streams"))
    if net.feedback:
        fb = tuple(
            (f.source, Math(frac_tex(f.prob)), Math(set_tex(f.choice))) for f in net.feedback
        )
        blocks.append(para("After service, a customer is routed again with the given probability (otherwise it leaves):"))
        blocks.append(Table(("from", "probability", "joins the shortest of"), fb, "Feedback"))
    ties: list[Block] = [para("Ties are broken uniformly at random among the shortest queues.")]
    if net.tie_breaking:
        items = tuple(
            para("among ", Math(set_tex(tb.set)), ": ", ", ".join(f"{s} w.p. {p}" for s, p in tb.probs)) for tb in net.tie_breaking
        )
        ties = [para("Ties are broken uniformly at random, except:"), Items(items)]
    blocks.extend(ties)
    return Section("The network", tuple(blocks))


def hypotheses_section(theorem: str, source: str, statement: Sequence[Block], checks: Sequence[Para]) -> Section:
    """The theorem the proof rests on, and each of its hypotheses with how it was checked on this network.

    Parameters
    ----------
    theorem : str
        Its name.
    source : str
        Where it is proved.
    statement : sequence of Block
        The theorem, stated.
    checks : sequence of Para
        One paragraph per hypothesis: what it asks and how it holds here.

    Returns
    -------
    Section
        "Theorem used".

    Examples
    --------
    >>> sec = hypotheses_section("A theorem", "a paper", [], [para("lam < mu: 1/2 < 1")])
    >>> sec.title, len(sec.blocks[-1].items)
    ('Theorem used', 1)
    """
    return Section(
        "Theorem used",
        (para(f"{theorem} ({source})."), *statement, para("Its hypotheses, checked on this network:"),
         Items(tuple(checks), ordered=True)),
    )


def recheck_section(ctx: Context, independent: Sequence[Block] = ()) -> Section:
    """How to re-check: ``certify verify`` (every condition re-derived), and an independent evaluation.

    Parameters
    ----------
    ctx : Context
        The context (file names).
    independent : sequence of Block
        How the conditions can be evaluated without certify's machinery.

    Returns
    -------
    Section
        "How to re-check".

    Examples
    --------
    >>> ctx = _example_context()  # station 2 feeds itself back with probability 1: a closed set
    >>> recheck_section(ctx).blocks[1].lines[0]
    'certify verify trap.json trap.cert.json'
    """
    net, cert = ctx.network_file, ctx.certificate_file
    return Section(
        "How to re-check",
        (
            para(
                "certify verify re-derives every condition above from the network file and the certificate's exact "
                "coefficients, in rational arithmetic and without a solver; it refuses a file whose claims, semantics or "
                "statement differ from what it derives:"
            ),
            Commands((f"certify verify {net} {cert}", f"certify verify {net} {cert} --json")),
            *independent,
        ),
    )


def reachability_para(chain: Chain) -> Para:
    """Why the empty state is reachable from every state, from the drain order (and the phases' finishing).

    Parameters
    ----------
    chain : Chain
        The chain.

    Returns
    -------
    Para
        The argument, in words.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> mm1 = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    >>> reachability_para(mm1).parts[1]
    Math(tex='x_{1}')
    """
    phases = (
        " Every phase of every phase-type service and interarrival law can finish, so a service in progress ends "
        "with positive probability before any other event."
        if chain.has_phases
        else ""
    )
    order = drain_order(chain) or []
    return para(
        "The checker's drain order, ", Math(", ".join(station_tex(chain.ids[i]) for i in order)),
        f", lists all {chain.J} stations: each station's customer leaves the network, or is fed back with positive "
        "probability to a set of stations drained earlier. Serving the customers one at a time along these routes (no "
        "arrival in between, which has positive probability) empties the network from any state, so the empty state is "
        "reachable from every state and the states reachable from it form the only closed class; the chain is "
        f"irreducible on it.{phases}"
    )


def checked_on(regions: int, cells: int) -> str:
    """Where a sink kind's rate inequalities were checked, in words: R''s cells (:mod:`certify.exact.cell_rates`) or regions.

    Parameters
    ----------
    regions : int
        The regions listed (every one without cells; else those of the cells whose bound did not hold).
    cells : int
        The cells checked (0: checked region by region).

    Returns
    -------
    str
        A phrase that follows "... <= c_H" in the explanation.

    Examples
    --------
    >>> checked_on(27, 0)
    "on every one of the 27 regions of R' (bounded ones included; the rates and A'g are constant on each)"
    >>> checked_on(0, 25)[:59]
    "at every state of R', cell by cell: on each of the 25 cells"
    """
    if not cells:
        return f"on every one of the {regions} regions of R' (bounded ones included; the rates and A'g are constant on each)"
    split = (f"; where that bound did not hold, the cell's {regions} regions were checked one by one" if regions
             else "; it held on every cell")
    return (f"at every state of R', cell by cell: on each of the {cells} cells (every station's queue fixed at 0, 1, ..., "
            "its table's level, or above it) each move's term is bounded by its worst over the stations it may join "
            f"there{split}")


def coefficient_table(names: Sequence[str], values: Sequence[Fraction], caption: str) -> Table:
    """The certificate's coefficients by name, exactly.

    Parameters
    ----------
    names : sequence of str
        The coefficient names, as in the file.
    values : sequence of Fraction
        Their values.
    caption : str
        What they are.

    Returns
    -------
    Table
        One row per coefficient.

    Examples
    --------
    >>> print(coefficient_table(["w[1]"], [Fraction(1, 2)], "weights").rows[0][1].tex)
    \\frac{1}{2}
    """
    return Table(("coefficient", "value"), tuple((n, Math(frac_tex(v))) for n, v in zip(names, values)), caption)


def _example_context() -> Context:
    """The context of this module's examples: a verified closed-set certificate of a two-station trap."""
    from ..certificates import closed_set_certificate, verify
    from ..certificates.kinds import REGISTRY
    from ..certificates.verifier import Verified
    from ..core.model import Feedback, Station, Stream
    from ..exact import check_closed_set
    from ..markov.chain import compile_chain

    streams = (Stream(Fraction(1, 2), choice=("1",)), Stream(Fraction(1, 10), choice=("2",)))
    trap = Network("trap", (Station("1", Fraction(1)), Station("2", Fraction(1))), streams,
                   (Feedback("2", ("2",), Fraction(1)),))
    chain = compile_chain(trap)
    cert = closed_set_certificate(trap, chain, [1], check_closed_set(chain, [1]))
    facts, reading = verify(trap, cert).facts, REGISTRY["closed-set"].read(trap, cert)
    assert isinstance(facts, Verified) and isinstance(reading, Reading)  # a real certificate: it verifies
    return Context(trap, cert, facts, reading, "trap.json", "trap.cert.json")
