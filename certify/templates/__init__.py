"""Lyapunov templates: small types sharing one interface (:class:`Template`).

Register a new template by adding it to :data:`TEMPLATES`; the search loop and
the exact checker look templates up here by name and need no other change.
"""

from .base import DriftRow, SideRow, Template
from .piecewise import PiecewiseQuadratic
from .polynomial import QuarticSOS
from .quadratic import Quadratic
from .table import LinearTable

# Cheapest first: prove tries them in this order.
TEMPLATES: dict[str, type[Template]] = {t.name: t for t in (Quadratic, LinearTable, PiecewiseQuadratic, QuarticSOS)}

__all__ = ["TEMPLATES", "Template", "DriftRow", "SideRow", "Quadratic", "LinearTable", "QuarticSOS", "PiecewiseQuadratic"]
