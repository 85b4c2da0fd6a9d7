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

Each kind is one row of :data:`VERIFIERS`: its reader (payload -> the checker's
arguments), its exact checker, and its claims (facts -> what the file must
claim).  Pure Python: verifying needs no solver.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, NamedTuple, TypeVar

from ..core.envelope import FORMAT, _body_digest, network_digest
from ..core.errors import CertificateError
from ..core.model import ForkJoinNetwork, Network
from ..exact.facts import Check, Facts
from ..exact.fluid_flow import check_fluid_flow
from ..exact.growth import check_growth
from ..exact.instability import check_closed_set, check_static_split
from ..exact.overflow import check_overflow
from ..exact.stability import check_finite, check_fluid, check_foster
from ..exact.theorem_check import check_theorem
from ..forkjoin.checks import check_capacity, check_forkjoin_foster, check_independent
from .claims import (
    closed_set_claims,
    compare_claims,
    finite_state_claims,
    fluid_claims,
    foster_claims,
    growth_claims,
    static_split_claims,
    theorem_claims,
)
from .fluid_flow import fluid_flow_claims, read_fluid_flow
from .forkjoin import capacity_claims, independent_claims, lag_table_claims, read_capacity, read_independent, read_lag_table
from .overflow import overflow_claims, read_overflow
from .readers import (
    ENVELOPE_FIELDS,
    KINDS,
    PAYLOAD_FIELDS,
    read_closed_set,
    read_finite_state,
    read_fluid,
    read_foster,
    read_growth,
    read_static_split,
    read_theorem,
)
from .reading import Reading
from .statements import derived_claim

__all__ = ["MAX_FILE_BYTES", "Verifier", "VERIFIERS", "Verified", "Unverified", "Verification", "load_certificate", "verify"]

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


class Verifier(NamedTuple):
    """How one kind of certificate is verified: read the payload, check it exactly, derive its claims.

    Attributes
    ----------
    read : callable
        ``read(net, cert)``: the checker's arguments (:class:`~certify.certificates.reading.Reading`),
        or why the kind does not apply to the network (a failure); raises
        :class:`~certify.core.errors.CertificateError` on a malformed field.
    check : callable
        The exact checker, called with the reading's arguments.
    claims : callable
        ``claims(facts)``: what the file must claim, derived from a passing check.

    Examples
    --------
    >>> VERIFIERS["closed-set"].check.__name__
    'check_closed_set'
    """

    read: Callable[[Any, dict[str, Any]], Reading | str]
    check: Callable[..., Check[Any]]
    claims: Callable[[Any], dict[str, Any]]


#: The kinds that apply to a network with capacities (their checkers model the losses).
CAPACITY_KINDS = ("finite-state", "static-split", "overflow-foster", "overflow-growth")

# kind -> (reader, checker, claims): the whole of what verify does per kind.
VERIFIERS: dict[str, Verifier] = {
    "foster": Verifier(read_foster, check_foster, foster_claims),
    "growth": Verifier(read_growth, check_growth, growth_claims),
    "static-split": Verifier(read_static_split, check_static_split, static_split_claims),
    "fluid": Verifier(read_fluid, check_fluid, fluid_claims),
    "fluid-flow": Verifier(read_fluid_flow, check_fluid_flow, fluid_flow_claims),
    "closed-set": Verifier(read_closed_set, check_closed_set, closed_set_claims),
    "finite-state": Verifier(read_finite_state, check_finite, finite_state_claims),
    "theorem": Verifier(read_theorem, check_theorem, theorem_claims),
    "overflow-foster": Verifier(read_overflow, check_overflow, overflow_claims),
    "overflow-growth": Verifier(read_overflow, check_overflow, overflow_claims),
    "fork-join-capacity": Verifier(read_capacity, check_capacity, capacity_claims),
    "fork-join-independent": Verifier(read_independent, check_independent, independent_claims),
    "fork-join-foster": Verifier(read_lag_table, check_forkjoin_foster, lag_table_claims),
}
assert tuple(VERIFIERS) == KINDS


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

    def as_dict(self) -> dict[str, Any]:
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

    partial: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
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


def _envelope(net: Network | ForkJoinNetwork, cert: dict[str, Any], failures: list[str]) -> str | None:
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
    kind = cert.get("kind")
    if not isinstance(kind, str) or kind not in PAYLOAD_FIELDS:
        failures.append(f"kind: unknown certificate kind {kind!r} (one of {', '.join(KINDS)})")
        return None
    if isinstance(net, ForkJoinNetwork) != kind.startswith("fork-join") and kind != "theorem":
        what = "fork-join-redundancy/1" if isinstance(net, ForkJoinNetwork) else "jsq-network/1"
        failures.append(f"kind: a {kind} certificate does not apply to a {what} network")
        return None
    if isinstance(net, Network) and net.has_capacities and kind not in CAPACITY_KINDS:
        capped = ", ".join(f"{s.id} ({s.capacity})" for s in net.stations if s.capacity is not None)
        failures.append(
            f"kind: a {kind} certificate is about the network without capacities, but stations {capped} have one "
            f"(losses change the chain); only {', '.join(CAPACITY_KINDS)} certificates apply"
        )
        return None
    required, optional = PAYLOAD_FIELDS[kind]
    unknown = sorted(set(cert) - set(ENVELOPE_FIELDS) - set(required) - set(optional))
    missing = [k for k in (*ENVELOPE_FIELDS, *required) if k not in cert]
    if unknown:
        failures.append(f"unknown field(s) {unknown} for a {kind} certificate")
    if missing:
        failures.append(f"missing field(s) {missing} for a {kind} certificate")
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
    cert : object
        The certificate (a dict read from its file; anything else is refused).

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
    if not isinstance(cert, dict):
        return Verification([f"a certificate is a JSON object, got {type(cert).__name__}"], Unverified({}))
    try:
        kind = _envelope(net, cert, failures)
        if kind is None:
            return Verification(failures, Unverified({}))
        read, check, claims = VERIFIERS[kind]
        reading = read(net, cert)
        if isinstance(reading, str):
            failures.append(reading)
            return Verification(failures, Unverified({}))
        res = check(*reading.args, **reading.kwargs)
        failures.extend(res.failures)
        if res.ok:
            failures.extend(compare_claims(cert["claims"], claims(res.facts)))
        semantics, statement = derived_claim(kind, net, reading.chain, reading.template)
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
