"""The ``finite-state`` kind: every station has a capacity, so the chain is finite (and irreducible).

Payload: nothing beyond ``phase_expansion``.  Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.certificate import Certificate
from ...core.envelope import seal
from ...core.jsontypes import JsonObject
from ...core.model import Network
from ...exact.facts import (
    Check,
    FiniteStateFacts,
)
from ...exact.stability import check_finite
from ...markov.chain import Chain
from ..reading import Reading, markov_of
from .base import Kind, Statement, phase_expansion, primitives

__all__ = ["finite_state_claims", "finite_certificate", "read_finite_state"]


def finite_state_claims(f: FiniteStateFacts) -> JsonObject:
    """The claims of a finite-state certificate.

    Parameters
    ----------
    f : FiniteStateFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``states``.

    Examples
    --------
    >>> finite_state_claims(FiniteStateFacts(16))
    {'states': 16}
    """
    return {"states": f.states}

def finite_certificate(net: Network, chain: Chain, check: Check[FiniteStateFacts]) -> Certificate:
    """A stability certificate for a network whose every station has a finite capacity (finite irreducible CTMC).

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain
        The chain the check ran on.
    check : Check of FiniteStateFacts
        The passing :func:`~certify.exact.check_finite`.

    Returns
    -------
    Certificate
        The sealed certificate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.exact import check_finite
    >>> from certify.markov.chain import compile_chain
    >>> lossy = Network("loss", (Station("1", F(1), capacity=3),), (Stream(F(2), choice=("1",)),))
    >>> chain = compile_chain(lossy)
    >>> finite_certificate(lossy, chain, check_finite(chain, [3]))["claims"]
    {'states': 4}
    """
    return seal(net, "finite-state", phase_expansion(chain), finite_state_claims(check.facts),
                *finite_state_statement(net, chain, ""))

def read_finite_state(net: Network, cert: Mapping[str, Any]) -> Reading | str:
    """Read a finite-state certificate: nothing beyond the phase expansion; the capacities are the network's.

    Parameters
    ----------
    net : Network
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading or str
        The arguments of :func:`certify.exact.check_finite`, or why the network
        has no chain matching ``phase_expansion``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> lossy = Network("loss", (Station("1", F(1), capacity=3),), (Stream(F(2), choice=("1",)),))
    >>> read_finite_state(lossy, {}).args[1]
    [3]
    """
    chain = markov_of(net, cert)
    if isinstance(chain, str):
        return chain
    return Reading((chain, [s.capacity for s in net.stations]), chain=chain)


def finite_state_statement(net: Any, chain: Chain | None, template: str) -> Statement:
    """What a finite-state certificate proves on ``net`` (semantics, statement), derived, never read.

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
    >>> finite_state_statement(mm1, None, '')[0]
    'markovian'
    """
    return "markovian", (
        "Every station has a finite capacity, so the chain lives on at most `states` states, and the empty "
        f"state is reachable from every state: an irreducible finite CTMC is positive recurrent, {primitives(chain)}."
    )


KIND = Kind("finite-state", "stable", (), read_finite_state, check_finite, finite_state_claims,
            finite_state_statement, "certify.explain.direct:explain_finite_state", optional=("phase_expansion",),
            capacities=True)
