"""The one claim comparison: a certificate's claims against the ones its check derives.

A certificate's ``claims`` are never read as facts: the writer derives them
from the passing check (each kind's ``claims`` function, in
:mod:`certify.certificates.kinds`), and :func:`certify.certificates.verify`
derives them again from its own check and compares (:func:`compare_claims`):
equal as JSON text, key by key, or refused.  Pure Python.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["same_json", "compare_claims"]


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
