"""The certificate kinds, one module each, and the registry built from them.

Each module declares one :class:`~certify.certificates.kinds.base.Kind` (two for
:mod:`.overflow`): its payload fields, writer, reader, exact checker, claims,
statement and explainer.  :data:`REGISTRY` maps the kind's name to it, in the
order the messages list them; :func:`~certify.certificates.verify`, the
statement of a kind (:func:`~certify.certificates.statements.derived_claim`) and
:func:`certify.explain.explain` read it at call time, so a kind registered
later (a plug-in, a test's toy kind) is verified and explained like the others.

Adding a kind: its module here (payload, writer, reader, claims, statement,
``KIND``), its exact check in :mod:`certify.exact`, its explainer in
:mod:`certify.explain`, its tests and its docs page; then one line in
:data:`REGISTRY`.  Pure Python.
"""

from __future__ import annotations

from . import (
    closed_set,
    finite_state,
    fluid,
    fluid_flow,
    fork_join_capacity,
    fork_join_foster,
    fork_join_independent,
    foster,
    growth,
    overflow,
    separable,
    sink_drain,
    sink_growth,
    static_split,
    theorem,
)
from .base import ENVELOPE_FIELDS, Kind

__all__ = ["ENVELOPE_FIELDS", "Kind", "REGISTRY", "KINDS", "kind_named", "register"]

#: Every certificate kind by name (the built-in ones, in this order; :func:`register` adds more).
REGISTRY: dict[str, Kind] = {
    k.name: k
    for k in (
        foster.KIND,
        growth.KIND,
        static_split.KIND,
        fluid.KIND,
        fluid_flow.KIND,
        closed_set.KIND,
        finite_state.KIND,
        theorem.KIND,
        overflow.FOSTER,
        overflow.GROWTH,
        separable.KIND,
        separable.GROWTH,
        sink_growth.KIND,
        sink_drain.KIND,
        fork_join_capacity.KIND,
        fork_join_independent.KIND,
        fork_join_foster.KIND,
    )
}

#: The names of the built-in kinds.
KINDS = tuple(REGISTRY)


def kind_named(name: object) -> Kind | None:
    """The registered kind of that name, or None.

    Parameters
    ----------
    name : object
        A kind's name (as read from a file: anything).

    Returns
    -------
    Kind or None
        The kind.

    Examples
    --------
    >>> kind_named("growth").proves, kind_named("Growth")
    ('unstable', None)
    """
    return REGISTRY.get(name) if isinstance(name, str) else None


def register(kind: Kind) -> Kind:
    """Add a kind to the registry (a plug-in's kind; refused when the name is taken).

    Parameters
    ----------
    kind : Kind
        The kind.

    Returns
    -------
    Kind
        The same kind.

    Raises
    ------
    ValueError
        When a kind of that name is registered already.

    Examples
    --------
    >>> register(REGISTRY["foster"])
    Traceback (most recent call last):
    ...
    ValueError: a certificate kind named 'foster' is registered already
    """
    if kind.name in REGISTRY:
        raise ValueError(f"a certificate kind named {kind.name!r} is registered already")
    REGISTRY[kind.name] = kind
    return kind
