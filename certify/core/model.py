"""The validated network model: exact, immutable, numpy-free.

Every rate and probability is a :class:`fractions.Fraction` from load time on, so
the exact checker works on the very numbers the user wrote.  Station ids are
strings (as in the file format); algorithms work on station *indices* (the
position in :attr:`Network.stations`) through :class:`Network.index`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from typing import Any

__all__ = [
    "Distribution",
    "Station",
    "Stream",
    "Feedback",
    "TieBreak",
    "Network",
    "ForkJoinNetwork",
    "EXPONENTIAL",
    "JSQ_FORMAT",
    "FORK_JOIN_FORMAT",
]

# The two network file formats (the loader reads and writes them; certificates digest a fork-join one under its name).
JSQ_FORMAT = "jsq-network/1"
FORK_JOIN_FORMAT = "fork-join-redundancy/1"

DIST_NAMES = ("exponential", "deterministic", "erlang", "hyperexponential", "coxian", "gamma", "lognormal")


@dataclass(frozen=True)
class Distribution:
    """Shape of a service or interarrival distribution; the mean comes from the rate.

    ``params`` holds the shape parameters as a sorted tuple of ``(name, value)``
    pairs: ``k`` (int) for Erlang, ``scv`` (Fraction), or ``probs``/``rates``
    (tuples of Fractions) for an explicit hyperexponential; for a Coxian
    (an extension of the file format), ``rates`` of its phases and ``probs``, the
    probability of moving on from phase i to phase i+1 (one fewer than rates).
    """

    dist: str = "exponential"
    params: tuple[tuple[str, Any], ...] = ()

    @property
    def is_exponential(self) -> bool:
        """True for the exponential distribution (also Erlang with k=1, gamma/hyperexp with scv 1)."""
        if self.dist == "exponential":
            return True
        p = dict(self.params)
        if self.dist == "erlang":
            return p.get("k") == 1
        if self.dist == "hyperexponential" and "scv" in p:
            return p["scv"] == 1
        if self.dist == "hyperexponential" and "rates" in p:
            return len(set(p["rates"])) == 1
        if self.dist == "gamma":
            return p.get("scv") == 1
        if self.dist == "coxian":
            return len(p["rates"]) == 1
        return False

    def get(self, name: str, default: Any = None) -> Any:
        return dict(self.params).get(name, default)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"dist": self.dist}
        for k, v in self.params:
            out[k] = v
        return out

    def describe(self) -> str:
        if not self.params:
            return self.dist
        return self.dist + "(" + ", ".join(f"{k}={_fmt(v)}" for k, v in self.params) + ")"


def _fmt(v: Any) -> str:
    if isinstance(v, tuple):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)


EXPONENTIAL = Distribution()


@dataclass(frozen=True)
class Station:
    """A single-server FIFO station with exponential-mean rate ``mu``."""

    id: str
    mu: Fraction
    service: Distribution = EXPONENTIAL
    capacity: int | None = None


@dataclass(frozen=True)
class Stream:
    """An exogenous arrival stream.

    Exactly one of ``choice`` (fixed choice set), ``choices`` (a random set per
    arrival: ``((set, prob), ...)``) and ``sample`` (``(from_set, d)``: d distinct
    stations drawn uniformly) is set.
    """

    rate: Fraction
    choice: tuple[str, ...] | None = None
    choices: tuple[tuple[tuple[str, ...], Fraction], ...] | None = None
    sample: tuple[tuple[str, ...], int] | None = None
    interarrival: Distribution = EXPONENTIAL

    def routing_sets(self) -> list[tuple[tuple[str, ...], Fraction]]:
        """The choice sets this stream offers with their rates (Poisson thinning).

        For Poisson arrivals a random selection set is the same as independent
        streams, one per set, with rate ``rate * prob``.

        >>> from fractions import Fraction as F
        >>> Stream(F(1), sample=(("1", "2", "3"), 2)).routing_sets()[0]
        (('1', '2'), Fraction(1, 3))
        """
        if self.choice is not None:
            return [(self.choice, self.rate)]
        if self.choices is not None:
            return [(s, self.rate * p) for s, p in self.choices if p > 0]
        assert self.sample is not None
        pool, d = self.sample
        subsets = list(combinations(pool, d))
        share = self.rate / len(subsets)
        return [(s, share) for s in subsets]


@dataclass(frozen=True)
class Feedback:
    """After service at ``source`` a customer becomes a ``choice``-type customer with ``prob``."""

    source: str
    choice: tuple[str, ...]
    prob: Fraction


@dataclass(frozen=True)
class TieBreak:
    """Tie-breaking probabilities for the tied-shortest set ``set``."""

    set: tuple[str, ...]
    probs: tuple[tuple[str, Fraction], ...]


@dataclass(frozen=True)
class Network:
    """A validated `jsq-network/1` network with exact rates.

    Build one with :func:`certify.load` (from a file), :func:`certify.from_graph`
    (from a networkx routing graph) or directly.
    """

    name: str
    stations: tuple[Station, ...]
    streams: tuple[Stream, ...]
    feedback: tuple[Feedback, ...] = ()
    tie_breaking: tuple[TieBreak, ...] = ()
    extras: tuple[tuple[str, Any], ...] = ()
    expected: Any = None
    source: str | None = field(default=None, compare=False)
    # What the loader derived from the file and every stage uses (e.g. a rate taken from
    # explicit phases); one sentence each, printed in reports.
    notes: tuple[str, ...] = field(default=(), compare=False)

    @property
    def J(self) -> int:
        return len(self.stations)

    @property
    def station_ids(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.stations)

    def index(self, station_id: str) -> int:
        return self.station_ids.index(station_id)

    @property
    def is_markovian(self) -> bool:
        """True when every service and interarrival distribution is exponential."""
        return all(s.service.is_exponential for s in self.stations) and all(
            s.interarrival.is_exponential for s in self.streams
        )

    @property
    def has_capacities(self) -> bool:
        return any(s.capacity is not None for s in self.stations)

    def tie_probs(self, tied: tuple[str, ...]) -> dict[str, Fraction]:
        """Probabilities with which a customer whose tied-shortest set is ``tied`` joins each station."""
        key = frozenset(tied)
        for tb in self.tie_breaking:
            if frozenset(tb.set) == key:
                return dict(tb.probs)
        return {s: Fraction(1, len(tied)) for s in tied}

    @property
    def label(self) -> str:
        return self.source or self.name


@dataclass(frozen=True)
class ForkJoinNetwork:
    """A `fork-join-redundancy/1` system: n FCFS servers, a job leaves after k of its n tasks."""

    name: str
    n: int
    k: int
    rate: Fraction
    servers: tuple[tuple[str, Fraction], ...]
    extras: tuple[tuple[str, Any], ...] = ()
    expected: Any = None
    source: str | None = field(default=None, compare=False)

    @property
    def label(self) -> str:
        return self.source or self.name
