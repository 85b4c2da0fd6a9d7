"""Exact symmetry of a chain: station classes, automorphisms, and the sorted chamber (pure Python).

A permutation sigma of the stations is an *automorphism* of a chain when it
maps every datum to itself: service rates, the multiset of arrival streams
(choice set, rate), feedback (source, set, probability), the probability of
leaving, and the tie-breaking rules.  Then the generator commutes with sigma:
if V o sigma = V, then (AV) o sigma = AV, and the fluid model's velocity sets
map by sigma as well.

:func:`station_classes` finds the *station classes*: sets of stations any two of
which are interchanged by an automorphism that fixes the others (the
transposition (a b) is an automorphism).  This relation is an equivalence
((a c) = (a b)(b c)(a b)), so the classes partition the stations and the
group generated is the product of the symmetric groups on the classes.  Its
generators are the adjacent transpositions within each class.

The *sorted chamber* ``C`` is the set of states whose queues ascend, in station
order, within every class: ``x_a <= x_b`` for a < b in one class.  Every state
is mapped into it by some automorphism (sort each class), so every orbit of
regions (and of fluid faces) has a member that meets the chamber: enumerating
the signatures of regions that meet the chamber, and checking an invariant V
on those regions, checks V on every region.  Within the chamber, the stations
of a class that are tied-shortest in a choice set form a *prefix* of the
set's stations of that class (:func:`chamber_argmins`), which is what keeps the
enumeration polynomial for identical stations.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product

from .chain import Chain

__all__ = ["Symmetry", "is_automorphism", "station_classes", "chamber_argmins", "reducing", "TRIVIAL"]


@dataclass(frozen=True)
class Symmetry:
    """Station classes of a chain: each a sorted tuple of two or more station indices.

    Attributes
    ----------
    classes : tuple of tuple of int
        Disjoint classes; stations in no class are fixed by the group.

    Examples
    --------
    >>> s = Symmetry(((0, 1, 2),))
    >>> s.trivial, s.generators(), s.order()
    (False, [(1, 0, 2), (0, 2, 1)], 6)
    >>> s.class_of(4) is None, s.chamber()
    (True, [(0, 1), (1, 2)])
    """

    classes: tuple[tuple[int, ...], ...] = ()

    @property
    def trivial(self) -> bool:
        """True when no two stations are interchangeable."""
        return not self.classes

    def class_of(self, a: int) -> tuple[int, ...] | None:
        """The class of station ``a``, or None when ``a`` is fixed."""
        return next((c for c in self.classes if a in c), None)

    def generators(self, J: int | None = None) -> list[tuple[int, ...]]:
        """The adjacent transpositions within each class, as permutations (``perm[a]`` is the image of ``a``).

        Parameters
        ----------
        J : int, optional
            The number of stations (default: one more than the largest station in a class).

        Returns
        -------
        list of tuple of int
            One permutation per generator.
        """
        n = J if J is not None else 1 + max((max(c) for c in self.classes), default=-1)
        out = []
        for c in self.classes:
            for a, b in zip(c, c[1:]):
                perm = list(range(n))
                perm[a], perm[b] = b, a
                out.append(tuple(perm))
        return out

    def order(self) -> int:
        """The order of the group (the product of the factorials of the class sizes)."""
        out = 1
        for c in self.classes:
            for k in range(2, len(c) + 1):
                out *= k
        return out

    def chamber(self) -> list[tuple[int, int]]:
        """The chamber's inequalities ``x_a <= x_b``, as pairs (a, b): consecutive stations of each class."""
        return [(a, b) for c in self.classes for a, b in zip(c, c[1:])]

    def invariant(self, w: Sequence[Fraction]) -> bool:
        """True when the vector ``w`` (one entry per station) is constant on every class."""
        return all(len({w[a] for a in c}) == 1 for c in self.classes)


#: No symmetry.
TRIVIAL = Symmetry(())


def reducing(symmetry: Symmetry | None) -> Symmetry | None:
    """``symmetry`` when it has a class to reduce by, else None (no classes: nothing to reduce).

    Parameters
    ----------
    symmetry : Symmetry or None
        Station classes, possibly trivial.

    Returns
    -------
    Symmetry or None
        The same classes, or None when there are none.

    Examples
    --------
    >>> reducing(Symmetry(())) is None, reducing(Symmetry(((0, 1),))).classes
    (True, ((0, 1),))
    """
    return None if symmetry is None or symmetry.trivial else symmetry


def _image(perm: Sequence[int], C: Sequence[int]) -> tuple[int, ...]:
    return tuple(sorted(perm[a] for a in C))


def is_automorphism(chain: Chain, perm: Sequence[int]) -> bool:
    """True when the permutation ``perm`` of the stations maps every datum of ``chain`` to itself (exact).

    Parameters
    ----------
    chain : Chain
        The chain (rates, streams, feedback, leaving probabilities, tie-breaking).
    perm : sequence of int
        ``perm[a]`` is the image of station ``a``.

    Returns
    -------
    bool
        Whether ``perm`` is a permutation of the stations that preserves the chain.

    Examples
    --------
    Two identical stations sharing a stream, and a third of another rate:

    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2", "3"), (F(1), F(1), F(2)), (((0, 1), F(1)), ((2,), F(1))), (), (F(1),) * 3)
    >>> is_automorphism(ch, (1, 0, 2)), is_automorphism(ch, (2, 1, 0)), is_automorphism(ch, (0, 0, 2))
    (True, False, False)
    """
    J = chain.J
    if sorted(perm) != list(range(J)):
        return False
    if any(chain.mu[perm[a]] != chain.mu[a] or chain.leave[perm[a]] != chain.leave[a] for a in range(J)):
        return False
    if sorted((_image(perm, C), lam) for C, lam in chain.arrivals) != sorted(chain.arrivals):
        return False
    if sorted((perm[i], _image(perm, C), p) for i, C, p in chain.feedback) != sorted(chain.feedback):
        return False
    ties = {C: dict(zip(C, probs)) for C, probs in chain.ties}
    mapped = {_image(perm, C): {perm[a]: p for a, p in zip(C, probs)} for C, probs in chain.ties}
    return ties == mapped


#: What an automorphism preserves about one station: its rate, its leaving probability, its arrival streams
#: (size of the set, rate), its feedback (size of the set, probability, from it, into it) and how many tie rules name it.
_Invariants = tuple[Fraction, Fraction, tuple[tuple[int, Fraction], ...], tuple[tuple[int, Fraction, bool, bool], ...], int]


class _Incidence:
    """For each station, the arrival streams, feedback entries and tie rules it appears in (by index)."""

    def __init__(self, chain: Chain):
        J = chain.J
        self.arr: list[list[int]] = [[] for _ in range(J)]
        self.fb: list[list[int]] = [[] for _ in range(J)]
        self.ties: list[list[int]] = [[] for _ in range(J)]
        for k, (C, _) in enumerate(chain.arrivals):
            for a in C:
                self.arr[a].append(k)
        for k, (i, C, _) in enumerate(chain.feedback):
            for a in {i, *C}:
                self.fb[a].append(k)
        for k, (C, _) in enumerate(chain.ties):
            for a in C:
                self.ties[a].append(k)

    def invariants(self, chain: Chain, a: int) -> _Invariants:
        """What an automorphism must preserve about station ``a`` alone (a cheap filter before testing a transposition)."""
        arr = sorted((len(chain.arrivals[k][0]), chain.arrivals[k][1]) for k in self.arr[a])
        fb = sorted((len(chain.feedback[k][1]), chain.feedback[k][2], chain.feedback[k][0] == a, a in chain.feedback[k][1])
                    for k in self.fb[a])
        return (chain.mu[a], chain.leave[a], tuple(arr), tuple(fb), len(self.ties[a]))

    def swap_preserves(self, chain: Chain, a: int, b: int) -> bool:
        """True when the transposition (a b) is an automorphism (the same test as :func:`is_automorphism`).

        Entries that contain neither station are fixed by (a b); the others are mapped
        among themselves, so only they are compared: O(entries of a and b), not of the chain.
        """
        if chain.mu[a] != chain.mu[b] or chain.leave[a] != chain.leave[b]:
            return False

        def sw(x: int) -> int:
            return b if x == a else a if x == b else x

        arr = [chain.arrivals[k] for k in {*self.arr[a], *self.arr[b]}]
        if Counter(arr) != Counter((tuple(sorted(map(sw, C))), lam) for C, lam in arr):
            return False
        fb = [chain.feedback[k] for k in {*self.fb[a], *self.fb[b]}]
        if Counter(fb) != Counter((sw(i), tuple(sorted(map(sw, C))), p) for i, C, p in fb):
            return False
        ties = [chain.ties[k] for k in {*self.ties[a], *self.ties[b]}]
        same = Counter((C, tuple(zip(C, probs))) for C, probs in ties)
        image = Counter(
            (tuple(sorted(map(sw, C))), tuple(sorted((sw(x), q) for x, q in zip(C, probs)))) for C, probs in ties
        )
        return same == image


def station_classes(chain: Chain) -> Symmetry:
    """The station classes of ``chain``: stations interchanged by a transposition that is an automorphism.

    Candidates are grouped by what an automorphism must preserve about one
    station (rate, leaving probability, the sizes and rates of the streams and
    feedback it takes part in); within a group, each station is tested against
    one representative of each class found so far (the relation is an
    equivalence), so at most J^2 / 2 transpositions are tested exactly, each
    on the entries of its two stations only.  (Only a proposal: the exact
    checker verifies every generator with :func:`is_automorphism`.)
    A phase-type expansion (whose states carry phases) gets no classes here:
    only the chain's means are compared.

    Parameters
    ----------
    chain : Chain
        The chain.

    Returns
    -------
    Symmetry
        The classes with two or more stations.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2", "3", "4"), (F(1), F(2), F(1), F(1)), (((0, 1, 2, 3), F(4)),), (), (F(1),) * 4)
    >>> station_classes(ch).classes
    ((0, 2, 3),)
    """
    if chain.has_phases:
        return TRIVIAL
    inc = _Incidence(chain)
    groups: dict[_Invariants, list[int]] = {}
    for a in range(chain.J):
        groups.setdefault(inc.invariants(chain, a), []).append(a)
    classes: list[list[int]] = []
    for members in groups.values():
        found: list[list[int]] = []
        for a in members:
            for cl in found:
                if inc.swap_preserves(chain, cl[0], a):
                    cl.append(a)
                    break
            else:
                found.append([a])
        classes.extend(c for c in found if len(c) > 1)
    return Symmetry(tuple(sorted(tuple(sorted(c)) for c in classes)))


def chamber_argmins(
    C: tuple[int, ...], sym: Symmetry, restrict: Sequence[tuple[frozenset[int], frozenset[int]]] = ()
) -> Iterator[tuple[int, ...]]:
    """The candidate tied-shortest sets of choice set ``C`` on the sorted chamber.

    On the chamber the queues ascend within each class, so the tied-shortest
    stations of ``C`` that lie in a class form a prefix of ``C``'s stations of
    that class; stations of ``C`` in no class (or alone in ``C``'s part of their
    class) are in or out freely.  Every non-empty union of such choices is a
    candidate (the enumeration then keeps the feasible ones).

    Parameters
    ----------
    C : tuple of int
        A choice set (sorted).
    sym : Symmetry
        The station classes.
    restrict : sequence of (frozenset, frozenset), optional
        Pairs (C', B'): routing sets C' inside C whose tied-shortest set B' is
        already chosen.  A candidate B must meet C' in nothing or in B' (the
        shortest queue of C is in C' only if it is the shortest of C'), so the
        choices for a part of C inside C' are cut to nothing or B''s part; the
        order of the others is kept (the caller checks the rest).

    Yields
    ------
    tuple of int
        Candidate tied-shortest sets (sorted, non-empty).

    Examples
    --------
    >>> sorted(chamber_argmins((0, 1, 2), Symmetry(((0, 1, 2),))))
    [(0,), (0, 1), (0, 1, 2)]
    >>> len(list(chamber_argmins((0, 1, 2, 3), Symmetry(((0, 1),)))))   # 3 prefixes x 2 x 2, minus the empty set
    11
    >>> list(chamber_argmins((0, 1, 2, 3), Symmetry(((0, 1), (2, 3))), [(frozenset({0, 1}), frozenset({0}))]))
    [(2,), (2, 3), (0,), (0, 2), (0, 2, 3)]
    """
    parts: list[list[tuple[int, ...]]] = []
    seen: set[int] = set()
    for cl in sym.classes:
        inside = tuple(a for a in cl if a in C)
        if not inside:
            continue
        seen.update(inside)
        parts.append([inside[:k] for k in range(len(inside) + 1)])
    for a in C:
        if a not in seen:
            parts.append([(), (a,)])
    for Cp, Bp in restrict:
        for k, opts in enumerate(parts):
            members = set(opts[-1])
            if members <= Cp:
                want = tuple(a for a in opts[-1] if a in Bp)
                parts[k] = [o for o in opts if not o or o == want]
    for choice in product(*parts):
        B = tuple(sorted(a for piece in choice for a in piece))
        if B:
            yield B
