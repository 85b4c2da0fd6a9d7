"""Certificate files: the writers (:mod:`.writers`) and the exact re-check (:mod:`.verifier`).

The envelope every certificate shares (rationals, digests, canonical JSON)
lives in :mod:`certify.core.envelope`.  Pure Python: verifying needs no solver.
"""

from ..core.envelope import FORMAT, dumps, network_digest
from ..core.numbers import MAX_NUMBER_CHARS
from .verifier import MAX_FILE_BYTES, load_certificate, verify
from .writers import (
    KINDS,
    closed_set_certificate,
    derived_claim,
    finite_certificate,
    fluid_certificate,
    foster_certificate,
    growth_certificate,
    static_split_certificate,
    theorem_certificate,
)

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
