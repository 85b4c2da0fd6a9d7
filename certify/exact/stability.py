"""The exact checks of stability certificates: Foster–Lyapunov, finite state space, fluid.

Every condition is recomputed here in rational arithmetic from the exact
network data; a passing check is the only road to a ``stable`` verdict.  This
module (and everything it imports) uses neither numpy nor a solver;
``tests/test_layers.py`` and the no-numpy subprocess tests enforce it.

Theorems used (stability)
-------------------------
Foster (CTMC form).  Let the chain be non-explosive (bounded rates), let the
empty state be reachable from every state, and let V >= 0 with AV(x) <= -eps
outside a finite set.  Then the chain is positive recurrent.

Finite state space.  A chain on a finite set whose empty state is reachable
from every state has one closed class (the states reachable from empty), and a
finite irreducible CTMC is positive recurrent.

Fluid stability (Dai 1995; for JSQ networks Foss–Chernova 1998 and
Dai–Hasenbein–Kim 2007).  If every fluid path of the network reaches 0 in a time
proportional to its starting size and stays there, the network is positive
Harris recurrent for every i.i.d. service and interarrival law with the given
means whose interarrival times are unbounded and spread out, under every
tie-breaking rule.  A function V with V(z) >= eta ``|z|^2`` (eta > 0) and
dV/dt <= -delta ``|z|_1`` along every fluid path away from 0 shows that.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from math import prod
from typing import TYPE_CHECKING, Any

from ..core.jsontypes import JsonValue
from ..core.vocabulary import FluidKind
from ..markov.chain import Chain, drain_order
from ..markov.drift import RegionDrift, compile_drifts
from ..markov.regions import POLL_EVERY, check_deadline, enumerate_regions, region_of
from ..markov.symmetry import Symmetry, is_automorphism, reducing
from ..templates import TEMPLATES
from ..templates.base import Template
from ..templates.options import MAX_REFINEMENT, refinement_factor
from .clusters import coefficient_vector
from .facts import Check, FiniteStateFacts, FluidFacts, FosterFacts

if TYPE_CHECKING:
    from ..markov.fluid import FluidFace

__all__ = ["check_foster", "foster_template", "check_finite", "check_fluid"]


def check_foster(
    chain: Chain,
    template: str,
    theta: Sequence[Fraction] | Mapping[str, Fraction],
    drifts: Sequence[RegionDrift] | None = None,
    max_failures: int = 5,
    options: Mapping[str, JsonValue] | None = None,
    symmetry: Symmetry | None = None,
    deadline: float | None = None,
) -> Check[FosterFacts]:
    """Check a Foster–Lyapunov certificate exactly.

    Verifies that the empty state is reachable from every state, that V is
    bounded below (the template's side condition), and that on every region,
    along every generator g of its recession cone, the drift slope is <= -delta
    ``|g|_1`` with delta > 0.  Then AV(x) <= M_R - delta ``|x|_1`` on region R, and
    the facts report delta and N with AV(x) <= -delta whenever ``|x|_1`` >= N.

    Parameters
    ----------
    chain : Chain
        The Markov chain (exponential, or a phase-type expansion).
    template : str
        The Lyapunov template's name (a key of :data:`certify.templates.TEMPLATES`).
    theta : sequence of Fraction or mapping of str to Fraction
        The coefficient vector in the template's ``variables()`` order, or a
        mapping from those names to values (as stored in a certificate file).
    drifts : sequence of RegionDrift, optional
        The compiled drifts of the regions refined by the template's clip levels
        (compiled here when not given).
    max_failures : int
        How many violated drift conditions to list.
    options : dict, optional
        The template's options (resolved to canonical form here).
    symmetry : Symmetry, optional
        Station classes: each generator is checked to be an automorphism of the
        chain and V to be invariant under it (V(s x) = V(x), so AV(s x) = AV(x));
        then the drift condition is checked on the regions of the sorted chamber
        only, where every orbit of states has a member.  Chains with phases are
        refused (the classes are found on queue lengths).
    deadline : float, optional
        A ``time.perf_counter()`` value: listing the regions (when ``drifts`` is not given) raises
        :class:`~certify.markov.regions.TimeLimitReached` past it.

    Returns
    -------
    Check of FosterFacts
        Passed with delta, the exceptional-set bound, the template, its
        canonical options and the coefficient names; or the failures.

    Examples
    --------
    The M/M/1 queue with lam = 1, mu = 2 and V(x) = x^2 (``P[1,1]`` = 1):
    AV(x) = 2x(lam - mu) + lam + mu = -2x + 3.

    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> mm1 = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    >>> chk = check_foster(mm1, "quadratic", [F(1)])
    >>> chk.ok, chk.facts.delta, chk.facts.variables
    (True, Fraction(2, 1), ['P[1,1]'])
    >>> check_foster(mm1, "quadratic", {"P[1,1]": F(-1)}).failures[0]
    'copositivity: P[1,1] = -1 < 0 (sum of negative off-diagonal magnitudes; must be >=)'
    """
    if drain_order(chain) is None:
        return Check.failed(["the empty state is not shown reachable from every state"])
    built = foster_template(chain, template, options, symmetry, drifts, deadline)
    if isinstance(built, list):
        return Check.failed(built)
    tmpl, levels = built
    symmetry = tmpl.symmetry
    opts = tmpl.options
    names = tmpl.variables()
    vector = coefficient_vector(names, theta, f"template {template}")
    if isinstance(vector, str):
        return Check.failed([vector])
    theta = vector
    failures = tmpl.invariance_failures(theta)[:max_failures]
    if failures:
        return Check.failed(failures)
    failures = list(tmpl.check_side(theta))
    drift_failures, facts = tmpl.exact_drift(theta, levels, max_failures)
    failures.extend(drift_failures)
    if failures or facts.delta is None or facts.exceptional_l1_bound is None:
        return Check.failed(failures or ["the drift check derived no margin"], partial=facts.as_dict())
    return Check.passed(
        FosterFacts(
            regions=facts.regions,
            rows=facts.rows,
            delta=facts.delta,
            exceptional_l1_bound=facts.exceptional_l1_bound,
            template=template,
            options=opts,
            variables=names,
            symmetry=symmetry.classes if symmetry is not None else (),
        )
    )


def foster_template(
    chain: Chain,
    template: str,
    options: Mapping[str, JsonValue] | None = None,
    symmetry: Symmetry | None = None,
    drifts: Sequence[RegionDrift] | None = None,
    deadline: float | None = None,
) -> tuple[Template, dict[int, int]] | list[str]:
    """The template instance a Foster check evaluates, on the regions refined by its clip levels.

    Resolves the options to canonical form, sizes the refinement before building
    it, checks each symmetry generator (an automorphism, and a template with an
    invariant form), enumerates the regions (those of the sorted chamber under a
    symmetry) and compiles their drifts.  :func:`check_foster` and the readable
    proofs (:mod:`certify.explain`) share it.

    Parameters
    ----------
    chain, template, options, symmetry, drifts, deadline
        As for :func:`check_foster`.

    Returns
    -------
    (Template, dict) or list of str
        The template and its clip levels; or why it cannot be built.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> mm1 = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    >>> tmpl, levels = foster_template(mm1, "quadratic")
    >>> tmpl.variables(), levels, len(tmpl.drifts)
    (['P[1,1]'], {}, 2)
    >>> foster_template(mm1, "cubic")
    ["unknown template 'cubic'"]
    """
    if template not in TEMPLATES:
        return [f"unknown template {template!r}"]
    cls = TEMPLATES[template]
    try:
        opts = cls.resolve_options(chain, dict(options or {}))
    except ValueError as exc:
        return [str(exc)]
    levels = cls.clip_levels(chain, opts)
    if refinement_factor(levels) > MAX_REFINEMENT:
        return [f"clip levels {levels} cut each region into more than {MAX_REFINEMENT} pieces; not attempted"]
    symmetry = reducing(symmetry)
    if symmetry is not None:
        if not cls.supports_symmetry:
            return [f"template {template} has no invariant form: a symmetry cannot be used with it"]
        if chain.has_phases:
            return ["a symmetry reduction of a Foster certificate needs a chain without phases"]
        bad = _symmetry_failures(chain, symmetry)
        if bad:
            return bad
    if drifts is None:
        drifts = compile_drifts(chain, enumerate_regions(chain, levels, symmetry=symmetry, deadline=deadline),
                                deadline=deadline)
    return cls(chain, drifts, symmetry=symmetry, **opts), levels


def check_finite(chain: Chain, capacities: Sequence[int | None]) -> Check[FiniteStateFacts]:
    """Stability of a network in which every station has a finite capacity.

    The chain then lives on the finite set prod_j {0..K_j}; with the empty state
    reachable from every state, the states reachable from empty form the single
    closed class, and a finite irreducible CTMC is positive recurrent.

    Parameters
    ----------
    chain : Chain
        The Markov chain (its phase vectors multiply the count of states).
    capacities : sequence of int or None
        Each station's capacity K_j (None: unbounded).

    Returns
    -------
    Check of FiniteStateFacts
        Passed with ``states``, the size of the finite state space; or the failures.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> mm1 = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    >>> check_finite(mm1, [3]).facts.states
    4
    >>> check_finite(mm1, [None]).failures
    ['some station has no finite capacity']
    """
    failures = []
    if len(capacities) != chain.J or any(k is None or k < 1 for k in capacities):
        failures.append("some station has no finite capacity")
    if drain_order(chain) is None:
        failures.append("the empty state is not shown reachable from every state")
    if failures:
        return Check.failed(failures)
    return Check.passed(FiniteStateFacts(states=chain.phase_vectors * prod(k + 1 for k in capacities if k is not None)))


def check_fluid(
    chain: Chain,
    kind: FluidKind,
    coeffs: Sequence[Any],
    faces: Sequence[FluidFace] | None = None,
    max_failures: int = 5,
    symmetry: Symmetry | None = None,
    deadline: float | None = None,
) -> Check[FluidFacts]:
    """Check a fluid Lyapunov certificate exactly (general distributions, any tie-breaking).

    ``kind`` ``quadratic``: V(z) = z'Pz with P strictly diagonally dominant plus
    nonnegative (so V >= eta ``|z|^2`` with eta = min_i P_ii - sum of the negative
    off-diagonal magnitudes > 0), and on every fluid face, for every generator g
    of its closure and every admissible velocity v, 2 g'Pv <= -delta ``|g|_1``: then
    dV/dt = 2 z'Pv <= -delta ``|z|_1`` on the face.  ``linear``: V(z) = w'z with
    every w_i > 0 and w'v <= -delta for every admissible velocity on every face
    other than {0}.  The maximum over the velocity set is computed exactly
    (:func:`certify.markov.fluid_rates.max_rate`; the set is the exact one or a superset).

    With a ``symmetry`` (station classes; linear certificates only) the check
    first verifies, exactly, that every generator of the classes' group (each
    adjacent transposition within a class) is an automorphism of the chain and
    that w is constant on every class; then dV/dt on a face and on its image
    under an automorphism sigma are equal (the velocity sets map by sigma and
    w o sigma = w), so it checks one face per orbit: the faces meeting the sorted
    chamber (:func:`certify.markov.fluid.fluid_faces` with the symmetry), which
    it lists itself unless ``faces`` is given.

    Parameters
    ----------
    chain : Chain
        The network's (exponential) chain: only the means enter the fluid model.
    kind : FluidKind
        ``linear`` or ``quadratic`` (any other name fails the check).
    coeffs : sequence
        The weights w (linear) or the symmetric matrix P (quadratic), exact.
    faces : sequence of FluidFace, optional
        The fluid faces (:func:`certify.markov.fluid.fluid_faces`; computed when not given).
    max_failures : int
        How many violated conditions to list.
    symmetry : Symmetry, optional
        Station classes the certificate claims (verified here).
    deadline : float, optional
        A ``time.perf_counter()`` value: the face listing and the loop over the
        conditions poll it (every :data:`certify.markov.regions.POLL_EVERY` conditions).

    Returns
    -------
    Check of FluidFacts
        Passed with delta, eta, the number of faces and of conditions; or the
        failures (``partial`` then has ``faces`` and ``rows`` once they are known).

    Raises
    ------
    TimeLimitReached
        When the deadline passes before every condition is checked (never a partial verdict).

    Examples
    --------
    The M/M/1 queue with lam = 1, mu = 2: its fluid level moves at rate -1.

    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> mm1 = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    >>> chk = check_fluid(mm1, "linear", [F(1)])
    >>> chk.ok, chk.facts.delta, chk.facts.eta
    (True, Fraction(1, 1), Fraction(1, 1))
    >>> check_fluid(mm1, "linear", [F(0)]).failures
    ['linear fluid weights must be one positive number per station']

    Three identical stations sharing one stream, checked on one face per orbit:

    >>> from certify.markov.symmetry import Symmetry
    >>> jsq = Chain(("1", "2", "3"), (F(1),) * 3, (((0, 1, 2), F(2)),), (), (F(1),) * 3)
    >>> chk = check_fluid(jsq, "linear", [F(1)] * 3, symmetry=Symmetry(((0, 1, 2),)))
    >>> chk.ok, chk.facts.faces, chk.facts.delta
    (True, 4, Fraction(1, 1))
    >>> check_fluid(jsq, "linear", [F(1), F(2), F(1)], symmetry=Symmetry(((0, 1, 2),))).failures
    ['linear fluid weights must be equal within every station class {1,2,3} (the certificate claims these symmetries)']
    """
    from ..markov.fluid import fluid_chain, fluid_faces
    from ..markov.fluid_rates import Scaled, fluid_rows, max_rate, rate_vector

    J = chain.J
    if kind == "quadratic":
        P = [[Fraction(v) for v in row] for row in coeffs]
        if len(P) != J or any(len(r) != J for r in P) or any(P[i][j] != P[j][i] for i in range(J) for j in range(J)):
            return Check.failed(["P must be a symmetric J x J matrix"])
        eta = min(P[i][i] - sum((-P[i][j] for j in range(J) if j != i and P[i][j] < 0), Fraction(0)) for i in range(J))
        if eta <= 0:
            return Check.failed([f"V is not shown positive definite on the orthant (diagonal dominance margin {eta} <= 0)"])
        vec: Any = P
    elif kind == "linear":
        w = [Fraction(v) for v in coeffs]
        if len(w) != J or any(v <= 0 for v in w):
            return Check.failed(["linear fluid weights must be one positive number per station"])
        eta = min(w)
        vec = w
    else:
        return Check.failed([f"unknown fluid template {kind!r}"])
    if symmetry is not None and not symmetry.trivial:
        bad_sym = _symmetry_failures(chain, symmetry)
        if bad_sym:
            return Check.failed(bad_sym)
        if kind != "linear":
            return Check.failed(["a symmetry reduction applies to linear fluid certificates only"])
        if not symmetry.invariant(w):
            names = " ".join("{" + ",".join(chain.ids[a] for a in c) + "}" for c in symmetry.classes)
            return Check.failed([f"linear fluid weights must be equal within every station class {names} "
                                 "(the certificate claims these symmetries)"])
        faces = fluid_faces(chain, deadline=deadline, symmetry=symmetry) if faces is None else faces
    faces = fluid_faces(chain, deadline=deadline) if faces is None else faces
    failures: list[str] = []
    delta: Fraction | None = None
    bad = 0
    rows = fluid_rows(chain, faces, kind)
    linear = Scaled.of(rate_vector(kind, vec, ())) if kind == "linear" else None  # the same c on every face
    for r, (k, g) in enumerate(rows):
        if deadline is not None and r % POLL_EVERY == 0:
            check_deadline(deadline, f"the exact check of the fluid {kind} certificate")
        rate = max_rate(faces[k], linear if linear is not None else Scaled.of(rate_vector(kind, vec, g)))
        size = sum(g) if g else 1
        if rate >= 0:
            bad += 1
            if bad <= max_failures:
                region = faces[k].region
                if symmetry is not None and not symmetry.trivial:  # the face's piece on the chamber: name the whole face
                    region = region_of(fluid_chain(chain), region.key)
                where = region.describe(chain.ids)
                along = " along {" + ",".join(chain.ids[a] for a in range(J) if g[a]) + "}" if g else ""
                failures.append(f"fluid face {where}{along}: dV/dt can be {rate} (must be < 0)")
            continue
        val = -rate / size
        delta = val if delta is None else min(delta, val)
    if bad > max_failures:
        failures.append(f"... and {bad - max_failures} more fluid conditions violated")
    counted = {"faces": len(faces), "rows": len(rows)}
    if failures or delta is None:
        if delta is None and not failures:
            failures.append("no fluid face away from 0: nothing to check")
        return Check.failed(failures, partial=counted)
    return Check.passed(FluidFacts(faces=len(faces), rows=len(rows), delta=delta, eta=eta, kind=kind))


def _symmetry_failures(chain: Chain, symmetry: Symmetry) -> list[str]:
    """Why ``symmetry`` is not a set of station classes of ``chain`` (empty when every generator is an automorphism)."""
    J = chain.J
    seen: set[int] = set()
    for c in symmetry.classes:
        if len(c) < 2 or list(c) != sorted(set(c)) or any(not 0 <= a < J for a in c) or seen & set(c):
            return [f"station classes must be disjoint sorted sets of two or more stations, got {symmetry.classes!r}"]
        seen.update(c)
    for perm in symmetry.generators(J):
        if not is_automorphism(chain, perm):
            a, b = (x for x in range(J) if perm[x] != x)
            return [f"exchanging stations {chain.ids[a]} and {chain.ids[b]} is not a symmetry of the network "
                    "(rates, streams, feedback or tie-breaking differ)"]
    return []
