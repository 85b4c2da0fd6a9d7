"""The numeric search for a template's coefficients, dispatched by template type.

LP templates (their conditions are linear rows) go to
:func:`certify.search.lp.solve_template`; the quartic SOS template to the SDP
of :func:`certify.search.sdp.solve_quartic`.
"""

from __future__ import annotations

from ..templates.base import Template
from ..templates.polynomial import QuarticSOS
from .lp import LPResult, solve_template

__all__ = ["search_template"]


def search_template(tmpl: Template, solver: str | None = None) -> LPResult:
    """Numeric search for the coefficients of ``tmpl`` (the LP over its drift and side rows, or the SDP)."""
    if isinstance(tmpl, QuarticSOS):
        from .sdp import solve_quartic

        return solve_quartic(tmpl, solver=solver)
    return solve_template(tmpl, solver=solver)
