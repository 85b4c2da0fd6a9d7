"""The interface every certificate kind implements, declared once: :class:`Kind`.

A kind is one module of :mod:`certify.certificates.kinds` holding its payload
fields, its writer (a passing exact check sealed into a file), its reader (the
payload validated into the checker's arguments), the call into its exact
checker, its claims (derived from the check's facts), its statement (what it
proves on a network, derived, never read) and the name of its explainer.  The
registry (:data:`certify.certificates.kinds.REGISTRY`) is built from the
modules; :func:`~certify.certificates.verify` and :func:`certify.explain.explain`
read nothing else.  Pure Python.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ...core.certificate import ENVELOPE
from ...core.jsontypes import JsonObject
from ...exact.facts import Check
from ...markov.chain import Chain
from ..reading import Reading

__all__ = ["ENVELOPE_FIELDS", "Kind", "fixed_statement", "primitives", "phase_expansion"]

#: The fields every certificate has (the envelope); a kind adds its payload fields.
ENVELOPE_FIELDS = ENVELOPE

#: (semantics, statement): for which laws a certificate proves its verdict, and what it proves, in one paragraph.
Statement = tuple[str, str]


@dataclass(frozen=True)
class Kind:
    """One kind of certificate: what :func:`~certify.certificates.verify`, the writers and ``explain`` need of it.

    Attributes
    ----------
    name : str
        The kind, as certificate files name it (``"foster"``, ...).
    proves : {"stable", "unstable"} or None
        The verdict a valid certificate of this kind proves (None: the theorem's own, for ``theorem``).
    fields : tuple of str
        The payload fields a file must have.
    optional : tuple of str
        The payload fields a file may have.
    read : callable
        ``read(net, cert)``: the checker's arguments (a :class:`~certify.certificates.reading.Reading`),
        or why the kind does not apply to the network (a string); raises
        :class:`~certify.core.errors.CertificateError` on a malformed field.
    check : callable
        The exact checker (in :mod:`certify.exact`), called with the reading's arguments.
    claims : callable
        ``claims(facts)``: what the file must claim, derived from a passing check.
    statement : callable
        ``statement(net, chain, template)``: the (semantics, statement) the certificate proves on ``net``.
    explainer : str
        ``"module:function"``: the readable proof, ``function(Context) -> Proof`` (imported when used).
    networks : {"jsq", "fork-join", "any"}
        The networks the kind applies to.
    capacities : bool
        Whether it applies to a network with capacities (its checker models the losses).
    nested : callable or None
        ``nested(net, cert)``: the (network, certificate) of a certificate the file nests for a network derived
        from ``net`` (called after ``read``); the verifier verifies it and passes what it found to the checker
        as the keyword ``nested`` (a :class:`~certify.exact.facts.NestedVerdict`). None: nothing nested.

    Examples
    --------
    >>> from certify.certificates.kinds import REGISTRY
    >>> k = REGISTRY["closed-set"]
    >>> k.proves, k.fields, k.check.__name__, k.explainer
    ('unstable', ('stations',), 'check_closed_set', 'certify.explain.instability:explain_closed_set')
    """

    name: str
    proves: Literal["stable", "unstable"] | None
    fields: tuple[str, ...]
    read: Callable[[Any, Mapping[str, Any]], Reading | str]
    check: Callable[..., Check[Any]]
    claims: Callable[[Any], JsonObject]
    statement: Callable[[Any, Chain | None, str], Statement]
    explainer: str
    optional: tuple[str, ...] = ()
    networks: Literal["jsq", "fork-join", "any"] = "jsq"
    capacities: bool = False
    nested: Callable[[Any, Mapping[str, Any]], tuple[Any, Any]] | None = None


def primitives(chain: Chain | None) -> str:
    """The laws a Markovian certificate is about, as its statement names them.

    Parameters
    ----------
    chain : Chain or None
        The chain the certificate is about.

    Returns
    -------
    str
        The phrase.

    Examples
    --------
    >>> primitives(None)
    "for exponential service and interarrival times, with this network's tie-breaking"
    """
    if chain is not None and chain.has_phases:
        return "for the phase-type service and interarrival laws of phase_expansion, with this network's tie-breaking"
    return "for exponential service and interarrival times, with this network's tie-breaking"


def phase_expansion(chain: Chain) -> JsonObject:
    """The ``phase_expansion`` payload field of a Markovian certificate (empty for an exponential chain).

    Parameters
    ----------
    chain : Chain
        The chain the check ran on.

    Returns
    -------
    dict
        ``{"phase_expansion": [...]}`` or ``{}``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> phase_expansion(Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),)))
    {}
    """
    return {"phase_expansion": list(chain.expansion)} if chain.has_phases else {}


def fixed_statement(statement: Statement) -> Callable[[Any, Chain | None, str], Statement]:
    """The ``statement`` of a kind that proves the same thing on every network (the fork-join and overflow kinds).

    Parameters
    ----------
    statement : tuple of str
        The semantics and the statement.

    Returns
    -------
    callable
        ``statement(net, chain, template)``, ignoring its arguments.

    Examples
    --------
    >>> fixed_statement(("markovian", "It holds."))(None, None, "")
    ('markovian', 'It holds.')
    """

    def derived(net: Any, chain: Chain | None, template: str) -> Statement:
        return statement

    return derived
