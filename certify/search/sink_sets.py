"""Wider sets of sinks: unions of routing sets of three or four stations, and the densest set (docs/math/sink.md).

The set-sink growth theorem and the sink-drain theorem hold for any set G of at most
:data:`~certify.exact.sink.MAX_SET` stations. The searches tried single stations and linked pairs; on random
feedback networks the stations that grow together at the boundary are often more: J = 8 seed 11 of
``bench/frontier.py`` has the face {1, 4, 5, 8} (streams {1}, {1, 4, 5} and {5, 8} inside it, forced feedback from
stations 6 and 7 into 1), and R' = {2, 3, 6, 7} then decides the rate JSQ sends into it. Nothing here is a new
certificate: only which sets the two sink stages try.

A set of stations that grows together must be filled by the routing sets inside it, so the sets listed are the
unions of routing sets (of streams, or choice sets of feedback) with three or four stations; and they are
*linked*: the routing sets inside G of two or more stations join all of G (a set that falls into parts no routing
set joins is tried as its parts: four exponential gadgets offered {s, a0, b0}, and its drain LPs took 20 s of a
probe that the separable certificates decide).
"""

from __future__ import annotations

from fractions import Fraction

from ..core.model import Network
from ..exact.drain import routing_sets
from ..exact.flows import max_ratio
from ..exact.fluid_flow import flow_weights
from ..exact.sink import MAX_SET
from ..markov.chain import compile_chain

__all__ = ["MAX_UNION_J", "UNION_LARGEST", "WIDE_SETS", "routing_unions", "densest_set"]

#: The most stations of a union of routing sets listed (the unions grow fast with their size; wider sets come from
#: :func:`densest_set`).
UNION_LARGEST = 4

#: The most stations of a network whose unions of routing sets are listed (beyond it the sink stages try single
#: stations and pairs only; the unions of small sets grow as J times the sets meeting a station, cubed).
MAX_UNION_J = 32
#: The most sets of three or four sinks each sink stage tries (after the single stations and the pairs).
WIDE_SETS = 2


def routing_unions(net: Network, smallest: int = 3, largest: int = UNION_LARGEST) -> list[tuple[str, ...]]:
    """The sets of ``smallest`` to ``largest`` stations that are unions of routing sets, linked by those inside them.

    Parameters
    ----------
    net : Network
        The network.
    smallest : int, optional
        The fewest stations of a set listed.
    largest : int, optional
        The most (default :data:`UNION_LARGEST`; at most :data:`~certify.exact.sink.MAX_SET`, which the theorems
        allow).

    Returns
    -------
    list of tuple of str
        Each set G in the network's station order (every station of G lies in a routing set inside G, and the
        routing sets inside G of two or more stations connect G), the list sorted by size and then by that order;
        empty on networks of more than :data:`MAX_UNION_J` stations.

    Examples
    --------
    Streams {1}, {1, 2}, {2, 3} and {3, 4}; {1, 3, 4} is a union ({1} and {3, 4}) but no routing set inside it
    joins 1 to the others:

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Station, Stream
    >>> net = Network("n", tuple(Station(s, F(1)) for s in "1234"),
    ...               tuple(Stream(F(1, 4), choice=C) for C in (("1",), ("1", "2"), ("2", "3"), ("3", "4"))))
    >>> routing_unions(net)
    [('1', '2', '3'), ('2', '3', '4'), ('1', '2', '3', '4')]
    """
    if len(net.stations) > MAX_UNION_J:
        return []
    order = {j: n for n, j in enumerate(net.station_ids)}
    base = {frozenset(C) for C in routing_sets(net) if len(C) <= largest}
    found = set(base)
    frontier = set(base)
    while frontier:
        grown = {A | B for A in frontier for B in base if not B <= A and len(A | B) <= largest}
        frontier = grown - found
        found |= frontier
    keep = [tuple(sorted(G, key=order.__getitem__)) for G in found
            if smallest <= len(G) <= largest and _linked(G, [C for C in base if len(C) > 1 and C <= G])]
    return sorted(keep, key=lambda G: (len(G), [order[j] for j in G]))


def _linked(G: frozenset[str], inside: list[frozenset[str]]) -> bool:
    """Whether the sets ``inside`` (each of two or more stations of G) connect every station of G."""
    reached = {next(iter(G))}
    grew = True
    while grew:
        grew = False
        for C in inside:
            if C & reached and not C <= reached:
                reached |= C
                grew = True
    return reached == G


def densest_set(net: Network) -> tuple[str, ...] | None:
    """The set of three to :data:`~certify.exact.sink.MAX_SET` stations that the routing sets inside it load most.

    The max-flow bound's tightest set with unit weights (:func:`~certify.exact.flows.max_ratio` of the rates of the
    routing sets inside it, feedback at mu_i p, over its capacity; the smallest such set): the stations that fill up
    together when the fluid model of the network is near its limit, while the others stay short. J = 8 seed 65 of
    ``bench/frontier.py`` (stop 47): {1, 2, 3, 5, 6, 7}, whose R' = {4, 8} takes what the sets shared with it send
    there; the drain proves it at load 0.988 and the growth at 0.995, where the linear fluid certificates stop at 0.97.

    Parameters
    ----------
    net : Network
        An exponential network.

    Returns
    -------
    tuple of str or None
        The set in station order, or None when it has fewer than three stations (the single sinks and pairs are
        listed otherwise), more than MAX_SET, or every station.

    Examples
    --------
    Stations 1-3 share streams that load them at 11/12 of their capacity; station 4 has its own light stream:

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Station, Stream
    >>> net = Network("n", tuple(Station(s, F(1)) for s in "1234"),
    ...               (Stream(F(3, 2), choice=("1", "2")), Stream(F(5, 4), choice=("2", "3")),
    ...                Stream(F(1, 4), choice=("3", "4")), Stream(F(1, 4), choice=("4",))))
    >>> densest_set(net)
    ('1', '2', '3')
    """
    chain = compile_chain(net)
    best = max_ratio(flow_weights(chain, [Fraction(1)] * chain.J), list(chain.mu))
    if not 3 <= len(best.argmax) <= MAX_SET or len(best.argmax) == chain.J:
        return None
    return tuple(chain.ids[j] for j in best.argmax)
