"""A readable proof as a small document tree: sections of paragraphs, display math, lists, tables and commands.

The explainers (:mod:`certify.explain.foster` and its siblings) build a
:class:`Proof`; the renderers (:mod:`certify.explain.render`) write it as
Markdown, LaTeX or HTML.  Text is plain (each renderer escapes it); math is
LaTeX source (``$...$`` in Markdown, ``\\(...\\)`` in HTML), written without
``|`` so that it never breaks a Markdown table (``\\lvert x\\rvert``).

Long tables are cut with :func:`summarised`: the first rows stay in the text
and the whole table goes to an appendix.

Public: :class:`Math`, :class:`Para`, :class:`Display`, :class:`Items`,
:class:`Table`, :class:`Commands`, :class:`Section`, :class:`Proof`,
:func:`para`, :func:`summarised`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["Math", "Para", "Display", "Items", "Table", "Commands", "Section", "Proof", "Block", "Inline", "para", "summarised", "joined"]


@dataclass(frozen=True)
class Math:
    """Inline math, as LaTeX source (no ``$``).

    Attributes
    ----------
    tex : str
        The LaTeX, e.g. ``x_{1} \\ge 1``.

    Examples
    --------
    >>> Math("x_{1}").tex
    'x_{1}'
    """

    tex: str


Inline = str | Math


@dataclass(frozen=True)
class Para:
    """A paragraph: plain text and inline math, in order.

    Attributes
    ----------
    parts : tuple of str or Math
        The pieces, joined without spaces.

    Examples
    --------
    >>> Para(("delta = ", Math("1/2"))).parts[1]
    Math(tex='1/2')
    """

    parts: tuple[Inline, ...]


@dataclass(frozen=True)
class Display:
    """Display math: one equation or inequality per line (aligned at ``&`` when the lines have one).

    Attributes
    ----------
    lines : tuple of str
        LaTeX, one line each.

    Examples
    --------
    >>> len(Display(("V(x) = x_{1}^{2}",)).lines)
    1
    """

    lines: tuple[str, ...]


@dataclass(frozen=True)
class Items:
    """A bulleted (or numbered) list of paragraphs.

    Attributes
    ----------
    items : tuple of Para
        One paragraph per item.
    ordered : bool
        Numbered instead of bulleted.

    Examples
    --------
    >>> Items((para("one"), para("two")), ordered=True).ordered
    True
    """

    items: tuple[Para, ...]
    ordered: bool = False


@dataclass(frozen=True)
class Table:
    """A table whose cells are text or math.

    Attributes
    ----------
    header : tuple of str
        The column names (plain text).
    rows : tuple of tuple of (str or Math)
        The cells, one tuple per row.
    caption : str
        What the table shows, in one sentence.

    Examples
    --------
    >>> Table(("region", "slack"), (("x1 >= 1", Math("1/2")),), "the drift").rows[0][1]
    Math(tex='1/2')
    """

    header: tuple[str, ...]
    rows: tuple[tuple[Inline, ...], ...]
    caption: str = ""


@dataclass(frozen=True)
class Commands:
    """Shell commands the reader can run (one per line).

    Attributes
    ----------
    lines : tuple of str
        The commands.

    Examples
    --------
    >>> Commands(("certify verify net.json cert.json",)).lines[0].split()[1]
    'verify'
    """

    lines: tuple[str, ...]


Block = Para | Display | Items | Table | Commands


@dataclass(frozen=True)
class Section:
    """A titled section of blocks.

    Attributes
    ----------
    title : str
        The heading (plain text).
    blocks : tuple of Block
        Its content, in order.

    Examples
    --------
    >>> Section("Claim", (para("stable"),)).title
    'Claim'
    """

    title: str
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class Proof:
    """A whole readable proof: title, sections, and appendix sections (the full tables).

    Attributes
    ----------
    title : str
        The heading of the whole proof.
    sections : tuple of Section
        The body.
    appendix : tuple of Section
        Full tables cut from the body (empty when nothing was cut).

    Examples
    --------
    >>> Proof("Stability of jsq2", (Section("Claim", (para("stable"),)),)).appendix
    ()
    """

    title: str
    sections: tuple[Section, ...]
    appendix: tuple[Section, ...] = field(default=())


def para(*parts: Inline) -> Para:
    """A paragraph from its pieces (strings are text, :class:`Math` is math).

    Parameters
    ----------
    *parts : str or Math
        The pieces, in order.

    Returns
    -------
    Para
        The paragraph.

    Examples
    --------
    >>> para("delta = ", Math("1/2"), ".").parts
    ('delta = ', Math(tex='1/2'), '.')
    """
    return Para(tuple(parts))


def summarised(table: Table, limit: int, appendix_title: str) -> tuple[list[Block], list[Section]]:
    """The table in the text when it has at most ``limit`` rows; else its first rows and a pointer to an appendix.

    Parameters
    ----------
    table : Table
        The full table (its first rows are the ones worth reading: put the tightest first).
    limit : int
        The most rows shown in the text (at least 1).
    appendix_title : str
        The appendix section's title, named in the pointer.

    Returns
    -------
    blocks : list of Block
        What goes in the text.
    appendix : list of Section
        The appendix holding the whole table (empty when nothing was cut).

    Examples
    --------
    >>> t = Table(("n",), tuple((str(k),) for k in range(30)), "numbers")
    >>> blocks, app = summarised(t, 5, "All numbers")
    >>> len(blocks[0].rows), app[0].title, len(app[0].blocks[0].rows)
    (5, 'All numbers', 30)
    >>> summarised(t, 30, "All numbers")[1]
    []
    """
    limit = max(1, limit)
    if len(table.rows) <= limit:
        return [table], []
    head = Table(table.header, table.rows[:limit], f"{table.caption} (the first {limit} of {len(table.rows)} rows)")
    pointer = para(f"The table lists {limit} of {len(table.rows)} rows; all of them are in the appendix, \u201c{appendix_title}\u201d.")
    return [head, pointer], [Section(appendix_title, (table,))]


def joined(parts: Sequence[Inline], sep: str = ", ") -> list[Inline]:
    """The inline parts with ``sep`` between each two (for :func:`para`).

    Parameters
    ----------
    parts : sequence of Inline
        Text and math.
    sep : str
        The separator.

    Returns
    -------
    list of Inline
        ``parts[0], sep, parts[1], sep, ...``.

    Examples
    --------
    >>> joined([Math("a"), Math("b")])
    [Math(tex='a'), ', ', Math(tex='b')]
    """
    out: list[Inline] = []
    for k, p in enumerate(parts):
        out += [sep, p] if k else [p]
    return out
