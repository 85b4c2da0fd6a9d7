"""The exact check of a sink-drain certificate (``docs/math/drain.md``): the rest drains a set of sinks.

G is a set of stations (one for a single sink), R' the reduced network of
``docs/math/sink.md`` (N without G). The certificate holds a quadratic Foster
function W = y'Py of R' with P >= 0 entrywise, and for G (and each listed
proper subset H) a function g_H = w'y + T(min(y_F, K)) on R' and a rate c_H; the
check verifies W (:func:`~certify.exact.stability.check_foster` on R' rebuilt
here, with the ties' excess added as Poisson streams when a tie with the sinks
sends R more than R' does, and the signs of P), u_H + A'g_H <= c_H on *every*
region of R' (of R'_eps for a listed subset where ties add work to R'), c_H < mu(H), the
monotonicity of g_H along Dirs(H) (and along the stations the ties add work to), no subset function where ties
add work to R' on departures from R', and that N's empty state is reachable. Pure Python, rationals only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from itertools import combinations
from typing import Literal

from ..core.model import Network, Stream
from ..markov.chain import Chain, compile_chain, drain_order
from ..markov.drift import Clip, RegionDrift
from ..templates import TEMPLATES
from .cell_rates import Claim, claims_failure
from .clusters import coefficient_vector
from .facts import Check, SinkDrainFacts
from .fluid_flow import flow_rates
from .growth import table_problem
from .rates import monotone_failure
from .sink import MAX_SET, Reduction, Subset, listed_subsets, proper_subsets, reduced_network, sink_set
from .stability import check_foster

__all__ = ["drain_problem", "tie_excess", "feedback_excess", "excess_network", "drain_rate", "largest_drain_rate", "directions",
           "routing_sets", "lyapunov_problem", "check_sink_drain"]


def routing_sets(net: Network) -> list[tuple[str, ...]]:
    """Every routing set of ``net``: the choice sets of streams (sampled sets included) and of feedback, once each.

    Parameters
    ----------
    net : Network
        The network.

    Returns
    -------
    list of tuple of str
        The sets with positive rate or probability, in order of first appearance.

    Examples
    --------
    >>> from certify.core.model import Feedback, Station, Stream
    >>> net = Network("n", tuple(Station(s, Fraction(1)) for s in "123"), (Stream(Fraction(1), choice=("1", "2")),),
    ...               (Feedback("2", ("3",), Fraction(1, 2)),))
    >>> routing_sets(net)
    [('1', '2'), ('3',)]
    """
    out: dict[tuple[str, ...], None] = {}
    for st in net.streams:
        for C, rate in st.routing_sets():
            if rate > 0:
                out.setdefault(tuple(C), None)
    for f in net.feedback:
        if f.prob > 0:
            out.setdefault(tuple(f.choice), None)
    return list(out)


def drain_problem(net: Network, sink: str | Sequence[str]) -> str | None:
    """Why the sink-drain theorem does not apply to ``net`` with this set of sinks (None when it may).

    Checks the sinks (distinct stations, at most :data:`~certify.exact.sink.MAX_SET`, not every station), the
    laws (exponential) and capacities (none) and hypothesis 5 (the empty state of N is reachable from every
    state). Ties that send R more than R' does are allowed: their excess (:func:`tie_excess`) is checked with the
    certificate (hypotheses 1 and 2).

    Parameters
    ----------
    net : Network
        The network.
    sink : str or sequence of str
        The sink, or the set G of sinks.

    Returns
    -------
    str or None
        The hypothesis that fails, in words.

    Examples
    --------
    >>> from certify.core.model import Station, Stream
    >>> net = Network("n", tuple(Station(s, Fraction(1)) for s in "123"), (Stream(Fraction(1), choice=("1", "2", "3")),))
    >>> drain_problem(net, "3") is None
    True
    >>> drain_problem(net, "4")
    "sink: '4' is not a station of the network"
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
        return "the sinks are every station: nothing is left when they are removed"
    if net.has_capacities:
        return "the network has capacities (the theorem is for networks without losses)"
    if any(not s.service.is_exponential for s in net.stations) or any(not st.interarrival.is_exponential for st in net.streams):
        return "a service or interarrival law is not exponential (the theorem is for exponential networks)"
    if drain_order(compile_chain(net)) is None:
        return "the empty state of the network is not shown reachable from every state (hypothesis 5)"
    return None


def tie_excess(net: Network, sink: str | Sequence[str]) -> dict[str, Fraction]:
    """The ties' excess eps_t of docs/math/drain.md: how much more a tie with the sinks can send each station of R.

    For every routing set C meeting G and R, r_C (its streams' rates and mu_i p of every feedback into it) times
    the largest p_t(T_R u T_G) - p_t(T_R) > 0 over the tied sets T_R of C \\ G holding t and T_G of C and G.
    Uniform ties add nothing (1/(a + b) <= 1/a), so only the pairs in which T_R or T_R u T_G is a declared set
    are compared.

    Parameters
    ----------
    net : Network
        The network.
    sink : str or sequence of str
        The sink, or the set G of sinks.

    Returns
    -------
    dict of str to Fraction
        eps_t > 0 by station of R, in station order (empty: ties never send R more than R' does).

    Examples
    --------
    A tie of all three stations sends station 2 nine tenths of the stream, where R' (the sink 3 removed) sends
    it half when 1 and 2 tie:

    >>> from certify.core.model import Station, Stream, TieBreak
    >>> F = Fraction
    >>> ties = (TieBreak(("1", "2", "3"), (("1", F(0)), ("2", F(9, 10)), ("3", F(1, 10)))),)
    >>> net = Network("n", tuple(Station(s, F(1)) for s in "123"), (Stream(F(1), choice=("1", "2", "3")),), (), ties)
    >>> tie_excess(net, "3")
    {'2': Fraction(2, 5)}
    """
    chain = compile_chain(net)
    return _excess(net, chain, set(sink_set(sink)), flow_rates(chain))


def feedback_excess(net: Network, sink: str | Sequence[str]) -> dict[str, Fraction]:
    """eps^R_t of docs/math/drain.md: the part of the ties' excess that departures from stations of R carry.

    :func:`tie_excess` with r_C counting only mu_i p of the feedback (i, C, p) from stations i of R. Where it is
    empty, a proper subset of the sinks may have its own function although ties add work to R' (hypothesis 1).

    Parameters
    ----------
    net : Network
        The network.
    sink : str or sequence of str
        The sink, or the set G of sinks.

    Returns
    -------
    dict of str to Fraction
        eps^R_t > 0 by station of R, in station order.

    Examples
    --------
    Station 4 feeds back into {1, 2, 3}, whose three-way tie sends 2 nine tenths where 1 and 2 alone split evenly:

    >>> from certify.core.model import Feedback, Station, Stream, TieBreak
    >>> F = Fraction
    >>> ties = (TieBreak(("1", "2", "3"), (("1", F(0)), ("2", F(9, 10)), ("3", F(1, 10)))),)
    >>> net = Network("n", tuple(Station(s, F(1)) for s in "1234"), (Stream(F(1), choice=("1", "2", "3")),
    ...               Stream(F(1, 2), choice=("4",))), (Feedback("4", ("1", "2", "3"), F(1, 2)),), ties)
    >>> tie_excess(net, "3"), feedback_excess(net, "3")
    ({'2': Fraction(3, 5)}, {'2': Fraction(1, 5)})
    """
    G = set(sink_set(sink))
    chain = compile_chain(net)
    rates: dict[tuple[int, ...], Fraction] = {}
    for i, C, p in chain.feedback:
        if chain.ids[i] not in G:
            rates[C] = rates.get(C, Fraction(0)) + chain.mu[i] * p
    return _excess(net, chain, G, {C: r for C, r in rates.items() if r})


def _excess(net: Network, chain: Chain, G: set[str], flows: Mapping[tuple[int, ...], Fraction]) -> dict[str, Fraction]:
    """eps_t for the rates r_C of ``flows`` (choice set by station indices -> rate)."""
    declared = [frozenset(tb.set) for tb in net.tie_breaking]
    out: dict[str, Fraction] = {}
    for Ci, r in flows.items():  # r_C: the streams' rates and mu_i p of every feedback into C
        C = tuple(chain.ids[a] for a in Ci)
        inside, outside = set(C) & G, set(C) - G
        if not inside or not outside:
            continue
        pairs: set[tuple[frozenset[str], frozenset[str]]] = set()
        for D in declared:
            if D <= set(C) and D & G and D - G:
                pairs.add((frozenset(D - G), frozenset(D & G)))
            if D <= outside:
                pairs.update((D, frozenset(TG)) for n in range(1, len(inside) + 1)
                             for TG in combinations(sorted(inside), n))
        most: dict[str, Fraction] = {}
        for TR, TG in pairs:
            both = net.tie_probs(tuple(sorted(TR | TG)))
            alone = net.tie_probs(tuple(sorted(TR)))
            for t in TR:
                more = both.get(t, Fraction(0)) - alone.get(t, Fraction(0))
                if more > most.get(t, Fraction(0)):
                    most[t] = more
        for t, more in most.items():
            out[t] = out.get(t, Fraction(0)) + r * more
    return {t: out[t] for t in sorted(out)}


def excess_network(rest: Network, excess: Mapping[str, Fraction]) -> Network:
    """R'_eps: the reduced network with a Poisson stream of rate eps_t into each station t (docs/math/drain.md).

    Parameters
    ----------
    rest : Network
        R'.
    excess : mapping of str to Fraction
        :func:`tie_excess`.

    Returns
    -------
    Network
        R' itself when ``excess`` is empty, else R' with the streams added.

    Examples
    --------
    >>> from certify.core.model import Station
    >>> one = Network("r", (Station("2", Fraction(1)),), ())
    >>> [(st.rate, st.choice) for st in excess_network(one, {"2": Fraction(2, 5)}).streams]
    [(Fraction(2, 5), ('2',))]
    """
    if not excess:
        return rest
    extra = tuple(Stream(v, choice=(t,)) for t, v in sorted(excess.items()) if v > 0)
    return replace(rest, streams=(*rest.streams, *extra))


def drain_rate(red: Reduction, chain: Chain, H: Sequence[str], empty: Sequence[int] | frozenset[int] = ()) -> Fraction:
    """u_H on a region of R' whose empty stations are ``empty``: the work of the routing sets inside H.

    Parameters
    ----------
    red : Reduction
        The reduction of N by G.
    chain : Chain
        R''s chain.
    H : sequence of str
        A non-empty subset of G.
    empty : collection of int
        The region's empty stations (indices in ``chain``).

    Returns
    -------
    Fraction
        lambda_C of the streams, mu_i p of the busy feeders of R and mu_j p of G's feedback, over the sets C
        inside H.

    Examples
    --------
    >>> from certify.core.model import Feedback, Station, Stream
    >>> F = Fraction
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(1))), (Stream(F(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), F(1, 2)), Feedback("2", ("2",), F(1, 4))))
    >>> red = reduced_network(net, "2")
    >>> ch = compile_chain(red.network)
    >>> drain_rate(red, ch, ("2",), {0}), drain_rate(red, ch, ("2",), ())
    (Fraction(1, 4), Fraction(3, 4))
    """
    inside = set(H)
    gone = {chain.ids[a] for a in empty}
    return (sum((r for C, r in red.inflow if set(C) <= inside), Fraction(0))
            + sum((r for i, C, r in red.feeds if set(C) <= inside and i not in gone), Fraction(0))
            + sum((r for _, C, r in red.internal if set(C) <= inside), Fraction(0)))


def largest_drain_rate(red: Reduction, H: Sequence[str]) -> Fraction:
    """The largest u_H over R''s states: every feeder of R busy.

    Parameters
    ----------
    red : Reduction
        The reduction.
    H : sequence of str
        A non-empty subset of G.

    Returns
    -------
    Fraction
        u_H with no station of R' empty.

    Examples
    --------
    >>> from certify.core.model import Feedback, Station, Stream
    >>> net = Network("n", (Station("1", Fraction(1)), Station("2", Fraction(1))), (Stream(Fraction(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), Fraction(1, 2)),))
    >>> largest_drain_rate(reduced_network(net, "2"), ("2",))
    Fraction(1, 2)
    """
    inside = set(H)
    return (sum((r for C, r in red.inflow if set(C) <= inside), Fraction(0))
            + sum((r for _, C, r in red.feeds if set(C) <= inside), Fraction(0))
            + sum((r for _, C, r in red.internal if set(C) <= inside), Fraction(0)))


def directions(net: Network, G: Sequence[str], H: Sequence[str]) -> frozenset[str]:
    """Dirs(H): the stations of R along which g_H must not decrease (``docs/math/drain.md``); empty for H = G.

    Parameters
    ----------
    net : Network
        The network.
    G : sequence of str
        The sinks.
    H : sequence of str
        A non-empty subset of G.

    Returns
    -------
    frozenset of str
        The stations of R in a routing set meeting G \\ H, or in the choice set of a feedback from G \\ H.

    Examples
    --------
    >>> from certify.core.model import Feedback, Station, Stream
    >>> net = Network("n", tuple(Station(s, Fraction(1)) for s in "1234"),
    ...               (Stream(Fraction(1), choice=("1", "3")), Stream(Fraction(1), choice=("2", "4"))),
    ...               (Feedback("4", ("2",), Fraction(1, 2)),))
    >>> sorted(directions(net, ("3", "4"), ("3",))), sorted(directions(net, ("3", "4"), ("3", "4")))
    (['2'], [])
    """
    others = set(G) - set(H)
    rest = set(net.station_ids) - set(G)
    out = {t for C in routing_sets(net) if set(C) & others for t in C if t in rest}
    out |= {t for f in net.feedback if f.source in others and f.prob > 0 for t in f.choice if t in rest}
    return frozenset(out)


def lyapunov_problem(chain: Chain, P: Mapping[str, Fraction] | Sequence[Fraction]) -> str | None:
    """Why W = y'Py cannot serve hypothesis 2 beyond its Foster check: an entry < 0, or a diagonal entry 0.

    Parameters
    ----------
    chain : Chain
        R''s chain.
    P : mapping or sequence of Fraction
        The quadratic template's coefficients on R' (its ``variables()``: P[i,j] for i <= j).

    Returns
    -------
    str or None
        ``"reduced_lyapunov: ..."`` naming the entry, or None.

    Examples
    --------
    >>> ch = Chain(("1", "2"), (Fraction(1), Fraction(1)), (((0, 1), Fraction(1)),), (), (Fraction(1), Fraction(1)))
    >>> lyapunov_problem(ch, {"P[1,1]": Fraction(1), "P[1,2]": Fraction(-1, 4), "P[2,2]": Fraction(1)})
    'reduced_lyapunov: P[1,2] = -1/4 < 0 (W must not decrease when a customer arrives: every entry >= 0)'
    """
    names = TEMPLATES["quadratic"](chain, []).variables()
    theta = coefficient_vector(names, P, "reduced_lyapunov")
    if isinstance(theta, str):
        return theta
    for name, v in zip(names, theta):
        i, _, j = name[2:-1].partition(",")
        if v < 0:
            return (f"reduced_lyapunov: {name} = {v} < 0 (W must not decrease when a customer arrives: every entry "
                    ">= 0)")
        if i == j and v == 0:
            return f"reduced_lyapunov: {name} = 0 (every diagonal entry must be > 0: W grows like |y|^2)"
    return None


def check_sink_drain(
    net: Network,
    sink: str | Sequence[str],
    lyapunov: Mapping[str, Fraction] | Sequence[Fraction],
    w: Sequence[Fraction],
    rate: Fraction,
    table: Mapping[tuple[int, ...], Fraction] | None = None,
    fast: Sequence[int] = (),
    K: Clip = 0,
    deadline: float | None = None,
    drifts: Sequence[RegionDrift] | None = None,
    subsets: Sequence[Subset] = (),
    by: Literal["cells", "regions"] = "cells",
) -> Check[SinkDrainFacts]:
    """Check a sink-drain certificate exactly (docs/math/drain.md): every hypothesis of the theorem on ``net``.

    Parameters
    ----------
    net : Network
        The network.
    sink : str or sequence of str
        The sink S, or a set G of sinks.
    lyapunov : mapping or sequence of Fraction
        W's P on R' (the quadratic template's coefficients, by name or in order); W is checked on R'_eps, R' with
        the ties' excess (:func:`tie_excess`) added as Poisson streams.
    w : sequence of Fraction
        The weights of g_G on the stations of R' (in R''s order).
    rate : Fraction
        The claimed c_G.
    table, fast, K
        The bounded table of g_G over min(y_fast, K) (indices in R'), as for a growth certificate.
    deadline : float, optional
        A ``time.perf_counter()`` value; the region loop raises TimeLimitReached past it.
    drifts : sequence of RegionDrift, optional
        Every region of R' refined by the table's levels, for the check region by region (listed here when needed
        and not given).
    subsets : sequence of (tuple of str, sequence of Fraction, Fraction, dict or None), optional
        Proper subsets H with their own g_H (weights, table values over the same cells) and c_H. Every other
        proper subset is checked with g_H = 0 and c_H its largest u_H (every feeder busy).
    by : {"cells", "regions"}
        Check u + A'g <= c cell by cell (:mod:`certify.exact.cell_rates`, the default) or region by region (how
        certificates written before the cell check were checked; their claims name no cells). Both accept
        exactly the same functions.

    Returns
    -------
    Check of SinkDrainFacts
        Passed with c_G, mu(G), the regions, W's delta and the subsets; or the failures.

    Examples
    --------
    Station 1 (rate 1) gets a stream of rate 1/2 and sends every customer on to the sink 2 (rate 3/5): the
    forced rate averages 1/2 < 3/5. g = y_1 gives u + A'g = 1[y_1 > 0] + (1/2 - 1[y_1 > 0]) = 1/2, and
    W = y_1^2 drains R' (an M/M/1 queue at load 1/2).

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Station, Stream
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(3, 5))), (Stream(F(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> chk = check_sink_drain(net, "2", {"P[1,1]": F(1)}, [F(1)], F(1, 2))
    >>> chk.ok, chk.facts.capacity, chk.facts.delta
    (True, Fraction(3, 5), Fraction(1, 1))
    >>> check_sink_drain(net, "2", {"P[1,1]": F(1)}, [F(1)], F(2, 5)).failures[0][:40]
    'u + A g = 1/2 > c = 2/5 on the region x1'
    """
    problem = drain_problem(net, sink)
    if problem is not None:
        return Check.failed([problem])
    G = sink_set(sink)
    red = reduced_network(net, G)
    chain = compile_chain(red.network)
    if len(w) != chain.J:
        return Check.failed([f"weights: {len(w)} weights for the {chain.J} stations of R'"])
    if table is not None:
        tp = table_problem(chain, fast, K)
        if tp is not None:
            return Check.failed([tp])
    listed = listed_subsets(G, subsets, chain.J, table is not None)
    if isinstance(listed, str):
        return Check.failed([listed])
    mu = {s.id: s.mu for s in net.stations}
    failures: list[str] = []
    bad_w = lyapunov_problem(chain, lyapunov)
    if bad_w is not None:
        return Check.failed([bad_w])
    excess = tie_excess(net, G)
    carried = feedback_excess(net, G) if excess and listed else {}
    if carried:
        more = ", ".join(f"{t}: {v}" for t, v in carried.items())
        return Check.failed([f"subsets: {{{', '.join(sorted(listed)[0])}}} is listed, but ties with the sinks send "
                             f"stations of R' more than R' does on departures from R' (excess {more}), so every "
                             "proper subset must keep g_H = 0 (hypothesis 1)"])
    wchain = compile_chain(excess_network(red.network, excess)) if excess else chain
    assert wchain.ids == chain.ids  # R'_eps only adds streams into single stations
    foster = check_foster(wchain, "quadratic", lyapunov, deadline=deadline)
    if not foster.ok:
        where = " (R' with the ties' excess as Poisson streams)" if excess else ""
        return Check.failed([f"reduced_lyapunov{where}: {f}" for f in foster.failures[:3]])
    capacity = sum((mu[j] for j in G), Fraction(0))
    if not rate < capacity:
        failures.append(f"rate: c = {rate} is not below mu(G) = {capacity}, what the sinks serve (hypothesis 4)")
    sub_facts: list[tuple[tuple[str, ...], Fraction, Fraction]] = []
    for H in sorted(proper_subsets(G), key=lambda H: (len(H), H)):
        c_H = listed[H][2] if H in listed else largest_drain_rate(red, H)
        m_H = sum((mu[j] for j in H), Fraction(0))
        sub_facts.append((H, c_H, m_H))
        if not c_H < m_H:
            where = "its rate" if H in listed else "its largest u_H (every feeder busy; not listed in subsets)"
            failures.append(f"subsets: for H = {{{', '.join(H)}}}, {where} c_H = {c_H} is not below mu(H) = {m_H} "
                            "(hypothesis 4)")
        if H in listed:
            dirs = [chain.ids.index(t) for t in directions(net, G, H) | set(excess)]
            bad = monotone_failure(chain, listed[H][1], listed[H][3], fast, K, dirs)
            if bad is not None:
                why = " or into which a tie with the sinks sends more than R' does" if excess else ""
                failures.append(f"subsets: for H = {{{', '.join(H)}}}, {bad} (hypothesis 3: g_H must not decrease "
                                f"where a sink outside H may take an arrival from R'{why})")
    if failures:
        return Check.failed(failures)
    claims: list[Claim] = [("", _rate_of(red, chain, G), w, rate, table)]
    on = " (on R'_eps)" if excess else ""
    subs: list[Claim] = [(f"subsets: for H = {{{', '.join(H)}}}{on}, ",
                          _rate_of(red, chain, H), e[1], e[2], e[3]) for H, e in sorted(listed.items())]
    stage = "the exact check of the sink-drain certificate"
    # hypothesis 1: where ties add work to R', a listed subset's inequality holds on R'_eps (u_H as on R')
    got = claims_failure(chain, claims if excess else [*claims, *subs], fast, K, "at most", by, drifts, deadline,
                         names=("u", "c"), stage=stage)
    regions = got.regions
    if got.failure is None and excess and subs:
        on_eps = claims_failure(wchain, subs, fast, K, "at most", by, None, deadline, names=("u", "c"), stage=stage)
        got, regions = on_eps, regions + on_eps.regions
    if got.failure is not None:
        return Check.failed([got.failure], {"cells": got.cells, "regions": regions})
    return Check.passed(SinkDrainFacts(rate, capacity, regions, foster.facts.delta,
                                       tuple(G) if len(G) > 1 else (), tuple(sub_facts), tuple(excess.items()),
                                       got.cells))


def _rate_of(red: Reduction, chain: Chain, H: Sequence[str]) -> Callable[[tuple[int, ...]], Fraction]:
    """u_H on a region, from its empty stations (for :func:`~certify.exact.rates.rate_failure`)."""
    return lambda empty: drain_rate(red, chain, H, empty)
