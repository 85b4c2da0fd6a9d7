"""The certificate envelope: canonical rationals, digests and canonical JSON.

What every certificate file shares, whatever its kind: rationals written as
``"p/q"`` strings (:func:`q`, :func:`unq`), the digest of a network's exact
content (:func:`network_digest`) and of a certificate's body, the sealing of a
payload into a certificate, and the canonical JSON text.  Pure Python.
"""

from __future__ import annotations

import hashlib
import json
import re
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .errors import CertificateError
from .model import FORK_JOIN_FORMAT, Distribution, ForkJoinNetwork, Network
from .version import __version__

if TYPE_CHECKING:
    from ..exact.checks import Check

__all__ = ["FORMAT", "MAX_NUMBER_CHARS", "q", "unq", "network_digest", "seal", "dumps"]

FORMAT = "certify-certificate/1"

# A rational in a certificate: "p" or "p/q", lowest terms, q > 1, at most this many characters.
MAX_NUMBER_CHARS = 2000
_RATIONAL = re.compile(r"-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?")


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
    certify.core.errors.CertificateError: x: '6/8' is not in canonical form (write '3/4')
    """
    if not isinstance(s, str):
        raise CertificateError(None, where, f"{s!r} is not a rational written as a string 'p/q'")
    if len(s) > MAX_NUMBER_CHARS:
        raise CertificateError(None, where, f"a number of {len(s)} characters (at most {MAX_NUMBER_CHARS})")
    if not _RATIONAL.fullmatch(s):
        raise CertificateError(None, where, f"{s!r} is not a rational 'p' or 'p/q'")
    x = Fraction(s)
    if q(x) != s:
        raise CertificateError(None, where, f"{s!r} is not in canonical form (write {q(x)!r})")
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

