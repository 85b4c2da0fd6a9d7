"""The closed vocabularies of certify's answers, as ``Literal`` types: verdicts, semantics, states, kinds.

Each is a set of plain strings (the JSON output and the certificate files
carry exactly these values), typed so that a checker catches a misspelt one.
The tuples beside the types list their values, in order, for code that checks
a value read at run time (a file, an option).

* :data:`Verdict` -- what :func:`certify.prove` concludes (:data:`VERDICTS`);
  :data:`Proved` -- the two verdicts that need an exactly checked proof.
* :data:`TheoremOutcome` -- what a theorem's inequality says (``critical``: equality, no verdict).
* :data:`EvidenceVerdict` -- what the simulation checks suggest (never a proof).
* :data:`Semantics` -- for which laws a verdict holds (:data:`SEMANTICS`).
* :data:`NecessaryState` -- the necessary condition (the static split LP) after its stage.
* :data:`FluidKind` -- the two fluid Lyapunov templates (:data:`FLUID_KINDS`).

Examples
--------
>>> VERDICTS
('stable', 'unstable', 'likely-stable', 'likely-unstable', 'undecided')
>>> FLUID_KINDS, SEMANTICS
(('linear', 'quadratic'), ('markovian', 'general', 'fluid-model'))
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = [
    "Verdict",
    "Proved",
    "TheoremOutcome",
    "EvidenceVerdict",
    "Semantics",
    "NecessaryState",
    "FluidKind",
    "VERDICTS",
    "PROVED",
    "SEMANTICS",
    "NECESSARY_STATES",
    "FLUID_KINDS",
]

#: What :func:`certify.prove` concludes: ``stable``/``unstable`` only with an exactly checked proof,
#: ``likely-*`` from simulation evidence, else ``undecided``.
Verdict = Literal["stable", "unstable", "likely-stable", "likely-unstable", "undecided"]

#: The verdicts that rest on an exactly checked proof (a certificate or a theorem whose hypotheses hold).
Proved = Literal["stable", "unstable"]

#: What a theorem's deciding inequality says: ``critical`` is equality, where the theorem gives no verdict.
TheoremOutcome = Literal["stable", "unstable", "critical"]

#: What the simulation checks suggest (evidence, never a proof).
EvidenceVerdict = Literal["likely-stable", "likely-unstable", "undecided"]

#: For which laws a verdict holds: ``markovian`` (the exponential or phase-type laws given), ``general``
#: (every distribution with these means), ``fluid-model`` (the fluid model only: a certificate's claim).
Semantics = Literal["markovian", "general", "fluid-model"]

#: The necessary condition after its stage: ``holds`` (slack > 0), ``borderline`` (0 within solver tolerance),
#: ``doubtful`` (negative numerically, no exact dual), ``unknown`` (solver failure, or not run), ``stopped``
#: (its LP was cut by the time limit) or ``fails`` (an exact dual certificate of overload: unstable).
NecessaryState = Literal["holds", "borderline", "doubtful", "unknown", "stopped", "fails"]

#: The fluid Lyapunov templates: V = w'z (``linear``) or V = z'Pz (``quadratic``).
FluidKind = Literal["linear", "quadratic"]

VERDICTS: tuple[Verdict, ...] = get_args(Verdict)
PROVED: tuple[Proved, ...] = get_args(Proved)
SEMANTICS: tuple[Semantics, ...] = get_args(Semantics)
NECESSARY_STATES: tuple[NecessaryState, ...] = get_args(NecessaryState)
FLUID_KINDS: tuple[FluidKind, ...] = get_args(FluidKind)
