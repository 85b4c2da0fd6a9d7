"""The linear-rows layer of the LP templates: drift rows, side rows, and the drift check built on them (exact).

An LP template is a :class:`~certify.templates.base.Template` whose drift on
each region, along each generator of the region's recession cone, is *linear*
in the coefficients.  It hands the search plain linear rows, so a new LP
template needs no edit to the search or to the checker:

* ``row_keys()``: one drift inequality per (region, cone generator) with weight ``|g|_1``,
  meaning  slope(theta) <= -delta * weight;
* ``row_values(theta)``: the exact slopes at rational coefficients (the checker's side);
* ``lp_matrix()``: the same rows as a float matrix in the coefficients (the search's
  side; numpy is imported inside, so the checker never loads it);
* ``side_rows()``: rows ``sum_k coef_k theta_k <= rhs`` that make V bounded below
  (they may use auxiliary LP variables, which are not part of the certificate);
* ``repair(theta)``: mend what rounding to rationals broke (e.g. a diagonal);
* ``affine_drifts(theta)``: AV <= a'x + c on each region, for the exceptional-set bound.

It then gets the readable drift argument too (:meth:`LinearTemplate.explain_drift`:
the affine bound and the steepest slope on each region); only
``explain_function`` (V itself) is the template's own to write.

:meth:`LinearTemplate.exact_drift` checks the rows and derives the exceptional
set from the affine drifts; :func:`certify.search.lp.solve_template` solves the rows.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import ceil
from typing import TYPE_CHECKING

from ..core.latex import frac_tex, linear_tex, norm_tex
from .base import DriftFacts, Template, _gen_str
from .readable import DriftText, Part, Sentence, Tex, region_cell

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

__all__ = ["DriftRow", "SideRow", "LinearTemplate"]


@dataclass(frozen=True)
class DriftRow:
    """The inequality slope <= -delta * weight on region ``region`` along ``generator``.

    Attributes
    ----------
    region : int
        Index of the region in the template's ``drifts``.
    generator : tuple of int
        The cone generator (a 0/1 station vector).
    weight : int
        ``|generator|_1``.

    Examples
    --------
    >>> DriftRow(1, (1, 1), 2).weight
    2
    """

    region: int
    generator: tuple[int, ...]
    weight: int


@dataclass(frozen=True)
class SideRow:
    """``sum coeffs[k] * theta[k] <= rhs`` over coefficients and auxiliary variables.

    ``margin`` asks the numeric search to keep a little slack, so that rounding
    to rationals leaves the exact condition intact.

    Attributes
    ----------
    coeffs : tuple of (int, Fraction)
        (variable index, coefficient) pairs; auxiliary variables are indexed after the coefficients.
    rhs : Fraction
        The right side.
    margin : bool
        Keep slack in the search.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> SideRow(((0, F(-1)),)).rhs                        # -theta_0 <= 0
    Fraction(0, 1)
    """

    coeffs: tuple[tuple[int, Fraction], ...]
    rhs: Fraction = Fraction(0)
    margin: bool = False


class LinearTemplate(Template):
    """A template whose drift conditions are linear rows in the coefficients (an LP).

    Adds to :class:`~certify.templates.base.Template` the rows the LP search
    solves (:meth:`row_keys`, :meth:`lp_matrix`, :meth:`side_rows`,
    :meth:`variable_bounds`, :meth:`aux_variables`), their exact values
    (:meth:`row_values`, :meth:`affine_drifts`), the repair of rounded
    coefficients, and the exact drift check built on them.

    Parameters
    ----------
    chain, drifts, **options
        As for :class:`~certify.templates.base.Template`.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> from certify.markov.drift import compile_drifts
    >>> from certify.templates import Quadratic
    >>> net = Network("jsq2", (Station("1", F(1)), Station("2", F(1))), (Stream(F(3, 2), choice=("1", "2")),))
    >>> chain = compile_chain(net)
    >>> tmpl = Quadratic(chain, compile_drifts(chain))
    >>> isinstance(tmpl, LinearTemplate), len(tmpl.row_keys()), tmpl.lp_matrix().shape
    (True, 7, (7, 4))
    """

    # ---- the LP: variables and rows ----

    def aux_variables(self) -> list[str]:
        """Names of LP-only helper variables (indexed after the coefficients; not part of the certificate).

        Returns
        -------
        list of str
            The names (none by default).
        """
        return []

    def tied(self) -> list[int] | None:
        """The orbit of each LP variable under ``self.symmetry``, for an invariant search (None: nothing tied).

        Returns
        -------
        list of int or None
            A group number per variable (coefficients, then auxiliary variables; the
            coefficients' groups numbered first): the search solves for one value
            per group.  None without a symmetry.
        """
        return None

    def tied_lp_matrix(self, E: csr_matrix) -> csr_matrix:
        """The slopes on the tied variables: :meth:`lp_matrix` times E (templates may compute it directly).

        Parameters
        ----------
        E : scipy.sparse.csr_matrix
            The 0/1 matrix with x = E y (one column per group of :meth:`tied`).

        Returns
        -------
        scipy.sparse.csr_matrix
            Rows in :meth:`row_keys` order, one column per group.
        """
        import scipy.sparse as sp

        return sp.csr_matrix(self.lp_matrix() @ E)

    def variable_bounds(self) -> list[Fraction]:
        """Box bounds ``|theta_k|`` <= b_k that normalise the homogeneous search.

        Returns
        -------
        list of Fraction
            One bound per coefficient (1 by default).
        """
        return [Fraction(1)] * len(self.variables())

    def row_keys(self) -> list[DriftRow]:
        """The drift inequalities, one per (region, cone generator).

        Returns
        -------
        list of DriftRow
            In the order of :meth:`row_values` and of the rows of :meth:`lp_matrix`.

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> from certify.markov.chain import Chain
        >>> from certify.markov.drift import compile_drifts
        >>> from certify.templates import Quadratic
        >>> mm1 = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
        >>> Quadratic(mm1, compile_drifts(mm1)).row_keys()
        [DriftRow(region=1, generator=(1,), weight=1)]
        """
        return [DriftRow(r, g, sum(g)) for r, rd in enumerate(self.drifts) for g in rd.generators]

    @abstractmethod
    def row_values(self, theta: Sequence[Fraction]) -> tuple[list[int], int]:
        """Exact drift slopes in :meth:`row_keys` order at rational coefficients.

        Parameters
        ----------
        theta : sequence of Fraction
            The coefficients.

        Returns
        -------
        values : list of int
            The slopes times ``scale``.
        scale : int
            A positive common denominator.
        """

    @abstractmethod
    def lp_matrix(self) -> csr_matrix:
        """The slopes as a float matrix acting on (coefficients, auxiliary variables).

        Returns
        -------
        scipy.sparse.csr_matrix
            Rows in :meth:`row_keys` order.
        """

    def side_rows(self) -> list[SideRow]:
        """Rows that make V bounded below in the search (the checker's side is ``check_side``).

        Returns
        -------
        list of SideRow
            The rows (none by default).
        """
        return []

    def repair(self, theta: list[Fraction]) -> list[Fraction]:
        """Mend what rounding to rationals broke (e.g. raise a diagonal), exactly.

        Parameters
        ----------
        theta : list of Fraction
            Rounded coefficients.

        Returns
        -------
        list of Fraction
            The mended coefficients (``theta`` itself by default).
        """
        return theta

    @abstractmethod
    def affine_drifts(self, theta: Sequence[Fraction]) -> tuple[list[tuple[list[int], int]], int]:
        """Per region an affine bound AV(x) <= (a'x + c) / s on the region.

        Parameters
        ----------
        theta : sequence of Fraction
            The coefficients.

        Returns
        -------
        bounds : list of (list of int, int)
            ``(a, c)`` per region, in ``drifts`` order.
        s : int
            The common scale, > 0.
        """

    # ---- rounding and the exact drift condition ----

    def candidates(self, theta: Sequence[float]) -> Iterator[list[Fraction]]:
        """The roundings of :meth:`Template.candidates`, each mended by :meth:`repair`.

        Parameters
        ----------
        theta : sequence of float
            The search's solution.

        Yields
        ------
        list of Fraction
            A candidate, coarse grid first.
        """
        for rounded in super().candidates(theta):
            yield self.repair(rounded)

    def exact_drift(
        self, theta: Sequence[Fraction], levels: dict[int, int], max_failures: int = 5
    ) -> tuple[list[str], DriftFacts]:
        """Exact drift condition from the rows: every row slope <= -delta * weight with delta > 0.

        Then AV(x) <= M_R - delta ``|x|_1`` on region R (M_R from :meth:`affine_drifts`
        and :meth:`vertex_bound`), and the facts report delta and N with
        AV(x) <= -delta whenever ``|x|_1`` >= N.

        Parameters
        ----------
        theta, levels, max_failures
            As for :meth:`Template.exact_drift`.

        Returns
        -------
        failures : list of str
            The rows with slope >= 0, in words.
        facts : DriftFacts
            ``regions``, ``rows``, and when the rows hold ``delta`` and ``exceptional_l1_bound``.

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> from certify.markov.chain import Chain
        >>> from certify.markov.drift import compile_drifts
        >>> from certify.templates import Quadratic
        >>> mm1 = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
        >>> Quadratic(mm1, compile_drifts(mm1)).exact_drift([F(1)], {})
        ([], DriftFacts(regions=2, rows=1, delta=Fraction(2, 1), exceptional_l1_bound=Fraction(10, 1)))
        >>> Quadratic(mm1, compile_drifts(mm1)).exact_drift([F(-1)], {})[0]
        ['region x1 >= 1: drift slope along {1} is 2 (must be < 0)']
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
        checked = DriftFacts(len(drifts), len(keys))
        if failures or delta is None:
            if delta is None and not failures:
                failures.append("no unbounded region: nothing to check")
            return failures, checked
        # On region R: AV(x) <= M_R - delta |x|_1 with M_R = c + L sum(a+) + delta J L,
        # since every point is a vertex (coordinates in [0, L]) plus a cone element.
        L = self.vertex_bound(levels)
        affine, s = self.affine_drifts(theta)
        nums = [c + L * sum(ai for ai in a if ai > 0) for (a, c), rd in zip(affine, drifts) if rd.generators]
        worst = Fraction(max(nums), s) if nums else None
        N = Fraction(chain.J * L + 1)
        if worst is not None:
            N = max(N, (worst + delta * chain.J * L + delta) / delta)
        return failures, DriftFacts(len(drifts), len(keys), delta, Fraction(ceil(N)))

    # ---- the readable proof ----

    def explain_drift(self, theta: Sequence[Fraction], delta: Fraction) -> DriftText:
        """Per unbounded region: the affine bound on AV (:meth:`affine_drifts`), its steepest slope per unit of ``|g|_1``, the slack.

        Parameters
        ----------
        theta, delta
            As for :meth:`Template.explain_drift`.

        Returns
        -------
        DriftText
            The rows, tightest first.
        """
        ids = self.chain.ids
        keys = self.row_keys()
        values, scale = self.row_values(theta)
        affine, s = self.affine_drifts(theta)
        worst: dict[int, Fraction] = {}
        count: dict[int, int] = {}
        for row, v in zip(keys, values):
            ratio = Fraction(v, scale * row.weight)
            worst[row.region] = max(worst.get(row.region, ratio), ratio)
            count[row.region] = count.get(row.region, 0) + 1
        rows: list[tuple[Fraction, tuple[Part, ...]]] = []
        for r, w in worst.items():
            a, c = affine[r]
            bound = linear_tex([Fraction(ai, s) for ai in a], ids, Fraction(c, s))
            rows.append((-w - delta, (f"r{r}", region_cell(self.drifts[r], ids), str(count[r]), Tex(f"AV(x) \\le {bound}"),
                                      Tex(frac_tex(w)), Tex(frac_tex(-w - delta)))))
        rows.sort(key=lambda row: row[0])
        method = Sentence((
            "On each unbounded region the drift is bounded by an affine function whose slope along every generator g is at most ",
            Tex("-\\delta \\lVert g\\rVert_{1}"), " with ", Tex(f"\\delta = {frac_tex(delta)}"),
            f" ({len(keys)} inequalities, each checked exactly). The slack is how far the steepest slope stays below ",
            Tex("-\\delta"), ":",
        ))
        header = ("", "region", "generators", "drift on the region", "steepest slope per unit of |g|_1", "slack")
        hence = ("Hence ", Tex(f"AV(x) \\le M_R - \\delta {norm_tex()}"),
                 " on each region R, with M_R the region's bound at the points p; taken over the regions, ")
        return DriftText(method, header, tuple(cells for _, cells in rows), hence)
