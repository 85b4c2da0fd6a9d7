"""``prove``: necessary condition, certificate searches, exact checks, verdict.

The verdict ``stable`` comes only from a certificate that passed
:mod:`certify.exact`; ``unstable`` only from an exactly checked instability
certificate.  Everything else is ``undecided``, with the reasons.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from math import prod
from pathlib import Path
from typing import Any

from .certificate import dumps, fluid_certificate, foster_certificate, growth_certificate, static_split_certificate
from .chain import Chain, compile_chain, drain_order
from .drift import compile_drifts
from .evidence import DEFAULT_BUDGET_S
from .exact import check_finite, check_fluid, check_foster, check_growth, check_static_split
from .instability import growth_candidates, solve_growth, static_split
from .model import ForkJoinNetwork, Network
from .phases import NotPhaseType, markov_chain
from .regions import enumerate_regions
from .templates import TEMPLATES
from .templates.table import default_fast

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

    def extend(self, items) -> None:  # type: ignore[override]
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
            "attempts": [a.__dict__ for a in self.attempts],
            "simulation": self.simulation,
            "theorems": self.theorems,
            "time_s": round(self.time_s, 4),
        }

    def table(self) -> str:
        """A short human-readable report."""
        lines = [f"network: {self.network}"]
        w = max([len(a.stage) for a in self.attempts] + [5])
        for a in self.attempts:
            lines.append(f"  {a.stage:<{w}}  {a.size:<34}  {a.time_s:7.2f}s  {a.outcome}")
        if self.expansion:
            lines.append("phase-type expansion (the chain is on queue lengths x phases):")
            lines.extend(f"  {e}" for e in self.expansion)
        for tv in self.theorems:
            lines.append(f"theorem: {tv['theorem']} -> {tv['verdict']} ({tv['numbers']})")
        sem = self.semantics + (", phase-type" if self.expansion and self.semantics == "markovian" else "")
        lines.append(f"verdict: {self.verdict} ({sem}; {self.method})")
        for r in self.reasons:
            lines.append(f"  - {r}")
        if self.certificate_path:
            lines.append(f"certificate: {self.certificate_path}")
        lines.append(f"time: {self.time_s:.2f}s")
        return "\n".join(lines)


class _Timer:
    """Context manager that records one :class:`Attempt` (fill in ``size`` and ``outcome``)."""

    def __init__(self, res: Result, stage: str):
        self.res, self.stage, self.size, self.outcome = res, stage, "", ""

    def __enter__(self) -> _Timer:
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.res.attempts.append(Attempt(self.stage, self.size, time.perf_counter() - self.t0, self.outcome))


def _static(res: Result, net: Network, chain: Chain, solver: str | None) -> tuple[bool, list[float] | None]:
    """Necessary condition; returns (instability proved, the dual's station weights as a hint)."""
    with _Timer(res, "necessary condition (static split LP)") as t:
        t.size = f"{len(chain.arrivals)} streams, {chain.J} stations"
        ss = static_split(chain, solver=solver)
        if ss.slack is None:
            t.outcome = f"solver failure ({ss.status})"
            res.reasons.append(f"static split LP: solver failure ({ss.status}); not a verdict")
            return False, None
        if ss.slack > 1e-9:
            t.outcome = f"holds (best worst-station slack {ss.slack:.4g})"
            return False, ss.w or None
        if ss.slack > -1e-9:
            t.outcome = "borderline (best worst-station slack is 0): some station is critically loaded"
            res.reasons.append("the necessary condition holds only with equality: the network is critical")
            return False, ss.w or None
        for margin in (1e-9, 1e-7, 0.0):
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
                t.outcome = f"FAILS: overloaded set {{{','.join(chk.facts['overloaded'])}}} (exact)"
                res.verdict, res.semantics, res.method = "unstable", "general", "static split LP dual (flow balance)"
                res.certificate = static_split_certificate(net, chain, u, w, chk)
                res.reasons.append(
                    f"no routing keeps stations {{{','.join(chk.facts['overloaded'])}}} below capacity "
                    f"(dual value {float(chk.facts['dual_value']):.4g} < 0, checked exactly); "
                    "this holds for every routing policy and every distribution with these means"
                )
                return True, None
        t.outcome = f"slack {ss.slack:.3g} <= 0 numerically, but the exact check failed"
        res.reasons.append("static split LP looks infeasible but no exact dual certificate was found")
        return False, ss.w or None


FLUID_KINDS = ("linear", "quadratic")


def _fluid(res: Result, net: Network, base: Chain, solver: str | None, deadline: float) -> bool:
    """Fluid certificates (general distributions, any tie-breaking): linear, then quadratic V."""
    from .fluid import fluid_faces
    from .fluid_search import fluid_candidates, solve_fluid

    with _Timer(res, "fluid faces") as t:
        faces = fluid_faces(base)
        t.size = f"{len(faces)} faces ({sum(1 for f in faces if not f.fixed)} with a range of velocities)"
        t.outcome = "enumerated"
    for kind in FLUID_KINDS:
        if time.perf_counter() > deadline:
            res.reasons.append(f"time limit reached before the {kind} fluid certificate")
            return False
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
                    res.verdict, res.semantics = "stable", "general"
                    res.expansion = []  # the means alone decide: no phase expansion involved
                    res.method = f"fluid {kind} Lyapunov certificate"
                    res.certificate = fluid_certificate(net, base, kind, coeffs, chk)
                    res.reasons.append(
                        f"V = {'w' + chr(39) + 'z' if kind == 'linear' else 'z' + chr(39) + 'Pz'} decreases along every "
                        f"fluid path (by at least {float(chk.facts['delta']):.3g}{' per unit of |z|_1' if kind == 'quadratic' else ''}, "
                        "checked exactly on every face and every admissible velocity): stable for every tie-breaking rule "
                        "and every i.i.d. service and interarrival law with these means, under Dai's conditions on the "
                        "interarrival times (unbounded, spread out)"
                    )
                    return True
                last = chk.failures
            t.outcome = f"LP margin {lp.delta:.3g}, but the exact check failed: {last[0] if last else '?'}"
    return False


# Refined (regions x cells) problems larger than this are not attempted.
MAX_REGIONS = 250_000


class _Regions:
    """Regions (refined by clip levels) with their drifts, compiled once per level set and shared by all stages."""

    def __init__(self, res: Result, chain: Chain):
        self.res, self.chain = res, chain
        self.cache: dict[tuple, list] = {}

    def get(self, levels: dict[int, int]) -> list | None:
        """The drifts for these clip levels, or None when the refined problem would exceed MAX_REGIONS."""
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
                drifts = compile_drifts(self.chain, enumerate_regions(self.chain, levels))
                unbounded = sum(1 for d in drifts if d.generators)
                what = "(region, phase) pairs" if self.chain.has_phases else "regions"
                t.size = f"{len(drifts)} {what} ({unbounded} unbounded)"
                t.outcome = "enumerated"
            self.cache[key] = drifts
        return self.cache[key]


def _foster(
    res: Result,
    net: Network,
    chain: Chain,
    regions: _Regions,
    templates: list[str],
    solver: str | None,
    deadline: float,
    part: slice = slice(None),
) -> bool:
    regions.get({})
    tries = [(name, opts) for name in templates for opts in TEMPLATES[name].escalation(chain)]
    for name, raw in tries[part]:
        if time.perf_counter() > deadline:
            res.reasons.append(f"time limit reached before template {name} {raw or ''}")
            break
        cls = TEMPLATES[name]
        opts = cls.resolve_options(chain, raw)
        label = f"{cls.label(opts)} Foster"
        drifts = regions.get(cls.clip_levels(chain, opts))
        if drifts is None:
            res.attempts.append(Attempt(label, "too many regions x cells", 0.0, "skipped"))
            continue
        with _Timer(res, label) as t:
            tmpl = cls(chain, drifts, **opts)
            lp = tmpl.search(solver)
            t.size = f"{lp.rows} rows x {lp.variables} vars ({lp.solver})"
            if lp.status == "solver-error":
                t.outcome = "solver failure"
                res.reasons.append(f"{name}: solver failure: {'; '.join(lp.notes)} (not a verdict)")
                continue
            if not lp.found:
                margin = f"{lp.delta:.3g}" if lp.delta is not None else "n/a"
                t.outcome = f"no certificate (LP {lp.status}, best margin {margin})"
                if lp.binding:
                    keys = tmpl.row_keys()
                    res.hints.extend(keys[r].generator for r in lp.binding if keys[r].generator not in res.hints)
                continue
            assert lp.theta is not None
            last: list[str] = []
            for theta in tmpl.candidates(lp.theta):
                chk = check_foster(chain, name, theta, drifts=drifts, options=opts)
                if chk.ok:
                    t.outcome = f"found, exact check passed (delta = {float(chk.facts['delta']):.3g})"
                    res.verdict, res.method = "stable", f"{name} Foster-Lyapunov certificate"
                    res.semantics = "markovian"
                    res.certificate = foster_certificate(net, chain, name, theta, chk)
                    res.reasons.append(
                        f"{tmpl.formula(theta) if chain.J <= 3 and name == 'quadratic' else cls.summary}: "
                        f"AV <= -{float(chk.facts['delta']):.3g} at every state with |x|_1 >= "
                        f"{chk.facts['exceptional_l1_bound']} (checked exactly); stability proved for "
                        + ("the phase-type primitives above" if chain.has_phases else "exponential primitives")
                        + " with the given tie-breaking"
                    )
                    return True
                last = chk.failures
            t.outcome = f"LP margin {lp.delta:.3g}, but the exact check failed: {last[0] if last else '?'}"
    return False


# Clip levels of the bounded table in growth certificates, tried in order.
GROWTH_TABLE_K = (6, 12, 24)


def _growth(
    res: Result,
    net: Network,
    chain: Chain,
    regions: _Regions,
    hint: list[float] | None,
    solver: str | None,
    deadline: float,
    part: slice = slice(None),
) -> bool:
    fast = default_fast(chain)
    stages: list[tuple[str, list[int], int]] = [("linear growth (transience)", [], 0)]
    if chain.has_phases:
        stages.append(("growth + table (phases only, transience)", [], 0))
    if fast and len(fast) <= 3:
        for K in GROWTH_TABLE_K if len(fast) <= 2 else GROWTH_TABLE_K[:2]:
            stages.append((f"growth + table (K={K}, transience)", fast, K))
    for stage, fast_set, K in stages[part]:
        if time.perf_counter() > deadline:
            res.reasons.append(f"time limit reached before {stage}")
            break
        drifts = regions.get({a: K for a in fast_set})
        if drifts is None:
            res.attempts.append(Attempt(stage, "too many regions x cells", 0.0, "skipped"))
            continue
        with _Timer(res, stage) as t:
            tried = 0
            for support in growth_candidates(chain, hint, limit=16):
                if time.perf_counter() > deadline:
                    t.outcome = "time limit"
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
                    res.reasons.append(
                        f"f = w'x{' + T(min(x_fast, K), phases)' if table else ''} grows by at least "
                        f"{float(chk.facts['delta']):.3g} per unit time wherever it is large (checked exactly): "
                        "the chain is transient, for "
                        + ("the phase-type primitives above" if chain.has_phases else "exponential primitives")
                        + " with the given tie-breaking"
                    )
                    return True
            t.size = t.size or f"{tried} supports, {len(drifts)} regions"
            t.outcome = t.outcome or "none found"
    return False


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
    time_limit : seconds after which no new search is started.
    out : where to write the certificate (if one is found).
    templates : Foster templates to try, cheapest first (default: all registered).
    fluid : try fluid certificates first (general distributions); default True unless
        ``templates`` is given.
    simulate : when every search fails, run simulation checks (evidence, verdicts
        ``likely-stable``/``likely-unstable``); default True unless ``templates`` is given.
    sim_budget : wall-clock seconds for the simulation checks.
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
    >>> from certify.model import Network, Station, Stream
    >>> net = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> prove(net).verdict
    'stable'
    """
    t0 = time.perf_counter()
    deadline = t0 + time_limit
    res = Result(network=net.name)
    if progress is not None:
        res.attempts.listener = progress  # type: ignore[attr-defined]
    try:
        use_fluid = templates is None if fluid is None else fluid
        _prove(res, net, templates or list(TEMPLATES), solver, deadline, use_fluid)
        disagree = _theorems(res, net)
        use_sim = templates is None if simulate is None else simulate
        if res.verdict == "undecided" and use_sim and not disagree and sim_budget > 0 and isinstance(net, Network):
            _simulate(res, net, sim_budget, seed)
    finally:
        res.time_s = time.perf_counter() - t0
    if res.certificate is not None and out is not None:
        Path(out).write_text(dumps(res.certificate))
        res.certificate_path = str(out)
    return res


def _theorems(res: Result, net: Network | ForkJoinNetwork) -> bool:
    """Known theorems next to the certificate search; a disagreement is flagged (returns True) and no verdict is printed."""
    from .theory import theorem_verdicts

    if isinstance(net, ForkJoinNetwork):
        from .theory import fork_join

        found = [fork_join(net)]
    elif net.has_capacities:
        return False
    else:
        found = theorem_verdicts(compile_chain(net))
    res.theorems = [tv.to_json() for tv in found]
    said = {tv.verdict for tv in found} - {"critical"}
    if len(said) > 1:
        res.reasons.insert(0, "DISAGREEMENT between known theorems: " + "; ".join(f"{t.theorem}: {t.verdict}" for t in found))
        res.verdict, res.method, res.certificate = "undecided", "theorems disagree (a bug: please report)", None
        return True
    if not said:
        return False
    tv = next(t for t in found if t.verdict in said)
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
    res.reasons.append(
        f"the hypotheses of '{tv.theorem}' hold (checked exactly) and it says {tv.verdict}: {tv.numbers} ({tv.source})"
    )
    return False


def _simulate(res: Result, net: Network, budget: float, seed: int) -> None:
    """Counterexample-style simulation checks (DESIGN §7): evidence, never a proof."""
    from .evidence import simulation_check

    with _Timer(res, "simulation checks (evidence, not a proof)") as t:
        directions = res.hints or [tuple(1 for _ in net.stations)]
        ev = simulation_check(net, directions, budget_s=budget, seed=seed)
        t.size = f"{len(ev.starts)} starts x {ev.replications} reps, horizon {ev.horizon:.4g}, {ev.events} events"
        t.outcome = ev.verdict
    res.simulation = ev.to_json()
    res.reasons.extend(ev.reasons)
    if ev.verdict != "undecided":
        res.verdict, res.method = ev.verdict, "simulation checks (evidence, not a proof)"
        res.semantics = "markovian" if net.is_markovian else "general"


def _prove(
    res: Result, net: Network | ForkJoinNetwork, templates: list[str], solver: str | None, deadline: float, use_fluid: bool
) -> None:
    if isinstance(net, ForkJoinNetwork):
        from .forkjoin import prove_forkjoin

        fj = prove_forkjoin(net, solver=solver, deadline=deadline)
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
        fin = check_finite(chain or base, [s.capacity for s in net.stations])
        if chain is not None and fin.ok:
            res.verdict, res.method = "stable", "finite state space (checked exactly)"
            res.reasons.append(
                f"every station has a finite capacity, so the chain lives on at most {fin.facts['states']} states, "
                "and the empty state is reachable from every state: positive recurrent"
            )
        elif all(s.capacity is not None for s in net.stations):
            res.reasons.append(
                "finite capacities, but " + ("; ".join(fin.failures) if fin.failures else f"no Markovian form: {why}")
            )
        else:
            res.reasons.append("networks where only some stations have a capacity are not analysed yet")
        return
    proved, hint = _static(res, net, base, solver)
    if proved:
        return
    if drain_order(base) is None:
        res.reasons.append(
            "some station never passes customers out of the network: the empty state is not shown reachable"
        )
        return
    if use_fluid and _fluid(res, net, base, solver, deadline):
        return
    if chain is None:
        res.reasons.append(
            f"{why}: no Markovian form, and no fluid certificate was found; the necessary condition holds"
        )
        return
    if drain_order(chain) is None:
        res.reasons.append("some phase of a service or interarrival law can never finish: not analysed")
        return
    regions = _Regions(res, chain)
    # Cheapest first, interleaved: the first Foster template, linear growth, then the
    # richer Foster templates, then growth with bounded tables.
    first, rest = slice(0, 1), slice(1, None)
    for part in (first, rest):
        if _foster(res, net, chain, regions, templates, solver, deadline, part):
            if use_fluid:
                res.reasons.append(
                    "no fluid certificate was found: stability is proved for the "
                    + ("phase-type" if chain.has_phases else "exponential")
                    + " network with the given tie-breaking only"
                )
            return
        if _growth(res, net, chain, regions, hint, solver, deadline, part):
            return
    res.reasons.append("no certificate found by any template; the necessary condition holds")
