"""Where to probe inside a bracket: next to the boundary the probes' own estimates predict (search guidance only).

A probe that reaches the sink stages leaves, per sink, its largest Poisson box's floating-point bounds on the
sink's stationary excess (:attr:`certify.proof.result.Result.estimates`): ``low`` from the growth side (instability
is proved where it is above 0) and ``high`` from the drain side (stability where it is below 0).  Near the
boundary both straddle 0 and the probe is undecided; a probe a little farther away, beyond the *zone* where they
straddle, is decided.  Bisection finds that zone's edges one halving at a time, each undecided probe costing its
whole time limit; :func:`secant_point` instead fits the excess's slope along the parameter through the bracket's
estimates and names the value just outside the zone on the side the search is narrowing: where the bound of that
side, at the probe nearest the boundary, reaches 0 along that slope.  The two sides' bounds need not be
symmetric (a growth bound far below the stationary rate, a drain bound close above it), so each side's edge is
read from its own bound.

Where the predicted zone is wider than the bracket, the points creep from the proved ends by a share of the gap
(:data:`MIN_STEP`) instead of probing the midpoint, which lies inside the zone.  Nothing here is a claim: the
point is only where the next probe goes.  Every bracket still narrows from proved probes only
(:mod:`certify.workflows.crossings`), so a bad estimate costs time, never a wrong bracket.

A probe can also be left undecided *past* the zone: it ran short of time (J = 8 seed 33 at 0.85, undecided at 60 s
in one boundary run of three, proved unstable in 40-43 s in the others), or the stage that decides there lies in a
stretch that no search decides (seed 33 above 0.9).  Then the gap between the stable end and that probe holds the
zone's unstable edge, and :func:`placed_point` names the point just past that edge, predicted unstable, where it
leaves the narrower bracket of the two (the search compares the points of every gap by that width:
:func:`certify.workflows.crossings.search`).

Public: :func:`secant_point`, :func:`placed_point`, :data:`MARGIN`, :data:`MIN_STEP`, :data:`NEAR_UNDECIDED`,
:data:`RETRIES`, :data:`SAME_POINT`, :data:`DIGITS`.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from fractions import Fraction

from .crossings import bracket_of, gain

__all__ = ["DIGITS", "MARGIN", "MIN_STEP", "NEAR_UNDECIDED", "RETRIES", "SAME_POINT", "placed_point", "secant_point"]

#: How far beyond the predicted edge of the zone the point goes: (MARGIN - 1) zone half-widths (the anchor's spread
#: over the slope; the next box is about as large as the anchor's, its bounds about as wide, and a little beyond the
#: edge is decided more often than the edge itself).
MARGIN = 1.25

#: A point is rounded to a multiple of 10^(e - DIGITS), 10^e the decimal order of the gap's width (at most 1/100 of
#: the width: a gap 0.0875 wide gets points such as 0.8795).
DIGITS = 2

#: The nearest a point may come to the proved end it steps from, as a share of the gap's width (each probe placed
#: narrows the bracket by at least this much when it is decided): where the predicted zone reaches that end, the
#: point is this step from it.
MIN_STEP = Fraction(1, 8)

#: How near (a share of the gap's width) a placed probe that was not decided makes a point "next to" it: the
#: estimates put the zone's edge there once already, and missed (J = 8 seed 12: 0.9597, 0.96 and 0.9607, each
#: undecided at 60 s, one after the other).  A point next to more than :data:`RETRIES` of them is not placed: the
#: search bisects.
NEAR_UNDECIDED = Fraction(1, 4)

#: The placed probes that were not decided a point may be next to (:data:`NEAR_UNDECIDED`): one, since the nearer
#: probe's own bounds place the zone's edge better than the farther ones that placed it (J = 8 seed 7: 0.949
#: undecided, its growth bound -0.00138 puts the unstable edge near 0.9504, and the search, which bisected there
#: until stop 51, probed 0.965 and 0.957 instead, 60 s in all).
RETRIES = 1

#: A point nearer than this share of the gap's width to a probe that was not decided repeats that probe (the same
#: network within the rounding, the same time): it is not placed, and the search bisects.  J = 8 seed 70 (stop 52):
#: the undecided 0.9762's own bounds placed 0.97621 next, undecided in the same 60 s.
SAME_POINT = Fraction(1, 100)

_DECIDED = ("stable", "unstable")


def secant_point(gap: tuple[Fraction, Fraction], verdicts: Mapping[Fraction, str],
                 estimates: Mapping[Fraction, Mapping[str, tuple[float, float]]],
                 placed: Collection[Fraction] = ()) -> Fraction | None:
    """The value to probe in a gap next to a bracket's proved end, from the bracket's estimates; None: bisect.

    Parameters
    ----------
    gap : (Fraction, Fraction)
        The stretch to probe in, lower end first: one end (at least) proved, the other proved on the other side
        or not decided (:func:`certify.workflows.crossings.search`'s next gap).
    verdicts : mapping of Fraction to str
        Every probed value's verdict.
    estimates : mapping of Fraction to mapping of str to (float, float)
        Per probed value, per sink: the bounds (low, high) on the stationary excess (``Result.estimates``).
    placed : collection of Fraction, optional
        The values probed where this function placed them (not midpoints): an undecided one is evidence that the
        estimates misjudge the zone there (:data:`NEAR_UNDECIDED`, :data:`RETRIES`).

    Returns
    -------
    Fraction or None
        A value strictly inside the gap and not probed before, on the side of the proved end it steps from (with
        both ends proved, the end farther from the predicted boundary): the *anchor* (the value with estimates
        nearest the predicted boundary) gives the zone's edge on that side (where the anchor's drain bound, for the
        stable side, or growth bound, for the unstable side, reaches 0 along the fitted slope), and the point is
        ``MARGIN - 1`` of the anchor's zone half-widths beyond it, but at least :data:`MIN_STEP` of the gap's
        width from that end (where the predicted zone reaches the proved end, the point creeps towards it from
        the end); None when the estimates name none (fewer than two values with estimates of one sink inside the
        bracket, a fit whose slope does not run from the stable end to the unstable one, a zone that would
        begin beyond the gap's other end, a point next to more than :data:`RETRIES` placed probes that were
        not decided: nearer than :data:`NEAR_UNDECIDED` of the gap, or one nearer than :data:`SAME_POINT` of the gap
        to any probe that was not decided). Where the gap's other end was not decided past the zone,
        :func:`placed_point`'s point beyond the zone's far edge instead, when it leaves the narrower bracket.

    Examples
    --------
    Stable at 0 and unstable at 1; a probe at 1/2 undecided, its excess bounded within [-0.01, 0.03]; the probe at
    1 bounded it within [0.4, 0.6]. The line through the midpoints has slope 0.98 and puts the boundary at 0.49;
    the anchor is 1/2, whose drain bound 0.03 reaches 0 at 1/2 - 0.03 / 0.98 = 0.4694, and its half-width is
    0.02 / 0.98 = 0.0204: the next point on the stable side is 0.4694 - 0.25 * 0.0204 = 0.4643, rounded up to
    thousandths (the gap is 0.5 wide: its order 0.1, two digits more; up, away from the proved end 0).

    >>> F = Fraction
    >>> verdicts = {F(0): "stable", F(1, 2): "undecided", F(1): "unstable"}
    >>> est = {F(1, 2): {"7": (-0.01, 0.03)}, F(1): {"7": (0.4, 0.6)}}
    >>> float(secant_point((F(0), F(1, 2)), verdicts, est))
    0.465
    """
    got = placed_point(gap, verdicts, estimates, placed)
    return None if got is None else got[0]


def placed_point(gap: tuple[Fraction, Fraction], verdicts: Mapping[Fraction, str],
                 estimates: Mapping[Fraction, Mapping[str, tuple[float, float]]],
                 placed: Collection[Fraction] = ()) -> tuple[Fraction, str] | None:
    """:func:`secant_point`'s value with the side it is predicted to be proved on; or, in a gap between a proved end
    and a probe that was not decided *beyond* the predicted zone (the zone's far edge inside the gap; a grid point or
    a midpoint, not a point placed from these estimates), the point past that far edge, predicted on the other side,
    where that one leaves the narrower bracket if decided as predicted.

    Parameters
    ----------
    gap, verdicts, estimates, placed
        As for :func:`secant_point`.

    Returns
    -------
    (Fraction, str) or None
        The value and "stable" or "unstable"; None: bisect.

    Examples
    --------
    Stable at 0 and 0.3, unstable at 1; a probe at 0.75 was not decided (it ran short of time, say) although its
    box bounded the excess within [0.2, 0.3]. The line through the midpoints (slope 1) puts the boundary at 0.5; the
    anchor 0.3 (bounds [-0.25, -0.15]) puts the zone's edges at 0.45 and 0.55, half-width 0.05. Stepping from 0.3,
    the stable side's point 0.438 would leave the bracket [0.438, 1] if proved stable; the point past the unstable
    edge, 0.55 + 0.25 * 0.05 rounded up, leaves [0.3, 0.563] if proved unstable: that one.

    >>> F = Fraction
    >>> verdicts = {F(0): "stable", F(3, 10): "stable", F(3, 4): "undecided", F(1): "unstable"}
    >>> est = {F(3, 10): {"7": (-0.25, -0.15)}, F(3, 4): {"7": (0.2, 0.3)}}
    >>> v, side = placed_point((F(3, 10), F(3, 4)), verdicts, est)
    >>> float(v), side
    (0.563, 'unstable')
    """
    x, y = gap
    around = bracket_of(gap, verdicts)
    if around is None:  # in no bracket (between two values proved on one side, say)
        return None
    p, q = around
    a, b = (p, q) if verdicts[p] == "stable" else (q, p)  # the stable end first, whichever is lower
    lo, hi = min(a, b), max(a, b)
    inside = {v: e for v, e in estimates.items() if lo <= v <= hi}
    counts: dict[str, int] = {}
    for e in inside.values():
        for sink in e:
            counts[sink] = counts.get(sink, 0) + 1
    if not counts:
        return None
    sink = max(sorted(counts), key=lambda s: counts[s])
    points = sorted((v, e[sink]) for v, e in inside.items() if sink in e)
    if len(points) < 2:
        return None
    fit = _fit([(float(v), (lo_e + hi_e) / 2) for v, (lo_e, hi_e) in points])
    if fit is None:
        return None
    alpha, beta = fit
    if beta * float(b - a) <= 0:  # the excess must grow from the stable end towards the unstable one
        return None
    centre = -alpha / beta
    anchor, (low, high) = min(points, key=lambda p: abs(float(p[0]) - centre))
    start = x if verdicts.get(x) in _DECIDED else y  # the proved end the point steps from
    if verdicts.get(x) in _DECIDED and verdicts.get(y) in _DECIDED:
        # both ends proved: step from the end farther from the predicted boundary
        start = x if abs(float(x) - centre) > abs(float(y) - centre) else y
    side = verdicts[start]
    half = (high - low) / 2 / abs(beta)
    # the zone's edges: where the drain side's bound (stable) or the growth side's (unstable) crosses 0, on the
    # fitted slope through the anchor's bounds
    edges = {"stable": float(anchor) - high / beta, "unstable": float(anchor) - low / beta}
    away = 1.0 if float(start) > edges[side] else -1.0  # from the zone towards the end it steps from
    near = _near(gap, start, edges[side] + away * (MARGIN - 1) * half)
    other = "unstable" if side == "stable" else "stable"
    far = None
    undecided = x if start == y else y  # the gap's other end
    if verdicts.get(undecided) not in _DECIDED and undecided not in placed:
        # not decided, and not a point these estimates placed: a placed probe left undecided is their own miss,
        # and they are not trusted past it (J = 8 seed 31: the drain bounds put 0.8826 on the unstable side and
        # then, past it, a stable point at 0.882771, next to 0.88296 proved unstable)
        far = _far(gap, start, edges[other] - away * (MARGIN - 1) * half)
    choices = [(v, s) for v, s in ((near, side), (far, other)) if v is not None]
    # the one that narrows the bracket more if proved as predicted first (the lower where they tie)
    for v, s in sorted(choices, key=lambda c: (-gain(gap, c[0], c[1], verdicts), c[0])):
        if _free(v, gap, verdicts, placed):
            return v, s
    return None


def _near(gap: tuple[Fraction, Fraction], start: Fraction, place: float) -> Fraction | None:
    """The point stepping from the proved end ``start`` to ``place``, at least :data:`MIN_STEP` of the gap from it,
    rounded away from it; None where ``place`` lies beyond the gap's other end."""
    x, y = gap
    if not math.isfinite(place):
        return None
    target = Fraction(place)
    step = (y - x) * MIN_STEP
    if start == x:
        if target >= y:
            return None  # the zone would begin beyond the gap's other end
        target = max(target, x + step)  # at least a step from the proved end: the zone reaches it, creep
    else:
        if target <= x:
            return None
        target = min(target, y - step)
    # never nearer than the step
    return _rounded(gap, start, target)


def _far(gap: tuple[Fraction, Fraction], start: Fraction, place: float) -> Fraction | None:
    """The point past the zone's far edge (``place``), rounded away from the zone; None unless it lies inside the gap
    at least :data:`MIN_STEP` of the gap from either end."""
    x, y = gap
    if not math.isfinite(place):
        return None
    point = _rounded(gap, start, Fraction(place))
    step = (y - x) * MIN_STEP
    return point if x + step <= point <= y - step else None


def _rounded(gap: tuple[Fraction, Fraction], start: Fraction, target: Fraction) -> Fraction:
    """``target`` exact, a short decimal (a multiple of 10^(e - DIGITS), 10^e the decimal order of the gap's width),
    rounded away from the gap's end ``start``."""
    unit = Fraction(10) ** (math.floor(math.log10(float(gap[1] - gap[0]))) - DIGITS)
    return (math.ceil(target / unit) if start == gap[0] else math.floor(target / unit)) * unit


def _free(point: Fraction, gap: tuple[Fraction, Fraction], verdicts: Mapping[Fraction, str],
          placed: Collection[Fraction]) -> bool:
    """Whether a point may be probed: inside the gap, not probed, next to at most :data:`RETRIES` placed probes
    that were not decided (:data:`NEAR_UNDECIDED`) and not within :data:`SAME_POINT` of any probe not decided."""
    x, y = gap
    if not x < point < y or point in verdicts:
        return False
    misses = sum(1 for v in placed if verdicts.get(v) not in _DECIDED and abs(point - v) < (y - x) * NEAR_UNDECIDED)
    if misses > RETRIES:
        return False  # the estimates missed the zone here more than once: bisect instead of probing it again
    # next to an undecided probe: it would be decided no better
    return not any(s not in _DECIDED and abs(point - v) < (y - x) * SAME_POINT for v, s in verdicts.items())


def _fit(points: list[tuple[float, float]]) -> tuple[float, float] | None:
    """Least squares line m = alpha + beta v through the points; None when the values do not spread."""
    n = len(points)
    mv = sum(v for v, _ in points) / n
    mm = sum(m for _, m in points) / n
    sxx = sum((v - mv) ** 2 for v, _ in points)
    if sxx <= 0:
        return None
    beta = sum((v - mv) * (m - mm) for v, m in points) / sxx
    return mm - beta * mv, beta
