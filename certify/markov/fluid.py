"""The fluid model of a JSQ network: faces and their admissible velocities (exact).

Scale queue lengths and time by n: the limits z(t) are *fluid paths*.  On a
face F of the fluid state space (fixed argmin sets of the routing sets, fixed
set E of empty stations) a fluid path that stays in F moves with a velocity

    v_j = (inflow into j) - mu_j u_j,

where every stream or feedback flow splits *arbitrarily* over its tied set
(any tie-breaking rule), u_j = 1 for non-empty stations, u_j in [0, 1] for
empty ones, and v is tangent to F: v = 0 on E, and stations whose queues are
equal on F move together.  Only the total inflow of a tie class matters for the
class's common velocity, so v is fixed by the throughputs t_e = mu_e u_e of the
empty stations; those satisfy the flow balance of the empty set.  When no flow
splits over two or more empty stations, the balance has one solution (solved
exactly here); otherwise it is relaxed to the box 0 <= t_e <= mu_e and the one
equation "out of E = into E from outside" — a superset of the true velocity
set, so conditions checked over it are sufficient.

:func:`fluid_faces` lists the faces with their velocity sets;
:func:`certify.markov.fluid_rates.max_rate` maximises a linear function of the
velocity over a face exactly (a fractional knapsack).  Pure Python, exact: no numpy.
"""

from __future__ import annotations

import gc
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from math import lcm

from ..core.numbers import solve
from .chain import Chain
from .cones import cone_generators
from .dbm import INF
from .regions import POLL_EVERY, Region, check_deadline, iter_regions
from .symmetry import Symmetry

__all__ = ["FluidFace", "fluid_faces", "fluid_chain"]


@dataclass(frozen=True)
class FluidFace:
    """A face of the fluid state space with its admissible velocities.

    Velocities are ``v0 + sum_e t_e * dirs[e]`` over the throughputs t of the
    empty stations in ``box`` (upper bounds mu_e) with ``sum_e h_e t_e = beta``;
    ``fixed`` faces have one velocity (``dirs`` empty).  ``generators`` span the
    closure of the face (0/1 vectors).

    Attributes
    ----------
    region : Region
        The face, as a region of :func:`fluid_chain`.
    given_generators : tuple of tuple of int or None
        Generators of its closure, or None: the cone generators of ``region``
        (:attr:`generators` computes them on first use).
    v0 : tuple of Fraction
        The velocity at zero throughput of the empty stations.
    empties, dirs, box, h, beta
        The empty stations, the velocity per unit of their throughput, its upper
        bounds, and the balance ``sum_e h_e t_e = beta`` (relaxed faces only).

    Examples
    --------
    Two stations sharing a stream of rate 1, a third fed at rate 1/2: on the face
    x1 = x2 = 0 the shared stream splits in any way over the two empty stations.

    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2", "3"), (F(1),) * 3, (((0, 1), F(1)), ((2,), F(1, 2))), (), (F(1),) * 3)
    >>> face = [f for f in fluid_faces(ch) if not f.fixed][0]
    >>> face.region.describe(ch.ids), face.empties, face.v0, face.h, face.beta
    ('x1 = x2 = 0, x3 >= 1', (0, 1), (Fraction(0, 1), Fraction(0, 1), Fraction(-1, 2)), (Fraction(1, 1), Fraction(1, 1)), Fraction(1, 1))
    """

    region: Region
    given_generators: tuple[tuple[int, ...], ...] | None
    v0: tuple[Fraction, ...]
    empties: tuple[int, ...] = ()
    dirs: tuple[tuple[Fraction, ...], ...] = ()
    box: tuple[Fraction, ...] = ()
    h: tuple[Fraction, ...] = ()
    beta: Fraction = Fraction(0)

    @property
    def fixed(self) -> bool:
        """True when the face has one velocity."""
        return not self.dirs

    @property
    def generators(self) -> tuple[tuple[int, ...], ...]:
        """Generators of the face's closure: as given, or (given None) the cone generators of the region, found on first use.

        Linear certificates never ask (a face is kept only when it is unbounded), so most
        faces never pay for them.
        """
        if self.given_generators is None:
            object.__setattr__(self, "given_generators", tuple(cone_generators(self.region)))  # a cache of a pure function
        assert self.given_generators is not None
        return self.given_generators


def fluid_chain(chain: Chain) -> Chain:
    """A chain with the same routing sets and no post-departure comparison (fluid faces ignore it).

    Feedback sets become zero-information arrival sets, so :func:`enumerate_regions`
    splits the state space by exactly the fluid signatures.

    Parameters
    ----------
    chain : Chain
        The chain.

    Returns
    -------
    Chain
        Unit-rate arrivals into every routed set, no feedback, everyone leaves.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0,), F(1)),), ((0, (0, 1), F(1, 2)),), (F(1, 2), F(1)))
    >>> fluid_chain(ch).arrivals, fluid_chain(ch).feedback
    ((((0,), Fraction(1, 1)), ((0, 1), Fraction(1, 1))), ())
    """
    sets = {c for c, _ in chain.arrivals} | {c for _, c, _ in chain.feedback}
    return Chain(chain.ids, chain.mu, tuple(sorted((c, Fraction(1)) for c in sets)), (), tuple(Fraction(1) for _ in chain.mu))


@dataclass(frozen=True)
class _Sources:
    """The flows of a chain in integers scaled by D: (source station or None, set, rate if busy, rate per unit t)."""

    D: int
    flows: tuple[tuple[int | None, tuple[int, ...], int, int], ...]
    mu: tuple[int, ...]

    @classmethod
    def of(cls, chain: Chain) -> _Sources:
        nums = [*(lam for _, lam in chain.arrivals), *chain.mu, *(p for _, _, p in chain.feedback)]
        nums += [chain.mu[i] * p for i, _, p in chain.feedback]
        D = lcm(*(Fraction(x).denominator for x in nums))
        flows: list[tuple[int | None, tuple[int, ...], int, int]] = [(None, C, int(lam * D), 0) for C, lam in chain.arrivals]
        flows += [(i, C, int(chain.mu[i] * p * D), int(p * D)) for i, C, p in chain.feedback]
        return cls(D, tuple(flows), tuple(int(m * D) for m in chain.mu))


@lru_cache(maxsize=1 << 16)
def _frac(n: int, d: int) -> Fraction:
    """Fraction(n, d), shared: the faces of one network repeat a few velocities many times."""
    return Fraction(n, d)


def _tie_classes(region: Region, J: int) -> list[tuple[int, ...]]:
    """Tie classes of the non-empty stations from the signature alone: the components of "tied in some argmin".

    On a region of a fluid chain every constraint is ``x_u - x_v <= 0`` or ``<= -1``
    (ties, strict orders, empties and the origin), so two non-empty stations are
    equal on the whole region exactly when a path of ties joins them (a path through
    the origin would pass an empty station and bound a non-empty one by 0).  This
    gives the classes of the whole region from a piece of it (the chamber's), and
    of a whole region without reading its DBM (``tests/test_fluid.py`` compares the
    two on every region of a set of networks).
    """
    label = list(range(J))  # a component's label is one of its members; members[label] lists them
    members: dict[int, list[int]] = {a: [a] for a in range(J)}
    for B in region.argmin:
        labels = {label[b] for b in B}
        if len(labels) < 2:
            continue
        big = max(labels, key=lambda r: len(members[r]))  # merge the smaller components into the largest
        for r in labels:
            if r != big:
                for a in members[r]:
                    label[a] = big
                members[big].extend(members.pop(r))
    empty = set(region.empty)
    groups = (tuple(sorted(a for a in g if a not in empty)) for g in members.values())
    return sorted((g for g in groups if g), key=lambda g: g[0])


def _face(chain: Chain, region: Region, src_data: _Sources | None = None, whole: bool = True) -> FluidFace | None:
    """The velocity set of one face, or None when no fluid path can stay on it.

    ``whole`` False: ``region`` is the face's piece on the sorted chamber of a
    symmetry; the tie classes then come from the signature (:func:`_tie_classes`)
    and the face keeps one generator of its closure, the indicator of the piece's
    unbounded stations -- enough for linear certificates, which need only to know
    that the face is unbounded.
    """
    J = chain.J
    sd = src_data or _Sources.of(chain)
    D = sd.D
    empty = tuple(region.empty)
    E = set(empty)
    classes = _tie_classes(region, J)  # equal to the classes read off the DBM (_classes), from the signature alone
    cls_of = {a: k for k, cl in enumerate(classes) for a in cl}
    argmin = dict(zip(chain.routing_sets, region.argmin))

    def target(C: tuple[int, ...]) -> tuple[int, ...]:
        return argmin.get(C, C)

    # Accumulate in integers scaled by D (exact, and much faster than Fractions), convert at the end.
    fixed_i = [0] * len(classes)  # inflow into each class not depending on t
    t_cls_i: dict[int, list[int]] = {e: [0] * len(classes) for e in empty}  # per unit t_e
    ext_e_i: dict[int, int] = defaultdict(int)  # fixed inflow into a single empty station
    ext_E_i = 0  # fixed inflow into E (any split)
    stay_i: dict[int, int] = defaultdict(int)  # feedback of e that stays in E (per unit t_e)
    q_i: dict[tuple[int, int], int] = defaultdict(int)  # e' -> e (single empty target), per unit t_e'
    split_in_E = False
    for src, C, busy, per_t in sd.flows:
        B = target(C)
        from_empty = src is not None and src in E
        r = per_t if from_empty else busy
        if B[0] in E:
            if len(B) > 1:
                split_in_E = True
            if not from_empty:
                ext_E_i += r
                if len(B) == 1:
                    ext_e_i[B[0]] += r
            else:
                stay_i[src] += r  # type: ignore[index]
                if len(B) == 1:
                    q_i[(src, B[0])] += r  # type: ignore[index]
        else:
            k = cls_of[B[0]]
            if not from_empty:
                fixed_i[k] += r
            else:
                t_cls_i[src][k] += r  # type: ignore[index]
    ext_e = defaultdict(Fraction, {e: _frac(x, D) for e, x in ext_e_i.items()})
    ext_E = _frac(ext_E_i, D)
    q_single = {k: _frac(x, D) for k, x in q_i.items()}
    # v_T = (fixed_T + sum_e t_e w_eT - mu(T)) / |T|, the same for every member of T: computed per class in
    # integers (one Fraction per class), then spread over the members
    sizes = [len(cl) for cl in classes]
    mu_cls = [sum(sd.mu[a] for a in cl) for cl in classes]

    def spread(per_class: Sequence[Fraction]) -> tuple[Fraction, ...]:
        v = [Fraction(0)] * J
        for k, cl in enumerate(classes):
            for a in cl:
                v[a] = per_class[k]
        return tuple(v)

    free = tuple(int(region.dbm[a + 1][0] >= INF) for a in range(J))  # the face is unbounded iff some station is
    gens: tuple[tuple[int, ...], ...] | None
    if not any(free):
        gens = ()
    else:
        gens = None if whole else (free,)  # whole: the cone's generators, computed if a quadratic certificate asks
    if not empty:
        return FluidFace(region, gens, spread([_frac(fixed_i[k] - mu_cls[k], D * sizes[k]) for k in range(len(classes))]))
    if not split_in_E:
        # t_e = ext_e + sum_e' q(e' -> e) t_e' (q per unit throughput), solved exactly
        idx = {e: n for n, e in enumerate(empty)}
        t: list[Fraction] | None
        if q_single:
            A = [[Fraction(int(a == b)) for b in empty] for a in empty]
            for (a_src, dst), q in q_single.items():
                A[idx[dst]][idx[a_src]] -= q
            t = solve(A, [ext_e[e] for e in empty])
        else:  # no empty station feeds another: the system is the identity
            t = [ext_e[e] for e in empty]
        if t is not None:
            if any(t[idx[e]] > chain.mu[e] or t[idx[e]] < 0 for e in empty):
                return None  # the empty stations cannot keep up: the fluid leaves this face at once
            L = lcm(*(x.denominator for x in t))
            T = [x.numerator * (L // x.denominator) for x in t]
            rows = [(T[n], t_cls_i[e]) for n, e in enumerate(empty) if T[n] and any(t_cls_i[e])]
            per = [
                _frac((fixed_i[k] - mu_cls[k]) * L + sum(Tn * row[k] for Tn, row in rows), D * L * sizes[k])
                for k in range(len(classes))
            ]
            return FluidFace(region, gens, spread(per))
    # relaxed: 0 <= t_e <= mu_e and sum_e t_e (1 - stay_e) = ext_E; feasible iff ext_E <= sum_e (1 - stay_e) mu_e,
    # compared in integers (times D^2) before any Fraction is made
    if ext_E_i * D > sum((D - stay_i[e]) * sd.mu[e] for e in empty):
        return None
    v0 = spread([_frac(fixed_i[k] - mu_cls[k], D * sizes[k]) for k in range(len(classes))])
    zero = Fraction(0)
    dirs = [
        spread([_frac(row[k], D * sizes[k]) if row[k] else zero for k in range(len(classes))]) if any(row) else (zero,) * J
        for row in (t_cls_i[e] for e in empty)
    ]
    h = tuple(_frac(D - stay_i[e], D) for e in empty)
    box = tuple(chain.mu[e] for e in empty)
    return FluidFace(region, gens, tuple(v0), empty, tuple(dirs), box, h, ext_E)


def fluid_faces(chain: Chain, deadline: float | None = None, symmetry: Symmetry | None = None) -> list[FluidFace]:
    """Every face of the fluid state space on which a fluid path can stay, with its velocities.

    With a ``deadline`` (``time.perf_counter()`` value) the enumeration polls the
    clock and raises :class:`certify.markov.regions.TimeLimitReached` once it has passed.
    With a ``symmetry`` (the chain's station classes) only the faces meeting the
    sorted chamber are listed -- every orbit of faces has one -- each as its piece
    on the chamber (``region``), with the velocity set of the whole face and one
    generator, the indicator of its unbounded stations: the faces a *linear*
    certificate invariant under the classes must be checked on
    (:mod:`certify.markov.symmetry`).

    Parameters
    ----------
    chain : Chain
        The chain.
    deadline : float, optional
        A ``time.perf_counter()`` value.
    symmetry : Symmetry, optional
        Station classes of ``chain`` (automorphisms: the caller checks them).

    Returns
    -------
    list of FluidFace
        The unbounded faces a fluid path can stay on (their representatives, with a ``symmetry``).

    Raises
    ------
    TimeLimitReached
        When the deadline passes.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> mm1 = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    >>> [(f.generators, f.v0) for f in fluid_faces(mm1)]
    [(((1,),), (Fraction(-1, 1),))]
    >>> from certify.markov.symmetry import Symmetry
    >>> jsq = Chain(("1", "2", "3"), (F(1),) * 3, (((0, 1, 2), F(2)),), (), (F(1),) * 3)
    >>> len(fluid_faces(jsq)), len(fluid_faces(jsq, symmetry=Symmetry(((0, 1, 2),))))
    (10, 4)
    """
    fc = fluid_chain(chain)
    sd = _Sources.of(chain)
    whole = symmetry is None or symmetry.trivial
    out = []
    collecting = gc.isenabled()
    gc.disable()  # millions of small tuples, none in a cycle: the collector's passes would only cost time
    try:
        for k, region in enumerate(iter_regions(fc, deadline=deadline, symmetry=symmetry)):
            if deadline is not None and k % POLL_EVERY == 0:
                check_deadline(deadline, "fluid face listing")
            face = _face(chain, region, sd, whole=whole)
            if face is None or face.given_generators == ():
                continue
            if not whole:  # a piece of the chamber keeps its signature only (failures re-derive the whole face from it)
                face = replace(face, region=Region(region.argmin, region.empty, region.shifted, (), region.levels))
            out.append(face)
    finally:
        if collecting:
            gc.enable()
    return out
