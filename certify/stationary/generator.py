"""The generator of a network's Markov chain, truncated, over an enumerated state space.

:class:`GeneratorBuilder` builds the generator straight from the network's
rules -- JSQ over each choice set (ties split uniformly unless a
``tie_breaking`` entry names the exact tied set), random selection sets and
power-of-d streams through :meth:`~certify.core.model.Stream.routing_sets`, feedback
routed by JSQ comparing queue lengths after the departure, capacities with
losses (a customer is routed by JSQ over the *non-full* stations of its set and
is lost when they are all full).  A truncated station behaves as if its
truncation level were its capacity; the builder counts the customers lost to a
truncation apart from those lost to a real capacity.

Erlang, hyperexponential and Coxian service and interarrival times are
expanded into phases (:mod:`certify.markov.phases`); the states are then (x, phases).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from ..core.model import Distribution
from ..markov.chain import Chain
from ..markov.laws import NotPhaseType, PhaseType, phase_type
from ..markov.phases import PhaseChain

__all__ = ["STATE_LIMIT", "phases_of", "GeneratorBuilder"]

#: Largest chain :func:`certify.stationary.stationary` builds (capacities or an explicit
#: ``truncate`` beyond it are refused).
STATE_LIMIT = 3_000_000


def phases_of(dist: Distribution, rate: Fraction) -> int:
    """Number of phases of ``dist`` with mean ``1/rate`` in the chain (1 when it has no phase-type form).

    Parameters
    ----------
    dist : Distribution
        A service or interarrival distribution.
    rate : Fraction
        Its rate (the station's ``mu`` or the stream's ``rate``).

    Returns
    -------
    int
        The phases of :func:`~certify.markov.laws.phase_type` (1 for an
        exponential law or a law without an exact phase-type representation).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Distribution
    >>> phases_of(Distribution("erlang", (("k", 3),)), F(1)), phases_of(Distribution(), F(2))
    (3, 1)
    """
    if dist.is_exponential:
        return 1
    try:
        return phase_type(dist, rate).n
    except NotPhaseType:
        return 1


class GeneratorBuilder:
    """Vectorised construction of the generator over an enumerated state space.

    The states are the rows of ``S``: the queue lengths, then the service phase
    of each phase-type station (-1 when it is empty) and the phase of each
    phase-type stream.  :meth:`build` returns the off-diagonal generator and
    fills, per state, the exogenous arrival rate (``arrivals``), the service
    completion rate of each station (``completions``) and the rate of customers
    lost (``lost[(exogenous, real capacity)]``: exogenous or fed back, lost to a
    real capacity or to the truncation).

    Parameters
    ----------
    chain : Chain
        The network's chain (:func:`~certify.markov.phases.markov_chain`; a
        :class:`~certify.markov.phases.PhaseChain` for phase-type laws).
    levels : numpy.ndarray
        The largest queue length of each station (int64): its capacity or the
        truncation.
    real_cap : numpy.ndarray
        Which of those levels are real capacities (bool; the others truncate).

    Raises
    ------
    OverflowError
        When the grid of states would exceed :data:`STATE_LIMIT` (its size is
        ``args[0]``).

    Examples
    --------
    M/M/1 with capacity 2, lam = 1, mu = 2:

    >>> import numpy as np
    >>> from certify.io.loader import from_dict
    >>> from certify.markov.phases import markov_chain
    >>> net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 2, "capacity": 2}},
    ...     "streams": [{"choice": ["1"], "rate": 1}]})
    >>> b = GeneratorBuilder(markov_chain(net), np.array([2]), np.array([True]))
    >>> Q = b.build()
    >>> b.S.ravel().tolist(), Q.toarray().tolist()
    ([0, 1, 2], [[0.0, 1.0, 0.0], [2.0, 0.0, 1.0], [0.0, 2.0, 0.0]])
    >>> b.lost[(True, True)].tolist()  # the arrival finding the station full is lost
    [0.0, 0.0, 1.0]
    """

    def __init__(self, chain: Chain, levels: np.ndarray, real_cap: np.ndarray):
        self.chain = chain
        J = chain.J
        self.J = J
        self.levels = levels
        self.real_cap = real_cap
        ph = isinstance(chain, PhaseChain)
        self.service: list[PhaseType | None] = list(chain.service) if ph else [None] * J  # type: ignore[attr-defined]
        self.ph_streams = list(chain.ph_streams) if ph else []  # type: ignore[attr-defined]
        self.exp_arrivals = list(chain.exp_arrivals) if ph else list(chain.arrivals)  # type: ignore[attr-defined]
        self.ph_col = {}
        col = J
        for i, law in enumerate(self.service):
            if law is not None:
                self.ph_col[i] = col
                col += 1
        self.stream_col = list(range(col, col + len(self.ph_streams)))
        ncol = col + len(self.ph_streams)
        dims = [int(v) + 1 for v in levels]
        dims += [self.service[i].n + 1 for i in self.ph_col]  # type: ignore[union-attr]
        dims += [law.n for law, _ in self.ph_streams]
        self.offset = np.zeros(ncol, dtype=np.int64)
        for c in self.ph_col.values():
            self.offset[c] = 1
        size = int(np.prod(np.array(dims, dtype=np.float64)))
        if size > STATE_LIMIT:
            raise OverflowError(size)
        self.strides = np.ones(ncol, dtype=np.int64)
        for c in range(ncol - 2, -1, -1):
            self.strides[c] = self.strides[c + 1] * dims[c + 1]
        grid = np.indices(dims, dtype=np.int64).reshape(ncol, -1).T - self.offset
        ok = np.ones(len(grid), dtype=bool)
        for i, c in self.ph_col.items():
            ok &= (grid[:, i] == 0) == (grid[:, c] == -1)
        self.S = grid[ok]
        self.n = len(self.S)
        self.pos = np.full(size, -1, dtype=np.int64)
        self.pos[self.code(self.S)] = np.arange(self.n)
        self.rows: list[np.ndarray] = []
        self.cols: list[np.ndarray] = []
        self.vals: list[np.ndarray] = []
        self.arrivals = np.zeros(self.n)
        self.lost = {(exo, real): np.zeros(self.n) for exo in (True, False) for real in (True, False)}
        self.completions = np.zeros((J, self.n))
        self._splits: dict[tuple[int, ...], list[tuple[int, float]]] = {}

    def code(self, S: np.ndarray) -> np.ndarray:
        """The index of each state (row of ``S``) in the full grid; ``pos[code(S)]`` is its row in :attr:`S`.

        Parameters
        ----------
        S : numpy.ndarray
            States, one per row, laid out as the rows of :attr:`S`.

        Returns
        -------
        numpy.ndarray
            Their grid codes (int64).

        Examples
        --------
        >>> import numpy as np
        >>> from certify.io.loader import from_dict
        >>> from certify.markov.phases import markov_chain
        >>> net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 1, "capacity": 3}},
        ...     "streams": [{"choice": ["1"], "rate": 1}]})
        >>> b = GeneratorBuilder(markov_chain(net), np.array([3]), np.array([True]))
        >>> b.pos[b.code(np.array([[2]]))].tolist()
        [2]
        """
        return (S + self.offset) @ self.strides

    def _emit(self, src: np.ndarray, S2: np.ndarray, rate: np.ndarray) -> None:
        keep = rate > 0
        if not keep.any():
            return
        dst = self.pos[self.code(S2[keep])]
        assert np.all(dst >= 0), "transition out of the state space"
        self.rows.append(src[keep])
        self.cols.append(dst)
        self.vals.append(rate[keep])

    def _phase_moves(self, S: np.ndarray, rows: np.ndarray, col: int, law: PhaseType, a: int) -> None:
        """The phase changes a -> b (no customer moves) of the law in column ``col``, from ``rows``."""
        for a2, b, r in law.moves:
            if a2 == a:
                S2 = S[rows].copy()
                S2[:, col] = b
                self._emit(rows, S2, np.full(len(rows), float(r)))

    def _split(self, B: tuple[int, ...]) -> list[tuple[int, float]]:
        out = self._splits.get(B)
        if out is None:
            out = [(j, float(p)) for j, p in self.chain.tie_split(B)]
            self._splits[B] = out
        return out

    def _start_service(self, src: np.ndarray, S2: np.ndarray, rate: np.ndarray, j: int, mask: np.ndarray) -> None:
        """Emit S2, drawing the initial service phase of station j on the rows in ``mask``."""
        law = self.service[j]
        if law is None or not mask.any():
            self._emit(src, S2, rate)
            return
        self._emit(src[~mask], S2[~mask], rate[~mask])
        c = self.ph_col[j]
        for q, a in enumerate(law.alpha):
            if a:
                S3 = S2[mask].copy()
                S3[:, c] = q
                self._emit(src[mask], S3, rate[mask] * float(a))

    def _join(self, src: np.ndarray, S: np.ndarray, rate: np.ndarray, C: tuple[int, ...] | None, exo: bool) -> None:
        """A customer routed by JSQ over the non-full stations of C from the states S (None: it leaves)."""
        if C is None:
            self._emit(src, S, rate)
            return
        Cv = np.array(C)
        X = S[:, Cv]
        full = X >= self.levels[Cv]
        big = np.iinfo(np.int64).max
        Xm = np.where(full, big, X)
        low = Xm.min(axis=1)
        lost = low == big
        tied = (Xm == low[:, None]) & ~lost[:, None]
        mask = tied @ (1 << np.arange(len(C), dtype=np.int64))
        for mval in np.unique(mask[~lost]):
            rows = np.nonzero(mask == mval)[0]
            B = tuple(C[q] for q in range(len(C)) if (int(mval) >> q) & 1)
            for j, p in self._split(B):
                S2 = S[rows].copy()
                S2[:, j] += 1
                self._start_service(src[rows], S2, rate[rows] * p, j, S[rows, j] == 0)
        if lost.any():
            real = bool(np.all(self.real_cap[Cv]))
            np.add.at(self.lost[(exo, real)], src[lost], rate[lost])
            self._emit(src[lost], S[lost], rate[lost])

    def build(self) -> sp.csr_matrix:
        """The off-diagonal part of the generator (call once: it also fills the rate tables).

        Returns
        -------
        scipy.sparse.csr_matrix
            ``Q[s, t]``, the rate from state ``s`` to state ``t != s``.

        Examples
        --------
        >>> import numpy as np
        >>> from certify.io.loader import from_dict
        >>> from certify.markov.phases import markov_chain
        >>> net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 1, "capacity": 1},
        ...     "2": {"mu": 1, "capacity": 1}}, "streams": [{"choice": ["1", "2"], "rate": 1}]})
        >>> b = GeneratorBuilder(markov_chain(net), np.array([1, 1]), np.array([True, True]))
        >>> Q = b.build()
        >>> b.S.tolist(), Q.toarray()[0].tolist()  # from empty: a fair tie
        ([[0, 0], [0, 1], [1, 0], [1, 1]], [0.0, 0.5, 0.5, 0.0])
        """
        chain, S, n = self.chain, self.S, self.n
        allrows = np.arange(n)
        routes: list[list[tuple[tuple[int, ...] | None, float]]] = [[(None, float(lv))] for lv in chain.leave]
        for i, fb_set, prob in chain.feedback:
            routes[i].append((fb_set, float(prob)))
        # exponential arrivals
        for C, lam in self.exp_arrivals:
            each = np.full(n, float(lam))
            self.arrivals += each
            self._join(allrows, S, each, C, True)
        # phase-type streams
        for (law, sets), c in zip(self.ph_streams, self.stream_col):
            for a in range(law.n):
                rows = np.nonzero(S[:, c] == a)[0]
                self._phase_moves(S, rows, c, law, a)
                if law.exit[a]:
                    np.add.at(self.arrivals, rows, float(law.exit[a]))
                    for q, al in enumerate(law.alpha):
                        if not al:
                            continue
                        S2 = S[rows].copy()
                        S2[:, c] = q
                        for C, prob in sets:
                            self._join(rows, S2, np.full(len(rows), float(law.exit[a] * al * prob)), C, True)
        # services
        for i in range(self.J):
            law = self.service[i]
            if law is None:
                rows = np.nonzero(S[:, i] > 0)[0]
                mu = float(chain.mu[i])
                self.completions[i, rows] = mu
                pre = S[rows].copy()
                pre[:, i] -= 1
                for dest, share in routes[i]:
                    self._join(rows, pre, np.full(len(rows), mu * share), dest, False)
                continue
            c = self.ph_col[i]
            for a in range(law.n):
                rows = np.nonzero(S[:, c] == a)[0]
                self._phase_moves(S, rows, c, law, a)
                ex = float(law.exit[a])
                if not ex:
                    continue
                self.completions[i, rows] = ex
                pre = S[rows].copy()
                pre[:, i] -= 1
                pre[:, c] = -1
                # the next customer (if any) starts a service: its phase is drawn from alpha
                nexts: list[tuple[np.ndarray, np.ndarray]] = []
                busy = pre[:, i] > 0
                for q, al in enumerate(law.alpha):
                    if al:
                        P = pre.copy()
                        P[busy, c] = q
                        weight = np.where(busy, float(al), 0.0)
                        nexts.append((P, weight))
                idle = ~busy
                if idle.any():
                    nexts.append((pre, idle.astype(float)))
                for P, weight in nexts:
                    for dest, share in routes[i]:
                        self._join(rows, P, ex * share * weight, dest, False)
        rows = np.concatenate(self.rows) if self.rows else np.zeros(0, dtype=np.int64)
        cols = np.concatenate(self.cols) if self.cols else np.zeros(0, dtype=np.int64)
        vals = np.concatenate(self.vals) if self.vals else np.zeros(0)
        off = rows != cols
        Q = sp.csr_matrix((vals[off], (rows[off], cols[off])), shape=(n, n))
        return Q
