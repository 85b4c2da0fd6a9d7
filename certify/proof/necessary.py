"""The first stages of ``prove``: finite capacities, closed sets, the necessary condition, reachability.

* :class:`FiniteState` -- every station has a capacity: a finite irreducible chain (exact).
  (Some but not all: :class:`~certify.proof.capacities.PartialCapacities`, after the necessary condition.)
* :class:`ClosedSet` -- customers that never leave a set fed by exogenous arrivals: unstable (general).
* :class:`NecessaryCondition` -- the static split LP; an exact dual certificate of overload: unstable (general).
* :class:`Emptiable` -- the network must empty when no customer arrives (every stability verdict needs it).
* :class:`Reachability` -- the drain order the Markovian checkers use (the Foster and growth stages need it).

Why two checks.  Dai's fluid theorem turns a stable fluid model into positive
Harris recurrence through a petite set: with unbounded interarrival times no
customer arrives for a long time with positive probability, and meanwhile the
network must empty (Dai 1995, Section 4; an open network).  For a JSQ network
that is a property of its routing and tie-breaking, whatever the service
laws: :func:`~certify.markov.chain.emptying_order` shows it, also for feedback into a set holding
the station itself (``1 -> JSQ{1, 2}``, 2 exits: station 1's last customer
ties with an empty station 2 and moves on with probability 1/2).  The Markovian
checkers (:mod:`certify.exact.stability`, :mod:`certify.exact.growth`) re-check
the narrower :func:`certify.markov.chain.drain_order` themselves, so
:class:`Reachability` only spares them a search their check would refuse; it
runs after the fluid stage and stops just the Markovian stages.
"""

from __future__ import annotations

from fractions import Fraction

from ..certificates import closed_set_certificate, finite_certificate, static_split_certificate
from ..core.render import plural
from ..exact import check_closed_set, check_finite, check_static_split, closed_set
from ..exact.overflow import lossy_sets
from ..markov.chain import drain_order, emptied_stations, emptying_order
from ..search.instability import static_split
from ..search.solvers import TIME_LIMIT
from .context import ProofContext, primitives, size_text
from .stage import NEXT, Decision, JsqStage, StageOutcome, decide, go_on, stop

__all__ = ["FiniteState", "ClosedSet", "NecessaryCondition", "Emptiable", "Reachability", "emptying_order"]


class FiniteState(JsqStage):
    """Every station has a finite capacity: a finite irreducible chain (exact), or the reason why not.

    Examples
    --------
    >>> from certify.proof.context import ProofContext
    >>> ctx = ProofContext.for_file("models/loss-two-queue-K3.json")
    >>> out = FiniteState().run(ctx)
    >>> FiniteState().applies(ctx), out.stop, out.decision.verdict
    (True, True, 'stable')
    """

    name = "finite state space"

    def applies(self, ctx: ProofContext) -> bool:
        """Only networks whose every station has a capacity (:class:`~certify.proof.capacities.PartialCapacities`: some)."""
        return all(s.capacity is not None for s in ctx.net.stations)

    def run(self, ctx: ProofContext) -> StageOutcome:
        """Check the finite chain; always stops the pipeline (capacities leave nothing else to try)."""
        net, chain = ctx.net, ctx.chain
        fin = check_finite(chain or ctx.base, [s.capacity for s in net.stations])
        if chain is not None and fin.ok:
            return decide(
                Decision("stable", "markovian", "finite state space (checked exactly)", finite_certificate(net, chain, fin)),
                f"every station has a finite capacity, so the chain lives on at most {fin.facts.states} states, "
                "and the empty state is reachable from every state: positive recurrent (a finite irreducible CTMC), for "
                + primitives(chain)
                + " and the given tie-breaking",
            )
        return stop("finite capacities, but " + ("; ".join(fin.failures) if fin.failures else f"no Markovian form: {ctx.why}"))


class ClosedSet(JsqStage):
    """Customers that never leave a set fed by exogenous arrivals: exact instability (any distributions).

    Examples
    --------
    >>> import time
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.proof.context import ProofContext, RunState
    >>> from certify.proof.result import Result
    >>> net = Network("trap", (Station("1", F(5)),), (Stream(F(1), choice=("1",)),), (Feedback("1", ("1",), F(1)),))
    >>> ctx = ProofContext(net, Result("trap"), RunState(time.perf_counter() + 60), None, True, [])
    >>> out = ClosedSet().run(ctx)
    >>> out.stop, out.decision.verdict, out.decision.semantics
    (True, 'unstable', 'general')
    """

    name = "closed set (customers never leave)"

    def applies(self, ctx: ProofContext) -> bool:
        """Networks without capacities (with some, a customer may be lost; flow balance with losses covers them)."""
        return not ctx.net.has_capacities

    def run(self, ctx: ProofContext) -> StageOutcome:
        """Find a closed set and check it exactly; stops the pipeline when proved."""
        chain = ctx.base
        S = closed_set(chain)
        if S is None:
            return NEXT
        with ctx.timer(self.name) as t:
            names = "{" + ",".join(chain.ids[j] for j in S) + "}"
            t.size = f"{plural(len(S), 'station')} {names}"
            chk = check_closed_set(chain, S)
            if not chk.ok:
                t.outcome = f"exact check failed: {chk.failures[0] if chk.failures else '?'}"
                return NEXT
            t.outcome = f"customers never leave {names} (exact)"
            return decide(
                Decision("unstable", "general", "closed set (customers never leave)",
                         closed_set_certificate(ctx.net, chain, S, chk)),
                f"customers never leave stations {names} (every feedback of a station there stays there with total "
                f"probability 1), and exogenous customers enter it at rate {chk.facts.inflow} (checked exactly): "
                "N_S(t) -> infinity almost surely, not stable for any distributions and any tie-breaking",
            )


class NecessaryCondition(JsqStage):
    """The static split LP; an exact dual certificate of overload proves instability.

    Sets ``run.necessary``: ``holds`` (slack > 0), ``borderline`` (0 within solver
    tolerance and no exact dual with a negative value: critical or nearly so),
    ``doubtful`` (negative numerically, but no exact certificate), ``unknown``
    (solver failure) or ``fails`` (an exact dual certificate: unstable), and
    ``ctx.hint`` (the dual's station weights, for the growth supports).

    Examples
    --------
    >>> from certify.proof.context import ProofContext
    >>> ctx = ProofContext.for_file("models/overloaded-unstable.json")
    >>> out = NecessaryCondition().run(ctx)
    >>> out.stop, out.decision.verdict, ctx.run.necessary
    (True, 'unstable', 'fails')
    >>> ctx = ProofContext.for_file("models/symmetric-jsq-J4.json")
    >>> NecessaryCondition().run(ctx).stop, ctx.run.necessary
    (False, 'holds')
    """

    name = "necessary condition (static split LP)"
    tol = 1e-7

    def run(self, ctx: ProofContext) -> StageOutcome:
        """Solve the static split LP; stops the pipeline only with an exactly checked overload."""
        net, chain, run, solver = ctx.net, ctx.base, ctx.run, ctx.solver
        tol = self.tol
        lossy = lossy_sets(chain, [s.capacity for s in net.stations]) if net.has_capacities else []
        with ctx.timer(self.name) as t:
            t.size = size_text(net, chain)
            ss = static_split(chain, solver=solver, lossy=lossy)
            if ss.slack is None and ss.status == TIME_LIMIT:
                t.outcome = "stopped by the time limit (the solve was cut short; nothing is concluded from it)"
                run.necessary = "stopped"
                run.stopped(self.name)
                return NEXT
            if ss.slack is None:
                t.outcome = f"solver failure ({ss.status})"
                run.necessary = "unknown"
                return go_on(f"static split LP: solver failure ({ss.status}); not a verdict")
            if ss.slack > tol:
                t.outcome = f"holds (best worst-station slack {ss.slack:.4g})"
                run.necessary = "holds"
                ctx.hint = ss.w or None
                return NEXT
            margins = (1e-9, 1e-7, 1e-5, 1e-3, 0.0) if ss.bounded else (1e-9, 1e-7, 0.0)
            for margin in margins:
                cand = static_split(chain, margin=margin, solver=solver, lossy=lossy)
                if cand.slack is None:
                    continue
                u = {C: Fraction(round(v * 2**40), 2**40) for C, v in cand.u.items()}
                u.update({C: max(Fraction(0), u[C]) for C in lossy})
                w = [max(Fraction(0), Fraction(round(v * 2**40), 2**40)) for v in cand.w]
                total = sum(w, Fraction(0))
                if total <= 0:
                    continue
                u = {C: v / total for C, v in u.items()}
                w = [v / total for v in w]
                chk = check_static_split(chain, u, w, lossy)
                if chk.ok:
                    run.necessary = "fails"
                    t.outcome = f"FAILS: overloaded set {{{','.join(chk.facts.overloaded)}}} (exact)"
                    if ss.bounded:
                        t.outcome += "; no routing balances the flows (dual unbounded, solved with bounded multipliers)"
                    losing = (
                        ", even one that loses any share of the customers whose choice sets hold only capped stations,"
                        if lossy else ""
                    )
                    return decide(
                        Decision("unstable", "general", "static split LP dual (flow balance)",
                                 static_split_certificate(net, chain, u, w, chk)),
                        f"no routing{losing} keeps stations {{{','.join(chk.facts.overloaded)}}} below their service "
                        f"rates (dual value {float(chk.facts.dual_value):.4g} < 0, checked exactly); "
                        "this holds for every routing policy and every distribution with these means",
                    )
            ctx.hint = ss.w or None
            if ss.slack > -tol:
                run.necessary = "borderline"
                t.outcome = (
                    f"borderline (best worst-station slack {ss.slack:.3g}, 0 within solver tolerance; "
                    "no exact dual with a negative value): critical or nearly so"
                )
                return go_on(
                    "the necessary condition holds at best with equality: the static split LP's value is 0 within solver "
                    "tolerance and no exact certificate of overload exists at this precision (critical load: some station "
                    "set is exactly at capacity, where flow balance decides nothing)"
                )
            run.necessary = "doubtful"
            t.outcome = f"slack {ss.slack:.3g} < 0 numerically, but the exact check failed"
            return go_on(
                "the static split LP looks infeasible but no exact dual certificate was found: the necessary condition is "
                "in doubt (not a verdict)"
            )


class Emptiable(JsqStage):
    """The network must empty when no customer arrives (:func:`~certify.markov.chain.emptying_order`): every stability verdict needs it.

    Examples
    --------
    >>> from certify.proof.context import ProofContext
    >>> Emptiable().run(ProofContext.for_file("models/two-station-feedback.json")).stop
    False
    """

    name = "the network empties without arrivals"

    def run(self, ctx: ProofContext) -> StageOutcome:
        """Stops the pipeline, naming the stations, when the network is not shown to empty."""
        chain = ctx.base
        order = set(emptied_stations(chain))
        if len(order) == chain.J:
            return NEXT
        stuck = ", ".join(chain.ids[j] for j in range(chain.J) if j not in order)
        return stop(
            f"the network is not shown to empty when no customer arrives (station{'s' if len(order) < chain.J - 1 else ''} "
            f"{stuck}: none of their routes "
            "leads out of the network with positive probability, counting ties and their tie-breaking); both the fluid "
            "theorem and the Markovian certificates need it, so no stability certificate is searched"
        )


class Reachability(JsqStage):
    """The drain order of the Markovian checkers (:func:`~certify.markov.chain.drain_order`); stops only the Markovian stages.

    It runs after the fluid stage: a fluid certificate needs only :class:`Emptiable`.

    Examples
    --------
    >>> from certify.proof.context import ProofContext
    >>> Reachability().run(ProofContext.for_file("models/symmetric-jsq-J4.json")).stop
    False
    """

    name = "reachability of the empty state (Markovian checkers)"

    def run(self, ctx: ProofContext) -> StageOutcome:
        """Stops the pipeline, before the Markovian stages, when the drain order does not exist."""
        if drain_order(ctx.base) is None:
            tried = ctx.run.summary() if ctx.use_fluid else "fluid certificates not tried"
            return stop(
                "the network empties when no customer arrives, but the Markovian checkers need the empty state "
                "reachable along routes into draining stations only (some station feeds back into a choice set that "
                f"holds a station not shown to drain): Foster and growth searches not run; {tried}; "
                f"{ctx.run.necessary_text()}"
            )
        return NEXT
