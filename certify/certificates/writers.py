"""Certificate writers: a passing exact check sealed into a JSQ certificate file.

A writer takes a passing exact check and seals a certificate
(:func:`certify.core.envelope.seal`): the payload the checker will read back,
the claims derived from the check's facts (:mod:`certify.certificates.claims`),
and the semantics and statement that
:func:`~certify.certificates.statements.derived_claim` derives from the kind, the
template and the network.  The fork-join writers are in
:mod:`certify.certificates.forkjoin`.  Pure Python.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from ..core.envelope import seal
from ..core.model import ForkJoinNetwork, Network
from ..core.numbers import q
from ..exact.facts import (
    Check,
    ClosedSetFacts,
    FiniteStateFacts,
    FluidFacts,
    FosterFacts,
    GrowthFacts,
    StaticSplitFacts,
)
from ..exact.instability import routed_sets
from ..exact.theorem_check import check_theorem
from ..exact.verdict import TheoremVerdict
from ..markov.chain import Chain
from ..markov.symmetry import Symmetry
from .claims import (
    closed_set_claims,
    finite_state_claims,
    fluid_claims,
    foster_claims,
    growth_claims,
    static_split_claims,
    theorem_claims,
)
from .reading import cell_key
from .statements import derived_claim

__all__ = [
    "foster_certificate",
    "static_split_certificate",
    "growth_certificate",
    "fluid_certificate",
    "closed_set_certificate",
    "finite_certificate",
    "theorem_certificate",
]


def _seal(
    net: Network | ForkJoinNetwork,
    kind: str,
    payload: dict[str, Any],
    claims: dict[str, Any],
    template: str = "",
    chain: Chain | None = None,
) -> dict[str, Any]:
    semantics, statement = derived_claim(kind, net, chain, template)
    return seal(net, kind, payload, claims, semantics, statement)


def _expansion(chain: Chain) -> dict[str, Any]:
    """The phase-type expansion the certificate is about (empty for exponential networks)."""
    return {"phase_expansion": list(chain.expansion)} if chain.has_phases else {}


def foster_certificate(
    net: Network, chain: Chain, template: str, theta: Sequence[Fraction], check: Check[FosterFacts]
) -> dict[str, Any]:
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
    dict
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
    payload: dict[str, Any] = {"template": template, "options": f.options, "coefficients": coefficients, **_expansion(chain)}
    if f.symmetry:  # the check reduced by these classes: the verifier needs them to re-check the same way
        payload["symmetry"] = [[chain.ids[a] for a in c] for c in f.symmetry]
    return _seal(net, "foster", payload, foster_claims(f), template, chain)


def static_split_certificate(
    net: Network, chain: Chain, u: dict[tuple[int, ...], Fraction], w: Sequence[Fraction], check: Check[StaticSplitFacts]
) -> dict[str, Any]:
    """An instability certificate from the dual of the static split LP.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain
        Its chain.
    u : dict of choice set to Fraction
        One multiplier per routed set.
    w : sequence of Fraction
        One weight per station.
    check : Check of StaticSplitFacts
        The passing :func:`~certify.exact.check_static_split` of (u, w).

    Returns
    -------
    dict
        The sealed certificate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.exact import check_static_split
    >>> from certify.markov.chain import compile_chain
    >>> over = Network("over", (Station("1", F(1)),), (Stream(F(2), choice=("1",)),))
    >>> chain = compile_chain(over)
    >>> u, w = {(0,): F(-1)}, [F(1)]
    >>> static_split_certificate(over, chain, u, w, check_static_split(chain, u, w))["claims"]
    {'dual_value': '-1', 'overloaded': ['1']}
    """
    ids = chain.ids
    multipliers = {
        "sets": {",".join(ids[j] for j in C): q(u[C]) for C in routed_sets(chain)},
        "stations": {ids[j]: q(w[j]) for j in range(chain.J)},
    }
    return _seal(net, "static-split", {"multipliers": multipliers}, static_split_claims(check.facts))


def fluid_certificate(
    net: Network, chain: Chain, kind: str, coeffs: Sequence[Any], check: Check[FluidFacts], symmetry: Symmetry | None = None
) -> dict[str, Any]:
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
    dict
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
    payload: dict[str, Any] = {"template": kind, "coefficients": named}
    if symmetry is not None and not symmetry.trivial:
        payload["symmetry"] = [[ids[a] for a in c] for c in symmetry.classes]
    return _seal(net, "fluid", payload, fluid_claims(check.facts), kind)


def growth_certificate(
    net: Network,
    chain: Chain,
    w: Sequence[Fraction],
    check: Check[GrowthFacts],
    table: dict[tuple[int, ...], Fraction] | None = None,
    fast: Sequence[int] = (),
    K: int = 0,
) -> dict[str, Any]:
    """An instability certificate from a function f = w'x (+ a bounded table) that grows in expectation.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain
        The chain the check ran on.
    w : sequence of Fraction
        One weight per station.
    check : Check of GrowthFacts
        The passing :func:`~certify.exact.check_growth`.
    table : dict of cell to Fraction, optional
        The bounded table T.
    fast : sequence of int
        The table's fast stations.
    K : int
        The table's clip level.

    Returns
    -------
    dict
        The sealed certificate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.exact import check_growth
    >>> from certify.markov.chain import compile_chain
    >>> over = Network("over", (Station("1", F(1)),), (Stream(F(2), choice=("1",)),))
    >>> chain = compile_chain(over)
    >>> growth_certificate(over, chain, [F(1)], check_growth(chain, [F(1)]))["claims"]
    {'delta': '1', 'level': '2', 'increment_bound': '2'}
    """
    payload: dict[str, Any] = {"weights": {chain.ids[j]: q(w[j]) for j in range(chain.J)}, **_expansion(chain)}
    if table is not None:
        payload["table"] = {
            "K": K,
            "fast": [chain.ids[a] for a in fast],
            "values": {cell_key(c): q(v) for c, v in sorted(table.items())},
        }
    return _seal(net, "growth", payload, growth_claims(check.facts), chain=chain)


def closed_set_certificate(net: Network, chain: Chain, stations: Sequence[int], check: Check[ClosedSetFacts]) -> dict[str, Any]:
    """An instability certificate: a set of stations customers never leave, entered at positive rate.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain
        Its chain.
    stations : sequence of int
        The set (station indices).
    check : Check of ClosedSetFacts
        The passing :func:`~certify.exact.check_closed_set` of the set.

    Returns
    -------
    dict
        The sealed certificate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.exact import check_closed_set
    >>> from certify.markov.chain import compile_chain
    >>> streams = (Stream(F(1, 2), choice=("1",)), Stream(F(1, 10), choice=("2",)))
    >>> trap = Network("trap", (Station("1", F(1)), Station("2", F(1))), streams, (Feedback("2", ("2",), F(1)),))
    >>> chain = compile_chain(trap)
    >>> cert = closed_set_certificate(trap, chain, [1], check_closed_set(chain, [1]))
    >>> cert["stations"], cert["claims"]
    (['2'], {'inflow': '1/10'})
    """
    return _seal(net, "closed-set", {"stations": [chain.ids[j] for j in stations]}, closed_set_claims(check.facts))


def finite_certificate(net: Network, chain: Chain, check: Check[FiniteStateFacts]) -> dict[str, Any]:
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
    dict
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
    return _seal(net, "finite-state", _expansion(chain), finite_state_claims(check.facts), chain=chain)


def theorem_certificate(net: Network | ForkJoinNetwork, theorem: TheoremVerdict | str) -> dict[str, Any]:
    """A certificate naming a known theorem whose hypotheses hold on ``net``; verify re-runs the criterion.

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        The network.
    theorem : TheoremVerdict or str
        The theorem (:class:`certify.exact.verdict.TheoremVerdict`) or its name.

    Returns
    -------
    dict
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
    return _seal(net, "theorem", {"theorem": name}, theorem_claims(check_theorem(net, name).facts), name)
