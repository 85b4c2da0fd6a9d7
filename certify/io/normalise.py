"""The unit of time of a network file: rates outside [1e-9, 1e9] are divided by the largest rate.

Stability does not depend on the unit of time: multiplying every rate (service
rates, arrival rates, the phase rates of explicit laws) by one constant c > 0
only runs the process c times faster, so the verdict and every certificate are
those of the network with the rates divided by c.  The loader keeps the rates
as written when they all lie in ``[RATE_MIN, RATE_MAX]`` = [1e-9, 1e9], so
existing networks, reports and certificates are unchanged; otherwise it
divides every rate, exactly, by the largest one (the largest becomes 1; when
the rates span more than 1e9, by 1e9 times the smallest, which becomes 1e-9),
so that the rates of a loaded network always lie in [1e-9, 1e9], says
so in a note (:attr:`Network.notes <certify.core.model.Network.notes>`) and
records the factor in the extra field :data:`RATE_UNIT_FIELD`, so that
:func:`certify.io.loader.to_dict` (and the sweeps and boundary searches that
vary fields of that document) write the rates back in the file's own unit.
Such a network is the network of its normalised file: same digest, so a
certificate made for either verifies against both.

The spread of the rates stays bounded: the largest may be at most
:data:`MAX_RATE_RATIO` = 10^18 times the smallest (what [1e-9, 1e9] allowed
before), and every number keeps its digit bound (:mod:`certify.io.number_fields`).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import TypeVar

from ..core.model import Distribution, ForkJoinNetwork, Network
from .context import Context, brief, key_path
from .number_fields import RATE_MAX, RATE_MIN

__all__ = ["MAX_RATE_RATIO", "RATE_UNIT_FIELD", "normalise", "rate_unit", "in_file_units", "scale_rates"]

#: The largest allowed ratio of the largest rate of a network to its smallest.
MAX_RATE_RATIO = Fraction(10**18)
#: The extra field recording the factor every rate was divided by (reserved: a file may not write it).
RATE_UNIT_FIELD = "x-certify-rate-unit"

N = TypeVar("N", Network, ForkJoinNetwork)


def _rates(net: Network | ForkJoinNetwork) -> list[tuple[str, Fraction]]:
    """Every rate of the network with its field path."""
    if isinstance(net, ForkJoinNetwork):
        return [("rate", net.rate)] + [(key_path(key_path("servers", s), "mu"), mu) for s, mu in net.servers]
    out: list[tuple[str, Fraction]] = []

    def law(path: str, d: Distribution) -> None:
        rates = d.get("rates", ())
        assert isinstance(rates, tuple)  # the phase rates of an explicit law, () for the others
        out.extend((f"{path}.rates[{i}]", r) for i, r in enumerate(rates))

    for s in net.stations:
        p = key_path("stations", s.id)
        out.append((key_path(p, "mu"), s.mu))
        law(key_path(p, "service"), s.service)
    for i, sm in enumerate(net.streams):
        out.append((f"streams[{i}].rate", sm.rate))
        law(f"streams[{i}].interarrival", sm.interarrival)
    return out


def _law(d: Distribution, c: Fraction) -> Distribution:
    if d.get("rates") is None:
        return d
    return Distribution(d.dist, tuple((k, tuple(r / c for r in v) if k == "rates" else v) for k, v in d.params))


def scale_rates(net: N, c: Fraction) -> N:
    """The network with every rate divided by ``c`` (exactly); probabilities and shapes unchanged.

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        The network.
    c : Fraction
        The factor, > 0.

    Returns
    -------
    Network or ForkJoinNetwork
        The same network in a unit of time ``c`` times longer.

    Examples
    --------
    >>> from certify.core.model import Station, Stream
    >>> net = Network("mm1", (Station("1", Fraction(4)),), (Stream(Fraction(2), choice=("1",)),))
    >>> scaled = scale_rates(net, Fraction(4))
    >>> scaled.stations[0].mu, scaled.streams[0].rate
    (Fraction(1, 1), Fraction(1, 2))
    """
    if isinstance(net, ForkJoinNetwork):
        return replace(net, rate=net.rate / c, servers=tuple((s, mu / c) for s, mu in net.servers))
    stations = tuple(replace(s, mu=s.mu / c, service=_law(s.service, c)) for s in net.stations)
    streams = tuple(replace(sm, rate=sm.rate / c, interarrival=_law(sm.interarrival, c)) for sm in net.streams)
    return replace(net, stations=stations, streams=streams)


def rate_unit(net: Network | ForkJoinNetwork) -> Fraction:
    """The factor the loader divided every rate of ``net`` by (1 when the rates were kept as written).

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        A loaded network.

    Returns
    -------
    Fraction
        The value of :data:`RATE_UNIT_FIELD`, else 1.

    Examples
    --------
    >>> from certify.io.loader import loads
    >>> rate_unit(loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 2e9}}, '
    ...                 '"streams": [{"choice": ["1"], "rate": 1e9}]}'))
    Fraction(2000000000, 1)
    """
    for k, v in net.extras:
        if k == RATE_UNIT_FIELD and isinstance(v, (str, int, float)):  # normalise writes it as a string
            return Fraction(v)
    return Fraction(1)


def in_file_units(net: N) -> N:
    """The network with its rates back in the unit of the file it was loaded from (the inverse of :func:`normalise`).

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        A loaded network.

    Returns
    -------
    Network or ForkJoinNetwork
        Every rate multiplied by :func:`rate_unit`, without :data:`RATE_UNIT_FIELD`;
        ``net`` itself when its rates were kept as written.

    Examples
    --------
    >>> from certify.io.loader import loads
    >>> net = loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 2e9}}, "streams": [{"choice": ["1"], "rate": 1e9}]}')
    >>> net.stations[0].mu, in_file_units(net).stations[0].mu
    (Fraction(1, 1), Fraction(2000000000, 1))
    """
    c = rate_unit(net)
    if c == 1:
        return net
    return replace(scale_rates(net, 1 / c), extras=tuple((k, v) for k, v in net.extras if k != RATE_UNIT_FIELD))


def normalise(ctx: Context, net: N) -> N:
    """The network the loader returns: rates as written when in [1e-9, 1e9], else divided by the largest.

    Parameters
    ----------
    ctx : Context
        Where errors point; receives the note when the rates are divided.
    net : Network or ForkJoinNetwork
        The network as built from the document (rates as written, or derived from explicit phases).

    Returns
    -------
    Network or ForkJoinNetwork
        ``net``, or ``net`` with every rate divided by the largest one (by
        1e9 times the smallest when the rates span more than 1e9), so that
        the rates of a loaded network always lie in [1e-9, 1e9]; with the note
        in its ``notes`` (a JSQ network) and the factor in :data:`RATE_UNIT_FIELD`.

    Raises
    ------
    NetworkError
        When the largest rate is more than :data:`MAX_RATE_RATIO` times the smallest,
        naming the smallest.

    Examples
    --------
    >>> from certify.core.model import Station, Stream
    >>> net = Network("fast", (Station("1", Fraction(4 * 10**9)),), (Stream(Fraction(10**9), choice=("1",)),))
    >>> ctx = Context("fast.json")
    >>> fast = normalise(ctx, net)
    >>> fast.stations[0].mu, fast.streams[0].rate, fast.extras
    (Fraction(1, 1), Fraction(1, 4), (('x-certify-rate-unit', '4000000000'),))
    >>> print(ctx.notes[0][:64])
    rates: stations.1.mu = 4000000000 is above 1e9; every rate is di
    >>> slow = Network("slow", (Station("1", Fraction(10**10)),), (Stream(Fraction(1, 10**9), choice=("1",)),))
    >>> normalise(Context("slow.json"), slow)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: slow.json: streams[0].rate: 0.000000001 is 1e+19 times smaller than the largest rate, ...
    """
    rates = _rates(net)
    lo_path, lo = min(rates, key=lambda r: r[1])
    hi_path, hi = max(rates, key=lambda r: r[1])
    if hi > MAX_RATE_RATIO * lo:
        ctx.fail(lo_path, f"{brief(lo)} is {float(hi / lo):.3g} times smaller than the largest rate, {hi_path} = "
                 f"{brief(hi)} (the largest rate of a network may be at most 1e18 times its smallest)")
    if RATE_MIN <= lo and hi <= RATE_MAX:
        return net
    why = f"{hi_path} = {brief(hi)} is above 1e9" if hi > RATE_MAX else (
        f"the smallest, {lo_path} = {brief(lo)}, is below 1e-9, and the largest is {hi_path} = {brief(hi)}")
    c, what = hi, "it" if hi > RATE_MAX else "the largest"
    if lo / hi < RATE_MIN:  # dividing by the largest would leave the smallest below 1e-9
        c, what = lo / RATE_MIN, f"{brief(lo / RATE_MIN)} (the smallest rate times 1e9, as the rates span more than 1e9)"
    ctx.note(f"rates: {why}; every rate is divided by {what}, exactly (a change of the unit of time, on which "
             f"stability does not depend), so every rate lies in [1e-9, 1e9] and times are in units of {brief(1 / c)} "
             "of the file's; every stage, certificate and report uses the divided rates")
    out = replace(scale_rates(net, c), extras=tuple(sorted(net.extras + ((RATE_UNIT_FIELD, str(c)),))))
    if isinstance(out, Network):
        return replace(out, notes=tuple(ctx.notes))
    return out
