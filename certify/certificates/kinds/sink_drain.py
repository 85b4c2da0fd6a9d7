"""The ``sink-drain`` certificate: the rest of the network drains a sink, or a set of sinks (``docs/math/drain.md``).

The payload names the sink (``sink``: a station id, or a list of station ids for
a set G), a quadratic Foster function W = y'Py of the reduced network R'
(``reduced_lyapunov``: P's upper triangle by the quadratic template's names on
R''s stations, every entry >= 0), the function g_G on R' (``weights``, optional
``table``: K, fast, values) and the rate c_G (``rate``); for a set, optional
``subsets`` give proper subsets H their own g_H (``weights``, ``values``) and c_H
(``rate``), exactly as a ``sink-growth`` certificate's. The checker
(:func:`certify.exact.drain.check_sink_drain`) rebuilds R', checks W, u_H + A'g_H
<= c_H on every region of R', c_H < mu(H), g_H's monotonicity, W on R' with the
ties' excess added, and N's drain order. Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ...core.certificate import Certificate
from ...core.envelope import seal
from ...core.errors import CertificateError
from ...core.jsontypes import JsonObject
from ...core.model import Network
from ...core.numbers import q, unq
from ...exact.drain import check_sink_drain, drain_problem, tie_excess
from ...exact.facts import Check, SinkDrainFacts
from ...exact.sink import Subset, reduced_network
from ...markov.chain import Chain, compile_chain
from ...markov.drift import Clip
from ...templates import TEMPLATES
from ..reading import Reading, field_map, named_rationals
from .base import Kind, Statement, primitives
from .sink_growth import bounded_denominator, functions_payload, read_functions, read_sinks

__all__ = ["sink_drain_claims", "sink_drain_certificate", "read_sink_drain", "sink_drain_statement", "KIND"]


def sink_drain_claims(f: SinkDrainFacts) -> JsonObject:
    """The claims of a ``sink-drain`` certificate.

    Parameters
    ----------
    f : SinkDrainFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``rate``, ``capacity``, ``cells`` (when checked cell by cell) and ``regions`` (those listed), ``delta``
        (W's), for a set ``subsets``, and ``tie_excess`` (eps_t by station) when ties with the sinks send R' more
        than it sends itself.

    Examples
    --------
    >>> sink_drain_claims(SinkDrainFacts(Fraction(2, 5), Fraction(1, 2), 0, Fraction(1, 8), cells=4))
    {'rate': '2/5', 'capacity': '1/2', 'cells': 4, 'regions': 0, 'delta': '1/8'}
    >>> sink_drain_claims(SinkDrainFacts(Fraction(2, 5), Fraction(1, 2), 7, Fraction(1, 8)))  # checked by regions
    {'rate': '2/5', 'capacity': '1/2', 'regions': 7, 'delta': '1/8'}
    """
    out: JsonObject = {"rate": q(f.rate), "capacity": q(f.capacity)}
    if f.cells:
        out["cells"] = f.cells
    out.update({"regions": f.regions, "delta": q(f.delta)})
    if f.sinks:
        out["subsets"] = [{"set": list(H), "rate": q(c), "capacity": q(m)} for H, c, m in f.subsets]
    if f.excess:
        out["tie_excess"] = {t: q(v) for t, v in f.excess}
    return out


def sink_drain_certificate(net: Network, sink: str | Sequence[str], lyapunov: Sequence[Fraction],
                           w: Sequence[Fraction], rate: Fraction, check: Check[SinkDrainFacts],
                           table: Mapping[tuple[int, ...], Fraction] | None = None, fast: Sequence[int] = (),
                           K: Clip = 0, subsets: Sequence[Subset] = ()) -> Certificate:
    """A ``sink-drain`` certificate, from a passing :func:`~certify.exact.drain.check_sink_drain`.

    Parameters
    ----------
    net : Network
        The network.
    sink : str or sequence of str
        The sink, or a set of sinks.
    lyapunov : sequence of Fraction
        W's P on R', in the quadratic template's variable order.
    w : sequence of Fraction
        The weights of g_G, in the order of R''s stations.
    rate : Fraction
        c_G.
    check : Check of SinkDrainFacts
        The passing check of exactly these arguments.
    table, fast, K
        g_G's bounded table (indices in R'), or None.
    subsets : sequence of (tuple of str, sequence of Fraction, Fraction, dict or None), optional
        Proper subsets with their own g_H and c_H.

    Returns
    -------
    Certificate
        The sealed certificate.

    Examples
    --------
    Station 1 sends every customer on to the sink 2 (rate 3/5 > the forced 1/2):

    >>> from certify.core.model import Feedback, Station, Stream
    >>> F = Fraction
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(3, 5))), (Stream(F(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> chk = check_sink_drain(net, "2", [F(1)], [F(1)], F(1, 2))
    >>> cert = sink_drain_certificate(net, "2", [F(1)], [F(1)], F(1, 2), chk)
    >>> cert["kind"], cert["claims"]["capacity"], cert["reduced_lyapunov"]
    ('sink-drain', '3/5', {'P[1,1]': '1'})
    """
    red = compile_chain(reduced_network(net, sink).network)
    names = TEMPLATES["quadratic"](red, []).variables()
    payload: JsonObject = {"sink": sink if isinstance(sink, str) else list(sink),
                           "reduced_lyapunov": {n: q(v) for n, v in zip(names, lyapunov)},
                           **functions_payload(list(red.ids), w, rate, table, fast, K, subsets)}
    return seal(net, "sink-drain", payload, sink_drain_claims(check.facts),
                *sink_drain_statement(net, None, _template(sink, bool(subsets), bool(check.facts.excess))))


def _template(sink: str | Sequence[str], listed: bool, excess: bool) -> str:
    """The statement's case: ``""`` (one sink), ``"set"``, or ``"set-ties"`` (subsets with their own functions where
    ties add work to R', hypothesis 1's second case)."""
    if isinstance(sink, str):
        return ""
    return "set-ties" if listed and excess else "set"


def read_sink_drain(net: Network, cert: Mapping[str, Any]) -> Reading | str:
    """Read a ``sink-drain`` certificate: the sink, W on R', g_G (weights and optional table), c_G and the subsets.

    Parameters
    ----------
    net : Network
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading or str
        The arguments of :func:`~certify.exact.drain.check_sink_drain`, or why the theorem does not apply.

    Raises
    ------
    CertificateError
        When ``sink``, ``reduced_lyapunov``, a weight, ``rate``, the table or ``subsets`` is malformed, or a common
        denominator exceeds 2^MAX_DENOMINATOR_BITS.

    Examples
    --------
    >>> from certify.core.model import Station, Stream
    >>> one = Network("one", (Station("1", Fraction(1)), Station("2", Fraction(1))), (Stream(Fraction(1), choice=("1",)),))
    >>> read_sink_drain(one, {"sink": "2", "reduced_lyapunov": {"P[2,2]": "1"}})
    Traceback (most recent call last):
    ...
    certify.core.errors.CertificateError: reduced_lyapunov: must name exactly 1 values: missing ['P[1,1]'], unexpected ['P[2,2]']
    """
    sink = read_sinks(net, cert.get("sink"))
    if "subsets" in cert and isinstance(sink, str):
        raise CertificateError(None, "subsets", "is only for a set of sinks (sink a list of stations)")
    problem = drain_problem(net, sink)
    if problem is not None:
        return problem
    chain: Chain = compile_chain(reduced_network(net, sink).network)
    names = TEMPLATES["quadratic"](chain, []).variables()
    given = named_rationals(field_map(cert, "reduced_lyapunov"), names, "reduced_lyapunov")
    lyapunov = [given[n] for n in names]
    bounded_denominator(lyapunov, "reduced_lyapunov", "P's entries")
    vals = named_rationals(field_map(cert, "weights"), list(chain.ids), "weights")
    w = [vals[s] for s in chain.ids]
    rate = unq(cert.get("rate"), "rate")
    kwargs = read_functions(chain, cert, w)
    excess = not isinstance(sink, str) and bool(kwargs.get("subsets")) and bool(tie_excess(net, sink))
    return Reading((net, sink, lyapunov, w, rate), kwargs, None, _template(sink, bool(kwargs.get("subsets")), excess))


def sink_drain_statement(net: Any, chain: Chain | None, template: str) -> Statement:
    """What a sink-drain certificate proves on ``net`` (semantics, statement), derived, never read.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain or None
        Unused (the kind is for exponential networks).
    template : str
        ``"set"`` for a set of sinks (the reader says so), ``"set-ties"`` for a set whose listed subsets' inequalities
        hold on R'_eps (ties add work to R'), else ``""``.

    Returns
    -------
    tuple of str
        The semantics and the statement.

    Examples
    --------
    >>> sink_drain_statement(None, None, "")[0]
    'markovian'
    """
    if template == "set-ties":
        return "markovian", (
            "the reduced network R' (the set G of sinks removed) has a quadratic Foster function that no arrival "
            "decreases and, for every non-empty subset H of G, the work that can reach H while it holds G's longest "
            "queues averages at most a rate c_H below what H serves, mu(H), along R''s paths for G and along the paths "
            "of R' with a Poisson stream added into each station of R' that a tie with the sinks sends more than R' "
            "does (the tie's largest excess) for a proper subset with its own function (u_H + A'g_H <= c_H at every "
            "state, g_H not decreasing along those stations); W drains R' with those streams, and no departure from "
            "R' carries the excess: the chain is positive recurrent (docs/math/drain.md), "
            f"{primitives(None)}."
        )
    if template == "set":
        what = ("the reduced network R' (the set G of sinks removed) has a quadratic Foster function that no arrival "
                "decreases and, for every non-empty subset H of G, the work that can reach H while it holds G's longest "
                "queues averages at most a rate c_H below what H serves, mu(H), along R''s paths (u_H + A'g_H <= c_H at "
                "every state of R')")
    else:
        what = ("the reduced network R' (the sink removed) has a quadratic Foster function that no arrival decreases "
                "and the work that can reach the sink averages at most rate < capacity along R''s paths (u + A'g <= "
                "rate at every state of R')")
    return "markovian", (
        f"{what}; W drains R' with a Poisson stream added into each station of R' that a tie with the sinks sends "
        f"more than R' does (the tie's largest excess; none when ties never do), and where such a tie exists no "
        f"proper subset of the sinks has its own function: the chain is positive recurrent (docs/math/drain.md), "
        f"{primitives(None)}."
    )


KIND = Kind("sink-drain", "stable", ("sink", "reduced_lyapunov", "weights", "rate"), read_sink_drain,
            check_sink_drain, sink_drain_claims, sink_drain_statement, "certify.explain.drain:explain_sink_drain",
            optional=("table", "subsets"))
