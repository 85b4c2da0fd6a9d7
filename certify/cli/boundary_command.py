"""``certify boundary``: bisect for the stability boundary along one parameter, with a proof at both ends.

Public: :func:`cmd_boundary`.
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import NetworkError, OptionError
from ..core.numbers import as_fraction, exact_str, parse_number
from .inputs import load_network, refuse_fork_join
from .options import check_output, prove_options

if TYPE_CHECKING:
    from ..workflows.boundary_result import BoundaryResult

__all__ = ["cmd_boundary"]

# The prove options of ``boundary`` (its --time-limit is the whole run's, --point-limit each probe's).
_PROBE_FLAGS = ("template", "solver")


def _interval(args: argparse.Namespace) -> tuple[str, str, str]:
    """(parameter, LO, HI) from ``--vary PATH=LO:HI`` or ``--load LO:HI`` (exactly one of them).

    A second ``--vary PATH=START:STOP:N`` is the grid swept while the first is
    bisected: it is moved to ``args.over``.
    """
    from ..workflows.boundary import LOAD

    varies = list(args.vary or [])
    if len(varies) > 1:  # a second --vary PATH=START:STOP:N is the grid swept while the first is bisected
        grids = [v for v in varies if v.rpartition("=")[2].count(":") == 2]
        if len(varies) > 2 or len(grids) != 1 or args.over is not None:
            raise OptionError("--vary", "give one --vary PATH=LO:HI to bisect, and at most one --vary PATH=START:STOP:N "
                                        "(or --over) to sweep on a grid")
        args.over = grids[0]
        varies.remove(grids[0])
    if (not varies) == (args.load is None):
        raise OptionError("--vary", "give exactly one of --vary PATH=LO:HI and --load LO:HI")
    option, spec = ("--load", args.load) if args.load is not None else ("--vary", varies[0])
    if option == "--vary":
        path, eq, rng = spec.rpartition("=")
        if not eq or not path.strip():
            raise OptionError(option, f"{spec!r} must be PATH=LO:HI, e.g. streams[1].rate=0.2:0.3")
        path = path.strip()
    else:
        path, rng = LOAD, spec
    parts = rng.split(":")
    if len(parts) != 2:
        raise OptionError(option, f"{spec!r}: the interval {rng!r} must be LO:HI (two numbers separated by ':')")
    lo, hi = parse_number(parts[0]), parse_number(parts[1])
    if lo is None or hi is None:
        raise OptionError(option, f"{spec!r}: LO and HI must be numbers")
    if lo >= hi:
        raise OptionError(option, f"{spec!r}: LO ({parts[0].strip()}) must be smaller than HI ({parts[1].strip()})")
    if option == "--load" and lo <= 0:
        raise OptionError(option, f"{spec!r}: the load factor LO ({parts[0].strip()}) must be positive")
    return path, parts[0].strip(), parts[1].strip()


def cmd_boundary(args: argparse.Namespace) -> int:
    """``certify boundary FILE --vary PATH=LO:HI``: run :func:`certify.boundary` and print each probe and the bracket.

    With several files, or ``--over PATH=START:STOP:N``, one boundary per file and
    value runs (:func:`certify.workflows.boundaries.boundaries`, ``--workers`` or
    ``--scheduler``); each one's bracket is printed as it finishes, and ``--out DIR``
    gets one subdirectory per boundary.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``boundary``: ``file``, ``vary`` or ``load``, ``tol``, ``grid``
        (optional: interior points probed before bisecting), ``out``, ``json``, ``time_limit``,
        ``point_limit``, ``template``, ``solver``.

    Returns
    -------
    int
        0 when the boundary (every boundary) has at least one crossing bracketed by proofs on both sides;
        1 when a side is not proved (the output says which); 130 interrupted (the
        brackets so far are printed and, with ``--out``, written).

    Raises
    ------
    CertifyError
        A bad network file, a fork-join network, a bad ``--vary``/``--load``/``--tol``,
        an output directory that cannot be written.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from certify.cli.parser import build_parser
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "mm1.json").write_text('{"format": "jsq-network/1", "name": "mm1", "stations": {"1": {"mu": 1}}, '
    ...                                 '"streams": [{"choice": ["1"], "rate": 1}]}')
    >>> args = build_parser().parse_args(["boundary", str(d / "mm1.json"), "--load", "0.5:1.5", "--tol", "0.1",
    ...                                   "--out", str(d / "b")])
    >>> cmd_boundary(args)  # doctest: +ELLIPSIS
    boundary of mm1 along load in [0.5, 1.5] (tolerance 0.1)
      0.5  stable  fluid linear Lyapunov certificate (max-flow bound)  (...s)
      1.5  unstable  static split LP dual (flow balance)  (...s)
      1  undecided  none  (...s)
    ...
    stable at load = 0.96875; unstable at load = 1.0625
    ...
    0
    >>> sorted(p.name for p in (d / "b").iterdir())
    ['stable.cert.json', 'stable.json', 'unstable.cert.json', 'unstable.json']
    """
    from ..workflows.boundary import LOAD, boundary, default_tolerance
    from ..workflows.boundary_result import BoundaryStep
    from ..workflows.paths import base_doc, check_path

    if args.out is not None:
        check_output("--out", args.out, "directory")
    parameter, lo, hi = _interval(args)
    tol = None
    if args.tol is not None:
        tol = parse_number(args.tol)
        if tol is None or tol <= 0:
            raise OptionError("--tol", f"{args.tol!r} must be a positive number (the bracket width to stop at)")
    if len(args.file) > 1 or args.over is not None:
        return _many(args, parameter, lo, hi, tol)
    file = args.file[0]
    net = refuse_fork_join(load_network(file), "boundary")
    if parameter != LOAD:  # before anything is printed
        check_path(base_doc(net), parameter, lambda rule: NetworkError(file, "--vary", rule))

    def show(step: BoundaryStep) -> None:
        if not args.json:
            print(f"  {float(step.value):.10g}  {step.verdict}  {step.method}  ({step.time_s:.2f}s)", flush=True)

    if not args.json:
        a, b = as_fraction(lo), as_fraction(hi)
        assert a is not None and b is not None
        shown = exact_str(tol) if tol is not None else exact_str(default_tolerance(a, b))
        print(f"boundary of {net.name} along {parameter} in [{lo}, {hi}] (tolerance {shown})", flush=True)
    try:
        res = boundary(net, parameter, lo, hi, prove_options(args, _PROBE_FLAGS), tol=tol, grid=args.grid,
                       point_limit=args.point_limit, time_limit=args.time_limit, progress=show)
    except NetworkError as exc:
        raise NetworkError(exc.file or file, exc.path, exc.rule) from None
    if args.out is not None and res.certificates:
        res.write(args.out)
    if args.json:
        print(json.dumps(res.to_json(), sort_keys=True))
    else:
        for line in res.lines():
            print(line)
        for end, paths in _written(res):
            print(f"{end}: {paths['certificate']} (network {paths['network']}); re-check with: "
                  f"certify verify {paths['network']} {paths['certificate']}")
    if res.stopped.startswith("interrupted"):
        print("certify: interrupted; the bracket proved so far is above", file=sys.stderr)
        return 130
    return 0 if res.bracketed else 1


def _written(res: BoundaryResult) -> list[tuple[str, dict[str, str]]]:
    """Each end written (``stable``, ``unstable``; ``crossing 2 stable`` ... with several crossings) and its files."""
    if len(res.crossings) > 1:
        return [(f"crossing {i} {side}", p) for i, c in enumerate(res.crossings, 1) for side, p in c.paths.items()]
    return list(res.paths.items())


def _many(args: argparse.Namespace, parameter: str, lo: str, hi: str, tol: Fraction | None) -> int:
    """Several boundaries (files x ``--over`` values) on the pool or a Dask cluster; each one's line as it finishes."""
    from ..workflows.boundaries import BoundaryTask, boundaries, slug, summary

    nets = [refuse_fork_join(load_network(f), "boundary") for f in args.file]
    where = f"on the Dask cluster at {args.scheduler}" if args.scheduler else (
        f"on {args.workers} worker processes" if args.workers > 1 else "in this process")

    def done(task: BoundaryTask, res: BoundaryResult) -> None:
        if args.out is not None and res.certificates:
            res.write(Path(args.out) / slug(task))
        if not args.json:
            print(f"  {summary(task, res)}", flush=True)
            for end, paths in _written(res):
                print(f"    {end}: certify verify {paths['network']} {paths['certificate']}", flush=True)

    def header(tasks: list[BoundaryTask]) -> None:  # every path is checked by now: a refusal prints nothing before it
        if not args.json:
            over = f" x {args.over}" if args.over else ""
            print(f"boundaries along {parameter} in [{lo}, {hi}] for {len(nets)} network(s){over} ({len(tasks)} "
                  f"boundaries), {where}", flush=True)

    curve = boundaries(nets, parameter, lo, hi, prove_options(args, _PROBE_FLAGS), over=args.over, tol=tol, grid=args.grid,
                       point_limit=args.point_limit, time_limit=args.time_limit, workers=args.workers,
                       scheduler=args.scheduler, progress=done, started=header)
    if args.json:
        print(json.dumps(curve.to_json(), sort_keys=True))
    else:
        good = sum(r["bracketed"] for r in curve.rows())
        print(f"{good} of {len(curve.tasks)} boundaries bracketed by proofs on both sides ({curve.time_s:.1f} s); "
              f"stopped: {curve.stopped}")
    if curve.stopped.startswith("interrupted"):
        print("certify: interrupted; the boundaries finished so far are above", file=sys.stderr)
        return 130
    return 0 if curve.bracketed else 1
