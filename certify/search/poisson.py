"""Poisson tables: a sink's table from the Poisson equations of R' cut to a box (issue 21; the search only).

The rate LPs of :mod:`certify.search.sink` and :mod:`certify.search.drain` find the best table over R''s
stations clipped at levels K, but their LPs grow with the table's cells (a five-station table at K = 4, 11,981 rows
x 3,131 columns, takes HiGHS's dual simplex 40-50 s) and their bound converges slowly in K.  Here the table is not
searched for: with the table on *every* station of R', each state x of the box {x_a <= K_a} is one region, and
A'g(x) there is the generator A'_K of R' with the arrivals past the box blocked (an arrival at x_a = K_a moves to
a state whose cell is the same).  So for the Poisson solutions h_0 of A'_K h_0 = pi_K(f) - f and h_a of
A'_K h_a = pi_K(d_a) - d_a (d_a = A'x_a, the drift of station a, and pi_K the box chain's stationary law),
g = w'x + T(min(x, K)) with T = h_0 + sum_a w_a h_a gives f + A'g = pi_K(f) + sum_a w_a pi_K(d_a) on the whole box,
whatever w; outside it f + A'g is affine in w on each cell once every move that the cell does not fix is at its
worst candidate.  A small LP over w alone (J' + 1 columns) then maximises (growth) or minimises (drain) the worst
cell.  The functions are the certificate kinds' own
(``sink-growth``, ``sink-drain``: a table over R''s stations with a clip level per station), rounded to 2^-20;
the exact check decides, as for every other candidate (docs/math/sink.md, docs/math/drain.md).

The box is chosen from a first, small one: each station's levels are raised where the small box's stationary law
leaves the most mass at its top level (its decay from level to level predicting the mass higher up), up to
:data:`POISSON_STATES` states.  The linear systems are solved by BiCGSTAB (GMRES where it stops short) with an
incomplete LU preconditioner (SciPy), in floats.

The rows of a box (its generator, f + A'g on every cell outside it) and the LPs over w are in
:mod:`certify.search.cell_rows`, over the cells the exact check reads (:mod:`certify.exact.cell_rates`).

Public: :func:`box_law`, :func:`elimination_order`, :func:`box_levels`, :func:`balanced_levels`, :func:`top_ratios`,
:func:`piling`, :func:`resolving_levels`, :func:`box_system`, :func:`factored_law`, :class:`BoxSystem`,
:class:`PoissonRates`, :data:`POISSON_STATES`, :data:`FIRST_STATES`,
:data:`ILU_DROP`, :data:`SOLVE_RTOL`, :data:`ROUNDING`, :data:`PILING`, :data:`NO_MASS`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import log, prod
from typing import Any

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spl

from ..exact.sink import Subset
from ..markov.regions import TimeLimitReached
from ..templates.options import MAX_CLIP_LEVEL
from .krylov import halved_block_bicgstab
from .sink import RateSolution

__all__ = ["POISSON_STATES", "FIRST_STATES", "ILU_DROP", "SOLVE_RTOL", "ROUNDING", "PILING", "NO_MASS", "PoissonRates",
           "BoxSystem", "worst_text", "box_levels", "balanced_levels", "top_ratios", "piling", "resolving_levels", "box_law",
           "box_system", "factored_law", "elimination_order"]

#: The most states of the box whose Poisson equations are solved.  Measured on the J = 6 seed 21 network of
#: bench/frontier.py at load 0.89 (R' of five stations, one process alone): boxes of 33,000, 66,000 and 120,000
#: states (105,938 to 363,383 regions) are tried in 7.6, 18.1 and 37.5 s in 0.5, 0.9 and 1.5 GB; the sink stages
#: size a box to their time left (certify.proof.poisson), so this bound is reached only with time to spare.  Since
#: stop 48 (:data:`ILU_DROP`) 98,280 / 192,000 / 381,672 states at 0.89 take 9.7 / 21.9 / 56.1 s and bound the rate
#: within [0.99269, 1.00192], [0.99413, 1.00017], [0.99536, 0.99913] (the last proves 0.89 stable; 3.3 GB then, at
#: about 5 KB a cell; 1.6-2 KB since stop 49).  250,000 until stop 61, when the boxes on R' of seven stations or more
#: were allowed 330,000 (:data:`certify.proof.poisson.WIDE_STATES`).
POISSON_STATES = 400_000

#: The most states of the first box: its own candidates are tried first, and its stationary law picks the levels of
#: the second box when neither side's clears its bound.
FIRST_STATES = 8_000

#: The incomplete LU factorisation's drop tolerance (:func:`box_law`).  Until stop 48, 1e-2 with GMRES: on J = 6 seed
#: 21 at 0.885 (98,279 unknowns) 17.5-19.4 s to factorise, against 1.7 s at 0.1 with BiCGSTAB taking 66 iterations
#: (0.5 s) a solve.
ILU_DROP = 0.1

#: The relative residual at which the box's linear solves stop (BiCGSTAB, GMRES where it stops short).  The candidates
#: are rounded to 2^-20 and claimed from their own worst cell, so a looser residual would not weaken a proof: J = 8
#: seed 85 of ``bench/frontier.py`` at 0.865 (sink 1, a box of 235,200 states, nine right-hand sides) bounds the rate
#: within [0.995323, 1.009046] at 1e-12 and at 1e-9, its solves taking 8.0 and 6.6 s (at 1e-7, 5.8 s, the drain bound
#: moves in its sixth digit).  It stays at 1e-12: at 1e-9 the Poisson certificates' values change in their last
#: digits, and the stored box certificates (tests/data/certificates) are rewritten only on purpose.
SOLVE_RTOL = 1e-12

#: A station whose mass at its top level is at least this share of the mass one level below *piles* there: the box
#: cuts its law before its mode or inside a slow decay, so the law says little of the levels it needs
#: (:func:`piling`).  J = 8 seed 12 at 0.955, sink 1: in the box of levels 3 station 4 (mu 1, fed by {1, 4} and
#: {1, 4, 8} once 1 is long) holds 0.36 of the law at level 3, 1.095 times the mass at level 2; its decay from levels
#: 3 to 9, measured in a box where only 4 is raised, is 0.65-0.79.  At 0.947 stations 6 and 8 hold 0.78 and 0.89 times
#: the mass below: with 0.9 here only 4 was raised, and the last box (4, 3, 8, 3, 9, 4, 4) bounded the rate within
#: [1.97457, 2.03653]; with 0.75 all three, and (4, 2, 8, 2, 8, 4, 8) within [1.97952, 1.98914] (stable).
PILING = 0.75

#: Less mass than this at a station's top level counts as none (:func:`top_ratios`).
NO_MASS = 1e-15

#: How far beyond the rounded worst cell the rate is claimed (the exact check decides).
ROUNDING = 1e-7


@dataclass(frozen=True)
class PoissonRates:
    """What the Poisson construction found on one box: each side's rounded candidate, or None where it fails.

    Attributes
    ----------
    growth : (w, T, c) or None
        A growth candidate with c above ``capacity``.
    drain : (w, T, c) or None
        A drain candidate with c below ``served``.
    growth_value, drain_value : float
        The worst cell's value of each side after rounding (search guidance, never proof).
    growth_subsets, drain_subsets : tuple of Subset
        For a set of sinks, each side's functions of the proper subsets H that need their own (H, w_H, c_H, T_H), in
        the order asked; empty where the side has no candidate or no subset needs one.
    growth_refused, drain_refused : str or None
        Why a side whose own candidate cleared its bound has none all the same: the subset whose rate did not.

    Examples
    --------
    >>> PoissonRates(None, None, 0.9, 1.1).drain is None
    True
    """

    growth: RateSolution | None
    drain: RateSolution | None
    growth_value: float
    drain_value: float
    growth_subsets: tuple[Subset, ...] = ()
    drain_subsets: tuple[Subset, ...] = ()
    growth_refused: str | None = None
    drain_refused: str | None = None


def worst_text(value: float) -> str:
    """A Poisson box side's worst cell for a message, or that its LP over w gave no solution (NaN).

    Parameters
    ----------
    value : float
        The worst cell's value in floats (NaN when the LP failed).

    Returns
    -------
    str
        The value to five digits, or ``"none: its LP over w found no solution"``.

    Examples
    --------
    >>> worst_text(0.489736), worst_text(float("nan"))
    ('0.48974', 'none: its LP over w found no solution')
    """
    return "none: its LP over w found no solution" if value != value else f"{value:.5g}"


def box_levels(J: int, states: int) -> tuple[int, ...]:
    """One clip level for every station, the largest whose box has at most ``states`` states.

    Parameters
    ----------
    J : int
        The stations of R'.
    states : int
        The most states of the box.

    Returns
    -------
    tuple of int
        K repeated J times, 1 <= K <= MAX_CLIP_LEVEL (the checkers' bound on a clip level).

    Examples
    --------
    >>> box_levels(5, 8000), box_levels(7, 8000)
    ((5, 5, 5, 5, 5), (2, 2, 2, 2, 2, 2, 2))
    """
    K = 1
    while (K + 2) ** J <= states and K < MAX_CLIP_LEVEL:
        K += 1
    return (K,) * J


def elimination_order(K: Sequence[int] | np.ndarray) -> np.ndarray:
    """The box's states (row-major positions, the last station fastest) reordered so that the stations with the
    highest levels vary slowest: the factorisation's band is then the box over the lower levels.

    Measured on J = 8 seed 13 at 0.885 (R' of seven stations, levels (3, 3, 3, 6, 3, 6, 3), 50,176 states): the
    incomplete LU factorisation of :func:`box_law` took 17.4 s in the row-major order and 6.3-8.9 s in this one
    (each beside another process), with 28 instead of 33 GMRES iterations; at levels (3, 3, 3, 8, 3, 8, 3) (82,944
    states), 14.5 s.

    Parameters
    ----------
    K : sequence of int
        The box's level at every station.

    Returns
    -------
    ndarray
        The row-major positions of the states in elimination order (the origin first).

    Examples
    --------
    >>> elimination_order((1, 2)).tolist()
    [0, 3, 1, 4, 2, 5]
    """
    slow = sorted(range(len(K)), key=lambda a: (-K[a], a))
    return np.arange(prod(k + 1 for k in K)).reshape([k + 1 for k in K]).transpose(slow).ravel()


def balanced_levels(pi: np.ndarray, cells: np.ndarray, K: Sequence[int], states: int, most_cells: int | None = None
                    ) -> tuple[int, ...]:
    """Levels for a box of at most ``states`` states (and ``most_cells`` cells) with the least mass at its top levels,
    as a box's law predicts it.

    The mass at station a's top level is read from the box K's law, with its decay from level to level (that mass
    over the mass one level below, within [0.2, 0.95]); at a level L above K_a it is predicted as top_a *
    decay_a^(L - K_a), at a level L below as the law's mass at x_a >= L (a box cut there holds about that much at its
    top level).
    Their sum is what the blocked arrivals cost a box (its two sides' bounds lie about sum_a (w_drain - w_growth)_a
    times the flow blocked at a apart: docs/math/poisson.md, "Stop 49"), and a level costs its box a factor
    (L + 2) / (L + 1) in states: so the levels are lowered until the box fits, raised one at a time where the
    predicted sum falls most for the states it costs, and then traded (one station lowered, the others raised again
    in the same way) while the sum falls.

    Parameters
    ----------
    pi : ndarray
        The box's stationary law, one entry per state.
    cells : ndarray
        The box's states (rows), in the order of ``pi``.
    K : sequence of int
        The box's levels.
    states : int
        The most states of the new box.
    most_cells : int, optional
        The most cells of the new box (prod (L_a + 2): its states and the cells outside it); default: no bound.

    Returns
    -------
    tuple of int
        The new levels, each within [1, MAX_CLIP_LEVEL].

    Examples
    --------
    Station 0's mass decays slowly (0.8 from level to level), station 1's fast (0.2): of 40 states, station 0 takes
    thirteen levels (0 to 12), station 1 keeps its three.

    >>> cells = np.array([(a, b) for a in range(3) for b in range(3)])
    >>> pi = np.outer([1, 0.8, 0.64], [1, 0.2, 0.04]).ravel()
    >>> balanced_levels(pi / pi.sum(), cells, (2, 2), 40)
    (12, 2)
    """
    J = len(K)
    tails = _tails(pi, cells, K)
    top = np.array([max(float(t[k]), NO_MASS) for t, k in zip(tails, K)])
    decay = np.clip(_ratios(tails, K), 0.2, 0.95)

    def mass(L: Sequence[int]) -> float:
        return float(sum(tails[a][L[a]] if L[a] < K[a] else top[a] * decay[a] ** (L[a] - K[a]) for a in range(J)))

    def fits(L: Sequence[int]) -> bool:
        return (prod(k + 1 for k in L) <= states and (most_cells is None or prod(k + 2 for k in L) <= most_cells)
                and min(L) >= 1 and max(L) <= MAX_CLIP_LEVEL)

    def raised(levels: list[int], fixed: int | None = None) -> list[int]:
        """Raise one level at a time (not station ``fixed``'s) where the mass falls most for the states it costs."""
        while True:
            gains = []
            for a in (a for a in range(J) if a != fixed):
                trial = [*levels[:a], levels[a] + 1, *levels[a + 1:]]
                if fits(trial):
                    gains.append(((mass(levels) - mass(trial)) / log((levels[a] + 2) / (levels[a] + 1)), a))
            if not gains or max(gains)[0] <= 0:
                return levels
            a = max(gains)[1]
            levels = [*levels[:a], levels[a] + 1, *levels[a + 1:]]

    levels = list(K)
    while not fits(levels) and max(levels) > 1:
        levels[int(np.argmax(levels))] -= 1
    levels = raised(levels)
    traded = True
    while traded:  # trade: lower one station and raise the others again
        traded = False
        for a in range(J):
            for down in range(1, levels[a]):
                trial = raised([*levels[:a], levels[a] - down, *levels[a + 1:]], fixed=a)
                if mass(trial) < mass(levels) - 1e-15:
                    levels, traded = trial, True
                    break
    return tuple(levels)


def _tails(pi: np.ndarray, cells: np.ndarray, K: Sequence[int]) -> list[np.ndarray]:
    """tails[a][l]: the law's mass at x_a >= l, l = 0..K_a (a box cut at level l <= K_a holds about that much at its
    top level)."""
    return [np.cumsum(np.bincount(cells[:, a], weights=pi, minlength=k + 1)[::-1])[::-1] for a, k in enumerate(K)]


def top_ratios(pi: np.ndarray, cells: np.ndarray, K: Sequence[int]) -> np.ndarray:
    """Each station's mass at its top level over its mass one level below, in a box's law.

    Parameters
    ----------
    pi : ndarray
        The box's stationary law, one entry per state.
    cells : ndarray
        The box's states (rows), in the order of ``pi``.
    K : sequence of int
        The box's levels (each at least 1).

    Returns
    -------
    ndarray
        One ratio per station; 0 where the top level holds less than :data:`NO_MASS` (the box's other levels do not
        let the station reach it: a station that joins a JSQ pair only when it is the shorter, above its partner's
        level).

    Examples
    --------
    >>> cells = np.array([(a, b) for a in range(3) for b in range(3)])
    >>> pi = np.outer([1, 0.8, 0.64], [1, 0.2, 0.04]).ravel()
    >>> top_ratios(pi / pi.sum(), cells, (2, 2)).round(6).tolist()
    [0.8, 0.2]
    >>> top_ratios(np.outer([1, 0.8, 0], [1, 0.2, 0.04]).ravel() / 2.232, cells, (2, 2)).round(6).tolist()
    [0.0, 0.2]
    """
    return _ratios(_tails(pi, cells, K), K)


def _ratios(tails: list[np.ndarray], K: Sequence[int]) -> np.ndarray:
    """:func:`top_ratios` from the law's tails (:func:`_tails`)."""
    top = np.array([float(t[k]) for t, k in zip(tails, K)])
    below = np.array([float(t[k - 1] - t[k]) for t, k in zip(tails, K)])
    return np.where(top >= NO_MASS, top / np.maximum(below, NO_MASS), 0.0)


def piling(pi: np.ndarray, cells: np.ndarray, K: Sequence[int]) -> list[int]:
    """The stations whose mass piles at the box's top level (:data:`PILING`): the law does not resolve their tails.

    Parameters
    ----------
    pi, cells, K
        As for :func:`top_ratios`: the box's law, its states and its levels.

    Returns
    -------
    list of int
        The stations (positions in K), in order.

    Examples
    --------
    Station 0's mass grows up to the box's top (1, 1.5, 2.25); station 1's decays (0.2 from level to level).

    >>> cells = np.array([(a, b) for a in range(3) for b in range(3)])
    >>> pi = np.outer([1, 1.5, 2.25], [1, 0.2, 0.04]).ravel()
    >>> piling(pi / pi.sum(), cells, (2, 2))
    [0]
    """
    return [int(a) for a in np.flatnonzero(top_ratios(pi, cells, K) >= PILING)]


def resolving_levels(K: Sequence[int], piled: Sequence[int], kept: Sequence[int], states: int
                     ) -> tuple[int, ...] | None:
    """The levels of a box that resolves the piling stations' tails: theirs raised to 2 K_a + 1.

    The other stations keep their levels, except that while the box has more than ``states`` states the highest of
    those neither piling nor ``kept`` is lowered by one (not below 2).

    Parameters
    ----------
    K : sequence of int
        The levels of the box whose law piles.
    piled : sequence of int
        The piling stations (:func:`piling`).
    kept : sequence of int
        Stations raised before, whose levels stay.
    states : int
        The most states of the new box.

    Returns
    -------
    tuple of int or None
        The levels (each at most MAX_CLIP_LEVEL), or None when no such box fits ``states`` or nothing is raised.

    Examples
    --------
    >>> resolving_levels((3, 3, 3), [0], [], 200)
    (7, 3, 3)
    >>> resolving_levels((3, 3, 3), [0], [], 100)
    (7, 3, 2)
    >>> resolving_levels((3, 3, 3), [0], [1, 2], 100) is None
    True
    """
    L = [min(2 * k + 1, MAX_CLIP_LEVEL) if a in piled else k for a, k in enumerate(K)]
    if tuple(L) == tuple(K):
        return None
    while prod(k + 1 for k in L) > states:
        free = [a for a in range(len(L)) if a not in piled and a not in kept and L[a] > 2]
        if not free:
            return None
        a = max(free, key=lambda b: (L[b], b))
        L[a] -= 1
    return tuple(L)


def box_law(B: sp.csr_matrix, box: Sequence[int], deadline: float | None = None,
            order: np.ndarray | Sequence[int] | None = None
            ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """The box chain's stationary law, and a solver of its Poisson equations A'_K h = r (pi r = 0, h at the origin 0).

    One incomplete LU factorisation of the generator without its first row and column (drop tolerance
    :data:`ILU_DROP`) preconditions BiCGSTAB (GMRES where it stops short) for
    both (its transpose for the law), the states eliminated in ``order`` (:func:`elimination_order`).

    Parameters
    ----------
    B : csr_matrix
        The table's rows (:func:`~certify.search.sink.rate_rows`).
    box : sequence of int
        The row of B that is each state of the box, in the order of B's columns.
    deadline : float, optional
        A ``time.perf_counter()`` value: the iterative solves raise TimeLimitReached past it.
    order : sequence of int, optional
        The states (positions in ``box``) in the order the factorisation eliminates them, the origin first
        (default: as listed). The answers are in ``box``'s order whatever the order.

    Returns
    -------
    (ndarray, callable)
        pi (one entry per cell) and r -> h; r may have several columns (n x k: one right-hand side each, solved
        together by :func:`~certify.search.krylov.halved_block_bicgstab`, and h has the same shape).

    Raises
    ------
    TimeLimitReached
        Past the deadline.

    Examples
    --------
    A two-state chain 0 <-> 1 at rates 1 and 2: pi = (2/3, 1/3).

    >>> B = sp.csr_matrix(np.array([[-1.0, 1.0], [2.0, -2.0]]))
    >>> pi, solve = box_law(B, [0, 1])
    >>> np.round(pi, 6).tolist(), np.round(solve(np.array([1.0, -2.0])), 6).tolist()
    ([0.666667, 0.333333], [0.0, 1.0])
    >>> np.round(solve(np.array([[1.0, 2.0], [-2.0, -4.0]])), 6).tolist()  # two right-hand sides at once
    [[0.0, 0.0], [1.0, 2.0]]
    """
    return factored_law(box_system(B, box, order), deadline)


@dataclass(frozen=True)
class BoxSystem:
    """A box chain's generator in its elimination order, without the origin's row and column, and its incomplete LU.

    Attributes
    ----------
    Q : csr_matrix
        The box chain's generator, its states in the elimination order (the origin first).
    rest : csc_matrix
        Q without its first row and column (h is pinned at the origin: h(0) = 0).
    ilu : SuperLU
        The incomplete LU factorisation of ``rest`` (drop tolerance :data:`ILU_DROP`, fill factor 3, natural order).
    at : ndarray or None
        The elimination order (positions in the box's order), or None where it is the box's own.

    Examples
    --------
    >>> system = box_system(sp.csr_matrix(np.array([[-1.0, 1.0], [2.0, -2.0]])), [0, 1])
    >>> system.rest.toarray().tolist(), system.at is None
    ([[-2.0]], True)
    """

    Q: sp.csr_matrix
    rest: sp.csc_matrix
    ilu: Any
    at: np.ndarray | None


def box_system(B: sp.csr_matrix, box: Sequence[int], order: np.ndarray | Sequence[int] | None = None) -> BoxSystem:
    """The box chain's generator in ``order`` and its incomplete LU factorisation (what :func:`box_law` solves with).

    Parameters
    ----------
    B : csr_matrix
        The table's rows (:func:`~certify.search.sink.rate_rows`).
    box : sequence of int
        The row of B that is each state of the box, in the order of B's columns.
    order : sequence of int, optional
        The states (positions in ``box``) in the order the factorisation eliminates them, the origin first
        (:func:`elimination_order`; default: as listed).

    Returns
    -------
    BoxSystem
        The permuted generator, its part without the origin and that part's incomplete LU factorisation.

    Examples
    --------
    >>> B = sp.csr_matrix(np.array([[-1.0, 1.0, 0.0], [2.0, -3.0, 1.0], [0.0, 2.0, -2.0]]))
    >>> system = box_system(B, [0, 1, 2], [0, 2, 1])
    >>> system.rest.toarray().tolist(), system.at.tolist()
    ([[-2.0, 2.0], [1.0, -3.0]], [0, 2, 1])
    """
    Q = B[list(box), :].tocsr()  # the box chain's generator: the table's rows on its own states
    at = None
    if order is not None:
        at = np.asarray(order)
        assert at[0] == 0  # h is pinned at the origin: it stays first
        Q = Q[at][:, at].tocsr()
    rest = Q[1:, 1:].tocsc()  # h(0) = 0; pi from every column but the first
    # measured on the box of J = 6 seed 21 at 0.885 (98,279 unknowns, levels (19, 8, 12, 5, 6)): drop 1e-2 / fill 3
    # factorises in 17.5-19.4 s, then 0.4-0.6 s a solve (GMRES or BiCGSTAB); drop 0.1 in 1.7 s, then GMRES needs 133
    # iterations (2.4 s a solve) and BiCGSTAB 66 (0.5 s): BiCGSTAB first, GMRES from its answer where it stops short
    ilu = spl.spilu(rest, drop_tol=ILU_DROP, fill_factor=3, permc_spec="NATURAL") if rest.shape[0] else None
    return BoxSystem(Q, rest, ilu, at)


def factored_law(system: BoxSystem, deadline: float | None = None
                 ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """:func:`box_law` from a box's factorised system (:func:`box_system`): the law and the Poisson solver.

    Parameters
    ----------
    system : BoxSystem
        The box chain's generator and its incomplete LU factorisation.
    deadline : float, optional
        A ``time.perf_counter()`` value: the iterative solves raise TimeLimitReached past it.

    Returns
    -------
    (ndarray, callable)
        As :func:`box_law`, in the box's order (not the elimination order).

    Raises
    ------
    TimeLimitReached
        Past the deadline.

    Examples
    --------
    >>> B = sp.csr_matrix(np.array([[-1.0, 1.0], [2.0, -2.0]]))
    >>> pi, _ = factored_law(box_system(B, [0, 1]))
    >>> np.round(pi, 6).tolist()
    [0.666667, 0.333333]
    """
    Q, rest, ilu, at = system.Q, system.rest, system.ilu, system.at

    def tick(_: object) -> None:
        if deadline is not None and time.perf_counter() > deadline:
            raise TimeLimitReached("the Poisson tables' linear solve")

    def solve(A: Any, precondition: Callable[[np.ndarray], np.ndarray], b: np.ndarray) -> np.ndarray:
        M = spl.LinearOperator(A.shape, precondition)
        x, info = spl.bicgstab(A, b, M=M, rtol=SOLVE_RTOL, atol=0.0, maxiter=2000, callback=tick)
        finite = bool(np.all(np.isfinite(x)))
        if info != 0 or not finite:
            x, _ = spl.gmres(A, b, x0=x if finite else None, M=M, rtol=SOLVE_RTOL, atol=0.0, restart=80, maxiter=400,
                             callback=tick, callback_type="pr_norm")
        return np.asarray(x)

    N = Q.shape[0]
    pi_p = np.ones(N)
    if N > 1:
        pi_p[1:] = solve(rest.T, lambda b: ilu.solve(b, "T"), -np.asarray(Q[0, 1:].todense()).ravel())
    pi_p = np.maximum(pi_p, 0.0)
    pi_p /= pi_p.sum()

    def poisson_p(r: np.ndarray) -> np.ndarray:
        h = np.zeros(r.shape)
        if N > 1 and r.ndim == 1:
            h[1:] = solve(rest, ilu.solve, r[1:])
        elif N > 1 and r.shape[1]:  # every column at once; one that stops short is solved alone, as above
            h[1:], info = halved_block_bicgstab(rest.__matmul__, ilu.solve, np.asarray(r[1:], dtype=float),
                                                SOLVE_RTOL, 2000, lambda: tick(None))
            for k in np.flatnonzero((info != 0) | ~np.isfinite(h).all(axis=0)):
                h[1:, k] = solve(rest, ilu.solve, r[1:, k])
        return h

    if at is None:
        return pi_p, poisson_p
    pi = np.empty_like(pi_p)
    pi[at] = pi_p

    def unpermuted(r: np.ndarray) -> np.ndarray:
        h = np.empty_like(r, dtype=float)
        h[at] = poisson_p(r[at])
        return h

    return pi, unpermuted
