"""The numeric search for an overflow table: one uncapped station, f = x_u + h(y) (``docs/math/capacities.md``).

An LP over the capped level vectors y: the drift D(y) = r(y) + sum_y' q(y, y') (h(y') - h(y))
is affine in h, so the worst drift is minimised (``overflow-foster``) or maximised
(``overflow-growth``) with h(0) = 0 and ``|h|`` <= :data:`TABLE_BOUND`.  The rounded
table is a candidate; :func:`certify.exact.overflow.check_overflow` decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from ..core.clock import remaining
from ..exact.overflow import OVERFLOW_SIDES, capped_levels, overflow_level, transitions
from ..markov.chain import Chain
from .linprog import solve_lp

__all__ = ["OverflowCandidate", "overflow_table", "TABLE_BOUND"]

#: The box on the table's values in the LP.
TABLE_BOUND = 1e4


@dataclass(frozen=True)
class OverflowCandidate:
    """A rounded overflow table and the LP's worst drift.

    Attributes
    ----------
    kind : str
        ``overflow-foster`` or ``overflow-growth``.
    table : dict of level vector to Fraction or None
        The rounded table (None when the LP failed).
    drift : float or None
        The LP's worst drift (< 0 for foster, > 0 for growth when the side is right).
    status : str
        The solver's status.

    Examples
    --------
    >>> OverflowCandidate("overflow-foster", None, None, "time-limit").table is None
    True
    """

    kind: str
    table: dict[tuple[int, ...], Fraction] | None
    drift: float | None
    status: str


def overflow_table(
    chain: Chain, capacities: Sequence[int | None], u: int, kind: str, solver: str | None = None, deadline: float | None = None
) -> OverflowCandidate:
    """Search the table h of an overflow certificate by LP (a candidate for the exact check).

    Parameters
    ----------
    chain : Chain
        The exponential chain.
    capacities : sequence of int or None
        Each station's capacity; ``u`` alone has none.
    u : int
        The uncapped station.
    kind : str
        ``overflow-foster`` (make the worst drift as negative as possible) or ``overflow-growth``.
    solver : str, optional
        An LP solver name (default HiGHS).
    deadline : float, optional
        A ``time.perf_counter()`` value: the LP gets the time left.

    Returns
    -------
    OverflowCandidate
        The rounded table (values on a 2^-30 grid) and the LP's worst drift.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(9, 5)),), (), (F(1), F(1)))
    >>> cand = overflow_table(ch, [1, None], 1, "overflow-growth")
    >>> round(cand.drift, 6), round(float(cand.table[(1,)] - cand.table[(0,)]), 6)
    (0.157143, 0.642857)
    """
    sign = OVERFLOW_SIDES[kind]
    levels = capped_levels(capacities, u)
    pos = {y: k for k, y in enumerate(levels)}
    L = overflow_level(capacities)
    n = len(levels)
    # Variables (h_0..h_{n-1}, t); the row of y: sign * (r(y) + sum q (h(y') - h(y))) >= t, written as <=.
    ri: list[int] = []
    ci: list[int] = []
    vals: list[float] = []
    rhs = np.zeros(n)
    for k, y in enumerate(levels):
        x = y[:u] + (L,) + y[u:]
        r = 0.0
        for z, rate in transitions(chain, capacities, x).items():
            q = float(rate)
            r += q * (z[u] - L)
            yz = z[:u] + z[u + 1 :]
            if yz != y:
                ri += [k, k]
                ci += [pos[yz], k]
                vals += [-sign * q, sign * q]
        ri.append(k)
        ci.append(n)
        vals.append(1.0)
        rhs[k] = sign * r
    A = sp.csr_matrix((vals, (ri, ci)), shape=(n, n + 1))
    lo = np.concatenate([np.full(n, -TABLE_BOUND), [-np.inf]])
    hi = np.concatenate([np.full(n, TABLE_BOUND), [np.inf]])
    lo[0] = hi[0] = 0.0  # h(0) = 0: the table is defined up to a constant
    cost = np.zeros(n + 1)
    cost[n] = -1.0  # maximise t, the worst signed drift
    res = solve_lp(cost, A, rhs, bounds=(lo, hi), solver=solver, time_limit=remaining(deadline))
    if not res.ok or res.x is None:
        return OverflowCandidate(kind, None, None, res.outcome)
    table = {y: Fraction(round(float(res.x[pos[y]]) * 2**30), 2**30) for y in levels}
    return OverflowCandidate(kind, table, sign * float(res.x[n]), res.status)
