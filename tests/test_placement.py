"""certify boundary's probe placement: where the estimates put the next probe, and that it never moves a bracket by itself."""

from __future__ import annotations

import time
from fractions import Fraction as F

import pytest

from certify.core.model import Feedback, Network, Station, Stream
from certify.exact.sink import reduced_network
from certify.markov.chain import compile_chain
from certify.proof.context import ProofContext, RunState
from certify.proof.poisson import poisson_try
from certify.proof.result import Result
from certify.workflows.crossings import brackets, search
from certify.workflows.placement import (
    DIGITS,
    MARGIN,
    MIN_STEP,
    NEAR_UNDECIDED,
    RETRIES,
    SAME_POINT,
    placed_point,
    secant_point,
)

# A synthetic boundary at BOUND: the excess is SLOPE * (v - BOUND); a probe's box bounds it within +- SPREAD, so a
# probe is decided only where the whole interval lies on one side (|v - BOUND| > SPREAD / SLOPE: the zone).
BOUND, SLOPE, SPREAD = 0.6137, 1.3, 0.004


def _a_step_from(got, end: F, width: F, up: bool = True) -> bool:
    """Whether got lies MIN_STEP of the width from end, into the gap, give or take the rounding (width / 100)."""
    d = (got - end) if up else (end - got)
    return got is not None and width * MIN_STEP <= d <= width * MIN_STEP + width / 100


def _placer(estimates: dict):
    """secant_point over the estimates recorded so far."""
    return lambda gap, verdicts: secant_point(gap, verdicts, estimates)


def _zone_probe(seen: dict, estimates: dict):
    """A prober of the synthetic boundary (stable below it) that records each probe's estimate."""
    def probe(v: F) -> str:
        e = SLOPE * (float(v) - BOUND)
        estimates[v] = {"7": (e - SPREAD, e + SPREAD)}
        seen[v] = "stable" if e + SPREAD < 0 else "unstable" if e - SPREAD > 0 else "undecided"
        return seen[v]
    return probe


# (the anchor 1/2's bounds, 1's bounds, the stable edge, the unstable edge, the half-width), slope 1 in both:
# symmetric bounds (midpoints -0.02 and 0.48; drain 0.01 -> 0.49, growth -0.05 -> 0.55, half-width 0.03), and a
# growth bound far below with a drain bound close above (drain 0.002 -> 0.498, growth -0.082 -> 0.582, 0.042)
SIDES = [((-0.05, 0.01), (0.45, 0.51), 0.49, 0.55, 0.03), ((-0.082, 0.002), (0.418, 0.502), 0.498, 0.582, 0.042)]


@pytest.mark.parametrize(("anchor", "end", "stable_edge", "unstable_edge", "half"), SIDES, ids=["symmetric", "asymmetric"])
def test_point_is_past_the_zone_on_the_proved_side(anchor, end, stable_edge, unstable_edge, half):
    """The point lies (MARGIN - 1) half-widths beyond the zone's edge on the proved end's side, each edge from its own
    bound."""
    verdicts = {F(0): "stable", F(1, 2): "undecided", F(1): "unstable"}
    est = {F(1, 2): {"7": anchor}, F(1): {"7": end}}
    below = secant_point((F(0), F(1, 2)), verdicts, est)
    above = secant_point((F(1, 2), F(1)), verdicts, est)
    assert below is not None and abs(float(below) - (stable_edge - (MARGIN - 1) * half)) <= 0.001
    assert above is not None and abs(float(above) - (unstable_edge + (MARGIN - 1) * half)) <= 0.001


def test_point_matches_the_independent_line_on_the_stable_side():
    """From two undecided probes on the line e(v) = 2 (v - 0.4), bounded within +- 0.06, the stable side's point is
    0.4 - 1.25 * 0.03 (the zone's half-width: 0.06 over the slope 2; the edge 0.37, then a quarter half-width)."""
    verdicts = {F(0): "stable", F(3, 8): "undecided", F(7, 16): "undecided", F(1): "unstable"}
    e = lambda v: 2 * (v - 0.4)  # noqa: E731
    est = {F(3, 8): {"s": (e(0.375) - 0.06, e(0.375) + 0.06)}, F(7, 16): {"s": (e(0.4375) - 0.06, e(0.4375) + 0.06)}}
    got = secant_point((F(0), F(3, 8)), verdicts, est)
    want = 0.4 - MARGIN * 0.03
    assert got is not None and got < F(3, 8) and abs(float(got) - want) <= 0.0005


def test_no_point_from_one_estimate():
    """With estimates at one value only, the slope is unknown: the search bisects."""
    verdicts = {F(0): "stable", F(1, 2): "undecided", F(1): "unstable"}
    assert secant_point((F(0), F(1, 2)), verdicts, {F(1, 2): {"7": (-0.05, 0.01)}}) is None


def test_no_point_when_the_excess_falls_towards_the_unstable_end():
    """A fit whose excess decreases from the stable end to the unstable one is not used."""
    verdicts = {F(0): "stable", F(1, 2): "undecided", F(1): "unstable"}
    est = {F(1, 2): {"7": (0.1, 0.2)}, F(1): {"7": (-0.3, -0.2)}}
    assert secant_point((F(0), F(1, 2)), verdicts, est) is None


def test_point_keeps_a_step_from_the_proved_end():
    """A point predicted within MIN_STEP of the proved end is moved to that step, never nearer."""
    verdicts = {F(0): "stable", F(1, 2): "undecided", F(1): "unstable"}
    est = {F(1, 2): {"7": (0.44, 0.46)}, F(1): {"7": (0.94, 0.96)}}  # the boundary at 0.05: predicted 0.0375
    assert _a_step_from(secant_point((F(0), F(1, 2)), verdicts, est), F(0), F(1, 2))


def test_point_creeps_from_the_proved_end_when_the_zone_covers_the_gap():
    """When the predicted zone covers the whole gap, the point is MIN_STEP of the gap from its proved end."""
    verdicts = {F(0): "stable", F(1, 2): "undecided", F(1): "unstable"}
    est = {F(1, 2): {"7": (-0.9, 0.9)}, F(1): {"7": (0.4, 0.6)}}
    assert _a_step_from(secant_point((F(0), F(1, 2)), verdicts, est), F(0), F(1, 2))


def test_point_creeps_from_the_farther_end_between_two_proved_ends():
    """Both ends proved and a zone wider than the gap: the point steps from the end farther from the boundary."""
    verdicts = {F(0): "stable", F(4, 10): "stable", F(5, 10): "unstable", F(1): "unstable"}
    # the line through the midpoints -0.08 at 0.4 and 0.02 at 0.5: zero at 0.48, farther from 0.4; spreads 0.2
    est = {F(4, 10): {"7": (-0.18, 0.02)}, F(5, 10): {"7": (-0.08, 0.12)}}
    assert _a_step_from(secant_point((F(4, 10), F(5, 10)), verdicts, est), F(4, 10), F(1, 10))


def test_no_point_where_the_zone_begins_beyond_the_other_end():
    """A stable-side point predicted beyond the undecided end of the gap: the search bisects."""
    verdicts = {F(0): "stable", F(1, 4): "undecided", F(1): "unstable"}
    est = {F(1, 4): {"7": (-0.8, -0.7)}, F(1): {"7": (0.0, 0.1)}}  # the boundary near 0.95, far beyond 1/4
    assert secant_point((F(0), F(1, 4)), verdicts, est) is None


def test_no_point_between_two_probes_on_one_side():
    """A gap between two values proved on the same side is in no bracket: no point."""
    verdicts = {F(0): "stable", F(1, 2): "stable", F(1): "unstable"}
    est = {F(1, 2): {"7": (-0.3, -0.2)}, F(1): {"7": (0.4, 0.6)}}
    assert secant_point((F(0), F(1, 2)), verdicts, est) is None


def test_the_sink_with_most_estimates_is_fitted():
    """Estimates of two sinks: the one present at more values gives the line."""
    verdicts = {F(0): "stable", F(1, 2): "undecided", F(1): "unstable"}
    est = {F(1, 4): {"a": (-0.3, -0.2), "b": (-0.3, -0.23)}, F(1, 2): {"b": (-0.05, 0.01), "a": (5.0, 6.0)},
           F(1): {"b": (0.45, 0.51)}}
    verdicts[F(1, 4)] = "stable"
    assert secant_point((F(1, 2), F(1)), verdicts, est) == secant_point(
        (F(1, 2), F(1)), verdicts, {v: {"b": e["b"]} for v, e in est.items() if "b" in e})


def test_search_with_placement_brackets_the_boundary_in_fewer_probes():
    """On the synthetic zone (0.0062 wide) the placed search brackets the boundary within 0.01 in fewer probes, fewer of
    them undecided."""
    runs = {}
    for placed in (False, True):
        seen: dict = {}
        est: dict = {}
        search(F(1, 2), F(6, 5), F(1, 100), 7, _zone_probe(seen, est), float("inf"),
               place=_placer(est) if placed else None)
        runs[placed] = seen
    for seen in runs.values():
        (a, b), = brackets(seen)
        assert a < BOUND < b and seen[a] == "stable" and seen[b] == "unstable"
    undecided = {k: sum(1 for s in seen.values() if s == "undecided") for k, seen in runs.items()}
    assert undecided[True] < undecided[False] and len(runs[True]) < len(runs[False])
    for seen in runs.values():
        (a, b), = brackets(seen)
        assert b - a <= F(1, 100)


def test_search_never_probes_a_placed_value_twice_or_outside_the_gap():
    """A placer that names the gap's own end or a probed value is ignored: the midpoint is probed instead."""
    seen: dict = {}
    calls = []

    def bad(gap, verdicts):
        calls.append(gap)
        return gap[0]

    search(F(0), F(1), F(1, 64), 1, lambda v: seen.setdefault(v, "stable" if v < F(1, 3) else "unstable"),
           float("inf"), place=bad)
    assert calls and all(v.denominator & (v.denominator - 1) == 0 for v in seen)  # dyadic: midpoints only
    (a, b), = brackets(seen)
    assert a < F(1, 3) < b and b - a <= F(1, 64)


def test_poisson_try_records_bounds_around_the_exact_excess():
    """A single sink's box leaves bounds on its stationary excess that hold the exact value (an M/M/1 feeding it)."""
    # station 1: M/M/1 at load 1/2, everything it serves goes to the sink 2 (mu 3/5): inflow 1/2, excess 1/2 / (3/5) - 1
    net = Network("n", (Station("1", F(1)), Station("2", F(3, 5))), (Stream(F(1, 2), choice=("1",)),),
                  (Feedback("1", ("2",), F(1)),))
    ctx = ProofContext(net, Result("n"), RunState(time.perf_counter() + 60), None, True, ["table"])
    red = reduced_network(net, "2")
    poisson_try(ctx, red, compile_chain(red.network), time.perf_counter() + 60)
    low, high = ctx.res.estimates["2"]
    exact = float(F(1, 2) / F(3, 5) - 1)
    assert low - 1e-9 <= exact <= high + 1e-9
    assert high - low < 1e-3
    assert high < 0  # the drain side's bound: below the capacity, as the network is stable


@pytest.mark.parametrize("spread", [0.001, 0.02])
def test_placed_points_are_short_decimals(spread):
    """Every placed point is a multiple of 10^(e - DIGITS), 10^e the decimal order of the gap's width."""
    verdicts = {F(0): "stable", F(1, 2): "undecided", F(1): "unstable"}
    est = {F(1, 2): {"7": (-0.02 - spread, -0.02 + spread)}, F(1): {"7": (0.48 - spread, 0.48 + spread)}}
    got = secant_point((F(1, 2), F(1)), verdicts, est)
    assert got is not None and (got * 10 ** (1 + DIGITS)).denominator == 1  # the gap 1/2: order 0.1


def test_no_point_next_to_more_placed_probes_that_were_not_decided_than_the_retries():
    """A point within NEAR_UNDECIDED of the gap from RETRIES placed undecided probes is placed; from one more, the
    search bisects."""
    verdicts = {F(0): "stable", F(1, 2): "undecided", F(1): "unstable"}
    est = {F(1, 2): {"7": (-0.01, 0.03)}, F(1): {"7": (0.4, 0.6)}}
    got = secant_point((F(0), F(1, 2)), verdicts, est)  # 0.465: 0.035 from the undecided 1/2
    assert got is not None and F(1, 2) - got < F(1, 2) * NEAR_UNDECIDED
    near = [F(1, 2) - F(k, 100) for k in range(RETRIES + 1)]  # 1/2, 0.49, ...: each next to 0.465
    for v in near[1:]:
        verdicts[v] = "undecided"
    assert secant_point((F(0), F(1, 2)), verdicts, est, placed=set(near[:RETRIES])) == got
    assert secant_point((F(0), F(1, 2)), verdicts, est, placed=set(near)) is None


def test_no_point_where_it_would_repeat_a_probe_that_was_not_decided():
    """A point within SAME_POINT of the gap from a probe that was not decided (placed or a midpoint) is not placed,
    even where RETRIES allows one placed undecided probe nearby; a little farther it is."""
    verdicts = {F(0): "stable", F(1, 2): "undecided", F(1): "unstable"}
    est = {F(1, 2): {"7": (-0.01, 0.03)}, F(1): {"7": (0.4, 0.6)}}
    got = secant_point((F(0), F(1, 2)), verdicts, est)
    assert got is not None
    width = F(1, 2)
    for v in (got + width * SAME_POINT * F(99, 100), got - width * SAME_POINT * F(99, 100)):
        assert secant_point((F(0), F(1, 2)), {**verdicts, v: "undecided"}, est) is None
        assert secant_point((F(0), F(1, 2)), {**verdicts, v: "undecided"}, est, placed={v}) is None
    far = got + width * SAME_POINT * F(101, 100)
    assert secant_point((F(0), F(1, 2)), {**verdicts, far: "undecided"}, est, placed={far}) == got


def test_boundary_placer_remembers_its_points():
    """boundary's placer passes the points it placed before, and only those, as the placed probes."""
    from certify.workflows.boundary import _placer
    est = {F(1, 2): {"7": (-0.01, 0.03)}, F(1): {"7": (0.4, 0.6)}}
    place = _placer(est)
    verdicts = {F(0): "stable", F(1): "unstable", F(1, 4): "stable"}
    got = place((F(1, 4), F(1)), verdicts)  # estimates at 1/2 and 1 inside the bracket [1/4, 1]
    assert got is not None
    first = got[0]
    verdicts[first] = "undecided"
    est[first] = {"7": (-0.01, 0.03)}
    mid = first - F(1, 25)  # an undecided midpoint next to where the next point goes
    verdicts[mid] = "undecided"
    gap = (F(1, 4), first)
    expect = secant_point(gap, verdicts, est, placed={first})
    assert expect is not None and secant_point(gap, verdicts, est, placed={first, mid}) is None
    assert place(gap, verdicts) == (expect, "stable")


def test_point_past_the_far_edge_when_the_gaps_other_end_was_left_undecided_past_the_zone():
    """Between a stable end and a probe left undecided past the zone, the point is past the zone's unstable edge,
    predicted unstable, as the line through the estimates puts it independently."""
    verdicts = {F(0): "stable", F(3, 10): "stable", F(3, 4): "undecided", F(1): "unstable"}
    est = {F(3, 10): {"7": (-0.25, -0.15)}, F(3, 4): {"7": (0.2, 0.3)}}
    slope = (0.25 - -0.2) / (0.75 - 0.3)  # midpoints -0.2 at 0.3 and 0.25 at 0.75; anchor 0.3 (nearer 0.5)
    edge = 0.3 + 0.25 / slope  # where the anchor's growth bound -0.25 reaches 0
    want = edge + (MARGIN - 1) * (0.1 / 2 / slope)
    got = placed_point((F(3, 10), F(3, 4)), verdicts, est)
    assert got is not None and got[1] == "unstable" and 0 <= float(got[0]) - want <= 0.001


def test_no_point_past_the_far_edge_of_a_probe_these_estimates_placed():
    """Past a probe the estimates placed themselves and that was not decided, they are not trusted: the gap's point
    stays on its proved end's side."""
    verdicts = {F(0): "stable", F(3, 10): "stable", F(3, 4): "undecided", F(1): "unstable"}
    est = {F(3, 10): {"7": (-0.25, -0.15)}, F(3, 4): {"7": (0.2, 0.3)}}
    got = placed_point((F(3, 10), F(3, 4)), verdicts, est, placed={F(3, 4)})
    assert got is not None and got[1] == "stable" and float(got[0]) < 0.45  # before the stable edge 0.45
