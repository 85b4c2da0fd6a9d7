"""Jumps and mean drift of the chain on each region (exact).

On a region every jump rate is constant, so the generator acts on any
template V through a finite list of (jump vector, rate) pairs.  This module
computes them; templates turn them into drift inequalities.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction

from .chain import Chain
from .regions import Region, cone_generators, enumerate_regions

__all__ = ["Jump", "RegionDrift", "region_jumps", "compile_drifts"]

# A jump vector as sorted ((station, change), ...); change is +1 or -1.
Jump = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class RegionDrift:
    """A region with its jumps, mean drift vector and recession-cone generators."""

    region: Region
    jumps: tuple[tuple[Jump, Fraction], ...]
    mean: tuple[Fraction, ...]
    generators: tuple[tuple[int, ...], ...]


def region_jumps(chain: Chain, region: Region) -> list[tuple[Jump, Fraction]]:
    """The jumps out of any state of ``region`` with their exact rates (self-loops dropped)."""
    sets = chain.routing_sets
    shifted = chain.shifted_sets
    argmin = dict(zip(sets, region.argmin))
    shift_argmin = dict(zip(shifted, region.shifted))
    rates: dict[Jump, Fraction] = defaultdict(Fraction)
    for C, lam in chain.arrivals:
        B = argmin.get(C, C)
        for j, p in chain.tie_split(B):
            rates[((j, 1),)] += lam * p
    empty = set(region.empty)
    for i in range(chain.J):
        if i in empty:
            continue
        mu = chain.mu[i]
        if chain.leave[i]:
            rates[((i, -1),)] += mu * chain.leave[i]
        for src, C, p in chain.feedback:
            if src != i:
                continue
            B = shift_argmin[(i, C)] if (i, C) in shift_argmin else argmin.get(C, C)
            for j, q in chain.tie_split(B):
                if j != i:
                    rates[tuple(sorted(((i, -1), (j, 1))))] += mu * p * q
    return sorted((d, r) for d, r in rates.items() if r)


def compile_drifts(chain: Chain, regions: list[Region] | None = None) -> list[RegionDrift]:
    """Jumps, mean drift and cone generators of every region of ``chain``.

    >>> from fractions import Fraction as F
    >>> from certify.chain import Chain
    >>> mm1 = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    >>> [d.mean for d in compile_drifts(mm1)]
    [(Fraction(1, 1),), (Fraction(-1, 1),)]
    """
    if regions is None:
        regions = enumerate_regions(chain)
    out = []
    for r in regions:
        jumps = region_jumps(chain, r)
        mean = [Fraction(0)] * chain.J
        for d, rate in jumps:
            for a, s in d:
                mean[a] += s * rate
        out.append(RegionDrift(r, tuple(jumps), tuple(mean), tuple(cone_generators(r))))
    return out
