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

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import combinations
from typing import Literal

from ..core.model import Feedback, Network, Stream, TieBreak
from ..markov.chain import Chain, compile_chain
from ..markov.drift import Clip, RegionDrift
from .cell_rates import Claim, claims_failure
from .facts import Check, NestedVerdict, SinkGrowthFacts
from .growth import table_problem

#: The most stations of a set of sinks (the check visits every subset: 254 proper ones at 8). The theorems hold for
#: any set; 4 until stop 47, when J = 8 seed 65's six stations {1, 2, 3, 5, 6, 7} needed more.
MAX_SET = 8

__all__ = ["MAX_SET", "Reduction", "reduced_network", "sink_problem", "sink_set", "forced_rate", "proper_subsets",
           "listed_subsets", "check_sink_growth"]


@dataclass(frozen=True)
class Reduction:
    """The reduced network R' of a sink S (or of a set G of sinks), with the inflow forced into G and G's capacity.

    Attributes
    ----------
    network : Network
        R' (docs/math/sink.md).
    constant : Fraction
        lambda_G: the streams whose choice set lies inside G.
    forced : dict of str to Fraction
        Station i of R' -> mu_i times its feedback probability into choice sets inside G.
    capacity : Fraction
        m_G: mu_S (1 - p_SS) for one sink; for a set, the sum of G's rates less G's feedback into choice sets
        inside G.
    sinks : tuple of str
        G (one station for a single sink).
    inflow : tuple of (tuple of str, Fraction)
        The streams into choice sets C inside G, with their rates.
    feeds : tuple of (str, tuple of str, Fraction)
        Forced feedback (i, C, mu_i p) from i in R' into C inside G.
    internal : tuple of (str, tuple of str, Fraction)
        G's feedback (j, C, mu_j p) into C inside G.
    mu : dict of str to Fraction
        The service rates of G.

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
    sinks: tuple[str, ...] = ()
    inflow: tuple[tuple[tuple[str, ...], Fraction], ...] = ()
    feeds: tuple[tuple[str, tuple[str, ...], Fraction], ...] = ()
    internal: tuple[tuple[str, tuple[str, ...], Fraction], ...] = ()
    mu: dict[str, Fraction] = field(default_factory=dict)

    def served(self, H: Collection[str] | None = None) -> Fraction:
        """mu(H): the sum of the service rates of the sinks in H (default all of G).

        Parameters
        ----------
        H : collection of str, optional
            A subset of G (default G itself).

        Returns
        -------
        Fraction
            The sum of mu_j over j in H.

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> from certify.core.model import Network, Station, Stream
        >>> net = Network("n", (Station("1", F(1)), Station("2", F(1, 2)), Station("3", F(1, 3))),
        ...               (Stream(F(1), choice=("1",)),))
        >>> red = reduced_network(net, ("2", "3"))
        >>> red.served(), red.served(["3"])
        (Fraction(5, 6), Fraction(1, 3))
        """
        return sum((self.mu[j] for j in (self.sinks if H is None else H)), Fraction(0))

    def part(self, H: Collection[str]) -> Reduction:
        """The same R' with the inflow and capacity of a subset H of G: f_H counts the choice sets meeting H.

        Parameters
        ----------
        H : collection of str
            A nonempty subset of G.

        Returns
        -------
        Reduction
            ``constant``, ``forced`` and ``capacity`` those of H (m_H: docs/math/sink.md, sets of sinks).

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> from certify.core.model import Network, Station, Stream
        >>> net = Network("n", tuple(Station(s, F(1)) for s in "123"), (Stream(F(1, 2), choice=("2", "3")),
        ...               Stream(F(1, 4), choice=("3",)), Stream(F(1), choice=("1",))))
        >>> red = reduced_network(net, ("2", "3"))
        >>> [(red.part(H).constant, red.part(H).capacity) for H in (("2",), ("3",), ("2", "3"))]
        [(Fraction(1, 2), Fraction(1, 1)), (Fraction(3, 4), Fraction(1, 1)), (Fraction(3, 4), Fraction(2, 1))]
        """
        constant, forced = _part(H, self.inflow, self.feeds)
        return replace(self, constant=constant, forced=forced, capacity=_capacity(H, self.mu, self.internal))


def sink_problem(net: Network, sink: str | Sequence[str]) -> str | None:
    """Why the sink-growth theorem does not apply to ``net`` with this sink or set of sinks (None when it may).

    Parameters
    ----------
    net : Network
        The network.
    sink : str or sequence of str
        The sink's station id, or a set G of sinks (docs/math/sink.md, sets of sinks).

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
    G = sink_set(sink)
    ids = net.station_ids
    for j in G:
        if j not in ids:
            return f"sink: {j!r} is not a station of the network"
    if len(set(G)) != len(G):
        return f"sink: the set {list(G)} names a station twice"
    if len(G) > MAX_SET:
        return f"sink: a set of {len(G)} sinks is more than {MAX_SET} (every one of its 2^|G| - 1 subsets is checked)"
    if len(ids) <= len(G):
        what = "the network has one station" if len(ids) < 2 else "the sinks are every station"
        return f"{what}: nothing is left when the sink is removed"
    if net.has_capacities:
        return "the network has capacities (the theorem is for networks without losses)"
    if any(not s.service.is_exponential for s in net.stations) or any(not st.interarrival.is_exponential for st in net.streams):
        return "a service or interarrival law is not exponential (the theorem is for exponential networks)"
    for st in net.stations:
        stay = sum((f.prob for f in net.feedback if f.source == st.id and set(f.choice) - set(G)), Fraction(0))
        if st.id not in G and stay >= 1:
            return f"station {st.id} feeds back within R' with probability 1: R' would not empty (hypothesis 1)"
    if len(G) == 1 and not _fillable(net, G[0]):
        return (f"the sink {G[0]} cannot be shown to fill from empty: no stream into {{{G[0]}}} alone, and no forced "
                "feedback into it from a station a stream reaches with positive tie probability (hypothesis 4)")
    if len(G) > 1 and not _fillable_set(net, G):
        return (f"the sinks {{{', '.join(G)}}} cannot be shown to fill from empty: the routing sets inside them (streams, "
                "the feedback of stations of R' that a stream reaches while R' is empty, and their own feedback inside "
                "them) do not reach each of them in turn (hypothesis 4)")
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


def _fillable_set(net: Network, G: Sequence[str]) -> bool:
    """Hypothesis 4 for a set: from (l 1_G, 0) the moves inside G reach ((l + 1) 1_G, 0), R' empty throughout.

    The states on the way are (l 1_G + 1_D, 0) for a set D of raised stations, searched (every set reached, once)
    from D empty to D = G.  A move raises a station of the lowest ones it may join: an arrival into a routing set inside G (a stream's
    choice set, or a relay's: the feedback (i, C, p) with C inside G of a station i of R that a stream reaches with
    positive tie probability while R is empty), or a *transfer*: a service at a raised station i of G whose feedback
    (i, C, p), p > 0, has C inside G (i falls back to l, the customer joins C's lowest stations)
    (docs/math/sink.md, hypothesis 4).
    """
    inside = set(G)
    streams = [tuple(C) for st in net.streams for C, rate in st.routing_sets() if rate > 0]
    relays = {(f.source, tuple(f.choice)) for f in net.feedback
              if f.prob > 0 and f.source not in inside and set(f.choice) <= inside}
    transfers = {(f.source, tuple(f.choice)) for f in net.feedback
                 if f.prob > 0 and f.source in inside and set(f.choice) <= inside}

    def reached(i: str, done: frozenset[str]) -> bool:
        """A stream joins i from (l 1_G + 1_done, 0): for l >= 1 R's stations of its set tie at 0; for l = 0 so do
        the stations of G not yet raised."""
        for C in streams:
            if i not in C:
                continue
            rest = tuple(j for j in C if j not in inside)
            low = tuple(j for j in C if j not in done)
            if net.tie_probs(rest).get(i, Fraction(0)) > 0 and net.tie_probs(low).get(i, Fraction(0)) > 0:
                return True
        return False

    def joined(C: tuple[str, ...], done: frozenset[str]) -> list[frozenset[str]]:
        """Each station a customer entering C may join (one of C's stations not raised, with positive tie
        probability among them), added to ``done``."""
        low = tuple(j for j in C if j not in done)
        return [done | {j} for j in low if net.tie_probs(low).get(j, Fraction(0)) > 0]

    full = frozenset(inside)
    own = {C for C in streams if set(C) <= inside}  # the streams' sets inside G: open from every state on the way
    seen, todo = {frozenset[str]()}, [frozenset[str]()]
    while todo:
        done = todo.pop()
        if done == full:
            return True
        nxt = [d for C in sorted(own | {C for i, C in relays if reached(i, done)}) for d in joined(C, done)]
        nxt += [d for i, C in sorted(transfers) if i in done for d in joined(C, done - {i})]
        for d in nxt:
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return False


def sink_set(sink: str | Sequence[str]) -> tuple[str, ...]:
    """The sink set G: one station id, or several.

    Parameters
    ----------
    sink : str or sequence of str
        A station id, or several.

    Returns
    -------
    tuple of str
        G.

    Examples
    --------
    >>> sink_set("2"), sink_set(["2", "3"])
    (('2',), ('2', '3'))
    """
    return (sink,) if isinstance(sink, str) else tuple(sink)


def reduced_network(net: Network, sink: str | Sequence[str]) -> Reduction:
    """R' of ``net`` without the sink, or without a set G of sinks (docs/math/sink.md), exactly.

    Parameters
    ----------
    net : Network
        An exponential JSQ network without capacities.
    sink : str or sequence of str
        The sink's station id, or the ids of a set G of sinks.

    Returns
    -------
    Reduction
        R', the constant and forced inflows into G and G's capacity, with the parts of every subset of G.

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
    G = tuple(sorted(set(sink_set(sink)), key=net.station_ids.index))  # R' does not depend on how G is listed
    mu = {st.id: st.mu for st in net.stations}
    streams: list[Stream] = []
    inflow: list[tuple[tuple[str, ...], Fraction]] = []
    for st in net.streams:
        for C, rate in st.routing_sets():
            rest = tuple(j for j in C if j not in G)
            if rest:
                streams.append(Stream(rate, choice=rest))
            else:
                inflow.append((tuple(C), rate))
    feedback: list[Feedback] = []
    feeds: list[tuple[str, tuple[str, ...], Fraction]] = []
    internal: list[tuple[str, tuple[str, ...], Fraction]] = []
    for f in net.feedback:
        rest = tuple(j for j in f.choice if j not in G)
        if f.source in G:
            if rest:
                streams.append(Stream(mu[f.source] * f.prob, choice=rest))
            else:
                internal.append((f.source, tuple(f.choice), mu[f.source] * f.prob))
        elif rest:
            feedback.append(Feedback(f.source, rest, f.prob))
        else:
            feeds.append((f.source, tuple(f.choice), mu[f.source] * f.prob))
    ties = tuple(TieBreak(t.set, t.probs) for t in net.tie_breaking if not set(t.set) & set(G))
    name = f"{net.name} without {', '.join(G)}"
    reduced = Network(name, tuple(s for s in net.stations if s.id not in G), tuple(streams), tuple(feedback), ties)
    constant, forced = _part(G, inflow, feeds)
    return Reduction(reduced, constant, forced, _capacity(G, mu, internal), G, tuple(inflow), tuple(feeds),
                     tuple(internal), {j: mu[j] for j in G})


def _part(H: Collection[str], inflow: Sequence[tuple[tuple[str, ...], Fraction]],
          feeds: Sequence[tuple[str, tuple[str, ...], Fraction]]) -> tuple[Fraction, dict[str, Fraction]]:
    """lambda_H and the forced rates into the choice sets (inside G) that meet H."""
    constant = sum((r for C, r in inflow if set(C) & set(H)), Fraction(0))
    forced: dict[str, Fraction] = {}
    for i, C, r in feeds:
        if set(C) & set(H):
            forced[i] = forced.get(i, Fraction(0)) + r
    return constant, forced


def _capacity(H: Collection[str], mu: Mapping[str, Fraction],
              internal: Sequence[tuple[str, tuple[str, ...], Fraction]]) -> Fraction:
    """m_H: what H serves when it holds G's shortest queues, less G's feedback into the choice sets meeting H."""
    return sum((mu[j] for j in H), Fraction(0)) - sum((r for _, C, r in internal if set(C) & set(H)), Fraction(0))


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


#: One subset H of a set of sinks with its own rate function: (H, weights on R', c_H, table values or None).
Subset = tuple[tuple[str, ...], Sequence[Fraction], Fraction, Mapping[tuple[int, ...], Fraction] | None]


def proper_subsets(G: Sequence[str]) -> set[tuple[str, ...]]:
    """The proper non-empty subsets of a set of sinks, each sorted.

    Parameters
    ----------
    G : sequence of str
        The sinks.

    Returns
    -------
    set of tuple of str
        Every H with at least one station of G and not all of them.

    Examples
    --------
    >>> sorted(proper_subsets(("1", "2")))
    [('1',), ('2',)]
    """
    return {H for n in range(1, len(G)) for H in combinations(sorted(G), n)}


def listed_subsets(G: Sequence[str], subsets: Sequence[Subset], J: int, has_table: bool
                   ) -> dict[tuple[str, ...], Subset] | str:
    """The subsets a certificate lists with their own functions, by sorted H; or why the list is malformed.

    Parameters
    ----------
    G : sequence of str
        The sinks.
    subsets : sequence of Subset
        (H, weights, c_H, table values or None) as read.
    J : int
        The stations of R' (the number of weights each needs).
    has_table : bool
        Whether the certificate has a table (then each subset needs its values, else none).

    Returns
    -------
    dict or str
        The entries by sorted H, or ``"subsets: ..."`` naming the first problem.

    Examples
    --------
    >>> listed_subsets(("1", "2"), [(("1", "2"), [Fraction(0)], Fraction(1), None)], 1, False)
    "subsets: ['1', '2'] is not a proper non-empty subset of the sinks ['1', '2']"
    """
    proper = proper_subsets(G)
    listed: dict[tuple[str, ...], Subset] = {}
    for entry in subsets:
        H = tuple(sorted(entry[0]))
        if H not in proper:
            return f"subsets: {list(entry[0])} is not a proper non-empty subset of the sinks {list(G)}"
        if H in listed:
            return f"subsets: {list(H)} is listed twice"
        if len(entry[1]) != J:
            return f"subsets: {list(H)}: {len(entry[1])} weights for the {J} stations of R'"
        if (entry[3] is None) != (not has_table):
            return f"subsets: {list(H)}: table values are needed exactly when the certificate has a table"
        listed[H] = (H, entry[1], entry[2], entry[3])
    return listed


def check_sink_growth(
    net: Network,
    sink: str | Sequence[str],
    w: Sequence[Fraction],
    rate: Fraction,
    nested: NestedVerdict,
    table: Mapping[tuple[int, ...], Fraction] | None = None,
    fast: Sequence[int] = (),
    K: Clip = 0,
    deadline: float | None = None,
    drifts: Sequence[RegionDrift] | None = None,
    subsets: Sequence[Subset] = (),
    by: Literal["cells", "regions"] = "cells",
) -> Check[SinkGrowthFacts]:
    """Check a sink-growth certificate exactly (docs/math/sink.md): every hypothesis of the theorem on ``net``.

    Parameters
    ----------
    net : Network
        The network.
    sink : str or sequence of str
        The sink S, or a set G of sinks (the set-sink theorem).
    w : sequence of Fraction
        The weights of g on the stations of R' (in R''s order).
    rate : Fraction
        The claimed c (c_G for a set).
    nested : NestedVerdict
        What verifying the certificate of R''s positive recurrence against R' (rebuilt by
        :func:`reduced_network`) found (the verifier does it: :func:`certify.certificates.nested_verdict`).
    table, fast, K
        The bounded table of g over min(x_fast, K) (indices in R'), as for a growth certificate.
    deadline : float, optional
        A ``time.perf_counter()`` value; the region loop raises TimeLimitReached past it.
    drifts : sequence of RegionDrift, optional
        Every region of R' refined by the table's levels, as :func:`~certify.markov.regions.iter_regions` lists
        them, for the check region by region (listed here when needed and not given).
    subsets : sequence of (tuple of str, sequence of Fraction, Fraction, dict or None), optional
        For a set of sinks: proper subsets H with their own g_H (weights, table values over the same cells) and
        c_H. Every other proper subset is checked with g_H = 0 and c_H its constant inflow lambda_H.
    by : {"cells", "regions"}
        Check f + A'g >= c cell by cell (:mod:`certify.exact.cell_rates`, the default) or region by region (how
        certificates written before the cell check were checked; their claims name no cells). Both accept
        exactly the same functions.

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
    G = sink_set(sink)
    red = reduced_network(net, G)
    chain = compile_chain(red.network)
    failures: list[str] = []
    if len(w) != chain.J:
        return Check.failed([f"weights: {len(w)} weights for the {chain.J} stations of R'"])
    if table is not None:
        tp = table_problem(chain, fast, K)
        if tp is not None:
            return Check.failed([tp])
    proper = proper_subsets(G)
    listed = listed_subsets(G, subsets, chain.J, table is not None)
    if isinstance(listed, str):
        return Check.failed([listed])
    what = "the sink's capacity mu_S (1 - p_SS)" if len(G) == 1 else "G's capacity m_G"
    if not rate > red.capacity:
        failures.append(f"rate: c = {rate} is not above {what} = {red.capacity} (hypothesis 3)")
    sub_facts: list[tuple[tuple[str, ...], Fraction, Fraction]] = []
    for H in sorted(proper, key=lambda H: (len(H), H)):
        part = red.part(H)
        c_H = listed[H][2] if H in listed else part.constant
        sub_facts.append((H, c_H, part.capacity))
        if not c_H > part.capacity:
            where = "its rate" if H in listed else "its constant inflow lambda_H (not listed in subsets)"
            failures.append(f"subsets: for H = {{{', '.join(H)}}}, {where} c_H = {c_H} is not above m_H = "
                            f"{part.capacity} (hypothesis 3)")
    if not nested.ok:
        failures.extend(f"reduced_certificate: {f}" for f in nested.failures[:3])
    elif nested.proves != "stable" or nested.semantics not in ("markovian", "general"):
        failures.append(f"reduced_certificate: a {nested.kind!r} certificate does not prove R' positive recurrent "
                        "(a stable Markovian or general certificate is needed)")
    if failures:
        return Check.failed(failures)
    claims: list[Claim] = [("", _forced_of(red, chain), w, rate, table),
                           *((f"subsets: for H = {{{', '.join(H)}}}, ", _forced_of(red.part(H), chain), e[1], e[2], e[3])
                             for H, e in sorted(listed.items()))]
    got = claims_failure(chain, claims, fast, K, "at least", by, drifts, deadline,
                         stage="the exact check of the sink-growth certificate")
    if got.failure is not None:
        return Check.failed([got.failure], {"cells": got.cells, "regions": got.regions})
    return Check.passed(SinkGrowthFacts(rate, red.capacity, got.regions, nested.kind,
                                        tuple(G) if len(G) > 1 else (), tuple(sub_facts), got.cells))


def _forced_of(red: Reduction, chain: Chain) -> Callable[[tuple[int, ...]], Fraction]:
    """The forced rate of ``red`` on a region, from its empty stations (for :func:`~certify.exact.rates.rate_failure`)."""
    return lambda empty: forced_rate(red, chain, empty)
