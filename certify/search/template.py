"""The numeric search for a template's coefficients, dispatched by template type.

Templates with linear rows (:class:`certify.templates.linear.LinearTemplate`) go
to the LP of :func:`certify.search.lp.solve_template`; the quartic SOS template
(:class:`certify.templates.polynomial.QuarticSOS`) to the SDP of
:func:`certify.search.sdp.solve_quartic`.
"""

from __future__ import annotations

from ..core.errors import NotSupported
from ..templates.base import Template
from ..templates.linear import LinearTemplate
from ..templates.polynomial import QuarticSOS
from .lp import LPResult, solve_template

__all__ = ["search_template"]


def search_template(tmpl: Template, solver: str | None = None, deadline: float | None = None) -> LPResult:
    """Numeric search for the coefficients of ``tmpl``: the LP over its rows, or the SDP.

    Parameters
    ----------
    tmpl : Template
        The template, built on the chain's region drifts.
    solver : str, optional
        A solver name (default :func:`certify.search.solvers.default_solver`;
        the SDP falls back to an SDP solver when an LP-only one is named).
    deadline : float, optional
        A ``time.perf_counter()`` value: the solves get the time left before it
        (status ``time-limit`` when it stops them).

    Returns
    -------
    LPResult
        The float solution (a candidate only) or why there is none.

    Raises
    ------
    NotSupported
        For a template that is neither linear nor the quartic (no search is known for it).

    Examples
    --------
    Two stations sharing one JSQ stream: found at load 3/4, not at load 5/4.

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> from certify.markov.drift import compile_drifts
    >>> from certify.templates import Quadratic
    >>> def jsq2(rate):
    ...     net = Network("jsq2", (Station("1", F(1)), Station("2", F(1))), (Stream(rate, choice=("1", "2")),))
    ...     chain = compile_chain(net)
    ...     return Quadratic(chain, compile_drifts(chain))
    >>> res = search_template(jsq2(F(3, 2)))
    >>> res.status, res.found, round(res.delta, 3)
    ('optimal', True, 0.714)
    >>> res = search_template(jsq2(F(5, 2)))
    >>> res.found
    False
    """
    if isinstance(tmpl, LinearTemplate):
        return solve_template(tmpl, solver=solver, deadline=deadline)
    if isinstance(tmpl, QuarticSOS):
        from .sdp import solve_quartic

        return solve_quartic(tmpl, solver=solver, deadline=deadline)
    raise NotSupported(f"template {tmpl.name}: no numeric search for {type(tmpl).__name__} (neither linear rows nor the quartic SDP)")
