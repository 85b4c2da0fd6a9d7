"""The last stage of ``prove``: simulation checks when every search failed (evidence, never a proof).

For a network that breaks Dai's interarrival conditions, bounded queues in the
runs are reported but give no ``likely-stable`` (a deterministic arrival stream
makes the process periodic, never positive Harris recurrent): the verdict stays
``undecided``.  ``likely-unstable`` needs no such condition.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.hypotheses import DAI_CONDITIONS, dai_violations
from ..core.jsontypes import JsonObject
from ..core.model import Network
from ..core.vocabulary import Semantics
from .context import Timer
from .result import Result
from .stage import Decision

__all__ = ["SimulationOutcome", "simulation_evidence"]


@dataclass(frozen=True)
class SimulationOutcome:
    """What the simulation checks found: the evidence, its reasons and the ``likely-*`` verdict if it gives one.

    Attributes
    ----------
    simulation : JsonObject
        The evidence as JSON (:meth:`certify.simulation.evidence.Evidence.to_json`).
    reasons : tuple of str
        The evidence's reasons, and why it gives no verdict when it does not.
    decision : Decision or None
        ``likely-stable`` or ``likely-unstable`` (evidence, not a proof); None: the verdict stays.

    Examples
    --------
    >>> SimulationOutcome({"verdict": "undecided"}).decision is None
    True
    """

    simulation: JsonObject
    reasons: tuple[str, ...] = ()
    decision: Decision | None = None


def simulation_evidence(res: Result, net: Network, budget: float, seed: int) -> SimulationOutcome:
    """Run the counterexample-style simulation checks (docs/math/instability.md); the pipeline records what they found.

    Parameters
    ----------
    res : Result
        An undecided result: its hints say where to start, its method whether a fluid model was proved stable
        (read; only the attempt of the runs is recorded in it).
    net : Network
        The network.
    budget : float
        Wall-clock seconds for the runs.
    seed : int
        The seed of the runs (identical arguments give identical evidence).

    Returns
    -------
    SimulationOutcome
        The evidence, its reasons, and the ``likely-*`` verdict when the evidence gives one.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> net = Network("mm1", (Station("1", F(1)),), (Stream(F(2), choice=("1",)),))
    >>> found = simulation_evidence(Result("mm1"), net, budget=0.5, seed=1)
    >>> found.decision.verdict, found.simulation["verdict"]
    ('likely-unstable', 'likely-unstable')
    """
    from ..simulation.evidence import simulation_check

    with Timer(res, "simulation checks (evidence, not a proof)") as t:
        directions = res.hints or [tuple(1 for _ in net.stations)]
        ev = simulation_check(net, directions, budget_s=budget, seed=seed)
        t.size = f"{len(ev.starts)} starts x {ev.replications} reps, horizon {ev.horizon:.4g}, {ev.events} events"
        t.outcome = ev.verdict
    simulation, reasons = ev.to_json(), tuple(ev.reasons)
    if ev.verdict == "likely-unstable" and res.method.startswith("fluid"):
        return SimulationOutcome(simulation, (
            *reasons,
            "the simulation suggested growth, but the exactly checked fluid model is stable (no linear growth is "
            "possible): that evidence is set aside",
        ))
    bad = dai_violations(net)
    if ev.verdict == "likely-stable" and bad:
        return SimulationOutcome(simulation, (
            *reasons,
            "the runs show bounded queues, which is not stability: positive Harris recurrence needs "
            f"{DAI_CONDITIONS}, which this network breaks ({'; '.join(bad)}); the verdict stays undecided",
        ))
    if ev.verdict == "undecided":
        return SimulationOutcome(simulation, reasons)
    semantics: Semantics = "markovian" if net.is_markovian else "general"
    return SimulationOutcome(simulation, reasons, Decision(ev.verdict, semantics, "simulation checks (evidence, not a proof)"))
