"""The search for a sink-drain certificate (``docs/math/drain.md``): candidate sinks, W on R', the upper rate LPs.

W = y'Py is the quadratic template's LP on R' with every entry of P kept >= 0
(:class:`MonotoneQuadratic`); each rate LP minimises c_H subject to
u_H + A'g_H <= c_H on every region of R' (refined by the table's levels), with
g_H nondecreasing along Dirs(H) (by a margin, so that rounding keeps it). All of
it is rounded to 2^-20 for the exact check to decide.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from ..core.clock import remaining
from ..core.model import Network
from ..exact.drain import drain_problem, drain_rate, largest_drain_rate
from ..exact.sink import Reduction, reduced_network
from ..exact.stability import check_foster
from ..markov.chain import Chain
from ..markov.drift import Clip, RegionDrift, clip_levels
from ..markov.regions import TimeLimitReached
from ..templates.base import round_to_grid
from ..templates.linear import SideRow
from ..templates.quadratic import Quadratic
from .linprog import solve_lp
from .lp import solve_template
from .sink import JumpRows, RateSolution, claimed_rate, linked_pairs, rate_rows
from .sink_sets import WIDE_SETS, densest_set, routing_unions

__all__ = ["DrainCandidate", "MonotoneQuadratic", "MAX_DRAINS", "drain_candidates", "tried_drains", "solve_reduced_lyapunov",
           "solve_drain_rate"]

#: The most single sinks and pairs the sink-drain stage tries (the wider sets of :func:`drain_candidates` after them).
MAX_DRAINS = 4

#: How far above the LP's optimum the rounded rate is claimed (the exact check decides).
SLACK = 1e-5
#: The margin kept on each monotonicity row, so that rounding to 2^-20 cannot break it.
MONOTONE_MARGIN = 2.0**-16


@dataclass(frozen=True)
class DrainCandidate:
    """A sink (or set of sinks) the drain theorem may apply to, with its reduction.

    Attributes
    ----------
    sink : str or tuple of str
        The station, or a set of stations G.
    reduction : Reduction
        R' and the rates into G.
    pressure : Fraction
        u_G with every feeder busy over mu(G): at least 1, where the rate LP is needed (below it, g = 0 does).

    Examples
    --------
    >>> from certify.core.model import Feedback, Station, Stream
    >>> net = Network("n", (Station("1", Fraction(1)), Station("2", Fraction(1, 2))),
    ...               (Stream(Fraction(1, 2), choice=("1",)),), (Feedback("1", ("2",), Fraction(1)),))
    >>> DrainCandidate("2", reduced_network(net, "2"), Fraction(2)).reduction.forced
    {'1': Fraction(1, 1)}
    """

    sink: str | tuple[str, ...]
    reduction: Reduction
    pressure: Fraction


def drain_candidates(net: Network) -> list[DrainCandidate]:
    """Single sinks with forced inflow, then linked pairs and wider sets, whose inflow with every feeder busy reaches
    their capacity.

    Parameters
    ----------
    net : Network
        The network.

    Returns
    -------
    list of DrainCandidate
        The single stations first, then the pairs of :func:`~certify.search.sink.linked_pairs`, then the
        :func:`~certify.search.sink_sets.densest_set` (three stations or more) and the
        :data:`~certify.search.sink_sets.WIDE_SETS` most pressed sets of three or four stations of
        :func:`~certify.search.sink_sets.routing_unions`, each group by pressure (most pressed first); only those
        the theorem's hypotheses 1 and 5 allow.

    Examples
    --------
    >>> from certify.core.model import Feedback, Station, Stream
    >>> F = Fraction
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(1, 2))), (Stream(F(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> [(c.sink, c.pressure) for c in drain_candidates(net)]
    [('2', Fraction(2, 1))]
    """
    singles: list[DrainCandidate] = []
    for st in net.stations:
        if not any(f.choice == (st.id,) and f.source != st.id and f.prob > 0 for f in net.feedback):
            continue
        cand = _candidate(net, st.id)
        if cand is not None:
            singles.append(cand)
    pairs = [c for G in linked_pairs(net) if (c := _candidate(net, G)) is not None]
    wide = sorted((c for G in routing_unions(net) if (c := _candidate(net, G)) is not None), key=lambda c: -c.pressure)
    dense = densest_set(net)
    first = [c] if dense is not None and (c := _candidate(net, dense)) is not None else []
    return [*sorted(singles, key=lambda c: -c.pressure), *sorted(pairs, key=lambda c: -c.pressure), *first,
            *[c for c in wide if c.sink != dense][:WIDE_SETS]]


def tried_drains(net: Network) -> list[DrainCandidate]:
    """The candidates the sink-drain stage tries, in its order: the single sinks and pairs of
    :func:`drain_candidates` (at most :data:`MAX_DRAINS` of them), then its wider sets.

    Parameters
    ----------
    net : Network
        The network.

    Returns
    -------
    list of DrainCandidate
        The candidates.

    Examples
    --------
    >>> from certify.core.model import Feedback, Station, Stream
    >>> F = Fraction
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(1, 2))), (Stream(F(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> [c.sink for c in tried_drains(net)]
    ['2']
    """
    narrow: list[DrainCandidate] = []
    wide: list[DrainCandidate] = []
    for c in drain_candidates(net):
        (narrow if isinstance(c.sink, str) or len(c.sink) <= 2 else wide).append(c)
    return [*narrow[:MAX_DRAINS], *wide]


def _candidate(net: Network, sink: str | tuple[str, ...]) -> DrainCandidate | None:
    """The candidate for ``sink`` when the theorem may apply and its busiest inflow reaches its capacity."""
    if drain_problem(net, sink) is not None:
        return None
    red = reduced_network(net, sink)
    G = red.sinks
    capacity = red.served()
    most = largest_drain_rate(red, G)
    if not red.forced or capacity <= 0 or most < capacity:
        return None
    return DrainCandidate(sink, red, most / capacity)


class MonotoneQuadratic(Quadratic):
    """The quadratic template with every entry of P >= 0 (W must not decrease when a customer arrives).

    Used only by the search: the exact check is :func:`~certify.exact.stability.check_foster` with the plain
    ``quadratic`` template, plus :func:`~certify.exact.drain.lyapunov_problem` for the signs.

    Examples
    --------
    >>> from certify.core.model import Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> from certify.markov.drift import compile_drifts
    >>> chain = compile_chain(Network("n", (Station("1", Fraction(1)), Station("2", Fraction(1))),
    ...                               (Stream(Fraction(3, 2), choice=("1", "2")),)))
    >>> len(MonotoneQuadratic(chain, compile_drifts(chain)).side_rows())
    3
    """

    def side_rows(self) -> list[SideRow]:
        """-P_ij <= 0 for every entry, with a margin on the diagonal (P_ii > 0 exactly).

        Returns
        -------
        list of SideRow
            One row per entry of P's upper triangle.
        """
        return [SideRow(((k, Fraction(-1)),), margin=i == j) for k, (i, j) in enumerate(self.pairs)]

    def aux_variables(self) -> list[str]:
        """None: no copositivity helpers are needed when every entry is >= 0.

        Returns
        -------
        list of str
            Empty.
        """
        return []

    def lp_matrix(self) -> sp.csr_matrix:
        """The slopes 2 m'Pg on P alone (the plain template's matrix without its helper columns).

        Returns
        -------
        scipy.sparse.csr_matrix
            One row per (region, generator), one column per entry of P.
        """
        return super().lp_matrix()[:, : len(self.pairs)]

    def repair(self, theta: list[Fraction]) -> list[Fraction]:
        """Raise every entry that rounding left below 0 to 0.

        Parameters
        ----------
        theta : list of Fraction
            A rounded candidate.

        Returns
        -------
        list of Fraction
            The candidate with no negative entry.
        """
        return [max(t, Fraction(0)) for t in theta]


def solve_reduced_lyapunov(chain: Chain, drifts: Sequence[RegionDrift], solver: str | None = None,
                           deadline: float | None = None) -> tuple[list[Fraction], Fraction] | None:
    """A quadratic Foster function of R' with P >= 0 entrywise that passes the exact Foster check, or None.

    Parameters
    ----------
    chain : Chain
        R''s chain.
    drifts : sequence of RegionDrift
        R''s regions (unrefined: the quadratic template has no clip levels).
    solver : str, optional
        The LP solver.
    deadline : float, optional
        A ``time.perf_counter()`` value.

    Returns
    -------
    (list of Fraction, Fraction) or None
        P's upper triangle (the quadratic template's order) and its exact delta.

    Examples
    --------
    >>> from certify.core.model import Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> from certify.markov.drift import compile_drifts
    >>> chain = compile_chain(Network("n", (Station("1", Fraction(1)), Station("2", Fraction(1))),
    ...                               (Stream(Fraction(3, 2), choice=("1", "2")),)))
    >>> P, delta = solve_reduced_lyapunov(chain, compile_drifts(chain))
    >>> min(P) >= 0, delta > 0
    (True, True)
    """
    tmpl = MonotoneQuadratic(chain, drifts)
    res = solve_template(tmpl, solver=solver, deadline=deadline)
    if not res.found or res.theta is None:
        return None
    for cand in tmpl.candidates([float(v) for v in res.theta]):
        chk = check_foster(chain, "quadratic", cand, drifts=drifts)
        if chk.ok:
            return list(cand), chk.facts.delta
    return None


def solve_drain_rate(chain: Chain, red: Reduction, drifts: Sequence[RegionDrift], fast: Sequence[int], K: Clip,
                     H: Sequence[str], capacity: Fraction, directions: Collection[int] = (),
                     solver: str | None = None, deadline: float | None = None, jumps: JumpRows | None = None,
                     optimum: Callable[[float], None] | None = None) -> RateSolution | None:
    """Minimise c with u_H + A'g <= c on every region, g nondecreasing along ``directions``; (w, T, c) when c < mu(H).

    Parameters
    ----------
    chain : Chain
        R''s chain.
    red : Reduction
        The reduction by G.
    drifts : sequence of RegionDrift
        Every region of R' (refined by K at ``fast`` when there is a table).
    fast : sequence of int
        The table's stations (empty: g linear).
    K : int or tuple of int
        The table's clip level (or one per fast station).
    H : sequence of str
        The subset of G whose u_H is bounded.
    capacity : Fraction
        mu(H).
    directions : collection of int
        The stations of R' (indices) along which g must not decrease (Dirs(H); none for H = G).
    solver : str, optional
        The LP solver.
    deadline : float, optional
        A ``time.perf_counter()`` value.
    jumps : JumpRows, optional
        :func:`~certify.search.sink.jump_rows` of the same regions and table, when already built.
    optimum : callable, optional
        Called with the LP's optimal c in floats (search guidance: how far the bound is from ``capacity``), whether or
        not it is below the capacity.

    Returns
    -------
    (list of Fraction, dict or None, Fraction) or None
        w, T and c (rounded, for the exact check), or None when the LP finds no c < mu(H).

    Raises
    ------
    TimeLimitReached
        When the LP solver stops at the deadline.

    Examples
    --------
    >>> from certify.core.model import Feedback, Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> from certify.markov.drift import compile_drifts
    >>> F = Fraction
    >>> net = Network("n", (Station("1", F(1)), Station("2", F(3, 5))), (Stream(F(1, 2), choice=("1",)),),
    ...               (Feedback("1", ("2",), F(1)),))
    >>> red = reduced_network(net, "2")
    >>> ch = compile_chain(red.network)
    >>> w, T, c = solve_drain_rate(ch, red, compile_drifts(ch), [], 0, ("2",), F(3, 5))
    >>> T, F(1, 2) <= c < F(3, 5)
    (None, True)
    """
    J = chain.J
    M, B, f, pos = rate_rows(chain, drifts, fast, K, lambda empty: drain_rate(red, chain, H, empty), jumps)
    n, nc = len(drifts), len(pos)
    # M w + B T - c <= -f; minimise c; then -(w_t + T(c + e_t) - T(c)) <= -margin along each direction
    A_ub = sp.vstack([sp.hstack([M, B, -sp.csr_matrix(np.ones((n, 1)))], format="csr"),
                      _monotone_rows(J, pos, fast, K, directions)], format="csr")
    mono = A_ub.shape[0] - n
    b_ub = np.concatenate([-f, np.full(mono, -MONOTONE_MARGIN)])
    cost = np.zeros(J + nc + 1)
    cost[-1] = 1.0
    lo = np.concatenate([np.full(J + nc, -100.0), [-np.inf]])
    hi = np.concatenate([np.full(J + nc, 100.0), [np.inf]])
    res = solve_lp(cost, A_ub, b_ub, bounds=(lo, hi), solver=solver, time_limit=remaining(deadline))
    if res.timed_out:
        raise TimeLimitReached("the drain rate LP")  # not an answer: no rate may be said not to exist
    if not res.ok or res.x is None:
        return None
    if optimum is not None:
        optimum(float(res.x[-1]))
    # rounding w and T to 2^-20 moves u + A'g by about 2^-20 times the jump rates; c is claimed SLACK above the LP's
    rate = claimed_rate(float(res.x[-1]), SLACK, -1)
    if rate >= capacity:
        return None
    w = round_to_grid(res.x[:J], 2**20)
    table = None
    if pos:
        tq = round_to_grid(res.x[J:J + nc], 2**20)
        table = {c: tq[k] for c, k in pos.items()}
    return w, table, rate


def _monotone_rows(J: int, pos: dict[tuple[int, ...], int], fast: Sequence[int], K: Clip,
                   directions: Collection[int]) -> sp.csr_matrix:
    """-(increment of g along e_t) per direction t and cell (one row per t outside the table): <= -margin."""
    rows: list[dict[int, float]] = []
    at = {a: k for k, a in enumerate(fast)}
    levels = clip_levels(fast, K)
    for t in sorted(directions):
        if t not in at:
            rows.append({t: -1.0})
            continue
        k = at[t]
        rows.append({t: -1.0})  # at the clip level the increment is w_t
        for cell, col in pos.items():
            if cell[k] < levels[k]:
                up = pos[cell[:k] + (cell[k] + 1,) + cell[k + 1:]]
                rows.append({t: -1.0, J + up: -1.0, J + col: 1.0})
    data = [v for r in rows for v in r.values()]
    ri = [i for i, r in enumerate(rows) for _ in r]
    ci = [c for r in rows for c in r]
    return sp.csr_matrix((data, (ri, ci)), shape=(len(rows), J + len(pos) + 1))

