"""``certify explain``: a readable proof of a certificate, as Markdown, LaTeX or HTML.

Public: :func:`cmd_explain`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .inputs import load_network
from .options import check_output

__all__ = ["cmd_explain", "EXPLAIN_FORMATS"]

#: The formats of ``--format``.
EXPLAIN_FORMATS = ("markdown", "latex", "html")


def cmd_explain(args: argparse.Namespace) -> int:
    """``certify explain NETWORK CERT``: verify the certificate, then write its proof.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``explain``: ``network``, ``certificate``,
        ``format`` (markdown, latex, html), ``standalone``, ``max_rows`` and ``out``.

    Returns
    -------
    int
        0 when the proof was written, 1 when the certificate does not verify
        (its failures are listed on stderr; no proof is written).

    Raises
    ------
    CertifyError
        A network or certificate file that cannot be read, or an output path
        that cannot be written (:func:`certify.cli.main` prints it in one line, exit 2).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import certify
    >>> from certify.cli.parser import build_parser
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> net = certify.loads('{"format": "jsq-network/1", "name": "mm1", "stations": {"1": {"mu": 2}}, '
    ...                     '"streams": [{"choice": ["1"], "rate": 1}]}')
    >>> certify.dump(net, d / "mm1.json")
    >>> _ = certify.prove(net, out=d / "mm1.cert.json")
    >>> args = build_parser().parse_args(["explain", str(d / "mm1.json"), str(d / "mm1.cert.json"),
    ...                                   "--format", "latex", "--out", str(d / "proof.tex")])
    >>> cmd_explain(args)  # doctest: +ELLIPSIS
    wrote latex proof of mm1 to ...proof.tex
    0
    >>> (d / "proof.tex").read_text().splitlines()[2]
    '\\\\section{mm1 is stable (positive Harris recurrent): a fluid Lyapunov certificate (max-flow bound)}'
    """
    from ..certificates import load_certificate, verify
    from ..explain import explain

    if args.out is not None:
        check_output("--out", args.out)
    net = load_network(args.network)
    cert = load_certificate(args.certificate)
    res = verify(net, cert)
    if not res.ok:
        print(f"certify explain: {args.certificate} does not verify for {args.network}, so there is no proof to explain:",
              file=sys.stderr)
        for line in res.failures:
            print(f"  - {line}", file=sys.stderr)
        return 1
    proof = explain(net, cert, network_file=args.network, certificate_file=args.certificate, max_rows=args.max_rows,
                    verification=res)
    text = proof.render(args.format, standalone=args.standalone)
    if args.out is None:
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text)
        print(f"wrote {args.format} proof of {net.name} to {args.out}")
    return 0
