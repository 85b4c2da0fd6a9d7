"""The ``certify`` argument parser: every command, its options and their checks.

Option values are checked here by argparse (``type=`` functions of
:mod:`certify.cli.options`); a bad one is reported in one line, ``certify
COMMAND: argument --OPTION: ... (see certify COMMAND --help)``, exit status 2.

Public: :func:`build_parser`.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from ..core.version import __version__
from ..proof.options import THEOREM_SHARE
from ..workflows.crossings import DEFAULT_GRID, MAX_GRID
from .boundary_command import cmd_boundary
from .explain_command import EXPLAIN_FORMATS, cmd_explain
from .model_commands import cmd_regions, cmd_stationary
from .options import (
    MAX_REPS,
    MAX_SEED,
    MAX_TRUNCATE,
    MAX_WORKERS,
    int_at_least,
    nonnegative_finite,
    positive_finite,
    solver_name,
    unit_share,
)
from .prove_commands import EXIT_NO_CERTIFICATE, cmd_prove, cmd_verify
from .simulate_command import cmd_simulate
from .sweep_command import cmd_sweep

__all__ = ["build_parser"]


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``certify prove: argument --time-limit: '0' must be ...``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _template_names() -> list[str]:
    from ..templates import TEMPLATES

    return list(TEMPLATES)


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``certify`` command line: one subcommand per command, each with its ``func``.

    Returns
    -------
    argparse.ArgumentParser
        Parsing gives a namespace whose ``func`` runs the command
        (``args.func(args)`` returns the exit status).  A bad option value
        makes it print one line naming the option, the value and the rule and
        exit with status 2 (:class:`SystemExit`).

    Examples
    --------
    >>> args = build_parser().parse_args(["prove", "models/symmetric-jsq-J4.json", "--time-limit", "5"])
    >>> args.command, args.time_limit, args.sim_budget, args.func.__name__
    ('prove', 5.0, 60.0, 'cmd_prove')
    >>> import contextlib, io
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     try:
    ...         build_parser().parse_args(["sweep", "net.json", "--vary", "streams[0].rate=1:2:2", "--workers", "0"])
    ...     except SystemExit as exc:
    ...         print("exit", exc.code)
    exit 2
    >>> print(err.getvalue(), end="")
    certify sweep: argument --workers: '0' must be an integer between 1 and 1024 (see certify sweep --help)
    """
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
                    help="an installed solver: HIGHS or CLARABEL (called directly), or another cvxpy solver (default: HiGHS)")
    pr.add_argument(
        "--sim-budget",
        type=nonnegative_finite("number of seconds"),
        default=60.0,
        metavar="S",
        help="seconds of simulation checks when every search fails (default 60; 0: none)",
    )
    pr.add_argument("--seed", type=int_at_least(0, MAX_SEED), default=0, help="seed of the simulation checks (default 0)")
    pr.add_argument("--theorem-share", type=unit_share, default=THEOREM_SHARE, metavar="F",
                    help=f"when a known theorem already decides the network, the certificate stages get this share of "
                         f"--time-limit before its verdict is given (default {THEOREM_SHARE}; 1: all of it)")
    pr.add_argument("--no-symmetry", action="store_true",
                    help="do not reduce by the network's station classes (check every fluid face; for comparisons)")
    pr.add_argument("--no-flow-bound", action="store_true",
                    help="list the fluid faces even where the max-flow bound would decide (the exact fluid margin, "
                         "the station-class reduction; for comparisons)")
    pr.set_defaults(func=cmd_prove)

    ve = sub.add_parser(
        "verify",
        help="re-check a certificate exactly (exit 0 valid, 1 invalid); or every NAME.cert.json of a directory/manifest",
    )
    ve.add_argument("network", help="the network file, or a directory / manifest of (network, certificate) pairs")
    ve.add_argument("certificate", nargs="?", help="the certificate file (omit for a directory or manifest)")
    ve.add_argument("--json", action="store_true")
    ve.set_defaults(func=cmd_verify)

    ex = sub.add_parser("explain", help="a readable proof of a certificate (Markdown, LaTeX or HTML), after verifying it")
    ex.add_argument("network", help="the network file")
    ex.add_argument("certificate", help="the certificate file")
    ex.add_argument("--format", choices=EXPLAIN_FORMATS, default="markdown",
                    help="markdown (default), latex (an article fragment) or html")
    ex.add_argument("--standalone", action="store_true",
                    help="latex: a whole document that pdflatex compiles; html: a whole page (MathJax)")
    ex.add_argument("--max-rows", type=int_at_least(1, 100000), default=20, metavar="N",
                    help="tables longer than N rows are cut to their tightest N, the whole table in an appendix (default 20)")
    ex.add_argument("--out", metavar="FILE", help="write the proof to FILE (default: standard output)")
    ex.set_defaults(func=cmd_explain)

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

    bo = sub.add_parser("boundary", help="bisect for the stability boundary along one parameter, proved on both sides")
    bo.add_argument("file", nargs="+", help="the network file(s): several files (or --over) bracket one boundary each")
    bo.add_argument("--vary", metavar="PATH=LO:HI", action="append",
                    help="the parameter by its field path as in error messages (streams[1].rate, stations.3.mu, "
                         "tie_breaking[0].probs.1) and the interval to search, exact; a second --vary "
                         "PATH=START:STOP:N is swept on a grid while the first is bisected (as --over)")
    bo.add_argument("--load", metavar="LO:HI", help="instead of --vary: a factor on every stream rate (1: as given)")
    bo.add_argument("--tol", metavar="T",
                    help="stop once the proved bracket is at most T wide (absolute; default: three significant digits)")
    bo.add_argument("--grid", type=int_at_least(0, MAX_GRID), default=DEFAULT_GRID, metavar="N",
                    help="interior points probed before bisecting, to find every crossing (default 7; 0: the ends only)")
    bo.add_argument("--out", metavar="DIR",
                    help="write each end's network and certificate here (stable.json, stable.cert.json, unstable...)")
    bo.add_argument("--json", action="store_true", help="print one JSON object (last line of stdout)")
    bo.add_argument("--time-limit", type=positive_finite("number of seconds"), default=600.0, metavar="S",
                    help="seconds for the whole run (default 600)")
    bo.add_argument("--point-limit", type=positive_finite("number of seconds"), default=60.0, metavar="S",
                    help="seconds of search per probe (default 60)")
    bo.add_argument("--over", metavar="PATH=START:STOP:N",
                    help="a second parameter swept on N exact values while the first is bisected: the boundary curve")
    bo.add_argument("--workers", type=int_at_least(1, MAX_WORKERS), default=1, metavar="W",
                    help="with several boundaries: local worker processes, one boundary each (default 1: in this process)")
    bo.add_argument("--scheduler", metavar="ADDRESS", help="with several boundaries: run them on an existing Dask cluster")
    bo.add_argument("--template", action="append", metavar="NAME", help="Foster templates to try (as for prove)")
    bo.add_argument("--solver", type=solver_name, metavar="NAME", help="as for prove")
    bo.set_defaults(func=cmd_boundary)

    st = sub.add_parser("stationary", help="exact stationary analysis (sparse CTMC solve; truncated without capacities)")
    st.add_argument("file")
    st.add_argument("--truncate", type=int_at_least(1, MAX_TRUNCATE), metavar="N",
                    help="customers kept per station without a capacity (default: by J)")
    st.add_argument("--json", action="store_true", help="print one JSON object (last line of stdout)")
    st.set_defaults(func=cmd_stationary)
    return p
