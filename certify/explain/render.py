"""Write a :class:`~certify.explain.document.Proof` as Markdown, LaTeX or HTML.

* Markdown: headings, ``$...$`` and ``$$...$$`` math (as pandoc, Jupyter and
  GitHub read it), pipe tables, fenced commands.
* LaTeX: an article fragment (``\\section``, ``\\subsection``, ``tabular`` or
  ``longtable``, ``verbatim``) needing ``amsmath``, ``amssymb`` and ``longtable``;
  ``standalone=True`` wraps it in a whole document that ``pdflatex`` compiles.
* HTML: an ``<article>`` with ``\\(...\\)`` math (MathJax or KaTeX typeset it;
  Jupyter does); ``standalone=True`` gives a whole page loading MathJax.

Text is escaped for each format, so a station name or a reason cannot break
the document.  Public: :func:`to_markdown`, :func:`to_latex`, :func:`to_html`,
:data:`FORMATS`.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.render import html_escape, markdown_escape
from .document import Block, Commands, Display, Inline, Items, Math, Para, Proof, Section

__all__ = ["to_markdown", "to_latex", "to_html", "FORMATS", "LATEX_PACKAGES"]

#: The packages a LaTeX fragment needs (named in its first line).
LATEX_PACKAGES = ("amsmath", "amssymb", "longtable")
# Tables longer than this are set as longtable (they may break across pages); tables this wide in a smaller font.
_LONG = 25
_WIDE = 5


def _aligned(lines: tuple[str, ...]) -> tuple[str, ...]:
    """Display lines ready for an aligned environment: as given when they carry ``&``, else each aligned at its start."""
    return lines if any("&" in ln for ln in lines) else tuple(f"&{ln}" for ln in lines)


# ---------------------------------------------------------------- Markdown

def _md_inline(parts: tuple[Inline, ...]) -> str:
    return "".join(f"${p.tex}$" if isinstance(p, Math) else markdown_escape(p) for p in parts)


def _md_display(lines: tuple[str, ...]) -> str:
    if len(lines) == 1:
        return f"$$\n{lines[0]}\n$$"
    body = " \\\\\n".join(_aligned(lines))
    return f"$$\n\\begin{{aligned}}\n{body}\n\\end{{aligned}}\n$$"


def _md_block(b: Block) -> str:
    if isinstance(b, Para):
        return _md_inline(b.parts)
    if isinstance(b, Display):
        return _md_display(b.lines)
    if isinstance(b, Items):
        return "\n".join(f"{f'{k}.' if b.ordered else '-'} {_md_inline(it.parts)}" for k, it in enumerate(b.items, 1))
    if isinstance(b, Commands):
        return "```sh\n" + "\n".join(b.lines) + "\n```"
    lines = ["| " + " | ".join(markdown_escape(h) for h in b.header) + " |", "|" + "---|" * len(b.header)]
    lines += ["| " + " | ".join(_md_inline((c,)) for c in row) + " |" for row in b.rows]
    cap = [f"*{markdown_escape(b.caption)}*", ""] if b.caption else []
    return "\n".join(cap + lines)


def _md_section(s: Section, level: str) -> str:
    return "\n\n".join([f"{level} {markdown_escape(s.title)}"] + [_md_block(b) for b in s.blocks])


def to_markdown(proof: Proof) -> str:
    """The proof as Markdown (with ``$``-delimited LaTeX math).

    Parameters
    ----------
    proof : Proof
        The document.

    Returns
    -------
    str
        Markdown text ending in a newline.

    Examples
    --------
    >>> from certify.explain.document import Section, para
    >>> print(to_markdown(Proof("Stability", (Section("Claim", (para("delta = ", Math("1/2")),)),))), end="")
    # Stability
    <BLANKLINE>
    ## Claim
    <BLANKLINE>
    delta = $1/2$
    """
    parts = [f"# {markdown_escape(proof.title)}"] + [_md_section(s, "##") for s in proof.sections]
    if proof.appendix:
        parts += ["## Appendix"] + [_md_section(s, "###") for s in proof.appendix]
    return "\n\n".join(parts) + "\n"


# ---------------------------------------------------------------- LaTeX

_TEX_ESCAPES = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\ensuremath{<}", ">": r"\ensuremath{>}", "|": r"\ensuremath{|}",
    "\u2013": "--", "\u2014": "---", "\u201c": "``", "\u201d": "''", "\u2019": "'",
}


def tex_escape(text: str) -> str:
    """Plain text as LaTeX text (special characters escaped; characters beyond Latin-1 written as ``?``).

    Parameters
    ----------
    text : str
        The text.

    Returns
    -------
    str
        LaTeX that prints the text.

    Examples
    --------
    >>> print(tex_escape("50% of x_1 & {y}"))
    50\\% of x\\_1 \\& \\{y\\}
    """
    out = []
    for ch in text:
        rep = _TEX_ESCAPES.get(ch)
        out.append(rep if rep is not None else ch if ord(ch) < 256 else "?")
    return "".join(out)


def _tex_inline(parts: tuple[Inline, ...]) -> str:
    return "".join(f"${p.tex}$" if isinstance(p, Math) else tex_escape(p) for p in parts)


def _tex_block(b: Block) -> str:
    if isinstance(b, Para):
        return _tex_inline(b.parts)
    if isinstance(b, Display):
        if len(b.lines) == 1:
            return f"\\[\n{b.lines[0]}\n\\]"
        return "\\begin{align*}\n" + " \\\\\n".join(_aligned(b.lines)) + "\n\\end{align*}"
    if isinstance(b, Items):
        env = "enumerate" if b.ordered else "itemize"
        return f"\\begin{{{env}}}\n" + "\n".join(f"\\item {_tex_inline(it.parts)}" for it in b.items) + f"\n\\end{{{env}}}"
    if isinstance(b, Commands):
        return "\\begin{verbatim}\n" + "\n".join(b.lines) + "\n\\end{verbatim}"
    cols = "l" * len(b.header)
    head = " & ".join(tex_escape(h) for h in b.header) + r" \\ \hline"
    rows = "\n".join(" & ".join(_tex_inline((c,)) for c in row) + r" \\" for row in b.rows)
    cap = tex_escape(b.caption)
    # wide tables (the drift rows) in a smaller font with narrower gaps, so that more of them fit the text width
    size = "\\small\\setlength{\\tabcolsep}{3pt}\n" if len(b.header) >= _WIDE else ""
    if len(b.rows) > _LONG:
        capline = f"\\caption*{{{cap}}}\\\\\n" if cap else ""
        table = f"\\begin{{longtable}}{{{cols}}}\n{capline}{head}\n\\endhead\n{rows}\n\\end{{longtable}}"
        return f"{{{size}{table}}}" if size else table
    capline = f"{cap}\\par\\smallskip\n" if cap else ""
    return f"\\begin{{center}}\n{size}{capline}\\begin{{tabular}}{{{cols}}}\n{head}\n{rows}\n\\end{{tabular}}\n\\end{{center}}"


def _tex_section(s: Section, cmd: str) -> str:
    return "\n\n".join([f"\\{cmd}{{{tex_escape(s.title)}}}"] + [_tex_block(b) for b in s.blocks])


def to_latex(proof: Proof, standalone: bool = False) -> str:
    """The proof as LaTeX: an article fragment, or a whole document.

    Parameters
    ----------
    proof : Proof
        The document.
    standalone : bool
        Wrap the fragment in ``\\documentclass{article}`` with :data:`LATEX_PACKAGES`.

    Returns
    -------
    str
        LaTeX source ending in a newline; a fragment starts with a comment naming the packages it needs.

    Examples
    --------
    >>> from certify.explain.document import Section, para
    >>> tex = to_latex(Proof("Stability", (Section("Claim", (para("delta = ", Math("1/2")),)),)))
    >>> tex.splitlines()[0]
    '% certify explain: needs \\\\usepackage{amsmath,amssymb,longtable}'
    >>> "\\\\subsection{Claim}" in tex, "delta = $1/2$" in tex
    (True, True)
    """
    pkgs = ",".join(LATEX_PACKAGES)
    parts = [f"% certify explain: needs \\usepackage{{{pkgs}}}", f"\\section{{{tex_escape(proof.title)}}}"]
    parts += [_tex_section(s, "subsection") for s in proof.sections]
    parts += [_tex_section(Section(f"Appendix: {s.title}", s.blocks), "subsection") for s in proof.appendix]
    body = "\n\n".join(parts) + "\n"
    if not standalone:
        return body
    return f"\\documentclass{{article}}\n\\usepackage{{{pkgs}}}\n\\allowdisplaybreaks\n\\begin{{document}}\n\n{body}\n\\end{{document}}\n"


# ---------------------------------------------------------------- HTML

def _html_inline(parts: tuple[Inline, ...]) -> str:
    return "".join(
        f'<span class="math">\\({html_escape(p.tex)}\\)</span>' if isinstance(p, Math) else html_escape(p) for p in parts
    )


def _html_block(b: Block) -> str:
    if isinstance(b, Para):
        return f"<p>{_html_inline(b.parts)}</p>"
    if isinstance(b, Display):
        body = " \\\\ ".join(_aligned(b.lines))
        tex = b.lines[0] if len(b.lines) == 1 else f"\\begin{{aligned}} {body} \\end{{aligned}}"
        return f'<div class="math display">\\[{html_escape(tex)}\\]</div>'
    if isinstance(b, Items):
        tag = "ol" if b.ordered else "ul"
        return f"<{tag}>" + "".join(f"<li>{_html_inline(it.parts)}</li>" for it in b.items) + f"</{tag}>"
    if isinstance(b, Commands):
        return "<pre><code>" + html_escape("\n".join(b.lines)) + "</code></pre>"
    cap = f"<caption>{html_escape(b.caption)}</caption>" if b.caption else ""
    head = "".join(f"<th>{html_escape(h)}</th>" for h in b.header)
    body = "".join("<tr>" + "".join(f"<td>{_html_inline((c,))}</td>" for c in row) + "</tr>" for row in b.rows)
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _html_section(s: Section, tag: str) -> str:
    return "<section>\n" + "\n".join([f"<{tag}>{html_escape(s.title)}</{tag}>"] + [_html_block(b) for b in s.blocks]) + "\n</section>"


_MATHJAX = "https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js"


def to_html(proof: Proof, standalone: bool = False) -> str:
    """The proof as HTML: an ``<article>`` element, or a whole page.

    Parameters
    ----------
    proof : Proof
        The document.
    standalone : bool
        A whole page (``<!DOCTYPE html>``) that loads MathJax to typeset the math.

    Returns
    -------
    str
        HTML ending in a newline.

    Examples
    --------
    >>> from certify.explain.document import Section, para
    >>> print(to_html(Proof("A < B", (Section("Claim", (para("delta = ", Math("1/2")),)),))), end="")
    <article class="certify-proof">
    <h1>A &lt; B</h1>
    <section>
    <h2>Claim</h2>
    <p>delta = <span class="math">\\(1/2\\)</span></p>
    </section>
    </article>
    """
    parts = [f"<h1>{html_escape(proof.title)}</h1>"] + [_html_section(s, "h2") for s in proof.sections]
    if proof.appendix:
        parts += ["<h2>Appendix</h2>"] + [_html_section(s, "h3") for s in proof.appendix]
    article = '<article class="certify-proof">\n' + "\n".join(parts) + "\n</article>\n"
    if not standalone:
        return article
    return (
        f"<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>{html_escape(proof.title)}</title>\n"
        f'<script defer src="{_MATHJAX}"></script>\n</head>\n<body>\n{article}</body>\n</html>\n'
    )


def _markdown(proof: Proof, standalone: bool = False) -> str:
    return to_markdown(proof)


#: Format name -> renderer ``(proof, standalone) -> str`` (Markdown has no standalone form).
FORMATS: dict[str, Callable[[Proof, bool], str]] = {"markdown": _markdown, "latex": to_latex, "html": to_html}
