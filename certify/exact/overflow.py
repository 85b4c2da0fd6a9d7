"""Networks where only some stations have a capacity: the lossy sets, the chain state by state, the overflow check.

The theorems are in ``docs/math/capacities.md``:

* flow balance with losses -- a customer is lost only when every station of its
  choice set is full, so only the *lossy* sets (every station capped) may lose
  flow; :func:`lossy_sets` names them and
  :func:`~certify.exact.instability.check_static_split` takes them;
* one uncapped station u -- for x_u >= L = max K + 2 the jump rates do not
  depend on x_u (shift invariance), so f = x_u + h(y) has a drift D(y) that
  depends on the capped levels y alone; D <= -delta everywhere proves positive
  recurrence (``overflow-foster``), D >= delta transience (``overflow-growth``).
  :func:`check_overflow` recomputes every D(y) state by state.

The chain is evaluated state by state (:func:`transitions`), with the joining
rule of the model: the shortest non-full station of the choice set, ties by
the tie-breaking of the tied set, lost when every station is full; a customer
fed back compares the queues after its own departure.  Pure Python: no numpy,
no solver.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from fractions import Fraction
from itertools import product
from math import ceil

from ..core.clock import remaining
from ..markov.chain import Chain, drain_order
from .facts import Check, OverflowFacts
from .instability import routed_sets

__all__ = [
    "MAX_OVERFLOW_STATES",
    "MAX_REACH_STATES",
    "OVERFLOW_SIDES",
    "lossy_sets",
    "join",
    "transitions",
    "overflow_level",
    "capped_levels",
    "capped_count",
    "overflow_drifts",
    "check_overflow",
]

#: The most capped level vectors (prod (K_c + 1)) an overflow certificate may have (refused beyond, before the check).
MAX_OVERFLOW_STATES = 20000

#: The most states the growth check's reachability search may visit ((T + 1) x the level vectors; refused beyond).
MAX_REACH_STATES = 200_000

#: The two kinds of overflow certificate and the sign of the drift each needs.
OVERFLOW_SIDES = {"overflow-foster": -1, "overflow-growth": 1}

State = tuple[int, ...]


def lossy_sets(chain: Chain, capacities: Sequence[int | None]) -> list[tuple[int, ...]]:
    """The routed choice sets whose every station has a capacity: the only ones that can lose a customer.

    Parameters
    ----------
    chain : Chain
        The network's chain.
    capacities : sequence of int or None
        Each station's capacity (None: unbounded), in the chain's order.

    Returns
    -------
    list of tuple of int
        The lossy sets, in the order of :func:`~certify.exact.instability.routed_sets`.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0,), F(1)), ((0, 1), F(1))), (), (F(1), F(1)))
    >>> lossy_sets(ch, [2, None])
    [(0,)]
    """
    return [C for C in routed_sets(chain) if all(capacities[j] is not None for j in C)]


def join(chain: Chain, capacities: Sequence[int | None], x: State, C: Sequence[int]) -> tuple[tuple[int, Fraction], ...]:
    """Where a customer routed to ``C`` goes from state ``x``: (station, probability) pairs; empty when it is lost.

    Parameters
    ----------
    chain : Chain
        The chain (its tie-breaking).
    capacities : sequence of int or None
        Each station's capacity.
    x : tuple of int
        The queue lengths the customer sees.
    C : sequence of int
        The choice set.

    Returns
    -------
    tuple of (int, Fraction)
        The shortest non-full stations of ``C`` with their shares (the tie-breaking of the tied set).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> join(ch, [1, None], (0, 0), (0, 1)), join(ch, [1, None], (1, 5), (0, 1)), join(ch, [1, 1], (1, 1), (0, 1))
    (((0, Fraction(1, 2)), (1, Fraction(1, 2))), ((1, Fraction(1, 1)),), ())
    """
    room = [j for j in C if capacities[j] is None or x[j] < capacities[j]]  # type: ignore[operator]
    if not room:
        return ()
    m = min(x[j] for j in room)
    return chain.tie_split(tuple(sorted(j for j in room if x[j] == m)))


def _plus(x: State, j: int, d: int) -> State:
    return x[:j] + (x[j] + d,) + x[j + 1 :]


def transitions(chain: Chain, capacities: Sequence[int | None], x: State) -> dict[State, Fraction]:
    """The jump rates out of state ``x`` of an exponential network with capacities (lost customers: no jump).

    Parameters
    ----------
    chain : Chain
        The exponential chain (no phases).
    capacities : sequence of int or None
        Each station's capacity.
    x : tuple of int
        The state.

    Returns
    -------
    dict of state to Fraction
        The rate of each jump to another state.

    Examples
    --------
    Rate 2 into the shorter of station 1 (capacity 1) and station 2: from (1, 0) the arrival joins 2.

    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(2)),), (), (F(1), F(1)))
    >>> sorted(transitions(ch, [1, None], (1, 0)).items())
    [((0, 0), Fraction(1, 1)), ((1, 1), Fraction(2, 1))]
    """
    out: dict[State, Fraction] = {}

    def add(y: State, rate: Fraction) -> None:
        if y != x and rate:
            out[y] = out.get(y, Fraction(0)) + rate

    for C, lam in chain.arrivals:
        for j, p in join(chain, capacities, x, C):
            add(_plus(x, j, 1), lam * p)
    for i in range(chain.J):
        if x[i] == 0:
            continue
        y = _plus(x, i, -1)
        back = Fraction(0)
        for src, C, p in chain.feedback:
            if src != i:
                continue
            back += p
            for j, share in join(chain, capacities, y, C):
                add(_plus(y, j, 1), chain.mu[i] * p * share)
        add(y, chain.mu[i] * (1 - back))
    return out


def overflow_level(capacities: Sequence[int | None]) -> int:
    """L = max K + 2: from x_u >= L on, the jump rates do not depend on the uncapped queue (shift invariance).

    Parameters
    ----------
    capacities : sequence of int or None
        Each station's capacity.

    Returns
    -------
    int
        The level L.

    Examples
    --------
    >>> overflow_level([1, None, 3])
    5
    """
    return max(k for k in capacities if k is not None) + 2


def capped_levels(capacities: Sequence[int | None], u: int) -> list[State]:
    """Every vector y of levels of the capped stations (the stations other than ``u``, in order).

    Parameters
    ----------
    capacities : sequence of int or None
        Each station's capacity; only station ``u`` has none.
    u : int
        The uncapped station.

    Returns
    -------
    list of tuple of int
        prod (K_c + 1) vectors, lexicographic.

    Examples
    --------
    >>> capped_levels([1, None, 2], 1)
    [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    """
    caps = [k for j, k in enumerate(capacities) if j != u]
    return [tuple(y) for y in product(*(range(int(k) + 1) for k in caps if k is not None))]


def capped_count(capacities: Sequence[int | None]) -> int:
    """prod (K_c + 1) over the capped stations: how many level vectors :func:`capped_levels` would list (not listed).

    Parameters
    ----------
    capacities : sequence of int or None
        Each station's capacity (None: unbounded).

    Returns
    -------
    int
        The count.

    Examples
    --------
    >>> capped_count([1, None, 2]), capped_count([10**9, 10**9, None]) > MAX_OVERFLOW_STATES
    (6, True)
    """
    n = 1
    for k in capacities:
        if k is not None:
            n *= int(k) + 1
    return n


def _state(u: int, xu: int, y: State) -> State:
    return y[:u] + (xu,) + y[u:]


def overflow_drifts(
    chain: Chain, capacities: Sequence[int | None], u: int, h: Mapping[State, Fraction], deadline: float | None = None
) -> dict[State, Fraction]:
    """D(y) = Af at (L, y) for f = x_u + h(y): the drift of f wherever x_u >= L (exact).

    Parameters
    ----------
    chain : Chain
        The exponential chain.
    capacities : sequence of int or None
        Each station's capacity; station ``u`` alone has none.
    u : int
        The uncapped station.
    h : mapping of level vector to Fraction
        The table, one value per :func:`capped_levels` vector.
    deadline : float, optional
        A ``time.perf_counter()`` value, polled with the deadline in force every 256 vectors
        (:class:`TimeoutError` once either passes).

    Returns
    -------
    dict of level vector to Fraction
        The drift at each vector.

    Examples
    --------
    The example of ``docs/math/capacities.md``: lam = 9/5, h(1) - h(0) = lam/(1 + lam) = 9/14.

    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(9, 5)),), (), (F(1), F(1)))
    >>> overflow_drifts(ch, [1, None], 1, {(0,): F(0), (1,): F(9, 14)})
    {(0,): Fraction(11, 70), (1,): Fraction(11, 70)}
    """
    L = overflow_level(capacities)
    out: dict[State, Fraction] = {}
    for n, y in enumerate(capped_levels(capacities, u)):
        left = remaining(deadline) if n % 256 == 0 else None
        if left is not None and left <= 0:
            raise TimeoutError("the overflow drifts")
        x = _state(u, L, y)
        d = Fraction(0)
        for z, rate in transitions(chain, capacities, x).items():
            yz = z[:u] + z[u + 1 :]
            d += rate * (z[u] - L + h[yz] - h[y])
        out[y] = d
    return out


def _reaches(chain: Chain, capacities: Sequence[int | None], u: int, top: int, deadline: float | None = None) -> bool:
    """Whether a state with x_u = ``top`` is reachable from the empty state through levels 0..top (BFS)."""
    start = (0,) * chain.J
    seen = {start}
    todo = deque([start])
    while todo:
        left = remaining(deadline) if len(seen) % 4096 == 0 else None
        if left is not None and left <= 0:
            raise TimeoutError("the reachability search")
        x = todo.popleft()
        for z in transitions(chain, capacities, x):
            if z[u] > top or z in seen:
                continue
            if z[u] == top:
                return True
            seen.add(z)
            todo.append(z)
    return top == 0


def check_overflow(
    chain: Chain,
    capacities: Sequence[int | None],
    u: int,
    h: Mapping[State, Fraction],
    kind: str,
    deadline: float | None = None,
) -> Check[OverflowFacts]:
    """Check an overflow certificate: f = x_u + h(y) drifts down (``overflow-foster``) or up (``overflow-growth``).

    Conditions (``docs/math/capacities.md``): the chain is exponential; station
    ``u`` is the only one without a capacity; ``h`` has one value per capped
    level vector; the drain order exists; every D(y) (:func:`overflow_drifts`)
    is <= -delta < 0 (foster) or >= delta > 0 (growth), delta = the smallest
    margin; for growth, a state with x_u = L + ceil(max h - min h) is reachable
    from the empty state (a search of at most :data:`MAX_REACH_STATES` states:
    a table whose spread needs more is refused, before the search).

    Parameters
    ----------
    chain : Chain
        The network's chain.
    capacities : sequence of int or None
        Each station's capacity.
    u : int
        The uncapped station.
    h : mapping of level vector to Fraction
        The table.
    kind : str
        ``overflow-foster`` or ``overflow-growth``.
    deadline : float, optional
        A ``time.perf_counter()`` value: the drift loop and the reachability search poll it
        (:class:`TimeoutError` once it passes).

    Returns
    -------
    Check of OverflowFacts
        Passed with the station, delta, L and the number of level vectors; or the failures.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(9, 5)),), (), (F(1), F(1)))
    >>> chk = check_overflow(ch, [1, None], 1, {(0,): F(0), (1,): F(9, 14)}, "overflow-growth")
    >>> chk.ok, chk.facts.delta, chk.facts.level
    (True, Fraction(11, 70), 3)
    >>> check_overflow(ch, [1, None], 1, {(0,): F(0), (1,): F(9, 14)}, "overflow-foster").failures[0]
    'the drift of f where x_2 >= 3 and x_1 = 0 is 11/70 (must be < 0)'
    """
    if kind not in OVERFLOW_SIDES:
        return Check.failed([f"unknown overflow kind {kind!r} (one of {', '.join(OVERFLOW_SIDES)})"])
    if chain.has_phases:
        return Check.failed(["the overflow check is for exponential laws only (the chain has phases)"])
    if len(capacities) != chain.J or not 0 <= u < chain.J:
        return Check.failed([f"need {chain.J} capacities and a station index, got {len(capacities)} and {u}"])
    if capacities[u] is not None or any(capacities[j] is None or capacities[j] < 1 for j in range(chain.J) if j != u):  # type: ignore[operator]
        return Check.failed([f"station {chain.ids[u]} must be the only station without a capacity"])
    count = capped_count(capacities)
    if count > MAX_OVERFLOW_STATES:  # sized before anything is listed
        return Check.failed([f"{count} capped level vectors (limit {MAX_OVERFLOW_STATES})"])
    levels = capped_levels(capacities, u)
    if set(h) != set(levels):
        return Check.failed([f"the table must have exactly one value per capped level vector ({len(levels)})"])
    failures = []
    if drain_order(chain) is None:
        failures.append("the empty state is not shown reachable from every state (no drain order)")
    sign = OVERFLOW_SIDES[kind]
    L = overflow_level(capacities)
    D = overflow_drifts(chain, capacities, u, h, deadline)
    for y, d in D.items():
        if sign * d <= 0:
            where = ", ".join(f"x_{chain.ids[j]} = {k}" for j, k in zip((j for j in range(chain.J) if j != u), y))
            failures.append(f"the drift of f where x_{chain.ids[u]} >= {L} and {where} is {d} (must be {'<' if sign < 0 else '>'} 0)")
            if len(failures) >= 5:
                break
    if not failures and sign > 0:
        top = L + ceil(max(h.values()) - min(h.values()))
        if (top + 1) * len(levels) > MAX_REACH_STATES:
            return Check.failed([f"the table's spread max h - min h needs a reachability search up to x_{chain.ids[u]} = {top} "
                                 f"over {(top + 1) * len(levels)} states (limit {MAX_REACH_STATES})"])
        if not _reaches(chain, capacities, u, top, deadline):
            failures.append(f"no state with x_{chain.ids[u]} = {top} is reachable from the empty state")
    if failures:
        return Check.failed(failures, partial={"states": len(levels), "level": L})
    delta = min(sign * d for d in D.values())
    return Check.passed(OverflowFacts(station=chain.ids[u], delta=delta, level=L, states=len(levels)))

