"""The jumps of an exponential chain on a region, and its mean drift there (exact, in scaled integers).

On a region every jump rate is constant, so the generator acts on any
template V through a finite list of (jump vector, rate) pairs.  Rates are kept
as integers scaled by :attr:`certify.markov.chain.Chain.scale` (true rate = value /
scale).  :mod:`certify.markov.drift` compiles these for every region (and
dispatches phase-type chains to :mod:`certify.markov.phase_drift`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from .chain import Chain
from .regions import Region

__all__ = ["Jump", "RegionDrift", "region_jumps", "region_mean"]

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

    def describe(self, ids: Sequence[str]) -> str:
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
