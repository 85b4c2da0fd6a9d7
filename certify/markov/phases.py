"""The phase-type expansion of a network (exact).

With every service and interarrival law phase-type (:mod:`certify.markov.laws`),
the network is again a CTMC, on (queue lengths, phases).
:func:`expand` builds that chain, :class:`PhaseChain`, a :class:`~certify.markov.chain.Chain`
whose states carry

* for every station with non-exponential service, the phase of the customer in
  service (``-1`` while the station is empty);
* for every stream with non-exponential interarrival times, the phase of the
  time to its next arrival.

Deterministic, lognormal and other gamma shapes have no finite phase
representation: :class:`~certify.markov.laws.NotPhaseType` says so (those networks belong to the
fluid certificates of general distributions).  So does an expansion too large
to build: a law with more than :data:`~certify.markov.laws.MAX_LAW_PHASES` phases, or more than
:data:`MAX_PHASE_VECTORS` phase vectors in all (the product over phase-type
stations of phases + 1 and over phase-type streams of phases), refused before
anything is built.

Every number comes from the network as loaded: the chain's mean rates are
1/mean of the phases, which :mod:`certify.io.loader` makes equal to ``mu`` (or the
stream's ``rate``); hyperexponential probabilities are used as loaded (they sum
to exactly 1), never re-normalised here.

Pure Python, exact: no numpy.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from itertools import product
from math import lcm

from ..core.model import Network
from .chain import Chain, compile_chain
from .laws import MAX_LAW_PHASES, NotPhaseType, PhaseType, phase_count, phase_type

__all__ = ["PhaseChain", "expand", "markov_chain", "MAX_PHASE_VECTORS"]

#: Most phase vectors of a phase-type expansion (:meth:`PhaseChain.phase_space`).
MAX_PHASE_VECTORS = 10_000


@dataclass(frozen=True)
class PhaseChain(Chain):
    """The CTMC of a network with phase-type primitives, on (x, phases).

    The inherited fields hold the *mean* data (``mu`` = 1/mean service time,
    ``arrivals`` = every stream at its mean rate), which the necessary
    condition and the routing structure read.  The jump structure comes from:

    service : per station, its PH service (None when exponential).
    ph_streams : the non-exponential streams, ``(PH, ((choice set, prob), ...))``.
    exp_arrivals : the exponential streams merged by choice set.
    expansion : one line per expanded primitive, for the report.

    Examples
    --------
    An M/E2/1 queue: one phase-type station, whose phase is empty (-1) or 1 or 2:

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Distribution, Station, Stream
    >>> net = Network("e2", (Station("1", F(2), service=Distribution("erlang", (("k", 2),))),),
    ...               (Stream(F(1), choice=("1",)),))
    >>> ch = expand(net)
    >>> ch.has_phases, ch.ph_stations, ch.base_levels, ch.phase_names(), ch.mu
    (True, (0,), {0: 1}, ['service phase of 1'], (Fraction(2, 1),))
    """

    service: tuple[PhaseType | None, ...] = ()
    ph_streams: tuple[tuple[PhaseType, tuple[tuple[tuple[int, ...], Fraction], ...]], ...] = ()
    exp_arrivals: tuple[tuple[tuple[int, ...], Fraction], ...] = ()
    expansion: tuple[str, ...] = ()

    @property
    def has_phases(self) -> bool:
        """True: the states carry phases."""
        return True

    @property
    def ph_stations(self) -> tuple[int, ...]:
        """Stations with phase-type service."""
        return tuple(i for i, s in enumerate(self.service) if s is not None)

    @property
    def base_levels(self) -> dict[int, int]:
        """Clip level 1 at every phase-type station: whether a finishing service empties it decides the next phase."""
        return {i: 1 for i in self.ph_stations}

    @property
    def phase_vectors(self) -> int:
        """How many phase vectors :meth:`phase_space` has (counted, not listed)."""
        n = 1
        for s in self.service:
            n *= s.n + 1 if s is not None else 1
        for ph, _ in self.ph_streams:
            n *= ph.n
        return n

    def phase_space(self) -> list[tuple[int, ...]]:
        """Every phase vector: PH stations (``-1`` = empty) then PH streams.

        Raises
        ------
        NotPhaseType
            When there are more than :data:`MAX_PHASE_VECTORS` (a chain expanded without that limit, for the
            separable kinds, whose clusters see only their own stations' phases, is never listed whole).
        """
        if self.phase_vectors > MAX_PHASE_VECTORS:
            raise NotPhaseType(f"the phase-type expansion has {self.phase_vectors} phase vectors (limit "
                               f"{MAX_PHASE_VECTORS}): not listed whole")
        opts = [range(-1, s.n) for s in self.service if s is not None]
        opts += [range(ph.n) for ph, _ in self.ph_streams]
        return [tuple(v) for v in product(*opts)]

    def phase_names(self) -> list[str]:
        """What each entry of a phase vector is, in words."""
        names = [f"service phase of {self.ids[i]}" for i in self.ph_stations]
        return names + [f"arrival phase of stream {k + 1}" for k in range(len(self.ph_streams))]

    @cached_property
    def scale(self) -> int:
        """D with D * (every jump rate) an integer: a jump rate is one rate times at most
        four probabilities (restart phase, choice set, tie split, phase of the joined station)."""
        rates = [r for _, r in self.exp_arrivals] + [self.mu[i] for i in range(self.J) if self.service[i] is None]
        probs = [*self.leave, *(p for _, _, p in self.feedback), *(p for _, ps in self.ties for p in ps)]
        for ph in [*(s for s in self.service if s is not None), *(ph for ph, _ in self.ph_streams)]:
            rates += ph.rates()
            probs += ph.alpha
        for _, sets in self.ph_streams:
            probs += [q for _, q in sets]
        biggest = max([len(c) for c, _ in self.arrivals] + [len(c) for _, c, _ in self.feedback] + [1])
        pl = lcm(*(Fraction(p).denominator for p in probs), *range(1, biggest + 1))
        return lcm(*(Fraction(r).denominator for r in rates)) * pl**4

    @cached_property
    def total_rate(self) -> Fraction:
        """Upper bound on the total jump rate out of any state."""
        out = sum((r for _, r in self.exp_arrivals), Fraction(0))
        for ph in [*(s for s in self.service if s is not None), *(ph for ph, _ in self.ph_streams)]:
            out += max(ph.exit[i] + sum((r for a, _, r in ph.moves if a == i), Fraction(0)) for i in range(ph.n))
        return out + sum((self.mu[i] for i in range(self.J) if self.service[i] is None), Fraction(0))

    def proper(self) -> list[str]:
        """The primitives whose phases cannot all finish (each must be able to)."""
        bad = [f"service at {self.ids[i]}" for i in self.ph_stations if not self.service[i].proper()]  # type: ignore[union-attr]
        return bad + [f"stream {k + 1}" for k, (ph, _) in enumerate(self.ph_streams) if not ph.proper()]


def _describe(ph: PhaseType, what: str, stated: Fraction) -> str:
    parts = [f"{what}: {ph.label}, {ph.n} phase{'s' if ph.n > 1 else ''}"]
    if ph.mean != 1 / stated:
        parts.append(f"(its mean differs from the stated 1/rate by a relative {float(ph.mean * stated - 1):.2g}; "
                     "the phases as written are used)")
    return " ".join(parts)


def expand(net: Network, max_vectors: int | None = MAX_PHASE_VECTORS) -> PhaseChain:
    """The phase-type expansion of ``net``.

    Parameters
    ----------
    net : Network
        A validated network.
    max_vectors : int or None
        The most phase vectors allowed (None: no limit; only the separable kinds, which never list the whole
        phase space, ask for that).

    Returns
    -------
    PhaseChain
        The chain on (queue lengths, phases).

    Raises
    ------
    NotPhaseType
        If a primitive has no finite phase-type form, or the expansion would exceed
        :data:`MAX_LAW_PHASES` or ``max_vectors``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Distribution, Station, Stream
    >>> net = Network("e2", (Station("1", F(2), service=Distribution("erlang", (("k", 2),))),),
    ...               (Stream(F(1), choice=("1",)),))
    >>> ch = expand(net)
    >>> ch.expansion, ch.phase_space()
    (('service at 1: Erlang-2, 2 phases',), [(-1,), (0,), (1,)])
    """
    _check_size(net, max_vectors)
    base = compile_chain(net)
    idx = {sid: i for i, sid in enumerate(net.station_ids)}
    service: list[PhaseType | None] = []
    lines = []
    for st in net.stations:
        if st.service.is_exponential:
            service.append(None)
            continue
        try:
            ph = phase_type(st.service, st.mu)
        except NotPhaseType as exc:
            raise NotPhaseType(f"service at station {st.id}: {exc}") from None
        service.append(ph)
        lines.append(_describe(ph, f"service at {st.id}", st.mu))
    exp_arr: dict[tuple[int, ...], Fraction] = defaultdict(Fraction)
    ph_streams: list[tuple[PhaseType, tuple[tuple[tuple[int, ...], Fraction], ...]]] = []
    for k, stream in enumerate(net.streams):
        sets = [(tuple(sorted(idx[s] for s in ids)), r) for ids, r in stream.routing_sets()]
        if stream.interarrival.is_exponential:
            for c, r in sets:
                exp_arr[c] += r
            continue
        try:
            ph = phase_type(stream.interarrival, stream.rate)
        except NotPhaseType as exc:
            raise NotPhaseType(f"interarrival times of stream {k + 1}: {exc}") from None
        merged: dict[tuple[int, ...], Fraction] = defaultdict(Fraction)
        for c, r in sets:
            merged[c] += r / stream.rate
        ph_streams.append((ph, tuple(sorted(merged.items()))))
        lines.append(_describe(ph, f"interarrival times of stream {k + 1}", stream.rate))
    mu = tuple(m if s is None else 1 / s.mean for m, s in zip(base.mu, service))
    arrivals: dict[tuple[int, ...], Fraction] = defaultdict(Fraction, exp_arr)
    for law, parts in ph_streams:
        for c, q in parts:
            arrivals[c] += q / law.mean
    return PhaseChain(
        ids=base.ids,
        mu=mu,
        arrivals=tuple(sorted(arrivals.items())),
        feedback=base.feedback,
        leave=base.leave,
        ties=base.ties,
        service=tuple(service),
        ph_streams=tuple(ph_streams),
        exp_arrivals=tuple(sorted(exp_arr.items())),
        expansion=tuple(lines),
    )


def _check_size(net: Network, max_vectors: int | None) -> None:
    """Raise :class:`NotPhaseType` when the expansion would exceed ``max_vectors`` (nothing built)."""
    vectors = 1
    for what, dist in [*((f"service at station {st.id}", st.service) for st in net.stations),
                       *((f"interarrival times of stream {k + 1}", s.interarrival) for k, s in enumerate(net.streams))]:
        if dist.is_exponential:
            continue
        n = phase_count(dist)
        if n is None:
            continue  # phase_type says why
        if n > MAX_LAW_PHASES:
            raise NotPhaseType(f"{what}: {dist.describe()} would have {n} phases (limit {MAX_LAW_PHASES})")
        vectors *= n + 1 if what.startswith("service") else n
    if max_vectors is not None and vectors > max_vectors:
        raise NotPhaseType(f"the phase-type expansion would have {vectors} phase vectors (limit {max_vectors})")


def markov_chain(net: Network, max_vectors: int | None = MAX_PHASE_VECTORS) -> Chain:
    """The CTMC of ``net``: :func:`compile_chain` when every primitive is exponential, else :func:`expand`.

    Parameters
    ----------
    net : Network
        A validated network.
    max_vectors : int or None
        :func:`expand`'s limit on the phase vectors (None: none).

    Returns
    -------
    Chain
        A :class:`~certify.markov.chain.Chain`, or a :class:`PhaseChain`.

    Raises
    ------
    NotPhaseType
        When a primitive has no finite phase-type form, or the expansion is beyond ``max_vectors``.

    Examples
    --------
    >>> from certify.core.model import Distribution, Station, Stream
    >>> def mm1(service):
    ...     return Network("q", (Station("1", Fraction(2), service=service),), (Stream(Fraction(1), choice=("1",)),))
    >>> markov_chain(mm1(Distribution())).has_phases, markov_chain(mm1(Distribution("erlang", (("k", 2),)))).has_phases
    (False, True)
    """
    return compile_chain(net) if net.is_markovian else expand(net, max_vectors)
