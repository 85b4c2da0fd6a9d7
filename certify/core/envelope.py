"""The certificate envelope: digests, sealing and canonical JSON.

What every certificate file shares, whatever its kind: rationals written as
``"p/q"`` strings (:func:`certify.core.numbers.q`), the digest of a network's exact
content (:func:`network_digest`) and of a certificate's body, the sealing of a
payload into a certificate, and the canonical JSON text.  Pure Python.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from .model import FORK_JOIN_FORMAT, Distribution, ForkJoinNetwork, Network
from .numbers import q
from .version import __version__

if TYPE_CHECKING:
    from ..exact.checks import Check

__all__ = ["FORMAT", "network_digest", "seal", "dumps"]

FORMAT = "certify-certificate/1"


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



def seal(net: Network | ForkJoinNetwork, kind: str, payload: dict, claims: dict, semantics: str, statement: str) -> dict:
    """The certificate of ``kind`` with this payload, claims, semantics and statement, with its digest."""
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


def dumps(cert: dict) -> str:
    """Canonical JSON text of a certificate."""
    return json.dumps(cert, indent=1, sort_keys=True) + "\n"


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON text (so ``true`` is not ``1`` and ``1.0`` is not ``1``)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _compare(out: Check, claims: dict, key: str, actual: Any) -> None:
    if key not in claims or not _same(claims[key], actual):
        out.failures.append(f"claim {key} = {claims.get(key)!r} but the exact check gives {actual!r}")

