"""What a sweep varies: ``PATH=START:STOP:N`` specs and value lists, as exact grids.

A sweep varies one or two numbers of a network (:data:`MAX_PARAMETERS`), each
named by a field path (:mod:`certify.workflows.paths`) and given either as a
range ``START:STOP:N`` (N exact values, both ends included) or as a list of
numbers.  Numbers are taken exactly (:mod:`certify.core.numbers`): ``0.1`` is
1/10, a float stands for its shortest decimal.

Public: :func:`parse_vary`, :func:`normalise_vary`, :data:`MAX_PARAMETERS`.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import TYPE_CHECKING, TypeAlias

from ..core.errors import NetworkError
from ..core.jsontypes import JsonDocument
from ..core.numbers import as_fraction, parse_number
from .paths import base_doc, check_path

if TYPE_CHECKING:
    from ..core.model import ForkJoinNetwork, Network

__all__ = ["MAX_PARAMETERS", "parse_vary", "normalise_vary"]

MAX_PARAMETERS = 2
"""How many parameters one sweep varies together at most."""

#: One parameter of a sweep: ``"PATH=START:STOP:N"``, or ``(path, values)`` with ``values`` a
#: ``"START:STOP:N"`` string or numbers (each checked to be one: :func:`certify.core.numbers.as_fraction`).
VarySpec: TypeAlias = "str | tuple[str, str | Iterable[object]]"


def _grid(start: Fraction, stop: Fraction, n: int) -> list[Fraction]:
    if n == 1:
        return [start]
    return [start + (stop - start) * k / (n - 1) for k in range(n)]


def parse_vary(spec: str, net: Network | ForkJoinNetwork | None = None, option: str = "--vary") -> tuple[str, list[Fraction]]:
    """Parse ``PATH=START:STOP:N`` into the path and its N exact values from START to STOP.

    START and STOP are decimals (or ``p/q``) taken exactly; N >= 2 points are
    spread evenly with both ends included (N = 1: START alone, STOP must equal it).

    Parameters
    ----------
    spec : str
        The spec, e.g. ``streams[0].rate=0.5:1.5:11``.
    net : Network or ForkJoinNetwork, optional
        When given, PATH must name a number of this network.
    option : str
        The option named in error messages (default ``--vary``).

    Returns
    -------
    tuple of (str, list of Fraction)
        The path as written and the grid of values.

    Raises
    ------
    NetworkError
        A bad spec: one error naming ``option``, the spec and the rule.

    Examples
    --------
    >>> parse_vary("streams[0].rate=0.5:1:3")
    ('streams[0].rate', [Fraction(1, 2), Fraction(3, 4), Fraction(1, 1)])
    >>> parse_vary("streams[0].rate=1:0.5:3")
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: --vary: 'streams[0].rate=1:0.5:3': START (1) must be smaller than STOP (0.5)
    """

    def fail(rule: str) -> NetworkError:
        return NetworkError(None, option, f"{spec!r}: {rule}")

    path, eq, rng = spec.rpartition("=")
    if not eq or not path.strip():
        raise fail("must be PATH=START:STOP:N, e.g. streams[0].rate=0.5:1.5:11")
    path = path.strip()
    parts = rng.split(":")
    if len(parts) != 3:
        raise fail(f"the range {rng!r} must be START:STOP:N (three parts separated by ':')")
    start, stop = parse_number(parts[0]), parse_number(parts[1])
    if start is None:
        raise fail(f"START {parts[0]!r} is not a number")
    if stop is None:
        raise fail(f"STOP {parts[1]!r} is not a number")
    n_text = parts[2].strip()
    if not n_text.isdigit() or int(n_text) < 1:
        raise fail(f"N {parts[2]!r} must be an integer >= 1 (the number of points)")
    n = int(n_text)
    if n == 1 and start != stop:
        raise fail(f"with N = 1 the range is one point: STOP ({parts[1].strip()}) must equal START ({parts[0].strip()})")
    if n > 1 and start >= stop:
        raise fail(f"START ({parts[0].strip()}) must be smaller than STOP ({parts[1].strip()})")
    if net is not None:
        check_path(base_doc(net), path, fail)
    return path, _grid(start, stop, n)


def _values(path: str, raw: Iterable[object], option: str) -> list[Fraction]:
    """An explicit list of values, each exact and finite, none twice."""
    values = []
    for v in raw:
        f = as_fraction(v)
        if f is None:
            raise NetworkError(None, option, f"{path!r}: value {v!r} is not a finite number")
        values.append(f)
    if not values:
        raise NetworkError(None, option, f"{path!r}: no values given")
    if len(set(values)) != len(values):
        raise NetworkError(None, option, f"{path!r}: a value is given twice")
    return values


def normalise_vary(vary: Iterable[VarySpec], doc: JsonDocument, option: str) -> list[tuple[str, list[Fraction]]]:
    """The parameters of a sweep as (path, exact values) pairs, each path checked against the network.

    Parameters
    ----------
    vary : iterable
        One or two items, each a ``"PATH=START:STOP:N"`` string or a
        ``(path, values)`` pair whose ``values`` are numbers or a
        ``"START:STOP:N"`` string.
    doc : dict
        The network document (:func:`certify.workflows.paths.base_doc`).
    option : str
        The option or argument named in error messages.

    Returns
    -------
    list of (str, list of Fraction)
        The paths in the order given, with their grids.

    Raises
    ------
    NetworkError
        A bad spec or value, a path that names no number of ``doc``, a path
        given twice, none, or more than :data:`MAX_PARAMETERS`.

    Examples
    --------
    >>> doc = {"stations": {"1": {"mu": "1"}}, "streams": [{"choice": ["1"], "rate": "1"}]}
    >>> normalise_vary([("streams[0].rate", [0.5, "3/4"]), "stations.1.mu=1:2:2"], doc, "vary")
    [('streams[0].rate', [Fraction(1, 2), Fraction(3, 4)]), ('stations.1.mu', [Fraction(1, 1), Fraction(2, 1)])]
    >>> normalise_vary([("streams[0].rate", [1, 1])], doc, "vary")
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: vary: 'streams[0].rate': a value is given twice
    """
    out: list[tuple[str, list[Fraction]]] = []
    for item in vary:
        if isinstance(item, str):
            path, values = parse_vary(item, None, option)
        else:
            path, raw = item
            if isinstance(raw, str):
                path, values = parse_vary(f"{path}={raw}", None, option)
            else:
                values = _values(path, raw, option)

        def fail(rule: str, p: str = path) -> NetworkError:
            return NetworkError(None, option, f"{p!r}: {rule}")

        check_path(doc, path, fail)
        if any(path == p for p, _ in out):
            raise NetworkError(None, option, f"{path!r} is given twice (vary each parameter once)")
        out.append((path, values))
    if not out:
        raise NetworkError(None, option, "give one or two parameters to vary")
    if len(out) > MAX_PARAMETERS:
        raise NetworkError(None, option, f"at most {MAX_PARAMETERS} parameters can be varied together, got {len(out)}")
    return out
