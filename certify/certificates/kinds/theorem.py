"""The ``theorem`` kind: a known theorem whose hypotheses hold on the network, re-run exactly.

Payload: ``theorem`` (its name).  What it proves is what the theorem says (its verdict and semantics).  Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.certificate import Certificate
from ...core.envelope import seal
from ...core.errors import CertificateError
from ...core.jsontypes import JsonObject
from ...core.model import ForkJoinNetwork, Network
from ...exact.facts import (
    TheoremFacts,
)
from ...exact.theorem_check import check_theorem, decisive_theorem
from ...exact.verdict import TheoremVerdict
from ...markov.chain import Chain
from ..reading import Reading
from .base import Kind, Statement

__all__ = ["theorem_claims", "theorem_certificate", "read_theorem"]


def theorem_claims(f: TheoremFacts) -> JsonObject:
    """The claims of a theorem certificate.

    Parameters
    ----------
    f : TheoremFacts
        The facts of the passing check (the theorem re-run).

    Returns
    -------
    dict
        ``verdict`` and ``numbers``.

    Examples
    --------
    >>> theorem_claims(TheoremFacts("t", "stable", "a paper", "lam/mu = 0.5", []))
    {'verdict': 'stable', 'numbers': 'lam/mu = 0.5'}
    """
    return {"verdict": f.verdict, "numbers": f.numbers}

def theorem_certificate(net: Network | ForkJoinNetwork, theorem: TheoremVerdict | str) -> Certificate:
    """A certificate naming a known theorem whose hypotheses hold on ``net``; verify re-runs the criterion.

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        The network.
    theorem : TheoremVerdict or str
        The theorem (:class:`certify.exact.verdict.TheoremVerdict`) or its name.

    Returns
    -------
    Certificate
        The sealed certificate.

    Raises
    ------
    CertificateError
        When the theorem does not apply to ``net`` or decides nothing there.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> theorem_certificate(mm1, "generalized Jackson network (traffic equations)")["claims"]["verdict"]
    'stable'
    """
    name = theorem if isinstance(theorem, str) else theorem.theorem
    return seal(net, "theorem", {"theorem": name}, theorem_claims(check_theorem(net, name).facts),
                *theorem_statement(net, None, name))

def read_theorem(net: Network | ForkJoinNetwork, cert: Mapping[str, Any]) -> Reading:
    """Read a theorem certificate: the theorem's name (nothing else in it is believed).

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading
        The arguments of :func:`certify.exact.check_theorem`.

    Raises
    ------
    CertificateError
        When ``theorem`` is not a string.

    Examples
    --------
    >>> read_theorem(None, {"theorem": "no feedback: subset condition"}).template
    'no feedback: subset condition'
    """
    name = cert.get("theorem")
    if not isinstance(name, str):
        raise CertificateError(None, "theorem", f"{name!r} must be a theorem's name (a string)")
    return Reading((net, name), template=name)


def theorem_statement(net: Any, chain: Chain | None, template: str) -> Statement:
    """What a theorem certificate proves: the theorem re-run on ``net`` (its semantics, and a statement naming it).

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        The network.
    chain : Chain or None
        Unused.
    template : str
        The theorem's name.

    Returns
    -------
    tuple of str
        The semantics and the statement.

    Raises
    ------
    CertificateError
        When the theorem does not decide on ``net``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.exact.theory import theorem_verdicts
    >>> from certify.markov.chain import compile_chain
    >>> two = Network("two", (Station("1", F(1)), Station("2", F(1))), (Stream(F(3, 2), choice=("1", "2")),))
    >>> name = next(t.theorem for t in theorem_verdicts(compile_chain(two), two) if t.decides)
    >>> theorem_statement(two, None, name)[0]
    'general'
    """
    tv = decisive_theorem(net, template)
    hyp = "; ".join(tv.hypotheses) if tv.hypotheses else "none beyond the model"
    statement = (
        f"The theorem '{tv.theorem}' ({tv.source}) applies: its hypotheses hold on this network, checked exactly "
        f"({hyp}), and it says {tv.verdict}: {tv.numbers}."
    )
    return tv.semantics, statement


KIND = Kind("theorem", None, ("theorem",), read_theorem, check_theorem, theorem_claims, theorem_statement,
            "certify.explain.direct:explain_theorem", networks="any")
