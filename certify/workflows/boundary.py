"""Stability boundaries along one parameter, proved on both sides (``certify boundary``).

:func:`boundary` varies one number of a network (a field path, as the sweep
takes it, or ``load``: a factor on every stream rate) between two exact
values, proving every probe with :func:`certify.prove`: first the ends and a
coarse grid of interior points, then, by bisection, every *crossing* the
probes show (a value proved stable next to one proved unstable), each end with
its exactly checked certificate.  The probes are exact rationals, so the
bracket ends are exact values of the parameter.  Where probes leave estimates of
a sink's stationary excess (the sink stages' Poisson boxes), the next probe of a
bracket goes where they predict the boundary's undecided zone ends
(:mod:`certify.workflows.placement`) rather than to the midpoint.  A grid point
whose nearest proved neighbours are proved on the same side first gets
:data:`SHORT_SHARE` of a probe's time, and a whole probe once every bracket is
narrow if that decided nothing.  A probe after the grid after which less than :data:`TAIL_SHARE` of a probe's time
would be left gets all of it.

It never claims more than the proofs say (:mod:`certify.workflows.crossings`):
a probe no search decides is kept as *undecided*, a bracket narrows from its
proved ends only, a side no probe proved is reported as such with the best
one-sided bound, and a crossing between two neighbouring probes proved on the
same side is not excluded (the notes say so).

Each probe is proved with one :class:`~certify.proof.options.ProveOptions`
(its time limit set per probe, simulation off).

Public: :func:`boundary`, :data:`LOAD`, :data:`SHORT_SHARE`, :data:`TAIL_SHARE`; what it returns,
:class:`~certify.workflows.boundary_result.BoundaryResult` (with its steps,
:class:`~certify.workflows.boundary_result.BoundaryStep`), is in
:mod:`certify.workflows.boundary_result`.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from ..core.certificate import Certificate
from ..core.errors import NetworkError, NotSupported
from ..core.jsontypes import JsonDocument
from ..core.model import Network
from ..core.numbers import approx_str, as_fraction, exact_str, q
from ..proof.options import ProveOptions
from .boundary_result import BoundaryResult, BoundaryStep, Crossing
from .crossings import DEFAULT_GRID, brackets, check_grid, frontier, notes, search
from .paths import ExactDocument, Tokens, apply_values, base_doc, check_path
from .placement import placed_point

__all__ = ["LOAD", "DEFAULT_GRID", "SHORT_SHARE", "TAIL_SHARE", "default_tolerance", "bisection_interval", "boundary"]

#: The parameter name that scales every stream rate by the value (1 is the network as given).
LOAD = "load"

#: The share of ``point_limit`` a grid point gets when its nearest proved neighbours are proved on the same side
#: (:func:`~certify.workflows.crossings.same_side`): such a probe shows a crossing only where the boundary crosses
#: twice between them, so it does not take a whole probe's time before the brackets are narrowed; one it leaves
#: undecided is probed again, whole, once every bracket is narrow (J = 8 seed 33 of ``bench/frontier.py``, 300 s:
#: the grid point 0.9375, between 0.85 and 1.025 proved unstable, spent 60 s undecided and the bracket ended at
#: [0.8390625, 0.85]; with 15 s there, two probes more fit, 0.84596 unstable and 0.84006125 stable, in one run of
#: two: in the other the probe at 0.84596 had 58 s, its box came out smaller, and it was not decided).
SHORT_SHARE = 0.25

#: A whole probe after the ends and the grid after which less than this share of ``point_limit`` would be left of the
#: run gets all of it: so short a last probe next to a bracket's ends is rarely decided (in stop 62's runs of J = 8
#: seeds 7, 58, 85 and 99 the last probes, 23-35 s, were all undecided), while the probe before it, given the rest
#: too, has a larger box.
TAIL_SHARE = 0.5


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


def _document_at(doc: JsonDocument, tokens: Tokens | None, value: Fraction) -> JsonDocument | ExactDocument:
    """The network document with the number at ``tokens`` set to ``value`` (``tokens`` None, :data:`LOAD`: every rate times it)."""
    if tokens is not None:
        return apply_values(doc, [tokens], [value])
    out: JsonDocument = json.loads(json.dumps(doc))
    streams = out.get("streams", [])
    assert isinstance(streams, list)  # base_doc writes a JSQ network's streams as a list of objects
    for st in streams:
        assert isinstance(st, dict)
        rate = as_fraction(st["rate"])
        assert rate is not None  # base_doc writes numbers exactly
        st["rate"] = q(rate * value)
    return out


def bisection_interval(lo: object, hi: object, tol: object = None) -> tuple[Fraction, Fraction, Fraction | None]:
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
    lo: object,
    hi: object,
    options: ProveOptions | None = None,
    *,
    tol: object = None,
    grid: int = DEFAULT_GRID,
    point_limit: float = 60.0,
    time_limit: float = 600.0,
    progress: Callable[[BoundaryStep], None] | None = None,
    **kw: Any,
) -> BoundaryResult:
    """Bracket every crossing of the stability boundary along one parameter found on a grid, with a proof at both ends.

    Parameters
    ----------
    net : Network
        The JSQ network.
    parameter : str
        A field path (``streams[1].rate``, ``stations.3.mu``, ``tie_breaking[0].probs.1`` ...) or
        :data:`LOAD` (every stream rate times the value).
    lo, hi : number
        The interval, taken exactly (``0.1`` is 1/10); lo < hi.
    options : ProveOptions, optional
        How each probe is proved (:func:`certify.prove`; default: its defaults), with its ``time_limit``
        replaced by ``point_limit`` (or what is left) and simulation never run: a probe is proved or undecided.
    tol : number, optional
        Stop once every proved bracket is at most this wide (default :func:`default_tolerance`).
    grid : int
        Evenly spaced interior points probed (after the ends) before bisecting (default
        :data:`~certify.workflows.crossings.DEFAULT_GRID`; 0: the ends alone).  A crossing shows
        where two neighbouring probes are proved on opposite sides.  A grid point between two probes proved on
        the same side gets :data:`SHORT_SHARE` of ``point_limit`` first, and a whole probe once every bracket is
        narrow if that decided nothing.
    point_limit : float
        Seconds for each probe's :func:`certify.prove`; a whole probe after the ends and the grid after which less
        than :data:`TAIL_SHARE` of it would be left of ``time_limit`` gets all that is left.
    time_limit : float
        Seconds for the whole run: no probe starts after it, and each gets at most what is left.
    progress : callable, optional
        Called with each :class:`BoundaryStep` as it finishes.
    **kw
        Fields of :class:`~certify.proof.options.ProveOptions` by name (``templates``, ``solver``, ...): they
        replace those of ``options``.

    Returns
    -------
    BoundaryResult
        Every bracket found (``crossings``, exact ends), every step, the certificates of every
        end.  A Ctrl-C ends the run early: the result so far is returned, ``stopped`` says so.

    Raises
    ------
    NetworkError
        When the parameter names no number of the network, or lo >= hi, or tol <= 0, or a bad grid.
    NotSupported
        For a fork-join network.

    Examples
    --------
    An M/M/1 queue (mu = 1, lambda = 1 at load 1): stable below load 1, unstable above.

    >>> from certify.core.model import Station, Stream
    >>> mm1 = Network("mm1", (Station("1", Fraction(1)),), (Stream(Fraction(1), choice=("1",)),))
    >>> r = boundary(mm1, "load", "0.5", "1.5", tol="0.01")
    >>> r.stable_at, r.unstable_at, r.width <= Fraction(1, 100), len(r.crossings)
    (Fraction(255, 256), Fraction(257, 256), True, 1)
    >>> sorted(r.certificates)
    ['stable', 'unstable']
    """
    from ..io.loader import from_dict
    from ..proof.pipeline import prove

    if not isinstance(net, Network):
        raise NotSupported(f"{getattr(net, 'name', net)}: boundaries are for JSQ networks")
    opts = replace(ProveOptions.of(options, "boundary", **kw), simulate=False)

    def fail(rule: str) -> NetworkError:
        return NetworkError(None, "--vary", rule)

    a, b, given = bisection_interval(lo, hi, tol)
    n = check_grid(grid)
    t = default_tolerance(a, b) if given is None else given
    doc = base_doc(net)
    tokens = None if parameter == LOAD else check_path(doc, parameter, fail)
    res = BoundaryResult(net.name, parameter, a, b, t, grid=n)
    proved: dict[Fraction, tuple[Certificate, JsonDocument]] = {}  # value -> (certificate, plain network document)
    seen: dict[Fraction, str] = {}  # value -> verdict, as the search reads it (proved only with a certificate)
    estimates: dict[Fraction, dict[str, tuple[float, float]]] = {}  # value -> the sink stages' box bounds (guidance)
    t0 = time.perf_counter()
    deadline = t0 + time_limit

    short: set[Fraction] = set()  # values a short probe left undecided

    def probe(v: Fraction, share: float = 1.0) -> str:
        start = time.perf_counter()
        short.discard(v)
        try:
            net_v = from_dict(_document_at(doc, tokens, v))
        except NetworkError as exc:
            step = BoundaryStep(v, "invalid", f"the network is invalid here: {exc}", 0.0)
        else:
            left = max(0.0, deadline - start)
            tail = share == 1 and len(res.steps) >= n + 2 and left - point_limit < TAIL_SHARE * point_limit
            if not tail:  # the ends and the grid, a short probe, or enough left after it: the probe's own limit
                left = min(point_limit * share, left)
            out = prove(net_v, replace(opts, time_limit=left))
            certified = out.verdict in ("stable", "unstable") and out.certificate is not None
            method = out.method if certified or out.verdict not in ("stable", "unstable") else (
                f"{out.method} (no certificate: not used as a proved end)")
            if share < 1 and not certified:
                short.add(v)
                method += f" (a short probe, {share:g} of the probe time: its proved neighbours are on one side)"
            step = BoundaryStep(v, out.verdict, method, time.perf_counter() - start)
            if certified and out.certificate is not None:
                proved[v] = (out.certificate, base_doc(net_v))  # the document as certify.dump writes the network
            if out.estimates:
                estimates[v] = dict(out.estimates)
        seen[v] = step.verdict if v in proved else "undecided"
        res.steps.append(step)
        if progress is not None:
            progress(step)
        return seen[v]

    try:
        res.stopped = search(a, b, t, n, probe, deadline, place=_placer(estimates),
                             confirm=lambda v: probe(v, SHORT_SHARE))
    except KeyboardInterrupt:
        res.stopped = "interrupted (Ctrl-C): the brackets proved so far"
    res.time_s = time.perf_counter() - t0
    _assemble(res, seen, proved)
    if short:
        many = len(short) > 1
        res.notes.append(f"{len(short)} grid point{'s' if many else ''} between two probes proved on the same side "
                         f"{'were' if many else 'was'} probed for {SHORT_SHARE:g} of the probe time only and not "
                         f"decided (at {', '.join(approx_str(v) for v in sorted(short))})")
    return res


def _placer(estimates: dict[Fraction, dict[str, tuple[float, float]]]
            ) -> Callable[[tuple[Fraction, Fraction], Mapping[Fraction, str]], tuple[Fraction, str] | None]:
    """The search's probe placement over the estimates recorded so far, remembering the values it placed that were
    probed (the search may ask for several gaps' points and probe one of them)."""
    named: set[Fraction] = set()  # every value it named; those probed are the placed probes

    def place(gap: tuple[Fraction, Fraction], verdicts: Mapping[Fraction, str]) -> tuple[Fraction, str] | None:
        got = placed_point(gap, verdicts, estimates, named & verdicts.keys())
        if got is not None:
            named.add(got[0])
        return got

    return place


def _assemble(res: BoundaryResult, verdicts: dict[Fraction, str], proved: dict[Fraction, tuple[Certificate, JsonDocument]]) -> None:
    """Fill in the crossings (with their ends' certificates), the first one's ends or the one-sided bound, the notes."""
    for x, y in brackets(verdicts):
        s, u = (x, y) if verdicts[x] == "stable" else (y, x)
        res.crossings.append(Crossing(s, u, {"stable": proved[s][0], "unstable": proved[u][0]},
                                      {"stable": proved[s][1], "unstable": proved[u][1]}))
    if res.crossings:
        first = res.crossings[0]
        res.stable_at, res.unstable_at, res.orientation = first.stable_at, first.unstable_at, first.orientation
        res.certificates, res.documents = dict(first.certificates), dict(first.documents)
    else:
        _one_side(res, verdicts, proved)
    if res.stable_at is None:
        res.notes.append("no probe was proved stable: the stable side is not proved")
    if res.unstable_at is None:
        res.notes.append("no probe was proved unstable: the unstable side is not proved")
    res.notes.extend(notes(verdicts, res.lo, res.hi, res.grid))


def _one_side(res: BoundaryResult, verdicts: dict[Fraction, str], proved: dict[Fraction, tuple[Certificate, JsonDocument]]) -> None:
    """No crossing: keep the side proved, at the value nearest the end not proved (else nearest the middle)."""
    if not proved:
        return
    side = verdicts[next(iter(proved))]
    v = frontier(verdicts, res.lo, res.hi)
    if v is None:
        mid = (res.lo + res.hi) / 2
        v = min(proved, key=lambda x: (abs(x - mid), x))
    res.certificates[side], res.documents[side] = proved[v]
    if side == "stable":
        res.stable_at = v
    else:
        res.unstable_at = v
    lo_side = verdicts.get(res.lo)
    if lo_side in ("stable", "unstable"):  # which way the other side would lie, read from the end proved
        res.orientation = 1 if lo_side == "stable" else -1
    elif verdicts.get(res.hi) in ("stable", "unstable"):
        res.orientation = -1 if verdicts[res.hi] == "stable" else 1
