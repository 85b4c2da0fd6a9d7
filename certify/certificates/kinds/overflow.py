"""The ``overflow-foster`` and ``overflow-growth`` certificates: one uncapped station, f = x_u + h(capped levels).

The payload is the uncapped station (``station``) and the table (``table``:
one canonical rational per vector of capped levels, keyed by the levels of the
capped stations in the network's order joined by commas, e.g. ``"0,2"``); the
checker (:func:`certify.exact.overflow.check_overflow`) re-derives the drift at
every vector, delta, the level L, the drain order and, for growth, the
reachability it needs.  The theorem is in ``docs/math/capacities.md``.  Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ...core.certificate import Certificate
from ...core.envelope import seal
from ...core.errors import CertificateError
from ...core.jsontypes import JsonObject
from ...core.model import Network
from ...core.numbers import q
from ...exact.facts import Check, OverflowFacts
from ...exact.overflow import MAX_OVERFLOW_STATES, OVERFLOW_SIDES, capped_count, capped_levels, check_overflow
from ...markov.chain import Chain
from ...markov.laws import NotPhaseType
from ...markov.phases import markov_chain
from ..reading import Reading, cell_key, field_map, named_rationals
from .base import Kind, fixed_statement

__all__ = ["OVERFLOW_STATEMENTS", "overflow_claims", "overflow_certificate", "read_overflow"]

#: What each overflow kind proves (semantics, statement): derived, never read from a file.
OVERFLOW_STATEMENTS: dict[str, tuple[str, str]] = {
    "overflow-foster": (
        "markovian",
        "Every station but `station` has a capacity; f = x_station + h(capped levels) has drift <= -delta wherever "
        "x_station >= level (where the drift depends on the capped levels alone), and the empty state is reachable "
        "from every state: positive recurrent (Foster), for exponential service and interarrival times, with this "
        "network's tie-breaking and its capacities (a customer whose choice set holds only full stations is lost).",
    ),
    "overflow-growth": (
        "markovian",
        "Every station but `station` has a capacity; f = x_station + h(capped levels) has bounded increments and "
        "drift >= delta wherever x_station >= level, the empty state is reachable from every state, and from it "
        "a state with x_station >= level + (max h - min h): transient (Fayolle-Malyshev-Menshikov Thm 2.2.7), hence not positive "
        "recurrent, for exponential service and interarrival times, with this network's tie-breaking and its "
        "capacities (a customer whose choice set holds only full stations is lost).",
    ),
}


def overflow_claims(f: OverflowFacts) -> JsonObject:
    """The claims of an overflow certificate.

    Parameters
    ----------
    f : OverflowFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``station``, ``delta``, ``level`` and ``states``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> overflow_claims(OverflowFacts("2", F(11, 70), 3, 2))
    {'station': '2', 'delta': '11/70', 'level': 3, 'states': 2}
    """
    return {"station": f.station, "delta": q(f.delta), "level": f.level, "states": f.states}


def overflow_certificate(
    net: Network, chain: Chain, kind: str, u: int, table: Mapping[tuple[int, ...], Fraction], check: Check[OverflowFacts]
) -> Certificate:
    """An overflow certificate (stability or instability with one uncapped station), exactly checked.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain
        Its exponential chain.
    kind : str
        ``overflow-foster`` or ``overflow-growth``.
    u : int
        The uncapped station.
    table : mapping of level vector to Fraction
        The table h.
    check : Check of OverflowFacts
        The passing :func:`~certify.exact.overflow.check_overflow` of the table.

    Returns
    -------
    Certificate
        The sealed certificate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.exact.overflow import check_overflow
    >>> from certify.markov.chain import compile_chain
    >>> net = Network("spill", (Station("1", F(1), capacity=1), Station("2", F(1))), (Stream(F(9, 5), choice=("1", "2")),))
    >>> chain, h = compile_chain(net), {(0,): F(0), (1,): F(9, 14)}
    >>> cert = overflow_certificate(net, chain, "overflow-growth", 1, h, check_overflow(chain, [1, None], 1, h, "overflow-growth"))
    >>> cert["kind"], cert["station"], cert["table"], cert["claims"]["delta"]
    ('overflow-growth', '2', {'0': '0', '1': '9/14'}, '11/70')
    """
    payload = {"station": chain.ids[u], "table": {cell_key(y): q(v) for y, v in sorted(table.items())}}
    return seal(net, kind, payload, overflow_claims(check.facts), *OVERFLOW_STATEMENTS[kind])


def read_overflow(net: Network, cert: Mapping[str, Any]) -> Reading | str:
    """Read an overflow certificate: the uncapped station and one canonical rational per capped level vector.

    Parameters
    ----------
    net : Network
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading or str
        The arguments of :func:`certify.exact.overflow.check_overflow`, or why the kind does not apply.

    Raises
    ------
    CertificateError
        When ``station`` is not a station id or ``table`` does not name exactly the capped level vectors.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> net = Network("spill", (Station("1", F(1), capacity=1), Station("2", F(1))), (Stream(F(9, 5), choice=("1", "2")),))
    >>> read_overflow(net, {"kind": "overflow-growth", "station": "2", "table": {"0": "0", "1": "9/14"}}).args[2:4]
    (1, {(0,): Fraction(0, 1), (1,): Fraction(9, 14)})
    >>> read_overflow(net, {"kind": "overflow-growth", "station": "1", "table": {}})
    'station: station 1 has a capacity (1); an overflow certificate is about the one station without one'
    >>> from certify.core.model import Distribution
    >>> h2 = Network("h2", (Station("1", F(1), capacity=1), Station("2", F(1), Distribution("erlang", (("k", 2),)))), net.streams)
    >>> read_overflow(h2, {"kind": "overflow-growth", "station": "2", "table": {"0": "0", "1": "9/14"}})
    'the network has non-exponential laws; an overflow certificate is for exponential laws only'
    """
    try:
        chain = markov_chain(net)
    except NotPhaseType as exc:
        return f"the network has no Markovian form ({exc}); an overflow certificate is for exponential laws"
    if chain.has_phases:
        return "the network has non-exponential laws; an overflow certificate is for exponential laws only"
    station = cert.get("station")
    if not isinstance(station, str) or station not in chain.ids:
        raise CertificateError(None, "station", f"must be a station id (one of {', '.join(chain.ids)}), got {station!r}")
    u = chain.ids.index(station)
    caps = [s.capacity for s in net.stations]
    if caps[u] is not None:
        return f"station: station {station} has a capacity ({caps[u]}); an overflow certificate is about the one station without one"
    free = [chain.ids[j] for j in range(chain.J) if caps[j] is None]
    if len(free) == chain.J:
        return "station: no station of the network has a capacity; an overflow certificate needs every other one capped"
    if free != [station]:
        return f"station: every other station must have a capacity, but {', '.join(s for s in free if s != station)} has none"
    count = capped_count(caps)
    if count > MAX_OVERFLOW_STATES:
        return f"table: the capped stations have {count} level vectors (limit {MAX_OVERFLOW_STATES})"
    levels = {cell_key(y): y for y in capped_levels(caps, u)}
    vals = named_rationals(field_map(cert, "table"), list(levels), "table")
    kind = str(cert.get("kind"))
    assert kind in OVERFLOW_SIDES  # the verifier dispatches only these kinds here
    return Reading((chain, caps, u, {levels[k]: v for k, v in vals.items()}, kind), chain=chain)


FOSTER = Kind("overflow-foster", "stable", ("station", "table"), read_overflow, check_overflow, overflow_claims,
              fixed_statement(OVERFLOW_STATEMENTS["overflow-foster"]), "certify.explain.overflow:explain_overflow", capacities=True)
GROWTH = Kind("overflow-growth", "unstable", ("station", "table"), read_overflow, check_overflow, overflow_claims,
              fixed_statement(OVERFLOW_STATEMENTS["overflow-growth"]), "certify.explain.overflow:explain_overflow", capacities=True)
