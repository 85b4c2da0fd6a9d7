"""Plain JSON for the command line's ``--json`` output: exact numbers as strings, every container a list or an object.

Public: :func:`json_value`.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..core.jsontypes import JsonValue

__all__ = ["json_value"]


def json_value(v: object) -> JsonValue:
    """``v`` as plain JSON: Fractions as ``"p/q"`` strings, tuples and sets as lists, keys as strings.

    Parameters
    ----------
    v : object
        A value built of dicts, lists, tuples, sets, strings, numbers
        (Fractions, floats, ints, numpy scalars) and None.

    Returns
    -------
    JsonValue
        The same value with every Fraction written exactly (``"3/4"``, ``"2"``),
        non-finite floats as strings, tuples as lists, sets as sorted lists,
        dict keys as strings, and anything else as ``str(v)``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> json_value({"delta": Fraction(3, 4), (1, 2): {Fraction(2)}, "t": float("inf"), "ok": True})
    {'delta': '3/4', '[1, 2]': ['2'], 't': 'inf', 'ok': True}
    """
    if isinstance(v, bool) or v is None or isinstance(v, (str, int)):
        return v
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    if isinstance(v, float):
        return v if math.isfinite(v) else str(v)
    if isinstance(v, dict):
        return {k if isinstance(k, str) else str(json_value(k)): json_value(x) for k, x in v.items()}
    from certify.exact.facts import Facts

    if isinstance(v, Facts):  # a check's facts: its fields by name, in their order
        return json_value(v.as_dict())
    if isinstance(v, (list, tuple)):
        return [json_value(x) for x in v]
    if isinstance(v, (set, frozenset)):
        return sorted((json_value(x) for x in v), key=str)
    try:  # numpy scalars
        import numbers

        if isinstance(v, numbers.Integral):
            return int(v)
        if isinstance(v, numbers.Real):
            return json_value(float(v))
    except (TypeError, ValueError):  # pragma: no cover
        pass
    return str(v)
