"""What :func:`certify.workflows.boundary.boundary` returns: the proved brackets, the probes and the certificates.

:class:`BoundaryResult` holds every crossing found (:class:`Crossing`: a value
proved stable next to one proved unstable, each with its exactly checked
certificate), every probe (:class:`BoundaryStep`), the notes, and renders itself
as text, JSON, files and notebook output; ``explain(side)`` gives the readable
proof of one end.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..core.certificate import Certificate
from ..core.jsontypes import JsonDocument, JsonObject
from ..core.numbers import approx_str, exact_str, q
from ..core.render import html_escape, html_table, markdown_escape, markdown_table
from ..core.vocabulary import Verdict

if TYPE_CHECKING:
    from pandas import DataFrame

    from ..explain.explanation import Explanation

__all__ = ["BoundaryStep", "Crossing", "BoundaryResult"]


@dataclass(frozen=True)
class BoundaryStep:
    """One probe of the bisection: the parameter's value and what ``prove`` proved there.

    Attributes
    ----------
    value : Fraction
        The parameter's exact value.
    verdict : Verdict or ``"invalid"``
        ``stable``, ``unstable`` or ``undecided`` (or ``invalid``: the value breaks the network).
    method : str
        The proof's method (or why there is none).
    time_s : float
        Seconds spent proving.

    Examples
    --------
    >>> BoundaryStep(Fraction(1, 4), "stable", "fluid linear Lyapunov certificate", 0.12).to_json()["value"]
    '1/4'
    """

    value: Fraction
    verdict: Verdict | Literal["invalid"]
    method: str
    time_s: float

    def to_json(self) -> JsonObject:
        """The step as JSON: the exact value (``p/q``), its decimal, the verdict, the method, the time.

        Returns
        -------
        dict
            ``value``, ``approx``, ``verdict``, ``method``, ``time_s``.
        """
        return {"value": q(self.value), "approx": float(self.value), "verdict": self.verdict, "method": self.method,
                "time_s": round(self.time_s, 3)}


@dataclass
class Crossing:
    """One proved change of side: neighbouring probes, one proved stable and one proved unstable, with their certificates.

    Between the two values the network changes side at least once (no proved probe lies between them);
    how many times it does is not claimed.

    Attributes
    ----------
    stable_at, unstable_at : Fraction
        The ends of the bracket (exact values of the parameter).
    certificates, documents : dict
        Per side (``stable``, ``unstable``): the certificate at that end and the network document it is about.
    paths : dict
        Per side, once written: the ``network`` and ``certificate`` files.

    Examples
    --------
    >>> c = Crossing(Fraction(1, 2), Fraction(5, 8), {}, {})
    >>> c.width, c.orientation, c.to_json()["lower"]
    (Fraction(1, 8), 1, '1/2')
    """

    stable_at: Fraction
    unstable_at: Fraction
    certificates: dict[str, Certificate]
    documents: dict[str, JsonDocument]
    paths: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def width(self) -> Fraction:
        """``|unstable_at - stable_at|``."""
        return abs(self.unstable_at - self.stable_at)

    @property
    def orientation(self) -> int:
        """+1 when the stable end is the lower one, -1 when it is the upper one."""
        return 1 if self.stable_at < self.unstable_at else -1

    def write(self, d: Path) -> dict[str, dict[str, str]]:
        """Write both ends' networks and certificates into directory ``d`` (``stable.json``, ``stable.cert.json``, ...).

        Parameters
        ----------
        d : Path
            The directory (created if missing).

        Returns
        -------
        dict
            Per side, the ``network`` and ``certificate`` paths written (also kept in ``self.paths``).
        """
        self.paths.update(_write_ends(d, self.certificates, self.documents))
        return self.paths

    def to_json(self) -> JsonObject:
        """The crossing as JSON: its ends (exact ``p/q``), lower and upper, width, orientation, certificates per side.

        Returns
        -------
        dict
            ``stable_at``, ``unstable_at``, ``lower``, ``upper``, ``width``, ``orientation``, ``certificates``
            (per side: the kind and, once written, the files).
        """
        return {"stable_at": q(self.stable_at), "unstable_at": q(self.unstable_at),
                "lower": q(min(self.stable_at, self.unstable_at)), "upper": q(max(self.stable_at, self.unstable_at)),
                "width": q(self.width), "orientation": self.orientation,
                "certificates": {side: {"kind": c.get("kind"), **self.paths.get(side, {})}
                                 for side, c in self.certificates.items()}}


def _write_ends(d: Path, certificates: dict[str, Certificate], documents: dict[str, JsonDocument]) -> dict[str, dict[str, str]]:
    """Write each side's network document (as :func:`certify.dump` writes a network) and certificate into ``d``.

    Parameters
    ----------
    d : Path
        The directory (created if missing).
    certificates, documents : dict
        Per side: the certificate and the plain network document (:func:`certify.workflows.paths.base_doc`).

    Returns
    -------
    dict
        Per side, the ``network`` and ``certificate`` paths written.
    """
    from ..certificates import dumps

    d.mkdir(parents=True, exist_ok=True)
    paths = {}
    for side, cert in certificates.items():
        net_path, cert_path = d / f"{side}.json", d / f"{side}.cert.json"
        net_path.write_text(json.dumps(documents[side], indent=1, ensure_ascii=False, allow_nan=False) + "\n",
                            encoding="utf-8")
        cert_path.write_text(dumps(cert))
        paths[side] = {"network": str(net_path), "certificate": str(cert_path)}
    return paths


@dataclass
class BoundaryResult:
    """The brackets a :func:`boundary` run proved, its steps and its certificates.

    Every crossing found is in ``crossings`` (lowest first); ``stable_at``, ``unstable_at``,
    ``certificates`` and ``documents`` are those of the first one, or, when none was found,
    the one side proved (the value proved nearest the end not proved).

    Attributes
    ----------
    network, parameter : str
        The network's name and the parameter varied.
    lo, hi, tol : Fraction
        The interval searched and the width asked for.
    stable_at, unstable_at : Fraction or None
        The first crossing's ends, or the one-sided bound (None: no probe proved that side).
    steps : list of BoundaryStep
        Every probe, in the order run.
    certificates, documents : dict
        Per side (``stable``, ``unstable``): the certificate at that end and the network document it is about.
    crossings : list of Crossing
        Every bracket found, in increasing order of the parameter: at least one change of side in each.
    grid : int
        The interior grid points probed before bisecting.
    stopped : str
        Why the bisection stopped.
    notes : list of str
        What else the run says (a side not proved, the interval not bracketing the boundary).
    time_s : float
        Seconds for the whole run.

    Examples
    --------
    >>> r = BoundaryResult("mm1", "load", Fraction(1, 2), Fraction(3, 2), Fraction(1, 100),
    ...                    stable_at=Fraction(63, 64), unstable_at=Fraction(65, 64))
    >>> r.width, r.bracketed
    (Fraction(1, 32), True)
    """

    network: str
    parameter: str
    lo: Fraction
    hi: Fraction
    tol: Fraction
    stable_at: Fraction | None = None
    unstable_at: Fraction | None = None
    steps: list[BoundaryStep] = field(default_factory=list)
    certificates: dict[str, Certificate] = field(default_factory=dict)
    documents: dict[str, JsonDocument] = field(default_factory=dict)
    stopped: str = ""
    notes: list[str] = field(default_factory=list)
    time_s: float = 0.0
    paths: dict[str, dict[str, str]] = field(default_factory=dict)
    orientation: int = 0  # +1: stable below the (first) crossing, -1: above, 0: not known
    crossings: list[Crossing] = field(default_factory=list)
    grid: int = 0

    @property
    def width(self) -> Fraction | None:
        """``|unstable_at - stable_at|``, or None when a side is not proved."""
        if self.stable_at is None or self.unstable_at is None:
            return None
        return abs(self.unstable_at - self.stable_at)

    @property
    def bracketed(self) -> bool:
        """True when at least one crossing is bracketed (a value proved stable next to one proved unstable)."""
        return self.width is not None

    def write(self, out: str | Path) -> dict[str, dict[str, str]]:
        """Write each end's network and certificate into directory ``out`` (``stable.json``, ``stable.cert.json``, ...).

        With several crossings, crossing i (from 1, lowest first) goes into ``out/crossing-i/``.

        Parameters
        ----------
        out : str or Path
            The directory (created if missing).

        Returns
        -------
        dict
            Per side, the ``network`` and ``certificate`` paths of the first crossing (or of the one
            side proved); also kept in ``self.paths``, each crossing's in its ``paths``.
        """
        d = Path(out)
        if len(self.crossings) > 1:
            for i, c in enumerate(self.crossings, 1):
                c.write(d / f"crossing-{i}")
            self.paths.update(self.crossings[0].paths)
        elif self.crossings:
            self.paths.update(self.crossings[0].write(d))
        else:
            self.paths.update(_write_ends(d, self.certificates, self.documents))
        return self.paths

    def explain(self, side: str = "stable", max_rows: int = 20, crossing: int | None = None) -> Explanation:
        """The readable proof of one end's certificate (:func:`certify.explain.explain`; it renders in Jupyter).

        Parameters
        ----------
        side : {"stable", "unstable"}
            Which end.
        max_rows : int
            The longest table kept in the text.
        crossing : int, optional
            Which crossing's end (from 1, lowest first; default: the first, or the one side proved).

        Returns
        -------
        Explanation
            The proof, verified first; ``.render("latex")`` for a paper.

        Raises
        ------
        ValueError
            When no probe proved that side, or there is no such crossing.

        Examples
        --------
        >>> from certify.core.model import Network, Station, Stream
        >>> from certify.workflows.boundary import boundary
        >>> mm1 = Network("mm1", (Station("1", Fraction(1)),), (Stream(Fraction(1), choice=("1",)),))
        >>> boundary(mm1, "load", "0.5", "1.5", tol="0.1").explain("unstable").title
        'mm1 is not positive recurrent: a dual of the static-split LP'
        """
        from ..explain import explain
        from ..io.loader import from_dict

        certs, docs = self.certificates, self.documents
        if crossing is not None:
            if not 1 <= crossing <= len(self.crossings):
                raise ValueError(f"crossing: {crossing!r} is not one of the {len(self.crossings)} crossings found (from 1)")
            certs, docs = self.crossings[crossing - 1].certificates, self.crossings[crossing - 1].documents
        if side not in certs:
            raise ValueError(f"side: no value was proved {side} (proved: {', '.join(sorted(certs)) or 'none'})")
        return explain(from_dict(docs[side]), certs[side], max_rows=max_rows)

    def to_json(self) -> JsonObject:
        """The result as one JSON object: the bracket (exact), its width, every step, the certificates per side.

        Returns
        -------
        dict
            ``network``, ``parameter``, ``lo``, ``hi``, ``tol``, ``stable_at``, ``unstable_at``, ``width``
            (exact ``p/q`` strings or null: the first crossing's), ``steps``, ``certificates`` (per side: the
            certificate's kind and, once written, its files), ``crossings`` (every bracket,
            :meth:`Crossing.to_json`), ``grid``, ``stopped``, ``notes``, ``time_s``.
        """

        def ex(x: Fraction | None) -> str | None:
            return None if x is None else q(x)

        certs = {side: {"kind": c.get("kind"), **self.paths.get(side, {})} for side, c in self.certificates.items()}
        return {"network": self.network, "parameter": self.parameter, "lo": q(self.lo), "hi": q(self.hi),
                "tol": q(self.tol), "stable_at": ex(self.stable_at), "unstable_at": ex(self.unstable_at),
                "width": ex(self.width), "steps": [s.to_json() for s in self.steps], "certificates": certs,
                "crossings": [c.to_json() for c in self.crossings], "grid": self.grid, "stopped": self.stopped,
                "notes": list(self.notes), "time_s": round(self.time_s, 3)}

    def to_pandas(self) -> DataFrame:
        """The probes as a pandas DataFrame: exact values (Fractions), their decimals, verdicts, methods, times.

        Returns
        -------
        pandas.DataFrame
            Columns ``value`` (Fraction), ``approx`` (float), ``verdict``, ``method``, ``time_s``, in probe order.
        """
        import pandas as pd

        return pd.DataFrame([{"value": st.value, "approx": float(st.value), "verdict": st.verdict,
                              "method": st.method, "time_s": st.time_s} for st in self.steps],
                            columns=["value", "approx", "verdict", "method", "time_s"])

    def _rows(self) -> list[list[object]]:
        return [[exact_str(st.value), st.verdict, st.method, f"{st.time_s:.2f}"] for st in self.steps]

    def _repr_markdown_(self) -> str:
        """The bracket in a notebook, as Markdown: the summary lines and every probe."""
        head = f"**boundary of {markdown_escape(self.network)} along {markdown_escape(self.parameter)}**"
        return "\n".join([head, "", *(f"- {markdown_escape(line)}" for line in self.lines()), "",
                          markdown_table(["value", "verdict", "method", "s"], self._rows())])

    def _repr_html_(self) -> str:
        """The bracket in a notebook, as HTML: the summary lines and every probe."""
        items = "".join(f"<li>{html_escape(line)}</li>" for line in self.lines())
        return (f"<div><p><b>boundary of {html_escape(self.network)} along {html_escape(self.parameter)}</b></p>"
                f"<ul>{items}</ul>{html_table(['value', 'verdict', 'method', 's'], self._rows())}</div>")

    def lines(self) -> list[str]:
        """The summary in words: the bracket, its width, why the run stopped, the notes.

        Returns
        -------
        list of str
            One line each.
        """

        def show(x: Fraction) -> str:
            exact = exact_str(x)
            return exact if exact == approx_str(x) else f"{approx_str(x)} (= {exact})"

        out = []
        if len(self.crossings) > 1:
            out.append(f"{len(self.crossings)} crossings found, each between a value proved stable and one proved unstable:")
            for i, c in enumerate(self.crossings, 1):
                ends = sorted([(c.stable_at, "stable"), (c.unstable_at, "unstable")])
                out.append(f"crossing {i}: " + "; ".join(f"{side} at {self.parameter} = {show(v)}" for v, side in ends)
                           + f" (width {approx_str(c.width)})")
            out.append(f"asked width: {approx_str(self.tol)}; {len(self.steps)} probes, {self.time_s:.1f} s")
        else:
            s = (f"stable at {self.parameter} = {show(self.stable_at)}" if self.stable_at is not None
                 else "no value proved stable")
            u = (f"unstable at {self.parameter} = {show(self.unstable_at)}" if self.unstable_at is not None
                 else "no value proved unstable")
            out.append(f"{s}; {u}")
            if self.width is not None:
                out.append(f"bracket width {approx_str(self.width)} (asked: {approx_str(self.tol)}); {len(self.steps)} probes, "
                           f"{self.time_s:.1f} s")
        out.append(f"stopped: {self.stopped}")
        out.extend(f"note: {n}" for n in self.notes)
        return out
