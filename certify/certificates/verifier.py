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
  most :data:`~certify.core.numbers.MAX_NUMBER_CHARS` characters); a file is never reinterpreted;
* what the checker would build is sized before it is built (clip levels at most
  :data:`~certify.templates.options.MAX_CLIP_LEVEL`, refinements and tables at most
  :data:`~certify.templates.options.MAX_REFINEMENT` pieces), and refused beyond;
* the claims, the ``semantics`` and the ``statement`` are derived by the checker
  from the kind, the template and the network
  (:func:`~certify.certificates.statements.derived_claim`); a file whose stored ones
  differ is refused, so a markovian proof is never reported as general and no
  forged sentence is ever printed.

Each kind is one :class:`~certify.certificates.kinds.base.Kind` of the registry
(:data:`~certify.certificates.kinds.REGISTRY`): its reader (payload -> the
checker's arguments), its exact checker, and its claims (facts -> what the file
must claim).  Pure Python: verifying needs no solver.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from ..core.certificate import Certificate
from ..core.envelope import FORMAT, _body_digest, network_digest
from ..core.errors import CertificateError
from ..core.model import ForkJoinNetwork, Network
from ..exact.facts import Facts, NestedVerdict
from ..io.loader import DuplicateKey, no_duplicate_keys
from .claims import compare_claims
from .kinds import ENVELOPE_FIELDS, REGISTRY, Kind, kind_named

__all__ = ["MAX_FILE_BYTES", "Verified", "Unverified", "Verification", "load_certificate", "verify", "nested_verdict"]

MAX_FILE_BYTES = 64 * 2**20

F = TypeVar("F", bound=Facts)


def load_certificate(path: str | Path) -> dict[str, Any]:
    """Read a certificate file (at most :data:`MAX_FILE_BYTES`), refusing anything but a JSON object of this format.

    Parameters
    ----------
    path : str or Path
        The certificate file.

    Returns
    -------
    dict
        The certificate, as read (nothing in it is checked beyond ``format``).

    Raises
    ------
    CertificateError
        With the file name, when the file cannot be read, is too large, is not
        JSON, or is not a ``certify-certificate/1`` object.

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "c.json")
    ...     _ = open(path, "w").write('{"format": "something-else"}')
    ...     load_certificate(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    certify.core.errors.CertificateError: ...: format: must be 'certify-certificate/1' (got 'something-else')
    """
    try:
        size = Path(path).stat().st_size
        if size > MAX_FILE_BYTES:
            raise CertificateError(str(path), None, f"a certificate of {size} bytes (at most {MAX_FILE_BYTES})")
        cert = json.loads(Path(path).read_text(), object_pairs_hook=no_duplicate_keys)
    except OSError as exc:
        raise CertificateError(str(path), None, f"cannot read certificate: {exc.strerror}") from None
    except DuplicateKey as exc:  # before JSONDecodeError's base, ValueError
        key = json.dumps(exc.args[0])
        raise CertificateError(str(path), None, f"not a certificate: the key {key} is given twice in one object") from None
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        where = f" (line {exc.lineno}, column {exc.colno}): {exc.msg}" if isinstance(exc, json.JSONDecodeError) else ""
        raise CertificateError(str(path), None, f"not JSON{where}") from None
    if not isinstance(cert, dict) or cert.get("format") != FORMAT:
        got = f"got {cert.get('format')!r:.60}" if isinstance(cert, dict) else "the file is not a JSON object"
        raise CertificateError(str(path), "format", f"must be {FORMAT!r} ({got})")
    return cert


@dataclass(frozen=True)
class Verified(Facts, Generic[F]):
    """The facts of a valid certificate: its kind's facts, and what it proves (derived by the checker).

    Attributes
    ----------
    checked : Facts
        The facts its kind's exact check derived (e.g. :class:`~certify.exact.facts.FosterFacts`).
    kind : str
        The certificate kind.
    semantics : str
        For which laws it proves its verdict (``markovian``, ``general``, ``fluid-model``).
    statement : str
        What it proves, in one paragraph.

    Examples
    --------
    >>> from certify.exact.facts import FiniteStateFacts
    >>> Verified(FiniteStateFacts(4), "finite-state", "markovian", "...").as_dict()
    {'states': 4, 'kind': 'finite-state', 'semantics': 'markovian', 'statement': '...'}
    """

    checked: F
    kind: str
    semantics: str
    statement: str

    def as_dict(self) -> dict[str, object]:
        """The kind's facts followed by ``kind``, ``semantics`` and ``statement`` (as ``certify verify --json`` prints them).

        Returns
        -------
        dict
            One flat map (a fact named ``kind`` gives way to the certificate kind, in its place).

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> from certify.exact.facts import FluidFacts
        >>> list(Verified(FluidFacts(1, 1, F(1), F(1), "linear"), "fluid", "general", "...").as_dict())
        ['faces', 'rows', 'delta', 'eta', 'kind', 'semantics', 'statement']
        """
        return {**self.checked.as_dict(), "kind": self.kind, "semantics": self.semantics, "statement": self.statement}


@dataclass(frozen=True)
class Unverified(Facts):
    """What :func:`verify` had derived from a certificate that does not hold: numbers for the report, no fact.

    Attributes
    ----------
    partial : dict
        What the check computed before it stopped, with ``kind``, ``semantics``
        and ``statement`` once derived (empty when the file was refused first).

    Examples
    --------
    >>> Unverified({}).as_dict()
    {}
    """

    partial: dict[str, object]

    def as_dict(self) -> dict[str, object]:
        """The partial numbers, as ``certify verify --json`` prints them.

        Returns
        -------
        dict
            A copy of ``partial``.

        Examples
        --------
        >>> Unverified({"regions": 3}).as_dict()
        {'regions': 3}
        """
        return dict(self.partial)


@dataclass(frozen=True)
class Verification:
    """The outcome of :func:`verify`: the failures, and the facts of a valid certificate.

    Attributes
    ----------
    failures : list of str
        Every problem found, in words (empty when valid).
    facts : Verified or Unverified
        :class:`Verified` for a valid certificate; otherwise :class:`Unverified`,
        whose only content is what had been computed (no fact is proved).

    Examples
    --------
    >>> v = Verification(["claims must be a map and certify_version a string"], Unverified({}))
    >>> v.ok, v.failures[0]
    (False, 'claims must be a map and certify_version a string')
    """

    failures: list[str]
    facts: Verified[Any] | Unverified

    @property
    def ok(self) -> bool:
        """True when the certificate is valid (every check passed and every claim equals the derived one).

        Returns
        -------
        bool
            Whether ``facts`` is :class:`Verified`.

        Examples
        --------
        >>> Verification(["kind: unknown certificate kind 'x'"], Unverified({})).ok
        False
        """
        return isinstance(self.facts, Verified) and not self.failures


def _envelope(net: Network | ForkJoinNetwork, cert: dict[str, Any], failures: list[str]) -> Kind | None:
    """Check the fields every certificate has; return the kind (None when it cannot be checked further)."""
    if cert.get("format") != FORMAT:
        failures.append(f"format: must be {FORMAT!r}")
        return None
    if cert.get("digest") != _body_digest(cert):
        failures.append("certificate content does not match its digest (the file was edited or corrupted)")
    network = cert.get("network")
    if not isinstance(network, dict) or set(network) != {"name", "digest"}:
        failures.append("network: must be a map with exactly the fields name and digest")
    elif network["digest"] != network_digest(net):
        failures.append("certificate was made for a different network (network digest differs)")
    name = cert.get("kind")
    kind = kind_named(name)
    if kind is None:
        failures.append(f"kind: unknown certificate kind {name!r} (one of {', '.join(REGISTRY)})")
        return None
    fork_join = isinstance(net, ForkJoinNetwork)
    if kind.networks != "any" and fork_join != (kind.networks == "fork-join"):
        what = "fork-join-redundancy/1" if fork_join else "jsq-network/1"
        failures.append(f"kind: a {kind.name} certificate does not apply to a {what} network")
        return None
    if isinstance(net, Network) and net.has_capacities and not kind.capacities:
        capped = ", ".join(f"{s.id} ({s.capacity})" for s in net.stations if s.capacity is not None)
        apply = ", ".join(k.name for k in REGISTRY.values() if k.capacities)
        failures.append(
            f"kind: a {kind.name} certificate is about the network without capacities, but stations {capped} have one "
            f"(losses change the chain); only {apply} certificates apply"
        )
        return None
    unknown = sorted(set(cert) - set(ENVELOPE_FIELDS) - set(kind.fields) - set(kind.optional))
    missing = [k for k in (*ENVELOPE_FIELDS, *kind.fields) if k not in cert]
    if unknown:
        failures.append(f"unknown field(s) {unknown} for a {kind.name} certificate")
    if missing:
        failures.append(f"missing field(s) {missing} for a {kind.name} certificate")
    shape = isinstance(cert.get("claims"), dict) and isinstance(cert.get("certify_version"), str)
    if not shape:
        failures.append("claims must be a map and certify_version a string")
    # A digest mismatch is reported, and the check goes on so that the failures name what changed.
    return kind if shape and not unknown and not missing and isinstance(network, dict) else None


def verify(net: Network | ForkJoinNetwork, cert: Any) -> Verification:
    """Re-check a certificate against a network, exactly, deriving everything it claims.

    Valid only when the file is intact, was made for this network, is in
    canonical form, every condition holds, and its claims, semantics and
    statement equal the derived ones.  Never raises on a malformed certificate:
    every problem is a failure.

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        The network.
    cert : Certificate or object
        The certificate (a :class:`~certify.core.certificate.Certificate`, or the JSON object read
        from its file; anything else is refused).

    Returns
    -------
    Verification
        ``ok``, the ``failures``, and the ``facts``: the kind's facts with
        ``kind``, ``semantics`` and ``statement`` (:class:`Verified`) when valid.

    Examples
    --------
    A closed-set certificate, written from an exact check and re-checked:

    >>> from fractions import Fraction as F
    >>> from certify.certificates import closed_set_certificate
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.exact import check_closed_set
    >>> from certify.markov.chain import compile_chain
    >>> streams = (Stream(F(1, 2), choice=("1",)), Stream(F(1, 10), choice=("2",)))
    >>> trap = Network("trap", (Station("1", F(1)), Station("2", F(1))), streams, (Feedback("2", ("2",), F(1)),))
    >>> chain = compile_chain(trap)
    >>> cert = closed_set_certificate(trap, chain, [1], check_closed_set(chain, [1]))
    >>> res = verify(trap, cert)
    >>> res.ok, res.facts.checked.inflow, res.facts.semantics
    (True, Fraction(1, 10), 'general')
    >>> verify(trap, {**cert, "stations": ["1"]}).failures[0]
    'certificate content does not match its digest (the file was edited or corrupted)'
    """
    failures: list[str] = []
    if isinstance(cert, Certificate):
        cert = cert.to_json()
    if not isinstance(cert, dict):
        return Verification([f"a certificate is a JSON object, got {type(cert).__name__}"], Unverified({}))
    try:
        found = _envelope(net, cert, failures)
        if found is None:
            return Verification(failures, Unverified({}))
        kind = found.name
        reading = found.read(net, cert)
        if isinstance(reading, str):
            failures.append(reading)
            return Verification(failures, Unverified({}))
        kwargs = dict(reading.kwargs)
        if found.nested is not None:
            kwargs["nested"] = nested_verdict(*found.nested(net, cert))
        res = found.check(*reading.args, **kwargs)
        failures.extend(res.failures)
        if res.ok:
            failures.extend(compare_claims(cert["claims"], found.claims(res.facts)))
        semantics, statement = found.statement(net, reading.chain, reading.template)
        if cert["semantics"] != semantics:
            failures.append(f"semantics: the file says {cert['semantics']!r} but a {kind} certificate proves {semantics!r}")
        if cert["statement"] != statement:
            failures.append("statement: the file's statement differs from what this certificate proves on this network")
    except (ValueError, KeyError, TypeError, AttributeError, IndexError, ArithmeticError, RecursionError) as exc:
        failures.append(f"malformed certificate: {exc}")
        return Verification(failures, Unverified({}))
    if failures or not res.ok:
        computed = res.facts.as_dict() if res.ok else res.partial
        return Verification(failures, Unverified({**computed, "kind": kind, "semantics": semantics, "statement": statement}))
    return Verification([], Verified(res.facts, kind, semantics, statement))


def nested_verdict(net: Network, cert: Any) -> NestedVerdict:
    """Verify a certificate nested in another against the network it is about: what a kind's checker is given.

    Parameters
    ----------
    net : Network
        The derived network (for ``sink-growth``: the network without its sink).
    cert : object
        The nested certificate (refused unless it is a certificate object).

    Returns
    -------
    NestedVerdict
        Whether it verified, its failures, its kind, the verdict its kind proves and its semantics.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> nested_verdict(mm1, {"kind": "foster"}).ok
    False
    >>> nested_verdict(mm1, {"kind": "sink-growth"}).failures
    ('a sink-growth certificate nests another certificate; a nested one may not',)
    """
    name = cert.get("kind") if isinstance(cert, Mapping) else None
    kind = kind_named(name) if isinstance(name, str) else None
    if kind is not None and kind.nested is not None:  # one level only: a file may not nest certificates in a chain
        return NestedVerdict(False, (f"a {name} certificate nests another certificate; a nested one may not",),
                             str(name), kind.proves, "")
    v = verify(net, cert)
    semantics = v.facts.semantics if isinstance(v.facts, Verified) else ""
    return NestedVerdict(v.ok, tuple(v.failures), str(name), kind.proves if kind is not None else None, semantics)
