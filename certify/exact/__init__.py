"""The exact level: the checkers (:mod:`.checks`) and the known theorems (:mod:`.theory`).

Nothing here, nor anything below it, imports numpy, scipy, a solver or
:mod:`certify.search`; ``tests/test_layers.py`` enforces the layering.
"""

from .checks import (
    Check,
    check_closed_set,
    check_finite,
    check_fluid,
    check_foster,
    check_growth,
    check_static_split,
    closed_set,
    routed_sets,
    table_problem,
)

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
