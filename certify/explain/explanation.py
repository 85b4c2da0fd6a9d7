"""What :func:`certify.explain.explain` returns: a proof document that renders itself (and shows in Jupyter).

Public: :class:`Explanation`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .document import Proof, Section
from .render import FORMATS

__all__ = ["Explanation"]


@dataclass(frozen=True)
class Explanation:
    """A readable proof of one verified certificate.

    Attributes
    ----------
    proof : Proof
        The document (title, sections, appendix).
    kind : str
        The certificate kind it explains.

    Examples
    --------
    >>> from certify.explain.document import para
    >>> e = Explanation(Proof("P", (Section("Claim", (para("x"),)),)), "foster")
    >>> e.title, e.render("latex").count("subsection"), e._repr_markdown_().splitlines()[0]
    ('P', 1, '# P')
    """

    proof: Proof
    kind: str

    @property
    def title(self) -> str:
        """The proof's title.

        Returns
        -------
        str
            E.g. ``jsq2 is positive recurrent: a Foster-Lyapunov certificate``.

        Examples
        --------
        >>> Explanation(Proof("P", ()), "fluid").title
        'P'
        """
        return self.proof.title

    @property
    def sections(self) -> tuple[Section, ...]:
        """The proof's sections.

        Returns
        -------
        tuple of Section
            The body, in order.

        Examples
        --------
        >>> Explanation(Proof("P", ()), "fluid").sections
        ()
        """
        return self.proof.sections

    @property
    def appendix(self) -> tuple[Section, ...]:
        """The appendix sections (full tables cut from the body).

        Returns
        -------
        tuple of Section
            Empty when nothing was cut.

        Examples
        --------
        >>> Explanation(Proof("P", ()), "fluid").appendix
        ()
        """
        return self.proof.appendix

    def render(self, format: str = "markdown", standalone: bool = False) -> str:
        """The proof as text in ``format``.

        Parameters
        ----------
        format : {"markdown", "latex", "html"}
            The output format.
        standalone : bool
            LaTeX: a whole document instead of an article fragment; HTML: a whole page.

        Returns
        -------
        str
            The text.

        Raises
        ------
        ValueError
            For an unknown format.

        Examples
        --------
        >>> Explanation(Proof("P", ()), "fluid").render("pdf")
        Traceback (most recent call last):
        ...
        ValueError: format: must be one of markdown, latex, html (got 'pdf')
        """
        if format not in FORMATS:
            raise ValueError(f"format: must be one of {', '.join(FORMATS)} (got {format!r})")
        return FORMATS[format](self.proof, standalone)

    def _repr_markdown_(self) -> str:
        return self.render("markdown")

    def _repr_html_(self) -> str:
        return self.render("html")
