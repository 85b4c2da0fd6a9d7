"""Face-guided tables: small fast sets read off the directions where the first Foster search failed.

The default table (:func:`certify.templates.table.default_fast`) follows every station that
shares a choice set; on a random network of six or more stations that is most of them, and
the refined regions are too many to list.  Yet near the boundary only a few of them matter.
Where the first Foster LP fails, its binding cone generators name a face N: the stations
that are large together.  On N, a choice set C routes its customers among C \\ N, the
small stations of C; where C \\ N has one station the fluid model knows the split, where it
has two or more the split is decided by the small stations' own random motion, which no
function of the large coordinates sees.  Those sets (and their union, when it is small)
are the fast sets tried here: a Foster table and a growth function with a table over each,
the growth support N first.

Nothing here is a new certificate: each try is the ``table`` template (Foster) or the
growth certificate with a bounded table, with the fast stations as an option, checked
exactly as every other one.  Only the choice of the fast stations is new.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..markov.chain import Chain
from ..templates.table import default_fast

__all__ = ["FACE_K", "FACE_REGIONS", "SMALL_K", "FACE_GROWTH_K", "FACE_SUPPORTS", "MAX_FACE_FAST", "MAX_SETS",
           "FaceTries", "face_fast_sets", "face_tries_apply", "faces_of"]

#: The clip level of the face-guided Foster tables (SMALL_K where the refined regions would be too many),
#: and those of their growth tables.
FACE_K, SMALL_K = 4, 2
FACE_GROWTH_K = (4, 8)
#: The most stations a face-guided table follows (its cells are (K + 1)^|F| per multiplier).
MAX_FACE_FAST = 3
#: The most faces (distinct supports of binding generators) and fast sets tried.
MAX_FACES, MAX_SETS = 2, 3
#: The most growth supports a face-guided growth try solves for (the face first).
FACE_SUPPORTS = 4
#: The most refined regions a face-guided try lists (its size bound, base regions x (K + 2)^|F|, can be far
#: above the count: :meth:`certify.proof.context.Regions.get`).
FACE_REGIONS = 80_000


@dataclass(frozen=True)
class FaceTries:
    """The face-guided tries of the schedule: their fast sets come from the first Foster LP's binding directions.

    Examples
    --------
    >>> FaceTries().stage
    'face-guided tables'
    """

    @property
    def stage(self) -> str:
        """Its name, as the run's summary lists it."""
        return "face-guided tables"


def face_tries_apply(chain: Chain, templates: list[str]) -> bool:
    """Whether the schedule holds face-guided tries: the table template is asked and the default table is large.

    Parameters
    ----------
    chain : Chain
        The Markovian chain.
    templates : list of str
        The Foster templates asked for.

    Returns
    -------
    bool
        True when ``table`` is among ``templates`` and the default table follows more than
        :data:`MAX_FACE_FAST` stations (with fewer, the default tables already cover every face's sets).

    Examples
    --------
    >>> from certify.io.loader import load
    >>> from certify.markov.chain import compile_chain
    >>> face_tries_apply(compile_chain(load("models/tie-breaking-J3.json")), ["quadratic", "table"])
    False
    """
    return "table" in templates and len(default_fast(chain)) > MAX_FACE_FAST


def face_fast_sets(chain: Chain, face: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The fast sets for a face N: each choice set's part outside N of two or more stations, then their union.

    The parts whose stations feed back into N (through a choice set inside N) come first, by
    that rate: their split is what moves the load of N.

    Parameters
    ----------
    chain : Chain
        The chain.
    face : tuple of int
        The stations of N (those large together), by index.

    Returns
    -------
    list of tuple of int
        Distinct sorted station sets of 2 to :data:`MAX_FACE_FAST` stations: the parts C minus N
        (by the rate their stations feed into N, then smallest first), then their union when it
        has at most :data:`MAX_FACE_FAST` stations.

    Examples
    --------
    Streams into {1, 2, 4} and {4, 6}, feedback from 4 into {2, 5, 6} and from 5 into {4}; on the
    face {4, 6} the first stream routes among {1, 2}, 4's feedback among {2, 5} (and 5 feeds N),
    the second stream never leaves N:

    >>> from fractions import Fraction as F
    >>> ch = Chain(tuple("123456"), (F(1),) * 6, (((0, 1, 3), F(1, 2)), ((3, 5), F(1))),
    ...            ((3, (1, 4, 5), F(2, 5)), (4, (3,), F(1, 2))), (F(1),) * 3 + (F(3, 5), F(1, 2), F(1)))
    >>> [[ch.ids[j] for j in s] for s in face_fast_sets(ch, (3, 5))]
    [['2', '5'], ['1', '2'], ['1', '2', '5']]
    """
    N = set(face)
    into = {i: sum((chain.mu[i] * p for j, C, p in chain.feedback if j == i and N.issuperset(C)), Fraction(0))
            for i in range(chain.J)}
    parts = {tuple(j for j in C if j not in N) for C in chain.routing_sets}
    ranked = sorted((s for s in parts if 2 <= len(s) <= MAX_FACE_FAST),
                    key=lambda s: (-sum((into[j] for j in s), Fraction(0)), len(s), s))
    union = tuple(sorted({j for s in ranked for j in s}))
    if len(union) <= MAX_FACE_FAST and union not in ranked and len(ranked) > 1:
        ranked.append(union)
    return ranked


def faces_of(hints: list[tuple[int, ...]], J: int) -> list[tuple[int, ...]]:
    """The distinct supports of the binding generators, in their order (at most :data:`MAX_FACES`).

    Parameters
    ----------
    hints : list of tuple of int
        Binding cone generators (one entry per station, non-zero where the direction moves).
    J : int
        The number of stations.

    Returns
    -------
    list of tuple of int
        Supports, as sorted station indices, without the empty one.

    Examples
    --------
    >>> faces_of([(0, 1, 1), (0, 1, 1), (1, 0, 0)], 3)
    [(1, 2), (0,)]
    """
    out: list[tuple[int, ...]] = []
    for g in hints:
        s = tuple(j for j in range(J) if g[j])
        if s and s not in out:
            out.append(s)
        if len(out) == MAX_FACES:
            break
    return out
