"""The exact check of a theorem certificate: the named theorem, re-run on the network, must decide.

A ``theorem`` certificate names a known theorem; nothing else in it is
believed.  The theorem's criterion is re-run on the network (its hypotheses
checked exactly: :func:`certify.exact.theory.theorem_verdicts`, or
:func:`certify.exact.forkjoin_capacity.fork_join` for a fork-join network), and the
certificate holds when that criterion applies and proves ``stable`` or
``unstable``.  Pure Python.
"""

from __future__ import annotations

from ..core.errors import CertificateError
from ..core.model import ForkJoinNetwork, Network
from ..markov.chain import compile_chain
from .facts import Check, TheoremFacts
from .forkjoin_capacity import fork_join
from .theory import theorem_verdicts
from .verdict import TheoremVerdict

__all__ = ["decisive_theorem", "check_theorem"]


def decisive_theorem(net: Network | ForkJoinNetwork, name: str) -> TheoremVerdict:
    """The theorem ``name`` re-run on ``net``, when it applies and decides.

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        The network.
    name : str
        The theorem's name (:attr:`~certify.exact.verdict.TheoremVerdict.theorem`).

    Returns
    -------
    TheoremVerdict
        Its verdict on ``net``: proved, ``stable`` or ``unstable``.

    Raises
    ------
    CertificateError
        When the theorem does not apply to ``net`` (the message lists those
        that do), or applies but proves nothing there (critical, or a hypothesis
        fails).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> decisive_theorem(mm1, "generalized Jackson network (traffic equations)").verdict
    'stable'
    >>> try:
    ...     decisive_theorem(mm1, "no such theorem")
    ... except CertificateError as exc:
    ...     print(str(exc).split(" (")[0])
    theorem: 'no such theorem' does not apply to this network
    """
    found = [fork_join(net)] if isinstance(net, ForkJoinNetwork) else theorem_verdicts(compile_chain(net), net)
    for tv in found:
        if tv.theorem == name and not tv.decides:
            why = "; ".join(tv.missing) or f"it says {tv.verdict}"
            raise CertificateError(None, "theorem", f"{name!r} proves nothing on this network ({why})")
        if tv.theorem == name:
            return tv
    names = ", ".join(repr(t.theorem) for t in found) or "none"
    raise CertificateError(None, "theorem", f"{name!r} does not apply to this network (theorems that apply: {names})")


def check_theorem(net: Network | ForkJoinNetwork, name: str) -> Check[TheoremFacts]:
    """Check a theorem certificate: the theorem ``name`` applies to ``net`` and decides.

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        The network.
    name : str
        The theorem's name.

    Returns
    -------
    Check of TheoremFacts
        Passed with the theorem's verdict, source, numbers and checked hypotheses.

    Raises
    ------
    CertificateError
        As :func:`decisive_theorem` (a certificate naming such a theorem is malformed).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> check_theorem(mm1, "generalized Jackson network (traffic equations)").facts.numbers
    'max_j a_j/mu_j = 0.5 at station 1 (a = traffic-equation rates)'
    """
    tv = decisive_theorem(net, name)
    return Check.passed(
        TheoremFacts(theorem=tv.theorem, verdict=tv.verdict, source=tv.source, numbers=tv.numbers, hypotheses=list(tv.hypotheses))
    )
