"""The exact core every Lyapunov template shares (numpy-free), and the helpers of template options.

A template is a parametrised V whose coefficients a numeric search proposes and
whose conditions the checker verifies exactly.  :class:`Template` declares what
*every* template has:

* the option schedule: ``resolve_options`` (canonical options, stored in
  certificates; the verifier refuses anything else), ``escalation`` (the option
  sets ``prove`` tries), ``label``, ``clip_levels``;
* ``variables()``: the names of the certificate coefficients;
* ``check_side(theta)``: the exact condition that V is bounded below;
* ``exact_drift(theta, levels)``: the exact drift condition and the
  exceptional-set bound;
* ``candidates(theta)``: rational roundings of a float solution, to be checked;
* ``formula(theta)`` and ``vertex_bound(levels)``;
* its part of the readable proof (``certify explain``): ``explain_function`` (V and
  why it is bounded below) and ``explain_drift`` (the drift region by region), as
  the plain pieces of :mod:`certify.templates.readable`.

Templates whose drift conditions are linear rows in the coefficients (the LP
templates) add the rows through :class:`certify.templates.linear.LinearTemplate`
(which also writes their drift argument); an SDP template
(:class:`certify.templates.polynomial.QuarticSOS`) derives from :class:`Template`
alone.  The numeric searches live in :mod:`certify.search`:
:func:`certify.search.template.search_template` dispatches by template type.

The module also holds the rounding the templates share; the validators of their
options are in :mod:`certify.templates.options`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from ..core.errors import CertificateError, NotSupported
from ..core.jsontypes import JsonObject, JsonValue
from ..markov.chain import Chain
from ..markov.cones import vertex_bound
from ..markov.drift import RegionDrift
from ..markov.symmetry import Symmetry, reducing
from .readable import DriftText, FunctionText

__all__ = ["Template", "DriftFacts", "DENOMINATORS", "round_to_grid"]

# Grids tried, finest last, when rounding a float solution to rationals.
DENOMINATORS = (2**12, 2**20, 2**30)

def round_to_grid(values: Iterable[Any], denominator: int) -> list[Fraction]:
    """Round floats to the nearest points of the grid 1/denominator, exactly.

    Parameters
    ----------
    values : iterable of float
        The numbers (floats, numpy scalars, anything ``float`` accepts).
    denominator : int
        The grid's denominator.

    Returns
    -------
    list of Fraction
        ``round(v * denominator) / denominator`` for each value.

    Examples
    --------
    >>> round_to_grid([0.3, -1.26], 4)
    [Fraction(1, 4), Fraction(-5, 4)]
    """
    return [Fraction(int(round(float(v) * denominator)), denominator) for v in values]


def _gen_str(ids: Sequence[str], g: Sequence[int]) -> str:
    return "{" + ",".join(ids[a] for a in range(len(g)) if g[a]) + "}"


@dataclass(frozen=True)
class DriftFacts:
    """What :meth:`Template.exact_drift` checked, and when the drift condition holds, its margin and exceptional set.

    Attributes
    ----------
    regions : int
        Regions checked.
    rows : int
        Drift inequalities (or identities) checked.
    delta : Fraction or None
        The margin: AV(x) <= -delta outside the exceptional set (None when the condition fails).
    exceptional_l1_bound : Fraction or None
        N: the condition holds at every state with ``|x|_1`` >= N (None when it fails).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> DriftFacts(2, 1).as_dict(), DriftFacts(2, 1, F(2), F(10)).holds
    ({'regions': 2, 'rows': 1}, True)
    """

    regions: int
    rows: int
    delta: Fraction | None = None
    exceptional_l1_bound: Fraction | None = None

    @property
    def holds(self) -> bool:
        """Whether the margin and the exceptional set were derived.

        Returns
        -------
        bool
            True when ``delta`` and ``exceptional_l1_bound`` are known.
        """
        return self.delta is not None and self.exceptional_l1_bound is not None

    def as_dict(self) -> dict[str, object]:
        """The known numbers, for reports (``certify verify --json`` of a failed check).

        Returns
        -------
        dict
            ``regions``, ``rows``, and ``delta`` and ``exceptional_l1_bound`` when known.
        """
        out: dict[str, object] = {"regions": self.regions, "rows": self.rows}
        if self.holds:
            out.update(delta=self.delta, exceptional_l1_bound=self.exceptional_l1_bound)
        return out


class Template(ABC):
    """A family of Lyapunov functions V, exactly checkable; subclasses register under ``name``.

    Parameters
    ----------
    chain : Chain
        The chain the certificate is for.
    drifts : sequence of RegionDrift
        Its drifts on the regions refined by :meth:`clip_levels` (the order is the
        order of the rows and of the region numbers in coefficient names).
    symmetry : Symmetry, optional
        Station classes of the chain (exact automorphisms): V is made invariant
        under them, and ``drifts`` may be the regions of the sorted chamber only
        (one per orbit; :func:`certify.markov.regions.enumerate_regions`).  Only
        templates with ``supports_symmetry`` accept one.
    **options
        The template's options; :meth:`resolve_options` validates them and fills
        in the defaults (``self.options``).

    Raises
    ------
    CertificateError
        When an option is unknown or out of range.
    NotSupported
        When the template declines the chain, or a symmetry it has no invariant form for.

    Examples
    --------
    An LP template and the SDP template share this interface:

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> from certify.markov.drift import compile_drifts
    >>> from certify.templates import Quadratic, QuarticSOS
    >>> net = Network("jsq2", (Station("1", F(1)), Station("2", F(1))), (Stream(F(3, 2), choice=("1", "2")),))
    >>> chain = compile_chain(net)
    >>> tmpl = Quadratic(chain, compile_drifts(chain))
    >>> tmpl.variables(), tmpl.options
    (['P[1,1]', 'P[1,2]', 'P[2,2]'], {})
    >>> theta = [F(1), F(0), F(1)]                       # V = x1^2 + x2^2
    >>> tmpl.check_side(theta), tmpl.exact_drift(theta, {})[1].delta
    ([], Fraction(1, 2))
    >>> len(QuarticSOS(chain, compile_drifts(chain)).variables())
    35
    """

    name: ClassVar[str]
    summary: ClassVar[str]
    #: Whether the template has an invariant parametrisation (:meth:`invariance_failures`, ``tied``).
    supports_symmetry: ClassVar[bool] = False

    #: The kind of numeric problem its search solves (``LP`` or ``SDP``), as ``prove`` reports a cut solve.
    problem: str = "LP"

    def proved(self, theta: Sequence[Fraction]) -> str:
        """V as ``prove``'s reason names it once the certificate passed (default: the template's summary).

        Parameters
        ----------
        theta : sequence of Fraction
            The certificate's coefficients.

        Returns
        -------
        str
            One phrase.

        Examples
        --------
        >>> from certify.io.loader import load
        >>> from certify.markov.chain import compile_chain
        >>> from certify.markov.drift import compile_drifts
        >>> from certify.templates import TEMPLATES
        >>> chain = compile_chain(load("models/symmetric-jsq-J4.json"))
        >>> TEMPLATES["quadratic"](chain, compile_drifts(chain)).proved([])   # J > 3: the summary
        "V = x'Px, P copositive (diagonally dominant + nonnegative)"
        """
        return self.summary

    def __init__(self, chain: Chain, drifts: Sequence[RegionDrift], symmetry: Symmetry | None = None, **options: JsonValue):
        self.chain = chain
        self.drifts = drifts
        symmetry = reducing(symmetry)
        if symmetry is not None and not self.supports_symmetry:
            raise NotSupported(f"template {self.name}: no invariant form under station classes (symmetry)")
        self.symmetry = symmetry
        self.options = self.resolve_options(chain, options)

    def invariance_failures(self, theta: Sequence[Fraction]) -> list[str]:
        """Why V is not invariant under the generators of ``self.symmetry`` (empty when it is, or without one).

        Parameters
        ----------
        theta : sequence of Fraction
            The coefficients.

        Returns
        -------
        list of str
            One line per generator that moves V (a template without an invariant form says so).
        """
        if self.symmetry is None:
            return []
        return [f"template {self.name}: no invariant form under station classes"]

    # ---- options ----

    @classmethod
    def resolve_options(cls, chain: Chain, options: Mapping[str, JsonValue]) -> JsonObject:
        """The template's options with defaults filled in (JSON-friendly; stored in certificates).

        Parameters
        ----------
        chain : Chain
            The chain the options are for.
        options : dict
            The options as given.

        Returns
        -------
        dict
            The canonical options (the verifier accepts only this form).

        Raises
        ------
        CertificateError
            When an option is unknown or out of range (the default: any option).

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> from certify.markov.chain import Chain
        >>> from certify.templates import Quadratic
        >>> ch = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
        >>> Quadratic.resolve_options(ch, {})
        {}
        >>> Quadratic.resolve_options(ch, {"K": 6})
        Traceback (most recent call last):
        ...
        certify.core.errors.CertificateError: options: template quadratic takes no options, got ['K']
        """
        if options:
            raise CertificateError(None, "options", f"template {cls.name} takes no options, got {sorted(options)}")
        return {}

    @classmethod
    def escalation(cls, chain: Chain) -> list[JsonObject]:
        """Option sets to try in order, cheapest first (``prove`` moves on while time remains).

        Parameters
        ----------
        chain : Chain
            The chain to certify.

        Returns
        -------
        list of dict
            The option sets; empty when the template declines the chain.

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> from certify.markov.chain import Chain
        >>> from certify.templates import Quadratic
        >>> Quadratic.escalation(Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),)))
        [{}]
        """
        return [{}]

    @classmethod
    def label(cls, options: Mapping[str, JsonValue]) -> str:
        """A short name of the template with these options, for reports.

        Parameters
        ----------
        options : dict
            Canonical options (from :meth:`resolve_options`).

        Returns
        -------
        str
            E.g. ``quadratic`` or ``table (K=6)``.

        Examples
        --------
        >>> from certify.templates import LinearTable, Quadratic
        >>> Quadratic.label({}), LinearTable.label({"K": 6, "fast": ["1", "2"]})
        ('quadratic', 'table (K=6)')
        """
        return cls.name

    @classmethod
    def table_level(cls, chain: Chain, options: Mapping[str, JsonValue]) -> int | None:
        """The clip level of the bounded table of queue levels this option set adds (None: the template has no table).

        The Markovian schedule tries each growth table of this level or below
        right after this Foster try: they share its refined regions.

        Parameters
        ----------
        chain : Chain
            The chain to certify.
        options : mapping
            The template's options.

        Returns
        -------
        int or None
            The clip level K of the fast stations (0: a table of phases only), or None.

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> from certify.markov.chain import Chain
        >>> from certify.templates import LinearTable, Quadratic
        >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
        >>> Quadratic.table_level(ch, {}), LinearTable.table_level(ch, {"K": 4})
        (None, 4)
        """
        return None

    @classmethod
    def clip_levels(cls, chain: Chain, options: Mapping[str, JsonValue]) -> dict[int, int]:
        """Stations whose small values the template distinguishes, with their clip level K.

        The regions are refined by these levels before the template sees them
        (always including ``chain.base_levels``, which phase-type chains need).

        Parameters
        ----------
        chain : Chain
            The chain to certify.
        options : dict
            The template's options.

        Returns
        -------
        dict of int to int
            Clip level per station index (sorted by station).

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> from certify.markov.chain import Chain
        >>> from certify.templates import LinearTable, Quadratic
        >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
        >>> Quadratic.clip_levels(ch, {}), LinearTable.clip_levels(ch, {"K": 4})
        ({}, {0: 4, 1: 4})
        """
        return dict(chain.base_levels)

    # ---- the certificate ----

    @abstractmethod
    def variables(self) -> list[str]:
        """Names of the certificate coefficients, in the order of ``theta``, e.g. ``P[1,2]``.

        Returns
        -------
        list of str
            One name per coefficient.
        """

    @abstractmethod
    def check_side(self, theta: Sequence[Fraction]) -> list[str]:
        """Exact check that V is bounded below (on the orthant).

        Parameters
        ----------
        theta : sequence of Fraction
            The coefficients, in :meth:`variables` order.

        Returns
        -------
        list of str
            The violated conditions, in words (empty when V is bounded below).
        """

    @abstractmethod
    def exact_drift(
        self, theta: Sequence[Fraction], levels: dict[int, int], max_failures: int = 5
    ) -> tuple[list[str], DriftFacts]:
        """Exact drift condition: AV(x) <= -delta at every state with ``|x|_1`` >= N, for some delta > 0.

        Parameters
        ----------
        theta : sequence of Fraction
            The coefficients, in :meth:`variables` order.
        levels : dict of int to int
            The clip levels the regions were refined by (they enlarge the vertex bound).
        max_failures : int
            How many violated conditions to list (the rest are counted).

        Returns
        -------
        failures : list of str
            The violated conditions (empty when the condition holds).
        facts : DriftFacts
            ``regions`` and ``rows`` (what was checked) and, when it holds,
            ``delta`` and ``exceptional_l1_bound`` (N).
        """

    @abstractmethod
    def formula(self, theta: Sequence[Fraction]) -> str:
        """V written out, for humans.

        Parameters
        ----------
        theta : sequence of Fraction
            The coefficients.

        Returns
        -------
        str
            E.g. ``V = 1*x1^2 + 1*x2^2``.
        """

    # ---- the readable proof (certify explain) ----

    @abstractmethod
    def explain_function(self, theta: Sequence[Fraction], max_rows: int) -> FunctionText:
        """V written out with the certificate's exact coefficients, and why it is bounded below, for the readable proof.

        Parameters
        ----------
        theta : sequence of Fraction
            The coefficients (a certificate that passed the check), in :meth:`variables` order.
        max_rows : int
            The longest list kept in the text (longer ones go to the appendix).

        Returns
        -------
        FunctionText
            The text (V first) and the appendix sections it needs.

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> from certify.markov.chain import Chain
        >>> from certify.markov.drift import compile_drifts
        >>> from certify.templates import Quadratic
        >>> mm1 = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
        >>> Quadratic(mm1, compile_drifts(mm1)).explain_function([F(1)], max_rows=20).pieces[0].lines
        ('V(x) = x_{1}^{2}',)
        """

    @abstractmethod
    def explain_drift(self, theta: Sequence[Fraction], delta: Fraction) -> DriftText:
        """How the drift condition holds on each unbounded region, for the readable proof.

        Parameters
        ----------
        theta : sequence of Fraction
            The coefficients (a certificate that passed the check).
        delta : Fraction
            The drift margin the check derived.

        Returns
        -------
        DriftText
            The argument, and one row per unbounded region, tightest first.

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> from certify.markov.chain import Chain
        >>> from certify.markov.drift import compile_drifts
        >>> from certify.templates import Quadratic
        >>> mm1 = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
        >>> text = Quadratic(mm1, compile_drifts(mm1)).explain_drift([F(1)], F(2))  # V = x^2: slope -2 = -delta
        >>> [c if isinstance(c, str) else c.tex for c in text.rows[0]]
        ['r1', 'x_{1} \\\\ge 1', '1', 'AV(x) \\\\le - 2 x_{1} + 13', '-2', '0']
        """

    # ---- rounding and the exceptional set ----

    def candidates(self, theta: Sequence[float]) -> Iterator[list[Fraction]]:
        """Rational coefficient vectors to check, from the float solution of the search (coarse grid first).

        The default rounds to each grid of :data:`DENOMINATORS`; templates mend what
        rounding breaks (:meth:`certify.templates.linear.LinearTemplate.repair`) or
        project onto their identities (the quartic).

        Parameters
        ----------
        theta : sequence of float
            The search's solution, in :meth:`variables` order.

        Yields
        ------
        list of Fraction
            A candidate, to be checked exactly.

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> from certify.markov.chain import Chain
        >>> from certify.markov.drift import compile_drifts
        >>> from certify.templates import Quadratic
        >>> mm1 = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
        >>> next(Quadratic(mm1, compile_drifts(mm1)).candidates([0.3]))
        [Fraction(1229, 4096)]
        """
        for D in DENOMINATORS:
            yield round_to_grid(theta, D)

    def vertex_bound(self, levels: dict[int, int]) -> int:
        """L such that every point of every region is a vertex with coordinates in [0, L] plus a cone element.

        Templates that refine the regions further (adding constants) override this.

        Parameters
        ----------
        levels : dict of int to int
            The clip levels the regions were refined by.

        Returns
        -------
        int
            The bound (:func:`certify.markov.cones.vertex_bound`).

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> from certify.markov.chain import Chain
        >>> from certify.markov.drift import compile_drifts
        >>> from certify.templates import Quadratic
        >>> ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
        >>> tmpl = Quadratic(ch, compile_drifts(ch))
        >>> tmpl.vertex_bound({}), tmpl.vertex_bound({0: 6})
        (4, 14)
        """
        return vertex_bound(self.chain.J, levels)
