"""The capacity of a fork-join network with redundancy, and the theorem it decides.

Model quantities of the (n,k) system of the fork-join redundancy paper (jobs at rate lam, each forked
to all n FCFS servers of exponential rates d_i, leaving when k tasks are done):
the rates, mu* = sum_i d_i, the throughput capacity theta, the servers it caps,
the fork-join paper's maximal-design criterion and the traffic intensity rho.

Capacity (water-filling).  theta = min over sets R of at most k-1 servers of
d(R^c) / (k - ``|R|``), attained by R = the ``|R|`` fastest servers; it is the root of
sum_i min(d_i, theta) = k theta.  theta = mu*/k exactly when max d_i <= mu*/k
(the maximal designs of the fork-join redundancy paper); rho = k lam / mu*.  The system is stable iff
lam < theta (:func:`fork_join`).  Exact (Fractions), numpy-free.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from ..core.model import ForkJoinNetwork
from ..core.numbers import approx_str
from ..exact.verdict import TheoremVerdict, sign, verdict_of

__all__ = [
    "server_rates",
    "mu_star",
    "throughput_capacity",
    "capped_servers",
    "maximal_design",
    "traffic_intensity",
    "fork_join",
]


def server_rates(net: ForkJoinNetwork) -> list[Fraction]:
    """The static service rates d_i, in the file's server order.

    Parameters
    ----------
    net : ForkJoinNetwork
        The fork-join network.

    Returns
    -------
    list of Fraction
        One rate per server.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(9, 25), (("1", F(3, 5)), ("2", F(1, 5)), ("3", F(1, 5))))
    >>> server_rates(net)
    [Fraction(3, 5), Fraction(1, 5), Fraction(1, 5)]
    """
    return [Fraction(mu) for _, mu in net.servers]


def mu_star(net: ForkJoinNetwork) -> Fraction:
    """The total service capacity mu* = sum_i d_i.

    Parameters
    ----------
    net : ForkJoinNetwork
        The fork-join network.

    Returns
    -------
    Fraction
        mu*.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(9, 25), (("1", F(3, 5)), ("2", F(1, 5)), ("3", F(1, 5))))
    >>> mu_star(net)
    Fraction(1, 1)
    """
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

    Parameters
    ----------
    net : ForkJoinNetwork
        The fork-join network.

    Returns
    -------
    Fraction
        theta: the largest job rate the servers can sustain.

    Examples
    --------
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
    """The servers faster than theta (the water level caps them at theta).

    Parameters
    ----------
    net : ForkJoinNetwork
        The fork-join network.

    Returns
    -------
    list of str
        Their ids, in the file's order (the set R of the capacity bound).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(9, 25), (("1", F(3, 5)), ("2", F(1, 5)), ("3", F(1, 5))))
    >>> capped_servers(net)
    ['1']
    """
    d = server_rates(net)
    return [net.servers[i][0] for i in _capped(d, net.k)[0]]


def maximal_design(net: ForkJoinNetwork) -> bool:
    """Seed 003's maximal-design criterion: the fastest rate is at most mu*/k.

    Parameters
    ----------
    net : ForkJoinNetwork
        The fork-join network.

    Returns
    -------
    bool
        True when max_i d_i <= mu*/k (then theta = mu*/k).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(9, 25), (("1", F(3, 5)), ("2", F(1, 5)), ("3", F(1, 5))))
    >>> maximal_design(net)
    False
    """
    return max(server_rates(net)) * net.k <= mu_star(net)


def traffic_intensity(net: ForkJoinNetwork) -> Fraction:
    """rho = k lam / mu* (the fork-join paper's nominal traffic intensity).

    Parameters
    ----------
    net : ForkJoinNetwork
        The fork-join network.

    Returns
    -------
    Fraction
        rho.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(9, 25), (("1", F(3, 5)), ("2", F(1, 5)), ("3", F(1, 5))))
    >>> traffic_intensity(net)
    Fraction(18, 25)
    """
    return net.k * Fraction(net.rate) / mu_star(net)


def fork_join(net: ForkJoinNetwork) -> TheoremVerdict:
    """Seed 003 for an (n,k) fork-join network with redundancy: stable iff lam < theta (exponential servers).

    Hypotheses: Poisson jobs and exponential servers (the ``fork-join-redundancy/1``
    format has no other laws), static rates d_i; semantics ``markovian``.  The
    unstable side (lam > theta) is the capacity bound (any arrival process with
    this rate); lam = theta is ``critical`` (no verdict).

    Parameters
    ----------
    net : ForkJoinNetwork
        The fork-join network.

    Returns
    -------
    TheoremVerdict
        The verdict, proved unless critical.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> fj = ForkJoinNetwork("n3k2", 3, 2, F(36, 100), (("1", F(6, 10)), ("2", F(2, 10)), ("3", F(2, 10))))
    >>> fork_join(fj).verdict, fork_join(fj).numbers.split(";")[0]
    ('stable', 'theta = 0.4 (water-filling)')
    """
    theta = throughput_capacity(net)
    lam = Fraction(net.rate)
    verdict = verdict_of(sign(lam, theta))
    return TheoremVerdict(
        "fork-join with redundancy: lam < theta",
        verdict,
        "'Stability of Fork-Join Systems with Redundancy and Heterogeneous Servers'; theta from "
        "sum_i min(d_i, theta) = k theta",
        f"theta = {float(theta):.6g} (water-filling); lam/theta = {approx_str(lam / theta)}; rho = k lam/mu* = "
        f"{float(traffic_intensity(net)):.6g}; maximal design: {maximal_design(net)}",
        semantics="markovian",
        hypotheses=("exponential servers", "Poisson jobs", "static rates d_i"),
        proved=verdict != "critical",
        missing=() if verdict != "critical" else ("lam = theta (critical): the theorem gives no verdict",),
    )
