"""``certify prove`` and ``certify verify``: decide a network's stability, and re-check a certificate exactly.

Public: :func:`cmd_prove`, :func:`cmd_verify`, :data:`EXIT_NO_CERTIFICATE`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING

from ..core.errors import OptionError
from .inputs import load_network
from .options import check_output, prove_options
from .plain_json import json_value

if TYPE_CHECKING:
    from ..proof.result import Attempt

__all__ = ["EXIT_NO_CERTIFICATE", "cmd_prove", "cmd_verify"]

EXIT_NO_CERTIFICATE = 3
"""``prove --out``: the verdict has no certificate (nothing written)."""


def cmd_prove(args: argparse.Namespace) -> int:
    """``certify prove FILE``: run :func:`certify.prove` and print its report (or ``--json``).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``prove`` (:func:`certify.cli.parser.build_parser`).

    Returns
    -------
    int
        0 whatever the verdict; 1 with ``--expect`` when the verdict differs;
        :data:`EXIT_NO_CERTIFICATE` with ``--out`` when the verdict has no
        certificate (nothing is written then).

    Raises
    ------
    CertifyError
        An unknown ``--template``, an ``--out`` path that cannot be written, a
        bad network file (:func:`certify.cli.main` prints it in one line, exit 2).

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from certify.cli.parser import build_parser
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "mm1.json").write_text('{"format": "jsq-network/1", "name": "mm1", "stations": {"1": {"mu": 2}}, '
    ...                                 '"streams": [{"choice": ["1"], "rate": 1}]}')
    >>> args = build_parser().parse_args(["prove", str(d / "mm1.json"), "--json", "--out", str(d / "mm1.cert.json")])
    >>> cmd_prove(args)  # doctest: +ELLIPSIS
    {"network": "mm1", "verdict": "stable", ...}
    0
    >>> (d / "mm1.cert.json").exists()
    True
    """
    from ..proof.pipeline import VERDICTS, prove
    from ..search.solvers import collect, notes_reason
    from ..templates import TEMPLATES

    if args.template:
        unknown = [t for t in args.template if t not in TEMPLATES]
        if unknown:
            raise OptionError("--template", f"unknown template {unknown[0]!r} (known: {', '.join(TEMPLATES)})")
    if args.out is not None:
        check_output("--out", args.out)
    options = prove_options(args)
    net = load_network(args.file)
    live = None
    if not args.json and sys.stderr.isatty():  # interactive: show each stage as it finishes

        def live(a: Attempt) -> None:
            print(f"  ... {a.stage}: {a.outcome} ({a.time_s:.2f}s)", file=sys.stderr, flush=True)

    existed = args.out is not None and os.path.exists(args.out)
    with collect() as notes:
        res = prove(net, options, out=args.out, progress=live)
    said = notes_reason(notes)
    if said and said not in res.reasons:
        res.reasons.append(said)
    assert res.verdict in VERDICTS
    if args.json:
        print(json.dumps(res.to_json()))
    else:
        print(res.table())
        if res.certificate_path:
            print(f"re-check with: certify verify {args.file} {res.certificate_path}")
    code = 0
    if args.out is not None and not res.certificate_path:
        left = f"; the existing file {args.out} was left as it was" if existed else ""
        print(f"certify: --out {args.out}: no certificate written: the verdict {res.verdict} ({res.method}) has no "
              f"certificate{left} (exit {EXIT_NO_CERTIFICATE})", file=sys.stderr)
        code = EXIT_NO_CERTIFICATE
    if args.expect and res.verdict != args.expect:
        print(f"expected {args.expect}, got {res.verdict}", file=sys.stderr)
        return 1
    return code


def cmd_verify(args: argparse.Namespace) -> int:
    """``certify verify NETWORK CERTIFICATE``: re-check a certificate exactly; or every pair of a directory or manifest.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``verify``: ``network`` (a network file, or a
        directory / manifest of pairs when ``certificate`` is None),
        ``certificate`` and ``json``.

    Returns
    -------
    int
        0 when every certificate is valid, 1 otherwise.

    Raises
    ------
    CertifyError
        A network or certificate file that cannot be read, or is malformed
        (:func:`certify.cli.main` prints it in one line, exit 2).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import certify
    >>> from certify.cli.parser import build_parser
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> net = certify.loads('{"format": "jsq-network/1", "name": "mm1", "stations": {"1": {"mu": 2}}, '
    ...                     '"streams": [{"choice": ["1"], "rate": 1}]}')
    >>> certify.dump(net, d / "mm1.json")
    >>> certify.prove(net, out=d / "mm1.cert.json").verdict
    'stable'
    >>> cmd_verify(build_parser().parse_args(["verify", str(d / "mm1.json"), str(d / "mm1.cert.json")]))  # doctest: +ELLIPSIS
    valid: fluid-flow certificate for mm1 (...mm1.cert.json)
      Along every fluid path, ...
    0
    >>> cmd_verify(build_parser().parse_args(["verify", str(d)]))  # doctest: +ELLIPSIS
    valid: fluid-flow certificate ...mm1.cert.json for network ...mm1.json
    1 valid, 0 invalid
    0
    """
    from ..certificates import load_certificate, verify

    if args.certificate is None:  # a directory of NAME.json + NAME.cert.json, or a manifest
        from ..workflows.regression import verify_pairs

        results = verify_pairs(args.network)
        if args.json:
            print(json.dumps({"valid": all(r.ok for r in results),
                              "pairs": [{"network": str(r.pair.network), "certificate": str(r.pair.certificate),
                                         "valid": r.ok, "reasons": r.failures} for r in results]}))
        else:
            for r in results:
                print(r.message())
            bad = sum(not r.ok for r in results)
            print(f"{len(results) - bad} valid, {bad} invalid")
        return 0 if all(r.ok for r in results) else 1
    net = load_network(args.network)
    cert = load_certificate(args.certificate)  # a CertificateError: one line, exit 2 (main)
    res = verify(net, cert)
    if args.json:
        print(json.dumps({"valid": res.ok, "reasons": json_value(res.failures), "facts": json_value(res.facts)}))
    elif res.ok:
        print(f"valid: {cert.get('kind')} certificate for {net.name} ({args.certificate})")
        print(f"  {cert.get('statement', '')}")
    else:
        print(f"INVALID: {args.certificate} for {args.network}")
        for line in res.failures:
            print(f"  - {line}")
    return 0 if res.ok else 1
