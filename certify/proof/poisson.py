"""The sink stages' Poisson-table try (:mod:`certify.search.poisson`): two boxes of R', both sides' candidates.

The sink-growth stage runs it once per single sink after its small rate LPs (tables of at most
:data:`certify.proof.sink.POISSON_AFTER_CELLS` cells) and keeps what it found on ``ctx.poisson``, so that the sink-drain stage checks
the drain candidate without solving again (and runs the try itself when the growth stage did not).  The
candidates are the kinds' own functions (a table over every station of R' with a clip level per station); each
passes the exact check of :func:`certify.exact.sink.check_sink_growth` or
:func:`certify.exact.drain.check_sink_drain` or is not used.

Public: :func:`poisson_try`, :func:`poisson_found`, :func:`listed`, :data:`SECONDS_PER_REGION`,
:data:`REGIONS_PER_STATE`, :data:`BOX_REGIONS`, :data:`MIN_STATES`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from math import prod

import numpy as np

from ..exact.drain import drain_rate
from ..exact.growth import growth_levels
from ..exact.sink import Reduction, forced_rate
from ..markov.chain import Chain
from ..markov.drift import RegionDrift, compile_drifts
from ..markov.regions import iter_regions
from ..search.poisson import (
    FIRST_STATES,
    POISSON_STATES,
    PoissonRates,
    box_law,
    box_levels,
    box_rows,
    poisson_rates,
    raised_levels,
)
from ..search.sink import JumpRows, jump_rows, rate_rows
from .context import ProofContext
from .separable import product_estimate

__all__ = ["SECONDS_PER_REGION", "REGIONS_PER_STATE", "BOX_REGIONS", "MIN_STATES", "Lister", "listed", "poisson_try", "poisson_found"]

#: Seconds per region of a box, for sizing it to the time left: its regions' rows, the linear solves and the exact
#: check of a candidate.  J = 7 seed 23 at 0.8172 (R' of six stations): a box of 40,768 states, 208,608 regions,
#: tried in 11.6 s and its growth candidate checked in 4.5 s (alone); about twice that beside another run.
SECONDS_PER_REGION = 0.00015

#: The most regions of a box (under the sink stages' ``SINK_REGIONS``; about 4 KB each while it is tried): R' of
#: seven stations lists about 20 regions per state, so a box of 100,000 states there would list 1.9 million regions
#: (J = 8 seed 26 at 0.8758: 7.7 GB, 125 s).
BOX_REGIONS = 360_000

#: Regions per state of a box, assumed until the first box is listed (R' of five stations lists about three per
#: state, of six about five; the second box is sized by the first's own ratio).
REGIONS_PER_STATE = 5

#: The smallest second box worth solving.
MIN_STATES = 2_000

Found = tuple[tuple[int, ...], list[RegionDrift], PoissonRates]


#: Lists a box's regions of R' and their rows: (levels, deadline) -> (drifts, JumpRows), or None past a bound.
Lister = Callable[[tuple[int, ...], float], "tuple[list[RegionDrift], JumpRows] | None"]


def listed(chain: Chain) -> Lister:
    """A :data:`Lister` that lists every time (the sink stages pass one that keeps them on ``ctx.reduced``).

    Parameters
    ----------
    chain : Chain
        R''s chain.

    Returns
    -------
    callable
        (levels, deadline) -> (drifts, JumpRows).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> mm1 = Chain(("1",), (F(1),), (((0,), F(1, 2)),), (), (F(1),))
    >>> drifts, rows = listed(mm1)((2,), time.perf_counter() + 60)
    >>> len(drifts), rows.B.shape
    (4, (4, 3))
    """
    def lister(K: tuple[int, ...], stop: float) -> tuple[list[RegionDrift], JumpRows] | None:
        fast = list(range(chain.J))
        drifts = compile_drifts(chain, list(iter_regions(chain, growth_levels(chain, fast, K), deadline=stop)),
                                deadline=stop)
        return drifts, jump_rows(chain, drifts, fast, K)

    return lister


def _box(ctx: ProofContext, red: Reduction, chain: Chain, K: tuple[int, ...], stop: float, lister: Lister,
         law_only: bool = False) -> tuple[list[RegionDrift], PoissonRates | None, np.ndarray, np.ndarray] | None:
    """One box: its regions, the Poisson candidates (None with ``law_only``), the box chain's law and its cells."""
    fast = list(range(chain.J))
    rows = lister(K, stop)
    if rows is None:
        return None
    drifts, jumps = rows
    M, B, f, pos = rate_rows(chain, drifts, fast, K, lambda empty: forced_rate(red, chain, empty), jumps)
    box = box_rows(drifts, fast, K, pos)
    if box is None:
        return None
    cells = np.array(sorted(pos, key=pos.__getitem__), dtype=int)
    if law_only:
        return drifts, None, box_law(B, box, stop)[0], cells
    _, _, u, _ = rate_rows(chain, drifts, fast, K, lambda empty: drain_rate(red, chain, red.sinks, empty), jumps)
    got, pi = poisson_rates(M, B, f, u, box, pos, red.capacity, red.served(), deadline=stop, solver=ctx.solver)
    return drifts, got, pi, cells


def poisson_try(ctx: ProofContext, red: Reduction, chain: Chain, stop: float, lister: Lister | None = None
                ) -> Found | None:
    """Both sides' Poisson candidates for one sink: a first box, then one raised where its law leaves the most mass.

    The boxes are sized to the time left before ``stop``, their exact check included (:data:`SECONDS_PER_REGION`,
    the second by the first box's regions per state; at most
    :data:`~certify.search.poisson.POISSON_STATES` states): the factorisation and the regions' rows are not
    interrupted once started.

    Parameters
    ----------
    ctx : ProofContext
        The run (the boxes' regions and the answer are kept on ``ctx.reduced``).
    red : Reduction
        The reduction by a single sink.
    chain : Chain
        R''s chain.
    stop : float
        A ``time.perf_counter()`` value.
    lister : callable, optional
        Lists a box's regions and rows (default :func:`listed`).

    Returns
    -------
    (tuple of int, list of RegionDrift, PoissonRates) or None
        The second box's levels, its regions and the candidates (kept on ``ctx.poisson``: a second call returns
        them); None when R' splits into the separable certificates' groups
        (:func:`~certify.proof.separable.product_estimate`), a box has too many regions or the time left allows no
        box of :data:`MIN_STATES` states.

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
    >>> K, drifts, rates = poisson_try(ctx, red, compile_chain(red.network), time.perf_counter() + 60)
    >>> K, rates.growth is None, F(1, 2) <= rates.drain[2] < F(3, 5)
    ((100,), True, True)
    >>> poisson_found(ctx, red) == (K, drifts, rates)
    True
    """
    if red.sinks in ctx.poisson:
        return ctx.poisson[red.sinks]
    if product_estimate(chain) is not None:
        # R' splits into groups (gadgets): the separable certificates take those, and a box over all their stations
        # only spends the stage's time (three exponential gadgets at 1.03: 42.9 s where the stage took seconds)
        ctx.poisson[red.sinks] = None
        return None
    states = _states(stop, REGIONS_PER_STATE)
    if states < MIN_STATES:
        return None  # not kept: the drain stage may have the time
    lister = lister or listed(chain)
    first = box_levels(chain.J, min(FIRST_STATES, states // 4))
    one = _box(ctx, red, chain, first, stop, lister, law_only=True)
    if one is None:
        ctx.poisson[red.sinks] = None
        return None
    ratio = len(one[0]) / prod(k + 1 for k in first)  # the regions per state of this R''s boxes
    K = raised_levels(one[2], one[3], first, _states(stop, ratio))
    two = _box(ctx, red, chain, K, stop, lister)
    if two is None or two[1] is None:
        ctx.poisson[red.sinks] = None
        return None
    ctx.poisson[red.sinks] = K, two[0], two[1]
    return ctx.poisson[red.sinks]


def _states(stop: float, ratio: float) -> int:
    """The states of a box whose regions (``ratio`` per state) can be tried and checked before ``stop``, at most
    :data:`~certify.search.poisson.POISSON_STATES` and :data:`BOX_REGIONS` regions."""
    seconds = max(0.0, stop - time.perf_counter())
    return min(POISSON_STATES, int(min(seconds / SECONDS_PER_REGION, BOX_REGIONS) / ratio))


def poisson_found(ctx: ProofContext, red: Reduction) -> Found | None:
    """The Poisson try's answer for this sink if a stage ran it already (``ctx.poisson``), else None.

    Parameters
    ----------
    ctx : ProofContext
        The run.
    red : Reduction
        The reduction by a single sink.

    Returns
    -------
    (tuple of int, list of RegionDrift, PoissonRates) or None
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
