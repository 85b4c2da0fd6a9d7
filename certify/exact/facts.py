"""What an exact check returns: :class:`Check`, and the facts each kind of JSQ certificate derives.

A check either passes, carrying the facts it derived (a frozen record per
certificate kind, :class:`FosterFacts`, :class:`GrowthFacts`, ...), or fails,
carrying the failures in words.  A failed check proves nothing, so it carries
no facts: reading :attr:`Check.facts` of a failed check raises
:class:`CheckFailed` (never a silent ``None``).  What a failed check had
computed when it stopped (the number of regions it checked, say) is kept apart,
in :attr:`Check.partial`, for reports only.

The field names of every facts record are the names the certificate files and
``certify verify --json`` use (``delta``, ``exceptional_l1_bound``, ...);
:meth:`Facts.as_dict` gives them in that order.  The fork-join kinds' facts live
with their checker, in :mod:`certify.exact.forkjoin`.  Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Generic, TypeVar

from ..core.jsontypes import JsonObject
from ..core.vocabulary import FluidKind

__all__ = [
    "Check",
    "CheckFailed",
    "Facts",
    "FosterFacts",
    "GrowthFacts",
    "SinkGrowthFacts",
    "SinkDrainFacts",
    "NestedVerdict",
    "StaticSplitFacts",
    "FluidFacts",
    "FluidFlowFacts",
    "ClosedSetFacts",
    "FiniteStateFacts",
    "OverflowFacts",
    "SeparableFacts",
    "SeparableGrowthFacts",
    "TheoremFacts",
]

F = TypeVar("F")


class CheckFailed(RuntimeError):
    """The facts of a check that did not pass were read: a failed check derives nothing.

    A programming error (read ``facts`` only after ``if chk.ok``), not a refusal
    of input, so it is not a :class:`~certify.core.errors.CertifyError`.

    Examples
    --------
    >>> issubclass(CheckFailed, ValueError)
    False
    """


class Check(Generic[F]):
    """The outcome of an exact check: passed with the facts it derived, or failed with the reasons.

    Parameters
    ----------
    ok : bool
        Whether every condition holds.
    failures : sequence of str
        The violated conditions, in words (empty when ``ok``).
    facts : facts record or None
        What a passing check derived (``None`` for a failed one).
    partial : mapping of str to object, optional
        What a failed check had computed when it stopped, for reports only.

    Attributes
    ----------
    ok : bool
        Whether every condition holds.
    failures : list of str
        The violated conditions, in words.
    partial : dict
        What a failed check had computed when it stopped (empty for a passing one).

    Raises
    ------
    ValueError
        When a passing check is given failures, or a failed one facts.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> chk = Check.passed(FiniteStateFacts(states=12))
    >>> chk.ok, chk.facts.states
    (True, 12)
    >>> bad = Check.failed(["some station has no finite capacity"])
    >>> bad.ok, bad.failures
    (False, ['some station has no finite capacity'])
    >>> bad.facts
    Traceback (most recent call last):
    ...
    certify.exact.facts.CheckFailed: the check failed, so it derived no facts: some station has no finite capacity
    """

    __slots__ = ("ok", "failures", "partial", "_facts")

    def __init__(
        self,
        ok: bool,
        failures: Sequence[str] = (),
        facts: F | None = None,
        partial: Mapping[str, object] | None = None,
    ) -> None:
        if ok and failures:
            raise ValueError(f"a passing check has no failures (got {list(failures)!r:.200})")
        if not ok and facts is not None:
            raise ValueError("a failed check carries no facts (put what it computed in partial)")
        self.ok = ok
        self.failures = list(failures)
        self.partial = dict(partial or {})
        self._facts = facts

    @classmethod
    def passed(cls, facts: F) -> Check[F]:
        """A passing check with the facts it derived.

        Parameters
        ----------
        facts : facts record
            What the check derived.

        Returns
        -------
        Check
            ``ok`` True, no failures.

        Examples
        --------
        >>> Check.passed(FiniteStateFacts(states=4)).facts
        FiniteStateFacts(states=4)
        """
        return cls(True, facts=facts)

    @classmethod
    def failed(cls, failures: Sequence[str], partial: Mapping[str, object] | None = None) -> Check[F]:
        """A failed check: the violated conditions, and what it had computed when it stopped.

        Parameters
        ----------
        failures : sequence of str
            The violated conditions, in words.
        partial : mapping of str to object, optional
            What the check had computed (reported by ``certify verify --json``; never a fact).

        Returns
        -------
        Check
            ``ok`` False and no facts.

        Examples
        --------
        >>> bad = Check.failed(["dual value 0 >= 0 proves nothing (it must be < 0)"], {"dual_value": 0})
        >>> bad.ok, bad.partial
        (False, {'dual_value': 0})
        """
        return cls(False, failures, partial=partial)

    @property
    def facts(self) -> F:
        """The facts the check derived.

        Returns
        -------
        facts record
            The kind's facts (e.g. :class:`FosterFacts`).

        Raises
        ------
        CheckFailed
            When the check did not pass (it derived nothing).

        Examples
        --------
        >>> Check.passed(FiniteStateFacts(states=4)).facts.states
        4
        """
        if self._facts is None:
            why = f": {self.failures[0]}" if self.failures else ""
            raise CheckFailed(f"the check {'failed, so it' if not self.ok else 'passed but'} derived no facts{why}")
        return self._facts

    def __repr__(self) -> str:
        if self.ok:
            return f"Check(ok=True, facts={self._facts!r})"
        return f"Check(ok=False, failures={self.failures!r})"


@dataclass(frozen=True)
class Facts:
    """A kind's facts: a frozen record whose field names are those of the certificate and the reports.

    Examples
    --------
    >>> FiniteStateFacts(states=4).as_dict()
    {'states': 4}
    """

    def as_dict(self) -> dict[str, object]:
        """The fields as a dict, in declaration order (the order ``certify verify --json`` prints).

        Returns
        -------
        dict
            Field name to value (the values themselves, not copies).

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> GrowthFacts(delta=F(1, 2), level=F(3), increment_bound=F(4)).as_dict()
        {'delta': Fraction(1, 2), 'level': Fraction(3, 1), 'increment_bound': Fraction(4, 1)}
        """
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class FosterFacts(Facts):
    """A Foster–Lyapunov certificate holds: AV(x) <= -delta whenever ``|x|_1`` >= exceptional_l1_bound.

    Attributes
    ----------
    regions : int
        Regions (after refinement by the clip levels) checked.
    rows : int
        Drift inequalities checked (one per region and cone generator, or per equation).
    delta : Fraction
        The drift margin (> 0).
    exceptional_l1_bound : Fraction
        N: AV(x) <= -delta at every state with ``|x|_1`` >= N.
    template : str
        The Lyapunov template's name.
    options : dict
        The template's options, in canonical form.
    variables : list of str
        The coefficient names, in the order of the coefficients.
    symmetry : tuple of tuple of int
        The station classes the check reduced by (checked automorphisms, V invariant;
        the regions are those of the sorted chamber); empty without a reduction.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> FosterFacts(2, 1, F(2), F(10), "quadratic", {}, ["P[1,1]"]).delta
    Fraction(2, 1)
    """

    regions: int
    rows: int
    delta: Fraction
    exceptional_l1_bound: Fraction
    template: str
    options: JsonObject
    variables: list[str]
    symmetry: tuple[tuple[int, ...], ...] = ()


@dataclass(frozen=True)
class GrowthFacts(Facts):
    """A growth certificate holds: Af >= delta on {f > level}, increments of f at most increment_bound.

    Attributes
    ----------
    delta : Fraction
        The least drift of f where it is unbounded (> 0).
    level : Fraction
        f <= level on every region where f is bounded.
    increment_bound : Fraction
        The largest change of f in one jump.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> GrowthFacts(F(1, 2), F(3), F(4)).level
    Fraction(3, 1)
    """

    delta: Fraction
    level: Fraction
    increment_bound: Fraction


@dataclass(frozen=True)
class NestedVerdict:
    """What the verifier found of a certificate nested in another (for a network derived from the outer one).

    Attributes
    ----------
    ok : bool
        Whether the nested certificate verified against the derived network.
    failures : tuple of str
        Its failures (empty when ``ok``).
    kind : str
        Its kind.
    proves : str or None
        The verdict its kind proves (``stable``, ``unstable``).
    semantics : str
        The laws it holds for (``markovian``, ``general``, ...; empty when not ``ok``).

    Examples
    --------
    >>> NestedVerdict(True, (), "fluid-flow", "stable", "general").proves
    'stable'
    """

    ok: bool
    failures: tuple[str, ...]
    kind: str
    proves: str | None
    semantics: str


@dataclass(frozen=True)
class SinkGrowthFacts(Facts):
    """A sink-growth certificate holds: the forced rate into the sink averages at least ``rate`` > ``capacity``.

    Attributes
    ----------
    rate : Fraction
        c: f + A'g >= c at every state of the reduced network.
    capacity : Fraction
        m_S = mu_S (1 - p_SS), what the sink serves out of itself.
    regions : int
        The regions of the reduced network listed: every one when the inequality was checked region by region
        (``cells`` 0), else those of the cells whose bound did not hold.
    reduced : str
        The kind of the reduced network's certificate of positive recurrence.
    sinks : tuple of str
        For a set of sinks G, its stations (empty for a single sink: ``rate`` and ``capacity`` are then S's).
    subsets : tuple of (tuple of str, Fraction, Fraction)
        For a set: every proper non-empty subset H with its rate c_H and capacity m_H (c_H > m_H).
    cells : int
        The cells the inequality was checked on (:mod:`certify.exact.cell_rates`); 0 when it was checked region
        by region (certificates written before the cell check).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> SinkGrowthFacts(F(3, 5), F(1, 2), 10, "fluid-flow").rate > F(1, 2)
    True
    """

    rate: Fraction
    capacity: Fraction
    regions: int
    reduced: str
    sinks: tuple[str, ...] = ()
    subsets: tuple[tuple[tuple[str, ...], Fraction, Fraction], ...] = ()
    cells: int = 0


@dataclass(frozen=True)
class SinkDrainFacts(Facts):
    """A sink-drain certificate holds: what can reach the sinks averages at most ``rate`` < ``capacity``.

    Attributes
    ----------
    rate : Fraction
        c_G: u_G + A'g_G <= c_G at every state of the reduced network (docs/math/drain.md).
    capacity : Fraction
        mu(G), the sum of the sinks' service rates.
    regions : int
        The regions of the reduced network listed: every one when the inequalities were checked region by region
        (``cells`` 0), else those of the cells whose bound did not hold.
    delta : Fraction
        The drift margin of the reduced network's quadratic Foster function W (A'W <= M - delta ``|y|_1``).
    sinks : tuple of str
        For a set of sinks G, its stations (empty for a single sink).
    subsets : tuple of (tuple of str, Fraction, Fraction)
        For a set: every proper non-empty subset H with its rate c_H and capacity mu(H) (c_H < mu(H)).
    excess : tuple of (str, Fraction)
        The ties' excess eps_t > 0 by station of R' (W was checked with Poisson streams of these rates added);
        empty when ties never send R' more than it sends itself.
    cells : int
        The cells the inequalities were checked on (:mod:`certify.exact.cell_rates`); 0 when they were checked
        region by region (certificates written before the cell check).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> SinkDrainFacts(F(2, 5), F(1, 2), 10, F(1, 8)).rate < F(1, 2)
    True
    """

    rate: Fraction
    capacity: Fraction
    regions: int
    delta: Fraction
    sinks: tuple[str, ...] = ()
    subsets: tuple[tuple[tuple[str, ...], Fraction, Fraction], ...] = ()
    excess: tuple[tuple[str, Fraction], ...] = ()
    cells: int = 0


@dataclass(frozen=True)
class StaticSplitFacts(Facts):
    """A static-split dual certificate holds: its value is < 0, so some set of stations is overloaded.

    Attributes
    ----------
    dual_value : Fraction
        The dual objective (< 0).
    overloaded : list of str
        The stations with positive weight: the support of w.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> StaticSplitFacts(F(-1, 2), ["1"]).overloaded
    ['1']
    """

    dual_value: Fraction
    overloaded: list[str]


@dataclass(frozen=True)
class FluidFacts(Facts):
    """A fluid Lyapunov certificate holds: dV/dt <= -delta ``|z|_1`` (or -delta) away from 0, V >= eta ``|z|^2``.

    Attributes
    ----------
    faces : int
        Fluid faces of the network.
    rows : int
        Conditions checked (one per face and generator of its closure).
    delta : Fraction
        The decrease margin (> 0).
    eta : Fraction
        The lower bound factor of V (> 0).
    kind : FluidKind
        The fluid template: ``linear`` or ``quadratic``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> FluidFacts(1, 1, F(1), F(2), "linear").kind
    'linear'
    """

    faces: int
    rows: int
    delta: Fraction
    eta: Fraction
    kind: FluidKind


@dataclass(frozen=True)
class FluidFlowFacts(Facts):
    """A linear fluid certificate holds by the max-flow bound: dV/dt <= -delta away from 0, V >= eta ``|z|_1``.

    Attributes
    ----------
    delta : Fraction
        The decrease margin (> 0): (1 - theta) min_j w_j mu_j.
    eta : Fraction
        The lower bound factor of V: min_j w_j (> 0).
    theta : Fraction
        max over non-empty station sets N of a(N)/b(N) (< 1; see :mod:`certify.exact.fluid_flow`).
    tightest : list of str
        The smallest set attaining ``theta`` (the first among equals).
    sets : int
        Choice sets with a flow into them.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> FluidFlowFacts(F(1, 2), F(1), F(1, 2), ["1"], 1).tightest
    ['1']
    """

    delta: Fraction
    eta: Fraction
    theta: Fraction
    tightest: list[str]
    sets: int


@dataclass(frozen=True)
class ClosedSetFacts(Facts):
    """A closed-set certificate holds: customers never leave ``stations``, entered at rate ``inflow`` > 0.

    Attributes
    ----------
    stations : list of str
        The station ids of the set, in the network's order.
    inflow : Fraction
        The exogenous arrival rate into the set (> 0).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ClosedSetFacts(["2"], F(1, 10)).inflow
    Fraction(1, 10)
    """

    stations: list[str]
    inflow: Fraction


@dataclass(frozen=True)
class OverflowFacts(Facts):
    """An overflow certificate holds: f = x_u + h(y) drifts by at least ``delta`` (down or up) wherever x_u >= ``level``.

    Attributes
    ----------
    station : str
        The uncapped station u.
    delta : Fraction
        The smallest margin of the drift over the capped level vectors (> 0).
    level : int
        L = max K + 2, from which the drift depends on the capped levels alone.
    states : int
        The number of capped level vectors checked.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> OverflowFacts("2", F(11, 70), 3, 2).as_dict()["delta"]
    Fraction(11, 70)
    """

    station: str
    delta: Fraction
    level: int
    states: int


@dataclass(frozen=True)
class SeparableFacts(Facts):
    """A separable Foster certificate holds: AV(x) <= drift_bound - delta ``|x|_1`` at every state.

    Attributes
    ----------
    clusters : int
        The clusters checked (each on its own stations' regions).
    regions : int
        The regions of all clusters together.
    rows : int
        The inequalities checked (generators and passive coefficients).
    delta : Fraction
        The least sum of a station's budgets (> 0).
    drift_bound : Fraction
        B: AV(x) <= B - delta ``|x|_1`` everywhere.
    exceptional_l1_bound : Fraction
        N = floor(B / delta) + 2: AV(x) <= -delta at every state with ``|x|_1`` >= N.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> SeparableFacts(1, 2, 3, F(2), F(11), F(7)).exceptional_l1_bound
    Fraction(7, 1)
    """

    clusters: int
    regions: int
    rows: int
    delta: Fraction
    drift_bound: Fraction
    exceptional_l1_bound: Fraction


@dataclass(frozen=True)
class SeparableGrowthFacts(Facts):
    """A separable growth certificate holds: Af(x) >= delta at every state, f with bounded increments.

    Attributes
    ----------
    clusters : int
        The clusters checked.
    regions : int
        Their regions together.
    delta : Fraction
        The sum over clusters of each one's least drift (> 0).
    increment_bound : Fraction
        A bound on ``|f(y) - f(x)|`` over the chain's jumps.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> SeparableGrowthFacts(1, 2, F(1), F(2)).delta
    Fraction(1, 1)
    """

    clusters: int
    regions: int
    delta: Fraction
    increment_bound: Fraction


@dataclass(frozen=True)
class FiniteStateFacts(Facts):
    """A finite-state certificate holds: the chain lives on at most ``states`` states.

    Attributes
    ----------
    states : int
        The size of prod_j {0..K_j} times the number of phase vectors.

    Examples
    --------
    >>> FiniteStateFacts(20).states
    20
    """

    states: int


@dataclass(frozen=True)
class TheoremFacts(Facts):
    """A theorem certificate holds: the named theorem, re-run on the network, decides.

    Attributes
    ----------
    theorem : str
        The theorem's name.
    verdict : str
        ``stable`` or ``unstable``.
    source : str
        Where the theorem is proved.
    numbers : str
        The numbers that decide it, in words.
    hypotheses : list of str
        The hypotheses checked on the network.

    Examples
    --------
    >>> TheoremFacts("t", "stable", "a paper", "lam/mu = 0.5", ["no feedback"]).verdict
    'stable'
    """

    theorem: str
    verdict: str
    source: str
    numbers: str
    hypotheses: list[str]
