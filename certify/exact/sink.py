"""The exact check of a sink-growth certificate (``docs/math/sink.md``): a station the rest of the network overloads.

A sink S receives forced feedback (i, {S}, p) from stations of the rest R. The
reduced network R' (:func:`reduced_network`) is N without S: S's choice sets lose
S, the forced feedback leaves R', S's other feedback becomes Poisson streams (S
is busy while it is long). The certificate holds a function g = w'x + T(min(x_F,
K)) on R', a rate c and a certificate that R' is positive recurrent; the check
verifies the latter against R' rebuilt here, and checks f + A'g >= c on *every*
region of R' (bounded ones too), c > mu_S (1 - p_SS), the exits of R' and that S
can be filled from empty. Pure Python, rationals only.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import lcm

from ..core.model import Feedback, Network, Stream, TieBreak
from ..markov.chain import Chain, compile_chain
from ..markov.drift import RegionDrift, cell_moves, compile_drifts
from ..markov.regions import POLL_EVERY, check_deadline, iter_regions
from .facts import Check, NestedVerdict, SinkGrowthFacts
from .growth import growth_levels, table_problem

__all__ = ["Reduction", "reduced_network", "sink_problem", "forced_rate", "check_sink_growth"]


@dataclass(frozen=True)
class Reduction:
    """The reduced network R' of a sink S, with the forced inflow and the sink's capacity.

    Attributes
    ----------
    network : Network
        R' (docs/math/sink.md).
    constant : Fraction
        lambda_S: the streams whose choice set is {S}.
    forced : dict of str to Fraction
        Station i of R' -> mu_i times its feedback probability into {S}.
    capacity : Fraction
        m_S = mu_S (1 - p_SS).

    Examples
    --------
    >>> from certify.core.model import Network, Station, Stream
    >>> net = Network("n", (Station("1", Fraction(1)),), (Stream(Fraction(1, 2), choice=("1",)),))
    >>> Reduction(net, Fraction(0), {}, Fraction(1)).capacity
    Fraction(1, 1)
    """

    network: Network
    constant: Fraction
    forced: dict[str, Fraction]
    capacity: Fraction


def sink_problem(net: Network, sink: str) -> str | None:
    """Why the sink-growth theorem does not apply to ``net`` with this sink (None when it may).

    Parameters
    ----------
    net : Network
        The network.
    sink : str
        The sink's station id.

    Returns
    -------
    str or None
        The hypothesis that fails, in words.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> one = Network("one", (Station("1", F(1)),), (Stream(F(2), choice=("1",)),))
    >>> sink_problem(one, "1")
    'the network has one station: nothing is left when the sink is removed'
    >>> sink_problem(one, "9")
    "sink: '9' is not a station of the network"
    """
    ids = net.station_ids
    if sink not in ids:
        return f"sink: {sink!r} is not a station of the network"
    if len(ids) < 2:
        return "the network has one station: nothing is left when the sink is removed"
    if net.has_capacities:
        return "the network has capacities (the theorem is for networks without losses)"
    if any(not s.service.is_exponential for s in net.stations) or any(not st.interarrival.is_exponential for st in net.streams):
        return "a service or interarrival law is not exponential (the theorem is for exponential networks)"
    for st in net.stations:
        stay = sum((f.prob for f in net.feedback if f.source == st.id and set(f.choice) - {sink}), Fraction(0))
        if st.id != sink and stay >= 1:
            return f"station {st.id} feeds back within R' with probability 1: R' would not empty (hypothesis 1)"
    if not _fillable(net, sink):
        return (f"the sink {sink} cannot be shown to fill from empty: no stream into {{{sink}}} alone, and no forced "
                "feedback into it from a station a stream reaches with positive tie probability (hypothesis 4)")
    return None


def _fillable(net: Network, sink: str) -> bool:
    """Hypothesis 4: the states (L, 0) are reachable from empty (a sufficient condition, docs/math/sink.md)."""
    sets = [C for st in net.streams for C, rate in st.routing_sets() if rate > 0]
    if any(C == (sink,) for C in sets):
        return True
    feeders = {f.source for f in net.feedback if f.choice == (sink,) and f.prob > 0 and f.source != sink}
    for C in sets:
        rest = tuple(j for j in C if j != sink)
        for i in feeders & set(C):
            later = net.tie_probs(rest).get(i, Fraction(0)) > 0  # S long, R empty: the rest of C ties at 0
            first = sink not in C or (net.tie_probs(C).get(i, Fraction(0)) + net.tie_probs(C).get(sink, Fraction(0))) > 0
            if later and first:
                return True
    return False


def reduced_network(net: Network, sink: str) -> Reduction:
    """R' of ``net`` without the sink (docs/math/sink.md), exactly.

    Parameters
    ----------
    net : Network
        An exponential JSQ network without capacities.
    sink : str
        The sink's station id.

    Returns
    -------
    Reduction
        R', lambda_S, the forced rates and m_S.

    Examples
    --------
    Station 1 feeds the sink 2 with probability 1/2; a stream chooses between them:

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(1))), (Stream(F(1, 2), choice=("1", "2")),),
    ...               (Feedback("1", ("2",), F(1, 2)),))
    >>> red = reduced_network(net, "2")
    >>> [s.choice for s in red.network.streams], red.forced, red.capacity
    ([('1',)], {'1': Fraction(1, 2)}, Fraction(1, 1))
    """
    mu = {st.id: st.mu for st in net.stations}
    streams: list[Stream] = []
    constant = Fraction(0)
    for st in net.streams:
        for C, rate in st.routing_sets():
            rest = tuple(j for j in C if j != sink)
            if rest:
                streams.append(Stream(rate, choice=rest))
            else:
                constant += rate
    feedback: list[Feedback] = []
    forced: dict[str, Fraction] = {}
    p_ss = Fraction(0)
    for f in net.feedback:
        rest = tuple(j for j in f.choice if j != sink)
        if f.source == sink:
            if rest:
                streams.append(Stream(mu[sink] * f.prob, choice=rest))
            else:
                p_ss += f.prob
        elif rest:
            feedback.append(Feedback(f.source, rest, f.prob))
        else:
            forced[f.source] = forced.get(f.source, Fraction(0)) + mu[f.source] * f.prob
    ties = tuple(TieBreak(t.set, t.probs) for t in net.tie_breaking if sink not in t.set)
    reduced = Network(f"{net.name} without {sink}", tuple(s for s in net.stations if s.id != sink), tuple(streams),
                      tuple(feedback), ties)
    return Reduction(reduced, constant, forced, mu[sink] * (1 - p_ss))


def forced_rate(red: Reduction, chain: Chain, empty: Collection[int]) -> Fraction:
    """f on a region of R' whose empty stations are ``empty``: lambda_S plus the forced rates of the busy feeders.

    Parameters
    ----------
    red : Reduction
        The reduction.
    chain : Chain
        R''s chain.
    empty : collection of int
        The region's empty stations (indices in ``chain``).

    Returns
    -------
    Fraction
        The forced rate into the sink there.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(1))), (Stream(F(1, 2), choice=("1", "2")),),
    ...               (Feedback("1", ("2",), F(1, 2)),))
    >>> red = reduced_network(net, "2")
    >>> ch = compile_chain(red.network)
    >>> forced_rate(red, ch, {0}), forced_rate(red, ch, set())
    (Fraction(0, 1), Fraction(1, 2))
    """
    return red.constant + sum((r for i, r in red.forced.items() if chain.ids.index(i) not in empty), Fraction(0))


def check_sink_growth(
    net: Network,
    sink: str,
    w: Sequence[Fraction],
    rate: Fraction,
    nested: NestedVerdict,
    table: Mapping[tuple[int, ...], Fraction] | None = None,
    fast: Sequence[int] = (),
    K: int = 0,
    deadline: float | None = None,
    drifts: Sequence[RegionDrift] | None = None,
) -> Check[SinkGrowthFacts]:
    """Check a sink-growth certificate exactly (docs/math/sink.md): every hypothesis of the theorem on ``net``.

    Parameters
    ----------
    net : Network
        The network.
    sink : str
        The sink S.
    w : sequence of Fraction
        The weights of g on the stations of R' (in R''s order).
    rate : Fraction
        The claimed c.
    nested : NestedVerdict
        What verifying the certificate of R''s positive recurrence against R' (rebuilt by
        :func:`reduced_network`) found (the verifier does it: :func:`certify.certificates.nested_verdict`).
    table, fast, K
        The bounded table of g over min(x_fast, K) (indices in R'), as for a growth certificate.
    deadline : float, optional
        A ``time.perf_counter()`` value; the region loop raises TimeLimitReached past it.
    drifts : sequence of RegionDrift, optional
        Every region of R' refined by the table's levels, as :func:`~certify.markov.regions.iter_regions` lists
        them (``prove`` passes the list its search used; ``verify`` lists them here).

    Returns
    -------
    Check of SinkGrowthFacts
        Passed with c, m_S, the number of regions and the reduced certificate's kind; or the failures.

    Examples
    --------
    Station 1 (rate 1) gets a stream of rate 1/2 and sends every customer on to the sink 2 (rate 2/5):
    the forced rate averages 1/2 > 2/5. g = x_1 gives f + A'g = 1[x_1 > 0] + (1/2 - 1[x_1 > 0]) = 1/2.

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(2, 5))), (Stream(F(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> sub = NestedVerdict(True, (), "fluid-flow", "stable", "general")  # as the verifier reports R''s certificate
    >>> chk = check_sink_growth(net, "2", [F(1)], F(1, 2), sub)
    >>> chk.ok, chk.facts.capacity
    (True, Fraction(2, 5))
    >>> check_sink_growth(net, "2", [F(1)], F(3, 5), sub).failures[0][:40]
    'f + A g = 1/2 < c = 3/5 on the region x1'
    """
    problem = sink_problem(net, sink)
    if problem is not None:
        return Check.failed([problem])
    red = reduced_network(net, sink)
    chain = compile_chain(red.network)
    failures: list[str] = []
    if len(w) != chain.J:
        return Check.failed([f"weights: {len(w)} weights for the {chain.J} stations of R'"])
    if table is not None:
        tp = table_problem(chain, fast, K)
        if tp is not None:
            return Check.failed([tp])
    if not rate > red.capacity:
        failures.append(f"rate: c = {rate} is not above the sink's capacity mu_S (1 - p_SS) = {red.capacity} (hypothesis 3)")
    if not nested.ok:
        failures.extend(f"reduced_certificate: {f}" for f in nested.failures[:3])
    elif nested.proves != "stable" or nested.semantics not in ("markovian", "general"):
        failures.append(f"reduced_certificate: a {nested.kind!r} certificate does not prove R' positive recurrent "
                        "(a stable Markovian or general certificate is needed)")
    levels = growth_levels(chain, fast, K) if table is not None else dict(chain.base_levels)
    if drifts is None:
        drifts = compile_drifts(chain, list(iter_regions(chain, levels, deadline=deadline)), deadline=deadline)
    regions = len(drifts)
    # in integers: g's coefficients over their common denominator D, the drifts' rates scaled by chain.scale
    D = 1
    for v in [*w, *(table.values() if table is not None else ())]:
        D = lcm(D, v.denominator)
    W = [int(v * D) for v in w]
    T = {c: int(v * D) for c, v in table.items()} if table is not None else None
    unit = chain.scale * D  # A'g = num / unit
    forced: dict[tuple[int, ...], Fraction] = {}
    for k, rd in enumerate(drifts):  # every region: the inequality is needed at every state, bounded ones too
        if deadline is not None and k % POLL_EVERY == 0:
            check_deadline(deadline, "the exact check of the sink-growth certificate")
        num = sum(W[a] * rd.mean[a] for a in range(chain.J))
        if T is not None:
            cell, moves, tot = cell_moves(rd, list(fast), K)
            num += sum(r * T[c2] for c2, r in moves.items()) - tot * T[cell]
        f = forced.get(rd.region.empty)
        if f is None:
            f = forced[rd.region.empty] = forced_rate(red, chain, rd.region.empty)
        # num / unit + f >= rate, cross-multiplied (positive denominators)
        if num * f.denominator * rate.denominator + f.numerator * unit * rate.denominator < rate.numerator * unit * f.denominator:
            value = Fraction(num, unit) + f
            failures.append(f"f + A g = {value} < c = {rate} on the region {rd.region.describe(chain.ids)}")
            break
    if failures:
        return Check.failed(failures, {"regions": regions})
    return Check.passed(SinkGrowthFacts(rate, red.capacity, regions, nested.kind))
