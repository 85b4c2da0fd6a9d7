"""Hypotheses of the theorems behind general-distribution verdicts, checked on a network (exact, numpy-free).

Dai's fluid theorem (Dai 1995; for JSQ networks Foss–Chernova 1998,
Dai–Hasenbein–Kim 2007, Bramson 2011 Thm 1.2 and conditions (1.11)–(1.12))
turns a stable fluid model into positive Harris recurrence only when every
exogenous interarrival law is

* **unbounded**: P(T > t) > 0 for every t, and
* **spread out**: some convolution power has a non-trivial absolutely
  continuous part.

Service laws need only i.i.d. times with the given finite means.  Every law of
the file format but ``deterministic`` has a density on (0, inf), so it meets
both conditions; a deterministic interarrival time meets neither (a D/D/1 queue
is periodic: it has one invariant law per phase and is not positive Harris
recurrent).  Instability arguments from flow balance need no such condition.
"""

from __future__ import annotations

from .model import Distribution, Network

__all__ = ["DAI_CONDITIONS", "spread_out_and_unbounded", "dai_violations"]

#: Dai's conditions in words, as verdicts name them.
DAI_CONDITIONS = "every interarrival law unbounded and spread out (Dai 1995)"


def spread_out_and_unbounded(law: Distribution) -> bool:
    """True when ``law`` is unbounded and spread out (every law with a density on (0, inf)).

    Parameters
    ----------
    law : Distribution
        An interarrival law.

    Returns
    -------
    bool
        False only for ``deterministic``.

    Examples
    --------
    >>> from certify.core.model import Distribution
    >>> spread_out_and_unbounded(Distribution("erlang", (("k", 3),)))
    True
    >>> spread_out_and_unbounded(Distribution("deterministic"))
    False
    """
    return law.dist != "deterministic"


def dai_violations(net: Network) -> list[str]:
    """The streams whose interarrival law breaks Dai's conditions, one sentence each (empty when they hold).

    Parameters
    ----------
    net : Network
        The network.

    Returns
    -------
    list of str
        One sentence per stream whose law is not unbounded and spread out.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Distribution, Network, Station, Stream
    >>> dd1 = Network("dd1", (Station("1", F(2), Distribution("deterministic")),),
    ...               (Stream(F(1), choice=("1",), interarrival=Distribution("deterministic")),))
    >>> dai_violations(dd1)
    ['streams[0]: deterministic interarrival times are bounded and not spread out']
    """
    return [
        f"streams[{k}]: {st.interarrival.dist} interarrival times are bounded and not spread out"
        for k, st in enumerate(net.streams)
        if not spread_out_and_unbounded(st.interarrival)
    ]
