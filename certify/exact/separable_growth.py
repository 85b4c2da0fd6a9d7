"""Separable growth certificates: f = w'x + sum_g T_g(min(x_{F_g}, K)) grows at every state, checked cluster by cluster.

The theorem is in ``docs/math/separable.md`` (the growth version).  f has no
product term, so its drift is bounded and, on every region of a cluster U, the
cluster's part of it is one number phi_U(R): the families of U (as in
:mod:`certify.exact.separable`) summed over their jumps, rate x (w'd + the
change of each moved group's table).  With m_U = min over U's regions of
phi_U(R), derived here and never read,

    Af(x) = sum_U phi_U(R_U(x)) >= sum_U m_U = delta

at every state.  delta > 0, the bounded increments of f and the drain order (one
closed class, holding the empty state) give transience
(Fayolle-Malyshev-Menshikov 1995, Thm 2.2.7): E f(X_t) grows like delta t, so the
class reaches {f > C} for every C, and the chain is not positive recurrent.
Streams exponential; phase-type service is expanded as in :mod:`certify.exact.clusters`.  Pure Python.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..core.numbers import fraction_memo, over_common_denominator
from ..markov.chain import Chain, drain_order
from ..markov.regions import Region
from .clusters import Cluster, GroupCells, Structure, cluster_name, clusters, coefficient_vector, form_evaluator, local_states
from .facts import Check, SeparableGrowthFacts
from .separable import MAX_SEPARABLE_REGIONS, structure_problem

__all__ = ["growth_structure", "growth_variables", "growth_forms", "check_separable_growth", "GrowthForm"]


@dataclass(frozen=True)
class GrowthForm:
    """A cluster's part of the drift of f on one of its regions, as a linear form in f's coefficients.

    Attributes
    ----------
    region : Region
        The region of the cluster's sub-chain.
    form : dict of int to Fraction
        Coefficient index (:func:`growth_variables` order) to its factor; the drift is the form's value.
    phases : dict of int to int or None
        The phases of the cluster's phase-type stations on this local state (None without phases).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1",), (F(1),), (((0,), F(2)),), (), (F(1),))
    >>> st = growth_structure((), 1)
    >>> [g.form for c in clusters(ch, st) for g in growth_forms(ch, st, c)]
    [{0: Fraction(2, 1)}, {0: Fraction(1, 1)}]
    """

    region: Region
    form: dict[int, Fraction]
    phases: dict[int, int] | None = None


def growth_structure(groups: Sequence[tuple[int, ...]], K: int | tuple[tuple[int, ...], ...],
                     phases: tuple[int, ...] = ()) -> Structure:
    """The shape of a separable growth function: its groups and clip level (no multipliers, no P).

    Parameters
    ----------
    groups : sequence of tuple of int
        The fast stations of each table (disjoint, sorted).
    K : int or tuple of tuple of int
        The clip level, or one level per station of each group (:class:`~certify.exact.clusters.Structure`).
    phases : tuple of int
        Per station, its service law's phase count (:func:`~certify.exact.clusters.station_phases`).

    Returns
    -------
    Structure
        With one empty multiplier tuple per group and no pairs.

    Examples
    --------
    >>> growth_structure([(0, 1)], 3)
    Structure(groups=((0, 1),), multipliers=((),), K=3, pairs=(), phases=())
    """
    return Structure(tuple(tuple(F) for F in groups), tuple(() for _ in groups), K, (), phases)


def growth_variables(chain: Chain, st: Structure) -> list[str]:
    """The coefficient names: ``w[i]`` per station, then ``T[g|cell]`` per group and cell.

    Parameters
    ----------
    chain : Chain
        The chain.
    st : Structure
        The shape (:func:`growth_structure`).

    Returns
    -------
    list of str
        In the order of the coefficient vector.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("a", "b"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> growth_variables(ch, growth_structure([(0, 1)], 1))
    ['w[a]', 'w[b]', 'T[1|0,0]', 'T[1|0,1]', 'T[1|1,0]', 'T[1|1,1]']
    """
    names = [f"w[{s}]" for s in chain.ids]
    for g in range(len(st.groups)):
        names += [f"T[{g + 1}|{','.join(map(str, c))}]" for c in st.cells(g)]
    return names


def growth_forms(chain: Chain, st: Structure, c: Cluster, deadline: float | None = None) -> Iterator[GrowthForm]:
    """The cluster's part of Af on each of its regions, as exact linear forms in (w, tables).

    Parameters
    ----------
    chain : Chain
        The exponential chain.
    st : Structure
        The shape (:func:`growth_structure`).
    c : Cluster
        One of :func:`~certify.exact.separable.clusters`.
    deadline : float, optional
        A ``time.perf_counter()`` value (polled).

    Yields
    ------
    GrowthForm
        One per region of the cluster's stations.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1",), (F(1),), (((0,), F(2)),), (), (F(1),))
    >>> st = growth_structure((), 1)
    >>> [(g.region.describe(ch.ids), g.form) for c in clusters(ch, st) for g in growth_forms(ch, st, c)]
    [('x1 = 0', {0: Fraction(2, 1)}), ('x1 >= 1', {0: Fraction(1, 1)})]
    """
    base = [chain.J]
    for g in range(len(st.groups)):
        base.append(base[-1] + st.cell_count(g))
    cells = {g: GroupCells(st, g) for g in c.groups}
    ratio = fraction_memo()
    for s in local_states(chain, st, c, deadline):
        before = {g: cg.key(s) for g, cg in cells.items()}
        rates, D = over_common_denominator([jump[0] for jump in s.jumps])  # integer sums, as in _forms
        form: dict[int, int] = {}
        for r, jump in zip(rates, s.jumps):
            d = jump[1]
            for i, di in d.items():
                form[i] = form.get(i, 0) + r * di
            for g, cg in cells.items():
                change = cg.change(s, before[g], jump)
                if change is not None:
                    k0, k1 = change
                    form[base[g] + k1] = form.get(base[g] + k1, 0) + r
                    form[base[g] + k0] = form.get(base[g] + k0, 0) - r
        yield GrowthForm(s.region, {v: ratio(x, D) for v, x in form.items() if x}, s.phases or None)


def check_separable_growth(
    chain: Chain,
    st: Structure,
    theta: Sequence[Fraction] | Mapping[str, Fraction],
    max_failures: int = 5,
    deadline: float | None = None,
) -> Check[SeparableGrowthFacts]:
    """Exact check of a separable growth certificate: Af >= delta > 0 at every state.

    Parameters
    ----------
    chain : Chain
        The exponential chain.
    st : Structure
        The shape (:func:`growth_structure`).
    theta : sequence or mapping of Fraction
        The coefficients, in :func:`growth_variables` order, or by name.
    max_failures : int
        How many problems to list.
    deadline : float, optional
        A ``time.perf_counter()`` value.

    Returns
    -------
    Check of SeparableGrowthFacts
        Passed with delta, the increment bound and the clusters' minima; or the failures.

    Raises
    ------
    TimeLimitReached
        When the deadline passes.

    Examples
    --------
    An M/M/1 queue with arrival rate 2 and service rate 1: f = x grows by 1 when
    the server is busy and by 2 when it is idle.

    >>> from fractions import Fraction as F
    >>> ch = Chain(("1",), (F(1),), (((0,), F(2)),), (), (F(1),))
    >>> chk = check_separable_growth(ch, growth_structure((), 1), [F(1)])
    >>> chk.ok, chk.facts.delta, chk.facts.increment_bound
    (True, Fraction(1, 1), Fraction(2, 1))
    >>> check_separable_growth(ch, growth_structure((), 1), [F(-1)]).failures[0]
    "the clusters' least drifts sum to -2 (must be > 0): {1}: -2"
    """
    problem = structure_problem(chain, st)
    if problem:
        return Check.failed([problem])
    if any(st.multipliers) or st.pairs:
        return Check.failed(["a growth structure has no multipliers and no P"])
    if drain_order(chain) is None:
        return Check.failed(["the empty state is not shown reachable from every state"])
    vector = coefficient_vector(growth_variables(chain, st), theta, "the structure")
    if isinstance(vector, str):
        return Check.failed([vector])
    theta = vector
    value = form_evaluator(theta)
    regions = 0
    minima: list[tuple[str, Fraction]] = []
    for c in clusters(chain, st):
        worst: Fraction | None = None
        for gf in growth_forms(chain, st, c, deadline):
            regions += 1
            if regions > MAX_SEPARABLE_REGIONS:
                return Check.failed([f"groups: the clusters have more than {MAX_SEPARABLE_REGIONS} local states together "
                                     f"(at most {MAX_SEPARABLE_REGIONS}); stopped listing them"])
            v = value(gf.form)
            worst = v if worst is None else min(worst, v)
        minima.append((cluster_name(chain, c), worst if worst is not None else Fraction(0)))
    delta = sum((m for _, m in minima), Fraction(0))
    w = theta[: chain.J]
    # One jump moves at most two stations by one: |w'd| <= 2 max |w|; each table changes by at most its spread.
    spread = Fraction(0)
    pos = chain.J
    for g in range(len(st.groups)):
        vals = theta[pos: pos + st.cell_count(g)]
        spread += max(vals) - min(vals) if vals else Fraction(0)
        pos += len(vals)
    inc = 2 * max((abs(x) for x in w), default=Fraction(0)) + spread
    if delta <= 0:
        worst_few = ", ".join(f"{{{n}}}: {m}" for n, m in sorted(minima, key=lambda t: t[1])[:max_failures])
        return Check.failed([f"the clusters' least drifts sum to {delta} (must be > 0): {worst_few}"],
                            partial={"regions": regions, "clusters": len(minima), "delta": delta})
    return Check.passed(SeparableGrowthFacts(clusters=len(minima), regions=regions, delta=delta, increment_bound=inc))
