"""``certify simulate``: independent replications of a network (evidence, not proof), with an optional plot.

Public: :func:`cmd_simulate`.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from ..core.errors import OptionError
from .inputs import load_network, refuse_fork_join
from .options import check_output

if TYPE_CHECKING:
    from ..core.model import Network
    from ..simulation.result import SimulationResult

__all__ = ["cmd_simulate"]


def _parse_x0(text: str, net: Network) -> list[int]:
    """``--x0 n1,n2,...``: one non-negative integer per station, in the file's order."""
    rule = f"must be {net.J} comma-separated non-negative integers, one per station ({','.join(net.station_ids)})"
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != net.J or not all(p.isdigit() for p in parts):
        raise OptionError("--x0", f"{text!r} {rule}")
    return [int(p) for p in parts]


def cmd_simulate(args: argparse.Namespace) -> int:
    """``certify simulate FILE --horizon T``: simulate a network and print the table (or ``--json``).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``simulate``: ``file``, ``horizon``, ``reps``,
        ``seed``, ``x0``, ``warmup``, ``plot`` and ``json``.

    Returns
    -------
    int
        0.

    Raises
    ------
    CertifyError
        ``--warmup`` not below ``--horizon``, a ``--plot`` path that cannot be
        written, an ``--x0`` that does not fit the network, a bad network
        file or a fork-join network; all before anything is simulated.

    Examples
    --------
    >>> from certify.cli.parser import build_parser
    >>> args = build_parser().parse_args(["simulate", "models/symmetric-jsq-J4.json", "--horizon", "10", "--x0", "1,2"])
    >>> cmd_simulate(args)
    Traceback (most recent call last):
    ...
    certify.core.errors.OptionError: --x0: '1,2' must be 4 comma-separated non-negative integers, one per station (1,2,3,4)
    """
    from ..simulation.simulate import check_x0, simulate

    if not args.warmup < args.horizon:
        raise OptionError("--warmup", f"{args.warmup:g} must be smaller than --horizon ({args.horizon:g})")
    if args.plot:
        check_output("--plot", args.plot, "image")
    net = load_network(args.file)
    net = refuse_fork_join(net, "simulate")
    x0 = None
    if args.x0 is not None:
        x0 = _parse_x0(args.x0, net)
        try:
            check_x0(net, x0)
        except ValueError as exc:
            raise OptionError("--x0", str(exc)) from None
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
