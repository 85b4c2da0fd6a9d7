"""The Poisson tables over the cells of R' (the search only): no region of R' is listed.

The sink kinds' rate inequalities are checked cell by cell (:mod:`certify.exact.cell_rates`, docs/math/cells.md): on
a cell z = (min(x_a, K_a + 1))_a of a table over every station of R', each move of the generator (a stream, a
service, a feedback) joins one of a few candidate stations, and the check bounds its term by the best or the worst
of them.  This module computes, in floats and for every cell at once, what that check computes: the box chain's
generator (the cells with every queue at or under its level are the box's states, where every move is fixed),
f + A'g on every cell with each undetermined move at its worst candidate, and the rows of the LP over w.  The worst
candidate depends on w, so each side's LP is solved a few times, each time with the rows of the candidates the last
solution made worst (a cutting-plane loop); the rounded candidate's rate is claimed from its own worst cell, as the
exact check will evaluate it.  Each of those LPs has J' + 1 columns and a row per cell and round, of which few bind:
it is solved by constraint generation (:data:`WORKING_ROWS` rows at first, the most violated added each round, until
none is violated), with the same optimum as over every row.  The two sides' LPs run in two threads where the
machine has two cores.

This replaces the regions of :mod:`certify.search.poisson`'s rows, which on R' of seven stations number about twenty
per state of the box (a box of 100,000 states: 1.9 million regions, 7.7 GB): the cells are prod(K_a + 2), about
three or four per state there.

Public: :class:`CellRows`, :func:`cell_poisson_rates`, :data:`CUTS`, :data:`WORKING_ROWS`, :data:`GENERATION_TOL`,
:data:`GENERATION_ROUNDS`, :data:`ROWS_CHUNK`.
"""

from __future__ import annotations

import contextvars
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from math import prod

import numpy as np
import scipy.sparse as sp

from ..exact.sink import Subset
from ..markov.chain import Chain
from ..markov.regions import TimeLimitReached
from ..templates.base import round_to_grid
from .drain import MONOTONE_MARGIN
from .linprog import solve_lp
from .poisson import ROUNDING, PoissonRates, box_law, elimination_order, worst_text
from .sink import RateSolution, claimed_rate

__all__ = ["CUTS", "GENERATION_ROUNDS", "GENERATION_TOL", "ROWS_CHUNK", "WORKING_ROWS", "CellRows", "SubsetRate", "cell_poisson_rates",
           "rate_solutions"]

#: The most LP solves per side (each adds the rows of the candidates the last solution made worst).
CUTS = 4

#: Rows of the LP over w at first, and the most added per round of its constraint generation (:func:`_generated_lp`).
#: Until stop 49 the LP had every row of every cutting-plane round: on J = 8 seed 12 at 0.955 a box of 442,368 cells
#: took 24 s and 4 GB per side, against 1.3 s for its law.
WORKING_ROWS = 2_000

#: A row violated by more than this (in rate units) joins the working set.
GENERATION_TOL = 1e-9

#: Cells per chunk of :meth:`CellRows.rows` (one sparse product each: a chunk's transient arrays stay near 10 MB).
#: J = 8 seed 33 at 0.85 (617,400 cells, 36 candidates over 19 moves): 0.62 s a call in chunks of 16,384, 1.0 s in
#: chunks of 262,144; 1.97 s before stop 56, a gather of H's rows per candidate.
ROWS_CHUNK = 16_384

#: The most rounds of the constraint generation per LP (each solves the working set once).
GENERATION_ROUNDS = 50


@dataclass
class _Move:
    """One move of the generator on every cell: its rate, jumps and target table columns per candidate station."""

    rate: np.ndarray  # (n,) its rate on each cell (0 where its server is empty)
    jumps: np.ndarray  # (c, J) the jump of the state when it joins candidate j
    target: np.ndarray  # (n, c) int32: the table's column after that jump
    cand: np.ndarray  # (n, c) bool: the stations it may join on the cell
    probs: np.ndarray  # (n, c): its law over them where the cell fixes it (0 rows where it does not)
    free: np.ndarray  # (n,) bool: the cell does not fix whom it joins


class CellRows:
    """Every cell of a table over every station of R' clipped at K, and the moves of R' on each.

    Parameters
    ----------
    chain : Chain
        R''s chain (exponential).
    K : sequence of int
        The clip level of every station.
    rate_of : sequence of callable
        Rates of the cells from their empty stations (sorted tuples), e.g. the forced rate and the drain's u.

    Attributes
    ----------
    Z : ndarray
        The cells (rows), z_a = min(x_a, K_a + 1), in lexicographic order.
    col : ndarray
        Each cell's table column (the column of min(z, K)).
    box : ndarray
        The rows of the box's states (every z_a <= K_a), in column order: ``Z[box]`` are the table's cells.
    rates : list of ndarray
        Each rate of ``rate_of`` on every cell.

    Examples
    --------
    An M/M/1 queue (rate 1/2, service 1) clipped at 2: cells 0, 1, 2 and "3 or more", the box's generator.

    >>> from certify.markov.chain import Chain
    >>> mm1 = Chain(("1",), (Fraction(1),), (((0,), Fraction(1, 2)),), (), (Fraction(1),))
    >>> rows = CellRows(mm1, (2,), [lambda e: Fraction(0 if e else 1)])
    >>> rows.Z.ravel().tolist(), rows.box.tolist(), rows.rates[0].tolist()
    ([0, 1, 2, 3], [0, 1, 2], [0.0, 1.0, 1.0, 1.0])
    >>> rows.box_generator().toarray().tolist()
    [[-0.5, 0.5, 0.0], [1.0, -1.5, 0.5], [0.0, 1.0, -1.0]]
    """

    def __init__(self, chain: Chain, K: Sequence[int], rate_of: Sequence[Callable[[tuple[int, ...]], Fraction]]):
        J = chain.J
        self.J, self.K = J, np.array(K, dtype=np.int64)
        self.Z = np.indices([k + 2 for k in K]).reshape(J, -1).T.astype(np.int32)
        stride = np.array([prod(k + 1 for k in K[a + 1:]) for a in range(J)], dtype=np.int64)
        self.columns = prod(k + 1 for k in K)
        self.stride = stride
        self.col = (np.minimum(self.Z, self.K) @ stride).astype(np.int32)
        inside = (self.Z <= self.K).all(axis=1)
        self.box = np.flatnonzero(inside)
        empty_mask = ((self.Z == 0) * (1 << np.arange(J))).sum(axis=1)
        self.rates = []
        masks, where = np.unique(empty_mask, return_inverse=True)
        for fn in rate_of:
            vals = np.array([float(fn(tuple(a for a in range(J) if int(m) >> a & 1))) for m in masks])
            self.rates.append(vals[where])
        below = self.Z < self.K  # joining station a moves the table's cell up
        inside_a = self.Z <= self.K  # leaving station a moves it down
        self.moves: list[_Move] = []
        n = len(self.Z)
        for C, lam in chain.arrivals:
            self._add(chain, C, None, np.full(n, float(lam)), stride, below, inside_a)
        for i in range(J):
            busy = (self.Z[:, i] > 0).astype(float)
            if chain.leave[i]:
                jump = np.zeros((1, J))
                jump[0, i] = -1
                target = (self.col - stride[i] * inside_a[:, i]).astype(np.int32)[:, None]
                self.moves.append(_Move(busy * float(chain.mu[i] * chain.leave[i]), jump, target, np.ones((n, 1), bool),
                                        np.ones((n, 1)), np.zeros(n, bool)))
            for src, C, p in chain.feedback:
                if src == i:
                    self._add(chain, C, i, busy * float(chain.mu[i] * p), stride, below, inside_a)

    def _add(self, chain: Chain, C: tuple[int, ...], frm: int | None, rate: np.ndarray, stride: np.ndarray,
             below: np.ndarray, inside_a: np.ndarray) -> None:
        """The move into C (an arrival, or a feedback from ``frm``) on every cell."""
        n, c = len(self.Z), len(C)
        shift = frm if frm is not None and frm in C and c > 1 else None
        lo = self.Z[:, list(C)].astype(np.int64) - np.array([1 if b == shift else 0 for b in C])
        top = self.Z[:, list(C)] > self.K[list(C)]
        hi = np.where(top, np.int64(1) << 40, lo)
        cand = lo <= hi.min(axis=1)[:, None]
        free = (cand & top).any(axis=1)
        jumps = np.zeros((c, self.J))
        target = np.empty((n, c), dtype=np.int32)
        down = stride[frm] * inside_a[:, frm] if frm is not None else 0
        for k, j in enumerate(C):
            if frm is not None and j == frm:
                target[:, k] = self.col  # back into its own queue: a self-loop
                continue
            jumps[k, j] = 1
            if frm is not None:
                jumps[k, frm] = -1
            target[:, k] = self.col - down + stride[j] * below[:, j]
        # the law over a fixed candidate set, by its mask
        table = np.zeros((1 << c, c))
        for mask in range(1, 1 << c):
            tied = tuple(b for k, b in enumerate(C) if mask >> k & 1)
            for b, p in chain.tie_split(tied):
                table[mask, C.index(b)] = float(p)
        masks = (cand * (1 << np.arange(c))).sum(axis=1)
        probs = np.where(free[:, None], 0.0, table[masks])
        self.moves.append(_Move(rate, jumps, target, cand, probs, free))

    def box_generator(self) -> sp.csr_matrix:
        """The box chain's generator over the table's columns (every move is fixed on the box's cells).

        Returns
        -------
        csr_matrix
            Row and column k: the box state of column k (arrivals past the box are blocked: they stay).
        """
        rows, cols, vals = [], [], []
        b = self.box
        for m in self.moves:
            for k in range(m.target.shape[1]):
                r = m.rate[b] * m.probs[b, k]
                keep = r != 0
                rows += [self.col[b][keep], self.col[b][keep]]
                cols += [m.target[b, k][keep], self.col[b][keep]]
                vals += [r[keep], -r[keep]]
        Q = sp.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                          shape=(self.columns, self.columns)).tocsr()
        Q.sum_duplicates()
        Q.eliminate_zeros()
        return Q

    def box_drifts(self) -> np.ndarray:
        """d_a = A'x_a on every box state (columns): the mean drift of each station (rows by column)."""
        out = np.zeros((self.columns, self.J))
        b = self.box
        for m in self.moves:
            out[self.col[b]] += (m.rate[b, None] * m.probs[b]) @ m.jumps
        return out

    def monotone_rows(self, h0: np.ndarray, H: np.ndarray, directions: Sequence[int], margin: float
                      ) -> tuple[np.ndarray, np.ndarray]:
        """g = w'x + T(min(x, K)) nondecreasing along each station t of ``directions``, T = h0 + H w, as rows
        v + D w >= 0: w_t + T(c + e_t) - T(c) >= margin on every table cell c with c_t < K_t, and w_t >= margin (the
        increment at c_t = K_t); the exact check's monotonicity (docs/math/drain.md) with ``margin`` to spare.

        Parameters
        ----------
        h0 : ndarray
            T's constant part (per column).
        H : ndarray
            T's part per weight (columns x J).
        directions : sequence of int
            The stations along which g must not decrease.
        margin : float
            What each increment keeps above 0 (for the rounding of w and T).

        Returns
        -------
        (ndarray, ndarray)
            v and D.

        Examples
        --------
        >>> from certify.markov.chain import Chain
        >>> mm1 = Chain(("1",), (Fraction(1),), (((0,), Fraction(1, 2)),), (), (Fraction(1),))
        >>> rows = CellRows(mm1, (2,), [])
        >>> v, D = rows.monotone_rows(np.array([0.0, 1.0, 0.5]), np.zeros((3, 1)), [0], 0.0)
        >>> (v + D @ np.array([0.25])).tolist()  # T rises by 1, then falls by 1/2: w = 1/4 is not enough
        [1.25, -0.25, 0.25]
        """
        vs, Ds = [], []
        cells = self.Z[self.box]
        for t in directions:
            low = self.col[self.box][cells[:, t] < self.K[t]]
            up = low + self.stride[t]
            D = H[up] - H[low]
            D[:, t] += 1.0
            unit = np.zeros((1, self.J))
            unit[0, t] = 1.0
            vs += [h0[up] - h0[low] - margin, np.array([-margin])]
            Ds += [D, unit]
        if not vs:
            return np.zeros(0), np.zeros((0, self.J))
        return np.concatenate(vs), np.vstack(Ds)

    def values(self, f: np.ndarray, w: np.ndarray, T: np.ndarray, sign: int) -> tuple[np.ndarray, list[np.ndarray]]:
        """f + A'g on every cell with each undetermined move at its worst candidate (sign 1: least, -1: largest).

        Returns the values and, per move, the candidate taken on each cell (where the cell does not fix it).
        """
        n = len(self.Z)
        out = f.copy()
        picks = [np.zeros(n, dtype=np.intp) for _ in self.moves]
        steps = [m.jumps @ w for m in self.moves]  # w'x's part of each candidate's jump
        for lo in range(0, n, ROWS_CHUNK):  # in chunks: each move's (cells x candidates) temporaries stay small
            hi = min(n, lo + ROWS_CHUNK)
            here = T[self.col[lo:hi]]
            for m, pick, step in zip(self.moves, picks, steps):
                if m.target.shape[1] == 1:  # one candidate (a service, a stream of one station): nothing to choose
                    out[lo:hi] += m.rate[lo:hi] * (T[m.target[lo:hi, 0]] - here + float(step[0]))
                    continue
                delta = T[m.target[lo:hi]]  # (cells, c)
                delta -= here[:, None]
                delta += step[None, :]
                fixed = (m.probs[lo:hi] * delta).sum(axis=1)
                masked = np.where(m.cand[lo:hi], sign * delta, np.inf)
                pick[lo:hi] = masked.argmin(axis=1)
                worst = np.take_along_axis(delta, pick[lo:hi, None], axis=1)[:, 0]
                out[lo:hi] += m.rate[lo:hi] * np.where(m.free[lo:hi], worst, fixed)
        return out, picks

    def rows(self, f: np.ndarray, h0: np.ndarray, H: np.ndarray, picks: Sequence[np.ndarray] | None
             ) -> tuple[np.ndarray, np.ndarray]:
        """f + A'g = v + D w on every cell, for T = h0 + H w, each undetermined move at its candidate in ``picks``.

        Parameters
        ----------
        f : ndarray
            The rate on every cell.
        h0 : ndarray
            T's constant part (per column).
        H : ndarray
            T's part per weight (columns x J).
        picks : sequence of ndarray or None
            Per move, the candidate taken where the cell does not fix it (None: the box's rows only).

        Returns
        -------
        (ndarray, ndarray)
            v (n) and D (n x J).
        """
        n = len(self.Z)
        hH = np.column_stack([h0, H])
        out = np.empty((n, 1 + self.J))
        moves = list(zip(self.moves, picks if picks is not None else [None] * len(self.moves)))
        jumps = np.vstack([m.jumps for m in self.moves])  # every candidate of every move
        E = len(jumps)
        for lo in range(0, n, ROWS_CHUNK):
            hi = min(n, lo + ROWS_CHUNK)
            c = hi - lo
            # on each cell, the rate of every candidate of every move and the column it leads to; last, the cell's own
            # column with minus the total rate: T's part of f + A'g is then one sparse product
            weight = np.empty((c, E + 1))
            target = np.empty((c, E + 1), dtype=np.int32)
            e = 0
            for m, pick in moves:
                k = m.target.shape[1]
                wk = m.probs[lo:hi].copy()
                if pick is not None:
                    wk[np.arange(c), pick[lo:hi]] += m.free[lo:hi]
                wk *= m.rate[lo:hi, None]
                weight[:, e:e + k], target[:, e:e + k] = wk, m.target[lo:hi]
                e += k
            weight[:, E] = -weight[:, :E].sum(axis=1)
            target[:, E] = self.col[lo:hi]
            # a candidate of rate 0 may name no column (a service at an empty station): its own column instead
            np.copyto(target, target[:, E:], where=weight == 0)
            if target.min() < 0 or target.max() >= self.columns:  # the product below does not check its indices
                raise IndexError(f"a move of the cells {lo}..{hi - 1} leads outside the table's {self.columns} columns")
            P = sp.csr_matrix((weight.ravel(), target.ravel(), np.arange(0, c * (E + 1) + 1, E + 1)),
                              shape=(c, self.columns))
            out[lo:hi] = P @ hH  # a row may name a column twice (a clipped jump): the product adds both
            out[lo:hi, 1:] += weight[:, :E] @ jumps  # w'x's part
        return f + out[:, 0], out[:, 1:]


@dataclass(frozen=True)
class SubsetRate:
    """A proper subset H of a set of sinks that needs its own function on one side (docs/math/sink.md, docs/math/drain.md).

    Attributes
    ----------
    H : tuple of str
        The subset.
    rate : int
        Its rate's index in the rows' rates (f_H for the growth side, u_H for the drain side).
    bound : Fraction
        What its c_H must exceed (m_H, growth) or stay below (mu(H), drain).
    directions : tuple of int
        The stations of R' along which g_H must not decrease (the drain side's Dirs(H); none for the growth side).

    Examples
    --------
    >>> SubsetRate(("2",), 2, Fraction(3, 2), (0, 3)).directions
    (0, 3)
    """

    H: tuple[str, ...]
    rate: int
    bound: Fraction
    directions: tuple[int, ...] = ()


#: One side of the box: its rate on every cell, that rate's Poisson solution, its bound, and the subsets that need
#: functions of their own (each with its rate and Poisson solution).
_Side = tuple[np.ndarray, np.ndarray, Fraction, list[tuple[SubsetRate, np.ndarray, np.ndarray]]]

#: One side's answer: its candidate or None, its worst cell, its subsets' functions, why a subset refused.
_Answer = tuple[RateSolution | None, float, tuple[Subset, ...], str | None]


def cell_poisson_rates(rows: CellRows, capacity: Fraction, served: Fraction, deadline: float | None = None,
                       solver: str | None = None, growth_subsets: Sequence[SubsetRate] = (),
                       drain_subsets: Sequence[SubsetRate] = ()) -> tuple[PoissonRates, np.ndarray]:
    """Both sides' Poisson candidates on one box, from its cells: the box law, the Poisson solutions, the LPs over w.

    For a set of sinks, a side whose candidate clears its bound also gets a function for each proper subset listed
    for it, from the same box: the subset's rate has its own Poisson solution, and its LP over w has the drain side's
    monotonicity along the subset's directions as rows (:meth:`CellRows.monotone_rows`).  The side has a candidate only
    when every such subset's rate clears the subset's bound.

    Parameters
    ----------
    rows : CellRows
        The cells, with the forced rate f and the drain's u as its first two rates (then the subsets' rates).
    capacity : Fraction
        What the growth rate must exceed.
    served : Fraction
        What the drain rate must stay below.
    deadline : float, optional
        A ``time.perf_counter()`` value: the linear solves raise TimeLimitReached past it.
    solver : str, optional
        The LP solver.
    growth_subsets, drain_subsets : sequence of SubsetRate
        The subsets that need functions of their own on each side.

    Returns
    -------
    (PoissonRates, ndarray)
        The candidates (rounded to 2^-20, each rate claimed from its own worst cell) and the box chain's law.

    Raises
    ------
    TimeLimitReached
        Past the deadline.

    Examples
    --------
    One M/M/1 queue (rate 1/2, service 1) clipped at 3 with f = u = 1 while busy: pi(f) = 1/2 exactly.

    >>> from certify.markov.chain import Chain
    >>> mm1 = Chain(("1",), (Fraction(1),), (((0,), Fraction(1, 2)),), (), (Fraction(1),))
    >>> busy = lambda e: Fraction(0 if e else 1)
    >>> got, pi = cell_poisson_rates(CellRows(mm1, (3,), [busy, busy]), Fraction(2, 5), Fraction(3, 5))
    >>> Fraction(2, 5) < got.growth[2] <= Fraction(1, 2) <= got.drain[2] < Fraction(3, 5)
    True
    """
    Q = rows.box_generator()
    pi, poisson = box_law(Q, range(rows.columns), deadline, elimination_order(rows.K))
    drifts = rows.box_drifts()
    means = pi @ drifts
    H = poisson(means[None, :] - drifts)  # every station's at once
    h = rate_solutions(rows, pi, poisson)

    def side(k: int, bound: Fraction, subsets: Sequence[SubsetRate]) -> _Side:
        return rows.rates[k], h[:, k], bound, [(s, rows.rates[s.rate], h[:, s.rate]) for s in subsets]

    growth, drain = _both_sides(rows, side(0, capacity, growth_subsets), side(1, served, drain_subsets), H, deadline,
                                solver)
    return PoissonRates(growth[0], drain[0], growth[1], drain[1], growth[2], drain[2], growth[3], drain[3]), pi


def rate_solutions(rows: CellRows, pi: np.ndarray, poisson: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """The Poisson solution of every rate of ``rows`` on the box: A'_K h = pi(r) - r.

    The sink kinds' rates (f_H, u_H) are a constant plus a rate per busy station of R'; where every rate is such a sum
    on the box (checked on its cells) and fewer stations than rates carry one, the busy stations' indicators are solved
    and combined (a set of sinks' subsets add rates, not solves); otherwise each rate is solved. The right-hand sides
    go to ``poisson`` together, as one n x k array.

    Parameters
    ----------
    rows : CellRows
        The cells and their rates.
    pi : ndarray
        The box law.
    poisson : callable
        The box chain's Poisson solver (:func:`~certify.search.poisson.box_law`).

    Returns
    -------
    ndarray
        Columns x rates.

    Examples
    --------
    An M/M/1 queue clipped at 3 with rates 1 and 2 while busy: one solve, the second rate's solution twice the first's.

    >>> from certify.markov.chain import Chain
    >>> mm1 = Chain(("1",), (Fraction(1),), (((0,), Fraction(1, 2)),), (), (Fraction(1),))
    >>> rows = CellRows(mm1, (3,), [lambda e: Fraction(0 if e else 1), lambda e: Fraction(0 if e else 2)])
    >>> solves = []
    >>> pi, poisson = box_law(rows.box_generator(), range(rows.columns))
    >>> h = rate_solutions(rows, pi, lambda r: solves.append(r.shape[1]) or poisson(r))
    >>> sum(solves), bool(np.allclose(h[:, 1], 2 * h[:, 0]))
    (1, True)
    """
    R = np.column_stack([r[rows.box] for r in rows.rates]) if rows.rates else np.zeros((rows.columns, 0))
    if len(rows.rates) and (rows.K >= 1).all():
        busy = (rows.Z[rows.box] > 0).astype(float)
        coef = R[rows.stride] - R[0]  # station a's rate: at the state with a alone at level 1, less the empty state's
        used = np.flatnonzero(np.abs(coef).max(axis=1) > 0)
        if len(used) < R.shape[1] and np.abs(R[0] + busy @ coef - R).max() <= 1e-12 * max(1.0, np.abs(R).max()):
            if not len(used):
                return np.zeros_like(R)
            return np.asarray(poisson((pi @ busy[:, used])[None, :] - busy[:, used]) @ coef[used])
    return poisson((pi @ R)[None, :] - R) if R.shape[1] else R


def _both_sides(rows: CellRows, growth: _Side, drain: _Side, H: np.ndarray, deadline: float | None,
                solver: str | None) -> tuple[_Answer, _Answer]:
    """Both sides' LPs over w (each with its subsets'), the drain side in a second thread where the machine has a
    second core (their cells' arithmetic and LPs mostly release the GIL: J = 8 seed 7 at 0.944, a box of 583,200
    cells, 17.9 s with the sides one after the other, 15.1 s with the second thread, whole try included).  The answers
    are those of the sides in turn.  Where the growth side stops (past the deadline, an interrupt), the drain side is
    told to stop and ends within a round."""
    stop = threading.Event()

    def solved(sign: int, side: _Side) -> _Answer:
        f, h0, bound, subsets = side
        got, worst = _side(rows, f, h0, H, bound, sign, deadline, solver, stop)
        out: list[Subset] = []
        for spec, f_H, h_H in subsets if got is not None else []:
            extra = rows.monotone_rows(h_H, H, spec.directions, MONOTONE_MARGIN) if spec.directions else None
            sub, sub_worst = _side(rows, f_H, h_H, H, spec.bound, sign, deadline, solver, stop, extra)
            if sub is None:
                what = "the growth side's" if sign > 0 else "the drain side's"
                where = "above m_H" if sign > 0 else "below mu(H)"
                return None, worst, (), (f"{what} subset {{{','.join(spec.H)}}}: its worst cell {worst_text(sub_worst)} "
                                         f"is not {where} = {float(spec.bound):.6g}")
            out.append((spec.H, sub[0], sub[2], sub[1]))
        return got, worst, tuple(out), None

    if (os.cpu_count() or 1) < 2:
        return solved(1, growth), solved(-1, drain)
    with ThreadPoolExecutor(1) as pool:  # the deadline in force (a context variable) goes with the drain side
        later = pool.submit(contextvars.copy_context().run, solved, -1, drain)
        try:
            first = solved(1, growth)
            return first, later.result()
        except BaseException:
            stop.set()  # the pool's exit waits for the drain side, which then ends within a round
            raise


def _side(rows: CellRows, f: np.ndarray, h0: np.ndarray, H: np.ndarray, bound: Fraction, sign: int,
          deadline: float | None, solver: str | None, stop: threading.Event | None = None,
          extra: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[RateSolution | None, float]:
    """One side's LP over w (sign 1: maximise the least cell, -1: minimise the largest), cut by its worst candidates,
    with ``extra`` rows v + D w >= 0 (monotonicity) kept; TimeLimitReached past the deadline or once ``stop`` is set."""
    J = rows.J
    lo = np.concatenate([np.full(J, -100.0), [-np.inf]])
    hi = np.concatenate([np.full(J, 100.0), [np.inf]])
    cost = np.zeros(J + 1)
    cost[-1] = -sign
    _, picks = rows.values(f, np.zeros(J), h0, sign)
    blocks: list[tuple[np.ndarray, np.ndarray]] = []
    wf = np.zeros(J)
    for _ in range(CUTS):
        _check(deadline, stop)
        blocks.append(rows.rows(f, h0, H, picks))
        x = _generated_lp(blocks, sign, cost, (lo, hi), wf, deadline, solver, stop, extra)
        if x is None:
            return None, float("nan")
        wf, claimed = x[:J], x[J]
        got, picks = rows.values(f, wf, h0 + H @ wf, sign)
        worst = float(got.min() if sign > 0 else got.max())
        if sign * (claimed - worst) <= 1e-9:
            break
    # rounded to 2^-20 in floats first (exactly round_to_grid's values: both round half to even, and dividing by a
    # power of 2 is exact), the Fractions only for a candidate that clears its bound
    w_grid, T_grid = np.rint(wf * 2.0**20) / 2.0**20, np.rint((h0 + H @ wf) * 2.0**20) / 2.0**20
    got, _ = rows.values(f, w_grid, T_grid, sign)
    worst = float(got.min() if sign > 0 else got.max())
    rate = claimed_rate(worst, ROUNDING, sign)
    if sign * (rate - bound) <= 0:
        return None, worst
    cells = map(tuple, rows.Z[rows.box].tolist())
    return (round_to_grid(w_grid, 2**20), dict(zip(cells, round_to_grid(T_grid, 2**20))), rate), worst


def _generated_lp(blocks: list[tuple[np.ndarray, np.ndarray]], sign: int, cost: np.ndarray,
                  bounds: tuple[np.ndarray, np.ndarray], w: np.ndarray, deadline: float | None, solver: str | None,
                  stop: threading.Event | None = None, extra: tuple[np.ndarray, np.ndarray] | None = None
                  ) -> np.ndarray | None:
    """The side's LP over every row of ``blocks`` (sign (v + D w - t) >= 0) and of ``extra`` (v + D w >= 0), by
    constraint generation: solved on a working set of rows, which each round grows by the rows its solution violates
    most, until it violates none (then its solution is the LP's over every row).  The LP has J' + 1 columns, so few
    rows bind; the box's rows are all one row up to the solves' precision.  None when the solver gives no solution;
    TimeLimitReached past the deadline or once ``stop`` is set."""
    # every row as a + D w + c t >= 0
    a_all = np.concatenate([sign * v for v, _ in blocks] + ([extra[0]] if extra is not None else []))
    D_all = np.vstack([D for _, D in blocks] + ([extra[1]] if extra is not None else []))
    rated = sum(len(v) for v, _ in blocks)
    if sign < 0:
        D_all[:rated] *= -1.0
    c_all = np.zeros(len(a_all))
    c_all[:rated] = -sign
    kept = np.zeros(len(a_all), dtype=bool)
    slack = a_all + D_all @ w  # at t = 0: the rate rows most binding at w first (one bounds t), and the extra rows w breaks
    x = None
    for _ in range(GENERATION_ROUNDS):
        if x is None:
            first = slack[:rated]
            kept[np.argpartition(first, WORKING_ROWS)[:WORKING_ROWS] if rated > WORKING_ROWS else slice(None)] = True
            where = rated + np.flatnonzero(slack[rated:] < -GENERATION_TOL)
        else:
            where = np.flatnonzero(~kept & (slack < -GENERATION_TOL))
            if len(where) == 0:
                return x
        kept[where[np.argsort(slack[where], kind="stable")[:WORKING_ROWS]]] = True
        A_ub = sp.csr_matrix(np.hstack([-D_all[kept], -c_all[kept, None]]))
        res = solve_lp(cost, A_ub, a_all[kept], bounds=bounds, solver=solver)
        if res.timed_out:  # stopped by the deadline in force: not an answer (the caller says so, or tries again)
            raise TimeLimitReached("the Poisson tables' LP over the cells")
        if not res.ok or res.x is None:
            return None
        x = res.x
        _check(deadline, stop)
        slack = a_all + D_all @ x[:-1] + c_all * x[-1]
    return x  # rows may still be violated: the candidate's rate is its own worst cell's all the same


def _check(deadline: float | None, stop: threading.Event | None) -> None:
    """TimeLimitReached past the deadline or once ``stop`` is set (the other side stopped)."""
    if (deadline is not None and time.perf_counter() > deadline) or (stop is not None and stop.is_set()):
        raise TimeLimitReached("the Poisson tables' LP over the cells")
