"""The certificate envelope: digests, sealing and canonical JSON.

What every certificate file shares, whatever its kind: rationals written as
``"p/q"`` strings (:func:`certify.core.numbers.q`), the digest of a network's exact
content (:func:`network_digest`) and of a certificate's body, the sealing of a
payload into a certificate, and the canonical JSON text.  Pure Python.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from .certificate import Certificate
from .model import FORK_JOIN_FORMAT, Distribution, ForkJoinNetwork, Network
from .numbers import q
from .version import __version__

__all__ = ["FORMAT", "Certificate", "network_digest", "seal", "dumps"]

#: The ``format`` of every certificate file.
FORMAT = "certify-certificate/1"


def _dist(d: Distribution) -> Any:
    return [d.dist, [[k, [q(x) for x in v] if isinstance(v, tuple) else q(v)] for k, v in d.params]]


def network_digest(net: Network | ForkJoinNetwork) -> str:
    """SHA-256 of the canonical exact content of a network (names and ``x-`` fields excluded).

    Two networks that every stage treats alike have the same digest: the
    stations (rates, laws, capacities), the streams as their routing sets
    (:meth:`~certify.core.model.Stream.routing_sets`) and interarrival laws,
    feedback and tie-breaking, every number as its canonical ``p/q``.

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        The network.

    Returns
    -------
    str
        ``"sha256:"`` and 64 hexadecimal digits.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> a = Network("a", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> b = Network("b", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),), extras=(("x-note", 1),))
    >>> network_digest(a)
    'sha256:dec6a68119a597d6a54cd65eb45e2edef94183cc3bcd3ad0bca3a53ce413484e'
    >>> network_digest(a) == network_digest(b)
    True
    """
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


def _body_digest(cert: Mapping[str, Any]) -> str:
    body = {k: v for k, v in cert.items() if k != "digest"}
    return "sha256:" + hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def seal(
    net: Network | ForkJoinNetwork, kind: str, payload: Mapping[str, Any], claims: Mapping[str, Any], semantics: str, statement: str
) -> Certificate:
    """The certificate of ``kind`` with this payload, claims, semantics and statement, with its digest.

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        The network it is about (its name and :func:`network_digest` are recorded).
    kind : str
        The certificate kind (``"foster"``, ...).
    payload : dict
        The kind's own fields (coefficients, options, ...), merged at the top level.
    claims : dict
        What the exact check must reproduce.
    semantics : str
        The semantics the verdict holds under (``"markovian"``, ...).
    statement : str
        The claim in words.

    Returns
    -------
    Certificate
        The certificate, with ``format``, ``certify_version`` and the
        ``digest`` of everything else.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> net = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> cert = seal(net, "foster", {"coefficients": {"w": ["1"]}}, {"stable": True}, "markovian", "stable")
    >>> sorted(cert)
    ['certify_version', 'claims', 'coefficients', 'digest', 'format', 'kind', 'network', 'semantics', 'statement']
    >>> cert["network"]["name"], cert["digest"].startswith("sha256:")
    ('mm1', True)
    """
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
    return Certificate.from_json(cert)


def dumps(cert: Mapping[str, Any]) -> str:
    """Canonical JSON text of a certificate: keys sorted, indented by one space, a final newline.

    Parameters
    ----------
    cert : Certificate or mapping
        The certificate (or any JSON object).

    Returns
    -------
    str
        The text written to a certificate file.

    Examples
    --------
    >>> print(dumps({"b": 1, "a": ["1/2"]}), end="")
    {
     "a": [
      "1/2"
     ],
     "b": 1
    }
    """
    obj = cert.to_json() if isinstance(cert, Certificate) else cert
    return json.dumps(obj, indent=1, sort_keys=True) + "\n"
