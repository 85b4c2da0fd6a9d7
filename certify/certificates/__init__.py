"""Certificate files: the kinds (one module each), their statements, and the exact re-check, :func:`verify`.

* :mod:`.kinds` — one module per certificate kind (payload, writer, reader, claims, statement,
  explainer) and the registry built from them (:data:`~certify.certificates.kinds.REGISTRY`);
* :mod:`.statements` — what a certificate proves (:func:`derived_claim`): semantics and statement;
* :mod:`.claims` — the one comparison of a file's claims with the derived ones;
* :mod:`.reading` — :class:`~certify.certificates.reading.Reading` and the field helpers every reader uses;
* :mod:`.verifier` — :func:`verify`: the envelope, then the kind's reader, checker and claims.

The envelope every certificate shares (rationals, digests, canonical JSON)
lives in :mod:`certify.core.envelope`.  Pure Python: verifying needs no solver.
"""

from ..core.envelope import FORMAT, dumps, network_digest
from ..core.numbers import MAX_NUMBER_CHARS
from .kinds import KINDS, REGISTRY
from .kinds.closed_set import closed_set_certificate
from .kinds.finite_state import finite_certificate
from .kinds.fluid import fluid_certificate
from .kinds.fluid_flow import fluid_flow_certificate
from .kinds.fork_join_capacity import capacity_certificate
from .kinds.fork_join_foster import forkjoin_foster_certificate
from .kinds.fork_join_independent import independent_certificate
from .kinds.foster import foster_certificate
from .kinds.growth import growth_certificate
from .kinds.overflow import overflow_certificate
from .kinds.static_split import static_split_certificate
from .kinds.theorem import theorem_certificate
from .statements import derived_claim
from .verifier import MAX_FILE_BYTES, Unverified, Verification, Verified, load_certificate, nested_verdict, verify

__all__ = [
    "FORMAT",
    "KINDS",
    "REGISTRY",
    "MAX_NUMBER_CHARS",
    "MAX_FILE_BYTES",
    "network_digest",
    "derived_claim",
    "nested_verdict",
    "foster_certificate",
    "static_split_certificate",
    "growth_certificate",
    "fluid_certificate",
    "fluid_flow_certificate",
    "closed_set_certificate",
    "finite_certificate",
    "theorem_certificate",
    "overflow_certificate",
    "capacity_certificate",
    "independent_certificate",
    "forkjoin_foster_certificate",
    "dumps",
    "load_certificate",
    "verify",
    "Verification",
    "Verified",
    "Unverified",
]
