"""Jumps and mean drift of the chain on each region (exact, in scaled integers).

On a region every jump rate is constant, so the generator acts on any
template V through a finite list of (jump vector, rate) pairs.  Rates are kept
as integers scaled by :attr:`certify.markov.chain.Chain.scale` (true rate = value /
scale): exact, and far faster than Fractions on large networks.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from .chain import Chain
from .cones import cone_generators
from .jumps import Jump, RegionDrift, _Rates, region_jumps, region_mean
from .regions import POLL_EVERY, Region, check_deadline, enumerate_regions

__all__ = ["Jump", "RegionDrift", "region_jumps", "compile_drifts", "Clip", "clip_levels", "clip_text", "cell_of",
           "cell_moves"]

#: A table's clip level: one K for every fast station, or one per fast station (in the order of ``fast``).
Clip = int | tuple[int, ...]


def clip_levels(fast: Sequence[int], K: Clip) -> tuple[int, ...]:
    """The clip level of each fast station: K repeated, or K itself when it gives one per station.

    Parameters
    ----------
    fast : sequence of int
        The table's stations.
    K : int or tuple of int
        One clip level for all, or one per station of ``fast``.

    Returns
    -------
    tuple of int
        One level per station of ``fast``.

    Raises
    ------
    ValueError
        When K is a tuple whose length is not ``len(fast)``.

    Examples
    --------
    >>> clip_levels([0, 2], 3), clip_levels([0, 2], (3, 2))
    ((3, 3), (3, 2))
    """
    if isinstance(K, int):
        return (K,) * len(fast)
    if len(K) != len(fast):
        raise ValueError(f"clip levels {K} do not match the {len(fast)} fast station(s)")
    return tuple(K)


def clip_text(K: Clip) -> str:
    """K as the messages print it: ``K = 2``, or ``K = (3, 2, 2)`` with one level per fast station.

    Parameters
    ----------
    K : int or tuple of int
        The clip level(s).

    Returns
    -------
    str

    Examples
    --------
    >>> clip_text(2), clip_text((3, 2))
    ('K = 2', 'K = (3, 2)')
    """
    return f"K = {K}" if isinstance(K, int) else f"K = ({', '.join(map(str, K))})"


def compile_drifts(chain: Chain, regions: list[Region] | None = None, deadline: float | None = None) -> list[RegionDrift]:
    """Mean drift (scaled by ``chain.scale``) and cone generators of every region.

    With a ``deadline`` (``time.perf_counter()`` value) the loop polls the clock
    and raises :class:`certify.markov.regions.TimeLimitReached` once it has passed.
    Phase-type chains go to :func:`certify.markov.phase_drift.compile_phase_drifts`.

    Parameters
    ----------
    chain : Chain
        The chain.
    regions : list of Region, optional
        Its regions (default: :func:`certify.markov.regions.enumerate_regions` at ``chain.base_levels``).
    deadline : float, optional
        A ``time.perf_counter()`` value.

    Returns
    -------
    list of RegionDrift
        One per region (per region and phase vector for phase-type chains), in region order.

    Raises
    ------
    TimeLimitReached
        When the deadline passes.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> mm1 = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    >>> [d.mean for d in compile_drifts(mm1)], mm1.scale
    ([(1,), (-1,)], 1)
    """
    if regions is None:
        regions = enumerate_regions(chain, chain.base_levels, deadline=deadline)
    if chain.has_phases:
        from .phase_drift import compile_phase_drifts

        return list(compile_phase_drifts(chain, regions, deadline=deadline))  # type: ignore[arg-type]
    rates = _Rates(chain)
    out = []
    for k, r in enumerate(regions):
        if deadline is not None and k % POLL_EVERY == 0:
            check_deadline(deadline, "drift compilation")
        out.append(RegionDrift(r, region_mean(chain, r, rates), tuple(cone_generators(r)), rates))
    return out


def cell_of(rd: RegionDrift, fast: Sequence[int], K: Clip) -> tuple[int, ...]:
    """The table cell of a region (refined by clip levels K at ``fast``): min(x_fast, K), then the phases.

    Parameters
    ----------
    rd : RegionDrift
        A region drift; its region is refined by clip levels K at ``fast``.
    fast : sequence of int
        The table's stations.
    K : int or tuple of int
        The clip level (one per station of ``fast``, or one for all).

    Returns
    -------
    tuple of int
        The cell.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> from certify.markov.regions import enumerate_regions
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(3, 2)),), (), (F(1), F(1)))
    >>> drifts = compile_drifts(ch, enumerate_regions(ch, {0: 1}))
    >>> [(rd.describe(ch.ids), cell_of(rd, [0], 1)) for rd in drifts[:3]]
    [('x1 = 0, x2 >= 1', (0,)), ('x1 = 1, x2 >= 2', (1,)), ('x1 < x2, x1 >= 2', (1,))]
    """
    return tuple(min(-rd.region.dbm[0][a + 1], k) for a, k in zip(fast, clip_levels(fast, K))) + rd.phase


def cell_moves(rd: RegionDrift, fast: Sequence[int], K: Clip) -> tuple[tuple[int, ...], dict[tuple[int, ...], int], int]:
    """Cell c = (min(x_fast, K), phases) on a region refined by clip levels, the cells its jumps lead to.

    Returns (c, {target cell: scaled rate}, total scaled rate of cell-changing jumps).
    On a refined region x_a is either a known k <= K or >= K+1, so the least
    value of x_a on the region (``-dbm[0][a]``) plus the jump, clipped at K, is
    the target level.

    Parameters
    ----------
    rd : RegionDrift
        A region drift; its region is refined by clip levels K at ``fast``.
    fast : sequence of int
        The table's stations.
    K : int or tuple of int
        The clip level (one per station of ``fast``, or one for all).

    Returns
    -------
    c : tuple of int
        The region's cell.
    moves : dict of cell to int
        The scaled rate of the jumps into each other cell.
    total : int
        Their sum.

    Examples
    --------
    From x1 = 0 an arrival (rate 3/2, scaled 6) moves to cell 1; from x1 = 1 a departure (scaled 4) to cell 0:

    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> from certify.markov.regions import enumerate_regions
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(3, 2)),), (), (F(1), F(1)))
    >>> drifts = compile_drifts(ch, enumerate_regions(ch, {0: 1}))
    >>> cell_moves(drifts[0], [0], 1), cell_moves(drifts[1], [0], 1)
    (((0,), {(1,): 6}, 6), ((1,), {(0,): 4}, 4))
    """
    row = rd.region.dbm[0]
    lows = [-row[a + 1] for a in fast]
    levels = clip_levels(fast, K)
    here = [min(v, k) for v, k in zip(lows, levels)]
    c = tuple(here) + rd.phase
    pos = {a: k for k, a in enumerate(fast)}
    moves: dict[tuple[int, ...], int] = defaultdict(int)
    for d, phase, rate in rd.phase_moves():
        # only the coordinates a jump moves can change: the others stay at min(low, K)
        moved: dict[int, int] = {}
        for a, s in d:
            k = pos.get(a)
            if k is not None:
                moved[k] = moved.get(k, lows[k]) + s
        to = list(here)
        for k, v in moved.items():
            to[k] = min(v, levels[k])
        c2 = tuple(to) + tuple(phase)
        if c2 != c:
            moves[c2] += rate
    return c, dict(moves), sum(moves.values())
