"""Certificate files: canonical JSON that anyone can re-check with ``certify verify``.

A certificate carries the network's digest, what kind of proof it is, the
rational coefficients, the claims the checker re-derives (delta, the
exceptional-set bound, the overloaded set...) and a digest of its own body, so
that an edited file is refused even where the edit would happen to keep the
inequalities true.  Rationals are written as strings ``"p/q"``.

Pure Python: verifying needs no solver.
"""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

from . import __version__
from .chain import Chain, compile_chain
from .exact import Check, check_fluid, check_foster, check_growth, check_static_split, routed_sets
from .loader import FORK_JOIN_FORMAT
from .model import Distribution, ForkJoinNetwork, Network
from .phases import NotPhaseType, markov_chain
from .templates import TEMPLATES

__all__ = [
    "FORMAT",
    "network_digest",
    "foster_certificate",
    "static_split_certificate",
    "growth_certificate",
    "fluid_certificate",
    "dumps",
    "load_certificate",
    "verify",
]

FORMAT = "certify-certificate/1"


def q(x: Fraction | int) -> str:
    """A rational as the string ``p/q`` (or ``p``)."""
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def unq(s: Any, where: str) -> Fraction:
    if isinstance(s, bool) or not isinstance(s, (str, int)):
        raise ValueError(f"{where}: {s!r} is not a rational written as a string 'p/q'")
    try:
        return Fraction(s)
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"{where}: {s!r} is not a rational 'p/q'") from None


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


def _seal(
    net: Network | ForkJoinNetwork, kind: str, payload: dict, claims: dict, statement: str, semantics: str = "markovian"
) -> dict:
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


def foster_certificate(net: Network, chain: Chain, template: str, theta: list[Fraction], check: Check) -> dict:
    """A stability certificate from an exactly checked Foster–Lyapunov function."""
    f = check.facts
    names = f["variables"]
    return _seal(
        net,
        "foster",
        {
            "template": template,
            "options": f["options"],
            "coefficients": {n: q(v) for n, v in zip(names, theta)},
            **_expansion(chain),
        },
        {
            "delta": q(f["delta"]),
            "exceptional_set": {"norm": "l1", "bound": q(f["exceptional_l1_bound"])},
            "regions": f["regions"],
            "rows": f["rows"],
        },
        "V >= 0 on the orthant and AV(x) <= -delta for every state with |x|_1 >= bound; "
        "the empty state is reachable from every state: positive recurrent (Foster).",
    )


def static_split_certificate(net: Network, chain: Chain, u: dict, w: list[Fraction], check: Check) -> dict:
    """An instability certificate from the dual of the static split LP."""
    ids = chain.ids
    return _seal(
        net,
        "static-split",
        {
            "multipliers": {
                "sets": {",".join(ids[j] for j in C): q(u[C]) for C in routed_sets(chain)},
                "stations": {ids[j]: q(w[j]) for j in range(chain.J)},
            }
        },
        {"dual_value": q(check.facts["dual_value"]), "overloaded": check.facts["overloaded"]},
        "No routing of the offered traffic keeps every station below its service rate: "
        "not positive recurrent under any policy and any distributions with these means (flow balance).",
        semantics="general",
    )


def fluid_certificate(net: Network, chain: Chain, kind: str, coeffs, check: Check) -> dict:
    """A stability certificate for general distributions from an exactly checked fluid Lyapunov function."""
    ids, J = chain.ids, chain.J
    if kind == "linear":
        named = {f"w[{ids[i]}]": q(coeffs[i]) for i in range(J)}
    else:
        named = {f"P[{ids[i]},{ids[j]}]": q(coeffs[i][j]) for i in range(J) for j in range(i, J)}
    f = check.facts
    return _seal(
        net,
        "fluid",
        {"template": kind, "coefficients": named},
        {"delta": q(f["delta"]), "eta": q(f["eta"]), "faces": f["faces"], "rows": f["rows"]},
        "Along every fluid path, under every tie-breaking rule, dV/dt <= -delta |z|_1 (quadratic) or <= -delta "
        "(linear) away from 0, and V >= eta |z|^2 (or eta |z|_1): the fluid model is stable, so the network is "
        "positive Harris recurrent for every i.i.d. service and interarrival law with these means whose "
        "interarrival times are unbounded and spread out (Dai 1995; Dai-Hasenbein-Kim 2007).",
        semantics="general",
    )


def _fluid_coeffs(chain: Chain, kind: str, named: dict):
    ids, J = chain.ids, chain.J
    want = {f"w[{i}]" for i in ids} if kind == "linear" else {f"P[{ids[i]},{ids[j]}]" for i in range(J) for j in range(i, J)}
    if set(named) != want:
        raise ValueError(f"coefficients must be exactly {sorted(want)}")
    if kind == "linear":
        return [unq(named[f"w[{ids[i]}]"], f"coefficients.w[{ids[i]}]") for i in range(J)]
    P = [[Fraction(0)] * J for _ in range(J)]
    for i in range(J):
        for j in range(i, J):
            key = f"P[{ids[i]},{ids[j]}]"
            P[i][j] = P[j][i] = unq(named[key], f"coefficients.{key}")
    return P


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
    f = check.facts
    payload: dict[str, Any] = {"weights": {chain.ids[j]: q(w[j]) for j in range(chain.J)}, **_expansion(chain)}
    if table:
        payload["table"] = {
            "K": K,
            "fast": [chain.ids[a] for a in fast],
            "values": {",".join(map(str, c)): q(v) for c, v in sorted(table.items())},
        }
    return _seal(
        net,
        "growth",
        payload,
        {"delta": q(f["delta"]), "level": q(f["level"]), "increment_bound": q(f["increment_bound"])},
        "f = w'x (+ bounded table) has bounded increments and Af >= delta on {f > level}: transient "
        "(Fayolle-Malyshev-Menshikov Thm 2.2.7), hence not positive recurrent.",
    )


def dumps(cert: dict) -> str:
    """Canonical JSON text of a certificate."""
    return json.dumps(cert, indent=1, sort_keys=True) + "\n"


def load_certificate(path: str | Path) -> dict:
    """Read a certificate file; raises ValueError with the file name on bad JSON."""
    try:
        cert = json.loads(Path(path).read_text())
    except OSError as exc:
        raise ValueError(f"{path}: cannot read certificate: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}") from None
    if not isinstance(cert, dict) or cert.get("format") != FORMAT:
        raise ValueError(f"{path}: format: must be {FORMAT!r}")
    return cert


def _compare(out: Check, claims: dict, key: str, actual: Any) -> None:
    if claims.get(key) != actual:
        out.failures.append(f"claim {key} = {claims.get(key)!r} but the exact check gives {actual!r}")


def verify(net: Network | ForkJoinNetwork, cert: dict) -> Check:
    """Re-check a certificate against a network, exactly.

    Returns a :class:`~certify.exact.Check` whose ``ok`` is True only when the
    file is intact, was made for this network and every condition holds.
    """
    out = Check(ok=False)
    try:
        if cert.get("digest") != _body_digest(cert):
            out.failures.append("certificate content does not match its digest (the file was edited or corrupted)")
        if cert.get("network", {}).get("digest") != network_digest(net):
            out.failures.append("certificate was made for a different network (network digest differs)")
        if isinstance(net, ForkJoinNetwork) or str(cert.get("kind", "")).startswith("fork-join"):
            from .forkjoin import check_certificate  # fork-join-redundancy/1 certificates

            fj = check_certificate(net, cert, out)
            if fj is None:
                return out
            out.facts = fj.facts
            out.ok = not out.failures
            return out
        kind = cert.get("kind")
        if kind in ("static-split", "fluid"):  # statements about the means: the network's stated rates
            chain = compile_chain(net)
        else:
            try:
                chain = markov_chain(net)
            except NotPhaseType as exc:
                out.failures.append(f"the network has no Markovian (phase-type) form: {exc}")
                return out
            if chain.has_phases:
                _compare(out, cert, "phase_expansion", list(chain.expansion))
        claims = cert.get("claims", {})
        if kind == "foster":
            template = str(cert.get("template"))
            if template not in TEMPLATES:
                out.failures.append(f"unknown template {template!r}")
                return out
            options = cert.get("options", {})
            coeffs = cert.get("coefficients", {})
            theta = {n: unq(v, f"coefficients.{n}") for n, v in coeffs.items()}
            res = check_foster(chain, template, theta, options=options)
            out.failures.extend(res.failures)
            if res.ok:
                _compare(out, claims, "delta", q(res.facts["delta"]))
                _compare(out, claims, "exceptional_set", {"norm": "l1", "bound": q(res.facts["exceptional_l1_bound"])})
                _compare(out, claims, "regions", res.facts["regions"])
                _compare(out, claims, "rows", res.facts["rows"])
        elif kind == "static-split":
            m = cert.get("multipliers", {})
            idx = {s: i for i, s in enumerate(chain.ids)}
            u = {}
            for key, v in m.get("sets", {}).items():
                u[tuple(sorted(idx[s] for s in key.split(",")))] = unq(v, f"multipliers.sets.{key}")
            st = m.get("stations", {})
            w = [unq(st.get(s), f"multipliers.stations.{s}") for s in chain.ids]
            res = check_static_split(chain, u, w)
            out.failures.extend(res.failures)
            if res.ok:
                _compare(out, claims, "dual_value", q(res.facts["dual_value"]))
                _compare(out, claims, "overloaded", res.facts["overloaded"])
        elif kind == "fluid":
            tkind = str(cert.get("template"))
            if tkind not in ("linear", "quadratic"):
                out.failures.append(f"unknown fluid template {tkind!r}")
                return out
            res = check_fluid(chain, tkind, _fluid_coeffs(chain, tkind, cert.get("coefficients", {})))
            out.failures.extend(res.failures)
            if res.ok:
                _compare(out, claims, "delta", q(res.facts["delta"]))
                _compare(out, claims, "eta", q(res.facts["eta"]))
                _compare(out, claims, "faces", res.facts["faces"])
                _compare(out, claims, "rows", res.facts["rows"])
        elif kind == "growth":
            ws = cert.get("weights", {})
            w = [unq(ws.get(s), f"weights.{s}") for s in chain.ids]
            tab = cert.get("table")
            if tab is None:
                res = check_growth(chain, w)
            else:
                idx = {s: i for i, s in enumerate(chain.ids)}
                fast = [idx[s] for s in tab["fast"]]
                values = {
                    tuple(int(c) for c in key.split(",")): unq(v, f"table.values.{key}")
                    for key, v in tab["values"].items()
                }
                res = check_growth(chain, w, table=values, fast=fast, K=int(tab["K"]))
            out.failures.extend(res.failures)
            if res.ok:
                _compare(out, claims, "delta", q(res.facts["delta"]))
                _compare(out, claims, "level", q(res.facts["level"]))
                _compare(out, claims, "increment_bound", q(res.facts["increment_bound"]))
        else:
            out.failures.append(f"unknown certificate kind {kind!r}")
            return out
        out.facts = res.facts
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        out.failures.append(f"malformed certificate: {exc}")
        return out
    out.ok = not out.failures
    return out
