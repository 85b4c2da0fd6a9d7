"""Reading a JSQ certificate's payload: every field validated against the network, in canonical form, or refused.

A reader turns the payload of one kind (the template, the coefficients, the
multipliers, ...) into the arguments of that kind's exact checker, a
:class:`Reading`.  A certificate file is hostile input: every option, station
list, clip level and table key is validated against the network and must be in
canonical form (distinct known station ids in the network's order, integers in
a stated range, ``"p/q"`` in lowest terms); a file is never reinterpreted, and
what the checker would build is sized before it is built.  A malformed field
raises :class:`~certify.core.errors.CertificateError` naming it; a network the
kind cannot apply to is a failure (a string).  :class:`Reading` and the field
helpers every reader uses are in :mod:`certify.certificates.reading`; the
fork-join kinds' readers in :mod:`certify.certificates.forkjoin`.  Pure Python.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..core.errors import CertificateError
from ..core.model import ForkJoinNetwork, Network
from ..core.numbers import unq
from ..exact.growth import table_problem
from ..exact.instability import routed_sets
from ..exact.overflow import lossy_sets
from ..markov.chain import Chain, compile_chain
from ..markov.laws import NotPhaseType
from ..markov.phases import markov_chain
from ..markov.symmetry import Symmetry
from ..templates import TEMPLATES
from ..templates.options import station_list
from ..templates.table import table_cells
from .claims import same_json
from .reading import Reading, cell_key, field_map, named_rationals

__all__ = [
    "ENVELOPE_FIELDS",
    "PAYLOAD_FIELDS",
    "KINDS",
    "read_foster",
    "read_growth",
    "read_static_split",
    "read_fluid",
    "read_closed_set",
    "read_finite_state",
    "read_theorem",
]

# The fields every certificate has, and the payload fields of each kind (required, optional).
ENVELOPE_FIELDS = ("format", "kind", "network", "semantics", "claims", "statement", "certify_version", "digest")
PAYLOAD_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "foster": (("template", "options", "coefficients"), ("phase_expansion", "symmetry")),
    "growth": (("weights",), ("table", "phase_expansion")),
    "static-split": (("multipliers",), ()),
    "fluid": (("template", "coefficients"), ("symmetry",)),
    "fluid-flow": (("weights",), ()),
    "closed-set": (("stations",), ()),
    "finite-state": ((), ("phase_expansion",)),
    "theorem": (("theorem",), ()),
    "overflow-foster": (("station", "table"), ()),
    "overflow-growth": (("station", "table"), ()),
    "fork-join-capacity": (("capped",), ()),
    "fork-join-independent": (("lyapunov",), ()),
    "fork-join-foster": (("K", "classes", "table"), ()),
}
KINDS = tuple(PAYLOAD_FIELDS)


def _markov(net: Network, cert: dict[str, Any]) -> Chain | str:
    """The Markov chain the certificate is about, or why the network has none matching its ``phase_expansion``."""
    try:
        chain = markov_chain(net)
    except NotPhaseType as exc:
        return f"the network has no Markovian (phase-type) form: {exc}"
    want = list(chain.expansion) if chain.has_phases else None
    if not same_json(cert.get("phase_expansion"), want):
        return f"phase_expansion: {cert.get('phase_expansion')!r} but the network's phase-type expansion is {want!r}"
    return chain


def read_foster(net: Network, cert: dict[str, Any]) -> Reading | str:
    """Read a Foster–Lyapunov certificate: the template, its options (canonical form) and the coefficients.

    Parameters
    ----------
    net : Network
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading or str
        The arguments of :func:`certify.exact.check_foster`, or why the network
        has no chain matching ``phase_expansion``.

    Raises
    ------
    CertificateError
        When the template is unknown, the options are not in canonical form, or
        a coefficient is not a canonical rational.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> r = read_foster(mm1, {"template": "quadratic", "options": {}, "coefficients": {"P[1,1]": "1"}})
    >>> r.args[1:], r.kwargs
    (('quadratic', {'P[1,1]': Fraction(1, 1)}), {'options': {}})
    """
    chain = _markov(net, cert)
    if isinstance(chain, str):
        return chain
    template = cert.get("template")
    if not isinstance(template, str) or template not in TEMPLATES:
        raise CertificateError(None, "template", f"{template!r} is not a template (one of {', '.join(TEMPLATES)})")
    options = field_map(cert, "options")
    canonical = TEMPLATES[template].resolve_options(chain, dict(options))
    if not same_json(options, canonical):
        raise CertificateError(None, "options", f"{options!r} is not the canonical form {canonical!r} of these options")
    coeffs = field_map(cert, "coefficients")
    bad = [n for n in coeffs if not isinstance(n, str)]
    if bad:
        raise CertificateError(None, "coefficients", f"the name {bad[0]!r} must be a string")
    theta = {n: unq(v, f"coefficients.{n}") for n, v in coeffs.items()}
    kwargs: dict[str, Any] = {"options": canonical}
    if "symmetry" in cert:  # the checker verifies the classes and V's invariance before using them
        kwargs["symmetry"] = _symmetry(chain, cert["symmetry"])
    return Reading((chain, template, theta), kwargs, chain, template)


def read_growth(net: Network, cert: dict[str, Any]) -> Reading | str:
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
    chain = _markov(net, cert)
    if isinstance(chain, str):
        return chain
    vals = named_rationals(field_map(cert, "weights"), list(chain.ids), "weights")
    w = [vals[s] for s in chain.ids]
    if "table" not in cert:
        return Reading((chain, w), chain=chain)
    tab = field_map(cert, "table")
    if set(tab) != {"K", "fast", "values"}:
        raise CertificateError(None, "table", f"must have exactly the fields K, fast, values (got {sorted(tab)})")
    fast = [chain.ids.index(s) for s in station_list(chain, tab["fast"], "table.fast")]
    problem = table_problem(chain, fast, tab["K"])
    if problem:
        where, _, rule = problem.partition(": ")
        raise CertificateError(None, where, rule)
    K = tab["K"]
    cells = table_cells(chain, fast, K)
    values = tab["values"]
    if not isinstance(values, dict):
        raise CertificateError(None, "table.values", f"must be a map from cells to rationals, got {type(values).__name__}")
    named = named_rationals(values, [cell_key(c) for c in cells], "table.values")
    table = {c: named[cell_key(c)] for c in cells}
    return Reading((chain, w), {"table": table, "fast": fast, "K": K}, chain)


def read_static_split(net: Network, cert: dict[str, Any]) -> Reading:
    """Read a static-split dual certificate: one multiplier per routed choice set and one weight per station.

    Parameters
    ----------
    net : Network
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading
        The arguments of :func:`certify.exact.check_static_split`.

    Raises
    ------
    CertificateError
        When ``multipliers`` is not a map of exactly ``sets`` and ``stations``,
        or they do not name exactly the routed sets and the stations.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(1)),), (Stream(F(2), choice=("1",)),))
    >>> read_static_split(mm1, {"multipliers": {"sets": {"1": "-1"}, "stations": {"1": "1"}}}).args[1:]
    ({(0,): Fraction(-1, 1)}, [Fraction(1, 1)], [])
    """
    chain = compile_chain(net)
    m = field_map(cert, "multipliers")
    if set(m) != {"sets", "stations"}:
        raise CertificateError(None, "multipliers", f"must have exactly the fields sets, stations (got {sorted(m)})")
    names = {",".join(chain.ids[j] for j in C): C for C in routed_sets(chain)}
    for part in ("sets", "stations"):
        if not isinstance(m[part], dict):
            raise CertificateError(None, f"multipliers.{part}", f"must be a map, got {type(m[part]).__name__}")
    us = named_rationals(m["sets"], list(names), "multipliers.sets")
    ws = named_rationals(m["stations"], list(chain.ids), "multipliers.stations")
    lossy = lossy_sets(chain, [s.capacity for s in net.stations])  # derived from the network, never read
    return Reading((chain, {names[k]: v for k, v in us.items()}, [ws[s] for s in chain.ids], lossy), chain=chain)


def read_fluid(net: Network, cert: dict[str, Any]) -> Reading:
    """Read a fluid certificate: the template (linear or quadratic) and its named coefficients.

    Parameters
    ----------
    net : Network
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading
        The arguments of :func:`certify.exact.check_fluid` (weights w, or the
        symmetric matrix P from its upper triangle).

    Raises
    ------
    CertificateError
        When the template is not a fluid one, the coefficients do not name
        exactly ``w[i]`` (linear) or ``P[i,j]``, i <= j (quadratic), or
        ``symmetry`` (optional) is not a list of disjoint station classes, each two
        or more distinct known ids in the network's order, the classes ordered by
        their first station.  Whether they *are* symmetries is the checker's to decide.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> mm1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
    >>> read_fluid(mm1, {"template": "quadratic", "coefficients": {"P[1,1]": "1/2"}}).args[1:]
    ('quadratic', [[Fraction(1, 2)]])
    >>> two = Network("two", (Station("1", F(1)), Station("2", F(1))), (Stream(F(1), choice=("1", "2")),))
    >>> cert = {"template": "linear", "coefficients": {"w[1]": "1", "w[2]": "1"}, "symmetry": [["1", "2"]]}
    >>> read_fluid(two, cert).kwargs
    {'symmetry': Symmetry(classes=((0, 1),))}
    """
    chain = compile_chain(net)
    kind = cert.get("template")
    if kind not in ("linear", "quadratic"):
        raise CertificateError(None, "template", f"{kind!r} is not a fluid template (linear or quadratic)")
    named = field_map(cert, "coefficients")
    ids, J = chain.ids, chain.J
    coeffs: list[Fraction] | list[list[Fraction]]
    if kind == "linear":
        vals = named_rationals(named, [f"w[{i}]" for i in ids], "coefficients")
        coeffs = [vals[f"w[{i}]"] for i in ids]
    else:
        vals = named_rationals(named, [f"P[{ids[i]},{ids[j]}]" for i in range(J) for j in range(i, J)], "coefficients")
        P = [[Fraction(0)] * J for _ in range(J)]
        for i in range(J):
            for j in range(i, J):
                P[i][j] = P[j][i] = vals[f"P[{ids[i]},{ids[j]}]"]
        coeffs = P
    kwargs: dict[str, Any] = {}
    if "symmetry" in cert:
        kwargs["symmetry"] = _symmetry(chain, cert["symmetry"])
    return Reading((chain, kind, coeffs), kwargs, chain=chain, template=kind)


def _symmetry(chain: Chain, value: Any) -> Symmetry:
    """The ``symmetry`` field: station classes as lists of ids (disjoint, each in the network's order, sorted)."""
    if not isinstance(value, list) or not value:
        raise CertificateError(None, "symmetry", f"{value!r} must be a non-empty list of station classes (lists of ids)")
    classes: list[tuple[int, ...]] = []
    for k, cl in enumerate(value):
        ids = station_list(chain, cl, f"symmetry[{k}]")
        if len(ids) < 2:
            raise CertificateError(None, f"symmetry[{k}]", f"{cl!r}: a class has two or more stations")
        classes.append(tuple(chain.ids.index(s) for s in ids))
    flat = [a for c in classes for a in c]
    if len(set(flat)) != len(flat):
        raise CertificateError(None, "symmetry", f"{value!r}: the classes must be disjoint")
    if classes != sorted(classes):
        raise CertificateError(None, "symmetry", f"{value!r}: list the classes in the order of their first stations")
    return Symmetry(tuple(classes))


def read_closed_set(net: Network, cert: dict[str, Any]) -> Reading:
    """Read a closed-set certificate: the stations (distinct known ids, in the network's order).

    Parameters
    ----------
    net : Network
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading
        The arguments of :func:`certify.exact.check_closed_set`.

    Raises
    ------
    CertificateError
        When ``stations`` is not a non-empty list of distinct station ids in the network's order.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> two = Network("two", (Station("1", F(1)), Station("2", F(1))), (Stream(F(1), choice=("1", "2")),))
    >>> read_closed_set(two, {"stations": ["2"]}).args[1]
    [1]
    """
    chain = compile_chain(net)
    stations = [chain.ids.index(s) for s in station_list(chain, cert.get("stations"), "stations", nonempty=True)]
    return Reading((chain, stations), chain=chain)


def read_finite_state(net: Network, cert: dict[str, Any]) -> Reading | str:
    """Read a finite-state certificate: nothing beyond the phase expansion; the capacities are the network's.

    Parameters
    ----------
    net : Network
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading or str
        The arguments of :func:`certify.exact.check_finite`, or why the network
        has no chain matching ``phase_expansion``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> lossy = Network("loss", (Station("1", F(1), capacity=3),), (Stream(F(2), choice=("1",)),))
    >>> read_finite_state(lossy, {}).args[1]
    [3]
    """
    chain = _markov(net, cert)
    if isinstance(chain, str):
        return chain
    return Reading((chain, [s.capacity for s in net.stations]), chain=chain)


def read_theorem(net: Network | ForkJoinNetwork, cert: dict[str, Any]) -> Reading:
    """Read a theorem certificate: the theorem's name (nothing else in it is believed).

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        The network.
    cert : dict
        The certificate.

    Returns
    -------
    Reading
        The arguments of :func:`certify.exact.check_theorem`.

    Raises
    ------
    CertificateError
        When ``theorem`` is not a string.

    Examples
    --------
    >>> read_theorem(None, {"theorem": "no feedback: subset condition"}).template
    'no feedback: subset condition'
    """
    name = cert.get("theorem")
    if not isinstance(name, str):
        raise CertificateError(None, "theorem", f"{name!r} must be a theorem's name (a string)")
    return Reading((net, name), template=name)
