"""What a template's options may be: the validators of option values and the bounds on what they may ask for.

A certificate names its template's options; the checker builds regions and
tables from them, so every value is validated (:func:`clip_level`,
:func:`station_list`) and the size of what it would build is bounded
(:data:`MAX_CLIP_LEVEL`, :data:`MAX_REFINEMENT`, :func:`refinement_factor`)
before anything is expanded.  Exact and numpy-free.
"""

from __future__ import annotations

from typing import Any

from ..core.errors import CertificateError
from ..markov.chain import Chain

__all__ = ["MAX_CLIP_LEVEL", "MAX_REFINEMENT", "clip_level", "station_list", "refinement_factor"]

# Bounds on what a certificate may ask the checker to build (prove stays far below them:
# K <= 36, refinement factors <= 250,000).  Checked before anything is expanded.
MAX_CLIP_LEVEL = 100
MAX_REFINEMENT = 1_000_000


def clip_level(value: Any, field: str) -> int:
    """Validate a clip level K: an integer (not a boolean, not a float) in ``1..MAX_CLIP_LEVEL``.

    Parameters
    ----------
    value : Any
        The option as read (from a certificate or a caller).
    field : str
        The field path named in the error, e.g. ``options.K``.

    Returns
    -------
    int
        ``value`` itself.

    Raises
    ------
    CertificateError
        When ``value`` is not such an integer.

    Examples
    --------
    >>> clip_level(6, "options.K")
    6
    >>> clip_level(6.9, "options.K")
    Traceback (most recent call last):
    ...
    certify.core.errors.CertificateError: options.K: 6.9 must be an integer in 1..100
    """
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_CLIP_LEVEL:
        raise CertificateError(None, field, f"{value!r} must be an integer in 1..{MAX_CLIP_LEVEL}")
    return value


def station_list(chain: Chain, value: Any, field: str, nonempty: bool = False) -> list[str]:
    """Validate a list of station ids: distinct known ids in the network's order.

    The canonical order is the one the checker builds cells and coefficient names in,
    so a reordered or repeated list is refused rather than silently reinterpreted.

    Parameters
    ----------
    chain : Chain
        The chain whose station ids are known.
    value : Any
        The option as read.
    field : str
        The field path named in the error, e.g. ``options.fast``.
    nonempty : bool
        Refuse the empty list too.

    Returns
    -------
    list of str
        A copy of ``value``.

    Raises
    ------
    CertificateError
        When ``value`` is not a list of strings, names an unknown station or one
        twice, is not in the network's order, or is empty although ``nonempty``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.markov.chain import Chain
    >>> ch = Chain(("a", "b"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)))
    >>> station_list(ch, ["a", "b"], "options.fast")
    ['a', 'b']
    >>> station_list(ch, ["b", "a"], "options.fast")
    Traceback (most recent call last):
    ...
    certify.core.errors.CertificateError: options.fast: ['b', 'a'] must list the stations in the network's order ['a', 'b']
    """
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise CertificateError(None, field, f"{value!r} must be a list of station ids (strings)")
    unknown = [s for s in value if s not in chain.ids]
    if unknown:
        raise CertificateError(None, field, f"unknown station {unknown[0]!r} (stations: {', '.join(chain.ids)})")
    if len(set(value)) != len(value):
        dup = next(s for s in value if value.count(s) > 1)
        raise CertificateError(None, field, f"station {dup!r} is listed twice (each station at most once)")
    canonical = [s for s in chain.ids if s in value]
    if value != canonical:
        raise CertificateError(None, field, f"{value!r} must list the stations in the network's order {canonical!r}")
    if nonempty and not value:
        raise CertificateError(None, field, f"{value!r} must name at least one station")
    return list(value)


def refinement_factor(levels: dict[int, int]) -> int:
    """How many pieces the clip levels cut each region into at most: the product of (K_a + 2).

    Parameters
    ----------
    levels : dict of int to int
        Clip level K_a per station index.

    Returns
    -------
    int
        ``prod (K_a + 2)`` (1 without levels).

    Examples
    --------
    >>> refinement_factor({0: 6, 1: 6}), refinement_factor({})
    (64, 1)
    """
    out = 1
    for k in levels.values():
        out *= k + 2
    return out
