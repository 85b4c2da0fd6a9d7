"""The rows of R' the sink stages share: each table's regions, drifts and float rows, listed once per run.

The sink-growth stage (:mod:`certify.proof.sink`) and the sink-drain stage (:mod:`certify.proof.drain`) try the same
tables on the same reduced network R'; what one lists (:func:`reduced_drifts`, :func:`reduced_jumps`) and solves
(:func:`drain_bound`, the LP optima that order the next table's two LPs: :func:`nearer_drain`) is kept on
``ctx.reduced`` by :func:`table_key`, so the other does not list or solve it again.  (The Poisson try,
:mod:`certify.proof.poisson`, lists no region: its boxes' rows are their cells.)

Public: :func:`reduced_drifts`, :func:`reduced_jumps`, :func:`drain_bound`, :func:`nearer_drain`,
:func:`table_key`, :func:`listable`, :data:`SINK_REGIONS`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from math import prod

from ..exact.growth import growth_levels
from ..exact.sink import Reduction
from ..markov.chain import Chain
from ..markov.drift import Clip, RegionDrift, clip_levels, compile_drifts
from ..markov.regions import iter_regions
from ..search.drain import solve_drain_rate
from ..search.sink import JumpRows, RateSolution, TableRows, jump_rows
from .context import ProofContext
from .separable import product_estimate

__all__ = ["SINK_REGIONS", "reduced_drifts", "reduced_jumps", "drain_bound", "nearer_drain",
           "table_key", "listable"]

#: The most regions of R' (refined) the sink stages list for one candidate.
SINK_REGIONS = 400_000


def reduced_drifts(ctx: ProofContext, sinks: tuple[str, ...], chain: Chain, fast: Sequence[int], K: Clip,
                   stop: float) -> list[RegionDrift] | None:
    """The regions of R' (without ``sinks``) refined by the table's levels, with their drifts; None past SINK_REGIONS.

    Listed once per run and table (``ctx.reduced``, a :class:`~certify.search.sink.TableRows`): the growth and drain
    stages share them.

    Parameters
    ----------
    ctx : ProofContext
        The run.
    sinks : tuple of str
        G.
    chain : Chain
        R''s chain.
    fast : sequence of int
        The table's stations.
    K : int or tuple of int
        Its clip level (or one per fast station).
    stop : float
        A ``time.perf_counter()`` value: the listing raises TimeLimitReached past it.

    Returns
    -------
    list of RegionDrift or None
        The drifts, or None when there are more than :data:`SINK_REGIONS` regions.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> import time
    >>> from certify.markov.chain import compile_chain
    >>> from certify.proof.context import ProofContext, RunState
    >>> from certify.proof.result import Result
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(2, 5))), (Stream(F(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> ctx = ProofContext(net, Result("n"), RunState(time.perf_counter() + 60), None, True, ["quadratic"])
    >>> red = compile_chain(Network("r", (Station("1", F(1)),), (Stream(F(1, 2), choice=("1",)),)))
    >>> len(reduced_drifts(ctx, ("2",), red, [0], 2, time.perf_counter() + 60))
    4
    """
    key = table_key(sinks, fast, K)
    if key not in ctx.reduced:
        regions = []
        for region in iter_regions(chain, growth_levels(chain, fast, K), deadline=stop):
            regions.append(region)
            if len(regions) > SINK_REGIONS:
                ctx.reduced[key] = None  # known too many: the other sink stage does not list them again
                return None
        ctx.reduced[key] = TableRows(compile_drifts(chain, regions, deadline=stop))
    rows = ctx.reduced[key]
    return None if rows is None else rows.drifts


def table_key(sinks: tuple[str, ...], fast: Sequence[int], K: Clip) -> tuple[tuple[str, ...], tuple[int, ...],
                                                                             tuple[int, ...]]:
    """The key of a table's entry in ``ctx.reduced``: the sinks, the table's stations and each one's clip level.

    Parameters
    ----------
    sinks : tuple of str
        G.
    fast : sequence of int
        The table's stations.
    K : int or tuple of int
        Its clip level (or one per fast station).

    Returns
    -------
    tuple

    Examples
    --------
    >>> table_key(("s",), [0, 1], 2) == table_key(("s",), (0, 1), (2, 2))
    True
    """
    return sinks, tuple(fast), clip_levels(fast, K)


def listable(chain: Chain, fast: Sequence[int], K: Clip) -> bool:
    """False where R' splits into the separable certificates' groups and the product of their regions times the
    table's cells exceeds :data:`SINK_REGIONS` (six gadgets: 46,656 x 81), so that listing would stop at the bound.

    Parameters
    ----------
    chain : Chain
        R''s chain.
    fast : sequence of int
        The table's stations.
    K : int or tuple of int
        Its clip level (or one per fast station).

    Returns
    -------
    bool

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> one = compile_chain(Network("r", (Station("1", F(1)),), (Stream(F(1, 2), choice=("1",)),)))
    >>> listable(one, [0], 2)
    True
    """
    estimate = product_estimate(chain)
    return estimate is None or estimate * prod(k + 1 for k in clip_levels(fast, K)) <= SINK_REGIONS


def reduced_jumps(ctx: ProofContext, sinks: tuple[str, ...], chain: Chain, fast: Sequence[int], K: Clip,
                  drifts: Sequence[RegionDrift]) -> JumpRows:
    """A'g on the regions of :func:`reduced_drifts` (``drifts``), in floats: built once per run and table.

    The growth LP, the drain LP and each subset's LP on the same regions differ only in the rate bounded.

    Parameters
    ----------
    ctx : ProofContext
        The run.
    sinks : tuple of str
        G.
    chain : Chain
        R''s chain.
    fast : sequence of int
        The table's stations.
    K : int or tuple of int
        Its clip level (or one per fast station).
    drifts : sequence of RegionDrift
        ``reduced_drifts(ctx, sinks, chain, fast, K, ...)``.

    Returns
    -------
    JumpRows
        M, B and each cell's column (:func:`certify.search.sink.jump_rows`).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> import time
    >>> from certify.markov.chain import compile_chain
    >>> from certify.proof.context import ProofContext, RunState
    >>> from certify.proof.result import Result
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(2, 5))), (Stream(F(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> ctx = ProofContext(net, Result("n"), RunState(time.perf_counter() + 60), None, True, ["quadratic"])
    >>> red = compile_chain(Network("r", (Station("1", F(1)),), (Stream(F(1, 2), choice=("1",)),)))
    >>> drifts = reduced_drifts(ctx, ("2",), red, [0], 2, time.perf_counter() + 60)
    >>> reduced_jumps(ctx, ("2",), red, [0], 2, drifts) is reduced_jumps(ctx, ("2",), red, [0], 2, drifts)
    True
    """
    rows = ctx.reduced.get(table_key(sinks, fast, K))
    if rows is None or rows.drifts is not drifts:  # regions that were not kept: rows built for this call only
        return jump_rows(chain, drifts, fast, K)
    if rows.jumps is None:
        rows.jumps = jump_rows(chain, drifts, fast, K)
    return rows.jumps


def drain_bound(ctx: ProofContext, red: Reduction, chain: Chain, fast: Sequence[int], K: Clip,
                drifts: list[RegionDrift], stop: float) -> RateSolution | None:
    """The drain LP for the whole set of sinks on a table's rows (:func:`~certify.search.drain.solve_drain_rate`),
    solved once per run and table (kept on ``ctx.reduced``'s entry) for the growth and drain stages.

    Parameters
    ----------
    ctx : ProofContext
        The run.
    red : Reduction
        The reduction by the sinks.
    chain : Chain
        R''s chain.
    fast : sequence of int
        The table's stations.
    K : int or tuple of int
        Its clip level (or one per fast station).
    drifts : list of RegionDrift
        ``reduced_drifts(ctx, red.sinks, chain, fast, K, ...)``.
    stop : float
        A ``time.perf_counter()`` value: the LP's time limit.

    Returns
    -------
    (list of Fraction, dict or None, Fraction) or None
        w, T and c (rounded) with c below what the sinks serve, or None.

    Raises
    ------
    TimeLimitReached
        When the LP is stopped by ``stop`` (nothing is cached then).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.exact.sink import reduced_network
    >>> import time
    >>> from certify.markov.chain import compile_chain
    >>> from certify.proof.context import ProofContext, RunState
    >>> from certify.proof.result import Result
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(3, 5))), (Stream(F(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> ctx = ProofContext(net, Result("n"), RunState(time.perf_counter() + 60), None, True, ["quadratic"])
    >>> red = reduced_network(net, "2")
    >>> chain = compile_chain(red.network)
    >>> drifts = reduced_drifts(ctx, red.sinks, chain, [], 0, time.perf_counter() + 60)
    >>> w, T, c = drain_bound(ctx, red, chain, [], 0, drifts, time.perf_counter() + 60)
    >>> F(1, 2) <= c < F(3, 5)
    True
    """
    rows = ctx.reduced.get(table_key(red.sinks, fast, K))
    if rows is not None and rows.drain_solved:
        return rows.drain
    mine = rows if rows is not None and rows.drifts is drifts else None  # the entry these rows are kept on
    got = solve_drain_rate(chain, red, drifts, fast, K, red.sinks, red.served(),
                           solver=ctx.solver, deadline=stop, jumps=reduced_jumps(ctx, red.sinks, chain, fast, K, drifts),
                           optimum=None if mine is None else lambda c: setattr(mine, "drain_lp", c))
    if mine is not None and (got is not None or time.perf_counter() <= stop):
        mine.drain, mine.drain_solved = got, True  # an LP cut short by ``stop`` is not an answer
    return got


def nearer_drain(ctx: ProofContext, red: Reduction, fast: Sequence[int], K: Clip) -> bool:
    """Whether a table's drain LP came nearer to what the sinks serve than its growth LP to their capacity.

    The growth stage then solves the next table's drain LP before its growth LP (at a load where the network is
    stable the growth LPs only fail, and the drain LP that decides spares the growth LP on its table). Search order
    only: both LPs' optima are floats kept on the table's ``ctx.reduced`` entry, and nothing is concluded from them.

    Parameters
    ----------
    ctx : ProofContext
        The run.
    red : Reduction
        The reduction by the sinks.
    fast : sequence of int
        The table's stations.
    K : int or tuple of int
        Its clip level (or one per fast station).

    Returns
    -------
    bool
        True when both LPs were solved on the table and capacity - (growth optimum) exceeds (drain optimum) -
        mu(G); False otherwise.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.exact.sink import reduced_network
    >>> import time
    >>> from certify.markov.chain import compile_chain
    >>> from certify.proof.context import ProofContext, RunState
    >>> from certify.proof.result import Result
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(3, 5))), (Stream(F(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> ctx = ProofContext(net, Result("n"), RunState(time.perf_counter() + 60), None, True, ["quadratic"])
    >>> red = reduced_network(net, "2")
    >>> rows = ctx.reduced[table_key(red.sinks, [], 0)] = TableRows([])  # the table's entry, as a stage leaves it
    >>> nearer_drain(ctx, red, [], 0)  # neither LP solved yet
    False
    >>> rows.rate_lp, rows.drain_lp = 0.45, 0.55  # growth 0.15 short of 3/5, drain 0.05 below it
    >>> nearer_drain(ctx, red, [], 0)
    True
    """
    rows = ctx.reduced.get(table_key(red.sinks, fast, K))
    if rows is None or rows.rate_lp is None or rows.drain_lp is None:
        return False
    return rows.drain_lp - float(red.served()) < float(red.capacity) - rows.rate_lp
