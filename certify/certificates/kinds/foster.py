"""The ``foster`` kind: a Foster–Lyapunov function V of a template, AV <= -delta outside a finite set.

Payload: ``template``, ``options``, ``coefficients`` (and ``phase_expansion``, ``symmetry``).  Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ...core.certificate import Certificate
from ...core.envelope import seal
from ...core.errors import CertificateError
from ...core.jsontypes import JsonObject
from ...core.model import Network
from ...core.numbers import q, unq
from ...exact.facts import (
    Check,
    FosterFacts,
)
from ...exact.stability import check_foster
from ...markov.chain import Chain
from ...templates import TEMPLATES
from ..claims import same_json
from ..reading import Reading, field_map, markov_of, symmetry_field
from .base import Kind, Statement, phase_expansion, primitives

__all__ = ["foster_claims", "foster_certificate", "read_foster"]


def foster_claims(f: FosterFacts) -> JsonObject:
    """The claims of a Foster–Lyapunov certificate.

    Parameters
    ----------
    f : FosterFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``delta``, ``exceptional_set`` (l1 bound), ``regions``, ``rows``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> foster_claims(FosterFacts(2, 1, F(2), F(10), "quadratic", {}, ["P[1,1]"]))
    {'delta': '2', 'exceptional_set': {'norm': 'l1', 'bound': '10'}, 'regions': 2, 'rows': 1}
    """
    return {
        "delta": q(f.delta),
        "exceptional_set": {"norm": "l1", "bound": q(f.exceptional_l1_bound)},
        "regions": f.regions,
        "rows": f.rows,
    }

def foster_certificate(
    net: Network, chain: Chain, template: str, theta: Sequence[Fraction], check: Check[FosterFacts]
) -> Certificate:
    """A stability certificate from an exactly checked Foster–Lyapunov function.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain
        The chain the check ran on (exponential, or a phase-type expansion).
    template : str
        The template's name.
    theta : sequence of Fraction
        The coefficients, in the template's ``variables()`` order.
    check : Check of FosterFacts
        The passing :func:`~certify.exact.check_foster` of ``theta`` (its station
        classes, if it reduced by any, are recorded as ``symmetry``).

    Returns
    -------
    Certificate
        The sealed certificate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.exact import check_foster
    >>> from certify.markov.chain import compile_chain
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> chain = compile_chain(mm1)
    >>> cert = foster_certificate(mm1, chain, "quadratic", [F(1)], check_foster(chain, "quadratic", [F(1)]))
    >>> cert["coefficients"], cert["claims"]["delta"]
    ({'P[1,1]': '1'}, '2')
    """
    f = check.facts
    coefficients = {n: q(v) for n, v in zip(f.variables, theta)}
    payload: JsonObject = {"template": template, "options": f.options, "coefficients": coefficients, **phase_expansion(chain)}
    if f.symmetry:  # the check reduced by these classes: the verifier needs them to re-check the same way
        payload["symmetry"] = [[chain.ids[a] for a in c] for c in f.symmetry]
    return seal(net, "foster", payload, foster_claims(f), *foster_statement(net, chain, template))

def read_foster(net: Network, cert: Mapping[str, Any]) -> Reading | str:
    """Read a Foster–Lyapunov certificate: the template, its options (canonical form) and the coefficients.

    Parameters
    ----------
    net : Network
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading or str
        The arguments of :func:`certify.exact.check_foster`, or why the network
        has no chain matching ``phase_expansion``.

    Raises
    ------
    CertificateError
        When the template is unknown, the options are not in canonical form, or
        a coefficient is not a canonical rational.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> r = read_foster(mm1, {"template": "quadratic", "options": {}, "coefficients": {"P[1,1]": "1"}})
    >>> r.args[1:], r.kwargs
    (('quadratic', {'P[1,1]': Fraction(1, 1)}), {'options': {}})
    """
    chain = markov_of(net, cert)
    if isinstance(chain, str):
        return chain
    template = cert.get("template")
    if not isinstance(template, str) or template not in TEMPLATES:
        raise CertificateError(None, "template", f"{template!r} is not a template (one of {', '.join(TEMPLATES)})")
    options = field_map(cert, "options")
    canonical = TEMPLATES[template].resolve_options(chain, dict(options))
    if not same_json(options, canonical):
        raise CertificateError(None, "options", f"{options!r} is not the canonical form {canonical!r} of these options")
    coeffs = field_map(cert, "coefficients")
    bad = [n for n in coeffs if not isinstance(n, str)]
    if bad:
        raise CertificateError(None, "coefficients", f"the name {bad[0]!r} must be a string")
    theta = {n: unq(v, f"coefficients.{n}") for n, v in coeffs.items()}
    kwargs: dict[str, object] = {"options": canonical}
    if "symmetry" in cert:  # the checker verifies the classes and V's invariance before using them
        kwargs["symmetry"] = symmetry_field(chain, cert["symmetry"])
    return Reading((chain, template, theta), kwargs, chain, template)


def foster_statement(net: Any, chain: Chain | None, template: str) -> Statement:
    """What a foster certificate proves on ``net`` (semantics, statement), derived, never read.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain or None
        The chain the certificate is about.
    template : str
        The template's name.

    Returns
    -------
    tuple of str
        The semantics and the statement.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> foster_statement(mm1, None, 'quadratic')[0]
    'markovian'
    """
    return "markovian", (
        f"V (template {template}) is bounded below and AV(x) <= -delta for every state with |x|_1 >= bound; "
        f"the empty state is reachable from every state: positive recurrent (Foster), {primitives(chain)}."
    )


KIND = Kind("foster", "stable", ("template", "options", "coefficients"), read_foster, check_foster, foster_claims,
            foster_statement, "certify.explain.foster:explain_foster", optional=("phase_expansion", "symmetry"))
