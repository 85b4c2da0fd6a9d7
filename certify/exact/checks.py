"""The exact checker: the only road to a proved verdict.

Every condition of a certificate is recomputed here in rational arithmetic from
the exact network data.  This module (and everything it imports) uses neither
numpy nor a solver; ``tests/test_layers.py`` and the no-numpy subprocess tests enforce it.

Theorems used
-------------
Foster (CTMC form).  Let the chain be non-explosive (bounded rates), let the
empty state be reachable from every state, and let V >= 0 with AV(x) <= -eps
outside a finite set.  Then the chain is positive recurrent.

Flow balance.  In a stable network every station j has throughput
d_j = mu_j P(station j busy) <= mu_j, and the routed flows f_{C,j} satisfy
sum_j f_{C,j} = lam_C + sum_i d_i p[i][C].  A dual solution of the static
split LP with value < 0 shows no such flows exist: not stable.

Fluid stability (Dai 1995; for JSQ networks Foss–Chernova 1998 and
Dai–Hasenbein–Kim 2007).  If every fluid path of the network reaches 0 in a time
proportional to its starting size and stays there, the network is positive
Harris recurrent for every i.i.d. service and interarrival law with the given
means whose interarrival times are unbounded and spread out, under every
tie-breaking rule.  A function V with V(z) >= eta ``|z|^2`` (eta > 0) and
dV/dt <= -delta ``|z|_1`` along every fluid path away from 0 shows that.

Customers that never leave.  Let S be a set of stations from which no customer
ever leaves: for every i in S the feedback probabilities sum to 1 and every
feedback choice set of i lies inside S.  Then N_S(t) = sum_{j in S} x_j(t)
never decreases (a customer served in S rejoins S), and N_S(t) >= A_S(t), the
number of exogenous arrivals whose choice set lies inside S.  If those sets
receive rate r > 0, A_S(t)/t -> r almost surely (renewal law of large numbers),
so the queue lengths tend to infinity: no stationary regime exists, for every
service and interarrival law with these means and every tie-breaking rule.

Transience (Fayolle–Malyshev–Menshikov 1995, Thm 2.2.7).  For an irreducible
Markov chain and f with bounded increments, E[f(X_1) - f(X_0) | X_0 = x] >= eps
on {f > C} and both {f > C} and {f <= C} non-empty, the chain is transient.
Applied to the uniformized chain of the CTMC (jump rate Lambda = total rate),
whose expected increment is Af(x)/Lambda.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import prod
from typing import TYPE_CHECKING, Any

from ..markov.chain import Chain, drain_order
from ..markov.drift import RegionDrift, cell_moves, compile_drifts
from ..markov.regions import enumerate_regions, vertex_bound
from ..templates import TEMPLATES
from ..templates.base import MAX_CLIP_LEVEL, MAX_REFINEMENT, refinement_factor
from ..templates.table import table_cells

if TYPE_CHECKING:
    from ..markov.fluid import FluidFace

__all__ = [
    "Check",
    "check_finite",
    "check_foster",
    "check_static_split",
    "check_growth",
    "check_fluid",
    "check_closed_set",
    "closed_set",
    "table_problem",
    "routed_sets",
]


@dataclass
class Check:
    """The outcome of an exact check: ``ok`` with the derived facts, or the failures."""

    ok: bool
    failures: list[str] = field(default_factory=list)
    facts: dict = field(default_factory=dict)


def _gen_str(chain: Chain, g: Sequence[int]) -> str:
    return "{" + ",".join(chain.ids[a] for a in range(chain.J) if g[a]) + "}"


def check_foster(
    chain: Chain,
    template: str,
    theta: Sequence[Fraction] | Mapping[str, Fraction],
    drifts: Sequence[RegionDrift] | None = None,
    max_failures: int = 5,
    options: dict | None = None,
) -> Check:
    """Check a Foster–Lyapunov certificate exactly.

    ``theta`` is the coefficient vector in the template's ``variables()`` order,
    or a mapping from those names to values (as stored in a certificate file).

    Verifies that the empty state is reachable from every state, that V is
    bounded below (the template's side condition), and that on every region,
    along every generator g of its recession cone, the drift slope is <= -delta ``|g|_1``
    with delta > 0.  Then AV(x) <= M_R - delta ``|x|_1`` on region R, and the facts
    report delta and N with AV(x) <= -delta whenever ``|x|_1`` >= N.
    """
    out = Check(ok=False)
    if template not in TEMPLATES:
        out.failures.append(f"unknown template {template!r}")
        return out
    if drain_order(chain) is None:
        out.failures.append("the empty state is not shown reachable from every state")
        return out
    cls = TEMPLATES[template]
    try:
        opts = cls.resolve_options(chain, dict(options or {}))
    except ValueError as exc:
        out.failures.append(str(exc))
        return out
    levels = cls.clip_levels(chain, opts)
    if refinement_factor(levels) > MAX_REFINEMENT:
        out.failures.append(f"clip levels {levels} cut each region into more than {MAX_REFINEMENT} pieces; not attempted")
        return out
    if drifts is None:
        drifts = compile_drifts(chain, enumerate_regions(chain, levels))
    tmpl = cls(chain, drifts, **opts)
    names = tmpl.variables()
    if isinstance(theta, Mapping):
        if set(theta) != set(names):
            missing = sorted(set(names) - set(theta))[:3]
            extra = sorted(set(theta) - set(names))[:3]
            out.failures.append(f"template {template} coefficients differ: missing {missing}, unexpected {extra}")
            return out
        theta = [theta[n] for n in names]
    if len(theta) != len(names):
        out.failures.append(f"template {template} needs {len(names)} coefficients, got {len(theta)}")
        return out
    out.failures.extend(tmpl.check_side(theta))
    failures, facts = tmpl.exact_drift(theta, levels, max_failures)
    out.failures.extend(failures)
    out.facts.update(facts)
    if out.failures:
        return out
    out.ok = True
    out.facts.update(template=template, options=opts, variables=names)
    return out


def routed_sets(chain: Chain) -> list[tuple[int, ...]]:
    """Every choice set that receives customers (exogenous or fed back), sorted."""
    return sorted({c for c, _ in chain.arrivals} | {c for _, c, _ in chain.feedback}, key=lambda c: (len(c), c))


def check_static_split(chain: Chain, u: Mapping[tuple[int, ...], Fraction], w: Sequence[Fraction]) -> Check:
    """Check a dual certificate that the static split LP has value <= 0 (not positive recurrent).

    Conditions: w >= 0, sum w = 1, for every routed set C and j in C
    u_C + w_j - sum_C' p[j][C'] u_C' >= 0, and sum_C lam_C u_C + sum_j mu_j w_j < 0.
    By weak duality every routing overloads some station (d_j > mu_j), which no
    stationary regime allows, whatever the distributions; the support of w is the
    overloaded set of stations.  (The value is required to be strictly negative,
    so critical networks are left undecided.)
    """
    out = Check(ok=False)
    sets = routed_sets(chain)
    missing = [c for c in sets if c not in u]
    if missing:
        out.failures.append(f"no multiplier for choice set {_gen_str(chain, [int(a in missing[0]) for a in range(chain.J)])}")
        return out
    if len(w) != chain.J:
        out.failures.append(f"need {chain.J} station weights, got {len(w)}")
        return out
    if any(x < 0 for x in w):
        out.failures.append("station weights must be >= 0")
    if sum(w, Fraction(0)) != 1:
        out.failures.append(f"station weights sum to {sum(w, Fraction(0))} (must be 1)")
    fb: dict[int, list[tuple[tuple[int, ...], Fraction]]] = {}
    for i, c, p in chain.feedback:
        fb.setdefault(i, []).append((c, p))
    for C in sets:
        for j in C:
            val = u[C] + w[j] - sum((p * u[c2] for c2, p in fb.get(j, [])), Fraction(0))
            if val < 0:
                out.failures.append(
                    f"dual constraint for set {_gen_str(chain, [int(a in C) for a in range(chain.J)])} "
                    f"at station {chain.ids[j]} is {val} (must be >= 0)"
                )
    lam = dict(chain.arrivals)
    value = sum((lam.get(C, Fraction(0)) * u[C] for C in sets), Fraction(0)) + sum(
        (chain.mu[j] * w[j] for j in range(chain.J)), Fraction(0)
    )
    if value >= 0:
        out.failures.append(f"dual value {value} >= 0 proves nothing (it must be < 0)")
    out.facts.update(
        dual_value=value, overloaded=[chain.ids[j] for j in range(chain.J) if w[j] > 0]
    )
    out.ok = not out.failures
    return out


def table_problem(chain: Chain, fast: Sequence[int], K: int) -> str | None:
    """Why a growth table over ``fast`` clipped at ``K`` cannot be checked (None when it can), sized before building.

    ``fast``: distinct stations in the network's order; ``K``: an integer in
    1..MAX_CLIP_LEVEL (0 for a table over phases only); the refinement and the
    number of cells at most MAX_REFINEMENT.
    """
    fast = list(fast)
    if any(isinstance(a, bool) or not isinstance(a, int) or not 0 <= a < chain.J for a in fast) or fast != sorted(set(fast)):
        return "table.fast: the fast stations must be distinct stations in the network's order"
    if isinstance(K, bool) or not isinstance(K, int) or not (1 <= K <= MAX_CLIP_LEVEL if fast else K == 0):
        rule = f"an integer in 1..{MAX_CLIP_LEVEL}" if fast else "0 when the table has no fast stations (phases only)"
        return f"table.K: {K!r} must be {rule}"
    if not fast and not chain.has_phases:
        return "table.fast: a table needs fast stations (or phases)"
    probe = dict(chain.base_levels)
    probe.update({a: max(K, probe.get(a, 0)) for a in fast})
    if refinement_factor(probe) > MAX_REFINEMENT or (K + 1) ** len(fast) > MAX_REFINEMENT:
        return f"table: K = {K} over {len(fast)} fast station(s) is beyond the size bound {MAX_REFINEMENT}"
    return None


def check_growth(
    chain: Chain,
    w: Sequence[Fraction],
    drifts: Sequence[RegionDrift] | None = None,
    table: Mapping[tuple[int, ...], Fraction] | None = None,
    fast: Sequence[int] = (),
    K: int = 0,
) -> Check:
    """Check a growth certificate f = w'x (+ T[min(x_fast, K)]) exactly (transience).

    Conditions: w >= 0; some station with exogenous arrivals has w_j > 0 (so f is
    unbounded on the states reachable from empty); the empty state is reachable
    from every state (one closed class); and on every region where w'x is
    unbounded (some cone generator g with w'g > 0) the drift
    w'm_R + sum_d rate_d (T[c + d] - T[c]) >= delta > 0, the regions refined by
    the clip levels of the table.  On the other regions f <= level :=
    (vertex bound) * sum(w) + max|T|, so Af >= delta on {f > level}; the
    increments of f are at most 2 max w + 2 max|T|.  A bounded table without
    the x_l factor is enough here: it corrects the drift by the fast stations'
    average behaviour, the way a Poisson-equation solution does.
    """
    out = Check(ok=False)
    if len(w) != chain.J or any(x < 0 for x in w):
        out.failures.append("growth weights must be one nonnegative number per station")
        return out
    if table is not None:
        problem = table_problem(chain, fast, K)
        if problem:
            out.failures.append(problem)
            return out
    fed = {j for c, _ in chain.arrivals for j in c}
    if not any(w[j] > 0 for j in fed):
        out.failures.append("no station with exogenous arrivals has positive weight")
    if drain_order(chain) is None:
        out.failures.append("the empty state is not shown reachable from every state")
    levels = dict(chain.base_levels)
    if table is not None:
        levels.update({a: max(K, levels.get(a, 0)) for a in fast})
        levels = dict(sorted(levels.items()))
    cells = table_cells(chain, fast, K) if table is not None else []
    if table is not None and set(table) != set(cells):
        out.failures.append(
            f"the table must have one value per cell of {{0..{K}}}^{len(fast)}"
            + (" x phases (a phase-type station's phase is -1 exactly when its queue is empty)" if chain.has_phases else "")
        )
    if out.failures:
        return out
    if drifts is None:
        drifts = compile_drifts(chain, enumerate_regions(chain, levels))
    delta: Fraction | None = None
    for rd in drifts:
        if not any(sum(w[a] * g[a] for a in range(chain.J)) > 0 for g in rd.generators):
            continue
        val = sum((w[a] * rd.mean[a] for a in range(chain.J)), Fraction(0))
        if table is not None:
            c, moves, tot = cell_moves(rd, list(fast), K)
            val += sum((r * table[c2] for c2, r in moves.items()), Fraction(0)) - tot * table[c]
        val /= chain.scale
        if val <= 0:
            if len(out.failures) < 5:
                out.failures.append(f"region {rd.describe(chain.ids)}: drift of f is {val} (must be > 0)")
            continue
        delta = val if delta is None else min(delta, val)
    if delta is None and not out.failures:
        out.failures.append("f is bounded on every region")
    if out.failures:
        return out
    big_t = max((abs(v) for v in (table or {}).values()), default=Fraction(0))
    out.ok = True
    out.facts.update(
        delta=delta,
        level=vertex_bound(chain.J, levels) * sum(w, Fraction(0)) + big_t,
        increment_bound=2 * max(w) + 2 * big_t,
    )
    return out


def closed_set(chain: Chain) -> tuple[int, ...] | None:
    """The largest set of stations customers never leave, if exogenous arrivals enter it at positive rate.

    Start from the stations whose feedback probabilities sum to 1 and drop, until
    nothing changes, every station with a feedback choice set reaching outside
    the set.  None when the set is empty or no exogenous choice set lies inside it.

    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> trap = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)), ((1,), F(1, 2))), ((1, (1,), F(1)),), (F(1), F(0)))
    >>> closed_set(trap)
    (1,)
    """
    S = {i for i in range(chain.J) if chain.leave[i] == 0}
    while True:
        drop = {i for i, C, _ in chain.feedback if i in S and not set(C) <= S}
        if not drop:
            break
        S -= drop
    if not S or not any(lam > 0 and set(C) <= S for C, lam in chain.arrivals):
        return None
    return tuple(sorted(S))


def check_closed_set(chain: Chain, stations: Sequence[int]) -> Check:
    """Check that customers never leave ``stations`` and arrive there at positive rate (not stable).

    Conditions (module docstring, "customers that never leave"): the stations are
    distinct, in the network's order; each has feedback probabilities summing to
    exactly 1 with every feedback choice set inside the set; the exogenous choice
    sets inside the set receive a total rate ``inflow`` > 0.
    """
    out = Check(ok=False)
    S = list(stations)
    if not S or any(isinstance(a, bool) or not isinstance(a, int) or not 0 <= a < chain.J for a in S) or S != sorted(set(S)):
        out.failures.append("stations: must be distinct stations of the network, in the network's order")
        return out
    inside = set(S)
    for i in S:
        if chain.leave[i] != 0:
            out.failures.append(
                f"station {chain.ids[i]}: customers leave with probability {chain.leave[i]} after service (must be 0)"
            )
    for i, C, p in chain.feedback:
        if i in inside and not set(C) <= inside:
            out.failures.append(
                f"station {chain.ids[i]}: feedback to {_gen_str(chain, [int(a in C) for a in range(chain.J)])} "
                f"with probability {p} can leave the set"
            )
    inflow = sum((lam for C, lam in chain.arrivals if set(C) <= inside), Fraction(0))
    if inflow <= 0:
        out.failures.append("no exogenous choice set lies inside the set: nothing is shown to enter it")
    out.facts.update(stations=[chain.ids[j] for j in S], inflow=inflow)
    out.ok = not out.failures
    return out


def check_finite(chain: Chain, capacities: Sequence[int | None]) -> Check:
    """Stability of a network in which every station has a finite capacity.

    The chain then lives on the finite set prod_j {0..K_j}; with the empty state
    reachable from every state, the states reachable from empty form the single
    closed class, and a finite irreducible CTMC is positive recurrent.
    """
    out = Check(ok=False)
    if len(capacities) != chain.J or any(k is None or k < 1 for k in capacities):
        out.failures.append("some station has no finite capacity")
    if drain_order(chain) is None:
        out.failures.append("the empty state is not shown reachable from every state")
    if not out.failures:
        out.ok = True
        out.facts.update(states=len(chain.phase_space()) * prod(k + 1 for k in capacities if k is not None))
    return out


def check_fluid(
    chain: Chain, kind: str, coeffs: Sequence[Any], faces: Sequence[FluidFace] | None = None, max_failures: int = 5
) -> Check:
    """Check a fluid Lyapunov certificate exactly (general distributions, any tie-breaking).

    ``kind`` ``quadratic``: V(z) = z'Pz with P strictly diagonally dominant plus
    nonnegative (so V >= eta ``|z|^2`` with eta = min_i P_ii - sum of the negative
    off-diagonal magnitudes > 0), and on every fluid face, for every generator g
    of its closure and every admissible velocity v, 2 g'Pv <= -delta ``|g|_1``: then
    dV/dt = 2 z'Pv <= -delta ``|z|_1`` on the face.  ``linear``: V(z) = w'z with
    every w_i > 0 and w'v <= -delta for every admissible velocity on every face
    other than {0}.  The maximum over the velocity set is computed exactly
    (:func:`certify.markov.fluid.max_rate`; the set is the exact one or a superset).
    """
    from ..markov.fluid import fluid_faces, fluid_rows, max_rate, rate_vector

    out = Check(ok=False)
    J = chain.J
    if kind == "quadratic":
        P = [[Fraction(v) for v in row] for row in coeffs]
        if len(P) != J or any(len(r) != J for r in P) or any(P[i][j] != P[j][i] for i in range(J) for j in range(J)):
            out.failures.append("P must be a symmetric J x J matrix")
            return out
        eta = min(P[i][i] - sum((-P[i][j] for j in range(J) if j != i and P[i][j] < 0), Fraction(0)) for i in range(J))
        if eta <= 0:
            out.failures.append(f"V is not shown positive definite on the orthant (diagonal dominance margin {eta} <= 0)")
        vec: Any = P
    elif kind == "linear":
        w = [Fraction(v) for v in coeffs]
        if len(w) != J or any(v <= 0 for v in w):
            out.failures.append("linear fluid weights must be one positive number per station")
        eta = min(w) if w else Fraction(0)
        vec = w
    else:
        out.failures.append(f"unknown fluid template {kind!r}")
        return out
    if out.failures:
        return out
    faces = fluid_faces(chain) if faces is None else faces
    delta: Fraction | None = None
    bad = 0
    rows = fluid_rows(chain, faces, kind)
    for k, g in rows:
        rate = max_rate(faces[k], rate_vector(kind, vec, g))
        size = sum(g) if g else 1
        if rate >= 0:
            bad += 1
            if bad <= max_failures:
                where = faces[k].region.describe(chain.ids)
                along = f" along {_gen_str(chain, g)}" if g else ""
                out.failures.append(f"fluid face {where}{along}: dV/dt can be {rate} (must be < 0)")
            continue
        val = -rate / size
        delta = val if delta is None else min(delta, val)
    if bad > max_failures:
        out.failures.append(f"... and {bad - max_failures} more fluid conditions violated")
    out.facts.update(faces=len(faces), rows=len(rows))
    if out.failures or delta is None:
        if delta is None and not out.failures:
            out.failures.append("no fluid face away from 0: nothing to check")
        return out
    out.ok = True
    out.facts.update(delta=delta, eta=eta, kind=kind)
    return out
