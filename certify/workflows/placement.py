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

Public: :func:`secant_point`, :data:`MARGIN`, :data:`MIN_STEP`, :data:`NEAR_UNDECIDED`, :data:`RETRIES`, :data:`SAME_POINT`,
:data:`DIGITS`.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from fractions import Fraction

from .crossings import brackets

__all__ = ["DIGITS", "MARGIN", "MIN_STEP", "NEAR_UNDECIDED", "RETRIES", "SAME_POINT", "secant_point"]

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
        to any probe that was not decided).

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
    x, y = gap
    around = next(((p, q) for p, q in brackets(verdicts) if p <= x and y <= q), None)
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
    # the zone's edge on that side: where the drain side's bound (stable) or the growth side's (unstable) crosses 0,
    # on the fitted slope through the anchor's bounds
    edge = float(anchor) - (high if verdicts[start] == "stable" else low) / beta
    away = 1.0 if float(start) > edge else -1.0  # from the zone towards the end it steps from
    place = edge + away * (MARGIN - 1) * (high - low) / 2 / abs(beta)
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
    unit = Fraction(10) ** (math.floor(math.log10(float(y - x))) - DIGITS)
    # exact, a short decimal, rounded away from the end it steps from (never nearer than the step)
    point = (math.ceil(target / unit) if start == x else math.floor(target / unit)) * unit
    if not x < point < y or point in verdicts:
        return None
    misses = sum(1 for v in placed if verdicts.get(v) not in _DECIDED and abs(point - v) < (y - x) * NEAR_UNDECIDED)
    if misses > RETRIES:
        return None  # the estimates missed the zone here more than once: bisect instead of probing it again
    if any(s not in _DECIDED and abs(point - v) < (y - x) * SAME_POINT for v, s in verdicts.items()):
        return None  # next to an undecided probe: it would be decided no better
    return point


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
