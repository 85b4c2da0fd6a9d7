"""The fork-join prover: capacity bound, the (k,k) quadratic, then the search for a Foster lag table.

The exact checks live in :mod:`certify.exact.forkjoin`, the certificate
writers in :mod:`certify.certificates.kinds` (``fork_join_*``); the numeric search (numpy and a
solver) in :mod:`certify.search.forkjoin`, imported only when a table is searched.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..certificates import capacity_certificate, forkjoin_foster_certificate, independent_certificate
from ..core.certificate import Certificate
from ..core.model import ForkJoinNetwork
from ..core.vocabulary import Semantics, Verdict
from ..exact.facts import Check
from ..exact.forkjoin import LagTableFacts, check_capacity, check_independent
from ..exact.forkjoin_capacity import capped_servers, maximal_design, mu_star, throughput_capacity, traffic_intensity
from ..exact.forkjoin_lags import State, count_patterns, equal_rate_classes

__all__ = ["ForkJoinOutcome", "find_foster_table", "prove_forkjoin", "FOSTER_K"]


@dataclass
class ForkJoinOutcome:
    """What :func:`prove_forkjoin` found.

    Attributes
    ----------
    verdict : Verdict
        ``stable``, ``unstable`` or ``undecided``.
    semantics : Semantics
        ``markovian`` (Poisson jobs, exponential servers).
    method : str
        The certificate's kind, in words.
    reasons : list of str
        Why, in words: the capacity, rho, and what proved the verdict.
    certificate : dict or None
        The sealed certificate of the verdict.
    attempts : list of tuple
        (stage, size, seconds, outcome), one per stage tried.
    facts : dict
        The model quantities: ``theta``, ``rho``, ``maximal_design``, ``mu_star``, ``capped``.

    Examples
    --------
    >>> ForkJoinOutcome().verdict
    'undecided'
    """

    verdict: Verdict = "undecided"
    semantics: Semantics = "markovian"
    method: str = "none"
    reasons: list[str] = field(default_factory=list)
    certificate: Certificate | None = None
    attempts: list[tuple[str, str, float, str]] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)


# Clip levels tried for the Lyapunov table, and the largest problems (orbits) attempted.
FOSTER_K = (4, 6, 8, 12, 16, 24, 32, 48, 64)
MAX_CELLS = 40_000
MAX_REGIONS = 100_000


def find_foster_table(
    net: ForkJoinNetwork, *, solver: str | None = None, deadline: float | None = None, Ks: Sequence[int] = FOSTER_K
) -> tuple[tuple[int, dict[State, Fraction], Check[LagTableFacts]] | None, list[tuple[str, str, float, str]], list[str]]:
    """Search V = N + h(min(L, K)) for K in ``Ks``, smallest first, until a table passes the exact check.

    Parameters
    ----------
    net : ForkJoinNetwork
        The network.
    solver : str, optional
        The cvxpy solver for the LP searches.
    deadline : float, optional
        A :func:`time.perf_counter` time after which no new K is started.
    Ks : sequence of int
        The clip levels to try (problems beyond ``MAX_CELLS`` cells or
        ``MAX_REGIONS`` regions are not attempted).

    Returns
    -------
    found : tuple or None
        (K, table, its passing check), or None.
    attempts : list of tuple
        (stage, size, seconds, outcome) per search run.
    notes : list of str
        Why the search stopped, when it found nothing.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(3, 10), (("1", F(1, 3)), ("2", F(1, 3)), ("3", F(1, 3))))
    >>> (K, table, chk), attempts, notes = find_foster_table(net, Ks=(1,))
    >>> K, chk.facts.regions, notes
    (1, 3, [])
    """
    from ..search.forkjoin import search_table

    classes = equal_rate_classes(net)
    attempts: list[tuple[str, str, float, str]] = []
    notes: list[str] = []
    for K in Ks:
        if deadline is not None and time.perf_counter() > deadline:
            notes.append(f"time limit reached before the Lyapunov table with K = {K}")
            break
        label = f"Foster V = N + h(min(lags, {K}))"
        size = count_patterns(net.n, net.k, K + 1, classes)
        ncells = count_patterns(net.n, net.k, K, classes)
        if size > MAX_REGIONS or ncells > MAX_CELLS:
            attempts.append((label, f"{ncells} cells, {size} regions", 0.0, "skipped (too large)"))
            notes.append(f"the Lyapunov table with K = {K} would have {ncells} cells and {size} regions: not attempted")
            break
        t0 = time.perf_counter()
        searches, table, chk = search_table(net, K, classes, solver=solver)
        for srch in searches:
            outcome = srch.outcome
            if srch is searches[-1] and chk is not None:
                outcome += (f"; exact check passed on {size} regions (delta = {float(chk.facts.delta):.3g})" if chk.ok
                            else f"; exact check failed: {chk.failures[0]}")
            attempts.append((f"{label} [{srch.method}]", srch.size, time.perf_counter() - t0 if srch is searches[-1]
                             else srch.solve_s, outcome))
        if table is not None and chk is not None and chk.ok:
            return (K, table, chk), attempts, notes
    else:
        notes.append(f"no Lyapunov table found up to K = {Ks[-1]}")
    return None, attempts, notes


def prove_forkjoin(
    net: ForkJoinNetwork, *, solver: str | None = None, deadline: float | None = None, Ks: Sequence[int] = FOSTER_K
) -> ForkJoinOutcome:
    """Decide stability of a fork-join network.

    lam > theta: the capacity bound (unstable; flow balance, so it holds for any
    arrival process with this rate, though the verdict is reported with the
    format's ``markovian`` semantics); lam = theta: ``critical``, undecided (neither
    certificate applies on the boundary); lam < theta: V = sum Q_i^2 when k = n,
    else the Foster table V = N + h(min(L, K)) -- positive recurrence of the CTMC,
    for Poisson jobs and exponential servers only (the hypotheses of the fork-join redundancy paper).

    Parameters
    ----------
    net : ForkJoinNetwork
        The network.
    solver : str, optional
        The cvxpy solver for the table searches.
    deadline : float, optional
        A :func:`time.perf_counter` time after which no new table search is started.
    Ks : sequence of int
        The clip levels tried for the table.

    Returns
    -------
    ForkJoinOutcome
        The verdict, its certificate, the reasons and the attempts.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> over = ForkJoinNetwork("n3k2", 3, 2, F(1, 2), (("1", F(3, 5)), ("2", F(1, 5)), ("3", F(1, 5))))
    >>> out = prove_forkjoin(over)
    >>> out.verdict, out.certificate["kind"]
    ('unstable', 'fork-join-capacity')
    """
    res = ForkJoinOutcome()
    lam = Fraction(net.rate)
    theta = throughput_capacity(net)
    rho = traffic_intensity(net)
    maximal = maximal_design(net)
    capped = capped_servers(net)
    ms = mu_star(net)
    res.facts.update(theta=theta, rho=rho, maximal_design=maximal, mu_star=ms, capped=capped)
    res.reasons.append(
        f"throughput capacity theta = {_num(theta)} (sum_i min(d_i, theta) = k theta; servers faster than theta: "
        f"{','.join(capped) or 'none'}); job rate lam = {_num(lam)}, lam/theta = {float(lam / theta):.6g}"
    )
    res.reasons.append(
        f"rho = k lam/mu* = {_num(rho)}; static design {'maximal' if maximal else 'not maximal'} "
        f"(max d_i {'<=' if maximal else '>'} mu*/k = {_num(ms / net.k)}), so this design is stable iff "
        f"rho < {_num(net.k * theta / ms)}" + (" (fork-join redundancy theorem)" if maximal else "")
    )
    t0 = time.perf_counter()
    if lam > theta:
        chk = check_capacity(net, capped)
        res.attempts.append(("capacity bound (flow balance)", f"{net.n} servers, k={net.k}", time.perf_counter() - t0,
                             "lam > theta, exact check passed" if chk.ok else f"exact check failed: {chk.failures[0]}"))
        if chk.ok:
            res.verdict, res.method = "unstable", "fork-join capacity bound (flow balance)"
            res.certificate = capacity_certificate(net, capped, chk)
            res.reasons.append(
                f"every departing job needs k = {net.k} tasks done at distinct servers, so the job throughput is at most "
                f"d(R^c)/(k-|R|) = {_num(chk.facts.bound)} < lam (R = {{{','.join(capped)}}}, checked exactly): "
                "the number of jobs grows linearly (transient), for any arrival process with this rate"
            )
        return res
    if lam == theta:
        res.reasons.append(
            "lam = theta: critically loaded (critical: on the stability boundary, where the theorem gives no verdict); "
            "neither certificate applies"
        )
        return res
    if net.k == net.n:
        kk = check_independent(net)
        res.attempts.append(("(k,k): V = sum Q_i^2", f"{net.n} M/M/1 queues", time.perf_counter() - t0,
                             "exact check passed" if kk.ok else f"exact check failed: {kk.failures[0]}"))
        if kk.ok:
            res.verdict, res.method = "stable", "fork-join (k,k) quadratic Foster-Lyapunov certificate"
            res.certificate = independent_certificate(net, kk)
            res.reasons.append(
                f"k = n: each server is an M/M/1 queue fed by every job; V = sum_i Q_i^2 has AV <= -1 whenever "
                f"|q|_1 >= {_num(kk.facts.bound)} (checked exactly): positive recurrent"
            )
            return res
    found, attempts, notes = find_foster_table(net, solver=solver, deadline=deadline, Ks=Ks)
    res.attempts.extend(attempts)
    res.reasons.extend(notes)
    if found is not None:
        K, table, passed = found
        res.verdict, res.method = "stable", "fork-join Foster-Lyapunov certificate (V = N + lag table)"
        res.certificate = forkjoin_foster_certificate(net, K, table, passed)
        res.reasons.append(
            f"V = N + h(min(N - Q, {K})): AV <= -{float(passed.facts.delta):.3g} at every state with more than "
            f"{K} jobs, on all {passed.facts.regions} regions of lag levels (checked exactly): positive recurrent "
            "for Poisson arrivals and exponential servers"
        )
    return res


def _num(x: Fraction) -> str:
    return str(x) if x.denominator <= 1000 else f"{float(x):.9g}"
