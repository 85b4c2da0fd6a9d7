"""The exact level: the checkers, the facts they derive, and the known theorems.

* :mod:`.facts` — :class:`Check` (what every check returns) and the facts of each kind;
* :mod:`.stability` — Foster–Lyapunov, finite state space, fluid;
* :mod:`.fluid_flow` — a linear fluid V checked by one max-flow bound (no fluid face listed);
* :mod:`.instability` — static split dual, closed set;
* :mod:`.growth` — the growth function (transience);
* :mod:`.verdict` and :mod:`.theory` — what a theorem says, and the known JSQ theorems;
* :mod:`.theorem_check` — a theorem certificate: the named theorem re-run.

Nothing here, nor anything below it, imports numpy, scipy, a solver or
:mod:`certify.search`; ``tests/test_layers.py`` enforces the layering.
"""

from .facts import (
    Check,
    CheckFailed,
    ClosedSetFacts,
    Facts,
    FiniteStateFacts,
    FluidFacts,
    FluidFlowFacts,
    FosterFacts,
    GrowthFacts,
    StaticSplitFacts,
    TheoremFacts,
)
from .fluid_flow import check_fluid_flow
from .growth import check_growth, table_problem
from .instability import check_closed_set, check_static_split, closed_set, routed_sets
from .stability import check_finite, check_fluid, check_foster
from .theorem_check import check_theorem, decisive_theorem

__all__ = [
    "Check",
    "CheckFailed",
    "Facts",
    "FosterFacts",
    "GrowthFacts",
    "StaticSplitFacts",
    "FluidFacts",
    "FluidFlowFacts",
    "ClosedSetFacts",
    "FiniteStateFacts",
    "TheoremFacts",
    "check_finite",
    "check_foster",
    "check_static_split",
    "check_growth",
    "check_fluid",
    "check_fluid_flow",
    "check_closed_set",
    "check_theorem",
    "decisive_theorem",
    "closed_set",
    "table_problem",
    "routed_sets",
]
