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
    if args.sim_budget < 0:
        raise NetworkError(None, "--sim-budget", f"{args.sim_budget} must be >= 0 seconds")
    live = None
    if not args.json and sys.stderr.isatty():  # interactive: show each stage as it finishes

        def live(a) -> None:
            print(f"  ... {a.stage}: {a.outcome} ({a.time_s:.2f}s)", file=sys.stderr, flush=True)

    res = prove(
        net,
        progress=live,
        time_limit=args.time_limit,
        out=args.out,
        templates=args.template,
        solver=args.solver,
        sim_budget=args.sim_budget,
        seed=args.seed,
    )
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

    if args.certificate is None:  # a directory of NAME.json + NAME.cert.json, or a manifest
        from .regression import verify_pairs

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
        for line in res.failures:
            print(f"  - {line}")
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


def _parse_x0(text: str, net) -> list[int]:
    """``--x0 n1,n2,...``: one non-negative integer per station, in the file's order."""
    rule = f"must be {net.J} comma-separated non-negative integers, one per station ({','.join(net.station_ids)})"
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != net.J or not all(p.isdigit() for p in parts):
        raise NetworkError(None, "--x0", f"{text!r} {rule}")
    return [int(p) for p in parts]


def cmd_simulate(args: argparse.Namespace) -> int:
    from .model import ForkJoinNetwork
    from .simulation import check_x0, simulate

    net = _load(args.file)
    if isinstance(net, ForkJoinNetwork):
        raise NetworkError(net.source, "format", "simulation of fork-join-redundancy/1 networks is not supported")
    for opt, val, ok in (("--horizon", args.horizon, args.horizon > 0 and args.horizon < float("inf")),
                         ("--reps", args.reps, args.reps >= 1), ("--seed", args.seed, args.seed >= 0),
                         ("--warmup", args.warmup, 0 <= args.warmup < args.horizon)):
        if not ok:
            rule = {"--horizon": "must be a positive finite number", "--reps": "must be >= 1",
                    "--seed": "must be >= 0", "--warmup": "must be >= 0 and smaller than --horizon"}[opt]
            raise NetworkError(None, opt, f"{val} {rule}")
    x0 = None
    if args.x0 is not None:
        x0 = _parse_x0(args.x0, net)
        try:
            check_x0(net, x0)
        except ValueError as exc:
            raise NetworkError(None, "--x0", str(exc)) from None
    res = simulate(net, args.horizon, replications=args.reps, seed=args.seed, x0=x0, warmup=args.warmup,
                   progress=None if not args.json else False)
    if args.plot:
        _plot(res, args.plot)
    if args.json:
        print(json.dumps(res.to_json()))
    else:
        print(res.table())
        if args.plot:
            print(f"  plot: {args.plot}")
    return 0


def _plot(res, path: str) -> None:
    """Sampled queue lengths: the total of every replication (thin) and the mean per station over replications."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    total = res.samples.sum(axis=2)
    for r in range(total.shape[0]):
        ax1.plot(res.times, total[r], lw=0.6, alpha=0.5)
    ax1.plot(res.times, total.mean(axis=0), color="k", lw=1.5, label="mean over replications")
    g = res.growth_rate()
    ax1.set_ylabel("total queue")
    ax1.set_title(f"{res.network}: growth rate {g.estimate:.3g} per unit time")
    ax1.legend(loc="upper left")
    for j, sid in enumerate(res.station_ids):
        ax2.plot(res.times, res.samples[:, :, j].mean(axis=0), lw=1, label=f"station {sid}")
    ax2.set_xlabel("time")
    ax2.set_ylabel("queue length (mean)")
    ax2.legend(loc="upper left", fontsize="small")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def cmd_sweep(args: argparse.Namespace) -> int:
    from .model import ForkJoinNetwork
    from .sweep import parse_vary, sweep

    net = _load(args.file)
    if isinstance(net, ForkJoinNetwork):
        raise NetworkError(net.source, "format", "sweeps of fork-join-redundancy/1 networks are not supported yet")
    vary = [parse_vary(spec, net) for spec in args.vary]
    for opt, val, ok, rule in (("--time-limit", args.time_limit, args.time_limit > 0, "must be > 0 seconds"),
                               ("--sim-budget", args.sim_budget, args.sim_budget >= 0, "must be >= 0 seconds"),
                               ("--workers", args.workers, args.workers >= 1, "must be >= 1")):
        if not ok:
            raise NetworkError(None, opt, f"{val} {rule}")
    try:
        res = sweep(net, vary, time_limit=args.time_limit, sim_budget=args.sim_budget, seed=args.seed, out=args.out,
                    workers=args.workers, scheduler=args.scheduler)
    except NetworkError as exc:
        raise NetworkError(exc.file, "--vary", exc.rule) if exc.path == "vary" else exc from None
    except KeyboardInterrupt:
        print(f"certify: interrupted; every finished point is stored in {args.out}: run the same command again to resume",
              file=sys.stderr)
        return 130
    print(f"sweep {res.key}: {res.network}, {len(res.points)} points over {' x '.join(res.paths)}")
    for note in res.notes:
        print(f"  note: {note}")
    print(f"  computed {res.computed}, reused {res.reused} from {args.out}")
    print("  " + ", ".join(f"{v} {n}" for v, n in sorted(res.counts().items())))
    if args.csv:
        res.to_csv(args.csv)
        print(f"  csv: {args.csv}")
    if args.plot:
        res.plot(args.plot)
        print(f"  plot: {args.plot}")
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
    pr.add_argument(
        "--sim-budget",
        type=float,
        default=60.0,
        metavar="S",
        help="seconds of simulation checks when every search fails (default 60; 0: none)",
    )
    pr.add_argument("--seed", type=int, default=0, help="seed of the simulation checks (default 0)")
    pr.set_defaults(func=cmd_prove)

    ve = sub.add_parser(
        "verify",
        help="re-check a certificate exactly (exit 0 valid, 1 invalid); or every NAME.cert.json of a directory/manifest",
    )
    ve.add_argument("network", help="the network file, or a directory / manifest of (network, certificate) pairs")
    ve.add_argument("certificate", nargs="?", help="the certificate file (omit for a directory or manifest)")
    ve.add_argument("--json", action="store_true")
    ve.set_defaults(func=cmd_verify)

    re_ = sub.add_parser("regions", help="count (and list) the JSQ regions of a network")
    re_.add_argument("file")
    re_.add_argument("--list", action="store_true")
    re_.add_argument("--json", action="store_true")
    re_.set_defaults(func=cmd_regions)

    si = sub.add_parser("simulate", help="simulate a network (independent replications; evidence, not proof)")
    si.add_argument("file")
    si.add_argument("--horizon", type=float, required=True, metavar="T", help="simulated time per replication")
    si.add_argument("--reps", type=int, default=10, metavar="R", help="replications (default 10)")
    si.add_argument("--seed", type=int, default=0, metavar="S", help="seed (default 0)")
    si.add_argument("--x0", metavar="n1,n2,...", help="initial queue lengths, one per station (default empty)")
    si.add_argument("--warmup", type=float, default=0.0, metavar="W",
                    help="time averages, throughputs and losses count [W, T] only (default 0)")
    si.add_argument("--plot", metavar="PNG", help="draw the sampled queue lengths (matplotlib)")
    si.add_argument("--json", action="store_true", help="print one JSON object (last line of stdout)")
    si.set_defaults(func=cmd_simulate)

    sw = sub.add_parser("sweep", help="prove at every point of a grid of one or two parameters (resumable; atlas plots)")
    sw.add_argument("file")
    sw.add_argument("--vary", action="append", required=True, metavar="PATH=START:STOP:N",
                    help="a parameter by its field path as in error messages (streams[0].rate, stations.3.mu, "
                         "tie_breaking[0].probs.1) and N exact values from START to STOP; give one or two")
    sw.add_argument("--out", default="results.sqlite", metavar="DB",
                    help="SQLite results file, written point by point; the same command resumes (default results.sqlite)")
    sw.add_argument("--time-limit", type=float, default=10.0, metavar="S", help="seconds of search per point (default 10)")
    sw.add_argument("--sim-budget", type=float, default=0.0, metavar="S",
                    help="seconds of simulation checks per undecided point (default 0: none)")
    sw.add_argument("--seed", type=int, default=0, help="point i gets the seed SEED + i (default 0)")
    sw.add_argument("--workers", type=int, default=2, metavar="W", help="local worker processes (default 2; 1: in this process)")
    sw.add_argument("--scheduler", metavar="ADDRESS", help="run on an existing Dask distributed cluster instead")
    sw.add_argument("--csv", metavar="CSV", help="also write the results as CSV")
    sw.add_argument("--plot", metavar="PNG", help="draw the atlas: verdict strip (1-D) or map (2-D)")
    sw.set_defaults(func=cmd_sweep)

    st = sub.add_parser("stationary", help="exact stationary analysis (sparse CTMC solve; truncated without capacities)")
    st.add_argument("file")
    st.add_argument("--truncate", type=int, metavar="N", help="customers kept per station without a capacity (default: by J)")
    st.add_argument("--json", action="store_true", help="print one JSON object (last line of stdout)")
    st.set_defaults(func=cmd_stationary)
    return p


def cmd_stationary(args: argparse.Namespace) -> int:
    from .stationary import stationary

    if args.truncate is not None and args.truncate < 1:
        raise NetworkError(None, "--truncate", f"{args.truncate} must be >= 1")
    res = stationary(_load(args.file), truncate=args.truncate)
    print(json.dumps(res.to_json()) if args.json else res.table())
    return 0


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
    except BrokenPipeError:  # e.g. `certify prove ... | head`: the reader left, nothing more to say
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
