"""The sink stages' Poisson-table try (:mod:`certify.search.poisson`): up to three boxes of R', both sides' candidates.

The sink-growth stage runs it once per sink or set of sinks after its small rate LPs (tables of at most
:data:`certify.proof.sink.POISSON_AFTER_CELLS` cells) and keeps what it found on ``ctx.poisson``, so that the sink-drain stage checks
the drain candidate without solving again, in whatever the run has left (:func:`certify.proof.drain.kept_drain`),
and runs the try itself when the growth stage did not.  The growth stage's try may run into
:data:`certify.proof.sink.BOX_SHARE` of what the run has left after the stage's share.  The
candidates are the kinds' own functions (a table over every station of R' with a clip level per station); each
passes the exact check of :func:`certify.exact.sink.check_sink_growth` or
:func:`certify.exact.drain.check_sink_drain` or is not used.  Since stop 45 a box's rows are its cells
(:mod:`certify.search.cell_rows`), as the exact check reads them (:mod:`certify.exact.cell_rates`): no region of
R' is listed.

For a set of sinks a box also gives the proper subsets that need them their own functions (:func:`box_subsets`,
docs/math/poisson.md "Subsets' functions").

Public: :func:`poisson_try`, :func:`poisson_found`, :func:`box`, :func:`box_subsets`, :func:`box_sides`,
:data:`SECONDS_PER_CELL`, :data:`BOX_CELLS`, :data:`MANY_CELLS`, :data:`BOX_SUBSETS`, :data:`MIN_STATES`,
:data:`MIDDLE_SHARE`, :data:`WIDE_J`, :data:`WIDE_STATES`, :data:`RESOLVE_SHARE`, :data:`RESOLVE_ROUNDS`,
:data:`STEP_GROWTH`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from fractions import Fraction
from functools import partial
from math import prod

import numpy as np

from ..core.model import Network
from ..exact.drain import directions, drain_rate, largest_drain_rate, tie_excess
from ..exact.sink import Reduction, forced_rate, proper_subsets
from ..markov.chain import Chain
from ..search.cell_rows import CellRows, SubsetRate, cell_poisson_rates
from ..search.poisson import (
    FIRST_STATES,
    POISSON_STATES,
    PoissonRates,
    balanced_levels,
    box_law,
    box_levels,
    elimination_order,
    piling,
    resolving_levels,
)
from .context import ProofContext
from .separable import product_estimate

__all__ = ["SECONDS_PER_CELL", "BOX_CELLS", "MIN_STATES", "WIDE_J", "MIDDLE_SHARE", "WIDE_STATES", "RESOLVE_SHARE",
           "RESOLVE_ROUNDS", "STEP_GROWTH", "MANY_CELLS", "BOX_SUBSETS", "STEEP_J", "STEEP_SHARE", "STEEP_NEXT",
           "steep_states", "box", "box_sides", "box_subsets", "poisson_try", "poisson_found"]

#: Seconds per cell of a box, for sizing it to the time left: its rows, the linear solves and the LPs (about 50 us a
#: cell) and the exact check of a candidate (about 45 us a cell until stop 47, 14 us since: J = 8 seed 16's
#: 112,500-cell drain certificate is checked in 1.56 s).  J = 8 seed 26 at 0.8719 (R' of seven stations, levels 3):
#: 78,125 cells tried in 4.1 s, alone.  Since stop 51 (the drain side's LPs in a second thread) J = 8 seed 7 at 0.9404
#: tries 648,000 cells in 19.8 s (31 us a cell) and checks its drain candidate in 11.2 s (17 us): 60 us leaves a
#: quarter to spare (70 us until stop 51).
SECONDS_PER_CELL = 0.00006

#: The most cells of a box.  Until stop 49 a box took about 5 KB a cell while it was tried (J = 8 seed 13 at 0.888,
#: 622,080 cells, 3.3 GB at its peak), most of it the LP over w with every row of every cutting-plane round; with that
#: LP's rows generated (:mod:`certify.search.cell_rows`), 1.6-2 KB (J = 8 seed 12 at 0.955: 549,120 cells, 0.99 GB at
#: the peak of the whole run; seed 58 at 0.9263: 540,000 cells, 1.15 GB).  800,000 until stop 61; now just under the
#: exact check's bound on a table (:data:`~certify.templates.options.MAX_REFINEMENT`, 1,000,000 cells), which a probe
#: of more than a minute reaches (`certify prove --time-limit 120`; J = 8 seed 85 at 0.864, 100 s: 987,840 cells,
#: 1.98 GB).
BOX_CELLS = 990_000

#: The most cells of a box on R' of more than :data:`WIDE_J` stations: :data:`BOX_CELLS`' value until stop 61, kept
#: there, where a cell has more jumps and the larger boxes were not measured (J = 12 seed 3 of bench/frontier.py peaks
#: at 3.6-4.1 GB in `certify boundary --time-limit 300`).
MANY_CELLS = 800_000

#: The smallest second box worth solving.
MIN_STATES = 2_000

#: From this many stations of R' on, a box has at most :data:`WIDE_STATES` states, and the middle box has the largest
#: uniform levels that fit its share: there the first box has levels 2, and the levels balanced from its law may leave
#: a slow station low (J = 8 seed 58 at 0.8792: the middle box (3, 2, 5, 7, 2, 3, 4), bounds no better than the first
#: box's, and a last box bounding the drain rate by 1.50013 against 1.5; from the uniform middle box (3, ..., 3),
#: 16,384 states in 1.8 s, the last box bounds it by 1.49387: stable).  Until stop 49 the second box started there
#: from the largest uniform levels that fit.
WIDE_J = 7

#: The middle box's share of the states the time left allows after the first box.  Its law predicts the mass at
#: each level better than the first box's (:func:`~certify.search.poisson.balanced_levels`): at J = 6 seed 21 and 0.89
#: a box of about 100,000 states chosen from the first box (levels 5) bounds the rate within [0.99269, 1.00192] (the
#: levels of stop 48) or [0.99382, 1.00197]; chosen from a middle box of 24,570 states (1.9 s), within [0.99475,
#: 1.00098].  J = 7 seed 40 at 0.875, 175,000 states: [0.49425, 0.50027] -> [0.49604, 0.49891] (stable: 1/2 is the
#: capacity); J = 8 seed 13 at 0.888: [0.99835, 1.00806] -> [1.00168, 1.00521] (unstable).
MIDDLE_SHARE = 0.25

#: The most states of a box on R' of WIDE_J stations or more: there the incomplete LU factorisation grows
#: faster than the cells (J = 8 seed 33, seven stations, in row-major order: 16,384 / 28,672 / 53,248 states
#: factorised in 1.4 / 4.0 / 25 s, the last a 44 s try that left the drain stage no time for its check at load 0.5;
#: five stations: 120,000 states in about 20 s).  Since the states are eliminated with the highest levels slowest
#: (:func:`~certify.search.poisson.elimination_order`), 50,176 states take 6-9 s: J = 8 seed 13 at 0.8773 is undecided
#: in 60 s with 30,000 states and stable in 24 s with 60,000 (a box of levels (3, 3, 3, 6, 3, 7, 3)).  Since stop 48
#: (drop tolerance 0.1 and BiCGSTAB, :data:`~certify.search.poisson.ILU_DROP`) seed 13 at 0.888 tries 57,344 / 196,875
#: / 225,000 states in 5.9 / 32.3 / 27.5 s (levels 3 with 6 and 7; 4 with 6 and 8; 4 with 7 and 8), bounding the
#: stationary rate within [0.99426, 1.00912], [0.99839, 1.00820], [0.99869, 1.00636].  Stop 51: J = 8 seed 7 at 0.944,
#: 230,400 states (levels (8, 4, 7, 7, 3, 4, 3), 729,000 cells) in 21.4 s; 200,000 until then.  240,000 until stop 61,
#: which capped J = 8 seed 85's box at 0.864 at 219,520 states (691,200 cells: its stationary rate within [0.99436,
#: 1.0084]); 987,840 cells take about 330,000 states there ([0.99651, 1.0056]).
WIDE_STATES = 330_000

#: The law-only boxes that resolve piling stations before a box's levels are balanced (:func:`poisson_try`) have at
#: most this share of that box's states.  J = 8 seed 12 at 0.955 (sink 1, a last box of at most 200,000 states): from
#: the middle box of levels 3 station 4 piles; raising it, then 8, then 6 (laws of 32,768 / 49,152 / 41,472 states,
#: 1.8 s together) gives the balanced last box (4, 2, 8, 2, 8, 4, 8), which bounds the rate within [1.99588, 2.00613];
#: balanced from the middle box directly, (4, 3, 3, 3, 9, 4, 10) within [1.99114, 2.02588] (capacity 2).
RESOLVE_SHARE = 0.25

#: The most states of a box after the middle box, as a multiple of the box before's, while the time left allows
#: twice as many (a *step box*): the box sized to the time left is solved only where the step boxes decide neither
#: side.  A probe far from the boundary then stops at a box sized to it rather than to its time (on R' of seven
#: stations the uniform middle box has 16,384 states where the time left allows 250,000 or more).
STEP_GROWTH = 4

#: The most law-only boxes before one box's levels are balanced.
RESOLVE_ROUNDS = 3

#: On R' of at most this many stations a box's levels run deep and its incomplete LU factorisation grows far faster
#: than its states, which :data:`SECONDS_PER_CELL` does not see: J = 5 seed 324 of stop 65's screen at 0.965 (R' of
#: four stations) factorised boxes of 6,560 / 99,143 / 399,167 states in 0.04 / 3.0 / 73.8 s, and the last one
#: held a 60-s probe for 88 s.  There the next box's states are capped by :func:`steep_states`.
STEEP_J = 4
#: ... so that the box before's time, grown as the square of the states, fits in this share of the time left.
STEEP_SHARE = 0.5
#: Where the cap sized the last box, one more box follows while the cap allows this many times its states.
STEEP_NEXT = 1.25

Found = tuple[tuple[int, ...], int, PoissonRates]


#: The most proper subsets of a set of sinks that a box gives functions of their own on one side: each adds an LP to
#: the try (when the set's own candidate clears its bound) and a pass over the cells to the exact check.
BOX_SUBSETS = 6


def box_subsets(net: Network, red: Reduction) -> tuple[list[tuple[str, ...]] | None, list[tuple[str, ...]] | None]:
    """The proper subsets of a set of sinks that need functions of their own on each side, or None where a box does
    not serve that side.

    A subset H needs one on the growth side when its constant inflow lambda_H is not above its m_H, on the drain side
    when its largest u_H is not below mu(H) (an unlisted subset is checked with those: docs/math/sink.md and
    docs/math/drain.md).  The box gives each such H a function from the same cells (:class:`~certify.search.cell_rows.SubsetRate`).
    It does not serve a side with more than :data:`BOX_SUBSETS` of them, nor a drain side with one where ties with the
    sinks send R' more than R' sends itself (the subsets' inequalities are then on R'_eps, whose box chain is not
    R''s: hypothesis 1 of docs/math/drain.md).

    Parameters
    ----------
    net : Network
        The network N.
    red : Reduction
        The reduction by the sink or the set.

    Returns
    -------
    (list or None, list or None)
        The subsets (sorted by size, then by name) for the growth side and for the drain side.

    Examples
    --------
    Stations 2 and 3 share a stream of 3/2 and station 1 feeds 3. When {2} or {3} holds the pair's shortest queue the
    whole stream joins it (lambda_H = 3/2 > 1): the growth side needs no subset function. 3's largest u, 1 (its
    feeder busy), is not below its rate 1: the drain side needs a function for {3}.

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Station, Stream
    >>> from certify.exact.sink import reduced_network
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(1)), Station("3", F(1))),
    ...               (Stream(F(1, 2), choice=("1",)), Stream(F(3, 2), choice=("2", "3"))), (Feedback("1", ("3",), F(1)),))
    >>> box_subsets(net, reduced_network(net, "3")), box_subsets(net, reduced_network(net, ("2", "3")))
    (([], []), ([], [('3',)]))
    """
    if len(red.sinks) == 1:
        return [], []
    subsets = sorted(proper_subsets(red.sinks), key=lambda H: (len(H), H))
    growth = [H for H in subsets if red.part(H).constant <= red.part(H).capacity]
    drain: list[tuple[str, ...]] | None = [H for H in subsets if largest_drain_rate(red, H) >= red.served(H)]
    if drain and tie_excess(net, red.sinks):
        drain = None
    return (growth if len(growth) <= BOX_SUBSETS else None,
            drain if drain is not None and len(drain) <= BOX_SUBSETS else None)


def box_sides(net: Network, red: Reduction) -> tuple[bool, bool]:
    """Which sides a box may give a certificate (:func:`box_subsets` is not None there).

    Parameters
    ----------
    net : Network
        The network N.
    red : Reduction
        The reduction by the sink or the set.

    Returns
    -------
    (bool, bool)
        Whether the growth side, and the drain side, may use a box.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Station, Stream
    >>> from certify.exact.sink import reduced_network
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(1))), (Stream(F(1, 2), choice=("1", "2")),))
    >>> box_sides(net, reduced_network(net, "2"))
    (True, True)
    """
    growth, drain = box_subsets(net, red)
    return growth is not None, drain is not None


def _solved(ctx: ProofContext, red: Reduction, chain: Chain, K: tuple[int, ...], stop: float
            ) -> tuple[CellRows, PoissonRates, np.ndarray]:
    """The cells of the box K (the forced rate and the drain's u on each, then the subsets' that need functions of
    their own: :func:`box_subsets`), both sides' candidates and the box law."""
    G = red.sinks
    growth, drain = box_subsets(ctx.net, red)
    rate_of: list[Callable[[tuple[int, ...]], Fraction]] = [lambda empty: forced_rate(red, chain, empty),
                                                           lambda empty: drain_rate(red, chain, G, empty)]
    on_growth, on_drain = [], []
    for H in growth or []:
        on_growth.append(SubsetRate(H, len(rate_of), red.part(H).capacity))
        rate_of.append(partial(forced_rate, red.part(H), chain))
    for H in drain or []:
        dirs = tuple(sorted(chain.ids.index(s) for s in directions(ctx.net, G, H)))
        on_drain.append(SubsetRate(H, len(rate_of), red.served(H), dirs))
        rate_of.append(partial(drain_rate, red, chain, H))
    rows = CellRows(chain, K, rate_of)
    rates, pi = cell_poisson_rates(rows, red.capacity, red.served(), deadline=stop, solver=ctx.solver,
                                   growth_subsets=on_growth, drain_subsets=on_drain)
    return rows, rates, pi


def box(ctx: ProofContext, red: Reduction, chain: Chain, K: tuple[int, ...], stop: float) -> tuple[int, PoissonRates]:
    """One box's Poisson candidates: its cells and both sides' candidates (:func:`~certify.search.cell_rows.cell_poisson_rates`).

    Parameters
    ----------
    ctx : ProofContext
        The run (its LP solver).
    red : Reduction
        The reduction by a sink or a set of sinks.
    chain : Chain
        R''s chain.
    K : tuple of int
        The box's level at every station of R'.
    stop : float
        A ``time.perf_counter()`` value.

    Returns
    -------
    (int, PoissonRates)
        The cells, and the candidates.

    Raises
    ------
    TimeLimitReached
        Past ``stop``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.exact.sink import reduced_network
    >>> from certify.markov.chain import compile_chain
    >>> from certify.proof.context import RunState
    >>> from certify.proof.result import Result
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(3, 5))), (Stream(F(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> ctx = ProofContext(net, Result("n"), RunState(time.perf_counter() + 60), None, True, ["table"])
    >>> red = reduced_network(net, "2")
    >>> cells, rates = box(ctx, red, compile_chain(red.network), (5,), time.perf_counter() + 60)
    >>> cells, rates.growth is None, F(1, 2) <= rates.drain[2] < F(3, 5)
    (7, True, True)
    """
    rows, rates, _ = _solved(ctx, red, chain, K, stop)
    return len(rows.Z), rates


def poisson_try(ctx: ProofContext, red: Reduction, chain: Chain, stop: float) -> Found | None:
    """Both sides' Poisson candidates for one sink or set: a first box, and while neither side's candidate clears its
    bound, a middle box (:data:`MIDDLE_SHARE` of the states the time left allows), step boxes of at most
    :data:`STEP_GROWTH` times the box before's states while the time left allows twice that, and a last one, each
    with the levels that the box before's law predicts to leave the least mass at their tops
    (:func:`~certify.search.poisson.balanced_levels`; on R' of :data:`WIDE_J` stations or more the middle box's levels
    are uniform). Where a station's mass piles at the box before's top level
    (:func:`~certify.search.poisson.piling`), the law of a box with it raised is solved first, alone (at most
    :data:`RESOLVE_ROUNDS` of them, each at most :data:`RESOLVE_SHARE` of the next box's states), and the levels are
    balanced from that law.

    The boxes are sized to the time left before ``stop``, their exact check included (:data:`SECONDS_PER_CELL`; at
    most :data:`~certify.search.poisson.POISSON_STATES` states and :data:`BOX_CELLS` cells): the factorisation and
    the rows are not interrupted once started.

    Parameters
    ----------
    ctx : ProofContext
        The run (the answer is kept on ``ctx.poisson``).
    red : Reduction
        The reduction by a sink or a set of sinks.
    chain : Chain
        R''s chain.
    stop : float
        A ``time.perf_counter()`` value.

    Returns
    -------
    (tuple of int, int, PoissonRates) or None
        The levels of the box that decided (else the last one tried), its cells and the candidates (kept on
        ``ctx.poisson``: a second call returns them); None when R' splits into the separable certificates' groups
        (:func:`~certify.proof.separable.product_estimate`) or the time left allows no box of :data:`MIN_STATES`
        states.

    Raises
    ------
    TimeLimitReached
        Past ``stop``.

    Examples
    --------
    Station 1 (an M/M/1 queue at load 1/2) feeds everything it serves to the sink 2 (mu 3/5): the stationary inflow
    is 1/2, so only the drain side has a candidate.

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.exact.sink import reduced_network
    >>> from certify.markov.chain import compile_chain
    >>> from certify.proof.context import RunState
    >>> from certify.proof.result import Result
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(3, 5))), (Stream(F(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> ctx = ProofContext(net, Result("n"), RunState(time.perf_counter() + 60), None, True, ["table"])
    >>> red = reduced_network(net, "2")
    >>> K, cells, rates = poisson_try(ctx, red, compile_chain(red.network), time.perf_counter() + 60)
    >>> K, cells, rates.growth is None, F(1, 2) <= rates.drain[2] < F(3, 5)
    ((100,), 102, True, True)
    >>> poisson_found(ctx, red) == (K, cells, rates)
    True
    """
    if red.sinks in ctx.poisson:
        return ctx.poisson[red.sinks]
    if product_estimate(chain) is not None:
        # R' splits into groups (gadgets): the separable certificates take those, and a box over all their stations
        # only spends the stage's time (three exponential gadgets at 1.03: 42.9 s where the stage took seconds)
        ctx.poisson[red.sinks] = None
        return None
    # is there time for a box at all (at the cells per state of a first box, more than a deeper box has)
    states = _states(stop, _per_state(box_levels(chain.J, FIRST_STATES)), chain.J)
    if states < MIN_STATES:
        return None  # not kept: the drain stage may have the time
    K = box_levels(chain.J, min(FIRST_STATES, states // 4))
    shares = [MIDDLE_SHARE, 1.0]  # of the states the time left allows: the middle box's, then the last's
    while True:
        began = time.perf_counter()
        rows, rates, pi = _solved(ctx, red, chain, K, stop)
        count = len(rows.Z)
        _estimate(ctx, red, rates)
        states, cells = _states(stop, 1.0, chain.J), _cells(stop, chain.J)  # the next box's levels bound its cells
        if chain.J <= STEEP_J:
            steep = steep_states(len(rows.box), time.perf_counter() - began, stop)
            if steep < states:
                states = steep
                if not shares and steep >= STEEP_NEXT * len(rows.box):
                    shares = [1.0]  # the cap, not the time left, sized this box: another box, capped again
        if rates.growth is not None or rates.drain is not None or not shares or states <= len(rows.box):
            break
        share = shares.pop(0)
        if share < 1 and states * share < 2 * len(rows.box):
            share, shares = 1.0, []  # no middle box worth its time: the last box now
        step = share == 1 and STEP_GROWTH * len(rows.box) * 2 <= states
        if step:
            # a step box before the last: far from the boundary it decides in a fraction of the last box's time
            share, shares = STEP_GROWTH * len(rows.box) / states, [1.0]
        Z, before = rows.Z[rows.box], K
        del rows  # this box's rows go before the next box's are built
        if share < 1 and not step and chain.J >= WIDE_J:  # there a first box's law (levels 2) predicts too poorly
            K = box_levels(chain.J, int(states * share))  # uniform levels
            if K != before:
                continue
            share, shares = 1.0, []  # the uniform levels of the middle box's share are this box's: the last box now
        pi, Z, K = _resolved(chain, pi, Z, K, max(len(Z), int(states * share * RESOLVE_SHARE)), stop)
        K = balanced_levels(pi, Z, K, int(states * share), int(cells * share))
        if K == before:  # no other levels fit: this box is the answer
            break
    ctx.poisson[red.sinks] = K, count, rates
    return ctx.poisson[red.sinks]


def steep_states(states: int, took: float, stop: float) -> int:
    """The most states of the next box on R' of at most :data:`STEEP_J` stations: the box before (``states`` states,
    tried in ``took`` seconds) grown as the square of the states must fit in :data:`STEEP_SHARE` of the time left
    before ``stop``.

    Parameters
    ----------
    states : int
        The box before's states.
    took : float
        Its try's seconds.
    stop : float
        A ``time.perf_counter()`` value.

    Returns
    -------
    int

    Examples
    --------
    A box of 10,000 states tried in 1 s with 50 s left: the next may have 50,000 states (25 s predicted).

    >>> steep_states(10_000, 1.0, time.perf_counter() + 50) in (49_999, 50_000)
    True
    """
    left = max(0.0, stop - time.perf_counter())
    return int(states * (STEEP_SHARE * left / max(took, 0.01)) ** 0.5)


def _resolved(chain: Chain, pi: np.ndarray, Z: np.ndarray, K: tuple[int, ...], states: int, stop: float
              ) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """The law to balance the next box's levels from: while a station's mass piles at its top level
    (:func:`~certify.search.poisson.piling`), the law of a box of at most ``states`` states with the piling stations
    raised (:func:`~certify.search.poisson.resolving_levels`; at most :data:`RESOLVE_ROUNDS` such boxes, their laws
    only: no Poisson solution, no LP)."""
    kept: list[int] = []
    for _ in range(RESOLVE_ROUNDS):
        piled = [a for a in piling(pi, Z, K) if a not in kept]  # each station raised once
        L = resolving_levels(K, piled, kept, states) if piled else None
        if L is None:
            break
        kept = sorted({*kept, *piled})
        rows = CellRows(chain, L, [])
        pi, _ = box_law(rows.box_generator(), range(rows.columns), stop, elimination_order(rows.K))
        Z, K = rows.Z[rows.box], L
    return pi, Z, K


def _estimate(ctx: ProofContext, red: Reduction, rates: PoissonRates) -> None:
    """Keep the box's two worst values as bounds on the stationary excess (``Result.estimates``, guidance only)."""
    if red.capacity <= 0:
        return
    low, high = rates.growth_value / float(red.capacity) - 1, rates.drain_value / float(red.served()) - 1
    if np.isfinite(low) and np.isfinite(high) and low <= high:
        ctx.res.estimates[",".join(red.sinks)] = (low, high)


def _per_state(K: tuple[int, ...]) -> float:
    """Cells per state of the box K: prod (K_a + 2) / (K_a + 1)."""
    return prod((k + 2) / (k + 1) for k in K)


def _states(stop: float, ratio: float, J: int = 0) -> int:
    """The states of a box whose cells (``ratio`` per state) can be tried and checked before ``stop``, at most
    :data:`~certify.search.poisson.POISSON_STATES` (:data:`WIDE_STATES` on R' of ``J`` >= :data:`WIDE_J`
    stations) and :data:`BOX_CELLS` cells (:data:`MANY_CELLS` on more than :data:`WIDE_J`)."""
    most = WIDE_STATES if J >= WIDE_J else POISSON_STATES
    return min(most, int(_cells(stop, J) / ratio))


def _cells(stop: float, J: int = 0) -> int:
    """The cells of a box that can be tried and checked before ``stop``, at most :data:`BOX_CELLS`
    (:data:`MANY_CELLS` on R' of more than :data:`WIDE_J` stations)."""
    most = MANY_CELLS if J > WIDE_J else BOX_CELLS
    return int(min(max(0.0, stop - time.perf_counter()) / SECONDS_PER_CELL, most))


def poisson_found(ctx: ProofContext, red: Reduction) -> Found | None:
    """The Poisson try's answer for this sink if a stage ran it already (``ctx.poisson``), else None.

    Parameters
    ----------
    ctx : ProofContext
        The run.
    red : Reduction
        The reduction by a sink or a set of sinks.

    Returns
    -------
    (tuple of int, int, PoissonRates) or None
        As :func:`poisson_try` returned it.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.exact.sink import reduced_network
    >>> from certify.proof.context import RunState
    >>> from certify.proof.result import Result
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(1))), (Stream(F(1, 2), choice=("1", "2")),))
    >>> ctx = ProofContext(net, Result("n"), RunState(time.perf_counter() + 60), None, True, ["table"])
    >>> poisson_found(ctx, reduced_network(net, "2")) is None
    True
    """
    return ctx.poisson.get(red.sinks)
