"""What :func:`certify.workflows.boundary.boundary` returns: the proved bracket, its probes and certificates.

:class:`BoundaryResult` holds the bracket (the largest value proved stable, the
smallest proved unstable, each with its exactly checked certificate), every
probe (:class:`BoundaryStep`), the notes, and renders itself as text, JSON,
files and notebook output; ``explain(side)`` gives the readable proof of one end.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..core.numbers import approx_str, exact_str, q
from ..core.render import html_escape, html_table, markdown_escape, markdown_table

__all__ = ["BoundaryStep", "BoundaryResult"]


@dataclass(frozen=True)
class BoundaryStep:
    """One probe of the bisection: the parameter's value and what ``prove`` proved there.

    Attributes
    ----------
    value : Fraction
        The parameter's exact value.
    verdict : str
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
    verdict: str
    method: str
    time_s: float

    def to_json(self) -> dict[str, Any]:
        """The step as JSON: the exact value (``p/q``), its decimal, the verdict, the method, the time.

        Returns
        -------
        dict
            ``value``, ``approx``, ``verdict``, ``method``, ``time_s``.
        """
        return {"value": q(self.value), "approx": float(self.value), "verdict": self.verdict, "method": self.method,
                "time_s": round(self.time_s, 3)}


@dataclass
class BoundaryResult:
    """The bracket a :func:`boundary` run proved, its steps and its certificates.

    Attributes
    ----------
    network, parameter : str
        The network's name and the parameter varied.
    lo, hi, tol : Fraction
        The interval searched and the width asked for.
    stable_at, unstable_at : Fraction or None
        The value proved stable nearest the boundary, and the one proved unstable (None: no probe proved that side).
    steps : list of BoundaryStep
        Every probe, in the order run.
    certificates, documents : dict
        Per side (``stable``, ``unstable``): the certificate at that end and the network document it is about.
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
    certificates: dict[str, dict] = field(default_factory=dict)
    documents: dict[str, dict] = field(default_factory=dict)
    stopped: str = ""
    notes: list[str] = field(default_factory=list)
    time_s: float = 0.0
    paths: dict[str, dict[str, str]] = field(default_factory=dict)
    orientation: int = 0  # +1: stable below the boundary, -1: above, 0: not known

    @property
    def width(self) -> Fraction | None:
        """``|unstable_at - stable_at|``, or None when a side is not proved."""
        if self.stable_at is None or self.unstable_at is None:
            return None
        return abs(self.unstable_at - self.stable_at)

    @property
    def bracketed(self) -> bool:
        """True when both sides are proved (the boundary lies between them, if it crosses once)."""
        return self.width is not None

    def write(self, out: str | Path) -> dict[str, dict[str, str]]:
        """Write each side's network and certificate into directory ``out`` (``stable.json``, ``stable.cert.json``, ...).

        Parameters
        ----------
        out : str or Path
            The directory (created if missing).

        Returns
        -------
        dict
            Per side, the ``network`` and ``certificate`` paths written (also kept in ``self.paths``).
        """
        from ..certificates import dumps

        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        for side, cert in self.certificates.items():
            net_path, cert_path = d / f"{side}.json", d / f"{side}.cert.json"
            net_path.write_text(json.dumps(self.documents[side], indent=1) + "\n")
            cert_path.write_text(dumps(cert))
            self.paths[side] = {"network": str(net_path), "certificate": str(cert_path)}
        return self.paths

    def explain(self, side: str = "stable", max_rows: int = 20) -> Any:
        """The readable proof of one end's certificate (:func:`certify.explain.explain`; it renders in Jupyter).

        Parameters
        ----------
        side : {"stable", "unstable"}
            Which end.
        max_rows : int
            The longest table kept in the text.

        Returns
        -------
        Explanation
            The proof, verified first; ``.render("latex")`` for a paper.

        Raises
        ------
        ValueError
            When no probe proved that side.

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

        if side not in self.certificates:
            raise ValueError(f"side: no value was proved {side} (proved: {', '.join(sorted(self.certificates)) or 'none'})")
        return explain(from_dict(self.documents[side]), self.certificates[side], max_rows=max_rows)

    def to_json(self) -> dict[str, Any]:
        """The result as one JSON object: the bracket (exact), its width, every step, the certificates per side.

        Returns
        -------
        dict
            ``network``, ``parameter``, ``lo``, ``hi``, ``tol``, ``stable_at``, ``unstable_at``, ``width``
            (exact ``p/q`` strings or null), ``steps``, ``certificates`` (per side: the certificate's kind and,
            once written, its files), ``stopped``, ``notes``, ``time_s``.
        """

        def ex(x: Fraction | None) -> str | None:
            return None if x is None else q(x)

        certs = {side: {"kind": c.get("kind"), **self.paths.get(side, {})} for side, c in self.certificates.items()}
        return {"network": self.network, "parameter": self.parameter, "lo": q(self.lo), "hi": q(self.hi),
                "tol": q(self.tol), "stable_at": ex(self.stable_at), "unstable_at": ex(self.unstable_at),
                "width": ex(self.width), "steps": [s.to_json() for s in self.steps], "certificates": certs,
                "stopped": self.stopped, "notes": list(self.notes), "time_s": round(self.time_s, 3)}

    def to_pandas(self) -> Any:
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
        s = f"stable at {self.parameter} = {show(self.stable_at)}" if self.stable_at is not None else "no value proved stable"
        u = (f"unstable at {self.parameter} = {show(self.unstable_at)}" if self.unstable_at is not None
             else "no value proved unstable")
        out.append(f"{s}; {u}")
        if self.width is not None:
            out.append(f"bracket width {approx_str(self.width)} (asked: {approx_str(self.tol)}); {len(self.steps)} probes, "
                       f"{self.time_s:.1f} s")
        out.append(f"stopped: {self.stopped}")
        out.extend(f"note: {n}" for n in self.notes)
        return out
