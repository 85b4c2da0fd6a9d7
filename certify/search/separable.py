"""The LP search for a separable Foster certificate (a candidate: :mod:`certify.exact.separable` decides).

The rows are the exact linear forms of :func:`certify.exact.separable.cluster_forms`
in floating point; the LP maximises the least budget sum delta.  The candidate's
coefficients are rounded to a dyadic grid and its budgets recomputed *exactly*
from the rounded coefficients (a passive budget is minus the largest coefficient
over the cluster's regions; an active one is lowered until every generator's
slope is <= 0), so rounding never breaks conditions 1 and 2; only delta can suffer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from ..core.clock import remaining
from ..exact.clusters import form_evaluator, phased_streams
from ..exact.separable import Cluster, RegionForm, Structure, cluster_forms, clusters, station_phases, variables
from ..exact.separable_growth import growth_forms, growth_variables
from ..markov.chain import Chain
from .linprog import solve_lp

__all__ = ["SeparableCandidate", "GrowthCandidate", "default_structure", "raised_structure", "shares_choice_sets",
           "search_separable", "search_separable_growth"]

GRID = 2**20
P_BOUND, T_BOUND, C_BOUND, D_BOUND = 1.0, 1e3, 1e4, 1e3
# The margin of the strict diagonal dominance of P (V bounded below).
ETA = 1e-3
# HiGHS's method for a Foster LP (:func:`_lp_method`), measured on this machine: fewer than WIDE_LP_COLUMNS columns,
# the dual simplex (an LP of 10,227 x 2,197: 1.9 s against 3.4 s by the interior-point method; its vertex keeps the
# small LPs' certificates as before); a shape with a level per station (raised_structure), the interior-point method
# without presolve (the Coxian-headed depth-3 cascade's 16,988 x 3,952: 31.5 s, 49.3 s with presolve, more than
# 150 s by the dual simplex); otherwise the interior-point method from IPM_COLUMNS columns, or from WIDE_LP columns
# per row (a depth-3 cascade with an Erlang-2 sink, merged groups at K = 2: 31,435 x 5,169, 8.5 s against 39.3 s;
# with a Coxian sink 41,591 x 5,169, 12.0 s against 61.7 s).
WIDE_LP = 0.25
WIDE_LP_COLUMNS = 2000
IPM_COLUMNS = 4000
# Both searches add each inequality once: many local states give the same row (regions or phases that differ only
# where no coefficient does). Eight gadgets with Erlang-2 service at every station and the sink: 403,978 rows, 4,148
# of them distinct.


@dataclass(frozen=True)
class SeparableCandidate:
    """A rounded separable certificate, or why none was found.

    Attributes
    ----------
    structure : Structure
        The function's shape.
    theta : list of Fraction or None
        The rounded coefficients (in :func:`~certify.exact.separable.variables` order).
    budgets : dict or None
        Per cluster (its stations), the exact budgets by station index.
    delta : Fraction or None
        The least budget sum after rounding (a certificate needs > 0).
    status : str
        The LP's outcome.
    rows, columns : int
        The LP's size.
    lp_delta : float or None
        The LP's optimal delta (before rounding).

    Examples
    --------
    >>> SeparableCandidate(Structure((), (), 1, ((0, 0),)), None, None, None, "infeasible").status
    'infeasible'
    """

    structure: Structure
    theta: list[Fraction] | None
    budgets: dict[tuple[int, ...], dict[int, Fraction]] | None
    delta: Fraction | None
    status: str
    rows: int = 0
    columns: int = 0
    lp_delta: float | None = None


def shares_choice_sets(chain: Chain) -> bool:
    """Whether the separable kinds apply at all: exponential streams and two or more groups of two or more stations.

    (A phase-type station alone is a group too, :func:`default_structure`, but only to let its table see its phase.)

    Parameters
    ----------
    chain : Chain
        The Markovian chain.

    Returns
    -------
    bool
        True when some separable shape may be tried.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> shares_choice_sets(Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1))))
    False
    """
    return not phased_streams(chain) and sum(len(F) > 1 for F in default_structure(chain, 1).groups) >= 2


def _lp_method(st: Structure, rows: int, cols: int) -> str | None:
    """HiGHS's method for a Foster LP of this shape and size (the rule above :data:`WIDE_LP`); None: the dual simplex."""
    if cols < WIDE_LP_COLUMNS:
        return None
    if not isinstance(st.K, int):
        return "ipm-no-presolve"
    return "ipm" if cols >= min(IPM_COLUMNS, WIDE_LP * rows) else None


def default_structure(chain: Chain, K: int, merged: bool = False) -> Structure:
    """The default shape: groups are the stations linked by shared choice sets; P on every pair.

    Two stations are linked when a choice set (of a stream or a feedback route) of
    two or more stations holds both; a group is a linked component of two or
    more stations, and a phase-type station in no such component is a group of
    its own (its table sees its phase: without it the sink of a cascade with
    Erlang-2 service has no certificate, with it both sides are proved as for
    exponential service).  A group's multipliers are its stations and every
    station they feed back into.  P may use every pair (its cross terms carry the
    workload a group hands on downstream).

    Parameters
    ----------
    chain : Chain
        The exponential chain.
    K : int
        The clip level.
    merged : bool
        Also link a station to the stations of every feedback set of two or more stations it feeds (a cascade
        {1,2} -> JSQ{3,4} becomes one group: the sink downstream sees both stages' state in one table).

    Returns
    -------
    Structure
        The shape.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("a", "b", "s"), (F(1), F(3, 2), F(2)), (((0, 1), F(8, 5)), ((2,), F(1, 2))), ((0, (2,), F(1)),),
    ...            (F(0), F(1), F(1)))
    >>> st = default_structure(ch, 4)
    >>> st.groups, st.multipliers, len(st.pairs)
    (((0, 1),), ((0, 1, 2),), 6)
    """
    J = chain.J
    parent = list(range(J))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    pairs = {(a, b) for a in range(J) for b in range(a, J)}
    for C in chain.routing_sets:
        for a in C:
            parent[find(a)] = find(C[0])
    if merged:
        for i, C, _ in chain.feedback:
            if len(C) > 1:
                parent[find(i)] = find(C[0])
    comps: dict[int, list[int]] = {}
    for a in range(J):
        comps.setdefault(find(a), []).append(a)
    groups = sorted(tuple(sorted(c)) for c in comps.values() if len(c) > 1)
    phases = station_phases(chain)
    grouped = {a for F in groups for a in F}
    groups += [(a,) for a in range(J) if phases and phases[a] and a not in grouped]  # a table over its phase
    mult = tuple(tuple(sorted(set(F) | _fed(chain, F))) for F in groups)
    return Structure(tuple(groups), mult, K, tuple(sorted(pairs)), phases)


def _fed(chain: Chain, F: tuple[int, ...]) -> set[int]:
    """The stations the stations of F feed back into."""
    return {b for i, C, _ in chain.feedback if i in F for b in C}


def raised_structure(chain: Chain, K: int) -> Structure:
    """The merged groups with a finer table near phase-type service and only downstream multipliers.

    The groups of ``default_structure(chain, K, merged=True)``; the clip level K + 1 on every fast station that
    shares a routing set with a phase-type station (that station included), K on the others; each group's
    multipliers are the stations it feeds outside itself (the sink of a cascade), which keeps the LP small.
    A depth-3 cascade with Coxian service (scv 2) at its head needs the finer table there: at 0.97 of its
    boundary the merged groups at K = 2 miss by 1.7e-5 and this shape proves it (``docs/benchmarks.md``).

    Parameters
    ----------
    chain : Chain
        The chain (with its phase-type stations).
    K : int
        The clip level away from the phase-type stations.

    Returns
    -------
    Structure
        The shape, its K one level per station of each group.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("a", "b", "c", "d", "s"), (F(1),) * 5, (((0, 1), F(1)),), ((0, (2, 3), F(1)), (2, (4,), F(1))),
    ...            (F(0), F(1), F(0), F(1), F(1)))
    >>> st = raised_structure(ch, 2)
    >>> st.groups, st.K, st.multipliers
    (((0, 1, 2, 3),), ((2, 2, 2, 2),), ((4,),))
    """
    base = default_structure(chain, K, True)
    phased = {a for a in range(chain.J) if base.phase_count(a)}
    near = phased | {b for C in chain.routing_sets if phased & set(C) for b in C}
    levels = tuple(tuple(K + 1 if a in near else K for a in F) for F in base.groups)
    # a phase-type station alone in its group keeps itself as a multiplier: its table is there for its own phase
    own = [set(F) if len(F) == 1 else set() for F in base.groups]
    mult = tuple(tuple(sorted(_fed(chain, F) - set(F) | mine)) for F, mine in zip(base.groups, own))
    return Structure(base.groups, mult, levels, base.pairs, base.phases)


def _grid(x: float) -> Fraction:
    return Fraction(round(x * GRID), GRID)


def _exact_budgets(
    chain: Chain, cl: Sequence[Cluster], forms: Sequence[list[RegionForm]], theta: Sequence[Fraction],
    start: dict[tuple[int, ...], dict[int, float]],
) -> dict[tuple[int, ...], dict[int, Fraction]]:
    out: dict[tuple[int, ...], dict[int, Fraction]] = {}
    value = form_evaluator(theta)
    for c, fs in zip(cl, forms):
        values = [{i: value(f) for i, f in form.coefs.items()} for form in fs]
        b: dict[int, Fraction] = {}
        passive = sorted({i for v in values for i in v if i not in c.stations})
        for i in passive:
            b[i] = -max(v.get(i, Fraction(0)) for v in values)
        active = {a: _grid(start[c.stations].get(a, 0.0)) for a in c.stations}
        t = Fraction(0)
        for form, v in zip(fs, values):
            for r in form.generators:
                s = sum((v.get(a, Fraction(0)) + active[a] for a, ra in zip(c.stations, r) if ra), Fraction(0))
                t = max(t, s / sum(r))
        for a in c.stations:
            b[a] = active[a] - t
        out[c.stations] = {i: x for i, x in b.items() if x}
    return out


def search_separable(chain: Chain, st: Structure, solver: str | None = None, deadline: float | None = None) -> SeparableCandidate:
    """Search a separable Foster certificate of the given shape by LP, rounded exactly.

    Parameters
    ----------
    chain : Chain
        The exponential chain.
    st : Structure
        The function's shape.
    solver : str, optional
        An LP solver name (default HiGHS).
    deadline : float, optional
        A ``time.perf_counter()`` value (region enumeration polls it; the LP gets the time left).

    Returns
    -------
    SeparableCandidate
        The rounded candidate (``delta > 0`` when the exact budgets cover every station).

    Raises
    ------
    TimeLimitReached
        When the deadline passes during the region enumeration.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    >>> cand = search_separable(ch, Structure((), (), 1, ((0, 0),)))
    >>> cand.status, cand.delta > 0
    ('optimal', True)
    """
    names = variables(chain, st)
    n = len(names)
    cl = clusters(chain, st)
    forms = [list(cluster_forms(chain, st, c, deadline)) for c in cl]
    # Budget columns: each cluster's own stations and every station with a coefficient in it.
    bcol: dict[tuple[int, int], int] = {}
    col = n
    for k, (c, fs) in enumerate(zip(cl, forms)):
        for i in sorted(set(c.stations) | {i for f in fs for i in f.coefs}):
            bcol[(k, i)] = col
            col += 1
    off = [(p, a, b) for p, (a, b) in enumerate(st.pairs) if a != b]
    ncol = {p: col + m for m, (p, _, _) in enumerate(off)}
    col += len(off)
    d_col = col
    col += 1
    ri: list[int] = []
    ci: list[int] = []
    vals: list[float] = []
    rhs: list[float] = []
    seen: set[tuple[tuple[tuple[int, float], ...], float]] = set()

    def row(entries: dict[int, float], b: float = 0.0) -> None:
        key = (tuple(sorted((j, x) for j, x in entries.items() if x)), b)
        if key in seen:  # the same inequality again: added once
            return
        seen.add(key)
        r = len(rhs)
        for j, x in key[0]:
            ri.append(r)
            ci.append(j)
            vals.append(x)
        rhs.append(b)

    for k, (c, fs) in enumerate(zip(cl, forms)):
        passive = sorted({i for (kk, i) in bcol if kk == k and i not in c.stations})
        for form in fs:
            for r in form.generators:
                e: dict[int, float] = {}
                for a, ra in zip(c.stations, r):
                    if not ra:
                        continue
                    e[bcol[(k, a)]] = e.get(bcol[(k, a)], 0.0) + 1.0
                    for v, x in form.coefs.get(a, {}).items():
                        e[v] = e.get(v, 0.0) + float(x)
                row(e)
            for i in passive:
                e = {bcol[(k, i)]: 1.0}
                for v, x in form.coefs.get(i, {}).items():
                    e[v] = e.get(v, 0.0) + float(x)
                row(e)
    for i in range(chain.J):
        e = {d_col: 1.0}
        for (_, j), cc in bcol.items():
            if j == i:
                e[cc] = -1.0
        row(e)
    diag = {a: p for p, (a, b) in enumerate(st.pairs) if a == b}
    for a in range(chain.J):
        e = {diag[a]: -1.0}
        for p, u, w in off:
            if a in (u, w):
                e[ncol[p]] = 1.0
        row(e, -ETA)
    for p, _, _ in off:
        row({p: -1.0, ncol[p]: -1.0})
    lo = np.full(col, -C_BOUND)
    hi = np.full(col, C_BOUND)
    for p, (a, b) in enumerate(st.pairs):
        lo[p], hi[p] = (0.0 if a == b else -P_BOUND), P_BOUND
    lo[len(st.pairs):n], hi[len(st.pairs):n] = -T_BOUND, T_BOUND
    for p in ncol.values():
        lo[p], hi[p] = 0.0, P_BOUND
    lo[d_col], hi[d_col] = -D_BOUND, D_BOUND
    cost = np.zeros(col)
    cost[d_col] = -1.0
    A = sp.csr_matrix((vals, (ri, ci)), shape=(len(rhs), col))
    method = _lp_method(st, len(rhs), col)
    res = solve_lp(cost, A, np.array(rhs), bounds=(lo, hi), solver=solver, time_limit=remaining(deadline), method=method)
    if not res.ok or res.x is None:
        return SeparableCandidate(st, None, None, None, res.outcome, len(rhs), col)
    sol = res.x
    theta = [_grid(float(v)) for v in sol[:n]]
    start: dict[tuple[int, ...], dict[int, float]] = {}
    for (k, i), cc in bcol.items():
        start.setdefault(cl[k].stations, {})[i] = float(sol[cc])
    budgets = _exact_budgets(chain, cl, forms, theta, start)
    total = [Fraction(0)] * chain.J
    for given in budgets.values():
        for i, amount in given.items():
            total[i] += amount
    return SeparableCandidate(st, theta, budgets, min(total), res.status, len(rhs), col, float(sol[d_col]))


@dataclass(frozen=True)
class GrowthCandidate:
    """A rounded separable growth function, or why none was found.

    Attributes
    ----------
    structure : Structure
        The shape (:func:`~certify.exact.separable_growth.growth_structure`).
    theta : list of Fraction or None
        The rounded coefficients (w, then the tables).
    delta : Fraction or None
        The sum over clusters of each one's least drift, exactly, after rounding (a certificate needs > 0).
    status : str
        The LP's outcome.
    lp_delta : float or None
        The LP's optimal delta.

    Examples
    --------
    >>> from certify.exact.separable_growth import growth_structure
    >>> GrowthCandidate(growth_structure((), 1), None, None, "infeasible").status
    'infeasible'
    """

    structure: Structure
    theta: list[Fraction] | None
    delta: Fraction | None
    status: str
    lp_delta: float | None = None


def search_separable_growth(chain: Chain, st: Structure, solver: str | None = None,
                            deadline: float | None = None) -> GrowthCandidate:
    """Search f = w'x + sum_g T_g(min(x_{F_g}, K)) with Af >= delta everywhere, by LP, rounded exactly.

    Variables: w in [0, 1], the tables, one m_U per cluster; rows m_U <= phi_U(R) on every
    region R of U, and delta <= sum_U m_U; delta is maximised.

    Parameters
    ----------
    chain : Chain
        The exponential chain.
    st : Structure
        The shape (:func:`~certify.exact.separable_growth.growth_structure`).
    solver : str, optional
        An LP solver name (default HiGHS).
    deadline : float, optional
        A ``time.perf_counter()`` value.

    Returns
    -------
    GrowthCandidate
        The rounded candidate, its exact delta.

    Raises
    ------
    TimeLimitReached
        When the deadline passes during the region enumeration.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.exact.separable_growth import growth_structure
    >>> ch = Chain(("1",), (F(1),), (((0,), F(2)),), (), (F(1),))
    >>> cand = search_separable_growth(ch, growth_structure((), 1))
    >>> cand.status, cand.delta
    ('optimal', Fraction(1, 1))
    """
    n = len(growth_variables(chain, st))
    cl = clusters(chain, st)
    forms = [list(growth_forms(chain, st, c, deadline)) for c in cl]
    m0 = n
    d_col = n + len(cl)
    ri: list[int] = []
    ci: list[int] = []
    vals: list[float] = []
    rhs: list[float] = []
    for k, fs in enumerate(forms):
        for form in dict.fromkeys(tuple(sorted(gf.form.items())) for gf in fs):  # each inequality once
            r = len(rhs)
            ri.append(r)
            ci.append(m0 + k)
            vals.append(1.0)
            for v, x in form:
                ri.append(r)
                ci.append(v)
                vals.append(-float(x))
            rhs.append(0.0)
    r = len(rhs)
    ri.append(r)
    ci.append(d_col)
    vals.append(1.0)
    for k in range(len(cl)):
        ri.append(r)
        ci.append(m0 + k)
        vals.append(-1.0)
    rhs.append(0.0)
    ncols = d_col + 1
    lo = np.full(ncols, -T_BOUND)
    hi = np.full(ncols, T_BOUND)
    lo[: chain.J], hi[: chain.J] = 0.0, 1.0
    lo[m0:d_col], hi[m0:d_col] = -C_BOUND, C_BOUND
    lo[d_col], hi[d_col] = -D_BOUND, D_BOUND
    cost = np.zeros(ncols)
    cost[d_col] = -1.0
    A = sp.csr_matrix((vals, (ri, ci)), shape=(len(rhs), ncols))
    res = solve_lp(cost, A, np.array(rhs), bounds=(lo, hi), solver=solver, time_limit=remaining(deadline))
    if not res.ok or res.x is None:
        return GrowthCandidate(st, None, None, res.outcome)
    theta = [_grid(float(v)) for v in res.x[:n]]
    theta[: chain.J] = [max(Fraction(0), w) for w in theta[: chain.J]]
    delta = Fraction(0)
    value = form_evaluator(theta)
    for fs in forms:
        delta += min((value(gf.form) for gf in fs), default=Fraction(0))
    return GrowthCandidate(st, theta, delta, res.status, float(res.x[d_col]))
