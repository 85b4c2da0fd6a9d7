"""The exact checks of fork-join certificates, and the facts each kind derives.

Exact and numpy-free: everything a fork-join verdict rests on is computed here
in :class:`fractions.Fraction` (or scaled integer) arithmetic.  The numeric
search for the Lyapunov table lives in :mod:`certify.search.forkjoin`; the
chain and its lag regions in :mod:`certify.exact.forkjoin_lags`.

Theorems used (fork-join)
-------------------------
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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import lcm

from ..core.model import ForkJoinNetwork
from ..exact.facts import Check, Facts
from .forkjoin_capacity import server_rates, throughput_capacity
from .forkjoin_lags import State, canonical, count_patterns, equal_rate_classes, lag_cells, lag_regions, region_drift

__all__ = [
    "CHECK_LIMIT",
    "CapacityFacts",
    "IndependentFacts",
    "LagTableFacts",
    "check_capacity",
    "check_independent",
    "check_forkjoin_foster",
]

# The exact check refuses certificates with more regions than this (it would take too long).
CHECK_LIMIT = 2_000_000


@dataclass(frozen=True)
class CapacityFacts(Facts):
    """A fork-join capacity certificate holds: the job throughput is at most ``bound`` < lam.

    Attributes
    ----------
    bound : Fraction
        d(R^c)/(k - ``|R|``) for the capped set R.
    theta : Fraction
        The throughput capacity (:func:`~certify.exact.forkjoin_capacity.throughput_capacity`).
    lam : Fraction
        The job rate.
    capped : list of str
        The capped set R (server ids).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> CapacityFacts(F(2, 5), F(2, 5), F(1, 2), ["1"]).bound
    Fraction(2, 5)
    """

    bound: Fraction
    theta: Fraction
    lam: Fraction
    capped: list[str]


@dataclass(frozen=True)
class IndependentFacts(Facts):
    """A (k,k) certificate holds: V = sum_i Q_i^2 has AV <= -slope ``|q|_1`` + n lam + mu* <= -1 for ``|q|_1`` >= bound.

    Attributes
    ----------
    slope : Fraction
        2 (min_i d_i - lam).
    bound : Fraction
        (n lam + mu* + 1) / slope.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> IndependentFacts(F(1, 25), F(71)).slope
    Fraction(1, 25)
    """

    slope: Fraction
    bound: Fraction


@dataclass(frozen=True)
class LagTableFacts(Facts):
    """A fork-join Foster certificate holds: V = N + h(min(L, K)) has AV <= -delta whenever N >= K+1.

    Attributes
    ----------
    regions : int
        Regions of lag levels checked (one per orbit, unless asked for all).
    cells : int
        Cells of the table.
    K : int
        The clip level.
    classes : list of tuple of int
        The symmetry classes of servers (indices).
    delta : Fraction
        The drift margin (> 0).
    exceptional_max_queue : int
        AV <= -delta at every state with more than this many jobs (= K).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> LagTableFacts(6, 5, 4, [(0, 1, 2)], F(1, 100), 4).delta
    Fraction(1, 100)
    """

    regions: int
    cells: int
    K: int
    classes: list[tuple[int, ...]]
    delta: Fraction
    exceptional_max_queue: int


def check_capacity(net: ForkJoinNetwork, capped: Sequence[str]) -> Check[CapacityFacts]:
    """Check an instability certificate: a set R of at most k-1 servers with d(R^c) < lam (k - ``|R|``).

    Then limsup D(t)/t <= d(R^c)/(k - ``|R|``) < lam (module docstring): the number of
    jobs grows linearly and the chain is transient.

    Parameters
    ----------
    net : ForkJoinNetwork
        The fork-join network.
    capped : sequence of str
        The set R (server ids).

    Returns
    -------
    Check of CapacityFacts
        Passed with the bound, theta, lam and R; or the failures (``partial``
        then has the four numbers once R is valid).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(1, 2), (("1", F(3, 5)), ("2", F(1, 5)), ("3", F(1, 5))))
    >>> chk = check_capacity(net, ["1"])
    >>> chk.ok, chk.facts.bound
    (True, Fraction(2, 5))
    >>> check_capacity(net, []).failures
    ['throughput bound d(R^c)/(k-|R|) = 1/2 is not below the job rate 1/2']
    """
    ids = [sid for sid, _ in net.servers]
    if len(set(capped)) != len(capped) or any(s not in ids for s in capped):
        return Check.failed([f"capped servers {list(capped)} must be distinct server ids of {ids}"])
    if len(capped) > net.k - 1:
        return Check.failed([f"{len(capped)} capped servers: at most k-1 = {net.k - 1} allowed"])
    d = server_rates(net)
    rest = sum((d[i] for i, s in enumerate(ids) if s not in capped), Fraction(0))
    bound = rest / (net.k - len(capped))
    lam = Fraction(net.rate)
    facts = CapacityFacts(bound=bound, theta=throughput_capacity(net), lam=lam, capped=list(capped))
    if not bound < lam:
        return Check.failed(
            [f"throughput bound d(R^c)/(k-|R|) = {bound} is not below the job rate {lam}"], partial=facts.as_dict()
        )
    return Check.passed(facts)


def check_independent(net: ForkJoinNetwork) -> Check[IndependentFacts]:
    """Check the (k,k) certificate: k = n and lam < min_i d_i, with V = sum_i Q_i^2.

    With k = n no task is ever cancelled (the k-th completion of a job is its
    last task), so each Q_i is an M/M/1 queue fed by every job and::

        AV = sum_i [2 Q_i (lam - d_i 1{Q_i > 0}) + lam + d_i 1{Q_i > 0}]
           <= -2 (min_i d_i - lam) |q|_1 + n lam + mu*,

    which is <= -1 whenever ``|q|_1`` >= bound = (n lam + mu* + 1) / (2 (min_i d_i - lam)).

    Parameters
    ----------
    net : ForkJoinNetwork
        The fork-join network.

    Returns
    -------
    Check of IndependentFacts
        Passed with the slope and the bound; or the failures.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n2k2", 2, 2, F(1, 2), (("1", F(1)), ("2", F(1))))
    >>> chk = check_independent(net)
    >>> chk.ok, chk.facts.slope, chk.facts.bound
    (True, Fraction(1, 1), Fraction(4, 1))
    """
    if net.k != net.n:
        return Check.failed([f"k = {net.k} differs from n = {net.n}: tasks get cancelled, the queues are not M/M/1"])
    d = server_rates(net)
    lam = Fraction(net.rate)
    slack = min(d) - lam
    if slack <= 0:
        return Check.failed([f"job rate {lam} is not below the slowest server's rate {min(d)}"])
    return Check.passed(IndependentFacts(slope=2 * slack, bound=(net.n * lam + sum(d, Fraction(0)) + 1) / (2 * slack)))


def _classes_ok(net: ForkJoinNetwork, classes: Sequence[Sequence[int]]) -> list[str]:
    d = server_rates(net)
    flat = sorted(i for c in classes for i in c)
    if flat != list(range(net.n)):
        return ["symmetry classes must partition the servers"]
    bad = [c for c in classes if len({d[i] for i in c}) > 1]
    if bad:
        return [f"symmetry class {[net.servers[i][0] for i in bad[0]]} mixes different rates"]
    return []


def _lags_str(reg: Sequence[int], K: int) -> str:
    return "(" + ",".join(f">={K + 1}" if x > K else str(x) for x in reg) + ")"


def check_forkjoin_foster(
    net: ForkJoinNetwork,
    K: int,
    table: Mapping[State, Fraction],
    classes: Sequence[Sequence[int]] | None = None,
    orbits: bool = True,
    max_failures: int = 5,
) -> Check[LagTableFacts]:
    """Check V = N + h(min(L, K)) exactly on every region (module docstring, Foster).

    Parameters
    ----------
    net : ForkJoinNetwork
        The fork-join network.
    K : int
        The clip level (>= 1).
    table : mapping of cell to Fraction
        h on each cell (orbit representatives under ``classes``,
        :func:`~certify.exact.forkjoin_lags.lag_cells`).
    classes : sequence of sequence of int, optional
        Symmetry classes of servers; default the equal-rate classes.
    orbits : bool
        Check one region per orbit (False: every region).
    max_failures : int
        How many violated regions to list.

    Returns
    -------
    Check of LagTableFacts
        Passed with delta (AV <= -delta whenever N >= K+1), the number of
        regions checked and of cells; or the failures (``partial`` then has the
        counts once the table is complete).

    Examples
    --------
    Three servers of rate 1/3, k = 2, lam = 0.3 (rho = 0.9): h = 0 fails, since
    N alone does not decrease where no job can leave.

    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(3, 10), (("1", F(1, 3)), ("2", F(1, 3)), ("3", F(1, 3))))
    >>> flat = {c: F(0) for c in lag_cells(3, 2, 1, equal_rate_classes(net))}
    >>> check_forkjoin_foster(net, 1, flat).failures[0]
    'region lags (0,0,0): AV = 3/10 (must be < 0)'
    >>> chk = check_forkjoin_foster(net, 1, {(0, 0, 0): F(0), (1, 0, 0): F(-1, 2)})
    >>> chk.ok, chk.facts.delta, chk.facts.regions
    (True, Fraction(1, 30), 3)
    """
    if isinstance(K, bool) or not isinstance(K, int) or K < 1:
        return Check.failed([f"clip level K = {K!r} must be an integer >= 1"])
    groups: list[tuple[int, ...]] = [tuple(c) for c in (equal_rate_classes(net) if classes is None else classes)]
    problems = _classes_ok(net, groups)
    if problems:
        return Check.failed(problems)
    if count_patterns(net.n, net.k, K + 1, groups if orbits else None) > CHECK_LIMIT:
        return Check.failed([f"K = {K}: more than {CHECK_LIMIT} regions to check; not attempted"])
    cells = lag_cells(net.n, net.k, K, groups)
    if set(table) != set(cells):
        missing = sorted(set(cells) - set(table))[:3]
        extra = sorted(set(table) - set(cells))[:3]
        return Check.failed([f"the table must have one value per cell: missing {missing}, unexpected {extra}"])
    # exact integer arithmetic: rates scaled by S, table values by T
    d = server_rates(net)
    lam = Fraction(net.rate)
    S = lcm(lam.denominator, *(x.denominator for x in d))
    di, lami = [int(x * S) for x in d], int(lam * S)
    tab = {c: Fraction(v) for c, v in table.items()}
    T = lcm(*(v.denominator for v in tab.values()))
    ti = {c: int(v * T) for c, v in tab.items()}
    failures: list[str] = []
    worst: int | None = None
    bad = 0
    regions = lag_regions(net.n, net.k, K, groups if orbits else None)
    for reg in regions:
        cell, const, moves = region_drift(di, lami, net.k, K, reg)
        h0 = ti[canonical(cell, groups)]
        drift = const * T + sum(r * (ti[canonical(c2, groups)] - h0) for c2, r in moves.items())
        if drift >= 0:
            bad += 1
            if bad <= max_failures:
                failures.append(f"region lags {_lags_str(reg, K)}: AV = {Fraction(drift, S * T)} (must be < 0)")
            continue
        worst = drift if worst is None else max(worst, drift)
    if bad > max_failures:
        failures.append(f"... and {bad - max_failures} more regions where V does not decrease")
    if failures or worst is None:
        return Check.failed(failures, partial={"regions": len(regions), "cells": len(cells), "K": K, "classes": groups})
    return Check.passed(
        LagTableFacts(
            regions=len(regions),
            cells=len(cells),
            K=K,
            classes=groups,
            delta=Fraction(-worst, S * T),
            exceptional_max_queue=K,
        )
    )
