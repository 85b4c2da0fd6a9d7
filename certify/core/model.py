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
from typing import Any, TypeAlias, final

from .jsontypes import JsonObject, JsonValue

__all__ = [
    "LawParameter",
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
    "DIST_NAMES",
]

# The two network file formats (the loader reads and writes them; certificates digest a fork-join one under its name).
#: The ``format`` of a JSQ network file.
JSQ_FORMAT = "jsq-network/1"
#: The ``format`` of a fork-join redundancy file.
FORK_JOIN_FORMAT = "fork-join-redundancy/1"

#: The names of the service and interarrival laws of the file format.
DIST_NAMES = ("exponential", "deterministic", "erlang", "hyperexponential", "coxian", "gamma", "lognormal")

#: The value of a shape parameter of a law: ``k`` an int, ``scv`` a Fraction, ``probs`` and ``rates`` tuples of Fractions.
LawParameter: TypeAlias = "int | Fraction | tuple[Fraction, ...]"


@dataclass(frozen=True)
class Distribution:
    """Shape of a service or interarrival distribution; the mean comes from the rate.

    ``params`` holds the shape parameters as a sorted tuple of ``(name, value)``
    pairs: ``k`` (int) for Erlang, ``scv`` (Fraction), or ``probs``/``rates``
    (tuples of Fractions) for an explicit hyperexponential; for a Coxian
    (an extension of the file format), ``rates`` of its phases and ``probs``, the
    probability of moving on from phase i to phase i+1 (one fewer than rates).

    Parameters
    ----------
    dist : str, default "exponential"
        The law, one of :data:`DIST_NAMES`.
    params : tuple of (str, LawParameter), default ()
        The shape parameters, sorted by name.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> h2 = Distribution("hyperexponential", (("probs", (F(1, 2), F(1, 2))), ("rates", (F(1), F(3)))))
    >>> h2.get("rates"), h2.is_exponential, h2.describe()
    ((Fraction(1, 1), Fraction(3, 1)), False, 'hyperexponential(probs=[1/2, 1/2], rates=[1, 3])')
    """

    dist: str = "exponential"
    # Each value is a LawParameter; typed Any because its readers (markov.laws, simulation.tables) take
    # dict(params)["k"] as an int, ["rates"] as a tuple, ... by the parameter's name.
    params: tuple[tuple[str, Any], ...] = ()

    @property
    def is_exponential(self) -> bool:
        """True for the exponential distribution (also Erlang with k=1, gamma/hyperexp with scv 1).

        Examples
        --------
        >>> Distribution("erlang", (("k", 1),)).is_exponential, Distribution("erlang", (("k", 2),)).is_exponential
        (True, False)
        """
        if self.dist == "exponential":
            return True
        p = dict(self.params)
        if self.dist == "erlang":
            return p.get("k") == 1
        if self.dist == "hyperexponential" and "scv" in p:
            return bool(p["scv"] == 1)
        if self.dist == "hyperexponential" and "rates" in p:
            return len(set(p["rates"])) == 1
        if self.dist == "gamma":
            return p.get("scv") == 1
        if self.dist == "coxian":
            return "rates" in p and len(p["rates"]) == 1
        return False

    def get(self, name: str, default: LawParameter | None = None) -> LawParameter | None:
        """The parameter ``name``, or ``default`` when the law has none of that name.

        Parameters
        ----------
        name : str
            The parameter (``k``, ``scv``, ``probs``, ``rates``).
        default : LawParameter or None, default None
            Returned when there is no such parameter.

        Returns
        -------
        LawParameter or None
            The parameter's value, else ``default``.

        Examples
        --------
        >>> Distribution("erlang", (("k", 3),)).get("k"), Distribution().get("k", 1)
        (3, 1)
        """
        value: LawParameter | None = dict(self.params).get(name, default)
        return value

    def to_dict(self) -> dict[str, str | LawParameter]:
        """The law as a dict ``{"dist": ..., parameter: value, ...}`` (values as stored, Fractions included).

        Returns
        -------
        dict of str to (str or LawParameter)
            The law in the form of the file format.

        Examples
        --------
        >>> Distribution("erlang", (("k", 3),)).to_dict()
        {'dist': 'erlang', 'k': 3}
        """
        out: dict[str, str | LawParameter] = {"dist": self.dist}
        for k, v in self.params:
            out[k] = v
        return out

    def describe(self) -> str:
        """The law as text for reports: ``erlang(k=3)``, or just its name when it has no parameters.

        Returns
        -------
        str
            The name and parameters.

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> Distribution("gamma", (("scv", F(1, 2)),)).describe(), Distribution().describe()
        ('gamma(scv=1/2)', 'exponential')
        """
        if not self.params:
            return self.dist
        return self.dist + "(" + ", ".join(f"{k}={_fmt(v)}" for k, v in self.params) + ")"


def _fmt(v: object) -> str:
    if isinstance(v, tuple):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)


#: The exponential law (the default service and interarrival law).
EXPONENTIAL = Distribution()


@dataclass(frozen=True)
class Station:
    """A single-server FIFO station with exponential-mean rate ``mu`` (the mean service time is 1/mu).

    Parameters
    ----------
    id : str
        The station id, as in the file.
    mu : Fraction
        The service rate.
    service : Distribution, default EXPONENTIAL
        The shape of the service law.
    capacity : int or None, default None
        The most customers the station holds (arrivals that find it full are
        lost); ``None`` for no limit.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> Station("1", F(3, 2), capacity=4)
    Station(id='1', mu=Fraction(3, 2), service=Distribution(dist='exponential', params=()), capacity=4)
    """

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

    Parameters
    ----------
    rate : Fraction
        The arrival rate.
    choice : tuple of str, optional
        A fixed choice set.
    choices : tuple of (tuple of str, Fraction), optional
        Random choice sets with their probabilities (summing to 1).
    sample : tuple of (tuple of str, int), optional
        ``(pool, d)``: d distinct stations of the pool, drawn uniformly.
    interarrival : Distribution, default EXPONENTIAL
        The shape of the interarrival law.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> Stream(F(1, 2), choice=("1", "2")).routing_sets()
    [(('1', '2'), Fraction(1, 2))]
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

        Returns
        -------
        list of (tuple of str, Fraction)
            Each choice set with its rate (sets of probability 0 left out).

        Examples
        --------
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
    """After service at ``source`` a customer becomes a ``choice``-type customer with ``prob``.

    Parameters
    ----------
    source : str
        The station the customer leaves.
    choice : tuple of str
        The choice set it then joins the shortest queue of.
    prob : Fraction
        The probability of this route (the routes of one station sum to at most 1).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> Feedback("1", ("2", "3"), F(1, 4)).prob
    Fraction(1, 4)
    """

    source: str
    choice: tuple[str, ...]
    prob: Fraction


@dataclass(frozen=True)
class TieBreak:
    """Tie-breaking probabilities for the tied-shortest set ``set``.

    Parameters
    ----------
    set : tuple of str
        The stations whose queues are tied shortest.
    probs : tuple of (str, Fraction)
        The probability of joining each of them (summing to 1).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> dict(TieBreak(("1", "2"), (("1", F(7, 10)), ("2", F(3, 10)))).probs)["1"]
    Fraction(7, 10)
    """

    set: tuple[str, ...]
    probs: tuple[tuple[str, Fraction], ...]


@final  # so mypy knows no class is both a Network and a ForkJoinNetwork
@dataclass(frozen=True)
class Network:
    """A validated `jsq-network/1` network with exact rates.

    Build one with :func:`certify.load` (from a file), :func:`certify.from_graph`
    (from a networkx routing graph) or directly.

    Parameters
    ----------
    name : str
        The network's name.
    stations : tuple of Station
        The stations, in file order (their positions are the station indices).
    streams : tuple of Stream
        The exogenous arrival streams.
    feedback : tuple of Feedback, default ()
        The routes after service.
    tie_breaking : tuple of TieBreak, default ()
        Probabilities for tied-shortest sets (uniform where none is given).
    extras : tuple of (str, JsonValue), default ()
        The ``x-...`` fields of the file, sorted, in the plain form of :func:`certify.io.fields.plain`.
    expected : dict or None, default None
        The file's ``expected`` block, in that plain form.
    source : str or None, default None
        The file it came from (not compared).
    notes : tuple of str, default ()
        What the loader derived from the file and every stage uses, one sentence each (not compared).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = Network("two", (Station("a", F(1)), Station("b", F(2))), (Stream(F(1), choice=("a", "b")),))
    >>> net.J, net.station_ids, net.index("b"), net.is_markovian, net.label
    (2, ('a', 'b'), 1, True, 'two')
    """

    name: str
    stations: tuple[Station, ...]
    streams: tuple[Stream, ...]
    feedback: tuple[Feedback, ...] = ()
    tie_breaking: tuple[TieBreak, ...] = ()
    extras: tuple[tuple[str, JsonValue], ...] = ()
    expected: JsonObject | None = None
    source: str | None = field(default=None, compare=False)
    # What the loader derived from the file and every stage uses (e.g. a rate taken from
    # explicit phases); one sentence each, printed in reports.
    notes: tuple[str, ...] = field(default=(), compare=False)

    @property
    def J(self) -> int:
        """The number of stations."""
        return len(self.stations)

    @property
    def station_ids(self) -> tuple[str, ...]:
        """The station ids, in order."""
        return tuple(s.id for s in self.stations)

    def index(self, station_id: str) -> int:
        """The index (position in :attr:`stations`) of a station.

        Parameters
        ----------
        station_id : str
            The station's id.

        Returns
        -------
        int
            Its position.

        Raises
        ------
        ValueError
            When no station has that id.

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> Network("n", (Station("x", F(1)), Station("y", F(1))), ()).index("y")
        1
        """
        return self.station_ids.index(station_id)

    @property
    def is_markovian(self) -> bool:
        """True when every service and interarrival distribution is exponential."""
        return all(s.service.is_exponential for s in self.stations) and all(
            s.interarrival.is_exponential for s in self.streams
        )

    @property
    def has_capacities(self) -> bool:
        """True when some station has a finite capacity."""
        return any(s.capacity is not None for s in self.stations)

    def tie_probs(self, tied: tuple[str, ...]) -> dict[str, Fraction]:
        """Probabilities with which a customer whose tied-shortest set is ``tied`` joins each station.

        Parameters
        ----------
        tied : tuple of str
            The tied-shortest stations.

        Returns
        -------
        dict of str to Fraction
            The probabilities of :attr:`tie_breaking` for that set, else uniform.

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> net = Network("n", (Station("1", F(1)), Station("2", F(1))), (),
        ...               tie_breaking=(TieBreak(("1", "2"), (("1", F(3, 4)), ("2", F(1, 4)))),))
        >>> net.tie_probs(("2", "1")), net.tie_probs(("1",))
        ({'1': Fraction(3, 4), '2': Fraction(1, 4)}, {'1': Fraction(1, 1)})
        """
        key = frozenset(tied)
        for tb in self.tie_breaking:
            if frozenset(tb.set) == key:
                return dict(tb.probs)
        return {s: Fraction(1, len(tied)) for s in tied}

    @property
    def label(self) -> str:
        """How reports name it: the file it came from, else its name."""
        return self.source or self.name


@final  # so mypy knows no class is both a Network and a ForkJoinNetwork
@dataclass(frozen=True)
class ForkJoinNetwork:
    """A `fork-join-redundancy/1` system: n FCFS servers, a job leaves after k of its n tasks.

    Parameters
    ----------
    name : str
        The system's name.
    n : int
        The number of servers (each job sends one task to each).
    k : int
        The number of finished tasks after which a job leaves (1 <= k <= n).
    rate : Fraction
        The job arrival rate.
    servers : tuple of (str, Fraction)
        Each server's id and service rate.
    extras : tuple of (str, JsonValue), default ()
        The ``x-...`` fields of the file, sorted, in the plain form of :func:`certify.io.fields.plain`.
    expected : dict or None, default None
        The file's ``expected`` block, in that plain form.
    source : str or None, default None
        The file it came from (not compared).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> fj = ForkJoinNetwork("fj", 2, 1, F(1, 2), (("1", F(1)), ("2", F(1, 4))))
    >>> fj.label, fj.servers[1]
    ('fj', ('2', Fraction(1, 4)))
    """

    name: str
    n: int
    k: int
    rate: Fraction
    servers: tuple[tuple[str, Fraction], ...]
    extras: tuple[tuple[str, JsonValue], ...] = ()
    expected: JsonObject | None = None
    source: str | None = field(default=None, compare=False)

    @property
    def label(self) -> str:
        """How reports name it: the file it came from, else its name."""
        return self.source or self.name
