"""The interface every Lyapunov template shares (exact, numpy-free).

A template is a parametrised V whose drift on each region, along each
generator of the region's recession cone, is *linear* in the coefficients.
It hands the search loop plain linear rows, so a new template needs no edit
to the search or to the checker:

* ``row_keys()``: one drift inequality per (region, cone generator) with weight ``|g|_1``,
  meaning  slope(theta) <= -delta * weight;
* ``row_values(theta)``: the exact slopes at rational coefficients (the checker's side);
* ``lp_matrix()``: the same rows as a float matrix in the coefficients (the search's
  side; numpy is imported inside, so the checker never loads it);
* ``side_rows()``: rows ``sum_k coef_k theta_k <= rhs`` that make V bounded below
  (they may use auxiliary LP variables, which are not part of the certificate);
* ``check_side(theta)``: the exact condition on the certificate's coefficients;
* ``repair(theta)``: mend what rounding to rationals broke (e.g. a diagonal);
* ``affine_drifts(theta)``: AV <= a'x + c on each region, for the exceptional-set bound.

Templates whose conditions are not linear rows (SOS/SDP templates, say)
override the two hooks that the search loop and the checker call,
``candidates(theta)`` (rational
roundings to try, e.g. Peyrl–Parrilo projections) and ``exact_drift(theta, levels)``
(the exact drift condition; the default checks the rows).  Their numeric
search lives in :mod:`certify.search`: :func:`certify.search.template.search_template`
dispatches by template type (the LP of :func:`certify.search.lp.solve_template`, or an SDP).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import ceil
from typing import TYPE_CHECKING, Any, ClassVar

from ..core.errors import CertificateError
from ..markov.chain import Chain
from ..markov.drift import RegionDrift
from ..markov.regions import vertex_bound

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

__all__ = [
    "DriftRow",
    "SideRow",
    "Template",
    "DENOMINATORS",
    "MAX_CLIP_LEVEL",
    "MAX_REFINEMENT",
    "round_to_grid",
    "clip_level",
    "station_list",
    "refinement_factor",
]

# Grids tried, finest last, when rounding a float solution to rationals.
DENOMINATORS = (2**12, 2**20, 2**30)

# Bounds on what a certificate may ask the checker to build (prove stays far below them:
# K <= 36, refinement factors <= 250,000).  Checked before anything is expanded.
MAX_CLIP_LEVEL = 100
MAX_REFINEMENT = 1_000_000


def clip_level(value: Any, field: str) -> int:
    """A clip level K: an integer (not a boolean, not a float) in 1..MAX_CLIP_LEVEL; ValueError naming ``field``.

    >>> clip_level(6, "options.K")
    6
    >>> clip_level(6.9, "options.K")
    Traceback (most recent call last):
    ...
    certify.core.errors.CertificateError: options.K: 6.9 must be an integer in 1..100
    """
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_CLIP_LEVEL:
        raise CertificateError(None, field, f"{value!r} must be an integer in 1..{MAX_CLIP_LEVEL}")
    return value


def station_list(chain: Chain, value: Any, field: str, nonempty: bool = False) -> list[str]:
    """Station ids as a list of distinct known ids in the network's order; ValueError naming ``field``.

    The canonical order is the one the checker builds cells and coefficient names in,
    so a reordered or repeated list is refused rather than silently reinterpreted.
    """
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise CertificateError(None, field, f"{value!r} must be a list of station ids (strings)")
    unknown = [s for s in value if s not in chain.ids]
    if unknown:
        raise CertificateError(None, field, f"unknown station {unknown[0]!r} (stations: {', '.join(chain.ids)})")
    if len(set(value)) != len(value):
        dup = next(s for s in value if value.count(s) > 1)
        raise CertificateError(None, field, f"station {dup!r} is listed twice (each station at most once)")
    canonical = [s for s in chain.ids if s in value]
    if value != canonical:
        raise CertificateError(None, field, f"{value!r} must list the stations in the network's order {canonical!r}")
    if nonempty and not value:
        raise CertificateError(None, field, f"{value!r} must name at least one station")
    return list(value)


def refinement_factor(levels: dict[int, int]) -> int:
    """How many pieces the clip levels cut each region into at most: prod (K_a + 2)."""
    out = 1
    for k in levels.values():
        out *= k + 2
    return out


def round_to_grid(values: Iterable[Any], denominator: int) -> list[Fraction]:
    """Round floats to the grid 1/denominator, exactly."""
    return [Fraction(int(round(float(v) * denominator)), denominator) for v in values]


def _gen_str(ids: Sequence[str], g: Sequence[int]) -> str:
    return "{" + ",".join(ids[a] for a in range(len(g)) if g[a]) + "}"


@dataclass(frozen=True)
class DriftRow:
    """The inequality slope <= -delta * weight on region ``region`` along ``generator``."""

    region: int
    generator: tuple[int, ...]
    weight: int


@dataclass(frozen=True)
class SideRow:
    """``sum coeffs[k] * theta[k] <= rhs`` over coefficients and auxiliary variables.

    ``margin`` asks the numeric search to keep a little slack, so that rounding
    to rationals leaves the exact condition intact.
    """

    coeffs: tuple[tuple[int, Fraction], ...]
    rhs: Fraction = Fraction(0)
    margin: bool = False


class Template(ABC):
    """A family of Lyapunov functions; subclasses register under ``name``."""

    name: ClassVar[str]
    summary: ClassVar[str]

    def __init__(self, chain: Chain, drifts: Sequence[RegionDrift], **options: Any):
        self.chain = chain
        self.drifts = drifts
        self.options = self.resolve_options(chain, options)

    @classmethod
    def resolve_options(cls, chain: Chain, options: dict[str, Any]) -> dict[str, Any]:
        """The template's options with defaults filled in (JSON-friendly; stored in certificates)."""
        if options:
            raise CertificateError(None, "options", f"template {cls.name} takes no options, got {sorted(options)}")
        return {}

    @classmethod
    def escalation(cls, chain: Chain) -> list[dict[str, Any]]:
        """Option sets to try in order, cheapest first (prove moves on while time remains)."""
        return [{}]

    @classmethod
    def label(cls, options: dict[str, Any]) -> str:
        """A short name of the template with these options, for reports."""
        return cls.name

    @classmethod
    def clip_levels(cls, chain: Chain, options: dict[str, Any]) -> dict[int, int]:
        """Stations whose small values the template distinguishes, with their clip level K.

        The regions are refined by these levels before the template sees them
        (always including ``chain.base_levels``, which phase-type chains need).
        """
        return dict(chain.base_levels)

    def strict_side(self) -> bool:
        """True when V needs P strictly diagonally dominant (so that x'Px dominates bounded terms)."""
        return False

    @abstractmethod
    def variables(self) -> list[str]:
        """Names of the certificate coefficients, e.g. ``P[1,2]``."""

    def aux_variables(self) -> list[str]:
        """Names of LP-only helper variables (indexed after the coefficients)."""
        return []

    def variable_bounds(self) -> list[Fraction]:
        """Box bounds ``|theta_k|`` <= b_k that normalise the homogeneous search."""
        return [Fraction(1)] * len(self.variables())

    def row_keys(self) -> list[DriftRow]:
        """The drift inequalities, one per (region, cone generator)."""
        return [DriftRow(r, g, sum(g)) for r, rd in enumerate(self.drifts) for g in rd.generators]

    @abstractmethod
    def row_values(self, theta: Sequence[Fraction]) -> tuple[list[int], int]:
        """Exact drift slopes in ``row_keys()`` order at rational coefficients: integers and a positive scale."""

    @abstractmethod
    def lp_matrix(self) -> csr_matrix:  # rows x (variables + aux)
        """The slopes as a float matrix acting on (coefficients, auxiliary variables)."""

    def side_rows(self) -> list[SideRow]:
        return []

    @abstractmethod
    def check_side(self, theta: Sequence[Fraction]) -> list[str]:
        """Exact check that V is bounded below; returns the violated conditions."""

    def repair(self, theta: list[Fraction]) -> list[Fraction]:
        return theta

    @abstractmethod
    def affine_drifts(self, theta: Sequence[Fraction]) -> tuple[list[tuple[list[int], int]], int]:
        """Per region (a, c), and a common scale s > 0, with AV(x) <= (a'x + c) / s on the region."""

    @abstractmethod
    def formula(self, theta: Sequence[Fraction]) -> str:
        """V written out, for humans."""

    # ---- hooks of the search loop and the checker (override for non-LP templates) ----

    def candidates(self, theta: Sequence[float]) -> Iterator[list[Fraction]]:
        """Rational coefficient vectors to check, from the float solution (coarse grid first)."""
        for D in DENOMINATORS:
            yield self.repair(round_to_grid(theta, D))

    def vertex_bound(self, levels: dict[int, int]) -> int:
        """L such that every point of every region is a vertex with coordinates in [0, L] plus a cone element.

        Templates that refine the regions further (adding constants) override this.
        """
        return vertex_bound(self.chain.J, levels)

    def exact_drift(
        self, theta: Sequence[Fraction], levels: dict[int, int], max_failures: int = 5
    ) -> tuple[list[str], dict[str, Any]]:
        """Exact drift condition: every row slope <= -delta * weight with delta > 0.

        Then AV(x) <= M_R - delta ``|x|_1`` on region R, and the facts report delta
        and N with AV(x) <= -delta whenever ``|x|_1`` >= N.
        """
        chain, drifts = self.chain, self.drifts
        failures: list[str] = []
        keys = self.row_keys()
        values, scale = self.row_values(theta)
        bad = 0
        best_v, best_w = 0, 1  # the least ratio -v/w so far, as a pair of integers
        for row, value in zip(keys, values):
            if value >= 0:
                bad += 1
                if bad <= max_failures:
                    reg = drifts[row.region]
                    failures.append(
                        f"region {reg.describe(chain.ids)}: drift slope along {_gen_str(chain.ids, row.generator)} "
                        f"is {Fraction(value, scale)} (must be < 0)"
                    )
                continue
            if best_v == 0 or -value * best_w < best_v * row.weight:
                best_v, best_w = -value, row.weight
        delta = Fraction(best_v, best_w * scale) if best_v else None
        if bad > max_failures:
            failures.append(f"... and {bad - max_failures} more violated drift inequalities")
        facts: dict[str, Any] = {"regions": len(drifts), "rows": len(keys)}
        if failures or delta is None:
            if delta is None and not failures:
                failures.append("no unbounded region: nothing to check")
            return failures, facts
        # On region R: AV(x) <= M_R - delta |x|_1 with M_R = c + L sum(a+) + delta J L,
        # since every point is a vertex (coordinates in [0, L]) plus a cone element.
        L = self.vertex_bound(levels)
        affine, s = self.affine_drifts(theta)
        nums = [c + L * sum(ai for ai in a if ai > 0) for (a, c), rd in zip(affine, drifts) if rd.generators]
        worst = Fraction(max(nums), s) if nums else None
        N = Fraction(chain.J * L + 1)
        if worst is not None:
            N = max(N, (worst + delta * chain.J * L + delta) / delta)
        facts.update(delta=delta, exceptional_l1_bound=Fraction(ceil(N)))
        return failures, facts
