"""The ``growth`` kind: f = w'x (+ a bounded table) grows, so the chain is transient.

Payload: ``weights`` (and ``table``, ``phase_expansion``).  Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ...core.certificate import Certificate
from ...core.envelope import seal
from ...core.errors import CertificateError
from ...core.jsontypes import JsonObject
from ...core.model import Network
from ...core.numbers import q
from ...exact.facts import (
    Check,
    GrowthFacts,
)
from ...exact.growth import check_growth, table_problem
from ...markov.chain import Chain
from ...markov.drift import Clip
from ...templates.options import station_list
from ...templates.table import table_cells
from ..reading import Reading, cell_key, field_map, markov_of, named_rationals
from .base import Kind, Statement, phase_expansion, primitives

__all__ = ["read_table", "growth_claims", "growth_certificate", "read_growth"]


def growth_claims(f: GrowthFacts) -> JsonObject:
    """The claims of a growth certificate.

    Parameters
    ----------
    f : GrowthFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``delta``, ``level``, ``increment_bound``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> growth_claims(GrowthFacts(F(1), F(0), F(2)))
    {'delta': '1', 'level': '0', 'increment_bound': '2'}
    """
    return {"delta": q(f.delta), "level": q(f.level), "increment_bound": q(f.increment_bound)}

def growth_certificate(
    net: Network,
    chain: Chain,
    w: Sequence[Fraction],
    check: Check[GrowthFacts],
    table: dict[tuple[int, ...], Fraction] | None = None,
    fast: Sequence[int] = (),
    K: int = 0,
) -> Certificate:
    """An instability certificate from a function f = w'x (+ a bounded table) that grows in expectation.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain
        The chain the check ran on.
    w : sequence of Fraction
        One weight per station.
    check : Check of GrowthFacts
        The passing :func:`~certify.exact.check_growth`.
    table : dict of cell to Fraction, optional
        The bounded table T.
    fast : sequence of int
        The table's fast stations.
    K : int
        The table's clip level.

    Returns
    -------
    Certificate
        The sealed certificate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.exact import check_growth
    >>> from certify.markov.chain import compile_chain
    >>> over = Network("over", (Station("1", F(1)),), (Stream(F(2), choice=("1",)),))
    >>> chain = compile_chain(over)
    >>> growth_certificate(over, chain, [F(1)], check_growth(chain, [F(1)]))["claims"]
    {'delta': '1', 'level': '2', 'increment_bound': '2'}
    """
    payload: JsonObject = {"weights": {chain.ids[j]: q(w[j]) for j in range(chain.J)}, **phase_expansion(chain)}
    if table is not None:
        payload["table"] = {
            "K": K,
            "fast": [chain.ids[a] for a in fast],
            "values": {cell_key(c): q(v) for c, v in sorted(table.items())},
        }
    return seal(net, "growth", payload, growth_claims(check.facts), *growth_statement(net, chain, ""))

def read_growth(net: Network, cert: Mapping[str, Any]) -> Reading | str:
    """Read a growth certificate: one weight per station, and the optional bounded table (K, fast, values).

    Parameters
    ----------
    net : Network
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading or str
        The arguments of :func:`certify.exact.check_growth`, or why the network
        has no chain matching ``phase_expansion``.

    Raises
    ------
    CertificateError
        When a weight, the table's fields, its fast stations, its clip level or
        a value is malformed (sized before the cells are built).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(1)),), (Stream(F(2), choice=("1",)),))
    >>> read_growth(mm1, {"weights": {"1": "1"}}).args[1]
    [Fraction(1, 1)]
    """
    chain = markov_of(net, cert)
    if isinstance(chain, str):
        return chain
    vals = named_rationals(field_map(cert, "weights"), list(chain.ids), "weights")
    w = [vals[s] for s in chain.ids]
    if "table" not in cert:
        return Reading((chain, w), chain=chain)
    return Reading((chain, w), read_table(chain, cert), chain)


def read_table(chain: Chain, cert: Mapping[str, Any]) -> dict[str, Any]:
    """Read the bounded table of a growth function (field ``table``: K, fast, values) over ``chain``'s stations.

    Parameters
    ----------
    chain : Chain
        The chain whose stations ``table.fast`` names.
    cert : dict
        The certificate (with a ``table`` field).

    Returns
    -------
    dict
        The checker's keywords ``table`` (cell -> Fraction), ``fast`` (station indices) and ``K``.

    Raises
    ------
    CertificateError
        When the table's fields, its fast stations, its clip level or a value is malformed (sized before the cells
        are built).

    Examples
    --------
    >>> from certify.markov.chain import Chain
    >>> ch = Chain(("1",), (Fraction(1),), (((0,), Fraction(2)),), (), (Fraction(1),))
    >>> read_table(ch, {"table": {"K": 1, "fast": ["1"], "values": {"0": "0", "1": "1/2"}}})["table"]
    {(0,): Fraction(0, 1), (1,): Fraction(1, 2)}
    """
    tab = field_map(cert, "table")
    if set(tab) != {"K", "fast", "values"}:
        raise CertificateError(None, "table", f"must have exactly the fields K, fast, values (got {sorted(tab)})")
    fast = [chain.ids.index(s) for s in station_list(chain, tab["fast"], "table.fast")]
    problem = table_problem(chain, fast, tab["K"])
    if problem:
        where, _, rule = problem.partition(": ")
        raise CertificateError(None, where, rule)
    K: Clip = tab["K"] if isinstance(tab["K"], int) else tuple(tab["K"])  # one level per fast station
    cells = table_cells(chain, fast, K)
    values = tab["values"]
    if not isinstance(values, dict):
        raise CertificateError(None, "table.values", f"must be a map from cells to rationals, got {type(values).__name__}")
    named = named_rationals(values, [cell_key(c) for c in cells], "table.values")
    return {"table": {c: named[cell_key(c)] for c in cells}, "fast": fast, "K": K}


def growth_statement(net: Any, chain: Chain | None, template: str) -> Statement:
    """What a growth certificate proves on ``net`` (semantics, statement), derived, never read.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain or None
        The chain the certificate is about.
    template : str
        Unused.

    Returns
    -------
    tuple of str
        The semantics and the statement.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> growth_statement(mm1, None, '')[0]
    'markovian'
    """
    return "markovian", (
        "f = w'x (+ bounded table) has bounded increments and Af >= delta on {f > level}: transient "
        f"(Fayolle-Malyshev-Menshikov Thm 2.2.7), hence not positive recurrent, {primitives(chain)}."
    )


KIND = Kind("growth", "unstable", ("weights",), read_growth, check_growth, growth_claims, growth_statement,
            "certify.explain.growth:explain_growth", optional=("table", "phase_expansion"))
