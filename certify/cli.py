"""The ``certify`` command line.

Bad input (an invalid network or certificate file) prints one line naming the
file, the field and the rule, and exits with status 2, without a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from . import __version__
from .errors import NetworkError

__all__ = ["main"]


def _load(path: str):
    from .loader import load

    return load(path)


def cmd_prove(args: argparse.Namespace) -> int:
    from .pipeline import VERDICTS, prove
    from .templates import TEMPLATES

    net = _load(args.file)
    if args.template:
        unknown = [t for t in args.template if t not in TEMPLATES]
        if unknown:
            raise NetworkError(None, "--template", f"unknown template {unknown[0]!r} (known: {', '.join(TEMPLATES)})")
    res = prove(net, time_limit=args.time_limit, out=args.out, templates=args.template, solver=args.solver)
    assert res.verdict in VERDICTS
    if args.json:
        print(json.dumps(res.to_json()))
    else:
        print(res.table())
    if args.expect and res.verdict != args.expect:
        print(f"expected {args.expect}, got {res.verdict}", file=sys.stderr)
        return 1
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from .certificate import load_certificate, verify

    net = _load(args.network)
    try:
        cert = load_certificate(args.certificate)
    except ValueError as exc:
        print(f"certify: {exc}", file=sys.stderr)
        return 2
    res = verify(net, cert)
    if args.json:
        facts = {k: str(v) for k, v in res.facts.items()}
        print(json.dumps({"valid": res.ok, "reasons": res.failures, "facts": facts}))
    elif res.ok:
        print(f"valid: {cert.get('kind')} certificate for {net.name} ({args.certificate})")
        print(f"  {cert.get('statement', '')}")
    else:
        print(f"INVALID: {args.certificate} for {args.network}")
        for r in res.failures:
            print(f"  - {r}")
    return 0 if res.ok else 1


def cmd_regions(args: argparse.Namespace) -> int:
    from .chain import compile_chain
    from .drift import compile_drifts
    from .model import ForkJoinNetwork

    net = _load(args.file)
    if isinstance(net, ForkJoinNetwork):
        raise NetworkError(net.source, "format", "regions of fork-join-redundancy/1 networks are not supported yet")
    chain = compile_chain(net)
    drifts = compile_drifts(chain)
    unbounded = sum(1 for d in drifts if d.generators)
    if args.json:
        out: dict[str, object] = {"regions": len(drifts), "unbounded": unbounded, "routing_sets": len(chain.routing_sets)}
        if args.list:
            out["list"] = [d.region.describe(chain.ids) for d in drifts]
        print(json.dumps(out))
        return 0
    print(f"{net.name}: {len(drifts)} regions ({unbounded} unbounded), {chain.J} stations, "
          f"{len(chain.routing_sets)} choice sets with ties")
    if args.list:
        for k, d in enumerate(drifts):
            mean = ", ".join(f"{m / chain.scale:.4g}" for m in d.mean)
            print(f"  [{k}] {d.region.describe(chain.ids)}   drift ({mean})")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="certify",
        description="Prove or refute stability of join-the-shortest-queue networks with exact certificates.",
    )
    p.add_argument("--version", action="version", version=f"certify {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    pr = sub.add_parser("prove", help="decide stability of a network file")
    pr.add_argument("file")
    pr.add_argument("--json", action="store_true", help="print one JSON object (last line of stdout)")
    pr.add_argument("--out", metavar="CERT", help="write the certificate here")
    pr.add_argument("--expect", choices=["stable", "unstable"], help="exit 1 when the verdict differs")
    pr.add_argument("--time-limit", type=float, default=120.0, metavar="S", help="seconds (default 120)")
    pr.add_argument(
        "--template",
        action="append",
        metavar="NAME",
        help="Foster template to try (repeat for several; default: all, cheapest first: " + ", ".join(_template_names()) + ")",
    )
    pr.add_argument("--solver", help="cvxpy solver name (default CLARABEL)")
    pr.set_defaults(func=cmd_prove)

    ve = sub.add_parser("verify", help="re-check a certificate exactly (exit 0 valid, 1 invalid)")
    ve.add_argument("network")
    ve.add_argument("certificate")
    ve.add_argument("--json", action="store_true")
    ve.set_defaults(func=cmd_verify)

    re_ = sub.add_parser("regions", help="count (and list) the JSQ regions of a network")
    re_.add_argument("file")
    re_.add_argument("--list", action="store_true")
    re_.add_argument("--json", action="store_true")
    re_.set_defaults(func=cmd_regions)
    return p


def _template_names() -> list[str]:
    from .templates import TEMPLATES

    return list(TEMPLATES)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except NetworkError as exc:
        print(f"certify: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("certify: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
