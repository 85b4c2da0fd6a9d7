"""The ``certify`` command line.

Bad input (an invalid network or certificate file, an option out of range, an
output path that cannot be written) prints one line naming the thing, the value
and the rule, and exits with status 2, without a traceback.  Options are checked
by argparse (``type=`` functions below) and output paths before any work starts.

Exit status: 0 done; 1 ``verify``: invalid certificate, ``prove --expect``: a
different verdict; 2 bad input; 3 ``prove --out``: the verdict has no
certificate, nothing was written; 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .core.errors import CertifyError, NetworkError, NetworkNotSupported
from .core.version import __version__

if TYPE_CHECKING:
    from .core.model import ForkJoinNetwork, Network
    from .proof.pipeline import Attempt
    from .simulation.simulate import SimulationResult

__all__ = ["main", "EXIT_NO_CERTIFICATE"]

EXIT_NO_CERTIFICATE = 3  # prove --out: the verdict has no certificate (nothing written)
FORK_JOIN_ONLY = "fork-join-redundancy/1 networks are supported by `certify prove` and `certify verify` only"


# ------------------------------------------------------------------------ option types
def _number(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    return x


def positive_finite(what: str = "number") -> Callable[[str], float]:
    """An argparse type: a positive finite number (``what`` names the unit in the message)."""

    def parse(text: str) -> float:
        x = _number(text)
        if not (math.isfinite(x) and x > 0):
            raise argparse.ArgumentTypeError(f"{text!r} must be a positive finite {what}")
        return x

    parse.__name__ = "positive finite " + what
    return parse


def nonnegative_finite(what: str = "number") -> Callable[[str], float]:
    """An argparse type: a finite number >= 0."""

    def parse(text: str) -> float:
        x = _number(text)
        if not (math.isfinite(x) and x >= 0):
            raise argparse.ArgumentTypeError(f"{text!r} must be a finite {what} >= 0")
        return x

    parse.__name__ = "non-negative finite " + what
    return parse


def int_at_least(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in [low, high]."""

    def parse(text: str) -> int:
        try:
            n = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if n < low or (high is not None and n > high):
            rule = f">= {low}" if high is None else f"between {low} and {high}"
            raise argparse.ArgumentTypeError(f"{text!r} must be an integer {rule}")
        return n

    parse.__name__ = "integer"
    return parse


def solver_name(text: str) -> str:
    """An argparse type: one of the installed solvers, as cvxpy spells it (case-insensitive)."""
    from .search.solvers import SolverNotInstalled, check_solver

    try:
        return check_solver(text)
    except SolverNotInstalled as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


MAX_SEED = 2**63 - 1
MAX_REPS = 1_000_000
MAX_WORKERS = 1024
MAX_TRUNCATE = 10_000


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``certify prove: argument --time-limit: '0' must be ...``."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


# ------------------------------------------------------------------------ output paths
_SQLITE_MAGIC = b"SQLite format 3\x00"


def check_output(option: str, path: str, kind: str = "file") -> None:
    """Refuse (NetworkError naming ``option``) an output path that cannot be written, before any work.

    ``kind``: ``file`` (any file), ``sqlite`` (an existing file must be a SQLite
    database), ``image`` (the extension must be a format matplotlib writes).
    """
    import tempfile

    def fail(rule: str) -> NetworkError:
        return NetworkError(None, option, f"{path!r} {rule}")

    if not path or not path.strip():
        raise fail("is empty: give a file name")
    if os.path.isdir(path):
        raise fail("is a directory: give a file name")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.exists(parent):
        raise fail(f"cannot be written: the directory {os.path.dirname(path) or parent!r} does not exist")
    if not os.path.isdir(parent):
        raise fail(f"cannot be written: {os.path.dirname(path)!r} is not a directory")
    if os.path.exists(path):
        if not os.path.isfile(path):
            raise fail("is not a regular file")
        try:
            with open(path, "ab"):
                pass
        except OSError as exc:
            raise fail(f"cannot be written ({exc.strerror or exc})") from None
        if kind == "sqlite" and os.path.getsize(path) > 0:
            with open(path, "rb") as fh:
                if fh.read(16) != _SQLITE_MAGIC:
                    raise fail("exists and is not a SQLite results file (give a new name, or the file of an earlier sweep)")
    else:
        try:
            with tempfile.NamedTemporaryFile(dir=parent, prefix=".certify-", delete=True):
                pass
        except OSError as exc:
            raise fail(f"cannot be written: cannot create files in {parent!r} ({exc.strerror or exc})") from None
    if kind == "image":
        ext = os.path.splitext(path)[1].lstrip(".").lower()
        if ext:
            import matplotlib

            matplotlib.use("Agg")
            from matplotlib.backend_bases import FigureCanvasBase

            known = FigureCanvasBase.get_supported_filetypes()
            if ext not in known:
                raise fail(f"has the extension .{ext}, not an image format matplotlib writes ({', '.join(sorted(known))})")


def _refuse_fork_join(net: Network | ForkJoinNetwork, command: str) -> Network:
    from .core.model import ForkJoinNetwork

    if isinstance(net, ForkJoinNetwork):
        raise NetworkNotSupported(net.source, "format", f"{FORK_JOIN_ONLY}, not by `certify {command}`")
    return net


def json_value(v: Any) -> Any:
    """``v`` as plain JSON: Fractions as ``"p/q"`` strings, tuples and sets as lists, keys as strings."""
    if isinstance(v, bool) or v is None or isinstance(v, (str, int)):
        return v
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    if isinstance(v, float):
        return v if math.isfinite(v) else str(v)
    if isinstance(v, dict):
        return {k if isinstance(k, str) else str(json_value(k)): json_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [json_value(x) for x in v]
    if isinstance(v, (set, frozenset)):
        return sorted((json_value(x) for x in v), key=str)
    try:  # numpy scalars
        import numbers

        if isinstance(v, numbers.Integral):
            return int(v)
        if isinstance(v, numbers.Real):
            return json_value(float(v))
    except (TypeError, ValueError):  # pragma: no cover
        pass
    return str(v)


def _load(path: str) -> Network | ForkJoinNetwork:
    from .io.loader import load

    return load(path)


def cmd_prove(args: argparse.Namespace) -> int:
    from .proof.pipeline import VERDICTS, prove
    from .search.solvers import collect, notes_reason
    from .templates import TEMPLATES

    if args.template:
        unknown = [t for t in args.template if t not in TEMPLATES]
        if unknown:
            raise NetworkError(None, "--template", f"unknown template {unknown[0]!r} (known: {', '.join(TEMPLATES)})")
    if args.out is not None:
        check_output("--out", args.out)
    net = _load(args.file)
    live = None
    if not args.json and sys.stderr.isatty():  # interactive: show each stage as it finishes

        def live(a: Attempt) -> None:
            print(f"  ... {a.stage}: {a.outcome} ({a.time_s:.2f}s)", file=sys.stderr, flush=True)

    existed = args.out is not None and os.path.exists(args.out)
    with collect() as notes:
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
    from .certificates import load_certificate, verify

    if args.certificate is None:  # a directory of NAME.json + NAME.cert.json, or a manifest
        from .workflows.regression import verify_pairs

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


def cmd_regions(args: argparse.Namespace) -> int:
    from .markov.chain import compile_chain
    from .markov.drift import compile_drifts

    net = _load(args.file)
    net = _refuse_fork_join(net, "regions")
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


def _parse_x0(text: str, net: Network) -> list[int]:
    """``--x0 n1,n2,...``: one non-negative integer per station, in the file's order."""
    rule = f"must be {net.J} comma-separated non-negative integers, one per station ({','.join(net.station_ids)})"
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != net.J or not all(p.isdigit() for p in parts):
        raise NetworkError(None, "--x0", f"{text!r} {rule}")
    return [int(p) for p in parts]


def cmd_simulate(args: argparse.Namespace) -> int:
    from .simulation.simulate import check_x0, simulate

    if not args.warmup < args.horizon:
        raise NetworkError(None, "--warmup", f"{args.warmup:g} must be smaller than --horizon ({args.horizon:g})")
    if args.plot:
        check_output("--plot", args.plot, "image")
    net = _load(args.file)
    net = _refuse_fork_join(net, "simulate")
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


def _plot(res: SimulationResult, path: str) -> None:
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
    from .workflows.sweep import parse_vary, sweep

    check_output("--out", args.out, "sqlite")
    if args.csv:
        check_output("--csv", args.csv)
    if args.plot:
        check_output("--plot", args.plot, "image")
    for opt, other in (("--csv", args.csv), ("--plot", args.plot)):
        if other and os.path.abspath(other) == os.path.abspath(args.out):
            raise NetworkError(None, opt, f"{other!r} is the results file (--out): give another name")
    net = _load(args.file)
    net = _refuse_fork_join(net, "sweep")
    vary = [parse_vary(spec, net) for spec in args.vary]
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
    p = _Parser(
        prog="certify",
        description="Prove or refute stability of join-the-shortest-queue networks with exact certificates.",
        epilog="Exit status: 0 done; 1 verify: invalid certificate, prove --expect: another verdict; 2 bad input "
               "(one line naming the file or option, the value and the rule); 3 prove --out: the verdict has no "
               "certificate (nothing written); 130 interrupted.",
    )
    p.add_argument("--version", action="version", version=f"certify {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    pr = sub.add_parser(
        "prove",
        help="decide stability of a network file",
        epilog="Exit status: 0 (whatever the verdict); 1 with --expect when the verdict differs; 2 bad input; "
               f"{EXIT_NO_CERTIFICATE} with --out when the verdict has no certificate (nothing is written then).",
    )
    pr.add_argument("file")
    pr.add_argument("--json", action="store_true", help="print one JSON object (last line of stdout)")
    pr.add_argument("--out", metavar="CERT",
                    help=f"write the certificate here (checked writable first; exit {EXIT_NO_CERTIFICATE} when the verdict "
                         "has none)")
    pr.add_argument("--expect", choices=["stable", "unstable"], help="exit 1 when the verdict differs")
    pr.add_argument("--time-limit", type=positive_finite("number of seconds"), default=120.0, metavar="S",
                    help="seconds (default 120)")
    pr.add_argument(
        "--template",
        action="append",
        metavar="NAME",
        help="Foster template to try (repeat for several; default: all, cheapest first: " + ", ".join(_template_names()) + ")",
    )
    pr.add_argument("--solver", type=solver_name, metavar="NAME",
                    help="an installed cvxpy solver (default: Clarabel, else HiGHS, else SCS)")
    pr.add_argument(
        "--sim-budget",
        type=nonnegative_finite("number of seconds"),
        default=60.0,
        metavar="S",
        help="seconds of simulation checks when every search fails (default 60; 0: none)",
    )
    pr.add_argument("--seed", type=int_at_least(0, MAX_SEED), default=0, help="seed of the simulation checks (default 0)")
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
    si.add_argument("--horizon", type=positive_finite(), required=True, metavar="T", help="simulated time per replication")
    si.add_argument("--reps", type=int_at_least(1, MAX_REPS), default=10, metavar="R", help="replications (default 10)")
    si.add_argument("--seed", type=int_at_least(0, MAX_SEED), default=0, metavar="S", help="seed (default 0)")
    si.add_argument("--x0", metavar="n1,n2,...", help="initial queue lengths, one per station (default empty)")
    si.add_argument("--warmup", type=nonnegative_finite(), default=0.0, metavar="W",
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
    sw.add_argument("--time-limit", type=positive_finite("number of seconds"), default=10.0, metavar="S",
                    help="seconds of search per point (default 10)")
    sw.add_argument("--sim-budget", type=nonnegative_finite("number of seconds"), default=0.0, metavar="S",
                    help="seconds of simulation checks per undecided point (default 0: none)")
    sw.add_argument("--seed", type=int_at_least(0, MAX_SEED), default=0, help="point i gets the seed SEED + i (default 0)")
    sw.add_argument("--workers", type=int_at_least(1, MAX_WORKERS), default=2, metavar="W",
                    help="local worker processes (default 2; 1: in this process)")
    sw.add_argument("--scheduler", metavar="ADDRESS", help="run on an existing Dask distributed cluster instead")
    sw.add_argument("--csv", metavar="CSV", help="also write the results as CSV")
    sw.add_argument("--plot", metavar="PNG", help="draw the atlas: verdict strip (1-D) or map (2-D)")
    sw.set_defaults(func=cmd_sweep)

    st = sub.add_parser("stationary", help="exact stationary analysis (sparse CTMC solve; truncated without capacities)")
    st.add_argument("file")
    st.add_argument("--truncate", type=int_at_least(1, MAX_TRUNCATE), metavar="N",
                    help="customers kept per station without a capacity (default: by J)")
    st.add_argument("--json", action="store_true", help="print one JSON object (last line of stdout)")
    st.set_defaults(func=cmd_stationary)
    return p


def cmd_stationary(args: argparse.Namespace) -> int:
    from .stationary.analysis import stationary

    net = _load(args.file)
    net = _refuse_fork_join(net, "stationary")
    res = stationary(net, truncate=args.truncate)
    print(json.dumps(res.to_json()) if args.json else res.table())
    return 0


def _template_names() -> list[str]:
    from .templates import TEMPLATES

    return list(TEMPLATES)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except CertifyError as exc:  # the one place refusals become output: NetworkError, CertificateError, NotSupported, SolverError
        print(f"certify: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `certify prove ... | head`: the reader left, nothing more to say
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # e.g. an output file that became unwritable while the work ran
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"certify: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("certify: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
