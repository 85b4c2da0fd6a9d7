"""Jumps of a phase-type chain on each (region, phase vector) (exact, scaled integers).

A state is (x, phi).  On a region refined by ``chain.base_levels`` (so that
for every phase-type station it is known whether x_i = 0, 1 or >= 2) and for
a fixed phase vector, every transition has a constant rate, a constant change
of x and a constant new phase vector.  :func:`compile_phase_drifts` lists them
as :class:`PhaseDrift` items, which templates use exactly like region drifts:
``mean`` is the mean drift of x, ``generators`` the region's cone generators,
and ``phase_moves()`` the transitions with their target phases.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from .cones import cone_generators
from .jumps import Jump, RegionDrift, _int
from .laws import PhaseType
from .phases import PhaseChain
from .regions import Region, check_deadline

__all__ = ["PhaseDrift", "phase_transitions", "compile_phase_drifts"]

PhaseMove = tuple[Jump, tuple[int, ...], int]


def _exactly_one(region: Region, a: int) -> bool:
    return region.dbm[0][a + 1] == -1 and region.dbm[a + 1][0] == 1


@dataclass(frozen=True)
class PhaseDrift(RegionDrift):
    """A region with a phase vector: mean drift of x (scaled integers), cone generators, transitions.

    Examples
    --------
    An M/E2/1 queue (arrivals 1, Erlang-2 service of mean 1/2): in service phase 2
    a customer leaves at rate 4.

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Distribution, Network, Station, Stream
    >>> from certify.markov.drift import compile_drifts
    >>> from certify.markov.phases import expand
    >>> net = Network("e2", (Station("1", F(2), service=Distribution("erlang", (("k", 2),))),),
    ...               (Stream(F(1), choice=("1",)),))
    >>> rd = compile_drifts(expand(net))[-1]
    >>> rd.describe(("1",)), rd.mean, rd.generators
    ('x1 >= 2; service phase of 1 2', (-3,), ((1,),))
    >>> rd.phase_moves()                                  # (jump, new phases, scaled rate)
    [(((0, -1),), (0,), 4), (((0, 1),), (1,), 1)]
    """

    moves: tuple[PhaseMove, ...] = ()  # (the inherited ``phase`` field holds the phase vector)

    def phase_moves(self) -> list[PhaseMove]:
        """The transitions: (jump of x, new phase vector, scaled rate)."""
        return list(self.moves)

    def jumps(self) -> list[tuple[Jump, int]]:
        """The jumps of x with their scaled rates (phase changes alone dropped, equal jumps merged)."""
        acc: dict[Jump, int] = defaultdict(int)
        for d, _, r in self.moves:
            if d:
                acc[d] += r
        return sorted(acc.items())

    def describe(self, ids: Sequence[str]) -> str:
        """The region's constraints, then the phase of each phase-type primitive."""
        chain: PhaseChain = self.rates.chain  # type: ignore[assignment]
        ph = ", ".join(f"{name} {'empty' if v < 0 else v + 1}" for name, v in zip(chain.phase_names(), self.phase))
        return f"{self.region.describe(ids)}; {ph}"


def _jump(*parts: tuple[int, int]) -> Jump:
    acc: dict[int, int] = defaultdict(int)
    for a, s in parts:
        acc[a] += s
    return tuple(sorted((a, s) for a, s in acc.items() if s))


def phase_transitions(chain: PhaseChain, region: Region, phi: tuple[int, ...]) -> dict[tuple[Jump, tuple[int, ...]], Fraction]:
    """Every transition out of the states (x in ``region``, ``phi``): {(jump, new phases): rate}.

    Self-loops (no change of x or phases) are dropped.  The rules: an arriving
    customer joins argmin over its choice set (tie split); if it joins an empty
    phase-type station, that station's service phase is drawn from its initial
    law.  A finishing phase-type service draws the next customer's phase from the
    initial law, or leaves the phase empty when the station empties (a customer
    fed back into the same station starts a new service there).  A stream's
    arrival restarts its phase from its initial law.

    Parameters
    ----------
    chain : PhaseChain
        The chain.
    region : Region
        A region refined by ``chain.base_levels``.
    phi : tuple of int
        A phase vector consistent with the region's empty stations.

    Returns
    -------
    dict of (Jump, phase vector) to Fraction
        The exact rates.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Distribution, Network, Station, Stream
    >>> from certify.markov.phases import expand
    >>> from certify.markov.regions import enumerate_regions
    >>> net = Network("e2", (Station("1", F(2), service=Distribution("erlang", (("k", 2),))),),
    ...               (Stream(F(1), choice=("1",)),))
    >>> ch = expand(net)
    >>> phase_transitions(ch, enumerate_regions(ch, ch.base_levels)[2], (1,))
    {(((0, 1),), (1,)): Fraction(1, 1), (((0, -1),), (0,)): Fraction(4, 1)}
    """
    ph_pos = {i: k for k, i in enumerate(chain.ph_stations)}
    nst = len(ph_pos)
    argmin = dict(zip(chain.routing_sets, region.argmin))
    shift_argmin = dict(zip(chain.shifted_sets, region.shifted))
    empty = set(region.empty)
    acc: dict[tuple[Jump, tuple[int, ...]], Fraction] = defaultdict(Fraction)

    def add(d: Jump, new: list[int], rate: Fraction) -> None:
        t = tuple(new)
        if rate and (d or t != phi):
            acc[(d, t)] += rate

    def join(
        C: tuple[int, ...], rate: Fraction, base: tuple[tuple[int, int], ...], new: list[int], B: tuple[int, ...] | None = None
    ) -> None:
        """A customer routed to choice set C (argmin B) from a state whose other changes are ``base``/``new``."""
        for j, p in chain.tie_split(B or argmin.get(C, C)):
            if j in ph_pos and j in empty and not any(a == j for a, _ in base):
                alpha = chain.service[j].alpha  # type: ignore[union-attr]
                for q, a in enumerate(alpha):
                    if a:
                        n2 = list(new)
                        n2[ph_pos[j]] = q
                        add(_jump(*base, (j, 1)), n2, rate * p * a)
            else:
                add(_jump(*base, (j, 1)), list(new), rate * p)

    def internal(law: PhaseType, pos: int) -> None:
        """Phase changes of the law at position ``pos`` (nobody moves)."""
        for a, b, r in law.moves:
            if a == phi[pos]:
                new = list(phi)
                new[pos] = b
                add((), new, r)

    # exponential streams
    for C, lam in chain.exp_arrivals:
        join(C, lam, (), list(phi))
    # phase-type streams: internal moves, and arrivals that restart the phase
    for k, (ph, sets) in enumerate(chain.ph_streams):
        pos = nst + k
        cur = phi[pos]
        internal(ph, pos)
        if ph.exit[cur]:
            for q, al in enumerate(ph.alpha):
                if al:
                    new = list(phi)
                    new[pos] = q
                    for C, prob in sets:
                        join(C, ph.exit[cur] * al * prob, (), new)
    # services
    fb: dict[int, list[tuple[tuple[int, ...], Fraction]]] = defaultdict(list)
    for i, C, p in chain.feedback:
        fb[i].append((C, p))
    for i in range(chain.J):
        if i in empty:
            continue
        routes: list[tuple[tuple[int, ...] | None, Fraction]] = [(None, chain.leave[i]), *fb[i]]
        if i not in ph_pos:
            for dest, p in routes:
                if dest is None:
                    add(_jump((i, -1)), list(phi), chain.mu[i] * p)
                else:
                    join(dest, chain.mu[i] * p, ((i, -1),), list(phi), shift_argmin.get((i, dest)) or argmin.get(dest, dest))
            continue
        law = chain.service[i]
        assert law is not None
        pos = ph_pos[i]
        cur = phi[pos]
        internal(law, pos)
        ex = law.exit[cur]
        if not ex:
            continue
        last = _exactly_one(region, i)
        for dest, p in routes:
            if not p:
                continue
            targets: list[tuple[int | None, Fraction]] = [(None, Fraction(1))]
            if dest is not None:
                targets = list(chain.tie_split(shift_argmin.get((i, dest)) or argmin.get(dest, dest)))
            for j, share in targets:
                stays = j == i or not last  # someone is served next at i
                nexts = [(q, al) for q, al in enumerate(law.alpha) if al] if stays else [(-1, Fraction(1))]
                for q, al in nexts:
                    new = list(phi)
                    new[pos] = q
                    rate = ex * p * share * al
                    if j is None:
                        add(_jump((i, -1)), new, rate)
                    elif j == i:
                        add((), new, rate)
                    else:
                        join((j,), rate, ((i, -1),), new)
    return dict(acc)


class _PhaseRates:
    """Stands in for drift._Rates on phase items (describe() reads the chain from it)."""

    def __init__(self, chain: PhaseChain):
        self.chain = chain


def compile_phase_drifts(chain: PhaseChain, regions: list[Region], deadline: float | None = None) -> list[PhaseDrift]:
    """One :class:`PhaseDrift` per (region, phase vector consistent with the region's empty stations).

    The regions must be refined by (at least) ``chain.base_levels``.  With a
    ``deadline`` the clock is polled once per region (raises
    :class:`certify.markov.regions.TimeLimitReached`).

    Parameters
    ----------
    chain : PhaseChain
        The chain.
    regions : list of Region
        Its regions, refined by ``chain.base_levels``.
    deadline : float, optional
        A ``time.perf_counter()`` value.

    Returns
    -------
    list of PhaseDrift
        Region by region, phase vector by phase vector.

    Raises
    ------
    ValueError
        When the regions are not refined by x = 1 at the phase-type stations.
    TimeLimitReached
        When the deadline passes.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Distribution, Network, Station, Stream
    >>> from certify.markov.phases import expand
    >>> from certify.markov.regions import enumerate_regions
    >>> net = Network("e2", (Station("1", F(2), service=Distribution("erlang", (("k", 2),))),),
    ...               (Stream(F(1), choice=("1",)),))
    >>> ch = expand(net)
    >>> [(d.describe(ch.ids), d.mean) for d in compile_phase_drifts(ch, enumerate_regions(ch, ch.base_levels))][:3]
    [('x1 = 0; service phase of 1 empty', (1,)), ('x1 = 1; service phase of 1 1', (1,)), ('x1 = 1; service phase of 1 2', (-3,))]
    """
    missing = [chain.ids[i] for i in chain.ph_stations if regions and not _refined(regions, i)]
    if missing:
        raise ValueError(f"regions are not refined by x = 1 at phase-type stations {missing}")
    rates = _PhaseRates(chain)
    D = chain.scale
    ph_pos = {i: k for k, i in enumerate(chain.ph_stations)}
    space = chain.phase_space()
    out = []
    for reg in regions:
        check_deadline(deadline, "drift compilation (phases)")
        empty = set(reg.empty)
        gens = tuple(cone_generators(reg))
        for phi in space:
            if any((phi[k] < 0) != (i in empty) for i, k in ph_pos.items()):
                continue
            trans = phase_transitions(chain, reg, phi)
            moves = tuple(sorted((d, t, _int(r * D)) for (d, t), r in trans.items()))
            mean = [0] * chain.J
            for d, _, r in moves:
                for a, s in d:
                    mean[a] += s * r
            out.append(PhaseDrift(reg, tuple(mean), gens, rates, phi, moves))  # type: ignore[arg-type]
    return out


def _refined(regions: list[Region], i: int) -> bool:
    """Every region pins x_i to 0 or 1, or keeps it >= 2."""
    return all(r.dbm[0][i + 1] <= -2 or r.dbm[i + 1][0] <= 1 for r in regions)
