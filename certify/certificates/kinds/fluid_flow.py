"""The ``fluid-flow`` certificate: a linear fluid Lyapunov function V(z) = w'z, checked by one max-flow bound.

The payload is the weights (``weights``: one canonical rational per station
id) and, optionally, the inflow depth of the feedback charge (``inflow_depth``:
an integer in 0..MAX_INFLOW_DEPTH, 0 when absent: every feedback charged at
mu_i p); the checker (:func:`certify.exact.fluid_flow.check_fluid_flow`)
re-derives everything else: the flow into each choice set, the worst station
set by exact max flows, delta and eta.  What it proves is what a linear
``fluid`` certificate proves (:func:`~certify.certificates.statements.derived_claim`).
Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from math import lcm
from typing import Any

from ...core.certificate import Certificate
from ...core.envelope import seal
from ...core.errors import CertificateError
from ...core.jsontypes import JsonObject
from ...core.model import Network
from ...core.numbers import q
from ...exact.facts import (
    Check,
    FluidFlowFacts,
)
from ...exact.fluid_flow import MAX_INFLOW_DEPTH, check_fluid_flow
from ...markov.chain import Chain, compile_chain
from ..reading import Reading, field_map, int_field, named_rationals
from .base import Kind, Statement
from .fluid import fluid_statement

__all__ = ["fluid_flow_claims", "fluid_flow_certificate", "read_fluid_flow", "MAX_DENOMINATOR_BITS"]

#: The common denominator of a certificate's weights may have at most this many bits (refused beyond, before the check).
MAX_DENOMINATOR_BITS = 8192


def fluid_flow_claims(f: FluidFlowFacts) -> JsonObject:
    """The claims of a ``fluid-flow`` certificate.

    Parameters
    ----------
    f : FluidFlowFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``delta``, ``eta``, ``theta``, ``tightest`` (station ids) and ``sets``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> fluid_flow_claims(FluidFlowFacts(F(1, 4), F(1), F(3, 4), ["1", "2"], 1))
    {'delta': '1/4', 'eta': '1', 'theta': '3/4', 'tightest': ['1', '2'], 'sets': 1}
    """
    return {"delta": q(f.delta), "eta": q(f.eta), "theta": q(f.theta), "tightest": list(f.tightest), "sets": f.sets}

def fluid_flow_certificate(net: Network, chain: Chain, w: Sequence[Fraction], check: Check[FluidFlowFacts],
                           depth: int = 0) -> Certificate:
    """A ``fluid-flow`` certificate (general distributions where Dai's conditions hold), exactly checked.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain
        Its (exponential) chain.
    w : sequence of Fraction
        The weights of V(z) = w'z.
    check : Check of FluidFlowFacts
        The passing :func:`~certify.exact.fluid_flow.check_fluid_flow` of ``w`` (at ``depth``).
    depth : int, optional
        The inflow depth the check ran at (default 0; written only when not 0).

    Returns
    -------
    Certificate
        The sealed certificate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.exact.fluid_flow import check_fluid_flow
    >>> two = Network("two", (Station("1", F(1)), Station("2", F(1))), (Stream(F(3, 2), choice=("1", "2")),))
    >>> chain = compile_chain(two)
    >>> cert = fluid_flow_certificate(two, chain, [F(1), F(1)], check_fluid_flow(chain, [F(1), F(1)]))
    >>> cert["kind"], cert["weights"], cert["claims"]["theta"], cert["semantics"]
    ('fluid-flow', {'1': '1', '2': '1'}, '3/4', 'general')
    """
    payload: JsonObject = {"weights": {chain.ids[j]: q(w[j]) for j in range(chain.J)}}
    if depth:
        payload["inflow_depth"] = depth
    return seal(net, "fluid-flow", payload, fluid_flow_claims(check.facts), *fluid_flow_statement(net, chain, "linear"))

def read_fluid_flow(net: Network, cert: Mapping[str, Any]) -> Reading:
    """Read a ``fluid-flow`` certificate: exactly one canonical rational weight per station id, and the inflow depth.

    Parameters
    ----------
    net : Network
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading
        The arguments of :func:`certify.exact.fluid_flow.check_fluid_flow`.

    Raises
    ------
    CertificateError
        When ``weights`` is not a map naming exactly the stations, each a canonical rational, or
        the weights' common denominator exceeds 2^MAX_DENOMINATOR_BITS, or ``inflow_depth`` is not an
        integer in 0..MAX_INFLOW_DEPTH.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> read_fluid_flow(mm1, {"weights": {"1": "1/2"}}).args[1:]
    ([Fraction(1, 2)], 0)
    >>> read_fluid_flow(mm1, {"weights": {"1": "1"}, "inflow_depth": 9})
    Traceback (most recent call last):
    ...
    certify.core.errors.CertificateError: inflow_depth: 9 must be an integer in 0..3
    """
    chain = compile_chain(net)
    vals = named_rationals(field_map(cert, "weights"), list(chain.ids), "weights")
    common = 1
    for s in chain.ids:  # sized before the check: its max flows run on the weights scaled to integers
        common = lcm(common, vals[s].denominator)
        if common.bit_length() > MAX_DENOMINATOR_BITS:
            raise CertificateError(None, "weights", f"the common denominator of the weights exceeds 2^{MAX_DENOMINATOR_BITS} "
                                   "(the exact max flows would run on integers that large)")
    depth = int_field(cert, "inflow_depth", 0, MAX_INFLOW_DEPTH, default=0)
    return Reading((chain, [vals[s] for s in chain.ids], depth), chain=chain, template="linear")


def fluid_flow_statement(net: Any, chain: Chain | None, template: str) -> Statement:
    """What a fluid-flow certificate proves on ``net`` (semantics, statement), derived, never read.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain or None
        The chain the certificate is about.
    template : str
        Unused.

    Returns
    -------
    tuple of str
        The semantics and the statement.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> fluid_flow_statement(mm1, None, '')[0]
    'general'
    """
    return fluid_statement(net, chain, template)


KIND = Kind("fluid-flow", "stable", ("weights",), read_fluid_flow, check_fluid_flow, fluid_flow_claims,
            fluid_flow_statement, "certify.explain.fluid_flow:explain_fluid_flow", optional=("inflow_depth",))
