"""Stability boundaries along one parameter, proved on both sides (``certify boundary``).

:func:`boundary` varies one number of a network (a field path, as the sweep
takes it, or ``load``: a factor on every stream rate) between two exact
values and bisects, proving every probe with :func:`certify.prove`: the
largest value proved stable and the smallest proved unstable bracket the
boundary, each with its exactly checked certificate.  The probes are exact
rationals (midpoints of exact ends), so the bracket ends are exact values of
the parameter.

The bisection assumes one crossing in the interval (stable on one side,
unstable on the other); it reads the side of each end from the proofs there
and never claims more than the proofs say: a probe no search decides is kept
as *undecided*, the bracket narrows from the proved sides only, and a side no
probe proved is reported as such with the best one-sided bound.

Public: :func:`boundary`, :class:`BoundaryResult`, :class:`BoundaryStep`, :data:`LOAD`.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..core.errors import NetworkError, NotSupported
from ..core.model import Network
from ..core.numbers import approx_str, as_fraction, exact_str, q
from ..core.render import html_escape, html_table, markdown_escape, markdown_table
from .paths import apply_values, base_doc, check_path

__all__ = ["LOAD", "BoundaryStep", "BoundaryResult", "default_tolerance", "bisection_interval", "boundary"]

#: The parameter name that scales every stream rate by the value (1 is the network as given).
LOAD = "load"

#: Probes at most, whatever the tolerance.
MAX_STEPS = 64


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
        >>> from certify.core.model import Station, Stream
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


def default_tolerance(lo: Fraction, hi: Fraction) -> Fraction:
    """The width that gives three significant digits of a boundary in [lo, hi].

    It is 5 * 10^(e - 3), e the decimal exponent of the larger end in absolute value.

    Parameters
    ----------
    lo, hi : Fraction
        The interval.

    Returns
    -------
    Fraction
        The tolerance (exact).

    Examples
    --------
    >>> default_tolerance(Fraction(1, 5), Fraction(3, 10)), default_tolerance(Fraction(1, 2), Fraction(3, 2))
    (Fraction(1, 2000), Fraction(1, 200))
    """
    top = max(abs(lo), abs(hi))
    e = math.floor(math.log10(top)) if top > 0 else 0
    while Fraction(10) ** e > top:  # the float log can be one off at powers of ten
        e -= 1
    while Fraction(10) ** (e + 1) <= top:
        e += 1
    return 5 * Fraction(10) ** (e - 3)


def _document_at(doc: dict, parameter: str, tokens: Any, value: Fraction) -> dict:
    """The network document with the parameter set to ``value`` (``load``: every stream rate times ``value``)."""
    if parameter != LOAD:
        return apply_values(doc, [tokens], [value])
    out = json.loads(json.dumps(doc))
    for st in out.get("streams", []):
        rate = as_fraction(st["rate"])
        assert rate is not None  # base_doc writes numbers exactly
        st["rate"] = q(rate * value)
    return out


def bisection_interval(lo: Any, hi: Any, tol: Any = None) -> tuple[Fraction, Fraction, Fraction | None]:
    """The interval and tolerance of a bisection, exactly, or the refusal naming the option and the rule.

    Parameters
    ----------
    lo, hi : number
        The interval's ends (taken exactly).
    tol : number, optional
        The bracket width to stop at.

    Returns
    -------
    (Fraction, Fraction, Fraction or None)
        LO, HI and the tolerance (None when not given).

    Raises
    ------
    NetworkError
        (``--vary``) an end that is not a finite number, or LO >= HI; (``--tol``) a tolerance <= 0.

    Examples
    --------
    >>> bisection_interval("0.5", "1.5", "0.01")
    (Fraction(1, 2), Fraction(3, 2), Fraction(1, 100))
    >>> bisection_interval(2, 1)
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: --vary: LO (2) must be smaller than HI (1)
    """
    a, b = as_fraction(lo), as_fraction(hi)
    if a is None or b is None:
        raise NetworkError(None, "--vary", f"the interval ends {lo!r}, {hi!r} must be finite numbers")
    if a >= b:
        raise NetworkError(None, "--vary", f"LO ({exact_str(a)}) must be smaller than HI ({exact_str(b)})")
    t = None if tol is None else as_fraction(tol)
    if tol is not None and (t is None or t <= 0):
        raise NetworkError(None, "--tol", f"{tol!r} must be a positive number")
    return a, b, t


def boundary(
    net: Network,
    parameter: str,
    lo: Any,
    hi: Any,
    *,
    tol: Any = None,
    point_limit: float = 60.0,
    time_limit: float = 600.0,
    templates: list[str] | None = None,
    solver: str | None = None,
    progress: Callable[[BoundaryStep], None] | None = None,
) -> BoundaryResult:
    """Bracket the stability boundary of ``net`` along one parameter by bisection, with a proof at both ends.

    Parameters
    ----------
    net : Network
        The JSQ network.
    parameter : str
        A field path (``streams[1].rate``, ``stations.3.mu``, ``tie_breaking[0].probs.1`` ...) or
        :data:`LOAD` (every stream rate times the value).
    lo, hi : number
        The interval, taken exactly (``0.1`` is 1/10); lo < hi.
    tol : number, optional
        Stop once the proved bracket is at most this wide (default :func:`default_tolerance`).
    point_limit : float
        Seconds for each probe's :func:`certify.prove`.
    time_limit : float
        Seconds for the whole run: no probe starts after it, and each gets at most what is left.
    templates, solver
        As for :func:`certify.prove` (simulation is never run: a probe is proved or undecided).
    progress : callable, optional
        Called with each :class:`BoundaryStep` as it finishes.

    Returns
    -------
    BoundaryResult
        The bracket (exact ends), every step, the certificates of both ends.  A
        Ctrl-C ends the run early: the result so far is returned, ``stopped`` says so.

    Raises
    ------
    NetworkError
        When the parameter names no number of the network, or lo >= hi, or tol <= 0.
    NotSupported
        For a fork-join network.

    Examples
    --------
    An M/M/1 queue (mu = 1, lambda = 1 at load 1): stable below load 1, unstable above.

    >>> from certify.core.model import Station, Stream
    >>> mm1 = Network("mm1", (Station("1", Fraction(1)),), (Stream(Fraction(1), choice=("1",)),))
    >>> r = boundary(mm1, "load", "0.5", "1.5", tol="0.01")
    >>> r.stable_at, r.unstable_at, r.width <= Fraction(1, 100)
    (Fraction(255, 256), Fraction(257, 256), True)
    >>> sorted(r.certificates)
    ['stable', 'unstable']
    """
    from ..io.loader import from_dict
    from ..proof.pipeline import prove

    if not isinstance(net, Network):
        raise NotSupported(f"{getattr(net, 'name', net)}: boundaries are for JSQ networks")

    def fail(rule: str) -> NetworkError:
        return NetworkError(None, "--vary", rule)

    a, b, given = bisection_interval(lo, hi, tol)
    t = default_tolerance(a, b) if given is None else given
    doc = base_doc(net)
    tokens = None if parameter == LOAD else check_path(doc, parameter, fail)
    res = BoundaryResult(net.name, parameter, a, b, t)
    t0 = time.perf_counter()
    deadline = t0 + time_limit

    def probe(v: Fraction) -> str:
        doc_v = _document_at(doc, parameter, tokens, v)
        start = time.perf_counter()
        try:
            net_v = from_dict(doc_v)
        except NetworkError as exc:
            step = BoundaryStep(v, "invalid", f"the network is invalid here: {exc}", 0.0)
        else:
            left = max(0.0, min(point_limit, deadline - start))
            out = prove(net_v, time_limit=left, simulate=False, templates=templates, solver=solver)
            step = BoundaryStep(v, out.verdict, out.method, time.perf_counter() - start)
            if out.verdict in ("stable", "unstable") and out.certificate is not None:
                best = res.stable_at if out.verdict == "stable" else res.unstable_at
                if best is None or _nearer(v, best, res, out.verdict):
                    res.certificates[out.verdict], res.documents[out.verdict] = out.certificate, doc_v
                    if out.verdict == "stable":
                        res.stable_at = v
                    else:
                        res.unstable_at = v
        res.steps.append(step)
        if progress is not None:
            progress(step)
        return step.verdict

    try:
        res.stopped = _bisect(res, probe, deadline)
    except KeyboardInterrupt:
        res.stopped = "interrupted (Ctrl-C): the bracket proved so far"
    res.time_s = time.perf_counter() - t0
    _explain(res)
    return res


def _nearer(v: Fraction, best: Fraction, res: BoundaryResult, side: str) -> bool:
    """Whether a new proof at ``v`` is nearer the other side than the one kept (``best``)."""
    other = res.unstable_at if side == "stable" else res.stable_at
    if other is not None:
        return abs(v - other) < abs(best - other)
    # no proof on the other side yet: nearer the interval's middle
    mid = (res.lo + res.hi) / 2
    return abs(v - mid) < abs(best - mid)


def _bisect(res: BoundaryResult, probe: Callable[[Fraction], str], deadline: float) -> str:
    """Probe the ends, then halve the gap next to a proved side until it is at most ``res.tol``; why it stopped."""
    ends = (probe(res.lo), probe(res.hi))
    if ends[0] == ends[1] and ends[0] in ("stable", "unstable"):
        return f"both ends are {ends[0]}: no crossing in [{exact_str(res.lo)}, {exact_str(res.hi)}]"
    if not any(v in ("stable", "unstable") for v in ends):
        return "neither end is proved stable or unstable: nothing to bisect from"
    # orientation: +1 when the stable side is below
    if "stable" in ends:
        up = 1 if ends[0] == "stable" else -1
    else:
        up = -1 if ends[0] == "unstable" else 1
    res.orientation = up
    for _ in range(MAX_STEPS):
        if time.perf_counter() > deadline:
            return "time limit reached"
        gap = _next_gap(res, up)
        if gap is None:
            return f"the bracket is at most {approx_str(res.tol)} wide"
        x, y = gap
        probe((x + y) / 2)
    return f"{MAX_STEPS} probes"


def _next_gap(res: BoundaryResult, up: int) -> tuple[Fraction, Fraction] | None:
    """The widest gap wider than tol between a proved end and its nearest probe towards the other side, or None."""
    pts = sorted({st.value for st in res.steps}, key=lambda v: up * v)  # stable side first
    s = res.stable_at
    u = res.unstable_at
    gaps = []
    if s is not None:
        beyond = [v for v in pts if up * v > up * s]
        if beyond:
            gaps.append((s, beyond[0]))
    if u is not None:
        before = [v for v in pts if up * v < up * u]
        if before:
            gaps.append((before[-1], u))
    if s is not None and u is not None:
        if abs(u - s) <= res.tol:
            return None
    else:
        gaps = [g for g in gaps if abs(g[1] - g[0]) > res.tol]
    gaps = [g for g in gaps if g[1] != g[0]]
    if not gaps:
        return None
    return max(gaps, key=lambda g: abs(g[1] - g[0]))


def _explain(res: BoundaryResult) -> None:
    """Notes for a side not proved, undecided probes inside the bracket, and proofs that contradict one crossing."""
    seen = {st.value: st.verdict for st in res.steps}
    if res.stable_at is None:
        res.notes.append("no probe was proved stable: the stable side is not proved")
    if res.unstable_at is None:
        res.notes.append("no probe was proved unstable: the unstable side is not proved")
    s, u = res.stable_at, res.unstable_at
    if s is not None and u is not None:
        lo, hi = min(s, u), max(s, u)
        inside = sorted(v for v, verdict in seen.items() if lo < v < hi)
        if inside:
            res.notes.append(f"{len(inside)} probes inside the bracket were not decided (nearest the stable end: "
                             f"{approx_str(min(inside, key=lambda v: abs(v - s)))})")
        up = res.orientation
        wrong = [v for v, verdict in seen.items() if (verdict == "stable" and up * v > up * u)
                 or (verdict == "unstable" and up * v < up * s)]
        if wrong:
            res.notes.append("proofs on both sides of each other: the parameter crosses the boundary more than once "
                             f"in the interval (e.g. at {approx_str(wrong[0])}); the bracket is one crossing")
