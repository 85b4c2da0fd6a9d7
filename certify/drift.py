"""Jumps and mean drift of the chain on each region (exact, in scaled integers).

On a region every jump rate is constant, so the generator acts on any
template V through a finite list of (jump vector, rate) pairs.  Rates are kept
as integers scaled by :attr:`certify.chain.Chain.scale` (true rate = value /
scale): exact, and far faster than Fractions on large networks.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from .chain import Chain
from .regions import POLL_EVERY, Region, check_deadline, cone_generators, enumerate_regions

__all__ = ["Jump", "RegionDrift", "region_jumps", "compile_drifts", "cell_of", "cell_moves"]

# A jump vector as sorted ((station, change), ...); change is +1 or -1.
Jump = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class RegionDrift:
    """A region with its mean drift (integers scaled by ``chain.scale``) and cone generators.

    ``jumps()`` lists the individual moves (computed on demand).
    """

    region: Region
    mean: tuple[int, ...]
    generators: tuple[tuple[int, ...], ...]
    rates: _Rates = field(repr=False, compare=False)
    phase: tuple[int, ...] = ()  # the phase vector (phase-type chains only)

    def jumps(self) -> list[tuple[Jump, int]]:
        return region_jumps(self.rates.chain, self.region, self.rates)

    def phase_moves(self) -> list[tuple[Jump, tuple[int, ...], int]]:
        """The jumps with their target phase vectors (none here)."""
        return [(d, (), r) for d, r in self.jumps()]

    def describe(self, ids) -> str:
        """The region's constraints in words (phase-type drifts add the phases)."""
        return self.region.describe(ids)


class _Rates:
    """Memoised scaled-integer rates of the elementary moves of a chain."""

    def __init__(self, chain: Chain):
        D = chain.scale
        self.arrivals = [(C, k) for k, (C, _) in enumerate(chain.arrivals)]
        self.rate_of: list[Fraction] = [lam for _, lam in chain.arrivals]
        self.leave = [_int(m * lv * D) for m, lv in zip(chain.mu, chain.leave)]
        # per station: (feedback set, index of its rate mu_i * p in rate_of)
        self.feedback: list[list[tuple[tuple[int, ...], int]]] = [[] for _ in range(chain.J)]
        for i, C, p in chain.feedback:
            self.feedback[i].append((C, len(self.rate_of)))
            self.rate_of.append(chain.mu[i] * p)
        self.D = D
        self.chain = chain
        self._split: dict[tuple[tuple[int, ...], int], tuple[tuple[int, int], ...]] = {}

    def split(self, B: tuple[int, ...], k: int) -> tuple[tuple[int, int], ...]:
        """How the move with rate ``rate_of[k]`` splits over the tied set B (scaled integers)."""
        key = (B, k)
        out = self._split.get(key)
        if out is None:
            rate = self.rate_of[k]
            out = tuple((j, _int(rate * p * self.D)) for j, p in self.chain.tie_split(B))
            self._split[key] = out
        return out


def _int(x: Fraction) -> int:
    if x.denominator != 1:
        raise ArithmeticError(f"rate scale does not clear the denominator of {x}")
    return x.numerator


def region_jumps(chain: Chain, region: Region, rates: _Rates | None = None) -> list[tuple[Jump, int]]:
    """The jumps out of any state of ``region`` with their rates times ``chain.scale`` (self-loops dropped)."""
    rates = rates or _Rates(chain)
    argmin = dict(zip(chain.routing_sets, region.argmin))
    shift_argmin = dict(zip(chain.shifted_sets, region.shifted))
    acc: dict[Jump, int] = defaultdict(int)
    split = rates.split
    for C, k in rates.arrivals:
        for j, r in split(argmin.get(C, C), k):
            acc[((j, 1),)] += r
    empty = region.empty
    for i in range(chain.J):
        if i in empty:
            continue
        if rates.leave[i]:
            acc[((i, -1),)] += rates.leave[i]
        for C, k in rates.feedback[i]:
            B = shift_argmin.get((i, C)) or argmin.get(C, C)
            for j, r in split(B, k):
                if j != i:
                    acc[((i, -1), (j, 1)) if i < j else ((j, 1), (i, -1))] += r
    return sorted((d, r) for d, r in acc.items() if r)


def region_mean(chain: Chain, region: Region, rates: _Rates) -> tuple[int, ...]:
    """Mean drift vector on ``region`` times ``chain.scale`` (the sum of the jumps, computed directly)."""
    argmin = dict(zip(chain.routing_sets, region.argmin))
    shift_argmin = dict(zip(chain.shifted_sets, region.shifted))
    mean = [0] * chain.J
    split = rates.split
    for C, k in rates.arrivals:
        for j, r in split(argmin.get(C, C), k):
            mean[j] += r
    empty = region.empty
    for i in range(chain.J):
        if i in empty:
            continue
        out = rates.leave[i]
        for C, k in rates.feedback[i]:
            for j, r in split(shift_argmin.get((i, C)) or argmin.get(C, C), k):
                if j != i:
                    out += r
                    mean[j] += r
        mean[i] -= out
    return tuple(mean)


def compile_drifts(chain: Chain, regions: list[Region] | None = None, deadline: float | None = None) -> list[RegionDrift]:
    """Mean drift (scaled by ``chain.scale``) and cone generators of every region.

    With a ``deadline`` (``time.perf_counter()`` value) the loop polls the clock
    and raises :class:`certify.regions.TimeLimitReached` once it has passed.

    >>> from fractions import Fraction as F
    >>> from certify.chain import Chain
    >>> mm1 = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    >>> [d.mean for d in compile_drifts(mm1)], mm1.scale
    ([(1,), (-1,)], 1)
    """
    if regions is None:
        regions = enumerate_regions(chain, chain.base_levels, deadline=deadline)
    if chain.has_phases:
        from .phase_drift import compile_phase_drifts

        return list(compile_phase_drifts(chain, regions, deadline=deadline))  # type: ignore[arg-type]
    rates = _Rates(chain)
    out = []
    for k, r in enumerate(regions):
        if deadline is not None and k % POLL_EVERY == 0:
            check_deadline(deadline, "drift compilation")
        out.append(RegionDrift(r, region_mean(chain, r, rates), tuple(cone_generators(r)), rates))
    return out


def cell_of(rd: RegionDrift, fast: Sequence[int], K: int) -> tuple[int, ...]:
    """The table cell of a region (refined by clip levels K at ``fast``): min(x_fast, K), then the phases."""
    return tuple(min(-rd.region.dbm[0][a + 1], K) for a in fast) + rd.phase


def cell_moves(rd: RegionDrift, fast: Sequence[int], K: int) -> tuple[tuple[int, ...], dict[tuple[int, ...], int], int]:
    """Cell c = (min(x_fast, K), phases) on a region refined by clip levels, the cells its jumps lead to.

    Returns (c, {target cell: scaled rate}, total scaled rate of cell-changing jumps).
    On a refined region x_a is either a known k <= K or >= K+1, so the least
    value of x_a on the region (``-dbm[0][a]``) plus the jump, clipped at K, is
    the target level.
    """
    lows = [-rd.region.dbm[0][a + 1] for a in fast]
    c = cell_of(rd, fast, K)
    pos = {a: k for k, a in enumerate(fast)}
    moves: dict[tuple[int, ...], int] = defaultdict(int)
    for d, phase, rate in rd.phase_moves():
        lv = list(lows)
        for a, s in d:
            if a in pos:
                lv[pos[a]] += s
        c2 = tuple(min(v, K) for v in lv) + tuple(phase)
        if c2 != c:
            moves[c2] += rate
    return c, dict(moves), sum(moves.values())
