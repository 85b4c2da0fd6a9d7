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

    Attributes
    ----------
    region : Region
        The region.
    mean : tuple of int
        The mean drift vector times ``chain.scale``.
    generators : tuple of tuple of int
        The generators of the region's recession cone (none: the region is bounded).
    rates : _Rates
        The chain's memoised scaled rates (for :meth:`jumps`).
    phase : tuple of int
        The phase vector (phase-type chains only).

    Examples
    --------
    Two stations of rate 1 sharing a JSQ stream of rate 3/2 (``chain.scale`` = 4):
    on x1 < x2 every arrival joins station 1.

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> from certify.markov.drift import compile_drifts
    >>> net = Network("jsq2", (Station("1", F(1)), Station("2", F(1))), (Stream(F(3, 2), choice=("1", "2")),))
    >>> chain = compile_chain(net)
    >>> rd = compile_drifts(chain)[1]
    >>> rd.describe(chain.ids), rd.mean, rd.generators
    ('x1 < x2, x1 >= 1', (2, -4), ((1, 1), (0, 1)))
    >>> rd.jumps()                                 # (jump, rate x 4): x1 -1 at 4, x1 +1 at 6, x2 -1 at 4
    [(((0, -1),), 4), (((0, 1),), 6), (((1, -1),), 4)]
    """

    region: Region
    mean: tuple[int, ...]
    generators: tuple[tuple[int, ...], ...]
    rates: _Rates = field(repr=False, compare=False)
    phase: tuple[int, ...] = ()  # the phase vector (phase-type chains only)

    def jumps(self) -> list[tuple[Jump, int]]:
        """The jumps out of any state of the region with their scaled rates (:func:`region_jumps`)."""
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
        # region_jumps and region_mean read a region only through (argmin, shifted, empty): one answer per key
        self.jumps_of: dict[tuple[object, ...], tuple[tuple[Jump, int], ...]] = {}  # by Region.routing
        self.mean_of: dict[tuple[object, ...], tuple[int, ...]] = {}

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
    """The jumps out of any state of ``region`` with their rates times ``chain.scale`` (self-loops dropped).

    Parameters
    ----------
    chain : Chain
        An exponential chain.
    region : Region
        One of its regions.
    rates : _Rates, optional
        Memoised scaled rates of the chain (built when not given).

    Returns
    -------
    list of (Jump, int)
        Sorted (jump vector, scaled rate) pairs.

    Raises
    ------
    ArithmeticError
        If ``chain.scale`` does not clear a rate's denominator (cannot happen for a compiled chain).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> from certify.markov.regions import enumerate_regions
    >>> mm1 = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    >>> [region_jumps(mm1, r) for r in enumerate_regions(mm1)]
    [[(((0, 1),), 1)], [(((0, -1),), 2), (((0, 1),), 1)]]
    """
    rates = rates or _Rates(chain)
    key = region.routing
    known = rates.jumps_of.get(key)
    if known is None:
        known = rates.jumps_of[key] = _jumps(chain, region, rates)
    return list(known)


def _jumps(chain: Chain, region: Region, rates: _Rates) -> tuple[tuple[Jump, int], ...]:
    """:func:`region_jumps` computed (its callers memoise it by the region's routing signature)."""
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
    return tuple(sorted((d, r) for d, r in acc.items() if r))


def region_mean(chain: Chain, region: Region, rates: _Rates) -> tuple[int, ...]:
    """Mean drift vector on ``region`` times ``chain.scale`` (the sum of the jumps, computed directly).

    Parameters
    ----------
    chain : Chain
        An exponential chain.
    region : Region
        One of its regions.
    rates : _Rates
        Memoised scaled rates of the chain.

    Returns
    -------
    tuple of int
        The mean drift times ``chain.scale``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> from certify.markov.regions import enumerate_regions
    >>> mm1 = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    >>> [region_mean(mm1, r, _Rates(mm1)) for r in enumerate_regions(mm1)]
    [(1,), (-1,)]
    """
    key = region.routing
    known = rates.mean_of.get(key)
    if known is None:
        known = rates.mean_of[key] = _mean(chain, region, rates)
    return known


def _mean(chain: Chain, region: Region, rates: _Rates) -> tuple[int, ...]:
    """:func:`region_mean` computed (memoised by the region's routing signature)."""
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
