"""A template's part of a readable Foster proof, as plain data: sentences, formulas, tables.

Every template writes its own V and its own drift argument
(:meth:`~certify.templates.base.Template.explain_function`,
:meth:`~certify.templates.base.Template.explain_drift`); the Foster explainer
(:mod:`certify.explain.foster`) adds what every Foster proof shares and turns
these pieces into document blocks.  The pieces are deliberately few and plain
(text, LaTeX source, exact numbers), so that templates, a lower layer than the
explainers, never import them: :class:`Tex` is inline math, :class:`Sentence`
a paragraph, :class:`Formulas` display math, :class:`Rows` a table and
:class:`Coefficients` a table of certificate coefficients.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..core.latex import region_tex, station_tex, text_tex
from ..markov.drift import RegionDrift

__all__ = [
    "Tex", "Part", "Sentence", "Formulas", "Rows", "Coefficients", "Piece", "Appendix", "FunctionText", "DriftText",
    "region_cell",
]


@dataclass(frozen=True)
class Tex:
    """Inline math, as LaTeX source (no ``$``, no ``|``: it may sit in a table cell).

    Attributes
    ----------
    tex : str
        The LaTeX, e.g. ``x^\\top P x \\ge 0``.

    Examples
    --------
    >>> Tex("x_{1}").tex
    'x_{1}'
    """

    tex: str


#: A piece of a sentence or a table cell: plain text, or math.
Part = str | Tex


@dataclass(frozen=True)
class Sentence:
    """A paragraph: plain text and inline math, in order (joined without spaces).

    Attributes
    ----------
    parts : tuple of str or Tex
        The pieces.

    Examples
    --------
    >>> Sentence(("V is bounded below: ", Tex("V >= 0"), ".")).parts[1]
    Tex(tex='V >= 0')
    """

    parts: tuple[Part, ...]


@dataclass(frozen=True)
class Formulas:
    """Display math, one LaTeX line each (aligned at ``&`` when the lines have one).

    Attributes
    ----------
    lines : tuple of str
        The lines.

    Examples
    --------
    >>> Formulas(("V(x) = x_{1}^{2}",)).lines
    ('V(x) = x_{1}^{2}',)
    """

    lines: tuple[str, ...]


@dataclass(frozen=True)
class Rows:
    """A table whose cells are text or math.

    Attributes
    ----------
    header : tuple of str
        The column names (plain text).
    rows : tuple of tuple of (str or Tex)
        The cells, a tuple per row.
    caption : str
        What the table shows.

    Examples
    --------
    >>> Rows(("station i", "P_ii"), (("1", Tex("1")),), "Diagonal of P").rows[0][1]
    Tex(tex='1')
    """

    header: tuple[str, ...]
    rows: tuple[tuple[Part, ...], ...]
    caption: str


@dataclass(frozen=True)
class Coefficients:
    """Certificate coefficients by name, exactly (the explainer sets them as its coefficient table).

    Attributes
    ----------
    names : tuple of str
        Their names, as in the certificate file.
    values : tuple of Fraction
        Their values.
    caption : str
        What they are.

    Examples
    --------
    >>> Coefficients(("P[1,1]",), (Fraction(1),), "P").names
    ('P[1,1]',)
    """

    names: tuple[str, ...]
    values: tuple[Fraction, ...]
    caption: str


#: A block of a template's text.
Piece = Sentence | Formulas | Rows | Coefficients


@dataclass(frozen=True)
class Appendix:
    """A titled appendix section: what is too long for the text (the whole tables).

    Attributes
    ----------
    title : str
        The section's title.
    pieces : tuple of Piece
        Its content.

    Examples
    --------
    >>> Appendix("The tables of V", ()).title
    'The tables of V'
    """

    title: str
    pieces: tuple[Piece, ...]


@dataclass(frozen=True)
class FunctionText:
    """V in closed form with the certificate's coefficients, and why it is bounded below.

    Attributes
    ----------
    pieces : tuple of Piece
        The text, in order (V first).
    appendix : tuple of Appendix
        The long coefficient lists (empty when everything is in the text).

    Examples
    --------
    >>> FunctionText((Formulas(("V(x) = x_{1}^{2}",)),)).appendix
    ()
    """

    pieces: tuple[Piece, ...]
    appendix: tuple[Appendix, ...] = ()


@dataclass(frozen=True)
class DriftText:
    """The drift condition on the unbounded regions: how it is shown, one row per region, and what follows.

    Attributes
    ----------
    method : Sentence
        How the drift is bounded on each unbounded region (with delta and the
        number of conditions checked).
    header : tuple of str
        The region table's column names.
    rows : tuple of tuple of (str or Tex)
        One row per unbounded region, tightest first.
    hence : tuple of str or Tex
        The start of the sentence that concludes: "... taken over the regions, "
        (the explainer ends it with AV <= -delta beyond N).

    Examples
    --------
    >>> DriftText(Sentence(("On each region ...",)), ("region", "slack"), (), ("Hence ",)).hence
    ('Hence ',)
    """

    method: Sentence
    header: tuple[str, ...]
    rows: tuple[tuple[Part, ...], ...]
    hence: tuple[Part, ...]


def region_cell(rd: RegionDrift, ids: Sequence[str]) -> Tex:
    """A region's constraints as math (and the phases of a phase-type region, as upright text).

    Parameters
    ----------
    rd : RegionDrift
        The region's drift (its region, and its phases for a phase-type chain).
    ids : sequence of str
        The station ids.

    Returns
    -------
    Tex
        E.g. ``x_{1} \\le x_{2},\\ x_{1} \\ge 1``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> from certify.markov.drift import compile_drifts
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> region_cell(compile_drifts(ch)[-1], ch.ids).tex
    'x_{1} = x_{2},\\\\ x_{1} \\\\ge 1'
    """
    tex = region_tex(rd.region.describe(ids, [station_tex(s) for s in ids]))
    phases = rd.describe(ids).partition("; ")[2]
    return Tex(tex + (f";\\ {text_tex(phases)}" if phases else ""))
