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

Public: :func:`boundary`, :data:`LOAD`; what it returns,
:class:`~certify.workflows.boundary_result.BoundaryResult` (with its steps,
:class:`~certify.workflows.boundary_result.BoundaryStep`), is in
:mod:`certify.workflows.boundary_result`.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from ..core.errors import NetworkError, NotSupported
from ..core.model import Network
from ..core.numbers import approx_str, as_fraction, exact_str, q
from .boundary_result import BoundaryResult, BoundaryStep
from .paths import apply_values, base_doc, check_path

__all__ = ["LOAD", "default_tolerance", "bisection_interval", "boundary"]

#: The parameter name that scales every stream rate by the value (1 is the network as given).
LOAD = "load"

#: Probes at most, whatever the tolerance.
MAX_STEPS = 64


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
