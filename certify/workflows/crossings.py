"""Where a parameter crosses the stability boundary: a coarse grid of probes, then bisection of every sign change.

:func:`search` probes the interval's ends and :data:`DEFAULT_GRID` (or any
number of) evenly spaced interior points, then narrows every *crossing*: two
neighbouring proved probes (no other proved probe between them), one proved
stable and one proved unstable.  Between the two ends of such a bracket the
network changes side at least once; nothing is claimed about the stretches
between two neighbouring probes proved on the same side (the boundary may cross
there twice, unseen), and the notes of :func:`notes` say so.

A probe no search decides (``undecided``, or ``invalid``: the value breaks the
network) never moves a bracket's end: brackets narrow from their proved ends
only, and :func:`brackets` reads them from the proved probes alone.

A grid point whose nearest proved neighbours are proved on the same side
(:func:`same_side`) can show a crossing only where the boundary crosses twice
between them; :func:`search` may give it a shorter probe, and a whole one later,
once every bracket is narrow, where the shorter one decided nothing.

After the grid, every gap next to a proved end names one point (a placement's,
else its midpoint), and the point that leaves its bracket narrowest if proved as
predicted is probed next: after an undecided midpoint, of its two halves' placed
points the one that narrows the bracket more; a placed point just past the zone
before the midpoint of a wide gap in a stretch no probe decides.

Public: :func:`grid_points`, :func:`brackets`, :func:`frontier`, :func:`search`, :func:`notes`, :func:`check_grid`,
:func:`same_side`, :func:`bracket_of`, :func:`gain`, :data:`DEFAULT_GRID`, :data:`MAX_GRID`, :data:`MAX_STEPS`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from fractions import Fraction

from ..core.errors import NetworkError
from ..core.numbers import approx_str, exact_str

__all__ = ["DEFAULT_GRID", "MAX_GRID", "MAX_STEPS", "check_grid", "grid_points", "brackets", "frontier", "search", "notes",
           "same_side", "bracket_of", "gain"]

#: Interior grid points probed before bisecting: 7 are the points of three bisection levels (the interval in eighths),
#: so a single crossing costs four probes more than bisection from the ends alone, and brackets end at the same values.
DEFAULT_GRID = 7

#: The most interior grid points one search probes.
MAX_GRID = 1000

#: Bisection probes at most (after the grid), over all brackets together, whatever the tolerance.
MAX_STEPS = 64

_DECIDED = ("stable", "unstable")


def check_grid(grid: object) -> int:
    """The number of interior grid points, checked: an integer from 0 to :data:`MAX_GRID`.

    Parameters
    ----------
    grid : int
        The number asked for.

    Returns
    -------
    int
        The same number.

    Raises
    ------
    NetworkError
        (``--grid``) anything else.

    Examples
    --------
    >>> check_grid(7)
    7
    >>> check_grid(-1)
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: --grid: -1 must be an integer from 0 to 1000 (interior points probed before bisecting)
    """
    if isinstance(grid, bool) or not isinstance(grid, int) or not 0 <= grid <= MAX_GRID:
        raise NetworkError(None, "--grid", f"{grid!r} must be an integer from 0 to {MAX_GRID} "
                                           "(interior points probed before bisecting)")
    return grid


def grid_points(lo: Fraction, hi: Fraction, n: int) -> list[Fraction]:
    """The ``n`` interior points ``lo + k (hi - lo) / (n + 1)``, coarse first (each the farthest from those before it).

    Parameters
    ----------
    lo, hi : Fraction
        The interval (exact).
    n : int
        How many interior points.

    Returns
    -------
    list of Fraction
        The points, exact, in the order to probe them: a search stopped early by its time
        limit has still spread its probes over the whole interval.

    Examples
    --------
    >>> [str(v) for v in grid_points(Fraction(0), Fraction(1), 7)]
    ['1/2', '1/4', '3/4', '1/8', '3/8', '5/8', '7/8']
    """
    todo = list(range(1, n + 1))
    done = [0, n + 1]
    order = []
    while todo:
        k = max(todo, key=lambda i: (min(abs(i - j) for j in done), -i))
        todo.remove(k)
        done.append(k)
        order.append(k)
    return [lo + (hi - lo) * k / (n + 1) for k in order]


def brackets(verdicts: Mapping[Fraction, str]) -> list[tuple[Fraction, Fraction]]:
    """Every crossing the probes prove: neighbouring proved values, one stable and one unstable, lower first.

    Parameters
    ----------
    verdicts : mapping of Fraction to str
        Each probed value's verdict (``stable``, ``unstable``, ``undecided``, ``invalid``).

    Returns
    -------
    list of (Fraction, Fraction)
        ``(a, b)`` with a < b, in increasing order: a and b are proved on opposite sides and no value
        between them is proved (undecided probes may lie between).

    Examples
    --------
    >>> brackets({Fraction(0): "unstable", Fraction(1): "undecided", Fraction(2): "stable", Fraction(3): "unstable"})
    [(Fraction(0, 1), Fraction(2, 1)), (Fraction(2, 1), Fraction(3, 1))]
    """
    proved = sorted(v for v, verdict in verdicts.items() if verdict in _DECIDED)
    return [(a, b) for a, b in zip(proved, proved[1:]) if verdicts[a] != verdicts[b]]


def _one_sided(verdicts: Mapping[Fraction, str], lo: Fraction, hi: Fraction) -> tuple[Fraction, Fraction] | None:
    """With no crossing and exactly one end proved: the gap from the proved value nearest the other end to the next probe."""
    proved = sorted(v for v, verdict in verdicts.items() if verdict in _DECIDED)
    ends = [verdicts.get(lo) in _DECIDED, verdicts.get(hi) in _DECIDED]
    if not proved or ends[0] == ends[1]:
        return None
    if ends[0]:
        f = proved[-1]
        beyond = [v for v in verdicts if v > f]
        return (f, min(beyond)) if beyond else None
    f = proved[0]
    before = [v for v in verdicts if v < f]
    return (max(before), f) if before else None


def frontier(verdicts: Mapping[Fraction, str], lo: Fraction, hi: Fraction) -> Fraction | None:
    """With no crossing and exactly one end proved: the proved value nearest the end not proved (else None).

    Parameters
    ----------
    verdicts : mapping of Fraction to str
        Each probed value's verdict.
    lo, hi : Fraction
        The interval's ends.

    Returns
    -------
    Fraction or None
        The one-sided bound.

    Examples
    --------
    >>> frontier({Fraction(0): "stable", Fraction(1): "stable", Fraction(2): "undecided"}, Fraction(0), Fraction(2))
    Fraction(1, 1)
    """
    gap = _one_sided(verdicts, lo, hi)
    if gap is None:
        return None
    return gap[0] if verdicts.get(lo) in _DECIDED else gap[1]


def _gaps(verdicts: Mapping[Fraction, str], lo: Fraction, hi: Fraction, tol: Fraction) -> list[tuple[Fraction, Fraction]]:
    """Every gap to probe, lowest first: next to a proved end of a bracket wider than tol (or the one-sided gap)."""
    gaps = []
    found = brackets(verdicts)
    for a, b in found:
        if b - a <= tol:
            continue
        inner = sorted(v for v in verdicts if a < v < b)  # all undecided: a proved one would have split the bracket
        gaps.append((a, inner[0] if inner else b))
        if inner:
            gaps.append((inner[-1], b))
    if not found:
        one = _one_sided(verdicts, lo, hi)
        if one is not None and one[1] - one[0] > tol:
            gaps.append(one)
    return sorted(gaps)


def bracket_of(gap: tuple[Fraction, Fraction], verdicts: Mapping[Fraction, str]) -> tuple[Fraction, Fraction] | None:
    """The bracket that holds a gap, or None (a gap between probes proved on one side, or the one-sided gap).

    Parameters
    ----------
    gap : (Fraction, Fraction)
        A stretch between two probes, lower end first.
    verdicts : mapping of Fraction to str
        Each probed value's verdict.

    Returns
    -------
    (Fraction, Fraction) or None
        The bracket's ends, lower first (:func:`brackets`).

    Examples
    --------
    >>> F = Fraction
    >>> bracket_of((F(1), F(2)), {F(0): "stable", F(1): "undecided", F(2): "undecided", F(3): "unstable"})
    (Fraction(0, 1), Fraction(3, 1))
    """
    x, y = gap
    return next(((p, q) for p, q in brackets(verdicts) if p <= x and y <= q), None)


def gain(gap: tuple[Fraction, Fraction], at: Fraction, side: str | None, verdicts: Mapping[Fraction, str]) -> Fraction:
    """How much narrower a probe at ``at`` leaves its gap's bracket if it is proved on ``side``.

    Parameters
    ----------
    gap : (Fraction, Fraction)
        The gap the probe lies in, lower end first.
    at : Fraction
        The value probed.
    side : str or None
        "stable" or "unstable"; None: the side of the gap's proved end (where both ends are proved, the smaller of
        the two outcomes).
    verdicts : mapping of Fraction to str
        Each probed value's verdict.

    Returns
    -------
    Fraction
        The bracket's width less its width after the probe; outside any bracket (the one-sided gap), how far the
        probe moves the proved end.

    Examples
    --------
    In the bracket [0, 1] (stable at 0): a probe at 0.3 proved stable narrows it by 0.3, proved unstable by 0.7.

    >>> F = Fraction
    >>> verdicts = {F(0): "stable", F(1, 2): "undecided", F(1): "unstable"}
    >>> gain((F(0), F(1, 2)), F(3, 10), "stable", verdicts), gain((F(0), F(1, 2)), F(3, 10), "unstable", verdicts)
    (Fraction(3, 10), Fraction(7, 10))
    """
    x, y = gap
    around = bracket_of(gap, verdicts)
    if around is None:
        return at - x if verdicts.get(x) in _DECIDED else y - at
    p, q = around
    if side is None:
        if verdicts.get(x) in _DECIDED and verdicts.get(y) in _DECIDED:
            return min(at - x, y - at)
        side = verdicts[x] if verdicts.get(x) in _DECIDED else verdicts[y]
    return at - p if side == verdicts[p] else q - at


#: A placement: given a gap and the verdicts, a value to probe in it (with the side it is predicted on), or None.
Placed = Callable[[tuple[Fraction, Fraction], Mapping[Fraction, str]], Fraction | tuple[Fraction, str] | None]


def _choose(gaps: list[tuple[Fraction, Fraction]], verdicts: Mapping[Fraction, str], place: Placed | None) -> Fraction:
    """The value to probe next among the gaps (at least one): in each the point ``place`` names there (else its
    midpoint), and of those the one that leaves its bracket narrowest if proved as predicted (:func:`gain`; a midpoint
    on the side of its gap's proved end), a placed point before a midpoint and the lowest first where they tie."""
    best: tuple[Fraction, bool, Fraction] | None = None  # (gain, placed, value)
    for gap in gaps:
        got = place(gap, verdicts) if place is not None else None
        at, side = got if isinstance(got, tuple) else (got, None)
        if at is None or not gap[0] < at < gap[1] or at in verdicts:
            key = (gain(gap, (gap[0] + gap[1]) / 2, None, verdicts), False, (gap[0] + gap[1]) / 2)
        else:
            key = (gain(gap, at, side, verdicts), True, at)
        if best is None or key[:2] > best[:2]:
            best = key
    assert best is not None, "no gap to choose from"
    return best[2]


def search(lo: Fraction, hi: Fraction, tol: Fraction, grid: int, probe: Callable[[Fraction], str], deadline: float,
           place: Placed | None = None, confirm: Callable[[Fraction], str] | None = None) -> str:
    """Probe the ends and the grid, then bisect next to the proved ends of every bracket; why the search stopped.

    Parameters
    ----------
    lo, hi, tol : Fraction
        The interval and the bracket width to stop at.
    grid : int
        Interior points probed before bisecting (:func:`grid_points`).
    probe : callable
        Proves the network at a value and returns the verdict.
    deadline : float
        ``time.perf_counter()`` after which no probe starts (the ends are always probed).
    place : callable, optional
        Given a gap and the verdicts so far, a value strictly inside the gap to probe instead of a midpoint, with the
        side it is predicted to be proved on (a bare value: the side of the gap's proved end), or None
        (:func:`certify.workflows.placement.placed_point`).  It is asked for every gap (a value it names need not be
        probed), and of the values it names, with the midpoints of the gaps where it names none, the one that leaves
        its bracket narrowest if proved as predicted is probed (a midpoint on the side of its gap's proved end: a
        wide gap's midpoint goes before a point creeping by small steps).  It moves probes only: brackets still
        narrow from proved probes alone.
    confirm : callable, optional
        Proves a grid point whose nearest proved neighbours, below and above, are proved on the same side (a
        shorter probe than ``probe``: such a point shows a crossing only where the boundary crosses twice between
        them).  A point it leaves undecided is probed again with ``probe`` once every bracket is at most ``tol``
        wide, time allowing.  None: ``probe`` for every point.

    Returns
    -------
    str
        Why it stopped, in words that claim only what the probes proved.

    Examples
    --------
    Stable on (1, 2) only: a grid of 3 (at 1, 2, 3) misses the stable stretch, one of 7 brackets both crossings.

    >>> sides = lambda v: "stable" if 1 < v < 2 else "unstable"
    >>> search(Fraction(0), Fraction(4), Fraction(1, 8), 3, sides, float("inf"))
    'no crossing found in [0, 4]: 5 of 5 probes proved unstable, none proved stable; a crossing between two probes is not excluded'
    >>> seen = {}
    >>> search(Fraction(0), Fraction(4), Fraction(1, 8), 7, lambda v: seen.setdefault(v, sides(v)), float("inf"))
    'each of the 2 brackets is at most 0.125 wide'
    >>> [(str(a), str(b)) for a, b in brackets(seen)]
    [('1', '9/8'), ('15/8', '2')]
    """
    verdicts: dict[Fraction, str] = {}

    def run(v: Fraction) -> None:
        verdicts[v] = probe(v)

    run(lo)
    run(hi)
    points = grid_points(lo, hi, grid)
    short: list[Fraction] = []  # grid points given the shorter probe, in the order probed
    for k, v in enumerate(points):
        if time.perf_counter() > deadline:
            return f"time limit reached on the grid ({k} of {grid} interior points probed)"
        if confirm is not None and same_side(verdicts, v):
            verdicts[v] = confirm(v)
            short.append(v)
        else:
            run(v)
    for _ in range(MAX_STEPS):
        gaps = _gaps(verdicts, lo, hi, tol)
        again = [v for v in short if verdicts[v] not in _DECIDED]
        if not gaps and not again:
            return _finished(verdicts, lo, hi, tol)
        if time.perf_counter() > deadline:
            return "time limit reached"
        if not gaps:  # every bracket is narrow: the points the shorter probe left undecided get a whole probe
            short.remove(again[0])
            run(again[0])
            continue
        run(_choose(gaps, verdicts, place))
    if not _gaps(verdicts, lo, hi, tol):
        return _finished(verdicts, lo, hi, tol)
    return f"{MAX_STEPS} bisection probes"


def same_side(verdicts: Mapping[Fraction, str], v: Fraction) -> bool:
    """Whether the nearest proved probes below and above ``v`` are both proved, and on the same side.

    Parameters
    ----------
    verdicts : mapping of Fraction to str
        Each probed value's verdict.
    v : Fraction
        The value to probe next.

    Returns
    -------
    bool
        True when a probe at ``v`` shows a crossing only where the boundary crosses twice between its neighbours.

    Examples
    --------
    >>> F = Fraction
    >>> same_side({F(0): "stable", F(1): "undecided", F(2): "stable"}, F(3, 2))
    True
    >>> same_side({F(0): "stable", F(2): "unstable"}, F(1)), same_side({F(0): "stable"}, F(1))
    (False, False)
    """
    below = [u for u in verdicts if u < v and verdicts[u] in _DECIDED]
    above = [u for u in verdicts if u > v and verdicts[u] in _DECIDED]
    return bool(below and above) and verdicts[max(below)] == verdicts[min(above)]


def _finished(verdicts: Mapping[Fraction, str], lo: Fraction, hi: Fraction, tol: Fraction) -> str:
    """Why a search with nothing left to probe stopped."""
    found = brackets(verdicts)
    if len(found) == 1:
        return f"the bracket is at most {approx_str(tol)} wide"
    if found:
        return f"each of the {len(found)} brackets is at most {approx_str(tol)} wide"
    counts = {s: sum(1 for v in verdicts.values() if v == s) for s in _DECIDED}
    rest = len(verdicts) - counts["stable"] - counts["unstable"]
    where = f"in [{exact_str(lo)}, {exact_str(hi)}]"
    if not counts["stable"] and not counts["unstable"]:
        return f"no probe {where} was proved stable or unstable: nothing to bisect from"
    side, other = ("stable", "unstable") if counts["stable"] else ("unstable", "stable")
    undecided = f", {rest} not decided" if rest else ""
    return (f"no crossing found {where}: {counts[side]} of {len(verdicts)} probes proved {side}{undecided}, "
            f"none proved {other}; a crossing between two probes is not excluded")


def notes(verdicts: Mapping[Fraction, str], lo: Fraction, hi: Fraction, grid: int) -> list[str]:
    """What the probes leave open: undecided probes inside brackets, ends not proved, crossings not excluded.

    Parameters
    ----------
    verdicts : mapping of Fraction to str
        Each probed value's verdict.
    lo, hi : Fraction
        The interval.
    grid : int
        The interior grid points asked for.

    Returns
    -------
    list of str
        One sentence each.

    Examples
    --------
    >>> for line in notes({Fraction(0): "stable", Fraction(1): "undecided", Fraction(2): "unstable"},
    ...                   Fraction(0), Fraction(2), 1):
    ...     print(line)
    1 probe inside the bracket [0, 2] was not decided (at 1)
    no other crossing is excluded between two probes proved on the same side (1 interior grid point was probed before bisecting)
    """
    out = []
    found = brackets(verdicts)
    for a, b in found:
        inside = sorted(v for v in verdicts if a < v < b)
        if inside:
            many = len(inside) != 1
            out.append(f"{len(inside)} probe{'s' if many else ''} inside the bracket [{approx_str(a)}, {approx_str(b)}] "
                       f"{'were' if many else 'was'} not decided (at {', '.join(approx_str(v) for v in inside[:3])}"
                       f"{', ...' if len(inside) > 3 else ''})")
    if found:
        for end, first in ((lo, True), (hi, False)):
            if verdicts.get(end) not in _DECIDED:
                edge = found[0][0] if first else found[-1][1]
                out.append(f"the end {approx_str(end)} was not decided: crossings between it and {approx_str(edge)} "
                           "are not searched")
        if len(found) > 1:
            out.append(f"the network changes side at least {len(found)} times in [{approx_str(lo)}, {approx_str(hi)}]: "
                       f"{len(found)} brackets, each between a value proved stable and one proved unstable")
        points = f"{grid} interior grid point{' was' if grid == 1 else 's were'}"
        out.append(f"no other crossing is excluded between two probes proved on the same side ({points} probed before bisecting)")
        return out
    proved = sorted(v for v, s in verdicts.items() if s in _DECIDED)
    for end, near in ((lo, proved[0]), (hi, proved[-1])) if proved else ():
        if verdicts.get(end) not in _DECIDED:
            out.append(f"the end {approx_str(end)} was not proved either way: a crossing between it and "
                       f"{approx_str(near)} (proved {verdicts[near]}), or beyond it, is not excluded (a wider interval "
                       "may bracket it)")
    return out
