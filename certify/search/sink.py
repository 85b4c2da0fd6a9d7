"""The search for a sink-growth certificate (``docs/math/sink.md``): candidate sinks, the table's stations, the rate LP.

The LP maximises c subject to f + A'g >= c on every region of the reduced network R' (refined by the
table's levels), over g = w'x + T(min(x_F, K)) with every weight and table value in [-100, 100]; both
are rounded to 2^-20 and c to below the LP's value, for the exact check to decide.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import ceil, floor

import numpy as np
import scipy.sparse as sp

from ..core.clock import remaining
from ..core.model import Network
from ..exact.sink import Reduction, Subset, forced_rate, reduced_network, sink_problem
from ..markov.chain import Chain
from ..markov.drift import Clip, RegionDrift, cell_moves, clip_levels
from ..markov.regions import TimeLimitReached
from ..templates.base import round_to_grid
from ..templates.table import table_cells
from .linprog import solve_lp
from .sink_sets import routing_unions

__all__ = ["MAX_SINK_FAST", "MIXED_CELLS", "SinkCandidate", "sink_candidates", "set_candidates", "linked_pairs",
           "sink_fast", "mixed_levels", "rate_rows", "solve_sink_rate", "halfway", "loosened", "JumpRows", "jump_rows", "TableRows",
           "claimed_rate"]

# A rate LP's answer, rounded for the exact check: g's weights w, its table T (None without one) and the rate c
# (a type alias, kept out of __all__: autodoc cannot format a generic alias).
RateSolution = tuple[list[Fraction], dict[tuple[int, ...], Fraction] | None, Fraction]



def claimed_rate(value: float, margin: float, sign: int) -> Fraction:
    """The rate a candidate claims from its float bound: ``margin`` past ``value`` on the side the claim must hold,
    on the grid 2^-20 (sign 1, a growth rate: below; -1, a drain rate: above).  The exact check decides.

    Parameters
    ----------
    value : float
        The bound found in floating point (the LP's optimum, or the rounded function's worst cell).
    margin : float
        How far past it the rate is claimed.
    sign : int
        1 for a lower bound (floor of value - margin), -1 for an upper bound (ceil of value + margin).

    Returns
    -------
    Fraction
        The claimed rate, a multiple of 2^-20.

    Examples
    --------
    >>> claimed_rate(0.5, 1e-7, 1) < Fraction(1, 2) < claimed_rate(0.5, 1e-7, -1)
    True
    >>> claimed_rate(0.5, 1e-7, -1) - Fraction(1, 2)
    Fraction(1, 1048576)
    """
    scaled = (value - sign * margin) * 2**20
    return Fraction(floor(scaled) if sign > 0 else ceil(scaled), 2**20)


#: The most stations g's table follows (its cells are (K + 1)^|F|).
MAX_SINK_FAST = 5
#: The most cells of the table with one clip level per station (:func:`mixed_levels`): at J' = 6, three stations at
#: K = 3 and three at 2 (1,728 cells) bound the rate within 1e-3 of all six at 3 (4,096 cells, an LP ten times slower).
MIXED_CELLS = 2_500
#: How far below the LP's optimum the rounded rate is claimed (the exact check decides).
SLACK = 1e-5


def halfway(rate: Fraction, bound: Fraction) -> Fraction:
    """A claimed rate moved halfway towards the capacity it must beat, on the grid 2^-20 (the rate itself if none lies between).

    The rate LPs claim their optimum less (growth) or plus (drain) :data:`SLACK`, and the exact check decides. On
    large tables with fast stations rounding w and T to 2^-20 can move f + A'g by more than that: on a J = 6
    network at load 0.984 (``certify boundary`` of an unseen random network), a drain table on five stations at
    K = 4 was refused at c = 0.999200 by a region at 0.999205 while the capacity was 1. A second check with the rate
    halfway to the capacity is then tried: any rate strictly on the right side of the capacity is a valid claim
    (the theorems of docs/math/sink.md and docs/math/drain.md ask nothing else of it), and the check decides again.

    Parameters
    ----------
    rate : Fraction
        The rate claimed (above ``bound`` for a growth certificate, below it for a drain certificate).
    bound : Fraction
        The capacity the rate must stay strictly above (growth) or below (drain).

    Returns
    -------
    Fraction
        A rate on the grid 2^-20 strictly between ``rate`` and ``bound`` nearest their midpoint (rounded towards
        ``rate``), or ``rate`` when no grid point lies strictly between.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> halfway(F(1047737, 1048576), F(1)), halfway(F(5, 4), F(1))
    (Fraction(262039, 262144), Fraction(9, 8))
    >>> halfway(F(1048575, 1048576), F(1))  # no grid point between
    Fraction(1048575, 1048576)
    """
    mid = (rate + bound) / 2 * 2**20
    moved = Fraction(floor(mid) if bound > rate else ceil(mid), 2**20)
    return moved if min(rate, bound) < moved < max(rate, bound) else rate


def loosened(solution: RateSolution, subsets: Sequence[Subset], capacity: Fraction,
             capacities: Callable[[tuple[str, ...]], Fraction]) -> tuple[RateSolution, list[Subset]] | None:
    """The same functions with every claimed rate moved :func:`halfway` to its capacity; None if none moves.

    Parameters
    ----------
    solution : (list of Fraction, dict or None, Fraction)
        w, T and the rate of the whole set of sinks.
    subsets : sequence of Subset
        (H, w_H, c_H, T_H) of the proper subsets listed.
    capacity : Fraction
        What the whole set's rate must beat.
    capacities : callable
        What a subset's rate must beat.

    Returns
    -------
    ((list of Fraction, dict or None, Fraction), list of Subset) or None
        The solution and subsets with the moved rates.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> loosened(([F(1)], None, F(3, 4)), [], F(1), lambda H: F(1))
    (([Fraction(1, 1)], None, Fraction(7, 8)), [])
    >>> loosened(([F(1)], None, F(1048575, 1048576)), [], F(1), lambda H: F(1)) is None
    True
    """
    w, table, rate = solution
    moved = [(H, w_H, halfway(c_H, capacities(tuple(H))), T_H) for H, w_H, c_H, T_H in subsets]
    new = halfway(rate, capacity)
    if new == rate and all(m[2] == s[2] for m, s in zip(moved, subsets)):
        return None
    return (w, table, new), moved


@dataclass(frozen=True)
class SinkCandidate:
    """A sink the theorem may apply to, with its reduction and the share of its capacity that is forced on it.

    Attributes
    ----------
    sink : str or tuple of str
        The station, or a set of stations G.
    reduction : Reduction
        R', lambda_S, the forced rates, m_S (those of G for a set).
    pressure : Fraction
        (lambda_S + sum of the forced rates) / m_S: above 1 when every feeder busy would overload the sink.
        For a set, lambda_G / m_G: the share of G's capacity its streams take (the candidates nearest overload
        first).

    Examples
    --------
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> net = Network("n", (Station("1", Fraction(1)), Station("2", Fraction(1, 2))), (Stream(Fraction(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), Fraction(1)),))
    >>> SinkCandidate("2", reduced_network(net, "2"), Fraction(2)).reduction.forced
    {'1': Fraction(1, 1)}
    """

    sink: str | tuple[str, ...]
    reduction: Reduction
    pressure: Fraction


def sink_candidates(net: Network) -> list[SinkCandidate]:
    """The stations with forced inflow that could be overloaded by it, most pressed first.

    Parameters
    ----------
    net : Network
        The network.

    Returns
    -------
    list of SinkCandidate
        Sinks the theorem's hypotheses 1 and 4 allow, with forced feedback from another station, whose forced rate
        with every feeder busy exceeds their capacity (below it no c > m_S exists), by pressure.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(2, 5))), (Stream(F(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> [(c.sink, c.pressure) for c in sink_candidates(net)]
    [('2', Fraction(5, 2))]
    """
    out = []
    for st in net.stations:
        if not any(f.choice == (st.id,) and f.source != st.id and f.prob > 0 for f in net.feedback):
            continue
        if sink_problem(net, st.id) is not None:
            continue
        red = reduced_network(net, st.id)
        most = red.constant + sum(red.forced.values(), Fraction(0))
        if red.capacity > 0 and most > red.capacity:
            out.append(SinkCandidate(st.id, red, most / red.capacity))
    return sorted(out, key=lambda c: -c.pressure)


def set_candidates(net: Network, wide: bool = False, sets: list[tuple[str, ...]] | None = None) -> list[SinkCandidate]:
    """Pairs of stations linked by a stream inside them (or wider sets) that the forced flow could overload together.

    Parameters
    ----------
    net : Network
        The network.
    wide : bool, optional
        Sets of three or four stations, unions of routing sets (:func:`~certify.search.sink_sets.routing_unions`),
        in place of the pairs of :func:`linked_pairs`.
    sets : list of tuple of str, optional
        These sets instead (e.g. :func:`~certify.search.sink_sets.densest_set`).

    Returns
    -------
    list of SinkCandidate
        Sets G the theorem's hypotheses 1 and 4 allow (so some stream's choice set lies inside G), whose streams
        alone do not overload G (else flow balance decides) but the forced rates with every feeder busy do, for G
        and for each of its stations (H = {j}); by lambda_G / m_G, nearest overload first.

    Examples
    --------
    Stations 2 and 3 share a stream; station 1 feeds station 3:

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(1)), Station("3", F(1))),
    ...               (Stream(F(1, 2), choice=("1",)), Stream(F(3, 2), choice=("2", "3"))), (Feedback("1", ("3",), F(1)),))
    >>> [(c.sink, c.pressure) for c in set_candidates(net)]
    [(('2', '3'), Fraction(3, 4))]
    """
    out = []
    for G in sets if sets is not None else routing_unions(net) if wide else linked_pairs(net):
        if sink_problem(net, G) is not None:
            continue
        red = reduced_network(net, G)
        parts = [red, *(red.part((j,)) for j in G)]
        if red.capacity > 0 and red.constant < red.capacity and red.forced and all(
                p.constant + sum(p.forced.values(), Fraction(0)) > p.capacity for p in parts):
            out.append(SinkCandidate(G, red, red.constant / red.capacity))
    return sorted(out, key=lambda c: -c.pressure)


def linked_pairs(net: Network) -> list[tuple[str, str]]:
    """The pairs G that a routing set inside G fills and forced feedback from outside G enters only inside G.

    Every pair :func:`set_candidates` may keep is among them (hypothesis 4 needs a routing set inside G: a stream's,
    or a relay's, the feedback of a station outside G; the forced rates are those of feedback into choice sets inside
    G); listing them from the streams' and the feedback's choice sets costs O(J) per set of size 1, where all pairs
    would cost O(J^2) sink problems (3 minutes at J = 400).

    Parameters
    ----------
    net : Network
        The network.

    Returns
    -------
    list of (str, str)
        The pairs, each in the network's station order, sorted by it.

    Examples
    --------
    Stations 2 and 3 share a stream; station 1 feeds station 3:

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(1)), Station("3", F(1))),
    ...               (Stream(F(1, 2), choice=("1",)), Stream(F(3, 2), choice=("2", "3"))), (Feedback("1", ("3",), F(1)),))
    >>> linked_pairs(net)
    [('2', '3')]
    """
    order = {j: n for n, j in enumerate(net.station_ids)}
    inside = {frozenset(C) for st in net.streams for C, rate in st.routing_sets() if rate > 0 and len(C) <= 2}
    sources: dict[frozenset[str], set[str]] = {}  # a feedback choice set of one or two stations -> its sources
    for f in net.feedback:
        if f.prob > 0 and len(f.choice) <= 2:
            sources.setdefault(frozenset(f.choice), set()).add(f.source)
    found: set[tuple[str, str]] = set()

    def keep(G: frozenset[str]) -> None:
        a, b = sorted(G, key=order.__getitem__)
        parts = (frozenset((a,)), frozenset((b,)), G)
        if any(C in inside or sources.get(C, set()) - G for C in parts):
            found.add((a, b))

    for F, froms in sources.items():
        if len(F) == 2:
            if froms - F:
                keep(F)
            continue
        (a,) = F
        if frozenset((a,)) in inside:
            partners: Collection[str] = net.station_ids
        else:
            partners = {j for C in (*inside, *sources) if a in C or len(C) == 1 for j in C}
        for b in partners:
            if b != a and froms - {a, b}:
                keep(frozenset((a, b)))
    return sorted(found, key=lambda G: (order[G[0]], order[G[1]]))


def sink_fast(chain: Chain, red: Reduction, limit: int = MAX_SINK_FAST) -> list[list[int]]:
    """The tables' stations to try: the choice set of R' holding the most feeders, then greedy unions of sets.

    The first is that set with the feeders (cheapest); the second adds the feeders and then every choice set of R'
    that holds a feeder, most feeders first, while the union has at most ``limit`` stations; the third adds to that
    union the choice sets that meet it, smallest first, within the same limit.

    Parameters
    ----------
    chain : Chain
        R''s chain.
    red : Reduction
        The reduction (its forced rates name the feeders).
    limit : int, optional
        The most stations of a table.

    Returns
    -------
    list of list of int
        Distinct sorted station sets of R' (indices), the smaller first.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> net = Network("n", tuple(Station(s, F(1)) for s in "12345"), (Stream(F(1, 2), choice=("1", "2")),
    ...               Stream(F(1, 2), choice=("1", "3", "4"))), (Feedback("1", ("5",), F(1, 2)),))
    >>> red = reduced_network(net, "5")
    >>> sink_fast(compile_chain(red.network), red)
    [[0, 1], [0, 1, 2, 3]]
    """
    feeders = {chain.ids.index(i) for i in red.forced}
    sets = sorted({C for C in chain.routing_sets if feeders & set(C)},
                  key=lambda C: (-len(feeders & set(C)), len(C), C))
    out: list[list[int]] = []
    if sets and len(feeders | set(sets[0])) <= limit:
        out.append(sorted(feeders | set(sets[0])))
    fast = set(feeders) if len(feeders) <= limit else set()
    for C in sets:
        if len(fast | set(C)) <= limit:
            fast |= set(C)
    if fast and sorted(fast) not in out:
        out.append(sorted(fast))
    wider = set(fast)  # one step further: the sets that meet the union, smallest first
    for C in sorted({C for C in chain.routing_sets if wider & set(C)}, key=lambda C: (len(C), C)):
        if len(wider | set(C)) <= limit:
            wider |= set(C)
    if wider and sorted(wider) not in out:
        out.append(sorted(wider))
    return out


def mixed_levels(chain: Chain, red: Reduction, low: int, budget: int = MIXED_CELLS) -> tuple[list[int], tuple[int, ...]] | None:
    """A table over every station of R' with its own clip levels: ``low + 1`` where the inflow is decided, ``low`` elsewhere.

    The feeders (largest forced rate first) and then the stations that share the most routing rate with a feeder
    (a stream's rate, or mu_i p for a feedback, for each routing set holding both) are raised to ``low + 1``, in that
    order, while the table has at most ``budget`` cells.

    Parameters
    ----------
    chain : Chain
        R''s chain.
    red : Reduction
        The reduction (its forced rates name the feeders).
    low : int
        The clip level of the stations not raised.
    budget : int, optional
        The most cells.

    Returns
    -------
    (list of int, tuple of int) or None
        Every station of R' and its clip level, or None when even ``low`` everywhere exceeds the budget.

    Examples
    --------
    Station 1 feeds the sink; it shares a stream with 2 (rate 1/2) and the feedback of 1 with 3 (rate 1/4):

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> net = Network("n", tuple(Station(s, F(1)) for s in "12345"), (Stream(F(1, 2), choice=("1", "2")),
    ...               Stream(F(1, 4), choice=("4",))), (Feedback("1", ("5",), F(1, 2)), Feedback("1", ("1", "3"), F(1, 4))))
    >>> red = reduced_network(net, "5")
    >>> mixed_levels(compile_chain(red.network), red, 2, 150)
    ([0, 1, 2, 3], (3, 3, 2, 2))
    """
    J = chain.J
    cells = (low + 1) ** J
    if cells > budget:
        return None
    feeders = {chain.ids.index(i): r for i, r in red.forced.items()}
    shared = [Fraction(0)] * J
    for C, rate in chain.arrivals:
        if feeders.keys() & set(C):
            for a in C:
                shared[a] += rate
    for i, C, p in chain.feedback:
        if feeders.keys() & set(C):
            for a in C:
                shared[a] += chain.mu[i] * p
    order = sorted(range(J), key=lambda a: (a not in feeders, -feeders.get(a, Fraction(0)), -shared[a], a))
    levels = [low] * J
    for a in order:
        grown = cells // (low + 1) * (low + 2)
        if grown > budget:
            break
        levels[a], cells = low + 1, grown
    return list(range(J)), tuple(levels)


@dataclass(frozen=True)
class JumpRows:
    """A'g on every region, in floats: M w + B T.

    The part of a rate LP that depends on the regions and the table only (not on the rate bounded): the growth
    and drain LPs on the same regions share it (:func:`certify.proof.sink_rows.reduced_jumps`).

    Examples
    --------
    >>> from certify.markov.chain import Chain
    >>> from certify.markov.drift import compile_drifts
    >>> mm1 = Chain(("1",), (Fraction(1),), (((0,), Fraction(1, 2)),), (), (Fraction(1),))
    >>> jump_rows(mm1, compile_drifts(mm1), [0], 1).pos
    {(0,): 0, (1,): 1}
    """

    #: regions x stations: the mean drift of each region
    M: sp.csr_matrix
    #: regions x cells: the table's change along each region's jumps
    B: sp.csr_matrix
    #: each cell's column in B
    pos: dict[tuple[int, ...], int]


@dataclass
class TableRows:
    """One table's regions of R' with their drifts, and what the rate LPs build on them, filled on first use.

    The sink-growth and sink-drain stages of a run share one per (sinks, table stations, clip levels)
    (:func:`certify.proof.sink_rows.reduced_drifts`).

    Examples
    --------
    >>> TableRows([]).drain_solved
    False
    """

    #: every region of R' refined by the table's levels, with its drift
    drifts: list[RegionDrift]
    #: A'g on them in floats (:func:`jump_rows`), once built
    jumps: JumpRows | None = None
    #: the drain LP for the whole set of sinks on these rows (c below what they serve), or None when it found none
    drain: RateSolution | None = None
    #: whether :attr:`drain` is an answer (the LP ran to its end)
    drain_solved: bool = False
    #: the growth LP's optimal rate in floats, once solved to optimality (search guidance, never proof)
    rate_lp: float | None = None
    #: the drain LP's optimal rate (for the whole set of sinks) in floats, once solved to optimality (guidance)
    drain_lp: float | None = None


def jump_rows(chain: Chain, drifts: Sequence[RegionDrift], fast: Sequence[int], K: Clip) -> JumpRows:
    """A'g = M w + B T on every region, in floats (:class:`JumpRows`).

    Parameters
    ----------
    chain : Chain
        R''s chain.
    drifts : sequence of RegionDrift
        Every region (refined by K at ``fast`` when there is a table).
    fast : sequence of int
        The table's stations (empty: g linear).
    K : int or tuple of int
        The clip level (or one per fast station).

    Returns
    -------
    JumpRows
        M, B and each cell's column.

    Examples
    --------
    >>> from certify.markov.chain import Chain
    >>> from certify.markov.drift import compile_drifts
    >>> mm1 = Chain(("1",), (Fraction(1),), (((0,), Fraction(1, 2)),), (), (Fraction(1),))
    >>> rows = jump_rows(mm1, compile_drifts(mm1), [], 0)
    >>> rows.M.toarray().ravel().tolist(), rows.B.shape
    ([0.5, -0.5], (2, 0))
    """
    J, n = chain.J, len(drifts)
    cells = table_cells(chain, list(fast), K) if fast else []
    pos = {c: k for k, c in enumerate(cells)}
    nc = len(cells)
    M = sp.csr_matrix(np.array([[v / chain.scale for v in rd.mean] for rd in drifts], dtype=float).reshape(n, J))
    if cells and not chain.has_phases:
        return JumpRows(M, _clipped_moves(chain, drifts, list(fast), K, pos), pos)
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    for r, rd in enumerate(drifts) if cells else ():
        c, moves, tot = cell_moves(rd, list(fast), K)
        for c2, moved in moves.items():
            rows.append(r)
            cols.append(pos[c2])
            vals.append(moved / chain.scale)
        if tot:
            rows.append(r)
            cols.append(pos[c])
            vals.append(-tot / chain.scale)
    B = sp.csr_matrix((vals, (rows, cols)), shape=(n, nc))
    return JumpRows(M, B, pos)


def _clipped_moves(chain: Chain, drifts: Sequence[RegionDrift], fast: list[int], K: Clip,
                   pos: dict[tuple[int, ...], int]) -> sp.csr_matrix:
    """B of :func:`jump_rows` for an exponential chain, every (region, jump) pair at once (numpy).

    The same matrix as :func:`~certify.markov.drift.cell_moves` region by region: a jump d from a region whose fast
    stations hold at least ``lows`` leads to the cell min(lows + d, K); regions sharing a routing signature share
    their jumps (``RegionDrift.jumps``), so the jumps are listed once per signature.
    """
    n, F = len(drifts), len(fast)
    levels = np.array(clip_levels(fast, K), dtype=np.int64)
    stride = np.ones(F, dtype=np.int64)
    for k in range(F - 2, -1, -1):
        stride[k] = stride[k + 1] * (levels[k + 1] + 1)
    lookup = np.full(int(stride[0] * (levels[0] + 1)), -1, dtype=np.int64)
    for c, col in pos.items():
        lookup[int(np.dot(c, stride))] = col
    where = {a: k for k, a in enumerate(fast)}
    group_of: dict[tuple[object, ...], int] = {}
    steps: list[list[int]] = []  # per signature: its jumps' changes at the fast stations, then their rates
    rates: list[list[int]] = []
    sig = np.empty(n, dtype=np.int64)
    lows = np.empty((n, F), dtype=np.int64)
    for r, rd in enumerate(drifts):
        reg = rd.region
        g = group_of.get(reg.routing)
        if g is None:
            g = group_of[reg.routing] = len(steps)
            step, rate = [], []
            for d, v in rd.jumps():
                delta = [0] * F
                for a, s in d:
                    if a in where:
                        delta[where[a]] += s
                step.extend(delta)
                rate.append(v)
            steps.append(step)
            rates.append(rate)
        sig[r] = g
        row = reg.dbm[0]
        lows[r] = [-row[a + 1] for a in fast]
    counts = np.array([len(v) for v in rates], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    delta_all = np.array([x for step in steps for x in step], dtype=np.int64).reshape(-1, F)
    rate_all = np.array([x for rate in rates for x in rate], dtype=float) / chain.scale
    per = counts[sig]
    region = np.repeat(np.arange(n), per)
    # each (region, jump) pair's jump: its signature's first jump plus its rank among the region's pairs
    rank = np.arange(region.size) - np.repeat(np.cumsum(per) - per, per)
    jump = starts[sig][region] + rank
    here = np.minimum(lows, levels) @ stride
    to = np.minimum(lows[region] + delta_all[jump], levels) @ stride
    moved = to != here[region]
    region, to, jump = region[moved], to[moved], jump[moved]
    rate = rate_all[jump]
    out = np.bincount(region, weights=rate, minlength=n)
    rows = np.concatenate((region, np.arange(n)))
    cols = np.concatenate((lookup[to], lookup[here]))
    vals = np.concatenate((rate, -out))
    if (cols < 0).any():
        raise ValueError("a region's cell is not among the table's cells")
    B = sp.csr_matrix((vals, (rows, cols)), shape=(n, len(pos)))
    B.eliminate_zeros()  # the regions none of whose jumps change the cell
    return B


def rate_rows(chain: Chain, drifts: Sequence[RegionDrift], fast: Sequence[int], K: Clip,
              rate_of: Callable[[tuple[int, ...]], Fraction], jumps: JumpRows | None = None
              ) -> tuple[sp.csr_matrix, sp.csr_matrix, np.ndarray, dict[tuple[int, ...], int]]:
    """The rows of a rate LP: A'g = M w + B T and the rate f on every region, in floats.

    Parameters
    ----------
    chain : Chain
        R''s chain.
    drifts : sequence of RegionDrift
        Every region (refined by K at ``fast`` when there is a table).
    fast : sequence of int
        The table's stations (empty: g linear).
    K : int or tuple of int
        The clip level (or one per fast station).
    rate_of : callable
        The rate on a region, from its empty stations.
    jumps : JumpRows, optional
        :func:`jump_rows` of the same regions and table, when already built.

    Returns
    -------
    (csr_matrix, csr_matrix, ndarray, dict)
        M (regions x stations), B (regions x cells), f (one per region) and each cell's column in B.

    Examples
    --------
    >>> from certify.markov.chain import Chain
    >>> from certify.markov.drift import compile_drifts
    >>> mm1 = Chain(("1",), (Fraction(1),), (((0,), Fraction(1, 2)),), (), (Fraction(1),))
    >>> M, B, f, pos = rate_rows(mm1, compile_drifts(mm1), [], 0, lambda e: Fraction(0 if e else 1))
    >>> M.toarray().ravel().tolist(), B.shape, f.tolist()
    ([0.5, -0.5], (2, 0), [0.0, 1.0])
    """
    rows = jumps if jumps is not None else jump_rows(chain, drifts, fast, K)
    by_empty: dict[tuple[int, ...], float] = {}  # the rate depends on a region only through its empty stations
    for rd in drifts:
        if rd.region.empty not in by_empty:
            by_empty[rd.region.empty] = float(rate_of(rd.region.empty))
    f = np.array([by_empty[rd.region.empty] for rd in drifts])
    return rows.M, rows.B, f, rows.pos


def solve_sink_rate(chain: Chain, red: Reduction, drifts: Sequence[RegionDrift], fast: Sequence[int], K: Clip,
                    solver: str | None = None, deadline: float | None = None, jumps: JumpRows | None = None,
                    optimum: Callable[[float], None] | None = None) -> RateSolution | None:
    """Maximise c with f + A'g >= c on every region; rational (w, T, c) when c > m_S, else None.

    Parameters
    ----------
    chain : Chain
        R''s chain.
    red : Reduction
        The reduction.
    drifts : sequence of RegionDrift
        Every region of R' (refined by K at ``fast`` when there is a table).
    fast : sequence of int
        The table's stations (empty: g linear).
    K : int or tuple of int
        The table's clip level (or one per fast station).
    solver : str, optional
        The LP solver.
    deadline : float, optional
        A ``time.perf_counter()`` value.
    jumps : JumpRows, optional
        :func:`jump_rows` of the same regions and table, when already built.

    optimum : callable, optional
        Called with the LP's optimal c in floats (search guidance: how far the bound is from m_S), whether or not it
        is above m_S.

    Returns
    -------
    (list of Fraction, dict or None, Fraction) or None
        w, T and c (rounded, for the exact check), or None when the LP finds no c > m_S.

    Raises
    ------
    TimeLimitReached
        When the LP solver stops at the deadline.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> from certify.markov.drift import compile_drifts
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(2, 5))), (Stream(F(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> red = reduced_network(net, "2")
    >>> ch = compile_chain(red.network)
    >>> w, T, c = solve_sink_rate(ch, red, compile_drifts(ch), [], 0)
    >>> T, F(2, 5) < c <= F(1, 2)
    (None, True)
    """
    J = chain.J
    M, B, f, pos = rate_rows(chain, drifts, fast, K, lambda empty: forced_rate(red, chain, empty), jumps)
    n, nc = len(drifts), len(pos)
    # c - M w - B T <= f; maximise c
    A_ub = sp.hstack([-M, -B, sp.csr_matrix(np.ones((n, 1)))], format="csr")
    cost = np.zeros(J + nc + 1)
    cost[-1] = -1.0
    lo = np.concatenate([np.full(J + nc, -100.0), [-np.inf]])
    hi = np.concatenate([np.full(J + nc, 100.0), [float(red.constant + sum(red.forced.values(), Fraction(0))) + 1]])
    res = solve_lp(cost, A_ub, f, bounds=(lo, hi), solver=solver, time_limit=remaining(deadline))
    if res.timed_out:
        raise TimeLimitReached("the sink rate LP")  # not an answer: no rate may be said not to exist
    if not res.ok or res.x is None:
        return None
    c_lp = float(res.x[-1])
    if optimum is not None:
        optimum(c_lp)
    # rounding w and T to 2^-20 moves f + A'g by about 2^-20 times the jump rates; c is claimed SLACK below the LP's
    rate = claimed_rate(c_lp, SLACK, 1)
    if rate <= red.capacity:
        return None
    w = round_to_grid(res.x[:J], 2**20)
    table = None
    if pos:
        tq = round_to_grid(res.x[J:J + nc], 2**20)
        table = {c: tq[k] for c, k in pos.items()}
    return w, table, rate
