"""certify: prove or refute stability of join-the-shortest-queue networks.

The public API is loaded lazily, so that importing the exact checker
(:mod:`certify.exact`, :mod:`certify.certificate`) never pulls in numpy or a
solver.

>>> import certify
>>> net = certify.loads('{"format": "jsq-network/1", "name": "mm1", '
...     '"stations": {"1": {"mu": 2}}, "streams": [{"choice": ["1"], "rate": 1}]}')
>>> certify.prove(net).verdict
'stable'
"""

from __future__ import annotations

import importlib
from typing import Any

from .sweep import sweep  # eager (stdlib only): binds certify.sweep to the function, not the submodule

__version__ = "0.1.0"

_API = {
    "load": "loader",
    "loads": "loader",
    "from_dict": "loader",
    "to_dict": "loader",
    "dump": "loader",
    "from_graph": "graph",
    "to_graph": "graph",
    "NetworkError": "errors",
    "Network": "model",
    "ForkJoinNetwork": "model",
    "prove": "pipeline",
    "Result": "pipeline",
    "compile_chain": "chain",
    "enumerate_regions": "regions",
    "load_certificate": "certificate",
    "simulate": "simulation",
    "SimulationResult": "simulation",
}

__all__ = [*_API, "verify", "sweep", "__version__"]


def verify(net: Any, cert: Any) -> Any:
    """Re-check a certificate (a dict or a path) against a network exactly; returns a Check."""
    from .certificate import load_certificate
    from .certificate import verify as _verify

    if not isinstance(cert, dict):
        cert = load_certificate(cert)
    return _verify(net, cert)


def __getattr__(name: str) -> Any:
    if name in _API:
        mod = importlib.import_module(f".{_API[name]}", __name__)
        return getattr(mod, name)
    raise AttributeError(f"module 'certify' has no attribute {name!r}")
