"""Certificate files: canonical JSON that anyone can re-check with ``certify verify``.

A certificate carries the network's digest, what kind of proof it is, the
rational coefficients, the claims the checker re-derives (delta, the
exceptional-set bound, the overloaded set...) and a digest of its own body, so
that an edited file is refused even where the edit would happen to keep the
inequalities true.  Rationals are written as strings ``"p/q"``.

A certificate file is hostile input.  :func:`verify` believes nothing it did not
re-derive:

* the fields are exactly those of the kind (unknown or missing fields are refused);
* every option, station list, clip level and table key is validated against the
  network and must be in canonical form (distinct known station ids in the
  network's order, integers in a stated range, ``"p/q"`` in lowest terms with at
  most :data:`MAX_NUMBER_CHARS` characters); a file is never reinterpreted;
* what the checker would build is sized before it is built (clip levels at most
  :data:`~certify.templates.base.MAX_CLIP_LEVEL`, refinements and tables at most
  :data:`~certify.templates.base.MAX_REFINEMENT` pieces), and refused beyond;
* the claims, the ``semantics`` and the ``statement`` are derived by the checker
  from the kind, the template and the network (:func:`derived_claim`); a file
  whose stored ones differ is refused, so a markovian proof is never reported as
  general and no forged sentence is ever printed.

Pure Python: verifying needs no solver.
"""

from __future__ import annotations

import hashlib
import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

from . import __version__
from .chain import Chain, compile_chain
from .exact import (
    Check,
    check_closed_set,
    check_finite,
    check_fluid,
    check_foster,
    check_growth,
    check_static_split,
    routed_sets,
    table_problem,
)
from .hypotheses import dai_violations
from .loader import FORK_JOIN_FORMAT
from .model import Distribution, ForkJoinNetwork, Network
from .phases import NotPhaseType, markov_chain
from .templates import TEMPLATES

__all__ = [
    "FORMAT",
    "KINDS",
    "MAX_NUMBER_CHARS",
    "MAX_FILE_BYTES",
    "network_digest",
    "derived_claim",
    "foster_certificate",
    "static_split_certificate",
    "growth_certificate",
    "fluid_certificate",
    "closed_set_certificate",
    "finite_certificate",
    "theorem_certificate",
    "dumps",
    "load_certificate",
    "verify",
]

FORMAT = "certify-certificate/1"

# A rational in a certificate: "p" or "p/q", lowest terms, q > 1, at most this many characters.
MAX_NUMBER_CHARS = 2000
MAX_FILE_BYTES = 64 * 2**20
_RATIONAL = re.compile(r"-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?")

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


def q(x: Fraction | int) -> str:
    """A rational as the string ``p/q`` (or ``p``)."""
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def unq(s: Any, where: str) -> Fraction:
    """Parse a certificate rational: a string ``"p"`` or ``"p/q"`` in lowest terms (the form :func:`q` writes).

    >>> unq("3/4", "coefficients.P[1,1]")
    Fraction(3, 4)
    >>> unq("6/8", "x")
    Traceback (most recent call last):
    ...
    ValueError: x: '6/8' is not in canonical form (write '3/4')
    """
    if not isinstance(s, str):
        raise ValueError(f"{where}: {s!r} is not a rational written as a string 'p/q'")
    if len(s) > MAX_NUMBER_CHARS:
        raise ValueError(f"{where}: a number of {len(s)} characters (at most {MAX_NUMBER_CHARS})")
    if not _RATIONAL.fullmatch(s):
        raise ValueError(f"{where}: {s!r} is not a rational 'p' or 'p/q'")
    x = Fraction(s)
    if q(x) != s:
        raise ValueError(f"{where}: {s!r} is not in canonical form (write {q(x)!r})")
    return x


def _dist(d: Distribution) -> Any:
    return [d.dist, [[k, [q(x) for x in v] if isinstance(v, tuple) else q(v)] for k, v in d.params]]


def network_digest(net: Network | ForkJoinNetwork) -> str:
    """SHA-256 of the canonical exact content of a network (names and ``x-`` fields excluded)."""
    if isinstance(net, ForkJoinNetwork):
        fj = {"format": FORK_JOIN_FORMAT, "n": net.n, "k": net.k, "rate": q(net.rate), "servers": [[s, q(mu)] for s, mu in net.servers]}
        return "sha256:" + hashlib.sha256(json.dumps(fj, sort_keys=True).encode()).hexdigest()
    body = {
        "stations": [[s.id, q(s.mu), _dist(s.service), s.capacity] for s in net.stations],
        "streams": [
            [
                [[list(c), q(r)] for c, r in st.routing_sets()],
                _dist(st.interarrival),
            ]
            for st in net.streams
        ],
        "feedback": [[f.source, list(f.choice), q(f.prob)] for f in net.feedback],
        "tie_breaking": [[list(t.set), [[k, q(v)] for k, v in t.probs]] for t in net.tie_breaking],
    }
    return "sha256:" + hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _body_digest(cert: dict) -> str:
    body = {k: v for k, v in cert.items() if k != "digest"}
    return "sha256:" + hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


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
    >>> from certify.model import Network, Station, Stream
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
    from .forkjoin import STATEMENTS

    if kind in STATEMENTS:
        return STATEMENTS[kind]
    raise ValueError(f"kind: unknown certificate kind {kind!r} (one of {', '.join(KINDS)})")


def _seal(net: Network | ForkJoinNetwork, kind: str, payload: dict, claims: dict, template: str = "", chain: Chain | None = None) -> dict:
    semantics, statement = derived_claim(kind, net, chain, template)
    cert = {
        "format": FORMAT,
        "kind": kind,
        "network": {"name": net.name, "digest": network_digest(net)},
        "semantics": semantics,
        **payload,
        "claims": claims,
        "statement": statement,
        "certify_version": __version__,
    }
    cert["digest"] = _body_digest(cert)
    return cert


def _expansion(chain: Chain) -> dict[str, Any]:
    """The phase-type expansion the certificate is about (empty for exponential networks)."""
    return {"phase_expansion": list(chain.expansion)} if chain.has_phases else {}


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


def fluid_certificate(net: Network, chain: Chain, kind: str, coeffs, check: Check) -> dict:
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

    ``theorem`` is a :class:`certify.theory.TheoremVerdict` (or its name).
    """
    name = theorem if isinstance(theorem, str) else theorem.theorem
    tv, _, _ = _theorem_claim(net, name)
    return _seal(net, "theorem", {"theorem": name}, {"verdict": tv.verdict, "numbers": tv.numbers}, name)


def _theorem_claim(net: Network | ForkJoinNetwork, name: str) -> tuple[Any, str, str]:
    """The theorem ``name`` re-run on ``net``: (its verdict, semantics, statement); ValueError when it does not apply."""
    from .theory import fork_join, theorem_verdicts

    found = [fork_join(net)] if isinstance(net, ForkJoinNetwork) else theorem_verdicts(compile_chain(net), net)
    for tv in found:
        if tv.theorem == name and not tv.decides:
            why = "; ".join(getattr(tv, "missing", ())) or f"it says {tv.verdict}"
            raise ValueError(f"theorem: {name!r} proves nothing on this network ({why})")
        if tv.theorem == name:
            hyp = "; ".join(tv.hypotheses) if tv.hypotheses else "none beyond the model"
            statement = (
                f"The theorem '{tv.theorem}' ({tv.source}) applies: its hypotheses hold on this network, checked exactly "
                f"({hyp}), and it says {tv.verdict}: {tv.numbers}."
            )
            return tv, tv.semantics, statement
    names = ", ".join(repr(t.theorem) for t in found) or "none"
    raise ValueError(f"theorem: {name!r} does not apply to this network (theorems that apply: {names})")


def dumps(cert: dict) -> str:
    """Canonical JSON text of a certificate."""
    return json.dumps(cert, indent=1, sort_keys=True) + "\n"


def load_certificate(path: str | Path) -> dict:
    """Read a certificate file; raises ValueError with the file name on bad JSON."""
    try:
        size = Path(path).stat().st_size
        if size > MAX_FILE_BYTES:
            raise ValueError(f"{path}: a certificate of {size} bytes (at most {MAX_FILE_BYTES})")
        cert = json.loads(Path(path).read_text())
    except OSError as exc:
        raise ValueError(f"{path}: cannot read certificate: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        where = f" (line {exc.lineno}, column {exc.colno}): {exc.msg}" if isinstance(exc, json.JSONDecodeError) else ""
        raise ValueError(f"{path}: not JSON{where}") from None
    if not isinstance(cert, dict) or cert.get("format") != FORMAT:
        raise ValueError(f"{path}: format: must be {FORMAT!r}")
    return cert


# ----------------------------------------------------------------------------- reading a certificate's fields
def _cell_key(c: tuple[int, ...] | list[int]) -> str:
    return ",".join(map(str, c))


def _map(cert: dict, key: str) -> dict:
    v = cert.get(key)
    if not isinstance(v, dict):
        raise ValueError(f"{key}: must be a map, got {type(v).__name__}")
    return v


def _ids_list(chain: Chain, value: Any, field: str) -> list[int]:
    """Distinct known station ids in the network's order, as indices."""
    from .templates.base import station_list

    return [chain.ids.index(s) for s in station_list(chain, value, field, nonempty=True)]


def _named(values: dict, want: list[str], field: str) -> dict[str, Fraction]:
    """Exactly the names ``want``, each a canonical rational."""
    if set(values) != set(want):
        missing = [n for n in want if n not in values][:3]
        extra = sorted(set(values) - set(want))[:3]
        raise ValueError(f"{field}: must name exactly {len(want)} values: missing {missing}, unexpected {extra}")
    return {n: unq(values[n], f"{field}.{n}") for n in want}


def _fluid_coeffs(chain: Chain, kind: str, named: dict):
    ids, J = chain.ids, chain.J
    if kind == "linear":
        vals = _named(named, [f"w[{i}]" for i in ids], "coefficients")
        return [vals[f"w[{i}]"] for i in ids]
    vals = _named(named, [f"P[{ids[i]},{ids[j]}]" for i in range(J) for j in range(i, J)], "coefficients")
    P = [[Fraction(0)] * J for _ in range(J)]
    for i in range(J):
        for j in range(i, J):
            P[i][j] = P[j][i] = vals[f"P[{ids[i]},{ids[j]}]"]
    return P


def _table_values(values: Any, cells: list[tuple[int, ...]], field: str) -> dict[tuple[int, ...], Fraction]:
    if not isinstance(values, dict):
        raise ValueError(f"{field}: must be a map from cells to rationals")
    named = _named(values, [_cell_key(c) for c in cells], field)
    return {c: named[_cell_key(c)] for c in cells}


# ----------------------------------------------------------------------------- the checks, one per kind
def _markov(net: Network, cert: dict, out: Check) -> Chain | None:
    try:
        chain = markov_chain(net)
    except NotPhaseType as exc:
        out.failures.append(f"the network has no Markovian (phase-type) form: {exc}")
        return None
    want = list(chain.expansion) if chain.has_phases else None
    if not _same(cert.get("phase_expansion"), want):
        out.failures.append(
            f"phase_expansion: {cert.get('phase_expansion')!r} but the network's phase-type expansion is {want!r}"
        )
        return None
    return chain


def _check_foster(net: Network, cert: dict, out: Check) -> tuple[Check, dict, Chain, str] | None:
    chain = _markov(net, cert, out)
    if chain is None:
        return None
    template = cert.get("template")
    if not isinstance(template, str) or template not in TEMPLATES:
        raise ValueError(f"template: {template!r} is not a template (one of {', '.join(TEMPLATES)})")
    options = _map(cert, "options")
    canonical = TEMPLATES[template].resolve_options(chain, dict(options))
    if not _same(options, canonical):
        raise ValueError(f"options: {options!r} is not the canonical form {canonical!r} of these options")
    coeffs = _map(cert, "coefficients")
    if not all(isinstance(n, str) for n in coeffs):
        raise ValueError("coefficients: names must be strings")
    theta = {n: unq(v, f"coefficients.{n}") for n, v in coeffs.items()}
    res = check_foster(chain, template, theta, options=canonical)
    return res, (_foster_claims(res.facts) if res.ok else {}), chain, template


def _check_growth(net: Network, cert: dict, out: Check) -> tuple[Check, dict, Chain, str] | None:
    chain = _markov(net, cert, out)
    if chain is None:
        return None
    vals = _named(_map(cert, "weights"), list(chain.ids), "weights")
    w = [vals[s] for s in chain.ids]
    if "table" not in cert:
        res = check_growth(chain, w)
    else:
        from .templates.base import station_list
        from .templates.table import table_cells

        tab = _map(cert, "table")
        if set(tab) != {"K", "fast", "values"}:
            raise ValueError(f"table: must have exactly the fields K, fast, values (got {sorted(tab)})")
        fast = [chain.ids.index(s) for s in station_list(chain, tab["fast"], "table.fast")]
        problem = table_problem(chain, fast, tab["K"])
        if problem:
            raise ValueError(problem)
        K = tab["K"]
        table = _table_values(tab["values"], table_cells(chain, fast, K), "table.values")
        res = check_growth(chain, w, table=table, fast=fast, K=K)
    return res, (_growth_claims(res.facts) if res.ok else {}), chain, ""


def _check_static(net: Network, cert: dict, out: Check) -> tuple[Check, dict, Chain, str]:
    chain = compile_chain(net)
    m = _map(cert, "multipliers")
    if set(m) != {"sets", "stations"}:
        raise ValueError(f"multipliers: must have exactly the fields sets, stations (got {sorted(m)})")
    sets = routed_sets(chain)
    names = {",".join(chain.ids[j] for j in C): C for C in sets}
    if not isinstance(m["sets"], dict) or not isinstance(m["stations"], dict):
        raise ValueError("multipliers.sets and multipliers.stations must be maps")
    us = _named(m["sets"], list(names), "multipliers.sets")
    ws = _named(m["stations"], list(chain.ids), "multipliers.stations")
    res = check_static_split(chain, {names[k]: v for k, v in us.items()}, [ws[s] for s in chain.ids])
    return res, (_static_claims(res.facts) if res.ok else {}), chain, ""


def _check_fluid(net: Network, cert: dict, out: Check) -> tuple[Check, dict, Chain, str]:
    chain = compile_chain(net)
    kind = cert.get("template")
    if kind not in ("linear", "quadratic"):
        raise ValueError(f"template: {kind!r} is not a fluid template (linear or quadratic)")
    res = check_fluid(chain, kind, _fluid_coeffs(chain, kind, _map(cert, "coefficients")))
    return res, (_fluid_claims(res.facts) if res.ok else {}), chain, kind


def _check_closed(net: Network, cert: dict, out: Check) -> tuple[Check, dict, Chain, str]:
    chain = compile_chain(net)
    res = check_closed_set(chain, _ids_list(chain, cert.get("stations"), "stations"))
    return res, (_closed_claims(res.facts) if res.ok else {}), chain, ""


def _check_finite(net: Network, cert: dict, out: Check) -> tuple[Check, dict, Chain, str] | None:
    chain = _markov(net, cert, out)
    if chain is None:
        return None
    res = check_finite(chain, [s.capacity for s in net.stations])
    return res, (_finite_claims(res.facts) if res.ok else {}), chain, ""


def _check_theorem(net: Network | ForkJoinNetwork, cert: dict, out: Check) -> tuple[Check, dict, None, str]:
    name = cert.get("theorem")
    if not isinstance(name, str):
        raise ValueError(f"theorem: {name!r} must be a theorem's name")
    tv, _, _ = _theorem_claim(net, name)
    res = Check(ok=True)
    res.facts.update(theorem=tv.theorem, verdict=tv.verdict, source=tv.source, numbers=tv.numbers, hypotheses=list(tv.hypotheses))
    return res, {"verdict": tv.verdict, "numbers": tv.numbers}, None, name


_JSQ_CHECKS = {
    "foster": _check_foster,
    "growth": _check_growth,
    "static-split": _check_static,
    "fluid": _check_fluid,
    "closed-set": _check_closed,
    "finite-state": _check_finite,
    "theorem": _check_theorem,
}


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON text (so ``true`` is not ``1`` and ``1.0`` is not ``1``)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _compare(out: Check, claims: dict, key: str, actual: Any) -> None:
    if key not in claims or not _same(claims[key], actual):
        out.failures.append(f"claim {key} = {claims.get(key)!r} but the exact check gives {actual!r}")


def _envelope(net: Network | ForkJoinNetwork, cert: dict, out: Check) -> str | None:
    """Check the fields every certificate has; return the kind (None when it cannot be checked further)."""
    if cert.get("format") != FORMAT:
        out.failures.append(f"format: must be {FORMAT!r}")
        return None
    if cert.get("digest") != _body_digest(cert):
        out.failures.append("certificate content does not match its digest (the file was edited or corrupted)")
    network = cert.get("network")
    if not isinstance(network, dict) or set(network) != {"name", "digest"}:
        out.failures.append("network: must be a map with exactly the fields name and digest")
    elif network["digest"] != network_digest(net):
        out.failures.append("certificate was made for a different network (network digest differs)")
    kind = cert.get("kind")
    if not isinstance(kind, str) or kind not in _PAYLOAD:
        out.failures.append(f"kind: unknown certificate kind {kind!r} (one of {', '.join(KINDS)})")
        return None
    if isinstance(net, ForkJoinNetwork) != kind.startswith("fork-join") and kind != "theorem":
        what = "fork-join-redundancy/1" if isinstance(net, ForkJoinNetwork) else "jsq-network/1"
        out.failures.append(f"kind: a {kind} certificate does not apply to a {what} network")
        return None
    if isinstance(net, Network) and net.has_capacities and kind != "finite-state":
        capped = ", ".join(f"{s.id} ({s.capacity})" for s in net.stations if s.capacity is not None)
        out.failures.append(
            f"kind: a {kind} certificate is about the network without capacities, but stations {capped} have one "
            "(losses change the chain); only finite-state certificates apply"
        )
        return None
    required, optional = _PAYLOAD[kind]
    unknown = sorted(set(cert) - set(_ENVELOPE) - set(required) - set(optional))
    missing = [k for k in (*_ENVELOPE, *required) if k not in cert]
    if unknown:
        out.failures.append(f"unknown field(s) {unknown} for a {kind} certificate")
    if missing:
        out.failures.append(f"missing field(s) {missing} for a {kind} certificate")
    shape = isinstance(cert.get("claims"), dict) and isinstance(cert.get("certify_version"), str)
    if not shape:
        out.failures.append("claims must be a map and certify_version a string")
    # A digest mismatch is reported, and the check goes on so that the failures name what changed.
    return kind if shape and not unknown and not missing and isinstance(network, dict) else None


def verify(net: Network | ForkJoinNetwork, cert: Any) -> Check:
    """Re-check a certificate against a network, exactly, deriving everything it claims.

    Returns a :class:`~certify.exact.Check` whose ``ok`` is True only when the
    file is intact, was made for this network, is in canonical form, every
    condition holds, and its claims, semantics and statement equal the derived
    ones (``facts`` then include ``kind``, ``semantics`` and ``statement``).
    Never raises on a malformed certificate: every problem is a failure.
    """
    out = Check(ok=False)
    if not isinstance(cert, dict):
        out.failures.append(f"a certificate is a JSON object, got {type(cert).__name__}")
        return out
    try:
        kind = _envelope(net, cert, out)
        if kind is None:
            return out
        if kind.startswith("fork-join"):
            from .forkjoin import check_certificate

            done = check_certificate(net, cert, out)
            if done is None:
                return out
            res, claims, chain, template = done, cert["claims"], None, ""
        else:
            got = _JSQ_CHECKS[kind](net, cert, out)  # type: ignore[arg-type]  # a fork-join net only reaches "theorem"
            if got is None:
                return out
            res, claims, chain, template = got
            out.failures.extend(res.failures)
            if res.ok:
                for key in sorted(set(claims) | set(cert["claims"])):
                    _compare(out, cert["claims"], key, claims.get(key))
        semantics, statement = derived_claim(kind, net, chain, template)
        if cert["semantics"] != semantics:
            out.failures.append(f"semantics: the file says {cert['semantics']!r} but a {kind} certificate proves {semantics!r}")
        if cert["statement"] != statement:
            out.failures.append("statement: the file's statement differs from what this certificate proves on this network")
        out.facts = {**res.facts, "kind": kind, "semantics": semantics, "statement": statement}
    except (ValueError, KeyError, TypeError, AttributeError, IndexError, ArithmeticError, RecursionError) as exc:
        out.failures.append(f"malformed certificate: {exc}")
        return out
    out.ok = not out.failures and res.ok
    return out
