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

__all__ = ["CERT_SUFFIX", "Pair", "PairResult", "find_pairs", "verify_pair", "verify_pairs"]

CERT_SUFFIX = ".cert.json"
"""How a certificate file's name ends: ``NAME.cert.json`` certifies ``NAME.json`` (or ``NAME.toml``)."""


@dataclass(frozen=True)
class Pair:
    """A network file and the certificate that must hold for it.

    Parameters
    ----------
    network : Path
        The network file.
    certificate : Path
        The certificate file.

    Examples
    --------
    >>> from pathlib import Path
    >>> Pair(Path("models/mm1.json"), Path("models/mm1.cert.json")).name
    'mm1'
    """

    network: Path
    certificate: Path

    @property
    def name(self) -> str:
        """The pair's name: the certificate's file name without ``.cert.json`` (or its stem)."""
        return self.certificate.name[: -len(CERT_SUFFIX)] if self.certificate.name.endswith(CERT_SUFFIX) else self.certificate.stem


@dataclass
class PairResult:
    """The outcome of re-checking one pair.

    Parameters
    ----------
    pair : Pair
        The pair.
    ok : bool
        Whether the certificate holds for the network.
    kind : str
        The certificate's kind (empty when a file could not be read).
    failures : list of str
        Every violated condition, or why a file could not be read.

    Examples
    --------
    >>> from pathlib import Path
    >>> r = PairResult(Pair(Path("a.json"), Path("a.cert.json")), False, failures=["region 3: drift 1/2 > -delta"])
    >>> print(r.message())
    INVALID: certificate a.cert.json for network a.json
      - region 3: drift 1/2 > -delta
    """

    pair: Pair
    ok: bool
    kind: str = ""
    failures: list[str] = field(default_factory=list)

    def message(self) -> str:
        """One paragraph naming the network, the certificate and every violated condition.

        Returns
        -------
        str
            ``valid: ...`` in one line, or ``INVALID: ...`` and one ``  - `` line per failure.

        Examples
        --------
        >>> from pathlib import Path
        >>> PairResult(Pair(Path("a.json"), Path("a.cert.json")), True, "foster").message()
        'valid: foster certificate a.cert.json for network a.json'
        """
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

    Parameters
    ----------
    target : str or Path
        A manifest (``.json`` or ``.toml`` with a ``pairs`` list, paths
        relative to it) or a directory searched recursively for
        ``NAME.cert.json`` files with ``NAME.json`` or ``NAME.toml`` beside them.

    Returns
    -------
    list of Pair
        The pairs (a directory's in sorted order).

    Raises
    ------
    NetworkError
        No such file or directory, an unreadable or malformed manifest, a
        certificate without its network file, or no certificate at all.

    Examples
    --------
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
    """Load both files of a pair and check the certificate exactly; bad files are failures with their message.

    Parameters
    ----------
    pair : Pair
        The pair.

    Returns
    -------
    PairResult
        Never raises for a bad file: its message is the failure.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import certify
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> net = certify.loads('{"format": "jsq-network/1", "name": "mm1", "stations": {"1": {"mu": 2}}, '
    ...                     '"streams": [{"choice": ["1"], "rate": 1}]}')
    >>> certify.dump(net, d / "mm1.json")
    >>> certify.prove(net, out=d / "mm1.cert.json").verdict
    'stable'
    >>> r = verify_pair(Pair(d / "mm1.json", d / "mm1.cert.json"))
    >>> r.ok, r.kind
    (True, 'fluid-flow')
    >>> _ = (d / "mm1.json").write_text("{broken")
    >>> verify_pair(Pair(d / "mm1.json", d / "mm1.cert.json")).ok
    False
    """
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
    """Check every pair of a manifest or directory (see the module docstring).

    Parameters
    ----------
    target : str or Path
        A manifest file or a directory (:func:`find_pairs`).

    Returns
    -------
    list of PairResult
        One per pair, in the order of :func:`find_pairs`.

    Raises
    ------
    NetworkError
        From :func:`find_pairs`: no pairs can be found.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import certify
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> net = certify.loads('{"format": "jsq-network/1", "name": "mm1", "stations": {"1": {"mu": 2}}, '
    ...                     '"streams": [{"choice": ["1"], "rate": 1}]}')
    >>> certify.dump(net, d / "mm1.json")
    >>> _ = certify.prove(net, out=d / "mm1.cert.json")
    >>> [(r.pair.name, r.ok) for r in verify_pairs(d)]
    [('mm1', True)]
    """
    return [verify_pair(p) for p in find_pairs(target)]
