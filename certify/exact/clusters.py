"""The decomposition a separable certificate is checked by: its shape, the jump families, the clusters, their local states.

``docs/math/separable.md`` states it.  A *family* is the arrivals of one choice
set or the services of one station; its jumps depend only on its *active*
stations (a JSQ choice set, the station served, the feedback sets, the phases of
the phase-type stations involved).  The *blocks* are the groups of a
:class:`Structure` and every other station alone; a family's *cluster* is the
union of the blocks that its active stations and the groups it moves meet.  A
cluster's *local states* are the regions of its own stations (the JSQ order of
its families' choice sets, its empty stations, the levels of its groups' fast
stations and x = 1 vs >= 2 at its phase-type stations), each with every phase of
its busy phase-type stations; on a local state every family of the cluster has
fixed jumps (:func:`local_states`).  Phase-type *service* is expanded (the phase
of the customer in service, -1 when empty); phase-type interarrival laws are
not supported here.  Pure Python: no numpy, no solver.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product

from ..core.numbers import over_common_denominator
from ..markov.chain import Chain
from ..markov.laws import PhaseType
from ..markov.phases import PhaseChain
from ..markov.regions import POLL_EVERY, Region, check_deadline, iter_regions

__all__ = [
    "Structure",
    "Family",
    "Cluster",
    "Jump",
    "LocalState",
    "station_phases",
    "phased_streams",
    "families",
    "clusters",
    "cluster_name",
    "sub_chain",
    "cluster_levels",
    "local_states",
    "GroupCells",
    "form_value",
    "form_evaluator",
    "coefficient_vector",
]

# One jump of a local state: (rate, change of the queue lengths, new phases by station).
Jump = tuple[Fraction, dict[int, int], dict[int, int]]


@dataclass(frozen=True)
class Structure:
    """The shape of a separable function: its groups, their multipliers, the clip level, the support of P, the phases.

    Attributes
    ----------
    groups : tuple of tuple of int
        The fast stations F_g of each group (disjoint, sorted).
    multipliers : tuple of tuple of int
        The stations l of the terms x_l T_{g,l}, per group (sorted; empty for a growth function).
    K : int or tuple of tuple of int
        The clip level of every table, or one level per fast station: ``K[g][k]`` for station ``groups[g][k]``
        (the cell then holds min(x_a, K_a) for each fast station a).
    pairs : tuple of (int, int)
        The entries P[a, b] (a <= b) the function may use, sorted (none for a growth function).
    phases : tuple of int
        Per station, the number of phases of its service law (0: exponential); empty: every law exponential.

    Examples
    --------
    >>> st = Structure(((0, 1),), ((0, 1, 2),), 2, ((0, 0), (1, 1), (2, 2)))
    >>> st.cells(0)[:3], len(st.cells(0))
    ([(0, 0), (0, 1), (0, 2)], 9)
    >>> len(Structure(((0, 1),), ((0,),), 2, (), (2, 0)).cells(0))   # station 0 Erlang-2: its phase -1, 0 or 1
    27
    >>> Structure(((0, 1),), ((2,),), ((3, 1),), ()).cells(0)[:5]   # station 0 clipped at 3, station 1 at 1
    [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]
    """

    groups: tuple[tuple[int, ...], ...]
    multipliers: tuple[tuple[int, ...], ...]
    K: int | tuple[tuple[int, ...], ...]
    pairs: tuple[tuple[int, int], ...]
    phases: tuple[int, ...] = ()

    def phase_count(self, a: int) -> int:
        """The number of phases of station a's service (0: exponential).

        Parameters
        ----------
        a : int
            The station.

        Returns
        -------
        int
            Its phase count.
        """
        return self.phases[a] if self.phases else 0

    def group_levels(self, g: int) -> tuple[int, ...]:
        """The clip level of each fast station of group g, in the group's order.

        Parameters
        ----------
        g : int
            The group's index.

        Returns
        -------
        tuple of int
            K for each station, or the group's own levels.
        """
        return (self.K,) * len(self.groups[g]) if isinstance(self.K, int) else self.K[g]

    def cell_count(self, g: int) -> int:
        """How many cells group g has, computed without listing them (sizes are checked before anything is built).

        Parameters
        ----------
        g : int
            The group's index.

        Returns
        -------
        int
            (K_a + 1) per fast station a times (phases + 1) per phase-type one.
        """
        n = 1
        for a, k in zip(self.groups[g], self.group_levels(g)):
            n *= (k + 1) * (self.phase_count(a) + 1 if self.phase_count(a) else 1)
        return n

    def cells(self, g: int) -> list[tuple[int, ...]]:
        """The cells of group g: min(x_a, K_a) for its fast stations, then the phase (-1: empty) of each phase-type one.

        Parameters
        ----------
        g : int
            The group's index.

        Returns
        -------
        list of tuple of int
            Every cell, in lexicographic order.
        """
        F = self.groups[g]
        ranges = [range(k + 1) for k in self.group_levels(g)] + [range(-1, self.phase_count(a)) for a in F if self.phase_count(a)]
        return [tuple(c) for c in product(*ranges)]


@dataclass(frozen=True)
class Family:
    """The jumps of one arrival stream (merged by choice set) or of one station's services.

    Attributes
    ----------
    name : str
        ``arrivals to {1,2}`` or ``services at 1``.
    choice : tuple of int
        The choice set of an arrival family (empty for a service family).
    station : int or None
        The station of a service family.
    rate : Fraction
        A bound on its total jump rate (the stream's rate; the service rate, or the largest phase's).
    active : frozenset of int
        The stations its jumps depend on: a choice set of two or more stations, the station served, its
        feedback sets of two or more stations, and every phase-type station a customer may join.
    moves : frozenset of int
        The stations whose queue or phase its jumps may change.

    Examples
    --------
    >>> ch = Chain(("1", "2"), (Fraction(1), Fraction(1)), (((0, 1), Fraction(1)),), (), (Fraction(1), Fraction(1)))
    >>> f = families(ch)[0]
    >>> f.name, f.rate, sorted(f.active)
    ('arrivals to {1,2}', Fraction(1, 1), [0, 1])
    """

    name: str
    choice: tuple[int, ...]
    station: int | None
    rate: Fraction
    active: frozenset[int]
    moves: frozenset[int]


@dataclass(frozen=True)
class Cluster:
    """A set U of stations (a union of blocks) and the families whose drift is checked on U's local states.

    Attributes
    ----------
    stations : tuple of int
        U, sorted.
    families : tuple of int
        Indices into :func:`families`.
    groups : tuple of int
        The groups inside U.

    Examples
    --------
    >>> Cluster((0, 1), (0, 2, 3), (0,)).stations
    (0, 1)
    """

    stations: tuple[int, ...]
    families: tuple[int, ...]
    groups: tuple[int, ...]


@dataclass(frozen=True)
class LocalState:
    """A region of a cluster's stations and the phases of its busy phase-type stations, with the families' jumps.

    Attributes
    ----------
    region : Region
        The region of the cluster's sub-chain (local indices).
    phases : dict of int to int
        The phase of every phase-type station of the cluster (global index; -1 when empty).
    levels : dict of int to int
        The level of every clipped station of the cluster (global index): k <= its clip level exactly, or clip + 1.
    jumps : list of Jump
        Every jump of the cluster's families at every state of this local state.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    >>> st = Structure((), (), 1, ((0, 0),))
    >>> [s.region.describe(ch.ids) for s in local_states(ch, st, clusters(ch, st)[0])]
    ['x1 = 0', 'x1 >= 1']
    """

    region: Region
    phases: dict[int, int]
    levels: dict[int, int]
    jumps: list[Jump]


def station_phases(chain: Chain) -> tuple[int, ...]:
    """Per station, the number of phases of its service law (0: exponential); empty for an exponential chain.

    Parameters
    ----------
    chain : Chain
        The chain (a :class:`~certify.markov.phases.PhaseChain` when it has phases).

    Returns
    -------
    tuple of int
        The phase counts.

    Examples
    --------
    >>> station_phases(Chain(("1",), (Fraction(2),), (((0,), Fraction(1)),), (), (Fraction(1),)))
    ()
    """
    if not isinstance(chain, PhaseChain):
        return ()
    return tuple(s.n if s is not None else 0 for s in chain.service)


def phased_streams(chain: Chain) -> bool:
    """Whether some stream has a phase-type (non-exponential) interarrival law: not expanded by the separable kinds.

    Parameters
    ----------
    chain : Chain
        The chain.

    Returns
    -------
    bool
        True when the chain carries arrival phases.

    Examples
    --------
    >>> phased_streams(Chain(("1",), (Fraction(2),), (((0,), Fraction(1)),), (), (Fraction(1),)))
    False
    """
    return isinstance(chain, PhaseChain) and bool(chain.ph_streams)


def _arrivals(chain: Chain) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    return chain.exp_arrivals if isinstance(chain, PhaseChain) else chain.arrivals


def _service(chain: Chain) -> tuple[PhaseType | None, ...]:
    return chain.service if isinstance(chain, PhaseChain) else (None,) * chain.J


def families(chain: Chain) -> list[Family]:
    """The chain's jump families: one per arrival choice set, one per station's services.

    Parameters
    ----------
    chain : Chain
        The chain (exponential streams; phase-type service allowed).

    Returns
    -------
    list of Family
        Arrivals first, then services by station.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2", "3"), (F(1), F(1), F(2)), (((0, 1), F(1)), ((2,), F(1, 2))), ((0, (2,), F(1)),),
    ...            (F(0), F(1), F(1)))
    >>> [(f.name, sorted(f.active), sorted(f.moves)) for f in families(ch)]
    [('arrivals to {1,2}', [0, 1], [0, 1]), ('arrivals to {3}', [], [2]), ('services at 1', [0], [0, 2]), \
('services at 2', [1], [1]), ('services at 3', [2], [2])]
    """
    ids = chain.ids
    ph = station_phases(chain) or (0,) * chain.J
    service = _service(chain)
    out = []
    for C, rate in _arrivals(chain):
        active = set(C) if len(C) > 1 else set()
        active |= {a for a in C if ph[a]}
        out.append(Family(f"arrivals to {{{','.join(ids[c] for c in C)}}}", C, None, rate, frozenset(active), frozenset(C)))
    for i in range(chain.J):
        routes = [F for j, F, _ in chain.feedback if j == i]
        active = {i}.union(*(set(F) for F in routes if len(F) > 1), *({a for a in F if ph[a]} for F in routes))
        moves = {i}.union(*(set(F) for F in routes))
        law = service[i]
        rate = chain.mu[i] if law is None else max(
            law.exit[p] + sum((r for a, _, r in law.moves if a == p), Fraction(0)) for p in range(law.n))
        out.append(Family(f"services at {ids[i]}", (), i, rate, frozenset(active), frozenset(moves)))
    return out


def clusters(chain: Chain, st: Structure) -> list[Cluster]:
    """The clusters: each family in the union of the blocks its active stations and moved groups meet.

    A cluster whose stations lie inside another's is merged into the smallest
    such (ties: the first in sorted order), so that families that share stations
    are checked together.

    Parameters
    ----------
    chain : Chain
        The chain.
    st : Structure
        The function's shape.

    Returns
    -------
    list of Cluster
        Sorted by stations.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("a", "b", "s"), (F(1), F(3, 2), F(2)), (((0, 1), F(8, 5)), ((2,), F(1, 2))), ((0, (2,), F(1)),),
    ...            (F(0), F(1), F(1)))
    >>> st = Structure(((0, 1),), ((0, 1, 2),), 2, ((0, 0), (1, 1), (2, 2), (0, 2)))
    >>> [(c.stations, c.families) for c in clusters(ch, st)]
    [((0, 1), (0, 2, 3)), ((2,), (1, 4))]
    """
    block = {a: g for g, F in enumerate(st.groups) for a in F}
    keys: list[frozenset[int]] = []
    for f in families(chain):
        moved = {g for g, F in enumerate(st.groups) if f.moves & set(F)}
        meet = set(f.active).union(*(set(st.groups[g]) for g in moved))
        U: set[int] = set()
        for a in meet:
            U |= set(st.groups[block[a]]) if a in block else {a}
        keys.append(frozenset(U))
    distinct = sorted(set(keys), key=lambda k: (len(k), sorted(k)))
    target: dict[frozenset[int], frozenset[int]] = {}
    for k in distinct:
        supersets = [m for m in distinct if k < m]
        target[k] = min(supersets, key=lambda m: (len(m), sorted(m))) if supersets else k
    for k in distinct:  # follow the merges to a maximal one
        while target[target[k]] != target[k]:
            target[k] = target[target[k]]
    members: dict[frozenset[int], list[int]] = {}
    for n, k in enumerate(keys):
        members.setdefault(target[k], []).append(n)
    out = []
    for key, fs in members.items():
        inside = tuple(g for g, F in enumerate(st.groups) if set(F) <= key)
        out.append(Cluster(tuple(sorted(key)), tuple(fs), inside))
    return sorted(out, key=lambda c: (c.stations, c.families))


def cluster_name(chain: Chain, c: Cluster) -> str:
    """The cluster's name in messages: its station ids joined by commas (``""`` for none).

    Parameters
    ----------
    chain : Chain
        The chain.
    c : Cluster
        The cluster.

    Returns
    -------
    str
        E.g. ``"a1,b1"``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("a1", "b1"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> cluster_name(ch, Cluster((0, 1), (0,), ()))
    'a1,b1'
    """
    return ",".join(chain.ids[a] for a in c.stations)


def sub_chain(chain: Chain, c: Cluster, fams: Sequence[Family]) -> tuple[Chain, dict[int, int]]:
    """The chain on U's stations whose routing sets are the cluster's families' (used for its regions only).

    Parameters
    ----------
    chain : Chain
        The chain.
    c : Cluster
        The cluster.
    fams : sequence of Family
        :func:`families` of the chain.

    Returns
    -------
    sub : Chain
        U's stations (local indices, in U's order), the JSQ choice sets and feedback sets of its families.
    loc : dict of int to int
        Global station index to local index.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("a", "b", "s"), (F(1), F(1), F(2)), (((0, 1), F(1)),), ((0, (2,), F(1)),), (F(0), F(1), F(1)))
    >>> st = Structure(((0, 1),), ((0, 1, 2),), 2, ((0, 0), (1, 1), (2, 2)))
    >>> sub, loc = sub_chain(ch, clusters(ch, st)[0], families(ch))
    >>> sub.ids, sub.routing_sets, loc
    (('a', 'b'), ((0, 1),), {0: 0, 1: 1})
    """
    loc = {a: k for k, a in enumerate(c.stations)}
    arrivals = []
    feedback = []
    for n in c.families:
        f = fams[n]
        if f.station is None and len(f.choice) > 1:
            arrivals.append((tuple(loc[a] for a in f.choice), f.rate))
        elif f.station is not None:
            for j, F, p in chain.feedback:
                if j == f.station and len(F) > 1:
                    feedback.append((loc[j], tuple(loc[a] for a in F), p))
    ties = tuple((tuple(loc[a] for a in s), probs) for s, probs in chain.ties if set(s) <= set(c.stations))
    sub = Chain(tuple(chain.ids[a] for a in c.stations), tuple(chain.mu[a] for a in c.stations), tuple(arrivals),
                tuple(feedback), tuple(chain.leave[a] for a in c.stations), ties)
    return sub, loc


def _family_jumps(chain: Chain, sub: Chain, loc: Mapping[int, int], R: Region, f: Family,
                  lev: Mapping[int, int], psi: Mapping[int, int]) -> list[Jump]:
    """The family's jumps at every state of (R, psi); jumps that change nothing are left out."""
    back = {k: a for a, k in loc.items()}
    service = _service(chain)

    def shortest(F: tuple[int, ...], after: int | None) -> tuple[int, ...]:
        lF = tuple(loc[a] for a in F)
        if after is not None and after in F:
            M = R.shifted[sub.shifted_sets.index((loc[after], lF))]
        else:
            M = R.argmin[sub.routing_sets.index(lF)]
        return tuple(back[k] for k in M)

    def dests(F: tuple[int, ...], after: int | None) -> tuple[tuple[int, Fraction], ...]:
        return chain.tie_split(shortest(F, after)) if len(F) > 1 else ((F[0], Fraction(1)),)

    def joined(j: int) -> list[tuple[Fraction, dict[int, int]]]:
        """A customer joins j (j != the station served): a phase-type j that was empty starts a phase."""
        law_j = service[j]
        if law_j is not None and loc[j] in R.empty:
            return [(a, {j: q}) for q, a in enumerate(law_j.alpha) if a]
        return [(Fraction(1), {})]

    out: list[Jump] = []
    if f.station is None:
        for j, p in dests(f.choice, None):
            out += [(f.rate * p * a, {j: 1}, newph) for a, newph in joined(j)]
        return out
    i = f.station
    if loc[i] in R.empty:
        return []
    law = service[i]
    completions: list[tuple[Fraction, dict[int, int]]]
    if law is None:
        completions = [(chain.mu[i], {})]
    else:
        p0 = psi[i]
        out += [(r, {}, {i: b}) for a, b, r in law.moves if a == p0 and b != p0]
        more = lev[i] >= 2  # x_i >= 2: the next customer starts a phase; else i empties
        nexts = [(q, a) for q, a in enumerate(law.alpha) if a] if more else [(-1, Fraction(1))]
        completions = [(law.exit[p0] * a, {i: q}) for q, a in nexts] if law.exit[p0] else []
    for rate, after in completions:
        if chain.leave[i]:
            out.append((rate * chain.leave[i], {i: -1}, dict(after)))
        for j0, F, p in chain.feedback:
            if j0 != i:
                continue
            for j, t in dests(F, i):
                if j != i:
                    out += [(rate * p * t * a, {i: -1, j: 1}, {**after, **newph}) for a, newph in joined(j)]
                elif law is not None:  # back into its own queue: x unchanged, a phase is drawn for whoever is served
                    if after[i] >= 0:
                        out.append((rate * p * t, {}, dict(after)))
                    else:
                        out += [(rate * p * t * a, {}, {i: q}) for q, a in enumerate(law.alpha) if a]
    return [(r, d, n) for r, d, n in out if r and (d or any(psi.get(s, -1) != v for s, v in n.items()))]


def cluster_levels(st: Structure, c: Cluster) -> dict[int, int]:
    """The clip levels that refine a cluster's regions: K at its groups' fast stations, 1 at its other phase-type ones.

    Level 1 at a phase-type station splits x_a = 1 from x_a >= 2 (does a completion empty it?).

    Parameters
    ----------
    st : Structure
        The shape.
    c : Cluster
        One of :func:`clusters`.

    Returns
    -------
    dict of int to int
        Station (network index, in the cluster's order) to its clip level.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("a", "b", "s"), (F(1), F(3, 2), F(2)), (((0, 1), F(8, 5)),), ((0, (2,), F(1)),), (F(0), F(1), F(1)))
    >>> st = Structure(((0, 1),), ((0, 1, 2),), 4, ((0, 0),), (0, 0, 2))
    >>> [cluster_levels(st, c) for c in clusters(ch, st)]
    [{0: 4, 1: 4}, {2: 1}]
    """
    fast = {a: k for g in c.groups for a, k in zip(st.groups[g], st.group_levels(g))}
    levels: dict[int, int] = {}
    for a in c.stations:
        if a in fast:
            levels[a] = fast[a]
        elif st.phase_count(a):
            levels[a] = 1
    return levels


def local_states(chain: Chain, st: Structure, c: Cluster, deadline: float | None = None) -> Iterator[LocalState]:
    """Every local state of the cluster: a region of its stations, the phases of its busy phase-type stations.

    Parameters
    ----------
    chain : Chain
        The chain.
    st : Structure
        The function's shape (its clip level and groups refine the regions).
    c : Cluster
        One of :func:`clusters`.
    deadline : float, optional
        A ``time.perf_counter()`` value (polled; :class:`~certify.markov.regions.TimeLimitReached` past it).

    Yields
    ------
    LocalState
        With the jumps of every family of the cluster there.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    >>> st = Structure((), (), 1, ((0, 0),))
    >>> [(s.region.describe(ch.ids), s.jumps) for s in local_states(ch, st, clusters(ch, st)[0])]
    [('x1 = 0', [(Fraction(1, 1), {0: 1}, {})]), ('x1 >= 1', [(Fraction(1, 1), {0: 1}, {}), (Fraction(2, 1), {0: -1}, {})])]
    """
    fams = families(chain)
    sub, loc = sub_chain(chain, c, fams)
    levels = {loc[a]: k for a, k in cluster_levels(st, c).items()}
    order = list(loc)
    lpos = {a: k for k, a in enumerate(levels)}
    phased = [a for a in c.stations if st.phase_count(a)]
    for n, R in enumerate(iter_regions(sub, levels, deadline)):
        if n % POLL_EVERY == 0:
            check_deadline(deadline, "separable check")
        lev = {order[k]: R.levels[lpos[k]] for k in lpos}
        ranges = [[-1] if loc[a] in R.empty else list(range(st.phase_count(a))) for a in phased]
        for vec in product(*ranges):
            psi = dict(zip(phased, vec))
            jumps = [jp for fn in c.families for jp in _family_jumps(chain, sub, loc, R, fams[fn], lev, psi)]
            yield LocalState(R, psi, lev, jumps)


class GroupCells:
    """A group's cells (:meth:`Structure.cells`): the cell a local state is in, and the one a jump moves it to.

    Parameters
    ----------
    st : Structure
        The shape.
    g : int
        One of its groups.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> st = Structure(((0, 1),), ((0,),), 1, ((0, 0), (1, 1)))
    >>> s = next(s for s in local_states(ch, st, clusters(ch, st)[0]) if s.levels == {0: 0, 1: 0})
    >>> cells = GroupCells(st, 0)
    >>> s.levels, cells.change(s, cells.key(s), s.jumps[0])
    ({0: 0, 1: 0}, (0, 2))
    """

    def __init__(self, st: Structure, g: int) -> None:
        self.stations = st.groups[g]
        self.levels = st.group_levels(g)
        self.phased = tuple(a for a in self.stations if st.phase_count(a))
        self.index = {cell: k for k, cell in enumerate(st.cells(g))}
        self._queues = frozenset(self.stations)
        self._phases = frozenset(self.phased)

    def key(self, s: LocalState) -> tuple[int, ...]:
        """The cell of a local state: its clipped queues, then the phases of the group's phase-type stations."""
        return (tuple(min(s.levels[a], k) for a, k in zip(self.stations, self.levels))
                + tuple(s.phases[a] for a in self.phased))

    def change(self, s: LocalState, before: tuple[int, ...], jump: Jump) -> tuple[int, int] | None:
        """The indices of the cells before (``before`` = :meth:`key` of ``s``) and after a jump; None if unchanged."""
        _, d, newph = jump
        if self._queues.isdisjoint(d) and self._phases.isdisjoint(newph):
            return None
        after = (tuple(min(s.levels[a] + d.get(a, 0), k) for a, k in zip(self.stations, self.levels))
                 + tuple(newph.get(a, s.phases[a]) for a in self.phased))
        if before == after:
            return None
        return self.index[before], self.index[after]


def form_value(form: Mapping[int, Fraction], theta: Sequence[Fraction]) -> Fraction:
    """The value of a linear form (coefficient index -> factor) at the coefficients ``theta``, exactly.

    Parameters
    ----------
    form : mapping of int to Fraction
        The form.
    theta : sequence of Fraction
        The coefficients.

    Returns
    -------
    Fraction
        sum of factor x theta[index].

    Examples
    --------
    >>> form_value({0: Fraction(2), 2: Fraction(-1)}, [Fraction(1), Fraction(5), Fraction(3)])
    Fraction(-1, 1)
    """
    return sum((x * theta[v] for v, x in form.items()), Fraction(0))


#: The largest common denominator (in bits) :func:`form_evaluator` puts the coefficients over; past it (a
#: certificate's coefficients with many unrelated denominators) it evaluates as :func:`form_value` does.
MAX_COMMON_BITS = 4096


def form_evaluator(theta: Sequence[Fraction]) -> Callable[[Mapping[int, Fraction]], Fraction]:
    """:func:`form_value` at fixed coefficients, in integer arithmetic: theta is put over one denominator once.

    A form's terms are summed as integers by their own denominators (a form has one or two), so a cluster's
    thousands of forms cost one fraction each instead of one per term (the exact checks of a depth-3 cascade or of
    eight Erlang-2 gadgets spent a quarter of their time in :func:`form_value`).

    Parameters
    ----------
    theta : sequence of Fraction
        The coefficients.

    Returns
    -------
    callable
        form -> sum of factor x theta[index], exactly (equal to :func:`form_value`).

    Examples
    --------
    >>> value = form_evaluator([Fraction(1), Fraction(5, 2), Fraction(3, 4)])
    >>> value({0: Fraction(2), 2: Fraction(-1, 3)}), form_value({0: Fraction(2), 2: Fraction(-1, 3)},
    ...                                                         [Fraction(1), Fraction(5, 2), Fraction(3, 4)])
    (Fraction(7, 4), Fraction(7, 4))
    """
    T, G = over_common_denominator(theta)
    if G.bit_length() > MAX_COMMON_BITS:
        return lambda form: form_value(form, theta)

    def value(form: Mapping[int, Fraction]) -> Fraction:
        acc: dict[int, int] = {}
        for v, x in form.items():
            t = T[v]
            if t:
                q = x.denominator
                acc[q] = acc.get(q, 0) + x.numerator * t
        if len(acc) == 1:
            (q, n), = acc.items()
            return Fraction(n, q * G)
        return sum((Fraction(n, q * G) for q, n in acc.items()), Fraction(0))

    return value


def coefficient_vector(names: Sequence[str], theta: Sequence[Fraction] | Mapping[str, Fraction], what: str) -> list[Fraction] | str:
    """The coefficients in ``names`` order, from a vector or a map by name; or why they do not fit.

    Parameters
    ----------
    names : sequence of str
        The coefficient names, in order.
    theta : sequence or mapping of Fraction
        The coefficients as given: every name and no other, or one value per name.
    what : str
        Whose coefficients (opens the reason: ``"template quadratic"``).

    Returns
    -------
    list of Fraction or str
        The vector, or the reason in words.

    Examples
    --------
    >>> coefficient_vector(["a", "b"], {"b": Fraction(2), "a": Fraction(1)}, "the shape")
    [Fraction(1, 1), Fraction(2, 1)]
    >>> coefficient_vector(["a", "b"], [Fraction(1)], "the shape")
    'the shape needs 2 coefficients, got 1'
    """
    if isinstance(theta, Mapping):
        if set(theta) != set(names):
            missing = sorted(set(names) - set(theta))[:3]
            extra = sorted(set(theta) - set(names))[:3]
            return f"{what} coefficients differ: missing {missing}, unexpected {extra}"
        theta = [theta[n] for n in names]
    if len(theta) != len(names):
        return f"{what} needs {len(names)} coefficients, got {len(theta)}"
    return [Fraction(t) for t in theta]
