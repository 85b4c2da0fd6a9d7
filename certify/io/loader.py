"""Read, validate and write network files (``jsq-network/1``, ``fork-join-redundancy/1``).

The format is described in ``FORMAT.md``.  Every network that breaks a rule of the
format is refused with one :class:`~certify.core.errors.NetworkError` naming the file,
the field path (``streams[1].choice[0]``) and the rule.

Numbers are exact.  A decimal written in a file becomes the
:class:`~fractions.Fraction` of that decimal (``0.1`` is ``Fraction(1, 10)``, not
the binary float nearest to it).  As an extension of the format, any rate,
probability or ``scv`` may also be written as a string holding a fraction or a
decimal (``"1/3"``, ``"0.25"``), which lets exact values that have no finite
decimal expansion be written down; :func:`to_dict` uses that form for such values.
Booleans are never numbers.

One source of truth for every number
-------------------------------------
Every stage (fluid model, theorems, static split, Markov chain, simulator,
network digest, certificates) reads the rates of :class:`~certify.core.model.Station`
(``mu``) and :class:`~certify.core.model.Stream` (``rate``) and the probabilities as
loaded, so the loader alone decides them, by these rules:

* **Explicit phase-type laws are authoritative.**  For an explicit
  ``hyperexponential`` (``probs``/``rates``) or ``coxian`` law the exact mean m
  of the phases is computed.  If m equals the mean implied by the rate (1/mu
  for service, 1/rate for interarrival times) nothing changes.  If they differ
  by at most a relative ``1e-6`` (:data:`MEAN_TOLERANCE`), the phases as written
  win: the station's ``mu`` (the stream's ``rate``) becomes exactly 1/m, and one
  sentence naming the field and both exact values is appended to
  :attr:`Network.notes <certify.core.model.Network.notes>`.  Beyond that the network
  is refused, naming the field and both exact values.  So a decimal-rounded
  phase rate (``0.0617283950617284`` for 5/81) still loads, and a law whose
  phases are slower than ``mu`` says makes the station slower everywhere.
* **Probabilities that must sum to 1** (hyperexponential ``probs``,
  ``tie_breaking[].probs``, a stream's ``choices[].prob``): an exact sum of 1 is
  kept as written; a sum within ``1e-9`` of 1 (:data:`SUM_TOLERANCE`) divides every
  probability by that exact sum (they then sum to exactly 1) and a note names
  the field and the sum; any other sum is refused.  Feedback probabilities of
  one station must sum to at most 1, exactly (no tolerance).
* **Numbers in range** (refused otherwise, naming the field and the rule):

  - every rate (``mu``, a stream's ``rate``, the phase ``rates`` of an explicit
    law, fork-join ``rate`` and server ``mu``) lies in ``[1e-9, 1e9]``
    (:data:`RATE_MIN`, :data:`RATE_MAX`);
  - the numerator and the denominator of every number as written have at most
    :data:`MAX_DIGITS` = 60 decimal digits (decimal exponents beyond +-1000 are
    refused before any integer is built); a rate derived from explicit phases
    has at most :data:`MAX_DERIVED_DIGITS` = 1000;
  - Erlang ``k`` and the number of phases of an explicit law are at most
    :data:`MAX_PHASES` = 1000;
  - ``scv`` of a gamma or lognormal law lies in ``[1/1000, 1000]``, of a
    hyperexponential in ``[1, 1000]`` (:data:`SCV_MIN`, :data:`SCV_MAX`);
  - a ``capacity`` is at most :data:`MAX_CAPACITY` = 10^9;
  - a ``sample`` stream draws from at most :data:`MAX_SAMPLE_SETS` = 100000
    distinct d-subsets (C(len(from), d)).

Public functions: :func:`load`, :func:`loads`, :func:`from_dict`, :func:`to_dict`,
:func:`dump`.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import re
import tomllib
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import Any, NoReturn

from ..core.errors import NetworkError
from ..core.model import (
    DIST_NAMES,
    EXPONENTIAL,
    FORK_JOIN_FORMAT,
    JSQ_FORMAT,
    Distribution,
    Feedback,
    ForkJoinNetwork,
    Network,
    Station,
    Stream,
    TieBreak,
)
from ..core.numbers import exact_str

__all__ = [
    "FORK_JOIN_FORMAT",
    "JSQ_FORMAT",
    "MAX_CAPACITY",
    "MAX_DERIVED_DIGITS",
    "MAX_DIGITS",
    "MAX_PHASES",
    "MAX_SAMPLE_SETS",
    "MEAN_TOLERANCE",
    "RATE_MAX",
    "RATE_MIN",
    "SCV_MAX",
    "SCV_MIN",
    "SUM_TOLERANCE",
    "dump",
    "from_dict",
    "load",
    "loads",
    "to_dict",
]

_JSQ_FIELDS = ("format", "name", "stations", "streams", "feedback", "tie_breaking", "expected")
_FJ_FIELDS = ("format", "name", "n", "k", "rate", "servers", "expected")
_DIST_PARAMS = {
    "exponential": (),
    "deterministic": (),
    "erlang": ("k",),
    "hyperexponential": ("scv", "probs", "rates"),
    "coxian": ("probs", "rates"),
    "gamma": ("scv",),
    "lognormal": ("scv",),
}
assert set(_DIST_PARAMS) == set(DIST_NAMES)
_MAX_EXPONENT = 1000  # |decimal exponent| accepted; larger would build huge integers
#: Every rate lies in [RATE_MIN, RATE_MAX].
RATE_MIN = Fraction(1, 10**9)
RATE_MAX = Fraction(10**9)
#: Decimal digits allowed in the numerator and in the denominator of a number as written.
MAX_DIGITS = 60
#: Decimal digits allowed in the numerator and denominator of a rate derived from explicit phases.
MAX_DERIVED_DIGITS = 1000
#: Largest Erlang k and largest number of phases of an explicit hyperexponential or Coxian law.
MAX_PHASES = 1000
#: Range of a gamma or lognormal scv (a hyperexponential's scv lies in [1, SCV_MAX]).
SCV_MIN = Fraction(1, 1000)
SCV_MAX = Fraction(1000)
#: Largest station capacity.
MAX_CAPACITY = 10**9
#: Largest number of d-subsets a ``sample`` stream draws from.
MAX_SAMPLE_SETS = 100_000
#: Relative difference up to which explicit phases override the stated rate (with a note).
MEAN_TOLERANCE = Fraction(1, 10**6)
#: Distance from 1 up to which probabilities that must sum to 1 are normalised (with a note).
SUM_TOLERANCE = Fraction(1, 10**9)
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")


# ----------------------------------------------------------------------------- helpers
class _Ctx:
    """Where errors point: the file (or ``None``)."""

    def __init__(self, file: str | None) -> None:
        self.file = file
        self.notes: list[str] = []  # what the loader derived (Network.notes)

    def fail(self, path: str | None, rule: str) -> NoReturn:
        raise NetworkError(self.file, path, rule)

    def note(self, text: str) -> None:
        self.notes.append(text)


def _key(path: str | None, name: Any) -> str:
    """``path`` extended by a map key: ``stations.3`` or ``stations["a b"]``."""
    name = str(name)
    if _PLAIN_KEY.fullmatch(name):
        return f"{path}.{name}" if path else name
    return f"{path or ''}[{json.dumps(name)}]"


def _show(v: Any) -> str:
    """A value as the user would recognise it in a message."""
    if isinstance(v, bool) or v is None:
        return json.dumps(v)
    if isinstance(v, Fraction):
        return exact_str(v)
    if isinstance(v, (int, float, Decimal)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    return _kind(v)


def _kind(v: Any) -> str:
    if isinstance(v, bool):
        return f"boolean {json.dumps(v)}"
    if v is None:
        return "null"
    if isinstance(v, str):
        return f"string {json.dumps(v)}"
    if isinstance(v, Mapping):
        return "a map"
    if isinstance(v, (list, tuple)):
        return "a list"
    if isinstance(v, (numbers.Number, Decimal)):
        return f"number {v}"
    return f"a {type(v).__name__}"


def _map(ctx: _Ctx, v: Any, path: str | None, what: str = "a map (JSON object / TOML table)") -> Mapping:
    if not isinstance(v, Mapping):
        ctx.fail(path, f"must be {what}, got {_kind(v)}")
    return v


def _list(ctx: _Ctx, v: Any, path: str, nonempty: bool = False) -> list | tuple:
    if not isinstance(v, (list, tuple)):
        ctx.fail(path, f"must be a list, got {_kind(v)}")
    if nonempty and not v:
        ctx.fail(path, "must be a non-empty list")
    return v


def _str(ctx: _Ctx, v: Any, path: str) -> str:
    if not isinstance(v, str):
        ctx.fail(path, f"must be a string, got {_kind(v)}")
    return v


def _fields(ctx: _Ctx, obj: Mapping, path: str | None, allowed: tuple, required: tuple = (),
            x_ok: bool = False) -> None:
    """Refuse unknown keys (``x-...`` too, unless ``x_ok``) and missing required keys."""
    for k in obj:
        if not isinstance(k, str):
            ctx.fail(path, f"field names must be strings, got {_kind(k)}")
        if k not in allowed and not (x_ok and k.startswith("x-")):
            ok = ", ".join(f'"{a}"' for a in allowed) + (', or a name starting with "x-"' if x_ok else "")
            ctx.fail(_key(path, k), f'unknown field "{k}" (allowed: {ok})')
    for k in required:
        if k not in obj:
            ctx.fail(_key(path, k), "required field is missing")


def _decimal(ctx: _Ctx, d: Decimal, v: Any, path: str) -> Fraction:
    if not d.is_finite():
        ctx.fail(path, f"{_show(v)} must be a finite number")
    if d and abs(d.adjusted()) > _MAX_EXPONENT:
        ctx.fail(path, f"{_show(v)} is out of range (exponent beyond +-{_MAX_EXPONENT}; "
                 f"numbers have at most {MAX_DIGITS} digits)")
    if len(d.as_tuple().digits) > _MAX_EXPONENT:
        ctx.fail(path, f"a number written with {len(d.as_tuple().digits)} digits has too many digits "
                 f"(at most {MAX_DIGITS} in its numerator and denominator)")
    return Fraction(d)


def _exact(ctx: _Ctx, v: Any, path: str) -> Fraction:
    """An exact number: int, Decimal, float (its shortest decimal), Fraction or "p/q"/"0.25"."""
    if isinstance(v, bool):
        ctx.fail(path, f"must be a number, got {_kind(v)}")
    if isinstance(v, Fraction):
        return v
    if isinstance(v, numbers.Integral):
        return Fraction(int(v))
    if isinstance(v, Decimal):
        return _decimal(ctx, v, v, path)
    if isinstance(v, numbers.Rational):
        return Fraction(int(v.numerator), int(v.denominator))
    if isinstance(v, numbers.Real):
        f = float(v)
        if not math.isfinite(f):
            ctx.fail(path, f"{f} must be a finite number")
        return Fraction(repr(f))
    if isinstance(v, str):
        s = v.strip()
        try:
            x = Fraction(s) if "/" in s else Decimal(s)
        except (ValueError, ZeroDivisionError, InvalidOperation):
            ctx.fail(path, f'{_show(v)} is not a number (write a number, or a string like "1/3" or "0.25")')
        return x if isinstance(x, Fraction) else _decimal(ctx, x, v, path)
    ctx.fail(path, f"must be a number, got {_kind(v)}")


def _ndigits(n: int) -> int:
    return len(str(abs(n)))


def _brief(x: Fraction) -> str:
    """An exact number for a message, shortened when it has very many digits."""
    text = _show(x)
    return text if len(text) <= 80 else f"{text[:30]}...{text[-10:]} ({len(text)} characters)"


def _digits(ctx: _Ctx, x: Fraction, path: str, limit: int = MAX_DIGITS, what: str = "") -> Fraction:
    """Refuse ``x`` when its numerator or denominator has more than ``limit`` decimal digits."""
    worst = max(_ndigits(x.numerator), _ndigits(x.denominator))
    if worst > limit:
        ctx.fail(path, f"{what}{_brief(x)} has {worst} digits in its numerator or denominator "
                 f"(at most {limit} allowed)")
    return x


def _num(ctx: _Ctx, v: Any, path: str) -> Fraction:
    """An exact number with at most :data:`MAX_DIGITS` digits in numerator and denominator."""
    return _digits(ctx, _exact(ctx, v, path), path)


def _pos(ctx: _Ctx, v: Any, path: str) -> Fraction:
    x = _num(ctx, v, path)
    if x <= 0:
        ctx.fail(path, f"{_show(v)} must be > 0")
    return x


def _rate(ctx: _Ctx, v: Any, path: str) -> Fraction:
    """A rate: > 0 and in [:data:`RATE_MIN`, :data:`RATE_MAX`] (checked before the digit bound)."""
    x = _exact(ctx, v, path)
    if x <= 0:
        ctx.fail(path, f"{_show(v)} must be > 0")
    if not RATE_MIN <= x <= RATE_MAX:
        shown = _show(v) if not isinstance(v, (int, Fraction)) else _brief(x)
        ctx.fail(path, f"{shown} is outside the range [1e-9, 1e9] allowed for rates")
    return _digits(ctx, x, path)


def _prob(ctx: _Ctx, v: Any, path: str, zero_ok: bool = True) -> Fraction:
    x = _num(ctx, v, path)
    if x < 0 or x > 1 or (x == 0 and not zero_ok):
        ctx.fail(path, f"{_show(v)} must be a probability in {'[0, 1]' if zero_ok else '(0, 1]'}")
    return x


def _int(ctx: _Ctx, v: Any, path: str, lo: int, hi: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        ctx.fail(path, f"must be an integer, got {_kind(v)}")
    v = int(v)
    if v < lo or (hi is not None and v > hi):
        ctx.fail(path, f"{v} must be an integer >= {lo}" + (f" and <= {hi}" if hi is not None else ""))
    return v


def _ids(ctx: _Ctx, v: Any, path: str, ids: tuple[str, ...], min_size: int = 1) -> tuple[str, ...]:
    """A choice set: a list of distinct known station ids."""
    _list(ctx, v, path)
    if len(v) < min_size:
        ctx.fail(path, f"must list at least {min_size} station{'s' if min_size > 1 else ''}, got {len(v)}")
    seen: list[str] = []
    for i, s in enumerate(v):
        p = f"{path}[{i}]"
        if not isinstance(s, str):
            ctx.fail(p, f"station ids are strings, got {_kind(s)}")
        if s not in ids:
            ctx.fail(p, f"unknown station {json.dumps(s)} (stations: {', '.join(map(json.dumps, ids))})")
        if s in seen:
            ctx.fail(p, f"station {json.dumps(s)} appears twice in the set")
        seen.append(s)
    return tuple(seen)


def _sum_one(ctx: _Ctx, probs: list[Fraction], path: str) -> list[Fraction]:
    """Probabilities that must sum to 1: as written when they do exactly; divided by their
    exact sum (with a note) when it is within :data:`SUM_TOLERANCE` of 1; refused otherwise."""
    total = sum(probs, Fraction(0))
    if total == 1:
        return probs
    if abs(total - 1) > SUM_TOLERANCE:
        ctx.fail(path, f"probabilities sum to {_brief(total)} (must be 1; a sum within 1e-9 of 1 is normalised)")
    ctx.note(f"{path}: the probabilities sum to {_brief(total)}, not exactly 1; each is divided by that sum "
             "(so they sum to exactly 1) and every stage uses the divided values")
    return [q / total for q in probs]


def _plain(v: Any) -> Any:
    """Free-form data (``expected``, ``x-...``) as plain JSON-like values.

    Decimals become floats (as :func:`json.load` would give), Fractions are
    written as by :func:`to_dict`, tuples become lists.
    """
    if isinstance(v, Decimal):
        return float(v)
    if isinstance(v, Fraction):
        return _out(v)
    if isinstance(v, Mapping):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


# ------------------------------------------------------------------------- validation
def _scv(ctx: _Ctx, v: Any, path: str, lo: Fraction, what: str) -> Fraction:
    x = _pos(ctx, v, path) if lo == SCV_MIN else _num(ctx, v, path)
    if x < lo:
        ctx.fail(path, f"{_show(v)} must be >= {_show(lo)} for {what}")
    if x > SCV_MAX:
        ctx.fail(path, f"{_show(v)} must be <= {_show(SCV_MAX)} (the largest scv allowed)")
    return x


def _phase_rates(ctx: _Ctx, v: Any, path: str) -> list[Fraction]:
    rates = _list(ctx, v, path, True)
    if len(rates) > MAX_PHASES:
        ctx.fail(path, f"has {len(rates)} phases (at most {MAX_PHASES} allowed)")
    return [_rate(ctx, x, f"{path}[{i}]") for i, x in enumerate(rates)]


def _authoritative(ctx: _Ctx, m: Fraction, path: str, rate: Fraction, rate_path: str, rate_name: str) -> Fraction:
    """The rate every stage uses for a law whose explicit phases have mean ``m`` (module docstring)."""
    if m == 1 / rate:
        return rate
    if abs(m * rate - 1) > MEAN_TOLERANCE:
        ctx.fail(path, f"the explicit phases have mean {_brief(m)}, which must equal the mean 1/{rate_name} = "
                 f"{_brief(1 / rate)} ({rate_path} = {_brief(rate)}) within a relative 1e-6")
    derived = _digits(ctx, 1 / m, path, MAX_DERIVED_DIGITS, f"the {rate_name} derived from the phases, ")
    ctx.note(f"{rate_path}: {_brief(rate)} as written, but the explicit phases of {path} have mean {_brief(m)}; "
             f"{rate_name} = {_brief(derived)} (from the phases) is used by every stage")
    return derived


def _dist(ctx: _Ctx, v: Any, path: str, rate: Fraction, rate_path: str,
          rate_name: str = "rate") -> tuple[Distribution, Fraction]:
    """A distribution shape and the rate every stage uses (``rate``, or 1/mean of explicit phases).

    ``rate`` is the rate as written at ``rate_path`` (``mu`` of a station, ``rate`` of a stream).
    """
    _map(ctx, v, path)
    if "dist" not in v:
        ctx.fail(_key(path, "dist"), "required field is missing")
    name = v["dist"]
    if not isinstance(name, str) or name not in _DIST_PARAMS:
        ok = ", ".join(DIST_NAMES)
        ctx.fail(_key(path, "dist"), f"unknown distribution {_show(name)} (one of {ok})")
    allowed = _DIST_PARAMS[name]
    for k in v:
        if k != "dist" and k not in allowed:
            ctx.fail(_key(path, k), f'{name} has no parameter "{k}"'
                     + (f" (parameters: {', '.join(allowed)})" if allowed else " (it has no parameters)"))
    params: dict[str, Any] = {}
    if name == "erlang":
        _fields(ctx, v, path, ("dist", "k"), ("k",))
        params["k"] = _int(ctx, v["k"], _key(path, "k"), 1, MAX_PHASES)
    elif name in ("gamma", "lognormal"):
        _fields(ctx, v, path, ("dist", "scv"), ("scv",))
        params["scv"] = _scv(ctx, v["scv"], _key(path, "scv"), SCV_MIN, f"a {name} law")
    elif name == "hyperexponential":
        if "scv" in v:
            if "probs" in v or "rates" in v:
                ctx.fail(path, 'give either "scv" or "probs" and "rates", not both')
            params["scv"] = _scv(ctx, v["scv"], _key(path, "scv"), Fraction(1), "a hyperexponential")
        else:
            if "probs" not in v and "rates" not in v:
                ctx.fail(path, 'hyperexponential needs "scv" or both "probs" and "rates"')
            _fields(ctx, v, path, ("dist", "probs", "rates"), ("probs", "rates"))
            pp, rp = _key(path, "probs"), _key(path, "rates")
            probs = [_prob(ctx, x, f"{pp}[{i}]") for i, x in enumerate(_list(ctx, v["probs"], pp, True))]
            rates = _phase_rates(ctx, v["rates"], rp)
            if len(probs) != len(rates):
                ctx.fail(path, f"probs has {len(probs)} entries but rates has {len(rates)} (must be equal)")
            probs = _sum_one(ctx, probs, pp)
            m = sum((p / r for p, r in zip(probs, rates)), Fraction(0))
            rate = _authoritative(ctx, m, path, rate, rate_path, rate_name)
            params["probs"], params["rates"] = tuple(probs), tuple(rates)
    elif name == "coxian":
        _fields(ctx, v, path, ("dist", "probs", "rates"), ("rates",))
        pp, rp = _key(path, "probs"), _key(path, "rates")
        rates = _phase_rates(ctx, v["rates"], rp)
        probs = [_prob(ctx, x, f"{pp}[{i}]") for i, x in enumerate(_list(ctx, v.get("probs", []), pp, False))]
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


def _choices(ctx: _Ctx, v: Any, path: str, ids: tuple[str, ...]) -> tuple:
    out = []
    for i, c in enumerate(_list(ctx, v, path, True)):
        p = f"{path}[{i}]"
        _fields(ctx, _map(ctx, c, p), p, ("set", "prob"), ("set", "prob"))
        out.append((_ids(ctx, c["set"], _key(p, "set"), ids), _prob(ctx, c["prob"], _key(p, "prob"))))
    probs = _sum_one(ctx, [q for _, q in out], path)
    return tuple((c, q) for (c, _), q in zip(out, probs))


def _sample(ctx: _Ctx, v: Any, path: str, ids: tuple[str, ...]) -> tuple:
    _fields(ctx, _map(ctx, v, path), path, ("from", "d"), ("from", "d"))
    pool = _ids(ctx, v["from"], _key(path, "from"), ids)
    d = _int(ctx, v["d"], _key(path, "d"), 1, len(pool))
    if math.comb(len(pool), d) > MAX_SAMPLE_SETS:
        ctx.fail(path, f"drawing d = {d} of {len(pool)} stations gives {math.comb(len(pool), d)} possible sets "
                 f"(at most {MAX_SAMPLE_SETS} allowed)")
    return pool, d


def _stream(ctx: _Ctx, v: Any, path: str, ids: tuple[str, ...]) -> Stream:
    _fields(ctx, _map(ctx, v, path), path, ("choice", "choices", "sample", "rate", "interarrival"), ("rate",))
    given = [k for k in ("choice", "choices", "sample") if k in v]
    if len(given) != 1:
        ctx.fail(path, 'needs exactly one of "choice", "choices" or "sample"'
                 + (f", got {' and '.join(given)}" if given else ""))
    rate = _rate(ctx, v["rate"], _key(path, "rate"))
    kw: dict[str, Any] = {}
    if "choice" in v:
        kw["choice"] = _ids(ctx, v["choice"], _key(path, "choice"), ids)
    elif "choices" in v:
        kw["choices"] = _choices(ctx, v["choices"], _key(path, "choices"), ids)
    else:
        kw["sample"] = _sample(ctx, v["sample"], _key(path, "sample"), ids)
    if "interarrival" in v:
        kw["interarrival"], rate = _dist(ctx, v["interarrival"], _key(path, "interarrival"), rate,
                                         _key(path, "rate"))
    return Stream(rate, **kw)


def _station(ctx: _Ctx, sid: Any, v: Any, path: str) -> Station:
    if not isinstance(sid, str) or not sid:
        ctx.fail(path, f"station ids must be non-empty strings, got {_kind(sid)}")
    _fields(ctx, _map(ctx, v, path), path, ("mu", "service", "capacity"), ("mu",))
    mu = _rate(ctx, v["mu"], _key(path, "mu"))
    service = EXPONENTIAL
    if "service" in v:
        service, mu = _dist(ctx, v["service"], _key(path, "service"), mu, _key(path, "mu"), "mu")
    cap = _int(ctx, v["capacity"], _key(path, "capacity"), 1, MAX_CAPACITY) if "capacity" in v else None
    return Station(sid, mu, service, cap)


def _feedback(ctx: _Ctx, v: Any, path: str, ids: tuple[str, ...]) -> Feedback:
    _fields(ctx, _map(ctx, v, path), path, ("from", "choice", "prob"), ("from", "choice", "prob"))
    src = _str(ctx, v["from"], _key(path, "from"))
    if src not in ids:
        ctx.fail(_key(path, "from"), f"unknown station {json.dumps(src)} (stations: {', '.join(map(json.dumps, ids))})")
    choice = _ids(ctx, v["choice"], _key(path, "choice"), ids)
    return Feedback(src, choice, _prob(ctx, v["prob"], _key(path, "prob"), zero_ok=False))


def _feedback_sums(ctx: _Ctx, feedback: tuple[Feedback, ...]) -> None:
    totals: dict[str, Fraction] = {}
    for fb in feedback:
        totals[fb.source] = totals.get(fb.source, Fraction(0)) + fb.prob
    for src, total in totals.items():
        if total > 1:
            ctx.fail(f"feedback from station {json.dumps(src)}", f"probabilities sum to {_show(total)} (must be <= 1)")


def _tie_breaking(ctx: _Ctx, v: Any, path: str, ids: tuple[str, ...]) -> tuple[TieBreak, ...]:
    out: list[TieBreak] = []
    seen: dict[frozenset, int] = {}
    for i, tb in enumerate(_list(ctx, v, path)):
        p = f"{path}[{i}]"
        _fields(ctx, _map(ctx, tb, p), p, ("set", "probs"), ("set", "probs"))
        tied = _ids(ctx, tb["set"], _key(p, "set"), ids, min_size=2)
        if frozenset(tied) in seen:
            ctx.fail(_key(p, "set"), f"the same set is already given in {path}[{seen[frozenset(tied)]}]")
        seen[frozenset(tied)] = i
        pp = _key(p, "probs")
        probs = _map(ctx, tb["probs"], pp)
        for k in probs:
            if k not in tied:
                ctx.fail(_key(pp, k), f"station {_show(k)} is not in the tied set")
        for s in tied:
            if s not in probs:
                ctx.fail(pp, f"missing a probability for station {json.dumps(s)} of the tied set")
        vals = _sum_one(ctx, [_prob(ctx, probs[s], _key(pp, s)) for s in tied], pp)
        out.append(TieBreak(tied, tuple(zip(tied, vals))))
    return tuple(out)


def _expected(ctx: _Ctx, v: Any, path: str) -> dict:
    _map(ctx, v, path)
    if "verdict" in v:
        if v["verdict"] not in ("stable", "unstable"):
            ctx.fail(_key(path, "verdict"), f'{_show(v["verdict"])} must be "stable" or "unstable"')
    elif "quantity" in v:
        _str(ctx, v["quantity"], _key(path, "quantity"))
        if "value" not in v:
            ctx.fail(_key(path, "value"), "required field is missing")
        _exact(ctx, v["value"], _key(path, "value"))
        if "tol" in v and _exact(ctx, v["tol"], _key(path, "tol")) < 0:
            ctx.fail(_key(path, "tol"), f"{_show(v['tol'])} must be >= 0")
    else:
        ctx.fail(path, 'must have a "verdict" ("stable"/"unstable") or a "quantity" and a "value"')
    return _plain(v)


def from_dict(doc: Mapping[str, Any], source: str | None = None) -> Network | ForkJoinNetwork:
    """Validate a parsed document and build the model.

    Parameters
    ----------
    doc : mapping
        The document, as parsed from JSON/TOML (numbers may be ``int``,
        :class:`~decimal.Decimal`, ``float``, :class:`~fractions.Fraction` or
        strings like ``"1/3"``; a float stands for its shortest decimal ``repr``).
    source : str, optional
        The file it came from: named in errors, stored as ``source``, and its
        stem is the default ``name``.

    Returns
    -------
    Network or ForkJoinNetwork

    Raises
    ------
    NetworkError
        If any rule of the format is broken.

    Examples
    --------
    >>> net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 1}, "2": {"mu": "3/2"}},
    ...                  "streams": [{"choice": ["1", "2"], "rate": 0.1}]})
    >>> net.name, net.streams[0].rate, net.stations[1].mu
    ('network', Fraction(1, 10), Fraction(3, 2))
    >>> from_dict({"format": "jsq-network/1", "stations": {}, "streams": []}, "x.json")
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: x.json: stations: must not be empty
    """
    ctx = _Ctx(source)
    _map(ctx, doc, "(top level)")
    if "format" not in doc:
        ctx.fail("format", f'required field is missing (must be "{JSQ_FORMAT}" or "{FORK_JOIN_FORMAT}")')
    fmt = doc["format"]
    if fmt not in (JSQ_FORMAT, FORK_JOIN_FORMAT):
        ctx.fail("format", f'{_show(fmt)} is not a known format (must be "{JSQ_FORMAT}" or "{FORK_JOIN_FORMAT}")')
    fj = fmt == FORK_JOIN_FORMAT
    _fields(ctx, doc, None, _FJ_FIELDS if fj else _JSQ_FIELDS,
            ("n", "k", "rate", "servers") if fj else ("stations", "streams"), x_ok=True)
    name = _str(ctx, doc["name"], "name") if "name" in doc else (Path(source).stem if source else "network")
    extras = tuple(sorted((k, _plain(v)) for k, v in doc.items() if k.startswith("x-")))
    expected = _expected(ctx, doc["expected"], "expected") if "expected" in doc else None
    if fj:
        servers = _map(ctx, doc["servers"], "servers")
        if not servers:
            ctx.fail("servers", "must not be empty")
        srv = []
        for sid, s in servers.items():
            p = _key("servers", sid)
            if not isinstance(sid, str) or not sid:
                ctx.fail(p, f"server ids must be non-empty strings, got {_kind(sid)}")
            _fields(ctx, _map(ctx, s, p), p, ("mu",), ("mu",))
            srv.append((sid, _rate(ctx, s["mu"], _key(p, "mu"))))
        n = _int(ctx, doc["n"], "n", 1)
        if n != len(srv):
            ctx.fail("n", f"{n} must equal the number of servers ({len(srv)})")
        k = _int(ctx, doc["k"], "k", 1, n)
        rate = _rate(ctx, doc["rate"], "rate")
        return ForkJoinNetwork(name, n, k, rate, tuple(srv), extras, expected, source)
    stations_doc = _map(ctx, doc["stations"], "stations")
    if not stations_doc:
        ctx.fail("stations", "must not be empty")
    stations = tuple(_station(ctx, sid, s, _key("stations", sid)) for sid, s in stations_doc.items())
    ids = tuple(s.id for s in stations)
    streams = tuple(_stream(ctx, s, f"streams[{i}]", ids)
                    for i, s in enumerate(_list(ctx, doc["streams"], "streams", True)))
    feedback = tuple(_feedback(ctx, f, f"feedback[{i}]", ids)
                     for i, f in enumerate(_list(ctx, doc.get("feedback", []), "feedback")))
    _feedback_sums(ctx, feedback)
    ties = _tie_breaking(ctx, doc.get("tie_breaking", []), "tie_breaking", ids)
    return Network(name, stations, streams, feedback, ties, extras, expected, source, notes=tuple(ctx.notes))


# ------------------------------------------------------------------------------ parse
def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


class _DuplicateKey(Exception):
    pass


def _parse(text: str | bytes, fmt: str, source: str | None) -> tuple[Any, NetworkError | None]:
    """The parsed document, or the error that names the syntax problem."""
    def err(path: str | None, rule: str) -> tuple[None, NetworkError]:
        return None, NetworkError(source, path, rule)

    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as e:
            return err(None, f"not valid UTF-8 text ({e.reason} at byte {e.start})")
    if fmt == "json":
        try:
            return json.loads(text, parse_float=Decimal, parse_constant=float, object_pairs_hook=_no_duplicates), None
        except json.JSONDecodeError as e:
            return err(f"line {e.lineno}, column {e.colno}", f"invalid JSON: {e.msg}")
        except _DuplicateKey as e:
            return err(None, f"invalid JSON: duplicate key {json.dumps(e.args[0])} in an object")
        except (ValueError, RecursionError) as e:
            return err(None, f"invalid JSON: {e}")
    if fmt == "toml":
        try:
            return tomllib.loads(text, parse_float=Decimal), None
        except tomllib.TOMLDecodeError as e:
            m = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", str(e))
            if m:
                return err(f"line {m[2]}, column {m[3]}", f"invalid TOML: {m[1]}")
            return err(None, f"invalid TOML: {e}")
        except (ValueError, RecursionError) as e:
            return err(None, f"invalid TOML: {e}")
    return err(None, f'unknown syntax {fmt!r} (must be "json" or "toml")')


def loads(text: str | bytes, fmt: str = "json", source: str | None = None) -> Network | ForkJoinNetwork:
    """Parse and validate a network from a string.

    Parameters
    ----------
    text : str
        The document.
    fmt : {"json", "toml"}
        Its syntax.
    source : str, optional
        Named in errors and stored as ``source``; its stem is the default name.

    Examples
    --------
    >>> net = loads('''format = "jsq-network/1"
    ... stations = {a = {mu = 2}, b = {mu = 0.5, capacity = 3}}
    ... [[streams]]
    ... choice = ["a", "b"]
    ... rate = 0.3
    ... ''', fmt="toml")
    >>> net.station_ids, net.stations[1].capacity, net.streams[0].rate
    (('a', 'b'), 3, Fraction(3, 10))
    >>> loads('{"format": "jsq-network/1",}', source="bad.json")
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: bad.json: line 1, column 28: invalid JSON: Expecting property name enclosed in double quotes
    """
    doc, err = _parse(text, fmt, source)
    if err is not None:
        raise err  # raised here, outside the except blocks, so without a chained parser error
    return from_dict(doc, source)


def load(path: str | os.PathLike) -> Network | ForkJoinNetwork:
    """Load and validate a ``.json`` or ``.toml`` network file.

    Parameters
    ----------
    path : str or path-like
        The file; its extension chooses the syntax.

    Returns
    -------
    Network or ForkJoinNetwork
        With ``source`` set to ``str(path)``.

    Raises
    ------
    NetworkError
        Unknown extension, unreadable file, syntax error (with line and column)
        or any broken rule of the format.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "fj.json").write_text('{"format": "fork-join-redundancy/1", "n": 2, "k": 1, '
    ...     '"rate": 0.5, "servers": {"1": {"mu": 1}, "2": {"mu": 0.25}}}')
    >>> fj = load(d / "fj.json")
    >>> fj.name, fj.servers
    ('fj', (('1', Fraction(1, 1)), ('2', Fraction(1, 4))))
    """
    src = str(path)
    ext = Path(path).suffix.lower()
    if ext not in (".json", ".toml"):
        raise NetworkError(src, None, f"unknown file extension {ext or '(none)'!r} (must be .json or .toml)")
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise NetworkError(src, None, f"cannot read file: {e.strerror or e}") from None
    return loads(data, fmt=ext[1:], source=src)


# ------------------------------------------------------------------------------ write
def _out(x: Any) -> Any:
    """An exact number as written: int, float if that float is exact, else "p/q"."""
    if isinstance(x, Fraction):
        if x.denominator == 1:
            return int(x)
        f = float(x)
        return f if Fraction(repr(f)) == x else f"{x.numerator}/{x.denominator}"
    if isinstance(x, Decimal):
        return _out(Fraction(x))
    if isinstance(x, Mapping):
        return {k: _out(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_out(v) for v in x]
    return x


def _dist_out(d: Distribution) -> dict:
    return _out(d.to_dict())


def to_dict(net: Network | ForkJoinNetwork) -> dict[str, Any]:
    """The document of a network: the inverse of :func:`from_dict`.

    Exact numbers are written as ``int`` when integral, as ``float`` when that
    float's shortest decimal is the exact value, else as a ``"p/q"`` string.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> net = from_dict({"format": "jsq-network/1", "name": "n", "stations": {"1": {"mu": "1/3"}},
    ...                  "streams": [{"choice": ["1"], "rate": 0.25}]})
    >>> to_dict(net)
    {'format': 'jsq-network/1', 'name': 'n', 'stations': {'1': {'mu': '1/3'}}, 'streams': [{'choice': ['1'], 'rate': 0.25}], 'feedback': []}
    >>> from_dict(to_dict(net)) == net
    True
    """
    if isinstance(net, ForkJoinNetwork):
        doc: dict[str, Any] = {"format": FORK_JOIN_FORMAT, "name": net.name, "n": net.n, "k": net.k,
                               "rate": _out(net.rate), "servers": {s: {"mu": _out(mu)} for s, mu in net.servers}}
    else:
        stations: dict[str, Any] = {}
        for s in net.stations:
            st: dict[str, Any] = {"mu": _out(s.mu)}
            if s.service != EXPONENTIAL:
                st["service"] = _dist_out(s.service)
            if s.capacity is not None:
                st["capacity"] = s.capacity
            stations[s.id] = st
        streams = []
        for sm in net.streams:
            d: dict[str, Any] = {}
            if sm.choice is not None:
                d["choice"] = list(sm.choice)
            elif sm.choices is not None:
                d["choices"] = [{"set": list(c), "prob": _out(p)} for c, p in sm.choices]
            else:
                assert sm.sample is not None
                d["sample"] = {"from": list(sm.sample[0]), "d": sm.sample[1]}
            d["rate"] = _out(sm.rate)
            if sm.interarrival != EXPONENTIAL:
                d["interarrival"] = _dist_out(sm.interarrival)
            streams.append(d)
        doc = {"format": JSQ_FORMAT, "name": net.name, "stations": stations, "streams": streams,
               "feedback": [{"from": f.source, "choice": list(f.choice), "prob": _out(f.prob)} for f in net.feedback]}
        if net.tie_breaking:
            doc["tie_breaking"] = [{"set": list(t.set), "probs": {s: _out(p) for s, p in t.probs}}
                                   for t in net.tie_breaking]
    if net.expected is not None:
        doc["expected"] = _out(net.expected)
    for k, v in net.extras:
        doc[k] = _out(v)
    return doc


def dump(net: Network | ForkJoinNetwork, path: str | os.PathLike) -> None:
    """Write a network to a ``.json`` or ``.toml`` file (chosen by the extension).

    ``load(path)`` gives back an equal network.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> net = loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 1}}, '
    ...             '"streams": [{"choice": ["1"], "rate": "1/3"}]}')
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "net.toml"
    >>> dump(net, p)
    >>> load(p) == net
    True
    """
    src = str(path)
    ext = Path(path).suffix.lower()
    doc = to_dict(net)
    if ext == ".json":
        try:
            text = json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
        except (TypeError, ValueError) as e:
            raise NetworkError(src, None, f"cannot be written as JSON: {e}") from None
    elif ext == ".toml":
        import tomli_w

        try:
            text = tomli_w.dumps(doc)
        except (TypeError, ValueError) as e:
            raise NetworkError(src, None, f"cannot be written as TOML: {e}") from None
    else:
        raise NetworkError(src, None, f"unknown file extension {ext or '(none)'!r} (must be .json or .toml)")
    Path(path).write_text(text, encoding="utf-8")
