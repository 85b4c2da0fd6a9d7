"""Certificate writers: what each kind of certificate claims (derived, never read) and the functions that write them."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from ..core.envelope import seal
from ..core.errors import CertificateError
from ..core.hypotheses import dai_violations
from ..core.model import ForkJoinNetwork, Network
from ..core.numbers import q
from ..exact.checks import (
    Check,
    routed_sets,
)
from ..markov.chain import Chain, compile_chain

__all__ = [
    "KINDS",
    "derived_claim",
    "foster_certificate",
    "static_split_certificate",
    "growth_certificate",
    "fluid_certificate",
    "closed_set_certificate",
    "finite_certificate",
    "theorem_certificate",
]

# The fields every certificate has, and the payload fields of each kind (required, optional).
_ENVELOPE = ("format", "kind", "network", "semantics", "claims", "statement", "certify_version", "digest")
_PAYLOAD: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "foster": (("template", "options", "coefficients"), ("phase_expansion",)),
    "growth": (("weights",), ("table", "phase_expansion")),
    "static-split": (("multipliers",), ()),
    "fluid": (("template", "coefficients"), ()),
    "closed-set": (("stations",), ()),
    "finite-state": ((), ("phase_expansion",)),
    "theorem": (("theorem",), ()),
    "fork-join-capacity": (("capped",), ()),
    "fork-join-independent": (("lyapunov",), ()),
    "fork-join-foster": (("K", "classes", "table"), ()),
}
KINDS = tuple(_PAYLOAD)


# ----------------------------------------------------------------------------- what a certificate claims
def _primitives(chain: Chain | None) -> str:
    if chain is not None and chain.has_phases:
        return "for the phase-type service and interarrival laws of phase_expansion, with this network's tie-breaking"
    return "for exponential service and interarrival times, with this network's tie-breaking"


def derived_claim(kind: str, net: Network | ForkJoinNetwork, chain: Chain | None = None, template: str = "") -> tuple[str, str]:
    """The (semantics, statement) that a certificate of ``kind`` proves on ``net``, derived, never read.

    ``chain`` is the Markov chain the certificate is about (phase-type chains
    change the statement); ``template`` names the Lyapunov template.  A fluid
    certificate proves positive Harris recurrence only under Dai's conditions on
    the interarrival times; where the network breaks them (deterministic
    interarrivals) it proves only that the fluid model is stable (semantics
    ``fluid-model``).

    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> derived_claim("static-split", mm1)[0], derived_claim("foster", mm1, template="quadratic")[0]
    ('general', 'markovian')
    """
    if kind == "foster":
        return "markovian", (
            f"V (template {template}) is bounded below and AV(x) <= -delta for every state with |x|_1 >= bound; "
            f"the empty state is reachable from every state: positive recurrent (Foster), {_primitives(chain)}."
        )
    if kind == "growth":
        return "markovian", (
            "f = w'x (+ bounded table) has bounded increments and Af >= delta on {f > level}: transient "
            f"(Fayolle-Malyshev-Menshikov Thm 2.2.7), hence not positive recurrent, {_primitives(chain)}."
        )
    if kind == "finite-state":
        return "markovian", (
            "Every station has a finite capacity, so the chain lives on at most `states` states, and the empty "
            f"state is reachable from every state: an irreducible finite CTMC is positive recurrent, {_primitives(chain)}."
        )
    if kind == "static-split":
        return "general", (
            "No routing of the offered traffic keeps every station below its service rate: "
            "not positive recurrent under any policy and any distributions with these means (flow balance)."
        )
    if kind == "closed-set":
        return "general", (
            "Customers never leave the stations listed (every feedback from them stays among them with probability 1) "
            "and exogenous arrivals enter them at rate `inflow` > 0: their queue lengths tend to infinity almost surely, "
            "under every tie-breaking rule and every i.i.d. service and interarrival law with these means."
        )
    if kind == "fluid":
        fluid = (
            "Along every fluid path, under every tie-breaking rule, dV/dt <= -delta |z|_1 (quadratic) or <= -delta "
            "(linear) away from 0, and V >= eta |z|^2 (or eta |z|_1): the fluid model is stable"
        )
        missing = dai_violations(net) if isinstance(net, Network) else []
        if missing:
            return "fluid-model", (
                f"{fluid}. Dai's theorem needs every interarrival law unbounded and spread out, which this network "
                f"breaks ({'; '.join(missing)}): nothing is claimed about the network itself."
            )
        return "general", (
            f"{fluid}, so the network is positive Harris recurrent for every i.i.d. service and interarrival law with "
            "these means whose interarrival times are unbounded and spread out (Dai 1995; Dai-Hasenbein-Kim 2007)."
        )
    if kind == "theorem":
        return _theorem_claim(net, template)[1:]
    from ..forkjoin.check import STATEMENTS

    if kind in STATEMENTS:
        return STATEMENTS[kind]
    raise CertificateError(None, "kind", f"unknown certificate kind {kind!r} (one of {', '.join(KINDS)})")

def _seal(net: Network | ForkJoinNetwork, kind: str, payload: dict, claims: dict, template: str = "", chain: Chain | None = None) -> dict:
    semantics, statement = derived_claim(kind, net, chain, template)
    return seal(net, kind, payload, claims, semantics, statement)


def _expansion(chain: Chain) -> dict[str, Any]:
    """The phase-type expansion the certificate is about (empty for exponential networks)."""
    return {"phase_expansion": list(chain.expansion)} if chain.has_phases else {}


def _cell_key(c: tuple[int, ...] | list[int]) -> str:
    return ",".join(map(str, c))


# ----------------------------------------------------------------------------- claims, one function per kind
def _foster_claims(f: dict) -> dict:
    return {
        "delta": q(f["delta"]),
        "exceptional_set": {"norm": "l1", "bound": q(f["exceptional_l1_bound"])},
        "regions": f["regions"],
        "rows": f["rows"],
    }


def _static_claims(f: dict) -> dict:
    return {"dual_value": q(f["dual_value"]), "overloaded": f["overloaded"]}


def _fluid_claims(f: dict) -> dict:
    return {"delta": q(f["delta"]), "eta": q(f["eta"]), "faces": f["faces"], "rows": f["rows"]}


def _growth_claims(f: dict) -> dict:
    return {"delta": q(f["delta"]), "level": q(f["level"]), "increment_bound": q(f["increment_bound"])}


def _closed_claims(f: dict) -> dict:
    return {"inflow": q(f["inflow"])}


def _finite_claims(f: dict) -> dict:
    return {"states": f["states"]}


# ----------------------------------------------------------------------------- writers
def foster_certificate(net: Network, chain: Chain, template: str, theta: list[Fraction], check: Check) -> dict:
    """A stability certificate from an exactly checked Foster–Lyapunov function."""
    f = check.facts
    names = f["variables"]
    payload = {"template": template, "options": f["options"], "coefficients": {n: q(v) for n, v in zip(names, theta)}, **_expansion(chain)}
    return _seal(net, "foster", payload, _foster_claims(f), template, chain)


def static_split_certificate(net: Network, chain: Chain, u: dict, w: list[Fraction], check: Check) -> dict:
    """An instability certificate from the dual of the static split LP."""
    ids = chain.ids
    multipliers = {
        "sets": {",".join(ids[j] for j in C): q(u[C]) for C in routed_sets(chain)},
        "stations": {ids[j]: q(w[j]) for j in range(chain.J)},
    }
    return _seal(net, "static-split", {"multipliers": multipliers}, _static_claims(check.facts))


def fluid_certificate(net: Network, chain: Chain, kind: str, coeffs: Sequence[Any], check: Check) -> dict:
    """A fluid Lyapunov certificate (general distributions where Dai's conditions hold), exactly checked."""
    ids, J = chain.ids, chain.J
    if kind == "linear":
        named = {f"w[{ids[i]}]": q(coeffs[i]) for i in range(J)}
    else:
        named = {f"P[{ids[i]},{ids[j]}]": q(coeffs[i][j]) for i in range(J) for j in range(i, J)}
    return _seal(net, "fluid", {"template": kind, "coefficients": named}, _fluid_claims(check.facts), kind)


def growth_certificate(
    net: Network,
    chain: Chain,
    w: list[Fraction],
    check: Check,
    table: dict[tuple[int, ...], Fraction] | None = None,
    fast: list[int] | tuple[int, ...] = (),
    K: int = 0,
) -> dict:
    """An instability certificate from a function f = w'x (+ a bounded table) that grows in expectation."""
    payload: dict[str, Any] = {"weights": {chain.ids[j]: q(w[j]) for j in range(chain.J)}, **_expansion(chain)}
    if table is not None:
        payload["table"] = {
            "K": K,
            "fast": [chain.ids[a] for a in fast],
            "values": {_cell_key(c): q(v) for c, v in sorted(table.items())},
        }
    return _seal(net, "growth", payload, _growth_claims(check.facts), chain=chain)


def closed_set_certificate(net: Network, chain: Chain, stations: tuple[int, ...] | list[int], check: Check) -> dict:
    """An instability certificate: a set of stations customers never leave, entered at positive rate."""
    return _seal(net, "closed-set", {"stations": [chain.ids[j] for j in stations]}, _closed_claims(check.facts))


def finite_certificate(net: Network, chain: Chain, check: Check) -> dict:
    """A stability certificate for a network whose every station has a finite capacity (finite irreducible CTMC)."""
    return _seal(net, "finite-state", _expansion(chain), _finite_claims(check.facts), chain=chain)


def theorem_certificate(net: Network | ForkJoinNetwork, theorem: Any) -> dict:
    """A certificate naming a known theorem whose hypotheses hold on ``net``; verify re-runs the criterion.

    ``theorem`` is a :class:`certify.exact.theory.TheoremVerdict` (or its name).
    """
    name = theorem if isinstance(theorem, str) else theorem.theorem
    tv, _, _ = _theorem_claim(net, name)
    return _seal(net, "theorem", {"theorem": name}, {"verdict": tv.verdict, "numbers": tv.numbers}, name)


def _theorem_claim(net: Network | ForkJoinNetwork, name: str) -> tuple[Any, str, str]:
    """The theorem ``name`` re-run on ``net``: (its verdict, semantics, statement); ValueError when it does not apply."""
    from ..exact.theory import fork_join, theorem_verdicts

    found = [fork_join(net)] if isinstance(net, ForkJoinNetwork) else theorem_verdicts(compile_chain(net), net)
    for tv in found:
        if tv.theorem == name and not tv.decides:
            why = "; ".join(getattr(tv, "missing", ())) or f"it says {tv.verdict}"
            raise CertificateError(None, "theorem", f"{name!r} proves nothing on this network ({why})")
        if tv.theorem == name:
            hyp = "; ".join(tv.hypotheses) if tv.hypotheses else "none beyond the model"
            statement = (
                f"The theorem '{tv.theorem}' ({tv.source}) applies: its hypotheses hold on this network, checked exactly "
                f"({hyp}), and it says {tv.verdict}: {tv.numbers}."
            )
            return tv, tv.semantics, statement
    names = ", ".join(repr(t.theorem) for t in found) or "none"
    raise CertificateError(None, "theorem", f"{name!r} does not apply to this network (theorems that apply: {names})")
