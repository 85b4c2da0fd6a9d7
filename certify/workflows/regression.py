"""Certificate regression: re-check a collection of (network, certificate) pairs.

A research repository keeps its certificates next to its networks and re-checks
them in CI, so that a model change that breaks a proof fails loudly.  Pairs come
from

* a manifest file (``.json`` or ``.toml``): ``{"pairs": [{"network": "a.json",
  "certificate": "a.cert.json"}, ...]}``, paths relative to the manifest; or
* a directory: every ``NAME.cert.json`` with its network ``NAME.json`` or
  ``NAME.toml`` beside it (searched recursively).

:func:`verify_pairs` checks them all exactly (:func:`certify.verify`);
``certify verify DIR|MANIFEST`` and the pytest plugin (``pytest --certify-certs
DIR``) are thin layers over it.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import NetworkError

__all__ = ["Pair", "PairResult", "find_pairs", "verify_pair", "verify_pairs"]

CERT_SUFFIX = ".cert.json"


@dataclass(frozen=True)
class Pair:
    """A network file and the certificate that must hold for it."""

    network: Path
    certificate: Path

    @property
    def name(self) -> str:
        return self.certificate.name[: -len(CERT_SUFFIX)] if self.certificate.name.endswith(CERT_SUFFIX) else self.certificate.stem


@dataclass
class PairResult:
    pair: Pair
    ok: bool
    kind: str = ""
    failures: list[str] = field(default_factory=list)

    def message(self) -> str:
        """One paragraph naming the network, the certificate and every violated condition."""
        if self.ok:
            return f"valid: {self.kind} certificate {self.pair.certificate} for network {self.pair.network}"
        lines = [f"INVALID: certificate {self.pair.certificate} for network {self.pair.network}"]
        lines += [f"  - {f}" for f in self.failures]
        return "\n".join(lines)


def _manifest(path: Path) -> list[Pair]:
    try:
        doc = tomllib.loads(path.read_text()) if path.suffix == ".toml" else json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise NetworkError(str(path), None, f"cannot read the manifest: {exc}") from None
    pairs = doc.get("pairs") if isinstance(doc, dict) else None
    if not isinstance(pairs, list) or not pairs:
        raise NetworkError(str(path), "pairs", "must be a non-empty list of {network, certificate}")
    out = []
    for i, p in enumerate(pairs):
        if not isinstance(p, dict) or not isinstance(p.get("network"), str) or not isinstance(p.get("certificate"), str):
            raise NetworkError(str(path), f"pairs[{i}]", 'needs string fields "network" and "certificate"')
        out.append(Pair(path.parent / p["network"], path.parent / p["certificate"]))
    return out


def find_pairs(target: str | Path) -> list[Pair]:
    """The (network, certificate) pairs of a manifest file or a directory.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "mm1.json").write_text("{}"); _ = (d / "mm1.cert.json").write_text("{}")
    >>> [(p.network.name, p.certificate.name) for p in find_pairs(d)]
    [('mm1.json', 'mm1.cert.json')]
    """
    target = Path(target)
    if target.is_file():
        return _manifest(target)
    if not target.is_dir():
        raise NetworkError(str(target), None, "no such directory or manifest file")
    out = []
    for cert in sorted(target.rglob("*" + CERT_SUFFIX)):
        stem = cert.name[: -len(CERT_SUFFIX)]
        nets = [cert.parent / (stem + ext) for ext in (".json", ".toml") if (cert.parent / (stem + ext)).exists()]
        if not nets:
            raise NetworkError(str(cert), None, f"no network file {stem}.json or {stem}.toml beside the certificate")
        out.append(Pair(nets[0], cert))
    if not out:
        raise NetworkError(str(target), None, f"no *{CERT_SUFFIX} certificate files found")
    return out


def verify_pair(pair: Pair) -> PairResult:
    """Load both files and check the certificate exactly; bad files are failures with their message."""
    from ..certificates import load_certificate, verify
    from ..io.loader import load

    try:
        net = load(pair.network)
        cert = load_certificate(pair.certificate)
    except (NetworkError, ValueError) as exc:
        return PairResult(pair, False, failures=[str(exc)])
    res = verify(net, cert)
    return PairResult(pair, res.ok, str(cert.get("kind", "")), list(res.failures))


def verify_pairs(target: str | Path) -> list[PairResult]:
    """Check every pair of a manifest or directory (see the module docstring)."""
    return [verify_pair(p) for p in find_pairs(target)]
