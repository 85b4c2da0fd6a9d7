"""Lyapunov templates: an exact core (:class:`Template`) and the linear rows of the LP templates (:class:`LinearTemplate`).

Register a new template by adding it to :data:`TEMPLATES`; the search loop, the
exact checker, the certificate reader and ``certify explain`` look templates up
here by name and need no other change (CONTRIBUTING.md's checklist;
``tests/test_extension_points.py`` registers a toy template this way).
"""

from .base import Template
from .linear import DriftRow, LinearTemplate, SideRow
from .piecewise import PiecewiseQuadratic
from .polynomial import QuarticSOS
from .quadratic import Quadratic
from .table import LinearTable

# Cheapest first: prove tries them in this order.
TEMPLATES: dict[str, type[Template]] = {t.name: t for t in (Quadratic, LinearTable, PiecewiseQuadratic, QuarticSOS)}

__all__ = [
    "TEMPLATES",
    "Template",
    "LinearTemplate",
    "DriftRow",
    "SideRow",
    "Quadratic",
    "LinearTable",
    "QuarticSOS",
    "PiecewiseQuadratic",
]
