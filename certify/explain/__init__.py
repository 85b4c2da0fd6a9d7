"""Readable proofs of verified certificates: ``certify explain NETWORK CERT`` and :func:`explain`.

A proof states the theorem it rests on, checks each hypothesis on the network,
writes V (or f, or the dual multipliers) in closed form with exact rationals,
lists the regions (or faces, or orbit representatives) with the inequality that
holds on each and its slack, the exceptional set, and how to re-check.  Long
tables are summarised, the full ones in an appendix.  Only a certificate that
:func:`~certify.certificates.verify` accepts is explained: every number in the
text is re-derived by the checker's own code from the network and the file.

Each certificate kind names its explainer (``Context -> Proof``, the kind's
``explainer`` in :mod:`certify.certificates.kinds`; :func:`explainers` lists
them); the document renders as Markdown, LaTeX or HTML
(:meth:`Proof.render`, :mod:`certify.explain.render`).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

from ..certificates.kinds import REGISTRY
from ..certificates.verifier import Verification, Verified, verify
from ..core.certificate import Certificate
from ..core.errors import CertificateError
from ..core.model import ForkJoinNetwork, Network
from .common import Context
from .document import Proof
from .explanation import Explanation
from .render import FORMATS

__all__ = ["explain", "explainers", "FORMATS", "Explanation", "Proof", "Context"]


def explainers() -> dict[str, str]:
    """Certificate kind -> its explainer, ``"module:function"`` (a function ``Context -> Proof``, imported when used).

    Returns
    -------
    dict of str to str
        One entry per registered kind (:data:`~certify.certificates.kinds.REGISTRY`).

    Examples
    --------
    >>> explainers()["closed-set"]
    'certify.explain.instability:explain_closed_set'
    """
    return {name: kind.explainer for name, kind in REGISTRY.items()}


def _explainer(kind: str) -> Callable[[Context], Proof]:
    module, name = REGISTRY[kind].explainer.split(":")
    fn: Callable[[Context], Proof] = getattr(import_module(module), name)
    return fn


def explain(
    net: Network | ForkJoinNetwork,
    cert: Any,
    *,
    network_file: str = "NETWORK",
    certificate_file: str = "CERT",
    max_rows: int = 20,
    verification: Verification | None = None,
) -> Explanation:
    """A readable proof of a certificate, after verifying it.

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        The network.
    cert : dict
        The certificate (as read from its file).
    network_file, certificate_file : str
        How the re-check commands name the two files.
    max_rows : int
        The longest table kept in the text; longer ones are cut to their first
        (tightest) rows, the whole table in the appendix.
    verification : Verification, optional
        The outcome of ``verify(net, cert)`` when the caller has it (it is
        computed here otherwise); it must be valid.

    Returns
    -------
    Explanation
        The document (``.proof``): ``.render("markdown" | "latex" | "html")``; it
        also renders itself in Jupyter.

    Raises
    ------
    CertificateError
        When the certificate does not verify (its first failure is named).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.certificates import closed_set_certificate
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.exact import check_closed_set
    >>> from certify.markov.chain import compile_chain
    >>> streams = (Stream(F(1, 2), choice=("1",)), Stream(F(1, 10), choice=("2",)))
    >>> trap = Network("trap", (Station("1", F(1)), Station("2", F(1))), streams, (Feedback("2", ("2",), F(1)),))
    >>> chain = compile_chain(trap)
    >>> cert = closed_set_certificate(trap, chain, [1], check_closed_set(chain, [1]))
    >>> proof = explain(trap, cert)
    >>> proof.title
    'trap is not positive recurrent: a closed set of stations'
    >>> "certify verify NETWORK CERT" in proof.render("markdown")
    True
    """
    v = verification if verification is not None else verify(net, cert)
    if not v.ok:
        first = v.failures[0] if v.failures else "the check failed"
        raise CertificateError(certificate_file, None, f"does not verify, so there is no proof to explain: {first}")
    if isinstance(cert, Certificate):
        cert = cert.to_json()
    kind = cert["kind"]
    reading = REGISTRY[kind].read(net, cert)
    if isinstance(reading, str):  # verify accepted the file, so its reader did too
        raise CertificateError(certificate_file, "kind", reading)
    facts = v.facts
    assert isinstance(facts, Verified)  # v.ok
    ctx = Context(net, cert, facts, reading, network_file, certificate_file, max(1, max_rows))
    return Explanation(_explainer(kind)(ctx), kind)
