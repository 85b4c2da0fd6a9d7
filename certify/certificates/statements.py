"""What each kind of certificate proves on a network: its semantics and statement, derived, never read.

The semantics (for which laws the verdict holds: ``markovian``, ``general``,
``fluid-model``) and the one-paragraph statement printed by ``certify verify``
depend only on the kind, the template, the chain's phases and the network
(:func:`derived_claim`); a file whose stored ones differ is refused, so a
markovian proof is never reported as general and no forged sentence is ever
printed.  Pure Python.
"""

from __future__ import annotations

from ..core.errors import CertificateError
from ..core.hypotheses import dai_violations
from ..core.model import ForkJoinNetwork, Network
from ..exact.theorem_check import decisive_theorem
from ..markov.chain import Chain, compile_chain, drain_order, emptying_order
from .overflow import OVERFLOW_STATEMENTS
from .readers import KINDS

__all__ = ["STATEMENTS", "derived_claim"]

# What each fork-join certificate proves (semantics, statement): derived by the checker, never read from a file.
STATEMENTS: dict[str, tuple[str, str]] = {
    "fork-join-capacity": (
        "markovian",
        "Each departing job has k completed tasks at k distinct servers, so the job throughput is at most "
        "d(R^c)/(k-|R|) (the servers in R count at most once per job), which is below the job rate: the number "
        "of jobs grows linearly, for every arrival process with this rate and exponential services (flow balance).",
    ),
    "fork-join-independent": (
        "markovian",
        "k = n: no task is cancelled and every server is an M/M/1 queue fed by every job; V = sum_i Q_i^2 has "
        "AV <= -slope |q|_1 + n lam + mu* <= -1 whenever |q|_1 >= bound: positive recurrent (Foster), for Poisson "
        "jobs and exponential servers.",
    ),
    "fork-join-foster": (
        "markovian",
        "V = N + h(min(N - Q, K)) (N = max queue = jobs present, h a bounded table over the clipped lags) has "
        "AV <= -delta at every state with N > K, on every region of lag levels (one per orbit of equal-rate "
        "servers); the empty state is reachable from every state: positive recurrent (Foster), for Poisson jobs "
        "and exponential servers.",
    ),
}


def _primitives(chain: Chain | None) -> str:
    if chain is not None and chain.has_phases:
        return "for the phase-type service and interarrival laws of phase_expansion, with this network's tie-breaking"
    return "for exponential service and interarrival times, with this network's tie-breaking"


def _theorem_statement(net: Network | ForkJoinNetwork, name: str) -> tuple[str, str]:
    """(semantics, statement) of a theorem certificate: the theorem re-run on ``net`` (CertificateError when it does not decide)."""
    tv = decisive_theorem(net, name)
    hyp = "; ".join(tv.hypotheses) if tv.hypotheses else "none beyond the model"
    statement = (
        f"The theorem '{tv.theorem}' ({tv.source}) applies: its hypotheses hold on this network, checked exactly "
        f"({hyp}), and it says {tv.verdict}: {tv.numbers}."
    )
    return tv.semantics, statement


def derived_claim(kind: str, net: Network | ForkJoinNetwork, chain: Chain | None = None, template: str = "") -> tuple[str, str]:
    """The (semantics, statement) that a certificate of ``kind`` proves on ``net``, derived, never read.

    ``chain`` is the Markov chain the certificate is about (phase-type chains
    change the statement); ``template`` names the Lyapunov template (the
    theorem, for a theorem certificate).  A fluid certificate proves positive
    Harris recurrence only under Dai's conditions on the interarrival times;
    where the network breaks them (deterministic interarrivals) it proves only
    that the fluid model is stable (semantics ``fluid-model``).

    Parameters
    ----------
    kind : str
        The certificate kind (one of :data:`~certify.certificates.readers.KINDS`).
    net : Network or ForkJoinNetwork
        The network.
    chain : Chain, optional
        The chain the certificate is about.
    template : str
        The template's (or theorem's) name.

    Returns
    -------
    semantics : str
        ``markovian``, ``general`` or ``fluid-model``.
    statement : str
        What the certificate proves, in one paragraph.

    Raises
    ------
    CertificateError
        When the kind is unknown, or the theorem of a theorem certificate does
        not decide on ``net``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> derived_claim("static-split", mm1)[0], derived_claim("foster", mm1, template="quadratic")[0]
    ('general', 'markovian')
    """
    if kind == "foster":
        return "markovian", (
            f"V (template {template}) is bounded below and AV(x) <= -delta for every state with |x|_1 >= bound; "
            f"the empty state is reachable from every state: positive recurrent (Foster), {_primitives(chain)}."
        )
    if kind == "growth":
        return "markovian", (
            "f = w'x (+ bounded table) has bounded increments and Af >= delta on {f > level}: transient "
            f"(Fayolle-Malyshev-Menshikov Thm 2.2.7), hence not positive recurrent, {_primitives(chain)}."
        )
    if kind == "finite-state":
        return "markovian", (
            "Every station has a finite capacity, so the chain lives on at most `states` states, and the empty "
            f"state is reachable from every state: an irreducible finite CTMC is positive recurrent, {_primitives(chain)}."
        )
    if kind == "static-split":
        losses = isinstance(net, Network) and net.has_capacities
        return "general", (
            "No routing of the offered traffic"
            + (", even one losing every customer whose choice set holds only capped stations," if losses else "")
            + " keeps every station below its service rate: "
            "not positive recurrent under any policy and any distributions with these means (flow balance"
            + (" with losses" if losses else "")
            + ")."
        )
    if kind == "closed-set":
        return "general", (
            "Customers never leave the stations listed (every feedback from them stays among them with probability 1) "
            "and exogenous arrivals enter them at rate `inflow` > 0: their queue lengths tend to infinity almost surely, "
            "under every tie-breaking rule and every i.i.d. service and interarrival law with these means."
        )
    if kind in ("fluid", "fluid-flow"):  # fluid-flow: a linear fluid certificate checked by the max-flow bound
        fluid = (
            "Along every fluid path, under every tie-breaking rule, dV/dt <= -delta |z|_1 (quadratic) or <= -delta "
            "(linear) away from 0, and V >= eta |z|^2 (or eta |z|_1): the fluid model is stable"
        )
        means = compile_chain(net) if isinstance(net, Network) else None
        if means is not None and emptying_order(means) is None:
            return "fluid-model", (
                f"{fluid}. Dai's theorem needs the network to empty when no customer arrives, which is not shown "
                "here (a customer may cycle forever through ties broken as given): nothing is claimed about the "
                "network itself."
            )
        missing = dai_violations(net) if isinstance(net, Network) else []
        if missing:
            return "fluid-model", (
                f"{fluid}. Dai's theorem needs every interarrival law unbounded and spread out, which this network "
                f"breaks ({'; '.join(missing)}): nothing is claimed about the network itself."
            )
        ties = "" if means is None or drain_order(means) is not None else (
            ", with the tie-breaking given (the network empties when no customer arrives only through its ties)")
        return "general", (
            f"{fluid}, so the network is positive Harris recurrent{ties} for every i.i.d. service and interarrival law "
            "with these means whose interarrival times are unbounded and spread out (Dai 1995; Dai-Hasenbein-Kim 2007)."
        )
    if kind == "theorem":
        return _theorem_statement(net, template)
    if kind in STATEMENTS:
        return STATEMENTS[kind]
    if kind in OVERFLOW_STATEMENTS:
        return OVERFLOW_STATEMENTS[kind]
    raise CertificateError(None, "kind", f"unknown certificate kind {kind!r} (one of {', '.join(KINDS)})")
