"""A command's network file: load it, and refuse a fork-join network where a command handles JSQ networks only.

Public: :func:`load_network`, :func:`refuse_fork_join`, :data:`FORK_JOIN_ONLY`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.errors import NetworkNotSupported

if TYPE_CHECKING:
    from ..core.model import ForkJoinNetwork, Network

__all__ = ["FORK_JOIN_ONLY", "load_network", "refuse_fork_join"]

FORK_JOIN_ONLY = "fork-join-redundancy/1 networks are supported by `certify prove` and `certify verify` only"
"""Why the other commands refuse a fork-join file."""


def load_network(path: str) -> Network | ForkJoinNetwork:
    """Load the network file a command was given (:func:`certify.load`).

    Parameters
    ----------
    path : str
        A network file (JSON or TOML).

    Returns
    -------
    Network or ForkJoinNetwork
        The network.

    Raises
    ------
    NetworkError
        The file cannot be read or breaks a rule of the format.

    Examples
    --------
    >>> load_network("models/symmetric-jsq-J4.json").J
    4
    """
    from ..io.loader import load

    return load(path)


def refuse_fork_join(net: Network | ForkJoinNetwork, command: str) -> Network:
    """The network itself, unless it is a fork-join network, which ``certify COMMAND`` does not handle.

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        The loaded network.
    command : str
        The command's name (named in the error).

    Returns
    -------
    Network
        ``net``, a JSQ network.

    Raises
    ------
    NetworkNotSupported
        ``net`` is a fork-join network.

    Examples
    --------
    >>> refuse_fork_join(load_network("models/fork-join-maximal.json"), "regions")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkNotSupported: ...fork-join-maximal.json: format: ... only, not by `certify regions`
    """
    from ..core.model import ForkJoinNetwork

    if isinstance(net, ForkJoinNetwork):
        raise NetworkNotSupported(net.source, "format", f"{FORK_JOIN_ONLY}, not by `certify {command}`")
    return net
