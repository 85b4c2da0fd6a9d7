"""Compile a network into the data of its Markov chain, by station index.

The result, :class:`Chain`, is what every later stage reads: exact service
rates, arrival streams merged by choice set, feedback merged by (station, set),
exit probabilities and tie-breaking.  Pure Python, exact (no numpy).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from math import lcm

from ..core.model import Network

__all__ = ["Chain", "compile_chain", "drain_order", "emptying_order", "emptied_stations"]


@dataclass(frozen=True)
class Chain:
    """The CTMC data of a Markovian JSQ network, stations numbered ``0..J-1``.

    Attributes
    ----------
    ids : tuple of str
        Station ids, in model order.
    mu : tuple of Fraction
        Exact service rates.
    arrivals : tuple
        ``((choice_set, rate), ...)`` with choice sets as sorted index tuples.
    feedback : tuple
        ``((station, choice_set, prob), ...)``.
    leave : tuple of Fraction
        Probability that a customer leaves after service at each station.
    ties : tuple
        ``((tied_set, probs), ...)`` for the non-uniform tie-breaking rules
        (``probs`` in the order of ``tied_set``).

    Examples
    --------
    Two stations of rate 1 sharing one JSQ stream of rate 3/2:

    >>> from fractions import Fraction as F
    >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(3, 2)),), (), (F(1), F(1)))
    >>> ch.J, ch.routing_sets, ch.scale, ch.total_rate
    (2, ((0, 1),), 4, Fraction(7, 2))
    >>> ch.tie_split((0, 1))
    ((0, Fraction(1, 2)), (1, Fraction(1, 2)))
    """

    ids: tuple[str, ...]
    mu: tuple[Fraction, ...]
    arrivals: tuple[tuple[tuple[int, ...], Fraction], ...]
    feedback: tuple[tuple[int, tuple[int, ...], Fraction], ...]
    leave: tuple[Fraction, ...]
    ties: tuple[tuple[tuple[int, ...], tuple[Fraction, ...]], ...] = ()

    @property
    def J(self) -> int:
        """The number of stations."""
        return len(self.mu)

    @property
    def has_phases(self) -> bool:
        """True for a phase-type expansion (:class:`certify.markov.phases.PhaseChain`), whose states carry phases."""
        return False

    @property
    def base_levels(self) -> dict[int, int]:
        """Clip levels every region refinement must include (phase-type stations need x_i = 1 vs >= 2)."""
        return {}

    # An exponential chain is a phase-type chain with no phases: these are the neutral values.
    @property
    def ph_stations(self) -> tuple[int, ...]:
        """Stations with phase-type (non-exponential) service."""
        return ()

    @property
    def expansion(self) -> tuple[str, ...]:
        """One line per primitive expanded into phases."""
        return ()

    @property
    def phase_vectors(self) -> int:
        """How many phase vectors :meth:`phase_space` has (one without phases)."""
        return 1

    def phase_space(self) -> list[tuple[int, ...]]:
        """Every phase vector of the chain (one empty vector when there are no phases)."""
        return [()]

    def proper(self) -> list[str]:
        """The primitives whose phases cannot all finish (none without phases)."""
        return []

    @cached_property
    def routing_sets(self) -> tuple[tuple[int, ...], ...]:
        """Choice sets with two or more stations, whose argmin splits the state space."""
        sets = {c for c, _ in self.arrivals} | {c for _, c, _ in self.feedback}
        return tuple(sorted((c for c in sets if len(c) > 1), key=lambda c: (len(c), c)))

    @cached_property
    def shifted_sets(self) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """Feedback (i, C) with i in C: routing compares queues after i's departure."""
        return tuple(sorted({(i, c) for i, c, _ in self.feedback if len(c) > 1 and i in c}))

    def tie_split(self, tied: tuple[int, ...]) -> tuple[tuple[int, Fraction], ...]:
        """How a customer whose tied-shortest set is ``tied`` splits over it (zero shares dropped).

        Parameters
        ----------
        tied : tuple of int
            The tied-shortest stations (sorted).

        Returns
        -------
        tuple of (int, Fraction)
            (station, probability) pairs: the tie-breaking rule of the set, else uniform.
        """
        if len(tied) == 1:
            return ((tied[0], Fraction(1)),)
        for s, probs in self.ties:
            if s == tied:
                return tuple((j, p) for j, p in zip(s, probs) if p != 0)
        share = Fraction(1, len(tied))
        return tuple((j, share) for j in tied)

    @cached_property
    def scale(self) -> int:
        """A positive integer D such that D times every jump rate of the chain is an integer.

        Jump rates are products lam_C * gamma or mu_i * (leave_i or p * gamma), so the
        product of the least common denominators of each factor kind works.  Drift
        computations run on these integers (much faster than Fractions).
        """
        lam = lcm(*(r.denominator for _, r in self.arrivals)) if self.arrivals else 1
        mu = lcm(*(m.denominator for m in self.mu))
        probs = lcm(*(p.denominator for _, _, p in self.feedback), *(x.denominator for x in self.leave))
        biggest = max([len(c) for c, _ in self.arrivals] + [len(c) for _, c, _ in self.feedback] + [1])
        ties = lcm(*range(1, biggest + 1), *(p.denominator for _, ps in self.ties for p in ps))
        return lam * mu * probs * ties

    @cached_property
    def total_rate(self) -> Fraction:
        """An upper bound on the total jump rate out of any state (uniformization constant)."""
        return sum((r for _, r in self.arrivals), Fraction(0)) + sum(self.mu, Fraction(0))


def compile_chain(net: Network) -> Chain:
    """Compile a validated network into its :class:`Chain` (exponential semantics).

    Streams with random selection sets are split into independent Poisson streams,
    one per set; streams and feedback with the same set are merged.

    Parameters
    ----------
    net : Network
        A validated network (its laws are read as exponential; see
        :func:`certify.markov.phases.markov_chain` for phase-type laws).

    Returns
    -------
    Chain
        The chain's data, by station index.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> net = Network("mm1", (Station("a", F(2)),), (Stream(F(1), choice=("a",)),))
    >>> compile_chain(net).arrivals
    (((0,), Fraction(1, 1)),)
    >>> net = Network("jsq2", (Station("1", F(1)), Station("2", F(1))), (Stream(F(3, 2), choice=("1", "2")),))
    >>> ch = compile_chain(net)
    >>> ch.arrivals, ch.leave
    ((((0, 1), Fraction(3, 2)),), (Fraction(1, 1), Fraction(1, 1)))
    """
    idx = {sid: i for i, sid in enumerate(net.station_ids)}

    def key(ids: tuple[str, ...]) -> tuple[int, ...]:
        return tuple(sorted(idx[s] for s in ids))

    arr: dict[tuple[int, ...], Fraction] = defaultdict(Fraction)
    for stream in net.streams:
        for ids, rate in stream.routing_sets():
            arr[key(ids)] += rate
    fb: dict[tuple[int, tuple[int, ...]], Fraction] = defaultdict(Fraction)
    for f in net.feedback:
        if f.prob:
            fb[(idx[f.source], key(f.choice))] += f.prob
    leave = [Fraction(1)] * len(idx)
    for (i, _), p in fb.items():
        leave[i] -= p
    ties = []
    for tb in net.tie_breaking:
        probs = dict(tb.probs)
        s = key(tb.set)
        ties.append((s, tuple(probs[net.station_ids[j]] for j in s)))
    return Chain(
        ids=net.station_ids,
        mu=tuple(s.mu for s in net.stations),
        arrivals=tuple(sorted((c, r) for c, r in arr.items() if r)),
        feedback=tuple(sorted((i, c, p) for (i, c), p in fb.items())),
        leave=tuple(leave),
        ties=tuple(sorted(ties)),
    )


def drain_order(chain: Chain) -> list[int] | None:
    """Stations in an order from which each can pass a customer out of the network.

    A station is *draining* if its customers leave with positive probability, or if
    some feedback set it routes to with positive probability holds only draining
    stations.  When every station drains, the empty state is reachable from every
    state (serve the customers one at a time along such routes), so the states
    reachable from empty form the single closed class.  Returns ``None`` when some
    station is not shown to drain.

    For a phase-type chain every phase of every service and interarrival law
    must also be able to finish (``PhaseChain.proper``): then each service in
    progress ends with positive probability before any other event, stream phases
    cycle through arrivals, and the states (0, stream phases) reachable from
    empty are reached again from every state.

    Parameters
    ----------
    chain : Chain
        The chain.

    Returns
    -------
    list of int or None
        The stations in a draining order, or None.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> # station 0 sends everyone to 1, which sends everyone back: nobody leaves
    >>> loop = Chain(("1", "2"), (F(1), F(1)), (((0,), F(1)),), ((0, (1,), F(1)), (1, (0,), F(1))), (F(0), F(0)))
    >>> drain_order(loop) is None
    True
    >>> tandem = Chain(("1", "2"), (F(1), F(1)), (((0,), F(1)),), ((0, (1,), F(1)),), (F(0), F(1)))
    >>> drain_order(tandem)
    [1, 0]
    """
    if chain.proper():
        return None
    order = _drained(chain, lambda c, done: set(c) <= done)
    return order if len(order) == chain.J else None


def _drained(chain: Chain, routes_out: Callable[[tuple[int, ...], set[int]], bool]) -> list[int]:
    """Stations added one by one, while some station leaves, or routes by a choice set that ``routes_out`` accepts."""
    order: list[int] = []
    done: set[int] = set()
    changed = True
    while changed:
        changed = False
        for i in range(chain.J):
            if i not in done and (chain.leave[i] > 0 or any(
                    src == i and p > 0 and routes_out(c, done) for src, c, p in chain.feedback)):
                done.add(i)
                order.append(i)
                changed = True
    return order


def _moves_on(chain: Chain, choice: tuple[int, ...], done: set[int]) -> bool:
    """Whether a customer routed by ``choice`` joins a station of ``done`` with positive probability once they are empty.

    When the stations of ``done`` in ``choice`` are all empty they are all tied shortest, so the tied set S
    satisfies ``choice & done <= S <= choice``; the customer joins ``done`` unless the tie-breaking rule of
    some such S gives ``done`` probability 0 (the default, uniform, never does).
    """
    inside = {j for j in choice if j in done}
    if not inside:
        return False
    for tied, probs in chain.ties:
        if inside <= set(tied) <= set(choice) and sum(p for j, p in zip(tied, probs) if j in done) == 0:
            return False
    return True


def emptied_stations(chain: Chain) -> list[int]:
    """The stations :func:`emptying_order` shows to empty, in its order (all of them exactly when it succeeds).

    Parameters
    ----------
    chain : Chain
        The network's chain data.

    Returns
    -------
    list of int
        The stations shown to empty, in the order they were added.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> fb = Chain(("1", "2"), (F(1), F(1)), (((0,), F(2, 5)),), ((0, (0, 1), F(1)),), (F(0), F(1)))
    >>> stuck = Chain(fb.ids, fb.mu, fb.arrivals, fb.feedback, fb.leave, (((0, 1), (F(1), F(0))),))
    >>> emptied_stations(fb), emptied_stations(stuck)
    ([1, 0], [1])
    """
    return _drained(chain, lambda c, done: _moves_on(chain, c, done))


def emptying_order(chain: Chain) -> list[int] | None:
    """Stations in an order showing that the network empties, almost surely, when no customer arrives.

    A station is added when its customers leave with positive probability,
    or when it routes with positive probability to a choice set that holds an
    added station and, once the added stations are empty, joins one of them
    with positive probability (:func:`_moves_on`).  By induction each added
    station completes finitely many services almost surely: the added
    stations of its route are eventually empty forever, after which each of
    its completions sends a customer into them with probability bounded below
    (conditional Borel-Cantelli), which happens only finitely often.  A
    non-idling station with finitely many completions is eventually empty,
    whatever its service law.  This generalises
    :func:`certify.markov.chain.drain_order` (a route into added stations only).

    Parameters
    ----------
    chain : Chain
        The network's chain data (:attr:`ProofContext.base <certify.proof.context.ProofContext.base>`).

    Returns
    -------
    list of int or None
        The stations in that order, or None when some station is not shown to empty.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> fb = Chain(("1", "2"), (F(1), F(1)), (((0,), F(2, 5)),), ((0, (0, 1), F(1)),), (F(0), F(1)))
    >>> drain_order(fb), emptying_order(fb)
    (None, [1, 0])
    >>> stuck = Chain(fb.ids, fb.mu, fb.arrivals, fb.feedback, fb.leave, (((0, 1), (F(1), F(0))),))
    >>> emptying_order(stuck) is None
    True
    """
    order = emptied_stations(chain)
    return order if len(order) == chain.J else None
