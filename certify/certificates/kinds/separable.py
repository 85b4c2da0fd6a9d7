"""The ``separable-foster`` certificate: V = x'Px + sum_g sum_l x_l T_{g,l}(min(x_{F_g}, K)), checked cluster by cluster.

The payload is the shape (``K``: one clip level, or one list of levels per group, a level per
station of the group; ``groups``: the fast stations of each table,
``multipliers``: the stations l of each group's terms), the coefficients (``P``:
``[a, b, value]`` for a before or equal to b in the network's order; ``tables``:
per group, per multiplier, one canonical rational per cell ``"k1,k2,..."``) and
the ``budgets`` (per cluster, a rational per station; missing stations have 0).
The checker (:func:`certify.exact.separable.check_separable`) derives the
families, the clusters, every cluster's regions and linear forms, delta, the
drift bound B and the exceptional set; nothing of these is read.  The theorem
is in ``docs/math/separable.md``.  Exponential laws only.  Pure Python.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from ...core.certificate import Certificate
from ...core.envelope import seal
from ...core.errors import CertificateError
from ...core.jsontypes import JsonObject
from ...core.model import Network
from ...core.numbers import q, unq
from ...exact.clusters import phased_streams
from ...exact.facts import Check, SeparableFacts, SeparableGrowthFacts
from ...exact.separable import Structure, check_separable, clusters, station_phases, structure_problem
from ...exact.separable_growth import check_separable_growth, growth_structure
from ...markov.chain import Chain
from ...templates.options import MAX_CLIP_LEVEL, clip_level, station_list
from ..reading import Reading, cell_key, markov_of, named_rationals
from .base import Kind, Statement, phase_expansion, primitives

__all__ = [
    "SEPARABLE_STATEMENT",
    "SEPARABLE_GROWTH_STATEMENT",
    "separable_statement",
    "separable_claims",
    "separable_growth_claims",
    "separable_certificate",
    "separable_growth_certificate",
    "read_separable",
    "read_separable_growth",
]

#: What a separable Foster certificate proves, before the laws it is about (:func:`separable_statement`).
SEPARABLE_STATEMENT = (
    "markovian",
    "V = x'Px + sum_g sum_l x_l T_{g,l}(min(x_{F_g}, K)) is bounded below (P strictly diagonally dominant where "
    "negative) and, checked cluster by cluster on each cluster's own regions, AV(x) <= drift_bound - delta |x|_1 "
    "at every state, so AV(x) <= -delta whenever |x|_1 >= bound; the empty state is reachable from every state: "
    "positive recurrent (Foster), {laws}.",
)

#: What a separable growth certificate proves, before the laws it is about (:func:`separable_statement`).
SEPARABLE_GROWTH_STATEMENT = (
    "markovian",
    "f = w'x + sum_g T_g(min(x_{F_g}, K)) has bounded increments and, checked cluster by cluster on each cluster's "
    "own regions, Af(x) >= delta > 0 at every state; the empty state is reachable from every state: transient "
    "(Fayolle-Malyshev-Menshikov Thm 2.2.7), hence not positive recurrent, {laws}.",
)


def separable_statement(kind: str) -> Callable[[Any, Chain | None, str], Statement]:
    """The ``statement`` of a separable kind: what it proves, for the laws of the chain it is about (derived, never read).

    Parameters
    ----------
    kind : str
        ``separable-foster`` or ``separable-growth``.

    Returns
    -------
    callable
        ``statement(net, chain, template) -> (semantics, statement)``.

    Examples
    --------
    >>> separable_statement("separable-growth")(None, None, "")[1].endswith(
    ...     "not positive recurrent, for exponential service and interarrival times, with this network's tie-breaking.")
    True
    """
    semantics, text = SEPARABLE_STATEMENT if kind == "separable-foster" else SEPARABLE_GROWTH_STATEMENT

    def statement(net: Any, chain: Chain | None, template: str) -> Statement:
        return semantics, text.replace("{laws}", primitives(chain))

    return statement


def separable_claims(f: SeparableFacts) -> JsonObject:
    """The claims of a separable Foster certificate.

    Parameters
    ----------
    f : SeparableFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``delta``, ``drift_bound``, ``exceptional_set`` (l1 bound), ``clusters``, ``regions``, ``rows``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> separable_claims(SeparableFacts(1, 2, 3, F(2), F(11), F(7)))["exceptional_set"]
    {'norm': 'l1', 'bound': '7'}
    """
    return {
        "delta": q(f.delta),
        "drift_bound": q(f.drift_bound),
        "exceptional_set": {"norm": "l1", "bound": q(f.exceptional_l1_bound)},
        "clusters": f.clusters,
        "regions": f.regions,
        "rows": f.rows,
    }


def separable_certificate(
    net: Network,
    chain: Chain,
    st: Structure,
    theta: Sequence[Fraction],
    budgets: Mapping[tuple[int, ...], Mapping[int, Fraction]],
    check: Check[SeparableFacts],
) -> Certificate:
    """A separable Foster certificate, exactly checked.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain
        Its exponential chain.
    st : Structure
        The function's shape.
    theta : sequence of Fraction
        The coefficients (:func:`~certify.exact.separable.variables` order).
    budgets : mapping
        Per cluster (its stations), the budgets by station index.
    check : Check of SeparableFacts
        The passing :func:`~certify.exact.separable.check_separable` of these.

    Returns
    -------
    Certificate
        The sealed certificate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> chain, st = compile_chain(mm1), Structure((), (), 1, ((0, 0),))
    >>> cert = separable_certificate(mm1, chain, st, [F(1)], {(0,): {0: F(2)}},
    ...                              check_separable(chain, st, [F(1)], {(0,): {0: F(2)}}))
    >>> cert["P"], cert["budgets"], cert["claims"]["delta"]
    ([['1', '1', '1']], [{'cluster': ['1'], 'budget': {'1': '2'}}], '2')
    """
    ids = chain.ids
    npairs = len(st.pairs)
    tables: list[JsonObject] = []
    pos = npairs
    for g, L in enumerate(st.multipliers):
        cells = st.cells(g)
        group: JsonObject = {}
        for l in L:
            group[ids[l]] = {cell_key(c): q(theta[pos + k]) for k, c in enumerate(cells)}
            pos += len(cells)
        tables.append(group)
    order = [c.stations for c in clusters(chain, st)]
    payload: JsonObject = {
        "K": _levels_out(st),
        "groups": [[ids[a] for a in F] for F in st.groups],
        "multipliers": [[ids[a] for a in L] for L in st.multipliers],
        "P": [[ids[a], ids[b], q(theta[k])] for k, (a, b) in enumerate(st.pairs)],
        "tables": tables,
        "budgets": [
            {"cluster": [ids[a] for a in U], "budget": {ids[i]: q(v) for i, v in sorted(budgets[U].items())}}
            for U in order if budgets.get(U)
        ],
        **phase_expansion(chain),
    }
    return seal(net, "separable-foster", payload, separable_claims(check.facts),
                *separable_statement("separable-foster")(net, chain, ""))


def _levels_out(st: Structure) -> int | list[list[int]]:
    """The field ``K``: the clip level, or one list of levels per group."""
    return st.K if isinstance(st.K, int) else [list(levels) for levels in st.K]


def _levels_in(raw: Any) -> int | tuple[tuple[int, ...], ...]:
    """The field ``K`` as read: one clip level, or one list per group (their values are checked with the groups)."""
    if isinstance(raw, list):
        if not all(isinstance(v, list) for v in raw):
            raise CertificateError(None, "K", f"must be an integer in 1..{MAX_CLIP_LEVEL}, or one list of levels per "
                                   "group (a level per station of the group)")
        return tuple(tuple(v) for v in raw)
    return clip_level(raw, "K")


def _stations(chain: Chain, value: Any, field: str) -> tuple[int, ...]:
    return tuple(chain.ids.index(s) for s in station_list(chain, value, field, nonempty=True))


def _chain_of(net: Network, cert: Mapping[str, Any]) -> Chain | str:
    """The chain both separable kinds are about (its phase-type service expanded), or why they do not apply.

    No limit on the phase vectors: a cluster sees only its own stations' phases, and nothing lists the whole space.
    """
    chain = markov_of(net, cert, max_vectors=None)
    if isinstance(chain, str):
        return chain
    if phased_streams(chain):
        return "the network has non-exponential interarrival laws; a separable certificate expands phase-type service only"
    return chain


def _groups(chain: Chain, raw: Any, field: str) -> tuple[tuple[int, ...], ...]:
    """A list of station lists (each non-empty, known ids in the network's order)."""
    if not isinstance(raw, list):
        raise CertificateError(None, field, f"must be a list of station lists, got {type(raw).__name__}")
    return tuple(_stations(chain, v, f"{field}[{g}]") for g, v in enumerate(raw))


def _checkable(chain: Chain, st: Structure) -> Structure:
    """The shape, once :func:`~certify.exact.separable.structure_problem` finds nothing (its problem is refused)."""
    problem = structure_problem(chain, st)
    if problem:
        where, _, rule = problem.partition(": ")
        raise CertificateError(None, where, rule)
    return st


def read_separable(net: Network, cert: Mapping[str, Any]) -> Reading | str:
    """Read a separable Foster certificate: its shape, coefficients and budgets (canonical rationals).

    Parameters
    ----------
    net : Network
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading or str
        The arguments of :func:`certify.exact.separable.check_separable`, or why the kind does not apply.

    Raises
    ------
    CertificateError
        When a field is malformed: naming the field and the rule.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> doc = {"K": 1, "groups": [], "multipliers": [], "P": [["1", "1", "1"]], "tables": [],
    ...        "budgets": [{"cluster": ["1"], "budget": {"1": "2"}}]}
    >>> r = read_separable(mm1, doc)
    >>> r.args[2], r.args[3]
    ([Fraction(1, 1)], {(0,): {0: Fraction(2, 1)}})
    >>> read_separable(mm1, {**doc, "P": [["1", "2", "1"]]})
    Traceback (most recent call last):
    ...
    certify.core.errors.CertificateError: P[0]: must be [a, b, value]: a, b station ids in the network's order, value a rational
    """
    chain = _chain_of(net, cert)
    if isinstance(chain, str):
        return chain
    ids = chain.ids
    K = _levels_in(cert.get("K"))
    groups_raw, mult_raw = cert.get("groups"), cert.get("multipliers")
    if not isinstance(groups_raw, list) or not isinstance(mult_raw, list) or len(groups_raw) != len(mult_raw):
        raise CertificateError(None, "groups", "groups and multipliers must be lists of the same length (one per group)")
    groups, mult = _groups(chain, groups_raw, "groups"), _groups(chain, mult_raw, "multipliers")
    P_raw = cert.get("P")
    if not isinstance(P_raw, list):
        raise CertificateError(None, "P", f"must be a list of [a, b, value], got {type(P_raw).__name__}")
    pairs: list[tuple[int, int]] = []
    pvals: list[Fraction] = []
    for k, e in enumerate(P_raw):
        ok = (isinstance(e, list) and len(e) == 3 and e[0] in ids and e[1] in ids and isinstance(e[2], str)
              and ids.index(e[0]) <= ids.index(e[1]))
        if not ok:
            raise CertificateError(None, f"P[{k}]", "must be [a, b, value]: a, b station ids in the network's order, value a rational")
        pairs.append((ids.index(e[0]), ids.index(e[1])))
        pvals.append(unq(e[2], f"P[{k}]"))
    if len(set(pairs)) != len(pairs) or pairs != sorted(pairs):
        raise CertificateError(None, "P", "the pairs must be distinct and sorted by the network's order")
    st = _checkable(chain, Structure(groups, mult, K, tuple(pairs), station_phases(chain)))
    tabs = cert.get("tables")
    if not isinstance(tabs, list) or len(tabs) != len(groups):
        raise CertificateError(None, "tables", "must be a list with one map per group")
    theta = list(pvals)
    for g, (L, tab) in enumerate(zip(mult, tabs)):
        want = [ids[l] for l in L]
        if not isinstance(tab, dict) or sorted(tab) != sorted(want):
            raise CertificateError(None, f"tables[{g}]", f"must map exactly the multipliers {want} to their tables")
        keys = [cell_key(c) for c in st.cells(g)]
        for l in L:
            vals = named_rationals(tab[ids[l]] if isinstance(tab[ids[l]], dict) else {}, keys, f"tables[{g}].{ids[l]}")
            theta += [vals[k] for k in keys]
    bud = cert.get("budgets")
    if not isinstance(bud, list):
        raise CertificateError(None, "budgets", f"must be a list of {{cluster, budget}}, got {type(bud).__name__}")
    budgets: dict[tuple[int, ...], dict[int, Fraction]] = {}
    for k, e in enumerate(bud):
        if not isinstance(e, dict) or set(e) != {"cluster", "budget"} or not isinstance(e["budget"], dict):
            raise CertificateError(None, f"budgets[{k}]", "must be {\"cluster\": [station ids], \"budget\": {station: rational}}")
        U = _stations(chain, e["cluster"], f"budgets[{k}].cluster")
        if U in budgets:
            raise CertificateError(None, f"budgets[{k}].cluster", "names a cluster already given")
        b = {}
        for s, v in e["budget"].items():
            if s not in ids:
                raise CertificateError(None, f"budgets[{k}].budget", f"{s!r} is not a station id")
            b[ids.index(s)] = unq(v, f"budgets[{k}].budget.{s}")
        budgets[U] = b
    return Reading((chain, st, theta, budgets), chain=chain, template="separable")


def separable_growth_claims(f: SeparableGrowthFacts) -> JsonObject:
    """The claims of a separable growth certificate.

    Parameters
    ----------
    f : SeparableGrowthFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``delta``, ``increment_bound``, ``clusters``, ``regions``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> separable_growth_claims(SeparableGrowthFacts(1, 2, F(1), F(2)))
    {'delta': '1', 'increment_bound': '2', 'clusters': 1, 'regions': 2}
    """
    return {"delta": q(f.delta), "increment_bound": q(f.increment_bound), "clusters": f.clusters, "regions": f.regions}


def separable_growth_certificate(
    net: Network, chain: Chain, st: Structure, theta: Sequence[Fraction], check: Check[SeparableGrowthFacts]
) -> Certificate:
    """A separable growth certificate, exactly checked.

    Parameters
    ----------
    net : Network
        The network.
    chain : Chain
        Its exponential chain.
    st : Structure
        The shape (:func:`~certify.exact.separable_growth.growth_structure`).
    theta : sequence of Fraction
        The weights, then the tables (:func:`~certify.exact.separable_growth.growth_variables` order).
    check : Check of SeparableGrowthFacts
        The passing :func:`~certify.exact.separable_growth.check_separable_growth` of these.

    Returns
    -------
    Certificate
        The sealed certificate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> over = Network("over", (Station("1", F(1)),), (Stream(F(2), choice=("1",)),))
    >>> chain, st = compile_chain(over), growth_structure((), 1)
    >>> cert = separable_growth_certificate(over, chain, st, [F(1)], check_separable_growth(chain, st, [F(1)]))
    >>> cert["weights"], cert["claims"]["delta"]
    ({'1': '1'}, '1')
    """
    ids = chain.ids
    tables: list[JsonObject] = []
    pos = chain.J
    for g in range(len(st.groups)):
        cells = st.cells(g)
        tables.append({cell_key(c): q(theta[pos + k]) for k, c in enumerate(cells)})
        pos += len(cells)
    payload: JsonObject = {
        "K": _levels_out(st),
        "groups": [[ids[a] for a in F] for F in st.groups],
        "weights": {ids[i]: q(theta[i]) for i in range(chain.J)},
        "tables": tables,
        **phase_expansion(chain),
    }
    return seal(net, "separable-growth", payload, separable_growth_claims(check.facts),
                *separable_statement("separable-growth")(net, chain, ""))


def read_separable_growth(net: Network, cert: Mapping[str, Any]) -> Reading | str:
    """Read a separable growth certificate: its groups, clip level, weights and tables (canonical rationals).

    Parameters
    ----------
    net : Network
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading or str
        The arguments of :func:`certify.exact.separable_growth.check_separable_growth`, or why the kind does not apply.

    Raises
    ------
    CertificateError
        When a field is malformed: naming the field and the rule.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> over = Network("over", (Station("1", F(1)),), (Stream(F(2), choice=("1",)),))
    >>> read_separable_growth(over, {"K": 1, "groups": [], "weights": {"1": "1"}, "tables": []}).args[2]
    [Fraction(1, 1)]
    """
    chain = _chain_of(net, cert)
    if isinstance(chain, str):
        return chain
    ids = chain.ids
    K = _levels_in(cert.get("K"))
    st = _checkable(chain, growth_structure(_groups(chain, cert.get("groups"), "groups"), K, station_phases(chain)))
    ws = cert.get("weights")
    vals = named_rationals(ws if isinstance(ws, dict) else {}, list(ids), "weights")
    theta = [vals[s] for s in ids]
    tabs = cert.get("tables")
    if not isinstance(tabs, list) or len(tabs) != len(st.groups):
        raise CertificateError(None, "tables", "must be a list with one map per group")
    for g, tab in enumerate(tabs):
        keys = [cell_key(c) for c in st.cells(g)]
        got = named_rationals(tab if isinstance(tab, dict) else {}, keys, f"tables[{g}]")
        theta += [got[k] for k in keys]
    return Reading((chain, st, theta), chain=chain, template="separable growth")



KIND = Kind("separable-foster", "stable", ("K", "groups", "multipliers", "P", "tables", "budgets"), read_separable,
            check_separable, separable_claims, separable_statement("separable-foster"),
            "certify.explain.separable:explain_separable", optional=("phase_expansion",))
GROWTH = Kind("separable-growth", "unstable", ("K", "groups", "weights", "tables"), read_separable_growth,
              check_separable_growth, separable_growth_claims, separable_statement("separable-growth"),
              "certify.explain.separable:explain_separable_growth", optional=("phase_expansion",))
