"""Fork-join networks with redundancy (`fork-join-redundancy/1`): capacity, certificates, exact checks.

Exact and numpy-free: everything a verdict rests on is computed here in
:class:`fractions.Fraction` arithmetic.  The numeric search for the Lyapunov
table lives in :mod:`certify.forkjoin.search` and is imported only by
:func:`certify.forkjoin.prove.prove_forkjoin`.

Model
-----
The (n,k) system of seed 003: jobs arrive at rate ``lam``; each forks one task
to every one of the n FCFS servers (exponential rates d_i); a job leaves when
k of its tasks are done and its n-k other tasks are cancelled.  With Q_i the
tasks at server i and N = max_i Q_i (the number of jobs present), server i has
finished the tasks of the N - Q_i oldest jobs (its *lag* L_i = N - Q_i); at
most k-1 servers have L_i > 0.  The queue lengths form a CTMC (jumps out of q):

* an arrival (rate lam): q -> q + 1;
* a completion at a busy server i (rate d_i): if L_i > 0, or if fewer than k-1
  lags are positive, q -> q - e_i; otherwise (L_i = 0 and exactly k-1 lags
  positive) it is the k-th task of the oldest job, which leaves: every server at
  N drops by one (its own completion, the others' cancellations).

Theorems used (fork-join)
-------------------------
Capacity (water-filling).  theta = min over sets R of at most k-1 servers of
d(R^c) / (k - ``|R|``), attained by R = the ``|R|`` fastest servers; it is the root of
sum_i min(d_i, theta) = k theta.  theta = mu*/k exactly when max d_i <= mu*/k
(the maximal designs of seed 003); rho = k lam / mu*.

Instability (flow balance).  Each departing job has exactly k completed tasks,
at k distinct servers; a busy server i completes tasks at the points of a
Poisson process of rate d_i (exponential service), so by time t server i has
completed at most min(Pi_i(t), D(t)) tasks of the D(t) departed jobs.  Hence
k D(t) <= sum_i min(Pi_i(t), D(t)) <= ``|R|`` D(t) + sum_{i not in R} Pi_i(t) for
any set R with ``|R|`` <= k-1, and limsup D(t)/t <= d(R^c)/(k - ``|R|``) a.s.  If that is
< lam, the number of jobs N(t) = N(0) + A(t) - D(t) grows linearly: the chain is
transient, not stable.  Equivalently: a stable regime with job throughput
gamma = lam would need k gamma <= sum_i min(d_i, gamma), i.e. gamma <= theta.
This holds for every arrival process with long-run rate lam; it uses the
exponential service (with cancellations and a general service law the completed
tasks are biased towards short ones, and a server can complete more than d_i
tasks per unit time).

Stability (Foster, CTMC form).  V(q) = N + h(min(L, K)) with a bounded table h
over the clipped lags.  For N >= K+1 every server with L_i <= K is busy, and a
server with L_i >= K+1 changes neither N nor the clipped lags when it completes
a task (busy or idle); so on each *region* (each server's lag level 0..K or
">= K+1", at most k-1 of them positive) the drift AV is one exact number.  If it
is <= -delta < 0 on every region, then AV <= -delta off the finite set
{N <= K}; V is bounded below, the rates are bounded and the empty state is
reachable from every state (with no arrivals each completion lowers sum q), so
the chain is positive recurrent.  Servers of equal rate are interchangeable:
the chain commutes with permuting them, so with h symmetric under those
permutations AV is too, and one region per orbit is checked.

(k,k) systems (Foster).  With k = n no task is ever cancelled, each Q_i is an
M/M/1 queue fed by every job, and V = sum_i Q_i^2 has
AV <= -2 (min_i d_i - lam) ``|q|_1`` + n lam + mu*: stable when lam < min_i d_i = theta.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction
from itertools import combinations, product
from math import comb, lcm
from typing import Any

from ..core.envelope import _compare, seal
from ..core.errors import CertificateError
from ..core.model import ForkJoinNetwork
from ..core.numbers import q, unq
from ..exact.checks import Check

__all__ = [
    "server_rates",
    "mu_star",
    "throughput_capacity",
    "capped_servers",
    "maximal_design",
    "traffic_intensity",
    "transitions",
    "in_state_space",
    "equal_rate_classes",
    "canonical",
    "count_patterns",
    "lag_regions",
    "lag_cells",
    "region_drift",
    "state_region",
    "check_capacity",
    "check_forkjoin_foster",
    "check_independent",
    "independent_certificate",
    "capacity_certificate",
    "forkjoin_foster_certificate",
    "check_certificate",
    "KINDS",
]

KINDS = ("fork-join-capacity", "fork-join-foster", "fork-join-independent")

State = tuple[int, ...]

# The exact check refuses certificates with more regions than this (it would take too long).
CHECK_LIMIT = 2_000_000


# ---------------------------------------------------------------------------
# capacity


def server_rates(net: ForkJoinNetwork) -> list[Fraction]:
    """The static service rates d_i, in the file's server order."""
    return [Fraction(mu) for _, mu in net.servers]


def mu_star(net: ForkJoinNetwork) -> Fraction:
    """The total service capacity mu* = sum_i d_i."""
    return sum(server_rates(net), Fraction(0))


def _capped(d: Sequence[Fraction], k: int) -> tuple[tuple[int, ...], Fraction]:
    """(R, theta): theta = min_r d(R_r^c)/(k-r) over R_r = the r fastest servers, r < k (smallest r on ties)."""
    order = sorted(range(len(d)), key=lambda i: (-d[i], i))
    total = sum(d, Fraction(0))
    best: tuple[tuple[int, ...], Fraction] | None = None
    for r in range(k):
        R = tuple(sorted(order[:r]))
        val = (total - sum((d[i] for i in R), Fraction(0))) / (k - r)
        if best is None or val < best[1]:
            best = (R, val)
    assert best is not None
    return best


def throughput_capacity(net: ForkJoinNetwork) -> Fraction:
    """theta, the root of sum_i min(d_i, theta) = k theta (water-filling), exactly.

    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(9, 25), (("1", F(3, 5)), ("2", F(1, 5)), ("3", F(1, 5))))
    >>> throughput_capacity(net)
    Fraction(2, 5)
    """
    d = server_rates(net)
    theta = _capped(d, net.k)[1]
    assert sum((min(x, theta) for x in d), Fraction(0)) == net.k * theta
    return theta


def capped_servers(net: ForkJoinNetwork) -> list[str]:
    """The servers faster than theta (the water level caps them at theta)."""
    d = server_rates(net)
    return [net.servers[i][0] for i in _capped(d, net.k)[0]]


def maximal_design(net: ForkJoinNetwork) -> bool:
    """Seed 003's maximal-design criterion: the fastest rate is at most mu*/k."""
    return max(server_rates(net)) * net.k <= mu_star(net)


def traffic_intensity(net: ForkJoinNetwork) -> Fraction:
    """rho = k lam / mu* (seed 003's nominal traffic intensity)."""
    return net.k * Fraction(net.rate) / mu_star(net)


# ---------------------------------------------------------------------------
# the chain


def in_state_space(net: ForkJoinNetwork, state: Sequence[int]) -> bool:
    """True for non-negative integer queue lengths with at most k-1 of them below the maximum."""
    if len(state) != net.n or any(not isinstance(x, int) or x < 0 for x in state):
        return False
    top = max(state)
    return sum(1 for x in state if x < top) <= net.k - 1


def transitions(net: ForkJoinNetwork, state: Sequence[int]) -> dict[State, Fraction]:
    """The jumps out of ``state`` (queue lengths) with their rates, by the fork/cancel rules.

    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(1), (("1", F(3)), ("2", F(2)), ("3", F(1))))
    >>> sorted(transitions(net, (1, 2, 2)).items())   # server 1 is ahead: a completion at 2 or 3 ends the oldest job
    [((0, 2, 2), Fraction(3, 1)), ((1, 1, 1), Fraction(3, 1)), ((2, 3, 3), Fraction(1, 1))]
    """
    d = server_rates(net)
    s = tuple(state)
    top = max(s)
    ahead = sum(1 for x in s if x < top)
    out: dict[State, Fraction] = defaultdict(Fraction)
    out[tuple(x + 1 for x in s)] += Fraction(net.rate)
    for i, x in enumerate(s):
        if x == 0:
            continue
        if x == top and ahead == net.k - 1:
            nxt = tuple(y - 1 if y == top else y for y in s)
        else:
            nxt = s[:i] + (x - 1,) + s[i + 1 :]
        out[nxt] += d[i]
    return dict(out)


# ---------------------------------------------------------------------------
# regions of lag levels


def equal_rate_classes(net: ForkJoinNetwork) -> list[tuple[int, ...]]:
    """Servers grouped by equal rate (indices), in order of first appearance."""
    d = server_rates(net)
    groups: dict[Fraction, list[int]] = {}
    for i, x in enumerate(d):
        groups.setdefault(x, []).append(i)
    return [tuple(g) for g in groups.values()]


def canonical(levels: Sequence[int], classes: Sequence[Sequence[int]]) -> State:
    """The orbit representative: within each class the levels sorted in decreasing order."""
    out = None
    for cls in classes:
        if len(cls) < 2:
            continue
        if out is None:
            out = list(levels)
        vals = sorted((levels[i] for i in cls), reverse=True)
        for i, v in zip(cls, vals):
            out[i] = v
    return tuple(levels) if out is None else tuple(out)


def _patterns(n: int, k: int, top: int, classes: Sequence[Sequence[int]] | None) -> Iterator[State]:
    """Level vectors in {0..top}^n with at most k-1 positive entries (orbit representatives if ``classes``)."""
    if classes is None:
        for m in range(min(k - 1, n) + 1):
            for pos in combinations(range(n), m):
                for vals in product(range(1, top + 1), repeat=m):
                    lv = [0] * n
                    for i, v in zip(pos, vals):
                        lv[i] = v
                    yield tuple(lv)
        return

    def per_class(size: int, budget: int) -> Iterator[tuple[int, ...]]:
        # non-increasing sequences of length ``size`` over 0..top with at most ``budget`` positive entries
        def rec(prefix: tuple[int, ...], hi: int) -> Iterator[tuple[int, ...]]:
            if len(prefix) == size:
                yield prefix
                return
            positive = sum(1 for v in prefix if v > 0)
            for v in range(hi, -1, -1):
                if v > 0 and positive >= budget:
                    continue
                yield from rec((*prefix, v), v)

        yield from rec((), top)

    def rec_classes(c: int, lv: list[int], budget: int) -> Iterator[State]:
        if c == len(classes):
            yield tuple(lv)
            return
        cls = classes[c]
        for vals in per_class(len(cls), budget):
            for i, v in zip(cls, vals):
                lv[i] = v
            yield from rec_classes(c + 1, lv, budget - sum(1 for v in vals if v > 0))
        for i in cls:
            lv[i] = 0

    yield from rec_classes(0, [0] * n, k - 1)


def count_patterns(n: int, k: int, top: int, classes: Sequence[Sequence[int]] | None = None) -> int:
    """How many vectors :func:`lag_regions` (top = K+1) or :func:`lag_cells` (top = K) lists, without listing them.

    >>> count_patterns(3, 2, 5), count_patterns(3, 2, 5, [(0, 1, 2)]), len(lag_regions(3, 2, 4, [(0, 1, 2)]))
    (16, 6, 6)
    """
    groups = [(i,) for i in range(n)] if classes is None else classes
    ways = [1] + [0] * (k - 1)  # ways[p]: patterns of the classes so far with p positive entries
    for cls in groups:
        new = [0] * k
        for p, w in enumerate(ways):
            for extra in range(min(len(cls), k - 1 - p) + 1):
                new[p + extra] += w * comb(top + extra - 1, extra)  # multisets of ``extra`` values in 1..top
        ways = new
    return sum(ways)


def lag_regions(n: int, k: int, K: int, classes: Sequence[Sequence[int]] | None = None) -> list[State]:
    """Regions: each server's lag level 0..K or K+1 (meaning >= K+1), at most k-1 positive.

    With ``classes``, one representative per orbit of the permutations within classes.

    >>> len(lag_regions(3, 2, 4)), len(lag_regions(3, 2, 4, [(0, 1, 2)]))
    (16, 6)
    """
    return list(_patterns(n, k, K + 1, classes))


def lag_cells(n: int, k: int, K: int, classes: Sequence[Sequence[int]] | None = None) -> list[State]:
    """Table cells: clipped lags min(L, K), at most k-1 positive (orbit representatives if ``classes``)."""
    return list(_patterns(n, k, K, classes))


def region_drift(d: Sequence[Any], lam: Any, k: int, K: int, region: Sequence[int]) -> tuple[State, Any, dict[State, Any]]:
    """(cell, lam - departure rate, {target cell: rate}) on a region, for states with N >= K+1.

    AV = (lam - departure rate) + sum_targets rate (h[target] - h[cell]) for
    V = N + h(min(L, K)); only jumps that change the clipped lags are listed.
    Rates may be Fractions or integers (all scaled alike).

    >>> from fractions import Fraction as F
    >>> region_drift([F(3, 5), F(1, 5), F(1, 5)], F(9, 25), 2, 4, (2, 0, 0))  # server 1 two jobs ahead
    ((2, 0, 0), Fraction(-1, 25), {(3, 0, 0): Fraction(3, 5), (1, 0, 0): Fraction(2, 5)})
    """
    n = len(d)
    ahead = [i for i in range(n) if region[i] > 0]
    full = len(ahead) == k - 1
    cell = tuple(min(x, K) for x in region)
    moves: dict[State, Any] = defaultdict(int)
    dep = 0 * lam
    for i in range(n):
        x = region[i]
        if x > 0:
            if x < K:  # L_i -> L_i + 1 stays <= K; from K or >= K+1 the clipped lag stays K
                moves[cell[:i] + (x + 1,) + cell[i + 1 :]] += d[i]
        elif full:
            dep += d[i]  # the k-th task of the oldest job: it leaves, every lag > 0 drops by one
        else:
            moves[cell[:i] + (1,) + cell[i + 1 :]] += d[i]
    if dep:
        target = tuple(min(x - 1, K) if x > 0 else 0 for x in region)
        if target != cell:
            moves[target] += dep
    return cell, lam - dep, dict(moves)


def state_region(state: Sequence[int], K: int) -> State:
    """The region of a state: each lag clipped to K+1 (K+1 meaning >= K+1)."""
    top = max(state)
    return tuple(min(top - x, K + 1) for x in state)


# ---------------------------------------------------------------------------
# exact checks


def check_capacity(net: ForkJoinNetwork, capped: Sequence[str]) -> Check:
    """Check an instability certificate: a set R of at most k-1 servers with d(R^c) < lam (k - ``|R|``).

    Then limsup D(t)/t <= d(R^c)/(k - ``|R|``) < lam (module docstring): the number of
    jobs grows linearly and the chain is transient.
    """
    out = Check(ok=False)
    ids = [sid for sid, _ in net.servers]
    if len(set(capped)) != len(capped) or any(s not in ids for s in capped):
        out.failures.append(f"capped servers {list(capped)} must be distinct server ids of {ids}")
        return out
    if len(capped) > net.k - 1:
        out.failures.append(f"{len(capped)} capped servers: at most k-1 = {net.k - 1} allowed")
        return out
    d = server_rates(net)
    rest = sum((d[i] for i, s in enumerate(ids) if s not in capped), Fraction(0))
    bound = rest / (net.k - len(capped))
    lam = Fraction(net.rate)
    out.facts.update(bound=bound, theta=throughput_capacity(net), lam=lam, capped=list(capped))
    if not bound < lam:
        out.failures.append(f"throughput bound d(R^c)/(k-|R|) = {bound} is not below the job rate {lam}")
        return out
    out.ok = True
    return out


def check_independent(net: ForkJoinNetwork) -> Check:
    """Check the (k,k) certificate: k = n and lam < min_i d_i, with V = sum_i Q_i^2.

    With k = n no task is ever cancelled (the k-th completion of a job is its
    last task), so each Q_i is an M/M/1 queue fed by every job and::

        AV = sum_i [2 Q_i (lam - d_i 1{Q_i > 0}) + lam + d_i 1{Q_i > 0}]
           <= -2 (min_i d_i - lam) |q|_1 + n lam + mu*,

    which is <= -1 whenever ``|q|_1`` >= bound = (n lam + mu* + 1) / (2 (min_i d_i - lam)).
    """
    out = Check(ok=False)
    if net.k != net.n:
        out.failures.append(f"k = {net.k} differs from n = {net.n}: tasks get cancelled, the queues are not M/M/1")
        return out
    d = server_rates(net)
    lam = Fraction(net.rate)
    slack = min(d) - lam
    if slack <= 0:
        out.failures.append(f"job rate {lam} is not below the slowest server's rate {min(d)}")
        return out
    out.ok = True
    out.facts.update(slope=2 * slack, bound=(net.n * lam + sum(d, Fraction(0)) + 1) / (2 * slack))
    return out


def _classes_ok(net: ForkJoinNetwork, classes: Sequence[Sequence[int]]) -> list[str]:
    d = server_rates(net)
    flat = sorted(i for c in classes for i in c)
    if flat != list(range(net.n)):
        return ["symmetry classes must partition the servers"]
    bad = [c for c in classes if len({d[i] for i in c}) > 1]
    if bad:
        return [f"symmetry class {[net.servers[i][0] for i in bad[0]]} mixes different rates"]
    return []


def check_forkjoin_foster(
    net: ForkJoinNetwork,
    K: int,
    table: Mapping[State, Fraction],
    classes: Sequence[Sequence[int]] | None = None,
    orbits: bool = True,
    max_failures: int = 5,
) -> Check:
    """Check V = N + h(min(L, K)) exactly on every region (module docstring, Foster).

    ``table`` maps each cell (orbit representatives under ``classes``, default the
    equal-rate classes) to h.  With ``orbits`` False every region is checked,
    not one per orbit.  Facts: delta (AV <= -delta whenever N >= K+1), the
    number of regions checked and of cells.
    """
    out = Check(ok=False)
    if isinstance(K, bool) or not isinstance(K, int) or K < 1:
        out.failures.append(f"clip level K = {K!r} must be an integer >= 1")
        return out
    classes = [tuple(c) for c in (equal_rate_classes(net) if classes is None else classes)]
    out.failures.extend(_classes_ok(net, classes))
    if out.failures:
        return out
    if count_patterns(net.n, net.k, K + 1, classes if orbits else None) > CHECK_LIMIT:
        out.failures.append(f"K = {K}: more than {CHECK_LIMIT} regions to check; not attempted")
        return out
    cells = lag_cells(net.n, net.k, K, classes)
    if set(table) != set(cells):
        missing = sorted(set(cells) - set(table))[:3]
        extra = sorted(set(table) - set(cells))[:3]
        out.failures.append(f"the table must have one value per cell: missing {missing}, unexpected {extra}")
        return out
    # exact integer arithmetic: rates scaled by S, table values by T
    d = server_rates(net)
    lam = Fraction(net.rate)
    S = lcm(lam.denominator, *(x.denominator for x in d))
    di, lami = [int(x * S) for x in d], int(lam * S)
    tab = {c: Fraction(v) for c, v in table.items()}
    T = lcm(*(v.denominator for v in tab.values()))
    ti = {c: int(v * T) for c, v in tab.items()}
    worst: int | None = None
    bad = 0
    regions = lag_regions(net.n, net.k, K, classes if orbits else None)
    for reg in regions:
        cell, const, moves = region_drift(di, lami, net.k, K, reg)
        h0 = ti[canonical(cell, classes)]
        drift = const * T + sum(r * (ti[canonical(c2, classes)] - h0) for c2, r in moves.items())
        if drift >= 0:
            bad += 1
            if bad <= max_failures:
                out.failures.append(f"region lags {_lags_str(reg, K)}: AV = {Fraction(drift, S * T)} (must be < 0)")
            continue
        worst = drift if worst is None else max(worst, drift)
    if bad > max_failures:
        out.failures.append(f"... and {bad - max_failures} more regions where V does not decrease")
    out.facts.update(regions=len(regions), cells=len(cells), K=K, classes=classes)
    if out.failures:
        return out
    assert worst is not None
    out.ok = True
    out.facts.update(delta=Fraction(-worst, S * T), exceptional_max_queue=K)
    return out


def _lags_str(reg: Sequence[int], K: int) -> str:
    return "(" + ",".join(f">={K + 1}" if x > K else str(x) for x in reg) + ")"


# ---------------------------------------------------------------------------
# certificate files


def _cell_key(c: Sequence[int]) -> str:
    return ",".join(map(str, c))


# What each fork-join certificate proves (semantics, statement): derived by the checker, never read from a file.
STATEMENTS: dict[str, tuple[str, str]] = {
    "fork-join-capacity": (
        "markovian",
        "Each departing job has k completed tasks at k distinct servers, so the job throughput is at most "
        "d(R^c)/(k-|R|) (the servers in R count at most once per job), which is below the job rate: the number "
        "of jobs grows linearly, for every arrival process with this rate and exponential services (flow balance).",
    ),
    "fork-join-independent": (
        "markovian",
        "k = n: no task is cancelled and every server is an M/M/1 queue fed by every job; V = sum_i Q_i^2 has "
        "AV <= -slope |q|_1 + n lam + mu* <= -1 whenever |q|_1 >= bound: positive recurrent (Foster), for Poisson "
        "jobs and exponential servers.",
    ),
    "fork-join-foster": (
        "markovian",
        "V = N + h(min(N - Q, K)) (N = max queue = jobs present, h a bounded table over the clipped lags) has "
        "AV <= -delta at every state with N > K, on every region of lag levels (one per orbit of equal-rate "
        "servers); the empty state is reachable from every state: positive recurrent (Foster), for Poisson jobs "
        "and exponential servers.",
    ),
}


def _seal(net: ForkJoinNetwork, kind: str, payload: dict, claims: dict) -> dict:
    return seal(net, kind, payload, claims, *STATEMENTS[kind])


def capacity_certificate(net: ForkJoinNetwork, capped: Sequence[str], check: Check) -> dict:
    """An instability certificate: the capped set R with d(R^c)/(k-``|R|``) < lam."""
    f = check.facts
    return _seal(net, "fork-join-capacity", {"capped": list(capped)}, {"bound": q(f["bound"]), "theta": q(f["theta"])})


def independent_certificate(net: ForkJoinNetwork, check: Check) -> dict:
    """A stability certificate for a (k,k) system: V = sum_i Q_i^2 (independent M/M/1 queues)."""
    f = check.facts
    return _seal(
        net,
        "fork-join-independent",
        {"lyapunov": "sum_i Q_i^2"},
        {"slope": q(f["slope"]), "exceptional_set": {"norm": "l1", "bound": q(f["bound"])}},
    )


def forkjoin_foster_certificate(net: ForkJoinNetwork, K: int, table: Mapping[State, Fraction], check: Check) -> dict:
    """A stability certificate: V = N + h(min(L, K)) with the table h, exactly checked."""
    f = check.facts
    ids = [s for s, _ in net.servers]
    return _seal(
        net,
        "fork-join-foster",
        {
            "K": K,
            "classes": [[ids[i] for i in c] for c in f["classes"]],
            "table": {_cell_key(c): q(v) for c, v in sorted(table.items())},
        },
        {
            "delta": q(f["delta"]),
            "exceptional_set": {"max_queue": K},
            "regions": f["regions"],
            "cells": f["cells"],
        },
    )


def _server_list(net: ForkJoinNetwork, value: Any, field: str) -> list[str]:
    """Distinct known server ids in the network's order (the canonical form)."""
    ids = [s for s, _ in net.servers]
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise CertificateError(None, field, f"{value!r} must be a list of server ids (strings)")
    if any(s not in ids for s in value) or len(set(value)) != len(value) or value != [s for s in ids if s in value]:
        raise CertificateError(None, field, f"{value!r} must list distinct server ids of {ids} in that order")
    return value


def check_certificate(net: Any, cert: dict, out: Check) -> Check | None:
    """The fork-join part of :func:`certify.verify`: re-check the claims of a fork-join certificate exactly.

    Failures go to ``out`` (the caller checks the envelope, digests, semantics and
    statement, and catches malformed fields); returns the kind's own check, or
    None when the certificate does not apply.  Every field is validated: server
    ids known, distinct and in the network's order; ``K`` an integer in
    1..MAX_CLIP_LEVEL; classes sorted, each in the network's order; table keys in
    canonical form.
    """
    from ..templates.base import MAX_CLIP_LEVEL

    kind = cert.get("kind")
    if not isinstance(net, ForkJoinNetwork):
        out.failures.append(f"a {kind} certificate is about a fork-join-redundancy/1 network, not this one")
        return None
    if kind not in KINDS:
        out.failures.append(f"certificate kind {kind!r} does not apply to a fork-join-redundancy/1 network")
        return None
    claims = cert.get("claims", {})

    def same_claims(want: dict) -> None:
        for key in sorted(set(want) | set(claims)):
            _compare(out, claims, key, want.get(key))

    if kind == "fork-join-capacity":
        capped = _server_list(net, cert.get("capped"), "capped")
        res = check_capacity(net, capped)
        out.failures.extend(res.failures)
        if res.ok:
            same_claims({"bound": q(res.facts["bound"]), "theta": q(res.facts["theta"])})
        return res
    if kind == "fork-join-independent":
        if cert.get("lyapunov") != "sum_i Q_i^2":
            raise CertificateError(None, "lyapunov", f"{cert.get('lyapunov')!r} must be 'sum_i Q_i^2'")
        res = check_independent(net)
        out.failures.extend(res.failures)
        if res.ok:
            same_claims({"slope": q(res.facts["slope"]), "exceptional_set": {"norm": "l1", "bound": q(res.facts["bound"])}})
        return res
    K = cert.get("K")
    if isinstance(K, bool) or not isinstance(K, int) or not 1 <= K <= MAX_CLIP_LEVEL:
        raise CertificateError(None, "K", f"{K!r} must be an integer in 1..{MAX_CLIP_LEVEL}")
    idx = {s: i for i, (s, _) in enumerate(net.servers)}
    raw = cert.get("classes")
    if not isinstance(raw, list):
        raise CertificateError(None, "classes", f"must be a list of lists of server ids, got {type(raw).__name__}")
    classes = [tuple(idx[s] for s in _server_list(net, c, f"classes[{n}]")) for n, c in enumerate(raw)]
    if classes != sorted(classes):
        raise CertificateError(None, "classes", f"{raw!r:.200} must be sorted (by their first server)")
    values = cert.get("table")
    if not isinstance(values, dict):
        raise CertificateError(None, "table", f"must be a map from cells to rationals, got {type(values).__name__}")
    table: dict[State, Fraction] = {}
    for key, v in values.items():
        try:
            cell = tuple(int(x) for x in str(key).split(","))
        except ValueError:
            raise CertificateError(None, "table", f"key {key!r} is not a cell (comma-separated integers)") from None
        if _cell_key(cell) != key:
            raise CertificateError(None, "table", f"key {key!r} is not in canonical form (write {_cell_key(cell)!r})")
        table[cell] = unq(v, f"table.{key}")
    res = check_forkjoin_foster(net, K, table, classes)
    out.failures.extend(res.failures)
    if res.ok:
        same_claims(
            {
                "delta": q(res.facts["delta"]),
                "exceptional_set": {"max_queue": K},
                "regions": res.facts["regions"],
                "cells": res.facts["cells"],
            }
        )
    return res
