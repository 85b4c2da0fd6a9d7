"""The Markovian stages of ``prove``: Foster templates and growth (transience) certificates, interleaved.

They run on the chain's Markovian form (queue lengths, x phases for phase-type
laws), share the regions and drifts compiled once per clip-level set
(:class:`~certify.proof.context.Regions`), and prove ``stable`` / ``unstable``
for the exponential (phase-type) laws and the tie-breaking given, nothing more.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..certificates import foster_certificate, growth_certificate
from ..core.errors import CertificateError
from ..core.jsontypes import JsonObject
from ..core.render import plural
from ..exact import check_foster, check_growth
from ..markov.chain import Chain, drain_order
from ..markov.regions import TimeLimitReached
from ..markov.symmetry import Symmetry, reducing
from ..search.instability import growth_candidates, solve_growth
from ..search.template import search_template
from ..templates import TEMPLATES
from ..templates.table import default_fast, table_text
from .context import ProofContext, primitives
from .faces import (
    FACE_GROWTH_K,
    FACE_K,
    FACE_REGIONS,
    FACE_SUPPORTS,
    MAX_SETS,
    SMALL_K,
    FaceTries,
    face_fast_sets,
    face_tries_apply,
    faces_of,
)
from .loop import found_text, round_and_check, search_round_check
from .result import Attempt
from .separable import SeparableTry, beyond_phases, beyond_product, run_separable, separable_tries
from .stage import NEXT, Decision, Interrupted, JsqStage, StageOutcome, decide, go_on, stop

__all__ = ["GROWTH_TABLE_K", "FosterTry", "GrowthTry", "MarkovianForm", "Markovian", "schedule"]

# Clip levels of the bounded table in growth certificates, tried in order.
GROWTH_TABLE_K = (6, 12, 24)


class MarkovianForm(JsqStage):
    """The Markovian searches need a Markovian form in which every phase can finish.

    Examples
    --------
    >>> from certify.proof.context import ProofContext
    >>> MarkovianForm().run(ProofContext.for_file("models/distribution-h2-J3.json")).stop
    False
    """

    name = "Markovian form"

    def run(self, ctx: ProofContext) -> StageOutcome:
        """Stops the pipeline (saying why) when there is no usable Markovian form."""
        if ctx.chain is None:
            tried = ctx.run.summary() if ctx.use_fluid else "fluid certificates not tried"
            return stop(f"{ctx.why}: no Markovian form; {tried}; {ctx.run.necessary_text()}")
        if drain_order(ctx.chain) is None:
            return stop("some phase of a service or interarrival law can never finish: not analysed")
        return NEXT


@dataclass(frozen=True)
class FosterTry:
    """One Foster search of the :func:`schedule`: a template with one option set of its escalation.

    Attributes
    ----------
    template : str
        The template's name (a key of :data:`certify.templates.TEMPLATES`).
    options : dict
        The options as the escalation gives them (resolved by the template before use).

    Examples
    --------
    >>> FosterTry("quadratic", {}).template
    'quadratic'
    """

    template: str
    options: JsonObject = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class GrowthTry:
    """One growth (transience) search of the :func:`schedule`: linear, or with a bounded table.

    Attributes
    ----------
    stage : str
        Its name, as the attempts and the run's summary list it.
    fast : tuple of int
        The stations whose clipped lengths the table reads (empty: no clipped lengths).
    K : int
        The clip level of the table (0 without one).

    Examples
    --------
    >>> GrowthTry("growth + table (K=6, transience)", (0, 1), 6).K
    6
    """

    stage: str
    fast: tuple[int, ...] = ()
    K: int = 0


#: One item of the :func:`schedule`.
Item = FosterTry | GrowthTry | SeparableTry | FaceTries


def _growth_stages(chain: Chain) -> list[GrowthTry]:
    fast = tuple(default_fast(chain))
    stages = [GrowthTry("linear growth (transience)")]
    if chain.has_phases:
        stages.append(GrowthTry("growth + table (phases only, transience)"))
    if fast and len(fast) <= 3:
        for K in GROWTH_TABLE_K if len(fast) <= 2 else GROWTH_TABLE_K[:2]:
            stages.append(GrowthTry(f"growth + table (K={K}, transience)", fast, K))
    return stages


def schedule(chain: Chain, templates: list[str]) -> list[Item]:
    """The Markovian searches in order: cheapest first, instability searches interleaved with the Foster ones.

    The first Foster template, then linear growth, then the separable tries where two or more groups
    share choice sets (:func:`~certify.proof.separable.separable_tries`); then the richer Foster tries,
    each growth-with-table stage right after the first Foster try whose clip
    level reaches its K (they share the refined regions), so an unstable network
    does not wait for every Foster table level before its growth certificate is tried.  Last, where the
    default table follows more than three stations, the face-guided tables (:mod:`certify.proof.faces`).

    Parameters
    ----------
    chain : Chain
        The Markovian chain.
    templates : list of str
        Foster template names, in order.

    Returns
    -------
    list of FosterTry, GrowthTry, SeparableTry or FaceTries
        The searches, in the order they are tried.

    Examples
    --------
    >>> from certify.io.loader import load
    >>> from certify.markov.chain import compile_chain
    >>> schedule(compile_chain(load("models/symmetric-jsq-J4.json")), ["quadratic"])
    [FosterTry(template='quadratic', options={}), GrowthTry(stage='linear growth (transience)', fast=(), K=0)]
    """
    foster: list[FosterTry] = []
    for name in templates:
        for opts in TEMPLATES[name].escalation(chain):
            try:
                TEMPLATES[name].resolve_options(chain, opts)
            except CertificateError:  # an escalation step too large for this chain (the refinement bound): not tried
                continue
            foster.append(FosterTry(name, opts))
    growth = _growth_stages(chain)
    out: list[Item] = []
    if foster:
        out.append(foster.pop(0))
    out.append(growth.pop(0))  # linear growth
    out.extend(separable_tries(chain, templates))
    for item in foster:
        out.append(item)
        level = TEMPLATES[item.template].table_level(chain, item.options)
        if level is None:
            continue
        while growth and growth[0].K <= level:
            out.append(growth.pop(0))
    return out + growth + ([FaceTries()] if face_tries_apply(chain, templates) else [])


def _label(chain: Chain, item: Item) -> str:
    """The name of a :func:`schedule` item as the run's summary lists it."""
    if isinstance(item, (GrowthTry, SeparableTry, FaceTries)):
        return item.stage
    cls = TEMPLATES[item.template]
    return f"{cls.label(cls.resolve_options(chain, item.options))} Foster"


class Markovian(JsqStage):
    """Foster templates and growth certificates in the order of :func:`schedule`; stops at the first proof.

    Examples
    --------
    >>> from certify.proof.context import ProofContext
    >>> out = Markovian().run(ProofContext.for_file("models/symmetric-jsq-J4.json"))
    >>> out.stop, out.decision.verdict, out.decision.method
    (True, 'stable', 'quadratic Foster-Lyapunov certificate')
    """

    name = "Foster and growth certificates"

    def run(self, ctx: ProofContext) -> StageOutcome:
        """Run the schedule; stops the pipeline at the first certificate that passed the exact check.

        Solver failures are reasons, and the directions where no Foster function decreased are hints for the
        simulation checks; the time limit interrupts the stage (:class:`~certify.proof.stage.Interrupted`) with both.
        """
        assert ctx.chain is not None
        items = schedule(ctx.chain, ctx.templates)
        too_many = beyond_phases(ctx.chain) or beyond_product(ctx.chain, ctx.templates)
        if too_many is not None:  # only the separable tries, which never list the whole network's regions
            for item in items:
                if not isinstance(item, SeparableTry):
                    ctx.res.attempts.append(Attempt(_label(ctx.chain, item), "", 0.0, too_many))
            items = [item for item in items if isinstance(item, SeparableTry)]
        if ctx.run.expired():  # no region is enumerated past the deadline (or after a solve it stopped)
            ctx.run.skipped.extend(_label(ctx.chain, item) for item in items)
            return NEXT
        found = _Found()
        try:
            proved = self._search(ctx, items, found)
        except TimeLimitReached as exc:
            raise Interrupted(exc.stage, go_on(*found.reasons, hints=found.hints)) from exc
        if proved is None:
            return go_on(*found.reasons, hints=found.hints)
        return replace(proved, reasons=(*found.reasons, *proved.reasons), hints=tuple(found.hints))

    def _search(self, ctx: ProofContext, items: list[Item], found: _Found) -> StageOutcome | None:
        """The schedule's searches in order; the first proof's outcome, or None."""
        assert ctx.chain is not None
        first = next((item.template for item in items if isinstance(item, FosterTry)), None)
        if any(not isinstance(item, SeparableTry) for item in items):
            ctx.regions.get({}, self._symmetry(ctx, first) if first is not None else None)
        for item in items:
            if isinstance(item, FosterTry):
                proved = self._foster(ctx, item.template, item.options, found)
                if proved is not None and ctx.use_fluid:
                    proved = replace(proved, reasons=(
                        *proved.reasons,
                        "no fluid certificate was found: stability is proved for the "
                        + ("phase-type" if ctx.chain.has_phases else "exponential")
                        + " network with the given tie-breaking only",
                    ))
            elif isinstance(item, SeparableTry):
                if item.stage in ctx.separable_tried:
                    continue  # it ran to its end before the sink stages (certify.proof.separable_first)
                proved = run_separable(ctx, item)
            elif isinstance(item, FaceTries):
                proved = self._faces(ctx, found)
            else:
                proved = self._growth(ctx, item.stage, list(item.fast), item.K)
            if proved is not None:
                return proved
        return None

    @staticmethod
    def _symmetry(ctx: ProofContext, name: str) -> Symmetry | None:
        """The station classes to reduce template ``name`` by: when it has an invariant form and the chain no phases."""
        assert ctx.chain is not None
        if not TEMPLATES[name].supports_symmetry or ctx.chain.has_phases or ctx.chain is not ctx.base:
            return None
        return reducing(ctx.symmetry)

    def _faces(self, ctx: ProofContext, found: _Found) -> StageOutcome | None:
        """The face-guided tries (:mod:`certify.proof.faces`): per fast set, a Foster table, then growth tables."""
        chain = ctx.chain
        assert chain is not None
        faces = faces_of(found.hints, chain.J)
        if not faces:
            ctx.run.skipped.append("face-guided tables (no binding direction of a failed Foster search to guide them)")
            return None
        sets: list[tuple[tuple[int, ...], tuple[int, ...]]] = []  # (fast set, the face that suggested it)
        for face in faces:
            for fast in face_fast_sets(chain, face):
                if all(fast != f for f, _ in sets) and len(sets) < MAX_SETS:
                    sets.append((fast, face))

        def where(fast: tuple[int, ...], face: tuple[int, ...]) -> str:
            return (f"on {{{','.join(chain.ids[j] for j in fast)}}}, guided by the face "
                    f"{{{','.join(chain.ids[j] for j in face)}}}")

        # every set at the Foster level and the first growth level, then the larger growth levels
        for fast, face in sets:
            level = self._face_level(ctx, fast)
            if level is None:
                continue
            K, raw = level
            proved = self._foster(ctx, "table", raw, found, label=f"table (K={K}) {where(fast, face)} Foster")
            if proved is None:
                g = FACE_GROWTH_K[0] if K == FACE_K else K
                proved = self._growth(ctx, f"growth + table (K={g}) {where(fast, face)} (transience)",
                                      list(fast), g, first=face, limit=FACE_SUPPORTS, cap=FACE_REGIONS)
            if proved is not None:
                return proved
        for K in FACE_GROWTH_K[1:]:
            for fast, face in sets:
                proved = self._growth(ctx, f"growth + table (K={K}) {where(fast, face)} (transience)", list(fast), K,
                                      first=face, limit=FACE_SUPPORTS, cap=FACE_REGIONS)
                if proved is not None:
                    return proved
        return None

    def _face_level(self, ctx: ProofContext, fast: tuple[int, ...]) -> tuple[int, JsonObject] | None:
        """The clip level of a face-guided table on ``fast`` (FACE_K, else SMALL_K) with its options, or None.

        A level is used when the table template accepts it on this chain and its refined regions are listed
        (up to :data:`~certify.proof.faces.FACE_REGIONS`); None when neither level is.
        """
        chain = ctx.chain
        assert chain is not None
        for K in (FACE_K, SMALL_K):
            raw: JsonObject = {"fast": [chain.ids[j] for j in fast], "K": K}
            try:
                TEMPLATES["table"].resolve_options(chain, raw)
            except CertificateError:  # too large a table for this chain: not tried
                continue
            if ctx.regions.get({j: K for j in fast}, self._symmetry(ctx, "table"), cap=FACE_REGIONS) is not None:
                return K, raw
        return None

    def _foster(self, ctx: ProofContext, name: str, raw: JsonObject, found: _Found, label: str | None = None) -> StageOutcome | None:
        """One Foster template with one option set; the decision when a certificate passed the exact check."""
        chain, res, run = ctx.chain, ctx.res, ctx.run
        assert chain is not None
        cls = TEMPLATES[name]
        opts = cls.resolve_options(chain, raw)
        label = label or f"{cls.label(opts)} Foster"
        if run.expired():
            run.skipped.append(label)
            return None
        sym = self._symmetry(ctx, name)
        drifts = ctx.regions.get(cls.clip_levels(chain, opts), sym)
        if drifts is None:
            res.attempts.append(Attempt(label, "too many regions x cells", 0.0, "skipped"))
            return None
        run.ran.append(label)
        with ctx.timer(label) as t:
            tmpl = cls(chain, drifts, symmetry=sym, **opts)
            lp = search_template(tmpl, ctx.solver, deadline=run.deadline)
            if lp.timed_out:  # stopped by the clock: reported as such, the later searches are skipped
                run.stopped(f"the {label} {cls.problem}")
            failed = lp.status == "solver-error"
            if failed:
                found.reasons.append(f"{name}: solver failure: {'; '.join(lp.notes)} (not a verdict)")
            elif not lp.found and lp.binding_generators:
                found.hints.extend(g for g in lp.binding_generators if g not in found.hints)
            got = search_round_check(
                t,
                lp,
                "solver failure" if failed else None,
                lp.found and lp.theta is not None,
                lambda: tmpl.candidates(lp.theta),  # type: ignore[arg-type]  # an ndarray of floats
                lambda theta: check_foster(chain, name, theta, drifts=drifts, options=opts, symmetry=sym),
                lambda chk: chk.facts.delta,
                run.deadline,
            )
            if got is None:
                return None
            assert got.candidate is not None and got.check is not None
            theta, chk = got.candidate, got.check
            decision = Decision("stable", "markovian", f"{name} Foster-Lyapunov certificate",
                                foster_certificate(ctx.net, chain, name, theta, chk))
            what = tmpl.proved(theta)
            how = "checked exactly"
            if sym is not None:
                how += (f" on one region per orbit of {plural(len(sym.classes), 'station class')} (exchanging stations of "
                        "a class is an exact symmetry of the network, checked, and V is invariant)")
            return decide(
                decision,
                f"{what}: AV <= -{float(chk.facts.delta):.3g} at every state with |x|_1 >= "
                f"{chk.facts.exceptional_l1_bound} ({how}; Foster's criterion): positive recurrent "
                "for " + primitives(chain) + " and the given tie-breaking (nothing is claimed for other laws)",
            )

    def _growth(self, ctx: ProofContext, stage: str, fast_set: list[int], K: int,
                first: tuple[int, ...] | None = None, limit: int = 16, cap: int | None = None) -> StageOutcome | None:
        """One growth stage (linear, or with a bounded table over (min(x_fast, K), phases)); the decision when proved.

        ``first``: a support to try before the default ones (a face-guided try's face); ``limit``: the most supports;
        ``cap``: list the refined regions even above their size bound, up to this many (:meth:`Regions.get`).
        """
        chain, res, run = ctx.chain, ctx.res, ctx.run
        assert chain is not None
        if run.expired():
            run.skipped.append(stage)
            return None
        drifts = ctx.regions.get({a: K for a in fast_set}, cap=cap)
        if drifts is None:
            res.attempts.append(Attempt(stage, "too many regions x cells", 0.0, "skipped"))
            return None
        run.ran.append(stage)
        use_table = bool(fast_set) or (chain.has_phases and "table" in stage)
        with ctx.timer(stage) as t:
            tried = 0
            supports = growth_candidates(chain, ctx.hint, limit=limit)
            if first is not None:
                supports = [first, *(s for s in supports if s != first)][:limit]
            for support in supports:
                if run.expired():
                    t.outcome = "stopped by the time limit (nothing is concluded from the supports not tried)"
                    run.stopped(stage)
                    break
                tried += 1
                found = solve_growth(chain, drifts, support, solver=ctx.solver, fast=fast_set, K=K, table=use_table,
                                     deadline=run.deadline)
                if found is None:
                    continue
                got = round_and_check(
                    [found],
                    lambda wt: check_growth(chain, wt[0], drifts=drifts, table=wt[1], fast=fast_set, K=K, deadline=run.deadline),
                    run.deadline,
                )
                if got.check is None or got.candidate is None:
                    continue
                (w, table), chk = got.candidate, got.check
                t.size = f"support {{{','.join(chain.ids[j] for j in support)}}}, {len(drifts)} regions"
                t.outcome = found_text(chk.facts.delta)
                decision = Decision("unstable", "markovian",
                                    "growth certificate" + (" with bounded table" if table else " (linear)"),
                                    growth_certificate(ctx.net, chain, w, chk, table=table, fast=fast_set, K=K))
                tt = f" + T({table_text(chain, fast_set, K)})" if table else ""
                return decide(
                    decision,
                    f"f = w'x{tt} grows by at least {float(chk.facts.delta):.3g} per unit time wherever it is large "
                    "(checked exactly; Fayolle-Malyshev-Menshikov): the chain is transient, for "
                    + primitives(chain)
                    + " and the given tie-breaking",
                )
            t.size = t.size or f"{tried} supports, {len(drifts)} regions"
            t.outcome = t.outcome or "none found"
        return None


@dataclass
class _Found:
    """What the Markovian searches found on the way, without a proof: solver failures and Foster hints."""

    reasons: list[str] = field(default_factory=list)
    hints: list[tuple[int, ...]] = field(default_factory=list)
