"""Certificate files: the writers, the readers, and the exact re-check, :func:`verify`.

* :mod:`.writers` — the JSQ writers: a passing check sealed into a file;
* :mod:`.statements` — what each kind proves (:func:`derived_claim`): semantics and statement;
* :mod:`.claims` — what each JSQ kind claims, from its check's facts, and the one comparison;
* :mod:`.readers` — each JSQ kind's payload, validated into its checker's arguments;
* :mod:`.fluid_flow` — the same three for the ``fluid-flow`` kind (a linear fluid V checked by max flows);
* :mod:`.forkjoin` — the same three for the fork-join kinds;
* :mod:`.verifier` — :func:`verify`: the table kind -> (reader, checker, claims).

The envelope every certificate shares (rationals, digests, canonical JSON)
lives in :mod:`certify.core.envelope`.  Pure Python: verifying needs no solver.
"""

from ..core.envelope import FORMAT, dumps, network_digest
from ..core.numbers import MAX_NUMBER_CHARS
from .fluid_flow import fluid_flow_certificate
from .forkjoin import capacity_certificate, forkjoin_foster_certificate, independent_certificate
from .readers import KINDS
from .statements import derived_claim
from .verifier import MAX_FILE_BYTES, Unverified, Verification, Verified, load_certificate, verify
from .writers import (
    closed_set_certificate,
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
    "fluid_flow_certificate",
    "closed_set_certificate",
    "finite_certificate",
    "theorem_certificate",
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
