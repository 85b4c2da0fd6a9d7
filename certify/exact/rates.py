"""Rate inequalities on every region of a chain: f + A'g >= c (sink growth) or u + A'g <= c (sink drain).

g = w'x + T(min(x_F, K)) is a function on the states of a chain (the reduced network R' of
``docs/math/sink.md`` and ``docs/math/drain.md``); on a region refined by the table's levels
every jump and rate is fixed, so both the rate (a function of the region's empty stations) and
A'g are constant there, and the inequality is checked once per region, in integers. Pure Python,
rationals only.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from fractions import Fraction
from math import lcm
from typing import Literal

from ..markov.chain import Chain
from ..markov.drift import Clip, RegionDrift, cell_moves, clip_levels
from ..markov.regions import POLL_EVERY, check_deadline

__all__ = ["rate_failure", "monotone_failure"]


def rate_failure(chain: Chain, drifts: Sequence[RegionDrift], rate_of: Callable[[tuple[int, ...]], Fraction],
                 w: Sequence[Fraction], bound: Fraction, table: Mapping[tuple[int, ...], Fraction] | None,
                 fast: Sequence[int], K: Clip, side: Literal["at least", "at most"], deadline: float | None = None,
                 names: tuple[str, str] = ("f", "c"), stage: str = "the exact check of a rate inequality"
                 ) -> str | None:
    """The first region where ``rate + A'g`` is not on ``side`` of ``bound``, or None when it holds on every region.

    Parameters
    ----------
    chain : Chain
        The chain (exponential: the table's cells are clipped queue lengths).
    drifts : sequence of RegionDrift
        Every region, refined by the table's levels (a table needs them: its cell is fixed on each).
    rate_of : callable
        The rate on a region, from its empty stations (``region.empty``); called once per set of empty stations.
    w : sequence of Fraction
        g's weights, one per station of the chain.
    bound : Fraction
        c.
    table : dict or None
        g's bounded table over the cells of ``fast`` clipped at ``K``, or None (g linear).
    fast : sequence of int
        The table's stations.
    K : int or tuple of int
        The table's clip level (or one per fast station).
    side : {"at least", "at most"}
        ``rate + A'g >= c`` (growth) or ``<= c`` (drain) at every state.
    deadline : float, optional
        A ``time.perf_counter()`` value; the loop raises TimeLimitReached past it.
    names : (str, str)
        How the failure names the rate and the bound.
    stage : str
        What the time-limit message says was stopped.

    Returns
    -------
    str or None
        ``"f + A g = v < c = b on the region ..."``, or None.

    Examples
    --------
    An M/M/1 queue (rate 1/2 in, 1 out): with g = x, the busy indicator plus A'g is 1[x>0] + 1/2 - 1[x>0] = 1/2.

    >>> from certify.markov.chain import Chain
    >>> from certify.markov.drift import compile_drifts
    >>> mm1 = Chain(("1",), (Fraction(1),), (((0,), Fraction(1, 2)),), (), (Fraction(1),))
    >>> busy = lambda empty: Fraction(0) if 0 in empty else Fraction(1)
    >>> dr = compile_drifts(mm1)
    >>> rate_failure(mm1, dr, busy, [Fraction(1)], Fraction(1, 2), None, [], 0, "at most") is None
    True
    >>> rate_failure(mm1, dr, busy, [Fraction(1)], Fraction(2, 5), None, [], 0, "at most")[:27]
    'f + A g = 1/2 > c = 2/5 on '
    """
    # g's coefficients over their common denominator D, the drifts' rates scaled by chain.scale
    D = 1
    for v in [*w, *(table.values() if table is not None else ())]:
        D = lcm(D, v.denominator)
    W = [int(v * D) for v in w]
    T = {c: int(v * D) for c, v in table.items()} if table is not None else None
    unit = chain.scale * D  # A'g = num / unit
    rates: dict[tuple[int, ...], Fraction] = {}
    f_name, c_name = names
    for k, rd in enumerate(drifts):  # every region: the inequality is needed at every state, bounded ones too
        if deadline is not None and k % POLL_EVERY == 0:
            check_deadline(deadline, stage)
        num = sum(W[a] * rd.mean[a] for a in range(chain.J))
        if T is not None:
            cell, moves, tot = cell_moves(rd, list(fast), K)
            num += sum(r * T[c2] for c2, r in moves.items()) - tot * T[cell]
        f = rates.get(rd.region.empty)
        if f is None:
            f = rates[rd.region.empty] = rate_of(rd.region.empty)
        # num / unit + f against the bound, cross-multiplied (positive denominators)
        lhs = num * f.denominator * bound.denominator + f.numerator * unit * bound.denominator
        rhs = bound.numerator * unit * f.denominator
        if (lhs < rhs) if side == "at least" else (lhs > rhs):
            value = Fraction(num, unit) + f
            rel = "<" if side == "at least" else ">"
            return f"{f_name} + A g = {value} {rel} {c_name} = {bound} on the region {rd.region.describe(chain.ids)}"
    return None


def monotone_failure(chain: Chain, w: Sequence[Fraction], table: Mapping[tuple[int, ...], Fraction] | None,
                     fast: Sequence[int], K: Clip, directions: Collection[int]) -> str | None:
    """Why g = w'x + T(min(x_fast, K)) is not nondecreasing along each direction of ``directions`` (None when it is).

    g(x + e_t) - g(x) is w_t for a station t outside the table or at its clip level, and
    w_t + T(c + e_t) - T(c) at a cell c with c_t < K_t: checked on every cell.

    Parameters
    ----------
    chain : Chain
        The chain (its station ids name the failure).
    w : sequence of Fraction
        g's weights.
    table : dict or None
        g's table over ``fast`` clipped at ``K``.
    fast : sequence of int
        The table's stations.
    K : int or tuple of int
        The clip level (or one per fast station).
    directions : collection of int
        The stations t (indices) along which g must not decrease.

    Returns
    -------
    str or None
        The first decreasing increment, or None.

    Examples
    --------
    >>> from certify.markov.chain import Chain
    >>> ch = Chain(("1", "2"), (Fraction(1), Fraction(1)), (((0, 1), Fraction(1)),), (), (Fraction(1), Fraction(1)))
    >>> monotone_failure(ch, [Fraction(1), Fraction(-1)], None, [], 0, [0]) is None
    True
    >>> monotone_failure(ch, [Fraction(1), Fraction(-1)], None, [], 0, [1])
    'g decreases along station 2: its weight is -1 < 0'
    >>> T = {(0,): Fraction(0), (1,): Fraction(-2)}
    >>> monotone_failure(ch, [Fraction(1), Fraction(0)], T, [0], 1, [0])
    'g decreases along station 1: w + T(cell + e) - T(cell) = -1 < 0 at the cell (0,)'
    """
    pos = {a: k for k, a in enumerate(fast)}
    levels = clip_levels(fast, K)
    for t in sorted(directions):
        if w[t] < 0:
            return f"g decreases along station {chain.ids[t]}: its weight is {w[t]} < 0"
        if table is None or t not in pos:
            continue
        k = pos[t]
        for cell, v in sorted(table.items()):
            if cell[k] < levels[k]:
                up = cell[:k] + (cell[k] + 1,) + cell[k + 1:]
                inc = w[t] + table[up] - v
                if inc < 0:
                    return (f"g decreases along station {chain.ids[t]}: w + T(cell + e) - T(cell) = {inc} < 0 at the "
                            f"cell {cell}")
    return None
