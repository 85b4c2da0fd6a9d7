"""Exact rationals, variables, polynomials and region constraints as LaTeX (sympy's printer for polynomials).

Station ``s`` has the variable :math:`x_s` (``x_{s}``; an id that is not
alphanumeric is set as ``\\text``).  Numbers stay exact: a
:class:`~fractions.Fraction` becomes ``\\frac{p}{q}``.  Nothing here is
numeric: sympy receives the exact coefficients and only prints.

The readable proofs (:mod:`certify.explain`) and the Lyapunov templates, which
write their own part of a Foster proof, share these writers; they sit at the
bottom layer so that both can.

Public: :func:`station_tex`, :func:`frac_tex`, :func:`poly_tex`,
:func:`quadratic_terms`, :func:`linear_tex`, :func:`region_tex`,
:func:`set_tex`, :func:`norm_tex`, :func:`text_tex`, :func:`vector_tex`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

__all__ = [
    "station_tex", "frac_tex", "poly_tex", "quadratic_terms", "linear_tex", "region_tex", "set_tex", "norm_tex", "text_tex",
    "vector_tex",
]

_PLAIN = re.compile(r"[A-Za-z0-9]+")


# Math-mode forms that LaTeX and MathJax both read (so one Math serves the LaTeX, Markdown and HTML outputs).
_MATH_ESCAPES = {
    "\\": "\\backslash ", "_": "\\_", "&": "\\&", "%": "\\%", "$": "\\$", "#": "\\#", "{": "\\{", "}": "\\}",
    "~": "\\sim ", "^": "\\wedge ", " ": "\\ ", "|": "\\vert ",
}


def text_tex(text: str) -> str:
    """Text inside math, upright: ``\\mathrm{...}`` with every special character in a form LaTeX and MathJax both read.

    (``\\text`` would need text-mode escapes, which MathJax does not read.)  Characters beyond ASCII become ``?``.

    Parameters
    ----------
    text : str
        The text.

    Returns
    -------
    str
        LaTeX math.

    Examples
    --------
    >>> print(text_tex("a_b & c"))
    \\mathrm{a\\_b\\ \\&\\ c}
    """
    out = "".join(_MATH_ESCAPES.get(ch, ch if ord(ch) < 128 else "?") for ch in text)
    return f"\\mathrm{{{out}}}"


def station_tex(sid: str, var: str = "x") -> str:
    """The variable of station ``sid``: ``x_{1}``, or ``x_{\\mathrm{a-b}}`` for an id that is not alphanumeric.

    Parameters
    ----------
    sid : str
        The station id.
    var : str
        The variable's letter.

    Returns
    -------
    str
        LaTeX math.

    Examples
    --------
    >>> station_tex("1"), station_tex("fast-1"), station_tex("2", "w")
    ('x_{1}', 'x_{\\\\mathrm{fast-1}}', 'w_{2}')
    """
    return f"{var}_{{{sid if _PLAIN.fullmatch(sid) else text_tex(sid)}}}"


def frac_tex(q: Fraction | int) -> str:
    """An exact rational as LaTeX: ``3``, ``-\\frac{1}{2}``.

    Parameters
    ----------
    q : Fraction or int
        The number.

    Returns
    -------
    str
        LaTeX math.

    Examples
    --------
    >>> frac_tex(Fraction(-1, 2)), frac_tex(Fraction(6, 3))
    ('-\\\\frac{1}{2}', '2')
    """
    q = Fraction(q)
    if q.denominator == 1:
        return str(q.numerator)
    sign = "-" if q < 0 else ""
    return f"{sign}\\frac{{{abs(q.numerator)}}}{{{q.denominator}}}"


def set_tex(ids: Sequence[str]) -> str:
    """A set of stations, ``\\{1, 2\\}``.

    Parameters
    ----------
    ids : sequence of str
        The station ids.

    Returns
    -------
    str
        LaTeX math.

    Examples
    --------
    >>> set_tex(["1", "3"])
    '\\\\{1, 3\\\\}'
    """
    return "\\{" + ", ".join(s if _PLAIN.fullmatch(s) else text_tex(s) for s in ids) + "\\}"


def norm_tex(var: str = "x") -> str:
    """The l1 norm ``\\lVert x\\rVert_1`` (no ``|``: it would break a Markdown table).

    Parameters
    ----------
    var : str
        The variable.

    Returns
    -------
    str
        LaTeX math.

    Examples
    --------
    >>> norm_tex()
    '\\\\lVert x\\\\rVert_{1}'
    """
    return f"\\lVert {var}\\rVert_{{1}}"


def poly_tex(terms: Mapping[tuple[int, ...], Fraction], ids: Sequence[str], var: str = "x") -> str:
    """A polynomial with exact coefficients, ``{exponents: coefficient}``, in the stations' variables.

    Parameters
    ----------
    terms : mapping of tuple of int to Fraction
        Exponent vector (one entry per station) to coefficient.
    ids : sequence of str
        The station ids (the variables, in order).
    var : str
        The variables' letter.

    Returns
    -------
    str
        LaTeX math (``0`` for no terms), ordered by degree then station order.

    Examples
    --------
    >>> poly_tex({(2, 0): Fraction(1), (1, 1): Fraction(-1, 2), (0, 0): Fraction(3)}, ["1", "2"])
    'x_{1}^{2} - \\\\frac{x_{1} x_{2}}{2} + 3'
    """
    import sympy

    syms = sympy.symbols(f"s{len(ids):04d}_0:{len(ids)}")  # lexicographic names: station order
    names: dict[Any, str] = {s: station_tex(sid, var) for s, sid in zip(syms, ids)}
    expr = sympy.Integer(0)
    for exps, c in terms.items():
        if c:
            mono = sympy.Integer(1)
            for s, e in zip(syms, exps):
                mono *= s**e
            expr += sympy.Rational(c.numerator, c.denominator) * mono
    return sympy.latex(expr, symbol_names=names, order="grlex") if expr != 0 else "0"


def quadratic_terms(entries: Iterable[tuple[tuple[int, int], Fraction]], J: int) -> dict[tuple[int, ...], Fraction]:
    """The monomials of x'Px from the upper-triangle entries ((i, j), P_ij): P_ii x_i^2 and 2 P_ij x_i x_j.

    Parameters
    ----------
    entries : iterable of ((int, int), Fraction)
        Station pairs i <= j and the entries P_ij.
    J : int
        The number of stations.

    Returns
    -------
    dict of tuple of int to Fraction
        Exponent vector to coefficient, for :func:`poly_tex`.

    Examples
    --------
    >>> quadratic_terms([((0, 0), Fraction(1)), ((0, 1), Fraction(1, 4))], 2)
    {(2, 0): Fraction(1, 1), (1, 1): Fraction(1, 2)}
    """
    terms: dict[tuple[int, ...], Fraction] = {}
    for (i, j), v in entries:
        e = [0] * J
        e[i] += 1
        e[j] += 1
        terms[tuple(e)] = terms.get(tuple(e), Fraction(0)) + (v if i == j else 2 * v)
    return terms


def linear_tex(coeffs: Sequence[Fraction], ids: Sequence[str], const: Fraction = Fraction(0), var: str = "x") -> str:
    """The affine form ``sum_i coeffs[i] x_i + const``.

    Parameters
    ----------
    coeffs : sequence of Fraction
        One coefficient per station.
    ids : sequence of str
        The station ids.
    const : Fraction
        The constant term.
    var : str
        The variables' letter.

    Returns
    -------
    str
        LaTeX math.

    Examples
    --------
    >>> linear_tex([Fraction(1), Fraction(-2)], ["1", "2"], Fraction(5))
    'x_{1} - 2 x_{2} + 5'
    """
    J = len(ids)
    terms = {tuple(int(k == i) for k in range(J)): Fraction(c) for i, c in enumerate(coeffs)}
    terms[(0,) * J] = Fraction(const)
    return poly_tex(terms, ids, var)


def region_tex(description: str) -> str:
    """A region's constraints (from ``describe(ids, names)`` with LaTeX names) as LaTeX.

    Parameters
    ----------
    description : str
        The constraints, e.g. ``x_{1} = x_{2}, x_{1} >= 1`` (``all states`` for none).

    Returns
    -------
    str
        LaTeX math, e.g. ``x_{1} = x_{2},\\ x_{1} \\ge 1``.

    Examples
    --------
    >>> region_tex("x_{1} <= x_{2} - 1, x_{1} >= 1")
    'x_{1} \\\\le x_{2} - 1,\\\\ x_{1} \\\\ge 1'
    >>> region_tex("all states")
    '\\\\text{all states}'
    """
    if description == "all states":
        return "\\text{all states}"
    return description.replace(" >= ", " \\ge ").replace(" <= ", " \\le ").replace(", ", ",\\ ")


def vector_tex(v: Sequence[Fraction | int]) -> str:
    """A vector of exact numbers as LaTeX: ``(a, b, ...)``, each entry by :func:`frac_tex`.

    Parameters
    ----------
    v : sequence of Fraction or int
        The entries.

    Returns
    -------
    str
        LaTeX math.

    Examples
    --------
    >>> vector_tex([Fraction(1, 2), 3])
    '(\\\\frac{1}{2}, 3)'
    """
    return "(" + ", ".join(frac_tex(Fraction(a)) for a in v) + ")"
