"""The exact maximum of dV/dt over a fluid face's velocity set, and the conditions a fluid certificate checks.

:func:`max_rate` maximises c'v over the admissible velocities of one
:class:`~certify.markov.fluid.FluidFace` (a fractional knapsack over the
throughputs of its empty stations), with c scaled once to integers
(:class:`Scaled`) when it serves many faces; :func:`fluid_rows` lists the
conditions of a linear or quadratic fluid certificate (one per face, or per face
and generator of its closure), :func:`rate_vector` the c of each.  Pure Python,
exact: no numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import lcm
from typing import Any

from ..core.vocabulary import FluidKind
from .chain import Chain
from .fluid import FluidFace

__all__ = ["Scaled", "max_rate", "fluid_rows", "rate_vector"]


@dataclass(frozen=True)
class Scaled:
    """A rational vector as integers over one denominator, for many exact dot products with the same vector.

    Attributes
    ----------
    nums : tuple of int
        The entries times ``den``.
    den : int
        Their common denominator (> 0).

    Examples
    --------
    >>> s = Scaled.of([Fraction(1, 2), Fraction(1, 3)])
    >>> s.nums, s.den, s.dot([Fraction(2), Fraction(3)])
    ((3, 2), 6, Fraction(2, 1))
    """

    nums: tuple[int, ...]
    den: int

    @classmethod
    def of(cls, c: Sequence[Fraction]) -> Scaled:
        """The vector ``c`` scaled to integers.

        Parameters
        ----------
        c : sequence of Fraction
            The vector.

        Returns
        -------
        Scaled
            Its numerators over the least common denominator.
        """
        fs = [Fraction(x) for x in c]
        den = lcm(*(x.denominator for x in fs)) if fs else 1
        return cls(tuple(x.numerator * (den // x.denominator) for x in fs), den)

    def dot(self, v: Sequence[Fraction]) -> Fraction:
        """The exact dot product with ``v``, one Fraction product per distinct entry object of ``v``.

        Parameters
        ----------
        v : sequence of Fraction
            The other vector (faces share one Fraction object per tie class).

        Returns
        -------
        Fraction
            The dot product.
        """
        acc: dict[int, list[Any]] = {}
        for n, x in zip(self.nums, v):  # no truth test of x here: Fraction.__bool__ is a Python call
            slot = acc.get(id(x))
            if slot is None:
                acc[id(x)] = [x, n]
            else:
                slot[1] += n
        return sum((x * m for x, m in acc.values() if m), Fraction(0)) / self.den


def max_rate(face: FluidFace, c: Sequence[Fraction] | Scaled) -> Fraction:
    """max over the face's admissible velocities v of c'v, exactly.

    A linear function of the empty throughputs t over a box cut by one
    equation: fill the best ratio c'd_e / h_e first (a fractional knapsack).

    Parameters
    ----------
    face : FluidFace
        The face.
    c : sequence of Fraction or Scaled
        The linear function (scaled once with :meth:`Scaled.of` when it serves many faces).

    Returns
    -------
    Fraction
        The maximum.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.fluid import fluid_faces
    >>> mm1 = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    >>> max_rate(fluid_faces(mm1)[0], [F(3)])           # dV/dt of V = 3z along velocity -1
    Fraction(-3, 1)
    """
    sc = c if isinstance(c, Scaled) else Scaled.of(c)
    base = sc.dot(face.v0)
    if face.fixed:
        return base
    gains = [sc.dot(d) for d in face.dirs]
    best = base
    need = face.beta
    free = [(g, u) for g, h, u in zip(gains, face.h, face.box) if h == 0]
    best += sum((g * u for g, u in free if g > 0), Fraction(0))
    items = sorted(((g / h, g, h, u) for g, h, u in zip(gains, face.h, face.box) if h > 0), key=lambda x: -x[0])
    for _, g, h, u in items:
        if need <= 0:
            break
        take = min(u, need / h)
        best += g * take
        need -= h * take
    return best


def fluid_rows(chain: Chain, faces: Sequence[FluidFace], kind: FluidKind) -> list[tuple[int, tuple[int, ...]]]:
    """The conditions of a fluid certificate: (face index, generator) for ``quadratic``, (face, ()) for ``linear``.

    Parameters
    ----------
    chain : Chain
        The chain.
    faces : sequence of FluidFace
        Its faces.
    kind : FluidKind
        ``linear`` or ``quadratic``.

    Returns
    -------
    list of (int, tuple of int)
        One condition per row.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.fluid import fluid_faces
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(3, 2)),), (), (F(1), F(1)))
    >>> faces = fluid_faces(ch)
    >>> fluid_rows(ch, faces, "linear"), len(fluid_rows(ch, faces, "quadratic"))
    ([(0, ()), (1, ()), (2, ())], 5)
    """
    if kind == "linear":
        return [(k, ()) for k in range(len(faces))]
    return [(k, g) for k, f in enumerate(faces) for g in f.generators]


def rate_vector(kind: FluidKind, coeffs: Sequence[Sequence[Fraction]] | Sequence[Fraction], g: Sequence[int]) -> list[Fraction]:
    """c with dV/dt = c'v at the points of the generator g: 2Pg (quadratic) or w (linear).

    Parameters
    ----------
    kind : FluidKind
        ``linear`` or ``quadratic``.
    coeffs : sequence
        w, or the symmetric matrix P.
    g : sequence of int
        The generator (ignored for ``linear``).

    Returns
    -------
    list of Fraction
        c.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> rate_vector("quadratic", [[F(1), F(0)], [F(0), F(1)]], (1, 1)), rate_vector("linear", [F(1), F(2)], ())
    ([Fraction(2, 1), Fraction(2, 1)], [Fraction(1, 1), Fraction(2, 1)])
    """
    if kind == "linear":
        return [Fraction(x) for x in coeffs]  # type: ignore[arg-type]
    P = coeffs
    J = len(P)
    return [2 * sum((Fraction(P[i][j]) for j in range(J) if g[j]), Fraction(0)) for i in range(J)]  # type: ignore[index]
