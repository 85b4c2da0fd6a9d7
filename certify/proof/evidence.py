"""The last stage of ``prove``: simulation checks when every search failed (evidence, never a proof).

For a network that breaks Dai's interarrival conditions, bounded queues in the
runs are reported but give no ``likely-stable`` (a deterministic arrival stream
makes the process periodic, never positive Harris recurrent): the verdict stays
``undecided``.  ``likely-unstable`` needs no such condition.
"""

from __future__ import annotations

from ..core.hypotheses import DAI_CONDITIONS, dai_violations
from ..core.model import Network
from .context import Timer
from .result import Result

__all__ = ["simulation_evidence"]


def simulation_evidence(res: Result, net: Network, budget: float, seed: int) -> None:
    """Run the counterexample-style simulation checks and record them in ``res`` (docs/math/instability.md).

    Parameters
    ----------
    res : Result
        An undecided result; its verdict becomes ``likely-*`` when the evidence says so.
    net : Network
        The network.
    budget : float
        Wall-clock seconds for the runs.
    seed : int
        The seed of the runs (identical arguments give identical evidence).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> net = Network("mm1", (Station("1", F(1)),), (Stream(F(2), choice=("1",)),))
    >>> res = Result("mm1")
    >>> simulation_evidence(res, net, budget=0.5, seed=1)
    >>> res.verdict
    'likely-unstable'
    """
    from ..simulation.evidence import simulation_check

    with Timer(res, "simulation checks (evidence, not a proof)") as t:
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
