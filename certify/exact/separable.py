"""Separable Foster certificates: the drift checked cluster by cluster, never over the product of the groups' regions.

The theorem is in ``docs/math/separable.md``.  The function is

    V(x) = x'Px + sum_g sum_{l in L_g} x_l T_{g,l}(min(x_{F_g}, K)),

with disjoint *groups* F_g of fast stations, each with its own table (one clip level K for every
fast station, or a level K_a per fast station a: the cell is then (min(x_a, K_a))_{a in F_g}).  The
chain's jumps come in *families* (the arrivals of one choice set, the services
of one station); a family's jumps depend on its *active* stations alone (its
choice set, or its station and feedback sets), and it changes the table cells
of the groups it moves.  Each family is put in a *cluster*: the union of the
blocks (the groups, and every other station alone) that its active stations and
the groups it moves meet.  On a region of the cluster's own stations (the JSQ
order of its choice sets, the empty stations, the table levels) the linear part
of the cluster's drift is

    sum_{a in U} alpha_a x_a + sum_{i not in U} beta_i x_i,

with alpha and beta constant on the region (the decomposition is :mod:`certify.exact.clusters`).  Given budgets c_{U,i}, the check is

1. ``beta_i + c_{U,i} <= 0`` for every passive station i (not in U);
2. ``(alpha + c_U) . r <= 0`` for every generator r of the region's recession cone;
3. ``delta = min_i sum_U c_{U,i} > 0``;
4. P strictly diagonally dominant where negative (x'Px >= eps ``|x|^2``, so V is bounded below).

Then AV(x) <= B - delta ``|x|_1`` at every state, B derived exactly (the vertex bound
of each cluster's regions and the bounded constant parts), so AV <= -delta
wherever ``|x|_1 >= N = floor(B / delta) + 2`` and, with the drain order, the
chain is positive recurrent (Foster).  Streams exponential; phase-type service is expanded (the
phases of a cluster's stations are part of its local states, and of the cells of a group's table).

:func:`cluster_forms` writes the linear parts as exact linear forms in the
coefficients (the search stacks them into its LP); :func:`check_separable`
evaluates them at a certificate's coefficients.  Pure Python: no numpy, no solver.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import floor

from ..core.numbers import fraction_memo, over_common_denominator
from ..markov.chain import Chain, drain_order
from ..markov.cones import cone_generators, vertex_bound
from ..markov.regions import Region
from ..templates.options import MAX_CLIP_LEVEL, MAX_REFINEMENT, refinement_factor
from .clusters import (
    Cluster,
    Family,
    GroupCells,
    Structure,
    cluster_levels,
    cluster_name,
    clusters,
    coefficient_vector,
    families,
    form_evaluator,
    local_states,
    phased_streams,
    station_phases,
    sub_chain,
)
from .facts import Check, SeparableFacts

__all__ = [
    "MAX_SEPARABLE_REGIONS",
    "MAX_SEPARABLE_BOUND",
    "region_bound",
    "RegionForm",
    "structure_problem",
    "variables",
    "cluster_forms",
    "check_separable",
    # the decomposition, from certify.exact.clusters
    "Structure",
    "Family",
    "Cluster",
    "families",
    "clusters",
    "cluster_name",
    "sub_chain",
    "station_phases",
]

#: The most local states (all clusters together) a separable certificate may make the checker list: the checks
#: stop and fail past it.
MAX_SEPARABLE_REGIONS = 2_000_000
#: The most regions the clusters' shape may allow before anything is listed (:func:`region_bound`, an upper
#: bound that can be far above the count: a 6-station merged group at K = 2 bounds 7,077,890 and has about 10,000;
#: with an Erlang-2 sink in its cluster, 113,246,208 against 23,328).  Past it a shape is refused at once; below it
#: the listing itself stops at :data:`MAX_SEPARABLE_REGIONS`.
MAX_SEPARABLE_BOUND = 1_000_000_000

# A linear form in the coefficients: variable index -> exact factor.
Form = dict[int, Fraction]


@dataclass(frozen=True)
class RegionForm:
    """The linear part of a cluster's drift on one of its regions, as linear forms in the coefficients.

    Attributes
    ----------
    region : Region
        The region of the cluster's sub-chain (local station indices).
    generators : list of tuple of int
        Its recession cone's generators (local 0/1 vectors).
    coefs : dict of int to Form
        For each station (global index) with a possibly nonzero coefficient, its linear form.
    phases : dict of int to int
        The phases of the cluster's phase-type stations on this local state (empty without phases).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    >>> st = Structure((), (), 1, ((0, 0),))
    >>> busy = list(cluster_forms(ch, st, clusters(ch, st)[0]))[1]
    >>> busy.region.describe(ch.ids), busy.generators, busy.coefs
    ('x1 >= 1', [(1,)], {0: {0: Fraction(-2, 1)}})
    """

    region: Region
    generators: list[tuple[int, ...]]
    coefs: dict[int, Form]
    phases: dict[int, int] | None = None


def variables(chain: Chain, st: Structure) -> list[str]:
    """The coefficient names: ``P[a,b]`` for the pairs, then ``T[g|l|cell]`` per group, multiplier and cell.

    Parameters
    ----------
    chain : Chain
        The chain.
    st : Structure
        The function's shape.

    Returns
    -------
    list of str
        In the order of the coefficient vector.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("a", "b"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> variables(ch, Structure(((0, 1),), ((0,),), 1, ((0, 0), (1, 1))))
    ['P[a,a]', 'P[b,b]', 'T[1|a|0,0]', 'T[1|a|0,1]', 'T[1|a|1,0]', 'T[1|a|1,1]']
    """
    ids = chain.ids
    names = [f"P[{ids[a]},{ids[b]}]" for a, b in st.pairs]
    for g, L in enumerate(st.multipliers):
        for l in L:
            names += [f"T[{g + 1}|{ids[l]}|{','.join(map(str, c))}]" for c in st.cells(g)]
    return names


def region_bound(chain: Chain, st: Structure) -> int:
    """An upper bound on the clusters' regions together, computed without listing any (the clip levels, the
    empty stations, and every argmin pattern of each routing set, times the phases).

    Parameters
    ----------
    chain : Chain
        The chain.
    st : Structure
        The shape (its groups disjoint and known: :func:`structure_problem` checks them first).

    Returns
    -------
    int
        The bound.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("a", "b"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> region_bound(ch, Structure(((0, 1),), ((0, 1),), 2, ((0, 0), (1, 1))))
    192
    """
    total = 0
    fams = families(chain)
    for c in clusters(chain, st):
        levels = cluster_levels(st, c)
        sub, _ = sub_chain(chain, c, fams)
        patterns = 1
        for C in sub.routing_sets:
            patterns *= 2 ** len(C) - 1
        for _, C in sub.shifted_sets:
            patterns *= 2 ** len(C) - 1
        for a in c.stations:
            patterns *= max(1, st.phase_count(a))
        total += refinement_factor(levels) * 2 ** len(c.stations) * patterns
    return total


def _is_level(k: object) -> bool:
    return isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= MAX_CLIP_LEVEL


def _levels_problem(st: Structure, ids: Sequence[str]) -> str | None:
    """Why the clip levels are not one K or one level per fast station (each in 1..MAX_CLIP_LEVEL), or None."""
    if isinstance(st.K, int) and not isinstance(st.K, bool):
        return None if _is_level(st.K) else f"K: {st.K!r} must be an integer in 1..{MAX_CLIP_LEVEL}"
    if not isinstance(st.K, tuple) or len(st.K) != len(st.groups):
        given: object = [list(k) if isinstance(k, tuple) else k for k in st.K] if isinstance(st.K, tuple) else st.K
        return (f"K: {given!r} must be an integer in 1..{MAX_CLIP_LEVEL}, or one list of levels per group "
                f"({len(st.groups)} groups)")
    for g, (F, levels) in enumerate(zip(st.groups, st.K)):
        if not isinstance(levels, tuple) or len(levels) != len(F) or not all(_is_level(k) for k in levels):
            shown: object = list(levels) if isinstance(levels, tuple) else levels
            return (f"K[{g}]: {shown!r} must list one integer in 1..{MAX_CLIP_LEVEL} per station of group {g} "
                    f"({', '.join(ids[a] for a in F)}), in its order")
    return None


def structure_problem(chain: Chain, st: Structure) -> str | None:
    """Why the structure cannot be checked (sized before anything is enumerated), or None.

    Parameters
    ----------
    chain : Chain
        The chain.
    st : Structure
        The function's shape.

    Returns
    -------
    str or None
        ``field: rule`` for the first problem.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("a", "b"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> structure_problem(ch, Structure(((0, 1), (1,)), ((0,), (1,)), 2, ((0, 0), (1, 1))))
    'groups: station b is in two groups (they must be disjoint)'
    """
    ids, J = chain.ids, chain.J
    if phased_streams(chain):
        return "phase_expansion: a separable certificate is for exponential interarrival times (phase-type service only)"
    if st.phases != station_phases(chain):
        return f"phase_expansion: the structure's phase counts {st.phases} are not the chain's {station_phases(chain)}"
    problem = _levels_problem(st, ids)
    if problem:
        return problem
    if len(st.multipliers) != len(st.groups):
        return "multipliers: one list per group"
    seen: set[int] = set()
    for F in st.groups:
        if not F:
            return "groups: a group must name at least one station"
        for a in F:
            if a in seen:
                return f"groups: station {ids[a]} is in two groups (they must be disjoint)"
            seen.add(a)
    if any(not (0 <= a <= b < J) for a, b in st.pairs) or len(set(st.pairs)) != len(st.pairs):
        return "coefficients: a P entry names an unknown or repeated pair"
    cells = sum(st.cell_count(g) * max(1, len(L)) for g, L in enumerate(st.multipliers))
    if cells > MAX_REFINEMENT:
        return f"groups: the tables have {cells} values (at most {MAX_REFINEMENT})"
    total = region_bound(chain, st)
    if total > MAX_SEPARABLE_BOUND:
        return f"groups: the clusters could have {total} regions together (at most {MAX_SEPARABLE_BOUND})"
    return None


def _neighbours(st: Structure, J: int) -> list[list[int]]:
    out: list[list[int]] = [[] for _ in range(J)]
    for a, b in st.pairs:
        out[a].append(b)
        if a != b:
            out[b].append(a)
    return out


#: How many coefficients (over all forms) :func:`cluster_forms` keeps, of the clusters it listed last in full: a
#: search and the exact check of its answer list the same clusters (the merged group of a depth-3 cascade with
#: Erlang-2 service at its head: 10,370 forms, 870,478 coefficients, 130 MB, 12 s of exact arithmetic each time).
FORM_CACHE = 2_000_000

_listed: OrderedDict[tuple[Chain, Structure, Cluster], tuple[tuple[RegionForm, ...], int]] = OrderedDict()


def _copy(form: RegionForm) -> RegionForm:
    """A form of its own (its lists and dicts are the caller's to keep; the cached ones are never handed out)."""
    return RegionForm(form.region, list(form.generators), {i: dict(f) for i, f in form.coefs.items()},
                      dict(form.phases) if form.phases else None)


def cluster_forms(chain: Chain, st: Structure, c: Cluster, deadline: float | None = None) -> Iterator[RegionForm]:
    """The linear part of the cluster's drift on each of its local states, as exact linear forms in the coefficients.

    Parameters
    ----------
    chain : Chain
        The exponential chain.
    st : Structure
        The function's shape.
    c : Cluster
        One of :func:`clusters`.
    deadline : float, optional
        A ``time.perf_counter()`` value (polled; :class:`~certify.markov.regions.TimeLimitReached` past it).

    Yields
    ------
    RegionForm
        One per region of the cluster's stations.

    Examples
    --------
    An M/M/1 queue (rate 1 into a server of rate 2) with V = P x^2: the drift's
    slope is 2 P (1 - 2) on the busy region.

    >>> from fractions import Fraction as F
    >>> ch = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    >>> st = Structure((), (), 1, ((0, 0),))
    >>> [(f.generators, f.coefs) for c in clusters(ch, st) for f in cluster_forms(ch, st, c)]
    [([], {0: {0: Fraction(2, 1)}}), ([(1,)], {0: {0: Fraction(-2, 1)}})]
    """
    key = (chain, st, c)
    if key in _listed:
        _listed.move_to_end(key)
        yield from map(_copy, _listed[key][0])
        return
    done = []
    size = 0
    for form in _forms(chain, st, c, deadline):
        done.append(form)
        size += sum(map(len, form.coefs.values()))
        yield _copy(form)
    if size <= FORM_CACHE:
        _listed[key] = (tuple(done), size)
        total = sum(n for _, n in _listed.values())
        while total > FORM_CACHE:
            total -= _listed.popitem(last=False)[1][1]


def _forms(chain: Chain, st: Structure, c: Cluster, deadline: float | None) -> Iterator[RegionForm]:
    """:func:`cluster_forms`, computed."""
    nb = _neighbours(st, chain.J)
    pidx = {p: k for k, p in enumerate(st.pairs)}
    tbase: dict[tuple[int, int], int] = {}
    pos = len(st.pairs)
    for g, L in enumerate(st.multipliers):
        for l in L:
            tbase[(g, l)] = pos
            pos += st.cell_count(g)
    cells = {g: GroupCells(st, g) for g in c.groups}
    ratio = fraction_memo()
    for s in local_states(chain, st, c, deadline):
        before = {g: cg.key(s) for g, cg in cells.items()}
        # Integer sums over the least common denominator D of this state's rates: the same exact forms as
        # Fraction sums, without a Fraction per term.
        rates, D = over_common_denominator([jump[0] for jump in s.jumps])
        coefs: dict[int, dict[int, int]] = {}

        def add(i: int, v: int, x: int, coefs: dict[int, dict[int, int]] = coefs) -> None:
            form = coefs.setdefault(i, {})
            form[v] = form.get(v, 0) + x

        for r, jump in zip(rates, s.jumps):
            d = jump[1]
            for a, da in d.items():
                for b in nb[a]:
                    add(b, pidx[(min(a, b), max(a, b))], 2 * r * da)
            for g, cg in cells.items():
                change = cg.change(s, before[g], jump)
                if change is None:
                    continue
                k0, k1 = change
                for l in st.multipliers[g]:
                    add(l, tbase[(g, l)] + k1, r)
                    add(l, tbase[(g, l)] + k0, -r)
        clean = {i: {v: ratio(x, D) for v, x in form.items() if x} for i, form in coefs.items()}
        yield RegionForm(s.region, cone_generators(s.region), {i: f for i, f in clean.items() if f}, s.phases or None)


def _constant_bound(chain: Chain, st: Structure, theta: Sequence[Fraction]) -> Fraction:
    """A bound on the drift's constant parts: rate x (|d'Pd| + |d_l| max |T_{g,l}|) over each family's jumps."""
    P = {p: theta[k] for k, p in enumerate(st.pairs)}
    tmax: dict[int, Fraction] = {}
    pos = len(st.pairs)
    for g, L in enumerate(st.multipliers):
        n = st.cell_count(g)
        for l in L:
            m = max((abs(t) for t in theta[pos:pos + n]), default=Fraction(0))
            tmax[l] = tmax.get(l, Fraction(0)) + m
            pos += n
    total = Fraction(0)
    for f in families(chain):
        mv = sorted(f.moves)
        quad = sum((abs(P.get((a, b), Fraction(0))) * (1 if a == b else 2) for a in mv for b in mv if a <= b), Fraction(0))
        tab = sum((tmax.get(a, Fraction(0)) for a in mv), Fraction(0))
        total += f.rate * (quad + tab)
    return total


def _side_failures(chain: Chain, st: Structure, theta: Sequence[Fraction]) -> list[str]:
    ids = chain.ids
    diag = {a: Fraction(0) for a in range(chain.J)}
    neg = {a: Fraction(0) for a in range(chain.J)}
    for k, (a, b) in enumerate(st.pairs):
        if a == b:
            diag[a] = theta[k]
        elif theta[k] < 0:
            neg[a] -= theta[k]
            neg[b] -= theta[k]
    return [f"V bounded below: P[{ids[a]},{ids[a]}] = {diag[a]} must exceed the negative off-diagonal magnitudes "
            f"of its row ({neg[a]})" for a in range(chain.J) if diag[a] <= neg[a]]


def check_separable(
    chain: Chain,
    st: Structure,
    theta: Sequence[Fraction] | Mapping[str, Fraction],
    budgets: Mapping[tuple[int, ...], Mapping[int, Fraction]],
    max_failures: int = 5,
    deadline: float | None = None,
) -> Check[SeparableFacts]:
    """Exact check of a separable Foster certificate (``docs/math/separable.md``).

    Parameters
    ----------
    chain : Chain
        The exponential chain.
    st : Structure
        The function's shape.
    theta : sequence or mapping of Fraction
        The coefficients, in :func:`variables` order, or by name (every name, no other).
    budgets : mapping of tuple of int to mapping of int to Fraction
        Per cluster (by its stations), the budget of each station (missing: 0).
    max_failures : int
        How many violated conditions to list.
    deadline : float, optional
        A ``time.perf_counter()`` value.

    Returns
    -------
    Check of SeparableFacts
        Passed with delta, B and the exceptional set; or the failures.

    Raises
    ------
    TimeLimitReached
        When the deadline passes (never a partial verdict).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    >>> st = Structure((), (), 1, ((0, 0),))
    >>> chk = check_separable(ch, st, [F(1)], {(0,): {0: F(2)}})
    >>> chk.ok, chk.facts.delta, chk.facts.drift_bound, chk.facts.exceptional_l1_bound
    (True, Fraction(2, 1), Fraction(11, 1), Fraction(7, 1))
    >>> check_separable(ch, st, [F(1)], {(0,): {0: F(3)}}).failures[0]
    'cluster {1}, region x1 >= 1: slope 1 along {1} (alpha + budget must be <= 0 on every generator)'
    """
    ids = chain.ids
    problem = structure_problem(chain, st)
    if problem:
        return Check.failed([problem])
    if drain_order(chain) is None:
        return Check.failed(["the empty state is not shown reachable from every state"])
    vector = coefficient_vector(variables(chain, st), theta, "the structure")
    if isinstance(vector, str):
        return Check.failed([vector])
    theta = vector
    failures = _side_failures(chain, st, theta)[:max_failures]
    cl = clusters(chain, st)
    known = {c.stations for c in cl}
    unknown = sorted(set(budgets) - known)
    if unknown:
        failures.append(f"budgets: {{{','.join(ids[a] for a in unknown[0])}}} is not a cluster of this structure "
                        f"(clusters: {', '.join('{' + cluster_name(chain, c) + '}' for c in cl)})")
    bad = 0

    def fail(msg: str) -> None:
        nonlocal bad
        bad += 1
        if bad <= max_failures:
            failures.append(msg)

    total = [Fraction(0)] * chain.J
    bound = Fraction(0)
    value = form_evaluator(theta)
    regions = rows = 0
    for c in cl:
        name = cluster_name(chain, c)
        cb = budgets.get(c.stations, {})
        for i, v in cb.items():
            total[i] += v
        local = {a: k for k, a in enumerate(c.stations)}
        levels = {local[a]: k for g in c.groups for a, k in zip(st.groups[g], st.group_levels(g))}
        L = vertex_bound(len(c.stations), levels)
        worst = Fraction(0)
        for form in cluster_forms(chain, st, c, deadline):
            regions += 1
            if regions > MAX_SEPARABLE_REGIONS:
                return Check.failed([f"groups: the clusters have more than {MAX_SEPARABLE_REGIONS} local states together "
                                     f"(at most {MAX_SEPARABLE_REGIONS}); stopped listing them"])
            coef = {i: value(f) for i, f in form.coefs.items()}
            where = f"cluster {{{name}}}, region {form.region.describe(tuple(ids[a] for a in c.stations))}"
            for i in sorted(set(coef) | set(cb)):
                if i in local:
                    continue
                rows += 1
                s = coef.get(i, Fraction(0)) + cb.get(i, Fraction(0))
                if s > 0:
                    fail(f"{where}: the coefficient of x{ids[i]} plus its budget is {s} (must be <= 0)")
            slope = [coef.get(a, Fraction(0)) + cb.get(a, Fraction(0)) for a in c.stations]
            for r in form.generators:
                rows += 1
                s = sum((x for x, ra in zip(slope, r) if ra), Fraction(0))
                if s > 0:
                    along = ",".join(ids[a] for a, ra in zip(c.stations, r) if ra)
                    fail(f"{where}: slope {s} along {{{along}}} (alpha + budget must be <= 0 on every generator)")
            worst = max(worst, L * sum((x for x in slope if x > 0), Fraction(0)))
        bound += worst
    if bad > max_failures:
        failures.append(f"... and {bad - max_failures} more violated conditions")
    delta = min(total)
    if delta <= 0:
        i = total.index(delta)
        failures.append(f"the budgets of station {ids[i]} sum to {delta} (every station's must be > 0)")
    if failures:
        return Check.failed(failures, partial={"regions": regions, "rows": rows, "clusters": len(cl)})
    B = bound + _constant_bound(chain, st, theta)
    return Check.passed(SeparableFacts(clusters=len(cl), regions=regions, rows=rows, delta=delta, drift_bound=B,
                                       exceptional_l1_bound=Fraction(floor(B / delta) + 2)))
