"""The stationary solve: :func:`stationary` builds the truncated generator and solves ``pi Q = 0``.

:func:`stationary` builds the generator of the network's Markov chain directly
from its rules (:class:`~certify.stationary.generator.GeneratorBuilder`) and
solves ``pi Q = 0`` with scipy.

* Every station has a capacity: the chain is finite and the solve is exact
  (up to floating point).
* Otherwise every station is truncated at ``truncate`` customers (a truncated
  station behaves as if that were its capacity; default
  :func:`default_truncation`); the result carries an estimate of the
  truncation error: the probability mass at the truncation boundary, the rate
  of customers lost to it, and a geometric-tail extrapolation of the missing
  probability mass and of the error of every mean queue length.

The result (:class:`~certify.stationary.result.StationaryResult`) also carries
the closed-form blocking probability of the symmetric two-queue loss system
(:mod:`certify.stationary.closed_forms`) and the tail-decay rate of the minimum
queue (:mod:`certify.stationary.qbd` for parallel JSQ, else an empirical ratio
of the truncated solve).
"""

from __future__ import annotations

from typing import TypedDict

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import splu

from ..core.errors import NetworkError, NetworkNotSupported, NotSupported, SolverError
from ..core.model import ForkJoinNetwork, Network
from ..markov.laws import NotPhaseType
from ..markov.phases import markov_chain
from .closed_forms import loss2_blocking, symmetric_loss2
from .generator import STATE_LIMIT, GeneratorBuilder, phases_of
from .qbd import min_queue_decay
from .result import StationaryResult, TruncationError

__all__ = ["stationary", "default_truncation"]


class _Tail(TypedDict, total=False):
    """The min-queue QBD's fields of a :class:`~certify.stationary.result.StationaryResult` (absent: its defaults)."""

    tail_max_difference: int | None
    tail_theorem: float | None
    tail_theorem_source: str | None
    tail_bounded: bool
    tail_sequence: tuple[tuple[int, float], ...]


#: Target number of states of a truncated chain with J <= 3 stations (the default truncation
#: keeps below it); J >= 4 gets :data:`STATE_BUDGET_HIGH`, as the fill of a sparse solve grows with J.
STATE_BUDGET = 50_000
STATE_BUDGET_HIGH = 20_000
#: Chains up to this size (and every chain with J <= 2) are solved by sparse LU, larger ones by
#: GMRES with an incomplete-LU preconditioner.
DIRECT_STATES = 5_000


def default_truncation(net: Network) -> int:
    """Default truncation level per station of :func:`stationary`.

    The largest N <= 1000 (J = 1), 100 (J = 2) or 60 such that the chain has at
    most :data:`STATE_BUDGET` (J <= 3) or :data:`STATE_BUDGET_HIGH` (J >= 4)
    states, phases included (at least 1).

    Parameters
    ----------
    net : Network
        A ``jsq-network/1`` network.

    Returns
    -------
    int
        The truncation level N (>= 1).

    Examples
    --------
    >>> from certify.io.loader import from_dict
    >>> default_truncation(from_dict({"format": "jsq-network/1", "stations": {str(i): {"mu": 1} for i in range(8)},
    ...     "streams": [{"choice": [str(i) for i in range(8)], "rate": 1}]}))
    2
    """
    fixed = 1.0
    free = 0
    for st in net.stations:
        if st.capacity is None:
            free += 1
        else:
            fixed *= st.capacity + 1
        fixed *= phases_of(st.service, st.mu)
    for s in net.streams:
        fixed *= phases_of(s.interarrival, s.rate)
    top = {1: 1000, 2: 100}.get(net.J, 60)
    if free == 0:
        return top
    budget = STATE_BUDGET if net.J <= 3 else STATE_BUDGET_HIGH
    N = int((budget / fixed) ** (1.0 / free)) - 1
    while N > 1 and (N + 1) ** free * fixed > budget:
        N -= 1
    return max(1, min(top, N))


#: A solve whose relative residual ||A x - b|| / ||b|| exceeds this is refused (rates spanning too many
#: orders of magnitude for double precision), rather than reported.
MAX_RESIDUAL = 1e-6
#: GMRES restart cycles (of 60 iterations) before the sparse LU fallback.
GMRES_CYCLES = 10


def _linear_solve(A: sp.csc_matrix, b: np.ndarray, direct: bool) -> np.ndarray:
    """Solve A x = b: sparse LU, or GMRES preconditioned by an incomplete LU (LU if it fails).

    Raises ValueError when even the LU solution has a relative residual above :data:`MAX_RESIDUAL`.
    """
    x: np.ndarray  # scipy's solvers return it untyped
    if not direct:
        from scipy.sparse.linalg import LinearOperator, gmres, spilu

        try:
            ilu = spilu(A, drop_tol=1e-3, fill_factor=3)
            x, info = gmres(A, b, M=LinearOperator(A.shape, ilu.solve), rtol=1e-12, atol=0.0, restart=60,
                            maxiter=GMRES_CYCLES)
            if info == 0 and np.linalg.norm(A @ x - b) <= 1e-10 * np.linalg.norm(b):
                return x
        except RuntimeError:
            pass
    x = splu(A, permc_spec="MMD_AT_PLUS_A").solve(b)
    scale = np.linalg.norm(b)
    res = np.linalg.norm(A @ x - b) / scale if scale > 0 else 0.0
    if not (np.isfinite(x).all() and res <= MAX_RESIDUAL):
        rates = np.abs(A.data)
        rates = rates[rates > 0]
        span = f"; its rates span {np.log10(rates.max() / rates.min()):.0f} orders of magnitude" if rates.size else ""
        raise SolverError(f"the stationary equations cannot be solved accurately in double precision (relative "
                         f"residual {res:.2g} > {MAX_RESIDUAL:g}{span})")
    return x


def _solve(Q: sp.csr_matrix, start: int, direct: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Stationary distribution on the unique closed class; returns (indices of the class, pi)."""
    ncomp, comp = connected_components(Q, directed=True, connection="strong")
    coo = Q.tocoo()
    leaving = comp[coo.row] != comp[coo.col]
    open_ = np.zeros(ncomp, dtype=bool)
    open_[comp[coo.row[leaving]]] = True
    closed = np.nonzero(~open_)[0]
    if len(closed) != 1:
        raise NotSupported(f"the chain has {len(closed)} closed classes: its stationary distribution is not unique")
    R = np.nonzero(comp == closed[0])[0]
    if len(R) == 1:
        return R, np.ones(1)
    Qr = Q[R][:, R].tocsr()
    out = np.asarray(Qr.sum(axis=1)).ravel()
    A = (Qr.T - sp.diags(out)).tocsc()  # A pi = 0
    k = int(np.nonzero(R == start)[0][0]) if start in set(R.tolist()) else 0
    keep = np.r_[0:k, k + 1:len(R)]
    Ak = A[keep][:, keep].tocsc()
    rhs = -np.asarray(A[keep][:, [k]].todense()).ravel()
    x = _linear_solve(Ak, rhs, direct=direct or len(R) <= DIRECT_STATES)
    pi = np.empty(len(R))
    pi[k] = 1.0
    pi[keep] = x
    pi = np.maximum(pi, 0.0)
    return R, pi / pi.sum()


def stationary(net: Network, truncate: int | None = None) -> StationaryResult:
    """Stationary distribution of ``net`` and its performance numbers, by a sparse CTMC solve.

    Parameters
    ----------
    net : Network
        A ``jsq-network/1`` network with exponential or phase-type (Erlang,
        hyperexponential, Coxian) service and interarrival times.
    truncate : int, optional
        Largest queue length kept at every station without a capacity (and at
        any station whose capacity is larger).  Default: every station has a
        capacity -> none (the solve is exact); otherwise
        :func:`default_truncation`.

    Returns
    -------
    StationaryResult
        The distribution, the numbers read from it and, for a truncated solve,
        its estimated error.

    Raises
    ------
    NetworkError
        For fork-join files, distributions without a phase-type form, chains
        too large to solve, or a chain whose stationary distribution is not unique.

    Examples
    --------
    The symmetric two-queue loss system, K = 2, lam = mu = 1:

    >>> from certify.io.loader import from_dict
    >>> net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 1, "capacity": 2},
    ...     "2": {"mu": 1, "capacity": 2}}, "streams": [{"choice": ["1", "2"], "rate": 1}]})
    >>> res = stationary(net)
    >>> res.exact, round(res.blocking_probability, 12), round(res.blocking_closed_form, 12)
    (True, 0.047619047619, 0.047619047619)
    """
    if isinstance(net, ForkJoinNetwork):
        raise NetworkNotSupported(net.source, "format", "stationary analysis of fork-join-redundancy/1 networks is not supported")
    if truncate is not None and (isinstance(truncate, bool) or not isinstance(truncate, int) or truncate < 1):
        raise NetworkError(net.source, "truncate", f"{truncate} must be an integer >= 1")
    if truncate is not None and truncate > STATE_LIMIT:
        raise NetworkError(net.source, "truncate", f"{truncate} must be <= {STATE_LIMIT} (the largest chain built "
                           f"has {STATE_LIMIT} states)")
    try:
        chain = markov_chain(net)
    except NotPhaseType as exc:
        raise NetworkNotSupported(net.source, None, f"no stationary analysis: {exc}") from None
    N = truncate if truncate is not None else (None if all(s.capacity is not None for s in net.stations) else default_truncation(net))
    levels, trunc = [], []
    for st in net.stations:
        if st.capacity is not None and (N is None or st.capacity <= N):
            levels.append(st.capacity)
            trunc.append(False)
        else:
            assert N is not None
            levels.append(N)
            trunc.append(True)
    lv = np.array(levels, dtype=np.int64)
    real_cap = ~np.array(trunc)
    if truncate is None and any(trunc):
        size = float(np.prod(lv + 1.0)) * float(np.prod([phases_of(st.service, st.mu) for st in net.stations]))
        size *= float(np.prod([phases_of(s.interarrival, s.rate) for s in net.streams]))
        budget = STATE_BUDGET if net.J <= 3 else STATE_BUDGET_HIGH
        if size > 2 * budget:
            raise NetworkError(net.source, "stations", f"{net.J} stations: even {N} customer(s) per station give about "
                               f"{size:.3g} states, too many for the default (about {budget}); "
                               "give an explicit truncation (--truncate N) to force it")
    try:
        b = GeneratorBuilder(chain, lv, real_cap)
    except OverflowError as exc:
        raise NetworkError(net.source, "truncate" if truncate is not None else "stations",
                           f"the chain would have {exc.args[0]} states (limit {STATE_LIMIT}); pass a smaller truncation") from None
    Q = b.build()
    empty = -b.offset[None, :]  # no customer anywhere, phase-type stations idle (-1), stream phases 0
    start = int(b.pos[b.code(empty)][0])
    try:
        R, pi = _solve(Q, start, direct=net.J <= 2)
    except NotSupported as exc:  # several closed classes
        raise NetworkNotSupported(net.source, None, str(exc)) from None
    except ValueError as exc:  # a SolverError (an inaccurate solve), or scipy refusing the matrix
        raise NetworkError(net.source, None, str(exc)) from None
    S = b.S[R]
    J = net.J
    X = S[:, :J]
    mean = tuple(float(pi @ X[:, i]) for i in range(J))
    thr = tuple(float(pi @ b.completions[i, R]) for i in range(J))
    arr = float(pi @ b.arrivals[R])
    lost_exo = float(pi @ b.lost[(True, True)][R])
    lost_fb = float(pi @ b.lost[(False, True)][R])
    lost_trunc = float(pi @ (b.lost[(True, False)][R] + b.lost[(False, False)][R]))
    has_cap = net.has_capacities
    blocking = lost_exo / arr if has_cap and arr > 0 else None
    closed = None
    sym = symmetric_loss2(net)
    if sym is not None and not any(trunc):
        closed = float(loss2_blocking(*sym))
    mins = X.min(axis=1)
    pmin = np.bincount(mins, weights=pi, minlength=int(lv.min()) + 1)
    notes: list[str] = []
    # truncation error
    exact = not any(trunc)
    if exact:
        terr = TruncationError(0.0, 0.0, 0.0, tuple(0.0 for _ in range(J)))
    else:
        at_edge = np.zeros(len(pi), dtype=bool)
        tails, errs = [], []
        for i in range(J):
            if not trunc[i]:
                errs.append(0.0)
                continue
            at_edge |= X[:, i] == lv[i]
            marg = np.bincount(X[:, i], weights=pi, minlength=int(lv[i]) + 1)
            pN, pN1 = marg[-1], marg[-2]
            if pN <= 0:
                tails.append(0.0)
                errs.append(0.0)
                continue
            r = pN / pN1 if pN1 > 0 else np.inf
            if r >= 1:
                tails.append(np.inf)
                errs.append(np.inf)
                continue
            t = pN * r / (1 - r)
            tails.append(t)
            errs.append(max(0.0, t * (lv[i] + 1 / (1 - r) - mean[i])))
        terr = TruncationError(float(pi[at_edge].sum()), lost_trunc, float(sum(tails)), tuple(float(e) for e in errs))
        if terr.boundary_mass > 1e-3:
            notes.append(f"probability {terr.boundary_mass:.3g} at the truncation boundary: raise --truncate "
                         "(or the network may be unstable)")
    # tail decay of the minimum queue
    rate = err = how = None
    dec = min_queue_decay(net)
    tail: _Tail = {}
    if dec is not None:
        rate, err, how = dec.rate, dec.error, dec.method
        if rate is None:
            notes.append(how)
        tail = {"tail_max_difference": dec.max_difference, "tail_theorem": dec.theorem,
                "tail_theorem_source": dec.theorem_source, "tail_bounded": dec.bounded,
                "tail_sequence": tuple((D, float(e)) for D, e in sorted(dec.raw.items()) if e is not None)}
    elif not exact:
        rate, how = _empirical_ratio(pmin)
    return StationaryResult(
        network=net.name,
        station_ids=net.station_ids,
        exact=exact,
        levels=tuple(int(v) for v in lv),
        truncated=tuple(trunc),
        states=S,
        pi=pi,
        mean_queue=mean,
        throughput=thr,
        arrival_rate=arr,
        loss_rate=lost_exo + lost_fb,
        exogenous_loss_rate=lost_exo,
        feedback_loss_rate=lost_fb,
        blocking_probability=blocking,
        blocking_closed_form=closed,
        min_queue_distribution=tuple(float(p) for p in pmin),
        min_queue_tail_decay_rate=rate,
        tail_error=err,
        tail_method=how,
        truncation_error=terr,
        notes=tuple(notes),
        **tail,
    )


def _empirical_ratio(pmin: np.ndarray) -> tuple[float | None, str | None]:
    """(P(min = n2) / P(min = n1))^(1/(n2-n1)) over the middle third of the truncated range."""
    top = len(pmin) - 1
    if top < 6:
        return None, None
    n1, n2 = top // 3, (2 * top) // 3
    if pmin[n1] <= 1e-280 or pmin[n2] <= 0:
        return None, None
    r = float((pmin[n2] / pmin[n1]) ** (1.0 / (n2 - n1)))
    return r, f"empirical ratio P(min = n+1) / P(min = n) of the truncated solve, n in [{n1}, {n2}]"
