"""The interface every Lyapunov template shares (exact, numpy-free).

A template is a parametrised V whose drift on each region, along each
generator of the region's recession cone, is *linear* in the coefficients.
It hands the search loop plain linear rows, so a new template needs no edit
to the search or to the checker:

* ``row_keys()``: one drift inequality per (region, cone generator) with weight |g|_1,
  meaning  slope(theta) <= -delta * weight;
* ``row_values(theta)``: the exact slopes at rational coefficients (the checker's side);
* ``lp_matrix()``: the same rows as a float matrix in the coefficients (the search's
  side; numpy is imported inside, so the checker never loads it);
* ``side_rows()``: rows ``sum_k coef_k theta_k <= rhs`` that make V bounded below
  (they may use auxiliary LP variables, which are not part of the certificate);
* ``check_side(theta)``: the exact condition on the certificate's coefficients;
* ``repair(theta)``: mend what rounding to rationals broke (e.g. a diagonal);
* ``affine_drifts(theta)``: AV <= a'x + c on each region, for the exceptional-set bound.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from ..chain import Chain
from ..drift import RegionDrift

__all__ = ["DriftRow", "SideRow", "Template"]


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
            raise ValueError(f"template {cls.name} takes no options, got {sorted(options)}")
        return {}

    @classmethod
    def escalation(cls, chain: Chain) -> list[dict[str, Any]]:
        """Option sets to try in order, cheapest first (prove moves on while time remains)."""
        return [{}]

    @classmethod
    def clip_levels(cls, chain: Chain, options: dict[str, Any]) -> dict[int, int]:
        """Stations whose small values the template distinguishes, with their clip level K.

        The regions are refined by these levels before the template sees them.
        """
        return {}

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
        """Box bounds |theta_k| <= b_k that normalise the homogeneous search."""
        return [Fraction(1)] * len(self.variables())

    def row_keys(self) -> list[DriftRow]:
        """The drift inequalities, one per (region, cone generator)."""
        return [DriftRow(r, g, sum(g)) for r, rd in enumerate(self.drifts) for g in rd.generators]

    @abstractmethod
    def row_values(self, theta: Sequence[Fraction]) -> tuple[list[int], int]:
        """Exact drift slopes in ``row_keys()`` order at rational coefficients: integers and a positive scale."""

    @abstractmethod
    def lp_matrix(self):  # -> scipy.sparse matrix, rows x (variables + aux)
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
