"""Phase-type distributions and the phase-type expansion of a network (exact).

Erlang, hyperexponential, Coxian (and gamma with 1/scv an integer, which is
Erlang) service and interarrival times are written as phase-type (PH)
distributions; the network is then again a CTMC, on (queue lengths, phases).
:func:`expand` builds that chain, :class:`PhaseChain`, a :class:`~certify.markov.chain.Chain`
whose states carry

* for every station with non-exponential service, the phase of the customer in
  service (``-1`` while the station is empty);
* for every stream with non-exponential interarrival times, the phase of the
  time to its next arrival.

Deterministic, lognormal and other gamma shapes have no finite phase
representation: :class:`NotPhaseType` says so (those networks belong to the
fluid certificates of general distributions).  So does an expansion too large
to build: a law with more than :data:`MAX_LAW_PHASES` phases, or more than
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
from math import isqrt, lcm

from ..core.errors import NotSupported
from ..core.model import Distribution, Network
from ..core.numbers import solve
from .chain import Chain, compile_chain

__all__ = ["PhaseType", "NotPhaseType", "phase_type", "phase_count", "PhaseChain", "expand", "markov_chain",
           "MAX_LAW_PHASES", "MAX_PHASE_VECTORS"]

#: Most phases of one law (the loader's bound on Erlang k and on explicit phase lists).
MAX_LAW_PHASES = 1000
#: Most phase vectors of a phase-type expansion (:meth:`PhaseChain.phase_space`).
MAX_PHASE_VECTORS = 10_000


class NotPhaseType(NotSupported):
    """A distribution (or a network) with no exact finite phase-type representation.

    Examples
    --------
    >>> phase_type(Distribution("deterministic", ()), Fraction(1))
    Traceback (most recent call last):
    certify.markov.phases.NotPhaseType: deterministic has no finite phase-type representation
    """


@dataclass(frozen=True)
class PhaseType:
    """Start in phase i with probability ``alpha[i]``; in phase i move to phase j at
    rate ``moves`` (i, j, rate), and finish at rate ``exit[i]``.

    Attributes
    ----------
    alpha, exit : tuple of Fraction
        The initial law over the phases; the rate of finishing from each phase.
    moves : tuple of (int, int, Fraction)
        The rates of moving between phases.
    label : str
        A name for reports, e.g. ``Erlang-2``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> e2 = phase_type(Distribution("erlang", (("k", 2),)), F(1))
    >>> e2.alpha, e2.exit, e2.moves, e2.mean
    ((Fraction(1, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(2, 1)), ((0, 1, Fraction(2, 1)),), Fraction(1, 1))
    """

    alpha: tuple[Fraction, ...]
    exit: tuple[Fraction, ...]
    moves: tuple[tuple[int, int, Fraction], ...] = ()
    label: str = ""

    @property
    def n(self) -> int:
        """The number of phases."""
        return len(self.alpha)

    @cached_property
    def mean(self) -> Fraction:
        """alpha (-S)^{-1} 1, solved exactly (by back-substitution when every move goes to a later phase,
        as in every law of the format: linear in the number of phases and moves)."""
        n = self.n
        if all(j > i for i, j, _ in self.moves):
            out: dict[int, list[tuple[int, Fraction]]] = defaultdict(list)
            for i, j, r in self.moves:
                out[i].append((j, r))
            m = [Fraction(0)] * n
            for i in range(n - 1, -1, -1):
                total = self.exit[i] + sum((r for _, r in out[i]), Fraction(0))
                if total == 0:
                    raise NotPhaseType(f"{self.label or 'phase-type'}: some phase never finishes")
                m[i] = (1 + sum((r * m[j] for j, r in out[i]), Fraction(0))) / total
            return sum((a * v for a, v in zip(self.alpha, m)), Fraction(0))
        A = [[Fraction(0)] * n for _ in range(n)]
        for i in range(n):
            A[i][i] += self.exit[i]
        for i, j, r in self.moves:
            A[i][i] += r
            A[i][j] -= r
        sol = solve(A, [Fraction(1)] * n)
        if sol is None:
            raise NotPhaseType(f"{self.label or 'phase-type'}: some phase never finishes")
        return sum((a * v for a, v in zip(self.alpha, sol)), Fraction(0))

    def proper(self) -> bool:
        """True when every phase can reach the end (so every service and interarrival time is finite)."""
        done = {i for i in range(self.n) if self.exit[i] > 0}
        grew = True
        while grew:
            grew = False
            for i, j, r in self.moves:
                if r > 0 and j in done and i not in done:
                    done.add(i)
                    grew = True
        return len(done) == self.n and sum(self.alpha, Fraction(0)) == 1

    def rates(self) -> list[Fraction]:
        """Every rate that appears (for the integer scale)."""
        return [*self.exit, *(r for _, _, r in self.moves)]


def _rational_sqrt(q: Fraction) -> Fraction | None:
    a, b = isqrt(q.numerator), isqrt(q.denominator)
    return Fraction(a, b) if a * a == q.numerator and b * b == q.denominator else None


def phase_count(dist: Distribution) -> int | None:
    """The number of phases :func:`phase_type` gives ``dist``, without building it (None: no PH form).

    Parameters
    ----------
    dist : Distribution
        The law.

    Returns
    -------
    int or None
        The number of phases (1 for the exponential), or None without a finite phase-type form.

    Examples
    --------
    >>> phase_count(Distribution("erlang", (("k", 7),))), phase_count(Distribution("lognormal", (("scv", 2),)))
    (7, None)
    """
    p = dict(dist.params)
    if dist.is_exponential:
        return 1
    if dist.dist == "erlang":
        return int(p["k"])
    if dist.dist == "gamma":
        inv = 1 / Fraction(p["scv"])
        return int(inv) if inv.denominator == 1 else None
    if dist.dist == "hyperexponential":
        return 2 if "scv" in p else sum(1 for q in p["probs"] if q > 0)
    if dist.dist == "coxian":
        return len(p["rates"])
    return None


def phase_type(dist: Distribution, rate: Fraction) -> PhaseType:
    """The PH representation of ``dist`` with mean ``1/rate`` (``rate`` = mu or the stream rate).

    Parameters
    ----------
    dist : Distribution
        The law (its shape; the mean comes from ``rate``).
    rate : Fraction
        One over the mean.

    Returns
    -------
    PhaseType
        The exact representation.

    Raises
    ------
    NotPhaseType
        For shapes without an exact finite representation, or more than
        :data:`MAX_LAW_PHASES` phases.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> h = phase_type(Distribution("hyperexponential", (("scv", F(5, 3)),)), F(1))
    >>> h.alpha, h.exit
    ((Fraction(3, 4), Fraction(1, 4)), (Fraction(3, 2), Fraction(1, 2)))
    """
    name, p = dist.dist, dict(dist.params)
    if dist.is_exponential:
        return PhaseType((Fraction(1),), (Fraction(rate),), (), "exponential")
    n = phase_count(dist)
    if n is not None and n > MAX_LAW_PHASES:
        raise NotPhaseType(f"{dist.describe()} would have {n} phases (limit {MAX_LAW_PHASES})")
    if name == "gamma" and (1 / p["scv"]).denominator == 1:
        name, p = "erlang", {"k": int(1 / p["scv"])}
    if name == "erlang":
        k = p["k"]
        r = k * Fraction(rate)
        alpha = tuple(Fraction(int(i == 0)) for i in range(k))
        ex = tuple(r if i == k - 1 else Fraction(0) for i in range(k))
        return PhaseType(alpha, ex, tuple((i, i + 1, r) for i in range(k - 1)), f"Erlang-{k}")
    if name == "hyperexponential" and "scv" in p:
        c2 = p["scv"]
        root = _rational_sqrt((c2 - 1) / (c2 + 1))
        if root is None:
            raise NotPhaseType(
                f"hyperexponential(scv={c2}) with balanced means has irrational parameters "
                "(sqrt((scv-1)/(scv+1)) is not rational); give explicit probs and rates"
            )
        p1 = (1 + root) / 2
        probs, rates = (p1, 1 - p1), (2 * p1 * rate, 2 * (1 - p1) * rate)
        return PhaseType(probs, rates, (), f"H{2}(balanced, scv={c2})")
    if name == "hyperexponential":
        # The probabilities as loaded (the loader makes them sum to exactly 1); never re-normalised here.
        keep = [(q, r) for q, r in zip(p["probs"], p["rates"]) if q > 0]
        total = sum((q for q, _ in keep), Fraction(0))
        if total != 1:
            raise NotPhaseType(f"hyperexponential probabilities sum to {total}, not exactly 1 "
                               "(certify.load normalises sums within 1e-9 of 1)")
        return PhaseType(tuple(q for q, _ in keep), tuple(r for _, r in keep), (), f"H{len(keep)}")
    if name == "coxian":
        rates, go = p["rates"], p["probs"]
        n = len(rates)
        alpha = tuple(Fraction(int(i == 0)) for i in range(n))
        ex = tuple(rates[i] * (1 - go[i]) if i < n - 1 else rates[i] for i in range(n))
        mv = tuple((i, i + 1, rates[i] * go[i]) for i in range(n - 1) if go[i] > 0)
        return PhaseType(alpha, ex, mv, f"Coxian-{n}")
    raise NotPhaseType(f"{dist.describe()} has no finite phase-type representation")


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
    >>> from certify.core.model import Station, Stream
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

    def phase_space(self) -> list[tuple[int, ...]]:
        """Every phase vector: PH stations (``-1`` = empty) then PH streams."""
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


def expand(net: Network) -> PhaseChain:
    """The phase-type expansion of ``net``.

    Parameters
    ----------
    net : Network
        A validated network.

    Returns
    -------
    PhaseChain
        The chain on (queue lengths, phases).

    Raises
    ------
    NotPhaseType
        If a primitive has no finite phase-type form, or the expansion would exceed
        :data:`MAX_LAW_PHASES` or :data:`MAX_PHASE_VECTORS`.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Station, Stream
    >>> net = Network("e2", (Station("1", F(2), service=Distribution("erlang", (("k", 2),))),),
    ...               (Stream(F(1), choice=("1",)),))
    >>> ch = expand(net)
    >>> ch.expansion, ch.phase_space()
    (('service at 1: Erlang-2, 2 phases',), [(-1,), (0,), (1,)])
    """
    _check_size(net)
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


def _check_size(net: Network) -> None:
    """Raise :class:`NotPhaseType` when the expansion would exceed :data:`MAX_PHASE_VECTORS` (nothing built)."""
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
    if vectors > MAX_PHASE_VECTORS:
        raise NotPhaseType(f"the phase-type expansion would have {vectors} phase vectors (limit {MAX_PHASE_VECTORS})")


def markov_chain(net: Network) -> Chain:
    """The CTMC of ``net``: :func:`compile_chain` when every primitive is exponential, else :func:`expand`.

    Parameters
    ----------
    net : Network
        A validated network.

    Returns
    -------
    Chain
        A :class:`~certify.markov.chain.Chain`, or a :class:`PhaseChain`.

    Raises
    ------
    NotPhaseType
        When a primitive has no finite phase-type form.

    Examples
    --------
    >>> from certify.core.model import Station, Stream
    >>> def mm1(service):
    ...     return Network("q", (Station("1", Fraction(2), service=service),), (Stream(Fraction(1), choice=("1",)),))
    >>> markov_chain(mm1(Distribution())).has_phases, markov_chain(mm1(Distribution("erlang", (("k", 2),)))).has_phases
    (False, True)
    """
    return compile_chain(net) if net.is_markovian else expand(net)
