"""How :func:`certify.prove` searches, in one frozen object: :class:`ProveOptions`.

``prove``, :func:`certify.sweep`, :func:`certify.boundary`,
:func:`certify.boundaries` and the command line build one :class:`ProveOptions`
and pass it on, instead of each re-declaring the options; the options are
checked once, when the object is built.  The keyword arguments of ``prove``
(``time_limit=...``, ``templates=...``) still work: they build (or override) a
:class:`ProveOptions` (:meth:`ProveOptions.of`).

What a call writes or reports (``out``, ``progress``) is not an option of the
search and stays an argument of ``prove``.  Light to import (no numpy): the
sweep module, loaded with :mod:`certify`, uses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Literal, TypeAlias, TypedDict, Unpack, get_args

from ..core.jsontypes import JsonObject, JsonValue
from ..simulation.evidence import DEFAULT_BUDGET_S

__all__ = ["THEOREM_SHARE", "DEFAULT_TIME_LIMIT_S", "ProveOptions", "ProveChanges", "ProveField"]

#: When a theorem whose hypotheses hold already decides the network, the certificate stages of the default
#: pipeline get this share of the time limit (the rest would only be spent before giving the theorem's verdict).
THEOREM_SHARE = 0.25

#: Seconds :func:`certify.prove` runs by default.
DEFAULT_TIME_LIMIT_S = 120.0


@dataclass(frozen=True)
class ProveOptions:
    """The options of :func:`certify.prove`, checked once (frozen, picklable: a sweep sends it to its workers).

    Attributes
    ----------
    time_limit : float
        Seconds for the whole run.  Enumerations stop when it passes ("time limit reached during
        <stage>", verdict ``undecided``), no new search starts after it, and the simulation checks get at
        most what is left.  The overshoot is the step under way: one LP solve and its exact check.  When a
        known theorem whose hypotheses hold already decides the network (checked first: polynomial time) and
        ``templates`` is not given, the certificate stages get a share of it (``theorem_share``); the
        theorem's verdict stands if they find no certificate in it.
    templates : sequence of str, optional
        Foster templates to try, cheapest first (None: all registered; ``()``: none, e.g. with
        ``fluid=True`` for the fluid certificates alone).  Kept as a tuple.
    solver : str, optional
        A solver name: HIGHS or CLARABEL (direct), or another cvxpy solver (default: HiGHS for the LPs);
        kept as cvxpy spells it (an unknown name raises
        :class:`~certify.search.solvers.SolverNotInstalled`, listing the installed ones).
    fluid : bool, optional
        Try fluid certificates first (general distributions); default (None): unless ``templates`` is given.
    simulate : bool, optional
        When every search fails, run simulation checks (evidence: ``likely-stable``/``likely-unstable``);
        default (None): unless ``templates`` is given.
    sim_budget : float
        Wall-clock seconds for the simulation checks (at most the time left).
    seed : int
        Seed of the simulation checks (identical arguments give identical results).
    symmetry : bool
        Reduce by the network's station classes (exact automorphisms; :mod:`certify.markov.symmetry`): the
        linear fluid certificate is searched and checked on one face per orbit.
    theorem_share : float
        The share of ``time_limit`` (in (0, 1]) the certificate stages get when a theorem already decides the
        network (default :data:`THEOREM_SHARE`; 1: all of it); anything else raises ValueError.
    flow_bound : bool
        Try the max-flow bound (kind ``fluid-flow``, no fluid face listed) before the fluid faces, on networks
        without feedback (there it proves every network Bramson's subset condition proves) or with 8 or more
        station orbits; False lists the faces first (the exact fluid margin, the station-class reduction).

    Examples
    --------
    >>> opts = ProveOptions(time_limit=5, templates=["quadratic"])
    >>> opts.templates, opts.use_fluid, opts.use_simulation
    (('quadratic',), False, False)
    >>> ProveOptions(theorem_share=0)
    Traceback (most recent call last):
    ...
    ValueError: theorem_share = 0 must be in (0, 1] (a share of the time limit)
    """

    time_limit: float = DEFAULT_TIME_LIMIT_S
    templates: Sequence[str] | None = None
    solver: str | None = None
    fluid: bool | None = None
    simulate: bool | None = None
    sim_budget: float = DEFAULT_BUDGET_S
    seed: int = 0
    symmetry: bool = True
    theorem_share: float = THEOREM_SHARE
    flow_bound: bool = True

    def __post_init__(self) -> None:
        if not 0 < self.theorem_share <= 1:
            raise ValueError(f"theorem_share = {self.theorem_share!r} must be in (0, 1] (a share of the time limit)")
        if self.templates is not None and not isinstance(self.templates, tuple):
            object.__setattr__(self, "templates", tuple(self.templates))
        if self.solver is not None:
            from ..search.solvers import check_solver

            object.__setattr__(self, "solver", check_solver(self.solver))

    @property
    def use_fluid(self) -> bool:
        """Whether the fluid stages run: ``fluid``, or by default unless ``templates`` is given.

        Examples
        --------
        >>> ProveOptions().use_fluid, ProveOptions(templates=[], fluid=True).use_fluid
        (True, True)
        """
        return self.templates is None if self.fluid is None else self.fluid

    @property
    def use_simulation(self) -> bool:
        """Whether undecided runs get simulation checks: ``simulate``, or by default unless ``templates`` is given.

        Examples
        --------
        >>> ProveOptions().use_simulation, ProveOptions(templates=["quadratic"], simulate=True).use_simulation
        (True, True)
        """
        return self.templates is None if self.simulate is None else self.simulate

    @classmethod
    def of(cls, options: ProveOptions | None = None, where: str = "ProveOptions", **changes: Unpack[ProveChanges]) -> ProveOptions:
        """``options`` (default: the defaults) with the fields named in ``changes`` replaced, checked again.

        Parameters
        ----------
        options : ProveOptions, optional
            The options to start from (None: every default).
        where : str
            The function whose keyword arguments ``changes`` are (named when one is unknown).
        **changes
            Field values (``time_limit=5``, ``templates=["quadratic"]``, ...; :class:`ProveChanges`).

        Returns
        -------
        ProveOptions
            ``options`` itself when nothing changes.

        Raises
        ------
        TypeError
            A name that is no field, as for a function's unknown keyword argument.

        Examples
        --------
        >>> opts = ProveOptions.of(ProveOptions(seed=3), time_limit=5.0)
        >>> opts.time_limit, opts.seed, ProveOptions.of(opts) is opts
        (5.0, 3, True)
        >>> ProveOptions.of(None, "prove", time_limt=5.0)
        Traceback (most recent call last):
        ...
        TypeError: prove() got an unexpected keyword argument 'time_limt'
        """
        names = {f.name for f in fields(cls)}
        for name in changes:
            if name not in names:
                raise TypeError(f"{where}() got an unexpected keyword argument {name!r}")
        base = options if options is not None else cls()
        return replace(base, **changes) if changes else base

    def changed(self) -> JsonObject:
        """The fields that differ from the defaults, by name (templates as a list): what a sweep's key records.

        Returns
        -------
        JsonObject
            Field name to value, in field order.

        Examples
        --------
        >>> ProveOptions(solver=None, symmetry=False).changed()
        {'symmetry': False}
        """
        default = ProveOptions()
        out: JsonObject = {}
        for f in fields(self):
            value: JsonValue = getattr(self, f.name)  # every field is a JSON value (templates: strings)
            if value != getattr(default, f.name):
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


#: The name of a field of :class:`ProveOptions`.
ProveField: TypeAlias = Literal["time_limit", "templates", "solver", "fluid", "simulate", "sim_budget", "seed", "symmetry",
                                "theorem_share", "flow_bound"]


class ProveChanges(TypedDict, total=False):
    """Fields of :class:`ProveOptions` by name, each optional: the keyword arguments of :meth:`ProveOptions.of`.

    Examples
    --------
    >>> changes: ProveChanges = {"time_limit": 5.0, "symmetry": False}
    >>> ProveOptions.of(None, **changes).symmetry
    False
    """

    time_limit: float
    templates: Sequence[str] | None
    solver: str | None
    fluid: bool | None
    simulate: bool | None
    sim_budget: float
    seed: int
    symmetry: bool
    theorem_share: float
    flow_bound: bool


assert set(get_args(ProveField)) == set(ProveChanges.__annotations__) == {f.name for f in fields(ProveOptions)}
