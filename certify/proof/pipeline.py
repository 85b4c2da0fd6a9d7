"""``prove``: necessary condition, certificate searches, exact checks, verdict.

The verdict ``stable`` comes only from a certificate that passed
:mod:`certify.exact`, or from a theorem of :mod:`certify.exact.theory` whose
hypotheses were checked exactly on this network (``TheoremVerdict.proved``);
``unstable`` likewise.  Everything else is ``undecided`` (or ``likely-*`` from
simulation evidence), with the reasons.

What each verdict claims, and the theorem it rests on:

* closed set / static split (``unstable``, semantics ``general``): flow balance,
  for every routing policy and every distribution with these means.
* fluid certificate (``stable``, ``general``): the fluid model is stable, checked
  exactly; the network is positive Harris recurrent by Dai's theorem *only when
  every interarrival law is unbounded and spread out*
  (:func:`certify.core.hypotheses.dai_violations`).  When some stream breaks that
  (deterministic interarrivals), the verdict is ``undecided`` with the reason
  "the fluid model is stable: checked exactly", the streams, and Dai's
  conditions; simulation evidence of bounded queues is reported but leaves the
  verdict ``undecided`` (the process need not be positive Harris recurrent: a
  D/D/1 queue is periodic).
* Foster / growth certificates (``markovian``): the CTMC on queue lengths
  (x phases for phase-type laws) is positive recurrent / transient; the
  reason says it holds for the phase-type (or exponential) laws and the
  tie-breaking given, nothing more.
* finite state space (``markovian``): a finite irreducible CTMC.
* theorems: the verdict and hypotheses of :class:`certify.exact.theory.TheoremVerdict`;
  ``critical`` (the theorem's inequality holds with equality) is never a verdict.

``time_limit`` bounds the run: region, drift and fluid-face enumeration poll
the deadline and stop with "time limit reached during <stage>" (verdict
``undecided``, never a verdict from a partial enumeration); no new search
starts after it, and the simulation checks get at most the time that is left.
The overshoot is what is already under way when the deadline passes: one LP
solve and its exact check (the enumeration polls every few hundred steps).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from math import prod
from pathlib import Path
from typing import Any

from ..certificates import (
    closed_set_certificate,
    dumps,
    finite_certificate,
    fluid_certificate,
    foster_certificate,
    growth_certificate,
    static_split_certificate,
    theorem_certificate,
)
from ..core.hypotheses import DAI_CONDITIONS, dai_violations
from ..core.model import ForkJoinNetwork, Network
from ..exact.checks import check_closed_set, check_finite, check_fluid, check_foster, check_growth, check_static_split, closed_set
from ..markov.chain import Chain, compile_chain, drain_order
from ..markov.drift import compile_drifts
from ..markov.phases import NotPhaseType, markov_chain
from ..markov.regions import TimeLimitReached, enumerate_regions
from ..search.instability import growth_candidates, solve_growth, static_split
from ..search.solvers import check_solver
from ..search.template import search_template
from ..simulation.evidence import DEFAULT_BUDGET_S
from ..templates import TEMPLATES
from ..templates.table import default_fast

__all__ = ["Attempt", "Result", "prove", "VERDICTS"]

VERDICTS = ("stable", "unstable", "likely-stable", "likely-unstable", "undecided")


@dataclass
class Attempt:
    """One step of the search: what was tried, its size, its time and its outcome."""

    stage: str
    size: str
    time_s: float
    outcome: str


class _Attempts(list):
    """The attempts of a run; ``listener`` (if set) hears each one as it is recorded (live progress)."""

    listener: Callable[[Attempt], None] | None = None

    def append(self, a: Attempt) -> None:  # type: ignore[override]
        super().append(a)
        if self.listener is not None:
            self.listener(a)

    def extend(self, items: Iterable[Attempt]) -> None:  # type: ignore[override]
        for a in items:
            self.append(a)


@dataclass
class Result:
    """The outcome of :func:`prove`."""

    network: str
    verdict: str = "undecided"
    semantics: str = "markovian"
    method: str = "none"
    certificate: dict | None = None
    certificate_path: str | None = None
    reasons: list[str] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=_Attempts)
    time_s: float = 0.0
    expansion: list[str] = field(default_factory=list)
    simulation: dict | None = None
    theorems: list[dict] = field(default_factory=list)
    hints: list[tuple[int, ...]] = field(default_factory=list, repr=False)  # directions where no V decreased

    def to_json(self) -> dict[str, Any]:
        return {
            "network": self.network,
            "verdict": self.verdict,
            "semantics": self.semantics,
            "phase_expansion": self.expansion,
            "method": self.method,
            "certificate": self.certificate_path,
            "reasons": self.reasons,
            "attempts": [dict(a.__dict__) for a in self.attempts],
            "simulation": self.simulation,
            "theorems": self.theorems,
            "time_s": round(self.time_s, 4),
        }

    def table(self) -> str:
        """A short human-readable report."""
        import textwrap

        lines = [f"network: {self.network}"]
        # Column widths from the content; a size text longer than 48 characters wraps within its column.
        w = max([len(a.stage) for a in self.attempts] + [5])
        sw = min(max([len(a.size) for a in self.attempts] + [4]), 48)
        for a in self.attempts:
            size = textwrap.wrap(a.size, sw, break_long_words=True) or [""]
            lines.append(f"  {a.stage:<{w}}  {size[0]:<{sw}}  {a.time_s:7.2f}s  {a.outcome}")
            lines.extend(f"  {'':<{w}}  {more}" for more in size[1:])
        if self.expansion:
            lines.append("phase-type expansion (the chain is on queue lengths x phases):")
            lines.extend(f"  {e}" for e in self.expansion)
        for tv in self.theorems:
            said = tv["verdict"] if tv.get("proved", True) else f"{tv['verdict']}, not proved here: {'; '.join(tv.get('missing', ()))}"
            lines.append(f"theorem: {tv['theorem']} -> {said} ({tv['numbers']})")
        sem = self.semantics + (", phase-type" if self.expansion and self.semantics == "markovian" else "")
        lines.append(f"verdict: {self.verdict} ({sem}; {self.method})")
        for r in self.reasons:
            lines.append(f"  - {r}")
        if self.certificate_path:
            lines.append(f"certificate: {self.certificate_path}")
        lines.append(f"time: {self.time_s:.2f}s")
        return "\n".join(lines)


class _Timer:
    """Context manager that records one :class:`Attempt` (fill in ``size`` and ``outcome``).

    A :class:`TimeLimitReached` raised inside is recorded as the outcome "time limit reached".
    """

    def __init__(self, res: Result, stage: str):
        self.res, self.stage, self.size, self.outcome = res, stage, "", ""

    def __enter__(self) -> _Timer:
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is TimeLimitReached and not self.outcome:
            self.outcome = "time limit reached (stopped; nothing from it is used)"
        self.res.attempts.append(Attempt(self.stage, self.size, time.perf_counter() - self.t0, self.outcome))


@dataclass
class _Run:
    """What a run has done so far: the deadline, the searches run, where the time limit cut, the necessary condition."""

    deadline: float
    ran: list[str] = field(default_factory=list)  # certificate searches that ran (LPs/SDPs solved)
    skipped: list[str] = field(default_factory=list)  # searches not run because the time limit had passed
    cut: str | None = None  # the stage the time limit interrupted
    necessary: str = "unknown"  # holds | borderline | doubtful | unknown | fails

    def expired(self) -> bool:
        return time.perf_counter() > self.deadline

    def necessary_text(self) -> str:
        return {
            "holds": "the necessary condition holds",
            "borderline": "the necessary condition holds at best with equality (critical load, within solver tolerance)",
            "doubtful": "the necessary condition is in doubt (the static split LP looks infeasible, without an exact dual)",
            "unknown": "the necessary condition was not decided (solver failure)",
        }.get(self.necessary, "")

    def summary(self) -> str:
        """Which certificate searches ran, and why the others did not."""
        ran = ", ".join(self.ran) if self.ran else "none"
        if self.cut or self.skipped:
            why = f"time limit reached during {self.cut}" if self.cut else "time limit reached"
            rest = f"; not run: {', '.join(self.skipped)}" if self.skipped else "; the remaining searches were not run"
            return f"no certificate found within the time limit ({why}); searches run: {ran}{rest}"
        return f"no certificate found by the searches run ({ran})"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _size_text(net: Network, chain: Chain) -> str:
    """'2 streams, 3 stations', counting streams as in the file; random choice sets are named separately."""
    text = _plural(len(net.streams), "stream")
    sets = len(chain.arrivals)
    if any(st.choice is None for st in net.streams) or sets != len(net.streams):
        text += f" ({_plural(sets, 'routing set')})"
    return f"{text}, {_plural(chain.J, 'station')}"


def _closed(res: Result, net: Network, chain: Chain) -> bool:
    """Customers that never leave a set fed by exogenous arrivals: exact instability (any distributions)."""
    S = closed_set(chain)
    if S is None:
        return False
    with _Timer(res, "closed set (customers never leave)") as t:
        names = "{" + ",".join(chain.ids[j] for j in S) + "}"
        t.size = f"{_plural(len(S), 'station')} {names}"
        chk = check_closed_set(chain, S)
        if not chk.ok:
            t.outcome = f"exact check failed: {chk.failures[0] if chk.failures else '?'}"
            return False
        t.outcome = f"customers never leave {names} (exact)"
        res.verdict, res.semantics, res.method = "unstable", "general", "closed set (customers never leave)"
        res.certificate = closed_set_certificate(net, chain, S, chk)
        res.reasons.append(
            f"customers never leave stations {names} (every feedback of a station there stays there with total "
            f"probability 1), and exogenous customers enter it at rate {chk.facts['inflow']} (checked exactly): "
            "N_S(t) -> infinity almost surely, not stable for any distributions and any tie-breaking"
        )
        return True


def _static(res: Result, net: Network, chain: Chain, solver: str | None, run: _Run) -> tuple[bool, list[float] | None]:
    """Necessary condition; returns (instability proved, the dual's station weights as a hint).

    Sets ``run.necessary``: ``holds`` (slack > 0), ``borderline`` (0 within solver
    tolerance and no exact dual with a negative value: critical or nearly so),
    ``doubtful`` (negative numerically, but no exact certificate), ``unknown``
    (solver failure) or ``fails`` (an exact dual certificate: unstable).
    """
    tol = 1e-7
    with _Timer(res, "necessary condition (static split LP)") as t:
        t.size = _size_text(net, chain)
        ss = static_split(chain, solver=solver)
        if ss.slack is None:
            t.outcome = f"solver failure ({ss.status})"
            res.reasons.append(f"static split LP: solver failure ({ss.status}); not a verdict")
            run.necessary = "unknown"
            return False, None
        if ss.slack > tol:
            t.outcome = f"holds (best worst-station slack {ss.slack:.4g})"
            run.necessary = "holds"
            return False, ss.w or None
        margins = (1e-9, 1e-7, 1e-5, 1e-3, 0.0) if ss.bounded else (1e-9, 1e-7, 0.0)
        for margin in margins:
            cand = static_split(chain, margin=margin, solver=solver)
            if cand.slack is None:
                continue
            u = {C: Fraction(round(v * 2**40), 2**40) for C, v in cand.u.items()}
            w = [max(Fraction(0), Fraction(round(v * 2**40), 2**40)) for v in cand.w]
            total = sum(w, Fraction(0))
            if total <= 0:
                continue
            u = {C: v / total for C, v in u.items()}
            w = [v / total for v in w]
            chk = check_static_split(chain, u, w)
            if chk.ok:
                run.necessary = "fails"
                t.outcome = f"FAILS: overloaded set {{{','.join(chk.facts['overloaded'])}}} (exact)"
                if ss.bounded:
                    t.outcome += "; no routing balances the flows (dual unbounded, solved with bounded multipliers)"
                res.verdict, res.semantics, res.method = "unstable", "general", "static split LP dual (flow balance)"
                res.certificate = static_split_certificate(net, chain, u, w, chk)
                res.reasons.append(
                    f"no routing keeps stations {{{','.join(chk.facts['overloaded'])}}} below capacity "
                    f"(dual value {float(chk.facts['dual_value']):.4g} < 0, checked exactly); "
                    "this holds for every routing policy and every distribution with these means"
                )
                return True, None
        if ss.slack > -tol:
            run.necessary = "borderline"
            t.outcome = (
                f"borderline (best worst-station slack {ss.slack:.3g}, 0 within solver tolerance; "
                "no exact dual with a negative value): critical or nearly so"
            )
            res.reasons.append(
                "the necessary condition holds at best with equality: the static split LP's value is 0 within solver "
                "tolerance and no exact certificate of overload exists at this precision (critical load: some station "
                "set is exactly at capacity, where flow balance decides nothing)"
            )
            return False, ss.w or None
        run.necessary = "doubtful"
        t.outcome = f"slack {ss.slack:.3g} < 0 numerically, but the exact check failed"
        res.reasons.append(
            "the static split LP looks infeasible but no exact dual certificate was found: the necessary condition is "
            "in doubt (not a verdict)"
        )
        return False, ss.w or None


FLUID_KINDS = ("linear", "quadratic")


def _fluid(res: Result, net: Network, base: Chain, solver: str | None, run: _Run) -> str:
    """Fluid certificates (general distributions, any tie-breaking): linear, then quadratic V.

    Returns ``"stable"`` (found, and Dai's conditions hold: verdict stable),
    ``"fluid-only"`` (the fluid model is proved stable, but some interarrival law
    breaks Dai's conditions: undecided) or ``""`` (none found).
    """
    from ..markov.fluid import fluid_faces
    from ..search.fluid import fluid_candidates, solve_fluid

    with _Timer(res, "fluid faces") as t:
        faces = fluid_faces(base, deadline=run.deadline)
        t.size = f"{_plural(len(faces), 'face')} ({sum(1 for f in faces if not f.fixed)} with a range of velocities)"
        t.outcome = "enumerated"
    for kind in FLUID_KINDS:
        if run.expired():
            run.skipped.append(f"fluid {kind}")
            continue
        run.ran.append(f"fluid {kind}")
        with _Timer(res, f"fluid {kind} Lyapunov") as t:
            lp = solve_fluid(base, faces, kind, solver=solver)
            t.size = f"{lp.rows} rows x {lp.variables} vars ({lp.solver})"
            if lp.status.startswith("solver-error"):
                t.outcome = "solver failure"
                res.reasons.append(f"fluid {kind}: {lp.status} (not a verdict)")
                continue
            if not lp.found or lp.coeffs is None:
                margin = f"{lp.delta:.3g}" if lp.delta is not None else "n/a"
                t.outcome = f"no certificate (LP {lp.status}, best margin {margin})"
                continue
            last: list[str] = []
            for coeffs in fluid_candidates(base, kind, lp.coeffs):
                chk = check_fluid(base, kind, coeffs, faces)
                if chk.ok:
                    t.outcome = f"found, exact check passed (delta = {float(chk.facts['delta']):.3g})"
                    V = "w'z" if kind == "linear" else "z'Pz"
                    per = " per unit of |z|_1" if kind == "quadratic" else ""
                    what = (
                        f"V = {V} decreases along every fluid path (by at least {float(chk.facts['delta']):.3g}{per}, "
                        "checked exactly on every face and every admissible velocity)"
                    )
                    bad = dai_violations(net)
                    res.expansion = []  # the means alone decide: no phase expansion involved
                    if bad:
                        res.verdict, res.semantics = "undecided", "general"
                        res.method = f"fluid {kind} Lyapunov certificate (fluid model only; Dai's conditions fail)"
                        res.reasons.append(
                            f"the fluid model is stable: checked exactly ({what}), for every tie-breaking rule and "
                            "every service and interarrival law with these means"
                        )
                        res.reasons.append(
                            "not a stability proof: Dai's theorem (fluid stable => positive Harris recurrent) needs "
                            f"{DAI_CONDITIONS}, which this network breaks: {'; '.join(bad)}"
                        )
                        return "fluid-only"
                    res.verdict, res.semantics = "stable", "general"
                    res.method = f"fluid {kind} Lyapunov certificate"
                    res.certificate = fluid_certificate(net, base, kind, coeffs, chk)
                    res.reasons.append(
                        f"{what}: stable (positive Harris recurrent, Dai 1995) for every tie-breaking rule and every "
                        "i.i.d. service and interarrival law with these means whose interarrival times are unbounded "
                        "and spread out -- as every interarrival law of this network is (checked)"
                    )
                    return "stable"
                last = chk.failures
            t.outcome = f"LP margin {lp.delta:.3g}, but the exact check failed: {last[0] if last else '?'}"
    return ""


# Refined (regions x cells) problems larger than this are not attempted.
MAX_REGIONS = 250_000


class _Regions:
    """Regions (refined by clip levels) with their drifts, compiled once per level set and shared by all stages."""

    def __init__(self, res: Result, chain: Chain, deadline: float | None = None):
        self.res, self.chain, self.deadline = res, chain, deadline
        self.cache: dict[tuple, list] = {}

    def get(self, levels: dict[int, int]) -> list | None:
        """The drifts for these clip levels, or None when the refined problem would exceed MAX_REGIONS.

        Raises :class:`TimeLimitReached` when the deadline passes during the enumeration.
        """
        merged = dict(self.chain.base_levels)
        for a, k in levels.items():
            merged[a] = max(k, merged.get(a, 0))
        levels = dict(sorted(merged.items()))
        key = tuple(levels.items())
        if key not in self.cache:
            if key != tuple(sorted(self.chain.base_levels.items())):
                base = self.get({})
                assert base is not None
                if len(base) * prod(k + 2 for k in levels.values()) > MAX_REGIONS:
                    return None
            extra = {a: k for a, k in levels.items() if self.chain.base_levels.get(a) != k}
            label = "regions" if not extra else f"regions x cells (K={max(extra.values())})"
            if self.chain.has_phases:
                label += " x phases"
            with _Timer(self.res, label) as t:
                drifts = compile_drifts(
                    self.chain, enumerate_regions(self.chain, levels, deadline=self.deadline), deadline=self.deadline
                )
                unbounded = sum(1 for d in drifts if d.generators)
                what = "(region, phase) pairs" if self.chain.has_phases else "regions"
                t.size = f"{len(drifts)} {what} ({unbounded} unbounded)"
                t.outcome = "enumerated"
            self.cache[key] = drifts
        return self.cache[key]


def _table_text(chain: Chain, fast: list[int] | list[str], K: int) -> str:
    """The table argument named: ``min(x_{1,2}, 12), phases`` (fast given by index or id)."""
    ids = [chain.ids[a] if isinstance(a, int) else a for a in fast]
    parts = ([f"min(x_{{{','.join(ids)}}}, {K})"] if ids else []) + (["phases"] if chain.has_phases else [])
    return ", ".join(parts)


def _foster_try(
    res: Result, net: Network, chain: Chain, regions: _Regions, name: str, raw: dict, solver: str | None, run: _Run
) -> bool:
    """One Foster template with one option set; True when a certificate passed the exact check."""
    cls = TEMPLATES[name]
    opts = cls.resolve_options(chain, raw)
    label = f"{cls.label(opts)} Foster"
    if run.expired():
        run.skipped.append(label)
        return False
    drifts = regions.get(cls.clip_levels(chain, opts))
    if drifts is None:
        res.attempts.append(Attempt(label, "too many regions x cells", 0.0, "skipped"))
        return False
    run.ran.append(label)
    with _Timer(res, label) as t:
        tmpl = cls(chain, drifts, **opts)
        lp = search_template(tmpl, solver)
        t.size = f"{lp.rows} rows x {lp.variables} vars ({lp.solver})"
        if lp.status == "solver-error":
            t.outcome = "solver failure"
            res.reasons.append(f"{name}: solver failure: {'; '.join(lp.notes)} (not a verdict)")
            return False
        if not lp.found:
            margin = f"{lp.delta:.3g}" if lp.delta is not None else "n/a"
            t.outcome = f"no certificate (LP {lp.status}, best margin {margin})"
            if lp.binding:
                keys = tmpl.row_keys()
                res.hints.extend(keys[r].generator for r in lp.binding if keys[r].generator not in res.hints)
            return False
        assert lp.theta is not None
        last: list[str] = []
        for theta in tmpl.candidates(lp.theta):  # type: ignore[arg-type]  # an ndarray of floats
            chk = check_foster(chain, name, theta, drifts=drifts, options=opts)
            if chk.ok:
                t.outcome = f"found, exact check passed (delta = {float(chk.facts['delta']):.3g})"
                res.verdict, res.method = "stable", f"{name} Foster-Lyapunov certificate"
                res.semantics = "markovian"
                res.certificate = foster_certificate(net, chain, name, theta, chk)
                if name == "quadratic" and chain.J <= 3:
                    what = tmpl.formula(theta)
                elif name == "table":
                    what = f"V = x'Px + sum_l x_l T_l[{_table_text(chain, list(opts.get('fast', [])), opts.get('K', 0))}]"
                else:
                    what = cls.summary
                res.reasons.append(
                    f"{what}: AV <= -{float(chk.facts['delta']):.3g} at every state with |x|_1 >= "
                    f"{chk.facts['exceptional_l1_bound']} (checked exactly; Foster's criterion): positive recurrent "
                    "for " + _primitives(chain) + " and the given tie-breaking (nothing is claimed for other laws)"
                )
                return True
            last = chk.failures
        t.outcome = f"LP margin {lp.delta:.3g}, but the exact check failed: {last[0] if last else '?'}"
    return False


def _primitives(chain: Chain) -> str:
    """Where the Markovian claim is made: the laws the chain models."""
    return "the phase-type laws above (the chain is on queue lengths x phases)" if chain.has_phases else "exponential laws"


# Clip levels of the bounded table in growth certificates, tried in order.
GROWTH_TABLE_K = (6, 12, 24)


def _growth_stages(chain: Chain) -> list[tuple[str, list[int], int]]:
    fast = default_fast(chain)
    stages: list[tuple[str, list[int], int]] = [("linear growth (transience)", [], 0)]
    if chain.has_phases:
        stages.append(("growth + table (phases only, transience)", [], 0))
    if fast and len(fast) <= 3:
        for K in GROWTH_TABLE_K if len(fast) <= 2 else GROWTH_TABLE_K[:2]:
            stages.append((f"growth + table (K={K}, transience)", fast, K))
    return stages


def _growth_try(
    res: Result,
    net: Network,
    chain: Chain,
    regions: _Regions,
    hint: list[float] | None,
    solver: str | None,
    run: _Run,
    stage: str,
    fast_set: list[int],
    K: int,
) -> bool:
    """One growth stage (linear, or with a bounded table over (min(x_fast, K), phases)); True when proved."""
    if run.expired():
        run.skipped.append(stage)
        return False
    drifts = regions.get({a: K for a in fast_set})
    if drifts is None:
        res.attempts.append(Attempt(stage, "too many regions x cells", 0.0, "skipped"))
        return False
    run.ran.append(stage)
    with _Timer(res, stage) as t:
        tried = 0
        for support in growth_candidates(chain, hint, limit=16):
            if run.expired():
                t.outcome = "time limit"
                run.cut = run.cut or stage
                break
            tried += 1
            use_table = bool(fast_set) or (chain.has_phases and "table" in stage)
            found = solve_growth(chain, drifts, support, solver=solver, fast=fast_set, K=K, table=use_table)
            if found is None:
                continue
            w, table = found
            chk = check_growth(chain, w, drifts=drifts, table=table, fast=fast_set, K=K)
            if chk.ok:
                t.size = f"support {{{','.join(chain.ids[j] for j in support)}}}, {len(drifts)} regions"
                t.outcome = f"found, exact check passed (delta = {float(chk.facts['delta']):.3g})"
                res.verdict, res.semantics = "unstable", "markovian"
                res.method = "growth certificate" + (" with bounded table" if table else " (linear)")
                res.certificate = growth_certificate(net, chain, w, chk, table=table, fast=fast_set, K=K)
                tt = f" + T({_table_text(chain, fast_set, K)})" if table else ""
                res.reasons.append(
                    f"f = w'x{tt} grows by at least {float(chk.facts['delta']):.3g} per unit time wherever it is large "
                    "(checked exactly; Fayolle-Malyshev-Menshikov): the chain is transient, for "
                    + _primitives(chain) + " and the given tie-breaking"
                )
                return True
        t.size = t.size or f"{tried} supports, {len(drifts)} regions"
        t.outcome = t.outcome or "none found"
    return False


def _schedule(chain: Chain, templates: list[str]) -> list[tuple]:
    """The Markovian searches in order: cheapest first, instability searches interleaved with the Foster ones.

    The first Foster template, then linear growth; then the richer Foster tries,
    each growth-with-table stage right after the first Foster try whose clip
    level reaches its K (they share the refined regions), so an unstable network
    does not wait for every Foster table level before its growth certificate is tried.
    """
    foster = [("foster", name, opts) for name in templates for opts in TEMPLATES[name].escalation(chain)]
    growth = [("growth", *g) for g in _growth_stages(chain)]
    out: list[tuple] = []
    if foster:
        out.append(foster.pop(0))
    out.append(growth.pop(0))  # linear growth
    for item in foster:
        out.append(item)
        _, name, raw = item
        opts = TEMPLATES[name].resolve_options(chain, raw)
        if name != "table":
            continue
        level = opts.get("K", 0) if opts.get("fast") else 0
        while growth and growth[0][3] <= level:
            out.append(growth.pop(0))
    return out + growth


def prove(
    net: Network | ForkJoinNetwork,
    *,
    time_limit: float = 120.0,
    out: str | Path | None = None,
    templates: list[str] | None = None,
    solver: str | None = None,
    fluid: bool | None = None,
    simulate: bool | None = None,
    sim_budget: float = DEFAULT_BUDGET_S,
    seed: int = 0,
    progress: Callable[[Attempt], None] | None = None,
) -> Result:
    """Decide stability of ``net`` with exactly checked certificates.

    Parameters
    ----------
    net : a network from :func:`certify.load` or :func:`certify.from_graph`.
    time_limit : seconds for the whole run.  Enumerations stop when it passes
        ("time limit reached during <stage>", verdict ``undecided``), no new search
        starts after it, and the simulation checks get at most what is left.  The
        overshoot is the step under way: one LP solve and its exact check.
    out : where to write the certificate (if one is found; finite-state and theorem
        verdicts have certificates too).
    templates : Foster templates to try, cheapest first (default: all registered).
    fluid : try fluid certificates first (general distributions); default True unless
        ``templates`` is given.
    simulate : when every search fails, run simulation checks (evidence, verdicts
        ``likely-stable``/``likely-unstable``); default True unless ``templates`` is given.
    sim_budget : wall-clock seconds for the simulation checks (at most the time left).
    seed : seed of the simulation checks (identical arguments give identical results).
    progress : called with each :class:`Attempt` as soon as it is recorded (live reports of long runs).
    solver : a cvxpy solver name (default: Clarabel, else HiGHS, else SCS).

    Returns
    -------
    Result
        ``verdict`` is ``stable``/``unstable`` only with an exactly checked proof.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> net = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> prove(net).verdict
    'stable'
    """
    if solver is not None:
        solver = check_solver(solver)  # an unknown name: SolverNotInstalled (a SolverError) listing the installed ones
    t0 = time.perf_counter()
    run = _Run(deadline=t0 + time_limit)
    res = Result(network=net.name)
    if progress is not None:
        res.attempts.listener = progress  # type: ignore[attr-defined]
    try:
        if isinstance(net, Network):
            res.reasons.extend(f"note: {n}" for n in net.notes)
        use_fluid = templates is None if fluid is None else fluid
        try:
            _prove(res, net, templates or list(TEMPLATES), solver, run, use_fluid)
        except TimeLimitReached as exc:
            run.cut = exc.stage
            res.verdict, res.method, res.certificate = "undecided", "none", None
            res.reasons.append(f"time limit reached during {exc.stage}: nothing is concluded from a partial enumeration")
            res.reasons.append(run.summary())
        disagree = _theorems(res, net, run)
        use_sim = templates is None if simulate is None else simulate
        if res.verdict == "undecided" and use_sim and not disagree and sim_budget > 0 and isinstance(net, Network):
            left = run.deadline - time.perf_counter()
            if left < 1.0:
                res.reasons.append("time limit reached before the simulation checks")
            else:
                _simulate(res, net, min(sim_budget, left), seed)
    finally:
        res.time_s = time.perf_counter() - t0
    if res.certificate is not None and out is not None:
        Path(out).write_text(dumps(res.certificate))
        res.certificate_path = str(out)
    return res


def _theorems(res: Result, net: Network | ForkJoinNetwork, run: _Run | None = None) -> bool:
    """Known theorems next to the certificate search; a disagreement is flagged (returns True) and no verdict is printed.

    Only proved theorem verdicts (hypotheses checked on this network, not
    ``critical``) count: they give the verdict where no certificate did, and one
    that contradicts a certificate or another proved theorem withdraws the
    verdict.  Cross-checks and unproved outcomes are reported (with what is
    missing) and compared, never used as a verdict.
    """
    from ..exact.theory import theorem_verdicts

    if isinstance(net, ForkJoinNetwork):
        from ..exact.theory import fork_join

        found = [fork_join(net)]
    elif net.has_capacities:
        return False
    else:
        found = theorem_verdicts(compile_chain(net), net)
    res.theorems = [tv.to_json() for tv in found]
    proved = [tv for tv in found if tv.decides]
    said = {tv.verdict for tv in proved}
    if len(said) > 1:
        res.reasons.insert(0, "DISAGREEMENT between known theorems: " + "; ".join(f"{t.theorem}: {t.verdict}" for t in proved))
        res.verdict, res.method, res.certificate = "undecided", "theorems disagree (a bug: please report)", None
        return True
    for tv in found:
        if tv.decides:
            continue
        if tv.verdict == "critical":
            res.reasons.append(
                f"the theorem '{tv.theorem}' puts this network on its stability boundary (critical: its inequality "
                f"holds with equality, {tv.numbers}); it gives no verdict there"
            )
        elif res.verdict in ("stable", "unstable") and tv.verdict != res.verdict:
            res.reasons.append(
                f"note: the cross-check '{tv.theorem}' says {tv.verdict} ({tv.numbers}), against the exactly checked "
                f"certificate; it is not a proof here ({'; '.join(tv.missing)}), so the certificate stands"
            )
        else:
            res.reasons.append(
                f"'{tv.theorem}' says {tv.verdict} ({tv.numbers}), not a proof here: {'; '.join(tv.missing)}"
            )
    if not said:
        return False
    tv = next(t for t in proved if t.verdict in said)
    if res.verdict in ("stable", "unstable"):
        if res.verdict != tv.verdict:
            res.reasons.insert(
                0,
                f"DISAGREEMENT: the exactly checked certificate says {res.verdict} but the theorem '{tv.theorem}' "
                f"({tv.source}) says {tv.verdict} ({tv.numbers}); no verdict is given (a bug: please report)",
            )
            res.verdict, res.method, res.certificate = "undecided", "certificate and theorem disagree", None
            return True
        res.reasons.append(f"agrees with the theorem '{tv.theorem}' ({tv.numbers}; {tv.source})")
        return False
    res.verdict, res.semantics = tv.verdict, tv.semantics
    res.method = f"theorem: {tv.theorem}"
    try:
        res.certificate = theorem_certificate(net, tv)
    except ValueError as exc:  # the certificate builder re-runs the criterion; it should agree
        res.certificate = None
        res.reasons.append(f"no theorem certificate could be written: {exc}")
    hyp = "; ".join(tv.hypotheses) if tv.hypotheses else "none beyond the model"
    res.reasons.append(
        f"the hypotheses of '{tv.theorem}' hold (checked exactly: {hyp}) and it says {tv.verdict}: {tv.numbers} "
        f"({tv.source})"
    )
    return False


def _simulate(res: Result, net: Network, budget: float, seed: int) -> None:
    """Counterexample-style simulation checks (DESIGN §7): evidence, never a proof.

    For a network that breaks Dai's interarrival conditions, bounded queues in the
    runs are reported but give no ``likely-stable`` (a deterministic arrival
    stream makes the process periodic, never positive Harris recurrent): the
    verdict stays ``undecided``.  ``likely-unstable`` needs no such condition.
    """
    from ..simulation.evidence import simulation_check

    with _Timer(res, "simulation checks (evidence, not a proof)") as t:
        directions = res.hints or [tuple(1 for _ in net.stations)]
        ev = simulation_check(net, directions, budget_s=budget, seed=seed)
        t.size = f"{len(ev.starts)} starts x {ev.replications} reps, horizon {ev.horizon:.4g}, {ev.events} events"
        t.outcome = ev.verdict
    res.simulation = ev.to_json()
    res.reasons.extend(ev.reasons)
    if ev.verdict == "likely-unstable" and res.method.startswith("fluid"):
        res.reasons.append(
            "the simulation suggested growth, but the exactly checked fluid model is stable (no linear growth is "
            "possible): that evidence is set aside"
        )
        return
    bad = dai_violations(net)
    if ev.verdict == "likely-stable" and bad:
        res.reasons.append(
            "the runs show bounded queues, which is not stability: positive Harris recurrence needs "
            f"{DAI_CONDITIONS}, which this network breaks ({'; '.join(bad)}); the verdict stays undecided"
        )
        return
    if ev.verdict != "undecided":
        res.verdict, res.method = ev.verdict, "simulation checks (evidence, not a proof)"
        res.semantics = "markovian" if net.is_markovian else "general"


def _finite(res: Result, net: Network, chain: Chain | None, base: Chain, why: str) -> None:
    """Every station has a finite capacity: a finite irreducible chain (exact), or the reason why not."""
    fin = check_finite(chain or base, [s.capacity for s in net.stations])
    if chain is not None and fin.ok:
        res.verdict, res.method = "stable", "finite state space (checked exactly)"
        res.certificate = finite_certificate(net, chain, fin)
        res.reasons.append(
            f"every station has a finite capacity, so the chain lives on at most {fin.facts['states']} states, "
            "and the empty state is reachable from every state: positive recurrent (a finite irreducible CTMC), for "
            + _primitives(chain)
            + " and the given tie-breaking"
        )
    elif all(s.capacity is not None for s in net.stations):
        res.reasons.append(
            "finite capacities, but " + ("; ".join(fin.failures) if fin.failures else f"no Markovian form: {why}")
        )
    else:
        res.reasons.append("networks where only some stations have a capacity are not analysed yet")


def _prove(
    res: Result, net: Network | ForkJoinNetwork, templates: list[str], solver: str | None, run: _Run, use_fluid: bool
) -> None:
    if isinstance(net, ForkJoinNetwork):
        from ..forkjoin.prove import prove_forkjoin

        fj = prove_forkjoin(net, solver=solver, deadline=run.deadline)
        res.verdict, res.semantics, res.method, res.certificate = fj.verdict, fj.semantics, fj.method, fj.certificate
        res.reasons.extend(fj.reasons)
        res.attempts.extend(Attempt(*a) for a in fj.attempts)
        return
    base = compile_chain(net)  # the stated means: necessary conditions
    chain: Chain | None
    try:
        chain = markov_chain(net)
        why = ""
    except NotPhaseType as exc:
        chain, why = None, str(exc)
    res.expansion = list(chain.expansion) if chain is not None else []
    res.semantics = "markovian" if chain is not None else "general"
    if net.has_capacities:
        _finite(res, net, chain, base, why)
        return
    if _closed(res, net, base):
        return
    proved, hint = _static(res, net, base, solver, run)
    if proved:
        return
    cond = run.necessary_text()
    if drain_order(base) is None:
        res.reasons.append(
            "some station never passes customers out of the network: the empty state is not shown reachable"
        )
        return
    if use_fluid:
        outcome = _fluid(res, net, base, solver, run)
        if outcome:
            return  # proved, or the fluid model proved stable without Dai's conditions (no Markovian form then)
    if chain is None:
        res.reasons.append(f"{why}: no Markovian form; " + (run.summary() if use_fluid else "fluid certificates not tried") + f"; {cond}")
        return
    if drain_order(chain) is None:
        res.reasons.append("some phase of a service or interarrival law can never finish: not analysed")
        return
    regions = _Regions(res, chain, run.deadline)
    regions.get({})
    for item in _schedule(chain, templates):
        if item[0] == "foster":
            _, name, raw = item
            if _foster_try(res, net, chain, regions, name, raw, solver, run):
                if use_fluid:
                    res.reasons.append(
                        "no fluid certificate was found: stability is proved for the "
                        + ("phase-type" if chain.has_phases else "exponential")
                        + " network with the given tie-breaking only"
                    )
                return
        else:
            _, stage, fast_set, K = item
            if _growth_try(res, net, chain, regions, hint, solver, run, stage, fast_set, K):
                return
    res.reasons.append(f"{run.summary()}; {cond}")
