"""The fluid stage of ``prove``: linear, then quadratic fluid Lyapunov certificates (general distributions).

A fluid certificate proves the fluid model stable for every tie-breaking rule
and every law with these means; the network is then positive Harris recurrent
by Dai's theorem *only when every interarrival law is unbounded and spread out*
(:func:`certify.core.hypotheses.dai_violations`).  When some stream breaks that,
the stage stops the pipeline with the verdict ``undecided`` and says why.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any

from ..certificates import fluid_certificate, fluid_flow_certificate
from ..core.certificate import Certificate
from ..core.hypotheses import DAI_CONDITIONS, dai_violations
from ..core.render import plural
from ..core.vocabulary import FLUID_KINDS, FluidKind
from ..exact import Check, FluidFlowFacts, check_fluid
from ..exact.fluid_flow import MAX_INFLOW_DEPTH, flow_rates, inflow_depths
from ..markov.chain import drain_order
from ..markov.fluid import FluidFace
from ..markov.regions import TimeLimitReached
from ..markov.symmetry import Symmetry
from .context import ProofContext
from .loop import found_text, search_round_check
from .result import Attempt
from .separable import beyond_product
from .stage import Decision, Interrupted, JsqStage, StageOutcome, decide, go_on

__all__ = ["FLUID_KINDS", "FLOW_FIRST_ORBITS", "Fluid"]
#: Without a symmetry reduction for it, the quadratic fluid certificate of a symmetric network is tried up to this size.
MAX_UNREDUCED_J = 12
#: Networks with feedback and at least this many station orbits (station classes count once, whether or not the
#: reduction is used) try the max-flow bound (:mod:`certify.exact.fluid_flow`) before listing fluid faces, which grow
#: like 2^J to 3^J in the number of orbits (94k faces for 10 heterogeneous stations); smaller ones with feedback list
#: the faces first (the bound charges an empty station's feedback at its full rate).  Networks without feedback
#: always try the bound first: there it proves every network that Bramson's subset condition proves.
FLOW_FIRST_ORBITS = 8


class Fluid(JsqStage):
    """Fluid certificates: linear, then quadratic V; stops when one passes the exact check.

    Examples
    --------
    >>> from certify.proof.context import ProofContext
    >>> out = Fluid().run(ProofContext.for_file("models/symmetric-jsq-J4.json"))
    >>> out.stop, out.decision.verdict, out.decision.method
    (True, 'stable', 'fluid linear Lyapunov certificate (max-flow bound)')
    """

    name = "fluid certificates"

    def __init__(self, kinds: tuple[FluidKind, ...] = FLUID_KINDS) -> None:
        #: the kinds this instance tries, in order (the max-flow bound comes with ``linear``); the pipeline runs the
        #: quadratic one after the sink-drain stage, whose search is far cheaper than the quadratic LP
        self.kinds = kinds
        if kinds != FLUID_KINDS:
            self.name = f"fluid {' and '.join(kinds)} certificates"

    def applies(self, ctx: ProofContext) -> bool:
        """Unless the caller turned the fluid stages off."""
        return ctx.use_fluid

    def run(self, ctx: ProofContext) -> StageOutcome:
        """List the fluid faces, then try each kind; stops when a certificate passed (or Dai's conditions fail).

        Unless ``ctx.flow_bound`` is off, a network without feedback (where the bound proves every network that
        Bramson's subset condition proves) or with :data:`FLOW_FIRST_ORBITS` station orbits or more first tries the
        max-flow bound, which lists no face.  A solver failure is a reason, never a verdict; the time limit
        interrupts the stage (:class:`~certify.proof.stage.Interrupted`) with the reasons found before.
        """
        notes: list[str] = []  # solver failures, in the order met
        try:
            proved = self._search(ctx, notes)
        except TimeLimitReached as exc:
            raise Interrupted(exc.stage, go_on(*notes)) from exc
        if proved is None:
            return go_on(*notes)
        return replace(proved, reasons=(*notes, *proved.reasons))

    def _search(self, ctx: ProofContext, notes: list[str]) -> StageOutcome | None:
        """The max-flow bound (where it comes first), then each kind; the first proof's outcome, or None."""
        run = ctx.run
        if "linear" in self.kinds and ctx.flow_bound and (not ctx.base.feedback or _orbits(ctx) >= FLOW_FIRST_ORBITS):
            if run.expired():
                run.skipped.append("fluid linear (max-flow bound)")
            else:
                run.ran.append("fluid linear (max-flow bound)")
                proved = self._try_flow(ctx)
                if proved is not None:
                    return proved
        sym = ctx.symmetry  # found only now: the bound needs no station classes (all pairs are tried: 3 s at J = 400)
        faces = ctx.fluid_faces  # listed once per run: the linear and quadratic instances share them
        too_many = beyond_product(ctx.chain, ctx.templates) if ctx.chain is not None else None
        for kind in self.kinds:
            reduced = kind == "linear" and not sym.trivial
            if kind == "quadratic" and not sym.trivial and ctx.base.J > MAX_UNREDUCED_J:
                ctx.res.attempts.append(
                    Attempt(f"fluid {kind} Lyapunov", f"{plural(ctx.base.J, 'station')}", 0.0,
                            f"skipped: it needs every fluid face (no symmetry reduction yet), more than {MAX_UNREDUCED_J} stations")
                )
                continue
            if run.expired():  # before listing faces: past the deadline the listing would only be cut short
                run.skipped.append(f"fluid {kind}")
                continue
            if too_many is not None:
                ctx.res.attempts.append(Attempt(f"fluid {kind} Lyapunov", f"{plural(ctx.base.J, 'station')}", 0.0, too_many))
                continue
            if reduced not in faces:
                faces[reduced] = self._faces(ctx, reduced)
            if run.expired():
                run.skipped.append(f"fluid {kind}")
                continue
            run.ran.append(f"fluid {kind}")
            proved = self._try(ctx, kind, faces[reduced], sym if reduced else None, notes)
            if proved is not None:
                return proved
        return None

    def _faces(self, ctx: ProofContext, reduced: bool) -> list[FluidFace]:
        """The fluid faces: all of them, or (``reduced``) one per orbit of the station classes."""
        from ..markov.fluid import fluid_faces

        sym = ctx.symmetry
        label = "fluid faces (one per orbit)" if reduced else "fluid faces"
        with ctx.timer(label) as t:
            faces = fluid_faces(ctx.base, deadline=ctx.run.deadline, symmetry=sym if reduced else None)
            t.size = f"{plural(len(faces), 'face')} ({sum(1 for f in faces if not f.fixed)} with a range of velocities)"
            if reduced:
                t.size += f", {plural(len(sym.classes), 'station class')} ({_group_size(sym)} symmetries)"
            t.outcome = "enumerated"
        return faces

    def _try(
        self, ctx: ProofContext, kind: FluidKind, faces: list[FluidFace], sym: Symmetry | None, notes: list[str]
    ) -> StageOutcome | None:
        from ..search.fluid import fluid_candidates, solve_fluid

        base, deadline = ctx.base, ctx.run.deadline
        classes = sym.classes if sym is not None else ()
        label = f"fluid {kind} Lyapunov"
        with ctx.timer(label) as t:
            lp = solve_fluid(base, faces, kind, solver=ctx.solver, classes=classes, deadline=deadline)
            if lp.timed_out:  # stopped by the clock: reported as such, the later searches are skipped
                ctx.run.stopped(f"the {label} LP")
            failed = lp.status.startswith("solver-error")
            if failed:
                notes.append(f"fluid {kind}: {lp.status} (not a verdict)")
            coeffs = lp.coeffs
            got = search_round_check(
                t,
                lp,
                "solver failure" if failed else None,
                lp.found and coeffs is not None,
                lambda: fluid_candidates(base, kind, coeffs, classes=classes) if coeffs is not None else iter(()),
                lambda cand: check_fluid(base, kind, cand, faces, symmetry=sym, deadline=deadline),
                lambda chk: chk.facts.delta,
                deadline,
            )
            if got is None:
                return None
            assert got.candidate is not None and got.check is not None
            return self._proved(ctx, kind, got.candidate, got.check, sym)

    def _try_flow(self, ctx: ProofContext) -> StageOutcome | None:
        """V = total fluid mass, checked by the max-flow bound at inflow depths 0, 1, ...: the first that passes.

        w = 1 is the best weight at depth 0 (exact.fluid_flow); deeper charges of an empty station's feedback by
        its inflow can only be tried, each one max-flow computation (they need not improve on each other).
        """
        base = ctx.base
        with ctx.timer("fluid linear Lyapunov (max-flow bound)") as t:
            ones = [Fraction(1)] * base.J
            t.size = f"{plural(len(flow_rates(base)), 'choice set')}, {plural(base.J, 'station')} (no faces listed)"
            first = ""  # the failure at depth 0 (the full charge), the one reported
            for depth in inflow_depths(base):
                chk = ctx.flow_check(depth)
                if chk.ok:
                    t.outcome = found_text(chk.facts.delta) + (f" (feedback charged by inflow, depth {depth})" if depth else "")
                    return self._proved_flow(ctx, ones, chk, depth)
                if not depth:
                    first = chk.failures[0]
            tried = f"; inflow depths 1..{MAX_INFLOW_DEPTH} fail too" if base.feedback else ""
            t.outcome = f"no certificate ({first}{tried}; no other weights do better at depth 0)"
            return None

    def _proved_flow(self, ctx: ProofContext, w: list[Fraction], chk: Check[FluidFlowFacts], depth: int) -> StageOutcome:
        f = chk.facts
        tight = "{" + ",".join(f.tightest) + "}"
        charge = f"; an empty station's feedback charged by its inflow, depth {depth}" if depth else ""
        what = (
            f"V = w'z decreases along every fluid path (by at least {float(f.delta):.3g}, checked exactly for every "
            f"admissible velocity by one max-flow bound: flows into choice sets inside the non-empty stations carry at "
            f"most {float(f.theta):.4g} of their w-weighted service, tightest at {tight}{charge}; no fluid face listed)"
        )
        return self._conclude(ctx, what, lambda: fluid_flow_certificate(ctx.net, ctx.base, w, chk, depth),
                              "fluid linear Lyapunov certificate (max-flow bound)")

    def _proved(self, ctx: ProofContext, kind: FluidKind, coeffs: Any, chk: Any, sym: Symmetry | None) -> StageOutcome:
        V = "w'z" if kind == "linear" else "z'Pz"
        per = " per unit of |z|_1" if kind == "quadratic" else ""
        where = "every face" if sym is None else (
            f"one face per orbit of {plural(len(sym.classes), 'station class')} (exchanging stations of a class is an "
            "exact symmetry of the network, checked, and V is invariant: the other faces are their images)"
        )
        what = (
            f"V = {V} decreases along every fluid path (by at least {float(chk.facts.delta):.3g}{per}, "
            f"checked exactly on {where} and every admissible velocity)"
        )
        return self._conclude(ctx, what, lambda: fluid_certificate(ctx.net, ctx.base, kind, coeffs, chk, symmetry=sym),
                              f"fluid {kind} Lyapunov certificate")

    def _conclude(self, ctx: ProofContext, what: str, certificate: Callable[[], Certificate], method: str) -> StageOutcome:
        """The decision of a passing fluid certificate: stable under Dai's conditions, else the fluid model only.

        Either way the stated means alone decide (``means_only``: no phase expansion is involved).
        """
        bad = dai_violations(ctx.net)
        if bad:
            return decide(
                Decision("undecided", "general", f"{method} (fluid model only; Dai's conditions fail)", means_only=True),
                f"the fluid model is stable: checked exactly ({what}), for every tie-breaking rule and "
                "every service and interarrival law with these means",
                "not a stability proof: Dai's theorem (fluid stable => positive Harris recurrent) needs "
                f"{DAI_CONDITIONS}, which this network breaks: {'; '.join(bad)}",
            )
        decision = Decision("stable", "general", method, certificate(), means_only=True)
        ties = "every tie-breaking rule" if drain_order(ctx.base) is not None else (
            "the tie-breaking given (the network empties when no customer arrives only through ties broken as "
            "given: the verdict is for the tie-breaking given, not for every tie-breaking rule)")
        return decide(
            decision,
            f"{what}: stable (positive Harris recurrent, Dai 1995) for {ties} and every "
            "i.i.d. service and interarrival law with these means whose interarrival times are unbounded "
            "and spread out -- as every interarrival law of this network is (checked)",
        )


def _orbits(ctx: ProofContext) -> int:
    """The network's station orbits under its station classes (found even when the reduction is off)."""
    return ctx.base.J - sum(len(c) - 1 for c in ctx.classes.classes)


def _group_size(sym: Symmetry) -> str:
    """The order of the classes' group in words: exact below 10^6, else ``~10^158`` (never built as a float)."""
    digits = sum(math.lgamma(len(c) + 1) for c in sym.classes) / math.log(10)
    return str(sym.order()) if digits < 6 else f"~10^{int(digits)}"
