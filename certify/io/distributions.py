"""Service and interarrival laws of a ``jsq-network/1`` file, and the phase-type rules that fix their rates.

A law is written ``{"dist": NAME, ...parameters}``; the mean comes from the
rate it belongs to (a station's ``mu``, a stream's ``rate``).  Explicit
phase-type laws (a hyperexponential with ``probs``/``rates``, a ``coxian``) are
authoritative: when the mean of their phases differs from 1/rate by at most a
relative :data:`MEAN_TOLERANCE`, the rate becomes exactly 1/mean (with a note);
beyond that the network is refused.  See :mod:`certify.io.loader` for all the
rules of the format.
"""

from __future__ import annotations

from fractions import Fraction

from ..core.model import DIST_NAMES, Distribution, LawParameter
from .context import Context, brief, key_path, show
from .fields import as_integer, as_list, as_map, check_fields
from .number_fields import (
    MAX_DERIVED_DIGITS,
    as_number,
    as_positive,
    as_probability,
    as_rate,
    check_digits,
    sum_to_one,
)

__all__ = ["MAX_PHASES", "SCV_MIN", "SCV_MAX", "MEAN_TOLERANCE", "as_distribution"]

_DIST_PARAMS = {
    "exponential": (),
    "deterministic": (),
    "erlang": ("k",),
    "hyperexponential": ("scv", "probs", "rates"),
    "coxian": ("scv", "probs", "rates"),
    "gamma": ("scv",),
    "lognormal": ("scv",),
}
assert set(_DIST_PARAMS) == set(DIST_NAMES)
#: Largest Erlang k and largest number of phases of an explicit hyperexponential or Coxian law.
MAX_PHASES = 1000
#: Range of a gamma or lognormal scv (a hyperexponential's scv lies in [1, SCV_MAX]).
SCV_MIN = Fraction(1, 1000)
SCV_MAX = Fraction(1000)
#: Relative difference up to which explicit phases override the stated rate (with a note).
MEAN_TOLERANCE = Fraction(1, 10**6)


def _scv(ctx: Context, v: object, path: str, lo: Fraction, what: str) -> Fraction:
    x = as_positive(ctx, v, path) if lo == SCV_MIN else as_number(ctx, v, path)
    if x < lo:
        ctx.fail(path, f"{show(v)} must be >= {show(lo)} for {what}")
    if x > SCV_MAX:
        ctx.fail(path, f"{show(v)} must be <= {show(SCV_MAX)} (the largest scv allowed)")
    return x


def _phase_rates(ctx: Context, v: object, path: str) -> list[Fraction]:
    rates = as_list(ctx, v, path, True)
    if len(rates) > MAX_PHASES:
        ctx.fail(path, f"has {len(rates)} phases (at most {MAX_PHASES} allowed)")
    return [as_rate(ctx, x, f"{path}[{i}]") for i, x in enumerate(rates)]


def _authoritative(ctx: Context, m: Fraction, path: str, rate: Fraction, rate_path: str, rate_name: str) -> Fraction:
    """The rate every stage uses for a law whose explicit phases have mean ``m`` (module docstring)."""
    if m == 1 / rate:
        return rate
    if abs(m * rate - 1) > MEAN_TOLERANCE:
        ctx.fail(path, f"the explicit phases have mean {brief(m)}, which must equal the mean 1/{rate_name} = "
                 f"{brief(1 / rate)} ({rate_path} = {brief(rate)}) within a relative 1e-6")
    derived = check_digits(ctx, 1 / m, path, MAX_DERIVED_DIGITS, f"the {rate_name} derived from the phases, ")
    ctx.note(f"{rate_path}: {brief(rate)} as written, but the explicit phases of {path} have mean {brief(m)}; "
             f"{rate_name} = {brief(derived)} (from the phases) is used by every stage")
    return derived


def as_distribution(ctx: Context, v: object, path: str, rate: Fraction, rate_path: str,
                    rate_name: str = "rate") -> tuple[Distribution, Fraction]:
    """A distribution shape and the rate every stage uses (``rate``, or 1/mean of explicit phases).

    Parameters
    ----------
    ctx : Context
        Where errors point; receives the note when the phases fix the rate.
    v : object
        The law as read (``{"dist": ..., ...}``).
    path : str
        Its field path (``stations.1.service``).
    rate : Fraction
        The rate as written at ``rate_path`` (``mu`` of a station, ``rate`` of a stream).
    rate_path : str
        Where that rate is written (``stations.1.mu``).
    rate_name : str, default "rate"
        Its name in messages (``"mu"`` for a station).

    Returns
    -------
    tuple of (Distribution, Fraction)
        The law, and the rate every stage uses.

    Raises
    ------
    NetworkError
        For an unknown law or parameter, a parameter out of range, or explicit
        phases whose mean is more than a relative 1e-6 away from 1/rate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> ctx = Context("net.json")
    >>> as_distribution(ctx, {"dist": "erlang", "k": 3}, "stations.1.service", F(2), "stations.1.mu", "mu")
    (Distribution(dist='erlang', params=(('k', 3),)), Fraction(2, 1))
    >>> law, mu = as_distribution(ctx, {"dist": "coxian", "rates": [3, 3], "probs": [0.5]},
    ...                           "stations.1.service", F(2), "stations.1.mu", "mu")
    >>> mu
    Fraction(2, 1)
    >>> as_distribution(ctx, {"dist": "gamma"}, "stations.1.service", F(2), "stations.1.mu", "mu")
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: net.json: stations.1.service.scv: required field is missing
    """
    law = as_map(ctx, v, path)
    if "dist" not in law:
        ctx.fail(key_path(path, "dist"), "required field is missing")
    name = law["dist"]
    if not isinstance(name, str) or name not in _DIST_PARAMS:
        ok = ", ".join(DIST_NAMES)
        ctx.fail(key_path(path, "dist"), f"unknown distribution {show(name)} (one of {ok})")
    allowed = _DIST_PARAMS[name]
    for k in law:
        if k != "dist" and k not in allowed:
            ctx.fail(key_path(path, k), f'{name} has no parameter "{k}"'
                     + (f" (parameters: {', '.join(allowed)})" if allowed else " (it has no parameters)"))
    params: dict[str, LawParameter] = {}
    if name == "erlang":
        check_fields(ctx, law, path, ("dist", "k"), ("k",))
        params["k"] = as_integer(ctx, law["k"], key_path(path, "k"), 1, MAX_PHASES)
    elif name in ("gamma", "lognormal"):
        check_fields(ctx, law, path, ("dist", "scv"), ("scv",))
        params["scv"] = _scv(ctx, law["scv"], key_path(path, "scv"), SCV_MIN, f"a {name} law")
    elif name == "hyperexponential":
        if "scv" in law:
            if "probs" in law or "rates" in law:
                ctx.fail(path, 'give either "scv" or "probs" and "rates", not both')
            params["scv"] = _scv(ctx, law["scv"], key_path(path, "scv"), Fraction(1), "a hyperexponential")
        else:
            if "probs" not in law and "rates" not in law:
                ctx.fail(path, 'hyperexponential needs "scv" or both "probs" and "rates"')
            check_fields(ctx, law, path, ("dist", "probs", "rates"), ("probs", "rates"))
            pp, rp = key_path(path, "probs"), key_path(path, "rates")
            probs = [as_probability(ctx, x, f"{pp}[{i}]") for i, x in enumerate(as_list(ctx, law["probs"], pp, True))]
            rates = _phase_rates(ctx, law["rates"], rp)
            if len(probs) != len(rates):
                ctx.fail(path, f"probs has {len(probs)} entries but rates has {len(rates)} (must be equal)")
            probs = sum_to_one(ctx, probs, pp)
            m = sum((p / r for p, r in zip(probs, rates)), Fraction(0))
            rate = _authoritative(ctx, m, path, rate, rate_path, rate_name)
            params["probs"], params["rates"] = tuple(probs), tuple(rates)
    elif name == "coxian" and "scv" in law:
        if "probs" in law or "rates" in law:
            ctx.fail(path, 'give either "scv" (a Coxian-2 with this mean) or "rates" and "probs", not both')
        params["scv"] = _scv(ctx, law["scv"], key_path(path, "scv"), Fraction(1, 2), "a Coxian-2 law")
    elif name == "coxian":
        check_fields(ctx, law, path, ("dist", "probs", "rates"), ("rates",))
        pp, rp = key_path(path, "probs"), key_path(path, "rates")
        rates = _phase_rates(ctx, law["rates"], rp)
        probs = [as_probability(ctx, x, f"{pp}[{i}]") for i, x in enumerate(as_list(ctx, law.get("probs", []), pp, False))]
        if len(probs) != len(rates) - 1:
            ctx.fail(pp, f"has {len(probs)} entries; a Coxian with {len(rates)} phases needs {len(rates) - 1} "
                     "(the probability of moving on from each phase but the last)")
        m, reach = Fraction(0), Fraction(1)
        for i, r in enumerate(rates):
            m += reach / r
            reach *= probs[i] if i < len(probs) else 0
        rate = _authoritative(ctx, m, path, rate, rate_path, rate_name)
        params["probs"], params["rates"] = tuple(probs), tuple(rates)
    return Distribution(name, tuple(sorted(params.items()))), rate
