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

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..core.envelope import FORMAT, _body_digest, _compare, _same, network_digest
from ..core.errors import CertificateError
from ..core.model import ForkJoinNetwork, Network
from ..core.numbers import unq
from ..exact.checks import (
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
from ..markov.chain import Chain, compile_chain
from ..markov.phases import NotPhaseType, markov_chain
from ..templates import TEMPLATES
from .writers import (
    _ENVELOPE,
    _PAYLOAD,
    KINDS,
    _cell_key,
    _closed_claims,
    _finite_claims,
    _fluid_claims,
    _foster_claims,
    _growth_claims,
    _static_claims,
    _theorem_claim,
    derived_claim,
)

__all__ = ["MAX_FILE_BYTES", "load_certificate", "verify"]

MAX_FILE_BYTES = 64 * 2**20


def load_certificate(path: str | Path) -> dict:
    """Read a certificate file; raises ValueError with the file name on bad JSON."""
    try:
        size = Path(path).stat().st_size
        if size > MAX_FILE_BYTES:
            raise CertificateError(str(path), None, f"a certificate of {size} bytes (at most {MAX_FILE_BYTES})")
        cert = json.loads(Path(path).read_text())
    except OSError as exc:
        raise CertificateError(str(path), None, f"cannot read certificate: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        where = f" (line {exc.lineno}, column {exc.colno}): {exc.msg}" if isinstance(exc, json.JSONDecodeError) else ""
        raise CertificateError(str(path), None, f"not JSON{where}") from None
    if not isinstance(cert, dict) or cert.get("format") != FORMAT:
        got = f"got {cert.get('format')!r:.60}" if isinstance(cert, dict) else "the file is not a JSON object"
        raise CertificateError(str(path), "format", f"must be {FORMAT!r} ({got})")
    return cert


# ----------------------------------------------------------------------------- reading a certificate's fields
def _map(cert: dict, key: str) -> dict:
    v = cert.get(key)
    if not isinstance(v, dict):
        raise CertificateError(None, key, f"must be a map, got {type(v).__name__}")
    return v


def _ids_list(chain: Chain, value: Any, field: str) -> list[int]:
    """Distinct known station ids in the network's order, as indices."""
    from ..templates.base import station_list

    return [chain.ids.index(s) for s in station_list(chain, value, field, nonempty=True)]


def _named(values: dict, want: list[str], field: str) -> dict[str, Fraction]:
    """Exactly the names ``want``, each a canonical rational."""
    if set(values) != set(want):
        missing = [n for n in want if n not in values][:3]
        extra = sorted(set(values) - set(want))[:3]
        raise CertificateError(None, field, f"must name exactly {len(want)} values: missing {missing}, unexpected {extra}")
    return {n: unq(values[n], f"{field}.{n}") for n in want}


def _fluid_coeffs(chain: Chain, kind: str, named: dict) -> list[Fraction] | list[list[Fraction]]:
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
        raise CertificateError(None, field, f"must be a map from cells to rationals, got {type(values).__name__}")
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
        raise CertificateError(None, "template", f"{template!r} is not a template (one of {', '.join(TEMPLATES)})")
    options = _map(cert, "options")
    canonical = TEMPLATES[template].resolve_options(chain, dict(options))
    if not _same(options, canonical):
        raise CertificateError(None, "options", f"{options!r} is not the canonical form {canonical!r} of these options")
    coeffs = _map(cert, "coefficients")
    bad = [n for n in coeffs if not isinstance(n, str)]
    if bad:
        raise CertificateError(None, "coefficients", f"the name {bad[0]!r} must be a string")
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
        from ..templates.base import station_list
        from ..templates.table import table_cells

        tab = _map(cert, "table")
        if set(tab) != {"K", "fast", "values"}:
            raise CertificateError(None, "table", f"must have exactly the fields K, fast, values (got {sorted(tab)})")
        fast = [chain.ids.index(s) for s in station_list(chain, tab["fast"], "table.fast")]
        problem = table_problem(chain, fast, tab["K"])
        if problem:
            field, _, rule = problem.partition(": ")
            raise CertificateError(None, field, rule)
        K = tab["K"]
        table = _table_values(tab["values"], table_cells(chain, fast, K), "table.values")
        res = check_growth(chain, w, table=table, fast=fast, K=K)
    return res, (_growth_claims(res.facts) if res.ok else {}), chain, ""


def _check_static(net: Network, cert: dict, out: Check) -> tuple[Check, dict, Chain, str]:
    chain = compile_chain(net)
    m = _map(cert, "multipliers")
    if set(m) != {"sets", "stations"}:
        raise CertificateError(None, "multipliers", f"must have exactly the fields sets, stations (got {sorted(m)})")
    sets = routed_sets(chain)
    names = {",".join(chain.ids[j] for j in C): C for C in sets}
    for part in ("sets", "stations"):
        if not isinstance(m[part], dict):
            raise CertificateError(None, f"multipliers.{part}", f"must be a map, got {type(m[part]).__name__}")
    us = _named(m["sets"], list(names), "multipliers.sets")
    ws = _named(m["stations"], list(chain.ids), "multipliers.stations")
    res = check_static_split(chain, {names[k]: v for k, v in us.items()}, [ws[s] for s in chain.ids])
    return res, (_static_claims(res.facts) if res.ok else {}), chain, ""


def _check_fluid(net: Network, cert: dict, out: Check) -> tuple[Check, dict, Chain, str]:
    chain = compile_chain(net)
    kind = cert.get("template")
    if kind not in ("linear", "quadratic"):
        raise CertificateError(None, "template", f"{kind!r} is not a fluid template (linear or quadratic)")
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
        raise CertificateError(None, "theorem", f"{name!r} must be a theorem's name (a string)")
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
            from ..forkjoin.check import check_certificate

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
