"""Small tables as Markdown and HTML, for results shown in notebooks (``_repr_markdown_``, ``_repr_html_``).

Everything is escaped here (Markdown's ``|`` and HTML's ``<>&"``), so a reason or
a station name can never break the table it sits in.

Public: :func:`markdown_table`, :func:`html_table`, :func:`html_escape`, :func:`markdown_escape`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

__all__ = ["markdown_table", "html_table", "html_escape", "markdown_escape", "plural"]


def html_escape(text: object) -> str:
    """``text`` as HTML text (``<``, ``>``, ``&`` and quotes escaped).

    Parameters
    ----------
    text : object
        Anything; its ``str``.

    Returns
    -------
    str
        The escaped text.

    Examples
    --------
    >>> html_escape("x < 1 & y")
    'x &lt; 1 &amp; y'
    """
    return html.escape(str(text), quote=True)


def markdown_escape(text: object) -> str:
    """``text`` safe in Markdown prose and tables, readable as plain text too.

    Only what Markdown would read as markup is escaped: ``|``, ``*``, ``_``,
    backticks and backslashes; ``<`` where it could open an HTML tag (before a
    letter, ``/``, ``!`` or ``?``); ``&`` where it could start an entity; ``>``
    at the start (a block quote). So ``x <= 1`` and ``a -> b`` stay as written.

    Parameters
    ----------
    text : object
        Anything; its ``str``.

    Returns
    -------
    str
        The escaped text, on one line.

    Examples
    --------
    >>> print(markdown_escape("a<b | x_1*2 <= 3 -> y & z &amp;"))
    a\\<b \\| x\\_1\\*2 <= 3 -> y & z \\&amp;
    """
    out = str(text).replace("\\", "\\\\")
    for ch in "|*_`":
        out = out.replace(ch, "\\" + ch)
    out = re.sub(r"<(?=[A-Za-z/!?])", r"\\<", out)
    out = re.sub(r"&(?=#?\w+;)", r"\\&", out)
    out = out.replace("\n", " ")
    return "\\" + out if out.lstrip().startswith(">") else out


def _md_cell(text: object) -> str:
    return markdown_escape(text)


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A Markdown table (GitHub style), cells escaped.

    Parameters
    ----------
    header : sequence of str
        The column names.
    rows : sequence of sequence
        The rows (each as long as ``header``).

    Returns
    -------
    str
        The table, one line per row.

    Examples
    --------
    >>> print(markdown_table(["stage", "outcome"], [["fluid", "found | checked"]]))
    | stage | outcome |
    |---|---|
    | fluid | found \\| checked |
    """
    lines = ["| " + " | ".join(_md_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def html_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """An HTML table, cells escaped.

    Parameters
    ----------
    header : sequence of str
        The column names.
    rows : sequence of sequence
        The rows.

    Returns
    -------
    str
        ``<table>...</table>``.

    Examples
    --------
    >>> html_table(["a"], [["<b>"]])
    '<table><thead><tr><th>a</th></tr></thead><tbody><tr><td>&lt;b&gt;</td></tr></tbody></table>'
    """
    head = "".join(f"<th>{html_escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html_escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def plural(n: int, word: str) -> str:
    """``n word`` or ``n words``.

    Parameters
    ----------
    n : int
        How many.
    word : str
        The singular.

    Returns
    -------
    str
        The count and the word, plural unless ``n`` is 1.

    Examples
    --------
    >>> plural(1, "face"), plural(3, "face")
    ('1 face', '3 faces')
    >>> plural(2, "station class")
    '2 station classes'
    """
    return f"{n} {word}" + ("" if n == 1 else "es" if word.endswith(("s", "x", "ch", "sh")) else "s")
