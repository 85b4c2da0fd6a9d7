"""What a certificate proves on a network: its semantics and statement, derived from its kind, never read.

The semantics (for which laws the verdict holds: ``markovian``, ``general``,
``fluid-model``) and the one-paragraph statement printed by ``certify verify``
depend only on the kind, the template, the chain's phases and the network;
each kind derives them (its ``statement`` in :mod:`certify.certificates.kinds`),
and a file whose stored ones differ is refused, so a markovian proof is never
reported as general and no forged sentence is ever printed.  Pure Python.
"""

from __future__ import annotations

from ..core.errors import CertificateError
from ..core.model import ForkJoinNetwork, Network
from ..markov.chain import Chain
from .kinds import REGISTRY

__all__ = ["derived_claim"]


def derived_claim(kind: str, net: Network | ForkJoinNetwork, chain: Chain | None = None, template: str = "") -> tuple[str, str]:
    """The (semantics, statement) that a certificate of ``kind`` proves on ``net``, derived, never read.

    ``chain`` is the Markov chain the certificate is about (phase-type chains
    change the statement); ``template`` names the Lyapunov template (the
    theorem, for a theorem certificate).  A fluid certificate proves positive
    Harris recurrence only under Dai's conditions on the interarrival times;
    where the network breaks them (deterministic interarrivals) it proves only
    that the fluid model is stable (semantics ``fluid-model``).

    Parameters
    ----------
    kind : str
        The certificate kind (a name of :data:`~certify.certificates.kinds.REGISTRY`).
    net : Network or ForkJoinNetwork
        The network.
    chain : Chain, optional
        The chain the certificate is about.
    template : str
        The template's (or theorem's) name.

    Returns
    -------
    semantics : str
        ``markovian``, ``general`` or ``fluid-model``.
    statement : str
        What the certificate proves, in one paragraph.

    Raises
    ------
    CertificateError
        When the kind is unknown, or the theorem of a theorem certificate does
        not decide on ``net``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> derived_claim("static-split", mm1)[0], derived_claim("foster", mm1, template="quadratic")[0]
    ('general', 'markovian')
    """
    if kind not in REGISTRY:
        raise CertificateError(None, "kind", f"unknown certificate kind {kind!r} (one of {', '.join(REGISTRY)})")
    return REGISTRY[kind].statement(net, chain, template)
