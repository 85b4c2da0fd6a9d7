"""``certify regions`` and ``certify stationary``: a network's JSQ regions, and its exact stationary analysis.

Public: :func:`cmd_regions`, :func:`cmd_stationary`.
"""

from __future__ import annotations

import argparse
import json

from ..core.render import plural
from .inputs import load_network, refuse_fork_join

__all__ = ["cmd_regions", "cmd_stationary"]


def cmd_regions(args: argparse.Namespace) -> int:
    """``certify regions FILE``: count (and ``--list``) the JSQ regions of a network, with their drifts.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``regions``: ``file``, ``list`` and ``json``.

    Returns
    -------
    int
        0.

    Raises
    ------
    CertifyError
        A bad network file, or a fork-join network.

    Examples
    --------
    >>> from certify.cli.parser import build_parser
    >>> cmd_regions(build_parser().parse_args(["regions", "models/symmetric-jsq-J4.json"]))
    symmetric-jsq-J4: 30 regions (29 unbounded), 4 stations, 1 choice set with ties
    0
    >>> cmd_regions(build_parser().parse_args(["regions", "models/tie-breaking-J3.json", "--json"]))
    {"regions": 12, "unbounded": 11, "routing_sets": 1}
    0
    """
    from ..markov.chain import compile_chain
    from ..markov.drift import compile_drifts

    net = load_network(args.file)
    net = refuse_fork_join(net, "regions")
    chain = compile_chain(net)
    drifts = compile_drifts(chain)
    unbounded = sum(1 for d in drifts if d.generators)
    if args.json:
        out: dict[str, object] = {"regions": len(drifts), "unbounded": unbounded, "routing_sets": len(chain.routing_sets)}
        if args.list:
            out["list"] = [d.region.describe(chain.ids) for d in drifts]
        print(json.dumps(out))
        return 0
    print(f"{net.name}: {plural(len(drifts), 'region')} ({unbounded} unbounded), {plural(chain.J, 'station')}, "
          f"{plural(len(chain.routing_sets), 'choice set')} with ties")
    if args.list:
        for k, d in enumerate(drifts):
            mean = ", ".join(f"{m / chain.scale:.4g}" for m in d.mean)
            print(f"  [{k}] {d.region.describe(chain.ids)}   drift ({mean})")
    return 0


def cmd_stationary(args: argparse.Namespace) -> int:
    """``certify stationary FILE``: the exact stationary analysis of a network (:func:`certify.stationary.stationary`).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``stationary``: ``file``, ``truncate`` and ``json``.

    Returns
    -------
    int
        0.

    Raises
    ------
    CertifyError
        A bad network file, a fork-join network, or a network the analysis
        does not cover.

    Examples
    --------
    >>> from certify.cli.parser import build_parser
    >>> cmd_stationary(build_parser().parse_args(["stationary", "models/loss-two-queue-K3.json"]))  # doctest: +ELLIPSIS
    loss-two-queue-K3: exact stationary distribution (16 states)
    ...
      blocking probability 0.0826581371649 (closed form 0.0826581371649)
    ...
    0
    """
    from ..stationary import stationary

    net = load_network(args.file)
    net = refuse_fork_join(net, "stationary")
    res = stationary(net, truncate=args.truncate)
    print(json.dumps(res.to_json()) if args.json else res.table())
    return 0
