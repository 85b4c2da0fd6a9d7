"""What each kind of JSQ certificate claims, derived from the facts of its check, and the one claim comparison.

A certificate's ``claims`` are never read as facts: the writer derives them
from the passing check (one function per kind here; the fork-join kinds' in
:mod:`certify.certificates.forkjoin`), and :func:`certify.certificates.verify`
derives them again from its own check and compares (:func:`compare_claims`):
equal as JSON text, key by key, or refused.  Pure Python.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..core.numbers import q
from ..exact.facts import (
    ClosedSetFacts,
    FiniteStateFacts,
    FluidFacts,
    FosterFacts,
    GrowthFacts,
    StaticSplitFacts,
    TheoremFacts,
)

__all__ = [
    "same_json",
    "compare_claims",
    "foster_claims",
    "static_split_claims",
    "fluid_claims",
    "growth_claims",
    "closed_set_claims",
    "finite_state_claims",
    "theorem_claims",
]


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON text (so ``true`` is not ``1`` and ``1.0`` is not ``1``).

    Parameters
    ----------
    a, b : object
        JSON values.

    Returns
    -------
    bool
        Whether their canonical JSON texts are equal.

    Examples
    --------
    >>> same_json({"a": 1}, {"a": 1}), same_json(True, 1), same_json(1.0, 1)
    (True, False, False)
    """
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def compare_claims(stored: Mapping[str, Any], derived: Mapping[str, Any]) -> list[str]:
    """The claims of a file that differ from the derived ones, one failure per key, keys sorted.

    Parameters
    ----------
    stored : mapping
        The file's ``claims``.
    derived : mapping
        The claims derived by the exact check.

    Returns
    -------
    list of str
        ``claim KEY = STORED but the exact check gives DERIVED`` for every key of
        either side whose values differ as JSON (a missing key reads as None).

    Examples
    --------
    >>> compare_claims({"delta": "1/2", "extra": 1}, {"delta": "1/2"})
    ['claim extra = 1 but the exact check gives None']
    """
    return [
        f"claim {key} = {stored.get(key)!r} but the exact check gives {derived.get(key)!r}"
        for key in sorted(set(derived) | set(stored))
        if key not in stored or not same_json(stored[key], derived.get(key))
    ]


def foster_claims(f: FosterFacts) -> dict[str, Any]:
    """The claims of a Foster–Lyapunov certificate.

    Parameters
    ----------
    f : FosterFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``delta``, ``exceptional_set`` (l1 bound), ``regions``, ``rows``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> foster_claims(FosterFacts(2, 1, F(2), F(10), "quadratic", {}, ["P[1,1]"]))
    {'delta': '2', 'exceptional_set': {'norm': 'l1', 'bound': '10'}, 'regions': 2, 'rows': 1}
    """
    return {
        "delta": q(f.delta),
        "exceptional_set": {"norm": "l1", "bound": q(f.exceptional_l1_bound)},
        "regions": f.regions,
        "rows": f.rows,
    }


def static_split_claims(f: StaticSplitFacts) -> dict[str, Any]:
    """The claims of a static-split dual certificate.

    Parameters
    ----------
    f : StaticSplitFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``dual_value`` and ``overloaded``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> static_split_claims(StaticSplitFacts(F(-1, 2), ["1"]))
    {'dual_value': '-1/2', 'overloaded': ['1']}
    """
    return {"dual_value": q(f.dual_value), "overloaded": f.overloaded}


def fluid_claims(f: FluidFacts) -> dict[str, Any]:
    """The claims of a fluid Lyapunov certificate.

    Parameters
    ----------
    f : FluidFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``delta``, ``eta``, ``faces``, ``rows``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> fluid_claims(FluidFacts(1, 1, F(1), F(1), "linear"))
    {'delta': '1', 'eta': '1', 'faces': 1, 'rows': 1}
    """
    return {"delta": q(f.delta), "eta": q(f.eta), "faces": f.faces, "rows": f.rows}


def growth_claims(f: GrowthFacts) -> dict[str, Any]:
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


def closed_set_claims(f: ClosedSetFacts) -> dict[str, Any]:
    """The claims of a closed-set certificate.

    Parameters
    ----------
    f : ClosedSetFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``inflow``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> closed_set_claims(ClosedSetFacts(["2"], F(1, 10)))
    {'inflow': '1/10'}
    """
    return {"inflow": q(f.inflow)}


def finite_state_claims(f: FiniteStateFacts) -> dict[str, Any]:
    """The claims of a finite-state certificate.

    Parameters
    ----------
    f : FiniteStateFacts
        The facts of the passing check.

    Returns
    -------
    dict
        ``states``.

    Examples
    --------
    >>> finite_state_claims(FiniteStateFacts(16))
    {'states': 16}
    """
    return {"states": f.states}


def theorem_claims(f: TheoremFacts) -> dict[str, Any]:
    """The claims of a theorem certificate.

    Parameters
    ----------
    f : TheoremFacts
        The facts of the passing check (the theorem re-run).

    Returns
    -------
    dict
        ``verdict`` and ``numbers``.

    Examples
    --------
    >>> theorem_claims(TheoremFacts("t", "stable", "a paper", "lam/mu = 0.5", []))
    {'verdict': 'stable', 'numbers': 'lam/mu = 0.5'}
    """
    return {"verdict": f.verdict, "numbers": f.numbers}
