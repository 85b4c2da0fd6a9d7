"""certify: prove or refute stability of join-the-shortest-queue networks.

The public API is loaded lazily, so that importing the exact checker
(:mod:`certify.exact`, :mod:`certify.certificates`) never pulls in numpy or a
solver.

>>> import certify
>>> net = certify.loads('{"format": "jsq-network/1", "name": "mm1", '
...     '"stations": {"1": {"mu": 2}}, "streams": [{"choice": ["1"], "rate": 1}]}')
>>> certify.prove(net).verdict
'stable'
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from .core.version import __version__
from .workflows.sweep import sweep  # eager (stdlib only): binds certify.sweep to the function, not the submodule

_API = {
    "load": "io.loader",
    "loads": "io.loader",
    "from_dict": "io.loader",
    "to_dict": "io.loader",
    "dump": "io.loader",
    "from_graph": "io.graph",
    "to_graph": "io.graph",
    "CertifyError": "core.errors",
    "NetworkError": "core.errors",
    "NetworkNotSupported": "core.errors",
    "CertificateError": "core.errors",
    "NotSupported": "core.errors",
    "SolverError": "core.errors",
    "Network": "core.model",
    "ForkJoinNetwork": "core.model",
    "prove": "proof.pipeline",
    "ProveOptions": "proof.options",
    "Certificate": "core.certificate",
    "Result": "proof.pipeline",
    "compile_chain": "markov.chain",
    "enumerate_regions": "markov.regions",
    "load_certificate": "certificates",
    "simulate": "simulation.simulate",
    "SimulationResult": "simulation.result",
    "boundary": "workflows.boundary",
    "BoundaryResult": "workflows.boundary_result",
    "boundaries": "workflows.boundaries",
    "BoundaryCurve": "workflows.boundaries",
}

__all__ = [*_API, "verify", "sweep", "__version__"]


def verify(net: Any, cert: Any) -> Any:
    """Re-check a certificate (a Certificate, its JSON object, or a path) against a network exactly.

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        The network the certificate is about (from :func:`load`).
    cert : Certificate, dict, str or path
        The certificate (as ``prove`` returns it, or the JSON object of its file), or the path of its file.

    Returns
    -------
    Verification
        ``ok`` with the facts the checker re-derived (``facts.checked``, ``facts.semantics``,
        ``facts.statement``), or the failures.

    Raises
    ------
    CertificateError
        When ``cert`` is a path whose file cannot be read as a certificate (too large, not JSON).

    Examples
    --------
    >>> import certify
    >>> net = certify.load("models/symmetric-jsq-J4.json")
    >>> cert = certify.prove(net, simulate=False).certificate
    >>> res = certify.verify(net, cert)
    >>> res.ok, res.facts.kind, res.facts.semantics
    (True, 'fluid-flow', 'general')
    """
    from .certificates import load_certificate
    from .certificates import verify as _verify

    if isinstance(cert, (str, os.PathLike)):
        cert = load_certificate(os.fspath(cert))
    return _verify(net, cert)


def __getattr__(name: str) -> Any:
    if name in _API:
        mod = importlib.import_module(f".{_API[name]}", __name__)
        return getattr(mod, name)
    raise AttributeError(f"module 'certify' has no attribute {name!r}")
