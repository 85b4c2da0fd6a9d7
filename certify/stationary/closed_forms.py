"""Closed forms and the networks they apply to.

The closed-form blocking probability of the symmetric two-queue loss system
(Dester, Fricker and Tibi, Queueing Systems 87, 2017) is built in as a
cross-check of the sparse solve (:func:`loss2_blocking`, recognised by
:func:`symmetric_loss2`); :func:`parallel_jsq` recognises parallel JSQ, whose
minimum queue has the tail-decay rate rho^k (:mod:`certify.stationary.qbd`),
and :func:`jsq_tail_theorem` gives that rate exactly where its theorem applies.
"""

from __future__ import annotations

from fractions import Fraction

from ..core.model import Network

__all__ = ["loss2_blocking", "symmetric_loss2", "parallel_jsq", "jsq_tail_theorem"]


def loss2_blocking(rho: Fraction | float, K: int) -> Fraction | float:
    """Blocking probability of the symmetric two-queue JSQ loss system (closed form).

    Two exponential servers of rate mu, capacity K each (the customer in service
    included), Poisson arrivals of rate lam join the shorter queue (fair ties),
    an arrival finding (K, K) is lost; ``rho = lam / (2 mu)``.  Dester, Fricker
    and Tibi (2017):

        P_block(K) = rho^(2K) / (sum_{j=0}^{2K} rho^j - sum_{m=1}^{K} rho^(m-1) 2^(-m)).

    Parameters
    ----------
    rho : Fraction or float
        The load ``lam / (2 mu)``; the result is exact when it is a Fraction.
    K : int
        The capacity of each station (>= 1).

    Returns
    -------
    Fraction or float
        The blocking probability (the type of ``rho``).

    Raises
    ------
    ValueError
        When ``K < 1``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> loss2_blocking(F(1, 2), 2)
    Fraction(1, 21)
    >>> round(loss2_blocking(0.5, 2), 12)
    0.047619047619
    """
    if K < 1:
        raise ValueError(f"capacity K = {K} must be >= 1")
    one = Fraction(1) if isinstance(rho, Fraction) else 1.0
    num = rho ** (2 * K)
    den = sum((rho**j for j in range(2 * K + 1)), one * 0) - sum((rho ** (m - 1) * one / 2**m for m in range(1, K + 1)), one * 0)
    return num / den


def symmetric_loss2(net: Network) -> tuple[Fraction, int] | None:
    """``(rho, K)`` when ``net`` is the symmetric two-queue loss system of :func:`loss2_blocking`, else None.

    That is: two exponential stations with equal rates mu and equal capacities K,
    exponential arrivals that all choose both stations, fair ties, no feedback.

    Parameters
    ----------
    net : Network
        Any network (a fork-join network gives None).

    Returns
    -------
    tuple of (Fraction, int) or None
        The load ``rho = lam / (2 mu)`` and the capacity ``K``, or None when
        ``net`` is not that system.

    Examples
    --------
    >>> from certify.io.loader import from_dict
    >>> net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 1, "capacity": 2},
    ...     "2": {"mu": 1, "capacity": 2}}, "streams": [{"choice": ["1", "2"], "rate": 1}]})
    >>> symmetric_loss2(net)
    (Fraction(1, 2), 2)
    """
    if not isinstance(net, Network) or net.J != 2 or not net.is_markovian:
        return None
    a, b = net.stations
    if a.mu != b.mu or a.capacity is None or a.capacity != b.capacity:
        return None
    lam = _full_choice_rate(net)
    if lam is None:
        return None
    probs = net.tie_probs(net.station_ids)
    if len(set(probs.values())) != 1:
        return None
    return lam / (2 * a.mu), a.capacity


def parallel_jsq(net: Network) -> tuple[Fraction, tuple[Fraction, ...]] | None:
    """``(lam, mu)`` when ``net`` is parallel JSQ, else None.

    Parallel JSQ: exponential, no capacity, no feedback, every arrival choosing
    among all stations.

    Parameters
    ----------
    net : Network
        Any network (a fork-join network gives None).

    Returns
    -------
    tuple of (Fraction, tuple of Fraction) or None
        The total arrival rate and the service rates in model order, or None.

    Examples
    --------
    >>> from certify.io.loader import from_dict
    >>> parallel_jsq(from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 1}, "2": {"mu": 2}},
    ...     "streams": [{"choice": ["1", "2"], "rate": 2.4}]}))
    (Fraction(12, 5), (Fraction(1, 1), Fraction(2, 1)))
    """
    if not isinstance(net, Network) or not net.is_markovian or net.has_capacities:
        return None
    lam = _full_choice_rate(net)
    return None if lam is None else (lam, tuple(st.mu for st in net.stations))


def jsq_tail_theorem(net: Network) -> Fraction | None:
    """rho^k, exactly, when the theorem of Kobayashi, Sakuma and Miyazawa (2013) applies to ``net``; else None.

    Kobayashi, Sakuma and Miyazawa (Queueing Systems 74, 2013) prove that the
    minimum queue of M/M-JSQ has an exactly geometric tail with decay rate
    rho^k, rho = lam / sum mu.  Their hypotheses, each checked exactly on the
    network: k >= 2 stations with exponential service of any rates and no
    capacity, Poisson arrivals (every stream exponential) that all choose the
    shortest queue among all k stations (:func:`parallel_jsq`: no feedback, no
    partial choice sets), ties broken with equal probabilities, and lam < sum mu
    (positive recurrence).

    Parameters
    ----------
    net : Network
        Any network (a fork-join network gives None).

    Returns
    -------
    Fraction or None
        rho^k, or None where a hypothesis fails.

    Examples
    --------
    >>> from certify.io.loader import from_dict
    >>> ids = ["1", "2", "3", "4", "5"]
    >>> net = from_dict({"format": "jsq-network/1", "stations": {i: {"mu": m} for i, m in
    ...     zip(ids, ["0.4", "0.8", "1.0", "1.3", "1.5"])}, "streams": [{"choice": ids, "rate": "4.5"}]})
    >>> jsq_tail_theorem(net), float(jsq_tail_theorem(net))
    (Fraction(59049, 100000), 0.59049)
    """
    par = parallel_jsq(net)
    if par is None or net.J < 2:
        return None
    lam, mus = par
    if not 0 < lam < sum(mus):
        return None
    for tb in net.tie_breaking:
        probs = [p for _, p in tb.probs]
        if len(probs) != len(tb.set) or len(set(probs)) != 1:
            return None
    return (lam / sum(mus)) ** net.J


def _full_choice_rate(net: Network) -> Fraction | None:
    """The total arrival rate when there is no feedback and every arrival chooses among all stations, else None."""
    if any(f.prob for f in net.feedback):
        return None
    every = set(net.station_ids)
    lam = Fraction(0)
    for s in net.streams:
        for ids, r in s.routing_sets():
            if set(ids) != every:
                return None
            lam += r
    return lam
