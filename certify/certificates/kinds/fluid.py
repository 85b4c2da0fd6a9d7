"""The ``fluid`` kind: a fluid Lyapunov function (linear or quadratic) on every fluid face (general laws).

Payload: ``template``, ``coefficients`` (and ``symmetry``).  :func:`fluid_statement` is shared with ``fluid-flow``.  Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ...core.certificate import Certificate
from ...core.envelope import seal
from ...core.errors import CertificateError
from ...core.hypotheses import dai_violations
from ...core.jsontypes import JsonObject
from ...core.model import Network
from ...core.numbers import q
from ...exact.facts import (
    Check,
    FluidFacts,
)
from ...exact.stability import check_fluid
from ...markov.chain import Chain, compile_chain, drain_order, emptying_order
from ...markov.symmetry import Symmetry
from ..reading import Reading, field_map, named_rationals, symmetry_field
from .base import Kind, Statement

__all__ = ["fluid_claims", "fluid_certificate", "read_fluid"]


def fluid_claims(f: FluidFacts) -> JsonObject:
    """The claims of a fluid Lyapunov certificate.

    Parameters
    ----------
    f : FluidFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``delta``, ``eta``, ``faces``, ``rows``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> fluid_claims(FluidFacts(1, 1, F(1), F(1), "linear"))
    {'delta': '1', 'eta': '1', 'faces': 1, 'rows': 1}
    """
    return {"delta": q(f.delta), "eta": q(f.eta), "faces": f.faces, "rows": f.rows}

def fluid_certificate(
    net: Network, chain: Chain, kind: str, coeffs: Sequence[Any], check: Check[FluidFacts], symmetry: Symmetry | None = None
) -> Certificate:
    """A fluid Lyapunov certificate (general distributions where Dai's conditions hold), exactly checked.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain
        Its (exponential) chain.
    kind : str
        ``linear`` or ``quadratic``.
    coeffs : sequence
        The weights w or the symmetric matrix P.
    check : Check of FluidFacts
        The passing :func:`~certify.exact.check_fluid` of ``coeffs``.
    symmetry : Symmetry, optional
        The station classes the check used (recorded as ``symmetry``: lists of station ids).

    Returns
    -------
    Certificate
        The sealed certificate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.exact import check_fluid
    >>> from certify.markov.chain import compile_chain
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> chain = compile_chain(mm1)
    >>> cert = fluid_certificate(mm1, chain, "linear", [F(1)], check_fluid(chain, "linear", [F(1)]))
    >>> cert["coefficients"], cert["semantics"]
    ({'w[1]': '1'}, 'general')
    """
    ids, J = chain.ids, chain.J
    if kind == "linear":
        named = {f"w[{ids[i]}]": q(coeffs[i]) for i in range(J)}
    else:
        named = {f"P[{ids[i]},{ids[j]}]": q(coeffs[i][j]) for i in range(J) for j in range(i, J)}
    payload: JsonObject = {"template": kind, "coefficients": named}
    if symmetry is not None and not symmetry.trivial:
        payload["symmetry"] = [[ids[a] for a in c] for c in symmetry.classes]
    return seal(net, "fluid", payload, fluid_claims(check.facts), *fluid_statement(net, chain, kind))

def read_fluid(net: Network, cert: Mapping[str, Any]) -> Reading:
    """Read a fluid certificate: the template (linear or quadratic) and its named coefficients.

    Parameters
    ----------
    net : Network
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading
        The arguments of :func:`certify.exact.check_fluid` (weights w, or the
        symmetric matrix P from its upper triangle).

    Raises
    ------
    CertificateError
        When the template is not a fluid one, the coefficients do not name
        exactly ``w[i]`` (linear) or ``P[i,j]``, i <= j (quadratic), or
        ``symmetry`` (optional) is not a list of disjoint station classes, each two
        or more distinct known ids in the network's order, the classes ordered by
        their first station.  Whether they *are* symmetries is the checker's to decide.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> read_fluid(mm1, {"template": "quadratic", "coefficients": {"P[1,1]": "1/2"}}).args[1:]
    ('quadratic', [[Fraction(1, 2)]])
    >>> two = Network("two", (Station("1", F(1)), Station("2", F(1))), (Stream(F(1), choice=("1", "2")),))
    >>> cert = {"template": "linear", "coefficients": {"w[1]": "1", "w[2]": "1"}, "symmetry": [["1", "2"]]}
    >>> read_fluid(two, cert).kwargs
    {'symmetry': Symmetry(classes=((0, 1),))}
    """
    chain = compile_chain(net)
    kind = cert.get("template")
    if kind not in ("linear", "quadratic"):
        raise CertificateError(None, "template", f"{kind!r} is not a fluid template (linear or quadratic)")
    named = field_map(cert, "coefficients")
    ids, J = chain.ids, chain.J
    coeffs: list[Fraction] | list[list[Fraction]]
    if kind == "linear":
        vals = named_rationals(named, [f"w[{i}]" for i in ids], "coefficients")
        coeffs = [vals[f"w[{i}]"] for i in ids]
    else:
        vals = named_rationals(named, [f"P[{ids[i]},{ids[j]}]" for i in range(J) for j in range(i, J)], "coefficients")
        P = [[Fraction(0)] * J for _ in range(J)]
        for i in range(J):
            for j in range(i, J):
                P[i][j] = P[j][i] = vals[f"P[{ids[i]},{ids[j]}]"]
        coeffs = P
    kwargs: dict[str, object] = {}
    if "symmetry" in cert:
        kwargs["symmetry"] = symmetry_field(chain, cert["symmetry"])
    return Reading((chain, kind, coeffs), kwargs, chain=chain, template=kind)


def fluid_statement(net: Any, chain: Chain | None, template: str) -> Statement:
    """What a fluid certificate proves on ``net`` (semantics, statement), derived, never read.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain or None
        The chain the certificate is about.
    template : str
        The template's name (``linear`` or ``quadratic``).

    Returns
    -------
    tuple of str
        The semantics and the statement.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> fluid_statement(mm1, None, 'linear')[0]
    'general'
    """
    fluid = (
        "Along every fluid path, under every tie-breaking rule, dV/dt <= -delta |z|_1 (quadratic) or <= -delta "
        "(linear) away from 0, and V >= eta |z|^2 (or eta |z|_1): the fluid model is stable"
    )
    means = compile_chain(net) if isinstance(net, Network) else None
    if means is not None and emptying_order(means) is None:
        return "fluid-model", (
            f"{fluid}. Dai's theorem needs the network to empty when no customer arrives, which is not shown "
            "here (a customer may cycle forever through ties broken as given): nothing is claimed about the "
            "network itself."
        )
    missing = dai_violations(net) if isinstance(net, Network) else []
    if missing:
        return "fluid-model", (
            f"{fluid}. Dai's theorem needs every interarrival law unbounded and spread out, which this network "
            f"breaks ({'; '.join(missing)}): nothing is claimed about the network itself."
        )
    ties = "" if means is None or drain_order(means) is not None else (
        ", with the tie-breaking given (the network empties when no customer arrives only through its ties)")
    return "general", (
        f"{fluid}, so the network is positive Harris recurrent{ties} for every i.i.d. service and interarrival law "
        "with these means whose interarrival times are unbounded and spread out (Dai 1995; Dai-Hasenbein-Kim 2007)."
    )


KIND = Kind("fluid", "stable", ("template", "coefficients"), read_fluid, check_fluid, fluid_claims, fluid_statement,
            "certify.explain.fluid:explain_fluid", optional=("symmetry",))
