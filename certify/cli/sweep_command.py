"""``certify sweep``: prove at every point of a grid of one or two parameters, resumable, with CSV and atlas output.

Public: :func:`cmd_sweep`.
"""

from __future__ import annotations

import argparse
import os
import sys

from ..core.errors import NetworkError, OptionError
from .inputs import load_network, refuse_fork_join
from .options import check_output, prove_options

__all__ = ["cmd_sweep"]


def cmd_sweep(args: argparse.Namespace) -> int:
    """``certify sweep FILE --vary PATH=START:STOP:N``: run :func:`certify.sweep` and print a summary.

    Every output path is checked before the results file is created, and every
    ``--vary`` against the network before any point runs.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``sweep``: ``file``, ``vary``, ``out``,
        ``time_limit``, ``sim_budget``, ``seed``, ``workers``, ``scheduler``,
        ``csv`` and ``plot``.

    Returns
    -------
    int
        0 done; 130 interrupted (every finished point is stored: the same
        command resumes).

    Raises
    ------
    CertifyError
        An output path that cannot be written (or is the results file), a bad
        ``--vary`` (named as ``--vary``), a bad network file or a fork-join
        network.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from certify.cli.parser import build_parser
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "mm1.json").write_text('{"format": "jsq-network/1", "name": "mm1", "stations": {"1": {"mu": 2}}, '
    ...                                 '"streams": [{"choice": ["1"], "rate": 1}]}')
    >>> args = build_parser().parse_args(["sweep", str(d / "mm1.json"), "--vary", "streams[0].rate=1:3:2",
    ...                                   "--workers", "1", "--out", str(d / "r.sqlite")])
    >>> cmd_sweep(args)  # doctest: +ELLIPSIS
    sweep ...: mm1, 2 points over streams[0].rate
      computed 2, reused 0 from ...r.sqlite
      stable 1, unstable 1
    0
    >>> cmd_sweep(args)  # doctest: +ELLIPSIS
    sweep ...: mm1, 2 points over streams[0].rate
      computed 0, reused 2 from ...r.sqlite
      stable 1, unstable 1
    0
    """
    from ..workflows.sweep import sweep
    from ..workflows.vary import parse_vary

    check_output("--out", args.out, "sqlite")
    if args.csv:
        check_output("--csv", args.csv)
    if args.plot:
        check_output("--plot", args.plot, "image")
    for opt, other in (("--csv", args.csv), ("--plot", args.plot)):
        if other and os.path.abspath(other) == os.path.abspath(args.out):
            raise OptionError(opt, f"{other!r} is the results file (--out): give another name")
    net = load_network(args.file)
    net = refuse_fork_join(net, "sweep")
    vary = [parse_vary(spec, net) for spec in args.vary]
    try:
        res = sweep(net, vary, prove_options(args, ("time_limit", "sim_budget", "seed")), out=args.out,
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
