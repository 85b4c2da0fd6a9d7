"""What :func:`certify.prove` returns: the :class:`Result` and the :class:`Attempt` log of every stage.

Pure data and its two renderings (``to_json`` for ``--json``, ``table`` for the
terminal); nothing here computes a verdict.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..core.certificate import Certificate
from ..core.jsontypes import JsonObject
from ..core.render import html_escape, html_table, markdown_escape, markdown_table
from ..core.vocabulary import VERDICTS, Semantics, Verdict
from ..exact.verdict import TheoremVerdict

__all__ = ["VERDICTS", "Attempt", "AttemptLog", "Result"]


@dataclass
class Attempt:
    """One step of the search: what was tried, its size, its time and its outcome.

    Parameters
    ----------
    stage : str
        What was tried (``"fluid linear Lyapunov"``, ``"table (K=12) Foster"``, ...).
    size : str
        How large it was (rows x variables, regions, faces).
    time_s : float
        Wall-clock seconds.
    outcome : str
        What came of it, in words.

    Examples
    --------
    >>> Attempt("regions", "4 regions (3 unbounded)", 0.01, "enumerated").outcome
    'enumerated'
    """

    stage: str
    size: str
    time_s: float
    outcome: str

    def to_json(self) -> JsonObject:
        """The attempt as the JSON object ``certify prove --json`` lists (its fields, in order).

        Returns
        -------
        JsonObject
            ``stage``, ``size``, ``time_s`` and ``outcome``.

        Examples
        --------
        >>> Attempt("regions", "4 regions", 0.01, "enumerated").to_json()
        {'stage': 'regions', 'size': '4 regions', 'time_s': 0.01, 'outcome': 'enumerated'}
        """
        return {"stage": self.stage, "size": self.size, "time_s": self.time_s, "outcome": self.outcome}


class AttemptLog(list[Attempt]):
    """The attempts of a run; ``listener`` (if set) hears each one as it is recorded (live progress).

    Examples
    --------
    >>> log = AttemptLog()
    >>> heard = []
    >>> log.listener = heard.append
    >>> log.append(Attempt("regions", "", 0.0, "enumerated"))
    >>> [a.stage for a in heard]
    ['regions']
    """

    listener: Callable[[Attempt], None] | None = None

    def append(self, a: Attempt) -> None:
        """Record ``a`` and tell the listener."""
        super().append(a)
        if self.listener is not None:
            self.listener(a)

    def extend(self, items: Iterable[Attempt]) -> None:
        """Record each attempt in turn (the listener hears each)."""
        for a in items:
            self.append(a)


@dataclass
class Result:
    """The outcome of :func:`certify.prove`.

    ``verdict`` is ``stable`` or ``unstable`` only with an exactly checked proof
    (a certificate that passed :mod:`certify.exact`, or a theorem whose hypotheses
    were checked on this network); ``semantics`` says for which laws it is proved
    (``general``: every distribution with these means; ``markovian``: the
    exponential or phase-type laws given).

    Examples
    --------
    >>> r = Result("mm1", verdict="stable", semantics="general", method="fluid linear Lyapunov certificate")
    >>> r.to_json()["verdict"], r.table().splitlines()[1]
    ('stable', 'verdict: stable (general; fluid linear Lyapunov certificate)')
    """

    network: str
    verdict: Verdict = "undecided"
    semantics: Semantics = "markovian"
    method: str = "none"
    certificate: Certificate | None = None
    certificate_path: str | None = None
    reasons: list[str] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=AttemptLog)
    time_s: float = 0.0
    expansion: list[str] = field(default_factory=list)
    simulation: JsonObject | None = None
    theorems: list[TheoremVerdict] = field(default_factory=list)  # serialised by to_json
    hints: list[tuple[int, ...]] = field(default_factory=list, repr=False)  # directions where no V decreased
    #: Per sink (or set of sinks, names joined by commas): the last Poisson box's floating-point bounds on its
    #: stationary excess, (growth value / capacity - 1, drain value / served - 1): the growth side proves instability
    #: where the first is above 0, the drain side stability where the second is below.  Search guidance for
    #: ``certify boundary``'s probe placement (:mod:`certify.workflows.placement`), never proof.
    estimates: dict[str, tuple[float, float]] = field(default_factory=dict, repr=False)

    def to_json(self) -> JsonObject:
        """The result as the JSON object ``certify prove --json`` prints."""
        return {
            "network": self.network,
            "verdict": self.verdict,
            "semantics": self.semantics,
            "phase_expansion": self.expansion,
            "method": self.method,
            "certificate": self.certificate_path,
            "reasons": self.reasons,
            "attempts": [a.to_json() for a in self.attempts],
            "simulation": self.simulation,
            # TheoremVerdict.to_json (exact/verdict.py) is typed dict[str, object]; its values are JSON values
            "theorems": [tv.to_json() for tv in self.theorems],
            "time_s": round(self.time_s, 4),
        }

    def _summary(self) -> tuple[str, list[str], list[list[object]]]:
        sem = self.semantics + (", phase-type" if self.expansion and self.semantics == "markovian" else "")
        head = f"{self.network}: {self.verdict} ({sem}; {self.method}) in {self.time_s:.2f} s"
        rows: list[list[object]] = [[a.stage, a.size, f"{a.time_s:.2f}", a.outcome] for a in self.attempts]
        return head, list(self.reasons), rows

    def _repr_markdown_(self) -> str:
        """The result in a notebook, as Markdown: the verdict line, the reasons, the stages."""
        head, reasons, rows = self._summary()
        out = [f"**{markdown_escape(head)}**", ""] + [f"- {markdown_escape(r)}" for r in reasons]
        if rows:
            out += ["", markdown_table(["stage", "size", "s", "outcome"], rows)]
        return "\n".join(out)

    def _repr_html_(self) -> str:
        """The result in a notebook, as HTML: the verdict line, the reasons, the stages."""
        head, reasons, rows = self._summary()
        items = "".join(f"<li>{html_escape(r)}</li>" for r in reasons)
        table = html_table(["stage", "size", "s", "outcome"], rows) if rows else ""
        return f"<div><p><b>{html_escape(head)}</b></p><ul>{items}</ul>{table}</div>"

    def table(self) -> str:
        """A short human-readable report."""
        lines = [f"network: {self.network}"]
        # Column widths from the content; a size text longer than 48 characters wraps within its column.
        w = max([len(a.stage) for a in self.attempts] + [5])
        sw = min(max([len(a.size) for a in self.attempts] + [4]), 48)
        for a in self.attempts:
            size = textwrap.wrap(a.size, sw, break_long_words=True) or [""]
            lines.append(f"  {a.stage:<{w}}  {size[0]:<{sw}}  {a.time_s:7.2f}s  {a.outcome}")
            lines.extend(f"  {'':<{w}}  {more}" for more in size[1:])
        if self.expansion:
            lines.append("phase-type expansion (the chain is on queue lengths x phases):")
            lines.extend(f"  {e}" for e in self.expansion)
        for tv in self.theorems:
            said = tv.verdict if tv.proved else f"{tv.verdict}, not proved here: {'; '.join(tv.missing)}"
            lines.append(f"theorem: {tv.theorem} -> {said} ({tv.numbers})")
        sem = self.semantics + (", phase-type" if self.expansion and self.semantics == "markovian" else "")
        lines.append(f"verdict: {self.verdict} ({sem}; {self.method})")
        for r in self.reasons:
            lines.append(f"  - {r}")
        if self.certificate_path:
            lines.append(f"certificate: {self.certificate_path}")
        lines.append(f"time: {self.time_s:.2f}s")
        return "\n".join(lines)
