"""The ``jsq-network/1`` schema: stations, streams (fixed, random or sampled choice sets), feedback and ties.

:func:`jsq_network` builds a :class:`~certify.core.model.Network` from the
fields of a document whose shared fields (``format``, ``name``, ``expected``,
``x-...``) :func:`certify.io.loader.from_dict` has read; the service and
interarrival laws are read by :mod:`certify.io.distributions`.  The validators
of the routing parts are public so that :mod:`certify.io.graph` applies the
very same rules to a networkx graph.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from fractions import Fraction

from ..core.jsontypes import JsonObject, JsonValue
from ..core.model import EXPONENTIAL, Feedback, Network, Station, Stream, TieBreak
from .context import Context, key_path, kind_of, show
from .distributions import as_distribution
from .fields import as_integer, as_list, as_map, as_station_set, as_str, check_fields
from .normalise import normalise
from .number_fields import as_probability, as_rate, sum_to_one

__all__ = [
    "JSQ_FIELDS",
    "JSQ_REQUIRED",
    "MAX_CAPACITY",
    "MAX_SAMPLE_SETS",
    "as_choices",
    "as_sample",
    "check_feedback_sums",
    "as_tie_breaking",
    "check_tie_sets",
    "jsq_network",
]

#: The top-level fields of a ``jsq-network/1`` document (names starting with ``x-`` are allowed too).
JSQ_FIELDS = ("format", "name", "stations", "streams", "feedback", "tie_breaking", "expected")
#: The top-level fields a ``jsq-network/1`` document must have.
JSQ_REQUIRED = ("stations", "streams")
#: Largest station capacity.
MAX_CAPACITY = 10**9
#: Largest number of d-subsets a ``sample`` stream draws from.
MAX_SAMPLE_SETS = 100_000


def as_choices(ctx: Context, v: object, path: str,
               ids: tuple[str, ...]) -> tuple[tuple[tuple[str, ...], Fraction], ...]:
    """A random choice set: a non-empty list of ``{"set": [...], "prob": p}``, the probabilities summing to 1.

    Parameters
    ----------
    ctx : Context
        Where errors point; receives a note when the probabilities are normalised.
    v : object
        The list as read.
    path : str
        Its field path.
    ids : tuple of str
        The network's station ids.

    Returns
    -------
    tuple of (tuple of str, Fraction)
        Each set with its probability (see :func:`~certify.io.number_fields.sum_to_one`).

    Raises
    ------
    NetworkError
        For a malformed entry, an unknown station or probabilities that do not sum to 1.

    Examples
    --------
    >>> as_choices(Context(None), [{"set": ["1"], "prob": 0.25}, {"set": ["1", "2"], "prob": 0.75}],
    ...            "streams[0].choices", ("1", "2"))
    ((('1',), Fraction(1, 4)), (('1', '2'), Fraction(3, 4)))
    """
    out = []
    for i, c in enumerate(as_list(ctx, v, path, True)):
        p = f"{path}[{i}]"
        entry = as_map(ctx, c, p)
        check_fields(ctx, entry, p, ("set", "prob"), ("set", "prob"))
        out.append((as_station_set(ctx, entry["set"], key_path(p, "set"), ids),
                    as_probability(ctx, entry["prob"], key_path(p, "prob"))))
    probs = sum_to_one(ctx, [x for _, x in out], path)
    return tuple((c, x) for (c, _), x in zip(out, probs))


def as_sample(ctx: Context, v: object, path: str, ids: tuple[str, ...]) -> tuple[tuple[str, ...], int]:
    """A sampled choice set ``{"from": [...], "d": d}``: d distinct stations drawn uniformly.

    Parameters
    ----------
    ctx : Context
        Where errors point.
    v : object
        The map as read.
    path : str
        Its field path.
    ids : tuple of str
        The network's station ids.

    Returns
    -------
    tuple of (tuple of str, int)
        The pool and d.

    Raises
    ------
    NetworkError
        For a malformed map, d outside ``1..len(from)``, or more than
        :data:`MAX_SAMPLE_SETS` possible sets.

    Examples
    --------
    >>> as_sample(Context(None), {"from": ["1", "2", "3"], "d": 2}, "streams[0].sample", ("1", "2", "3"))
    (('1', '2', '3'), 2)
    """
    sample = as_map(ctx, v, path)
    check_fields(ctx, sample, path, ("from", "d"), ("from", "d"))
    pool = as_station_set(ctx, sample["from"], key_path(path, "from"), ids)
    d = as_integer(ctx, sample["d"], key_path(path, "d"), 1, len(pool))
    if math.comb(len(pool), d) > MAX_SAMPLE_SETS:
        ctx.fail(path, f"drawing d = {d} of {len(pool)} stations gives {math.comb(len(pool), d)} possible sets "
                 f"(at most {MAX_SAMPLE_SETS} allowed)")
    return pool, d


def _stream(ctx: Context, v: object, path: str, ids: tuple[str, ...]) -> Stream:
    sm = as_map(ctx, v, path)
    check_fields(ctx, sm, path, ("choice", "choices", "sample", "rate", "interarrival"), ("rate",))
    given = [k for k in ("choice", "choices", "sample") if k in sm]
    if len(given) != 1:
        ctx.fail(path, 'needs exactly one of "choice", "choices" or "sample"'
                 + (f", got {' and '.join(given)}" if given else ""))
    rate = as_rate(ctx, sm["rate"], key_path(path, "rate"))
    choice = choices = sample = None
    if "choice" in sm:
        choice = as_station_set(ctx, sm["choice"], key_path(path, "choice"), ids)
    elif "choices" in sm:
        choices = as_choices(ctx, sm["choices"], key_path(path, "choices"), ids)
    else:
        sample = as_sample(ctx, sm["sample"], key_path(path, "sample"), ids)
    interarrival = EXPONENTIAL
    if "interarrival" in sm:
        interarrival, rate = as_distribution(ctx, sm["interarrival"], key_path(path, "interarrival"), rate,
                                             key_path(path, "rate"))
    return Stream(rate, choice=choice, choices=choices, sample=sample, interarrival=interarrival)


def _station(ctx: Context, sid: object, v: object, path: str) -> Station:
    if not isinstance(sid, str) or not sid:
        ctx.fail(path, f"station ids must be non-empty strings, got {kind_of(sid)}")
    st = as_map(ctx, v, path)
    check_fields(ctx, st, path, ("mu", "service", "capacity"), ("mu",))
    mu = as_rate(ctx, st["mu"], key_path(path, "mu"))
    service = EXPONENTIAL
    if "service" in st:
        service, mu = as_distribution(ctx, st["service"], key_path(path, "service"), mu, key_path(path, "mu"), "mu")
    cap = as_integer(ctx, st["capacity"], key_path(path, "capacity"), 1, MAX_CAPACITY) if "capacity" in st else None
    return Station(sid, mu, service, cap)


def _feedback(ctx: Context, v: object, path: str, ids: tuple[str, ...]) -> Feedback:
    fb = as_map(ctx, v, path)
    check_fields(ctx, fb, path, ("from", "choice", "prob"), ("from", "choice", "prob"))
    src = as_str(ctx, fb["from"], key_path(path, "from"))
    if src not in ids:
        ctx.fail(key_path(path, "from"),
                 f"unknown station {json.dumps(src)} (stations: {', '.join(map(json.dumps, ids))})")
    choice = as_station_set(ctx, fb["choice"], key_path(path, "choice"), ids)
    return Feedback(src, choice, as_probability(ctx, fb["prob"], key_path(path, "prob"), zero_ok=False))


def check_feedback_sums(ctx: Context, feedback: tuple[Feedback, ...]) -> None:
    """Refuse a station whose feedback probabilities sum to more than 1 (exactly; no tolerance).

    Parameters
    ----------
    ctx : Context
        Where errors point.
    feedback : tuple of Feedback
        Every feedback route of the network.

    Raises
    ------
    NetworkError
        Naming the first station whose probabilities sum to more than 1.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> check_feedback_sums(Context(None), (Feedback("1", ("2",), F(1, 2)), Feedback("1", ("1",), F(1, 2))))
    >>> check_feedback_sums(Context(None), (Feedback("1", ("2",), F(1, 2)), Feedback("1", ("1",), F(3, 5))))
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: feedback from station "1": probabilities sum to 1.1 (must be <= 1)
    """
    totals: dict[str, Fraction] = {}
    for fb in feedback:
        totals[fb.source] = totals.get(fb.source, Fraction(0)) + fb.prob
    for src, total in totals.items():
        if total > 1:
            ctx.fail(f"feedback from station {json.dumps(src)}", f"probabilities sum to {show(total)} (must be <= 1)")


def as_tie_breaking(ctx: Context, v: object, path: str, ids: tuple[str, ...]) -> tuple[TieBreak, ...]:
    """The ``tie_breaking`` list: for a tied-shortest set, the probability of joining each of its stations.

    Parameters
    ----------
    ctx : Context
        Where errors point; receives a note when probabilities are normalised.
    v : object
        The list as read.
    path : str
        Its field path.
    ids : tuple of str
        The network's station ids.

    Returns
    -------
    tuple of TieBreak
        One per set, the probabilities in the order of the set.

    Raises
    ------
    NetworkError
        For a malformed entry, a set given twice, a probability for a station
        outside the set (or a missing one), or probabilities that do not sum to 1.

    Examples
    --------
    >>> as_tie_breaking(Context(None), [{"set": ["1", "2"], "probs": {"2": 0.3, "1": 0.7}}],
    ...                 "tie_breaking", ("1", "2"))
    (TieBreak(set=('1', '2'), probs=(('1', Fraction(7, 10)), ('2', Fraction(3, 10)))),)
    """
    out: list[TieBreak] = []
    seen: dict[frozenset[str], int] = {}
    for i, tb in enumerate(as_list(ctx, v, path)):
        p = f"{path}[{i}]"
        entry = as_map(ctx, tb, p)
        check_fields(ctx, entry, p, ("set", "probs"), ("set", "probs"))
        tied = as_station_set(ctx, entry["set"], key_path(p, "set"), ids, min_size=2)
        if frozenset(tied) in seen:
            ctx.fail(key_path(p, "set"), f"the same set is already given in {path}[{seen[frozenset(tied)]}]")
        seen[frozenset(tied)] = i
        pp = key_path(p, "probs")
        probs = as_map(ctx, entry["probs"], pp)
        for k in probs:
            if k not in tied:
                ctx.fail(key_path(pp, k), f"station {show(k)} is not in the tied set")
        for s in tied:
            if s not in probs:
                ctx.fail(pp, f"missing a probability for station {json.dumps(s)} of the tied set")
        vals = sum_to_one(ctx, [as_probability(ctx, probs[s], key_path(pp, s)) for s in tied], pp)
        out.append(TieBreak(tied, tuple(zip(tied, vals))))
    return tuple(out)


def _choice_sets(streams: tuple[Stream, ...], feedback: tuple[Feedback, ...]) -> list[tuple[str, tuple[str, ...], int]]:
    """Every choice set of the network: (where it is written, its stations, the most stations one draw holds)."""
    out: list[tuple[str, tuple[str, ...], int]] = []
    for i, sm in enumerate(streams):
        if sm.choice is not None:
            out.append((f"streams[{i}].choice", sm.choice, len(sm.choice)))
        elif sm.choices is not None:
            out.extend((f"streams[{i}].choices[{k}].set", c, len(c)) for k, (c, _) in enumerate(sm.choices))
        elif sm.sample is not None:
            out.append((f"streams[{i}].sample", sm.sample[0], sm.sample[1]))
    out.extend((f"feedback[{k}].choice", fb.choice, len(fb.choice)) for k, fb in enumerate(feedback))
    return out


def _set_text(ids: Iterable[str]) -> str:
    return "[" + ", ".join(map(json.dumps, ids)) + "]"


def check_tie_sets(ctx: Context, ties: tuple[TieBreak, ...], streams: tuple[Stream, ...],
                   feedback: tuple[Feedback, ...], path: str = "tie_breaking") -> None:
    """Refuse a ``tie_breaking`` set that no choice set can ever produce as its tied-shortest set.

    A customer routed by a choice set C (a stream's ``choice``, one of its
    ``choices``, a draw of d stations of a ``sample`` pool, a feedback route's
    ``choice``) joins the shortest queue of C; the stations tied for shortest
    are a subset of C (full stations of finite capacity left out, which only
    makes it smaller), and a tie needs two of them.  So a set S can be a
    tied-shortest set exactly when ``2 <= len(S)`` and S lies in some choice
    set (for a sample stream: S lies in the pool and ``len(S) <= d``).  Every
    choice set written counts, whatever its probability, so that a set given
    for a choice of probability 0 (a sweep's end point) still loads.  Any
    other set would be silently ignored, while the user meant it to apply
    (a typo, ``["1", "3"]`` for ``["1", "2"]``, can flip a verdict).

    Parameters
    ----------
    ctx : Context
        Where errors point.
    ties : tuple of TieBreak
        The sets of ``tie_breaking``, in the order written.
    streams : tuple of Stream
        The network's streams.
    feedback : tuple of Feedback
        The network's feedback routes.
    path : str, default "tie_breaking"
        The field path of the list.

    Raises
    ------
    NetworkError
        Naming ``<path>[i].set``, the set, the rule and the choice sets there
        are (the first 6 that hold two or more stations).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> streams = (Stream(F(1), choice=("1", "2")), Stream(F(1, 2), sample=(("2", "3", "4"), 2)))
    >>> half = (("1", F(1, 2)), ("2", F(1, 2)))
    >>> check_tie_sets(Context(None), (TieBreak(("1", "2"), half),), streams, ())
    >>> check_tie_sets(Context("net.json"), (TieBreak(("1", "3"), half),), streams, ())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: net.json: tie_breaking[0].set: ["1", "3"] can never be a tied-shortest set: ...
    >>> from certify.core.errors import NetworkError
    >>> try:
    ...     check_tie_sets(Context(None), (TieBreak(("1", "3"), half),), streams, ())
    ... except NetworkError as e:
    ...     print(e.rule.split("stations: ")[-1])
    ["1", "2"] (streams[0].choice), any 2 of ["2", "3", "4"] (streams[1].sample))
    """
    sets = _choice_sets(streams, feedback)
    for i, tb in enumerate(ties):
        tied = frozenset(tb.set)
        if any(tied <= frozenset(c) and len(tied) <= d for _, c, d in sets):
            continue
        shown: dict[frozenset[str], str] = {}
        for where, c, d in sets:
            if d >= 2 and frozenset(c) not in shown:
                shown[frozenset(c)] = (f"any {d} of " if d < len(c) else "") + f"{_set_text(c)} ({where})"
        listed = list(shown.values())
        if not listed:
            why = "no choice set has 2 or more stations, so no tie ever happens"
        else:
            more = f", and {len(listed) - 6} more" if len(listed) > 6 else ""
            why = ("a tie is among 2 or more stations of one choice set, and no choice set holds all of these "
                   f"(choice sets with 2 or more stations: {', '.join(listed[:6])}{more})")
        ctx.fail(key_path(f"{path}[{i}]", "set"), f"{_set_text(tb.set)} can never be a tied-shortest set: {why}")


def jsq_network(ctx: Context, doc: Mapping[str, object], name: str, extras: tuple[tuple[str, JsonValue], ...],
                expected: JsonObject | None, source: str | None) -> Network:
    """The network of a ``jsq-network/1`` document whose top-level fields have been checked.

    Parameters
    ----------
    ctx : Context
        Where errors point; its notes become the network's ``notes``.
    doc : Mapping
        The document (its field names checked against :data:`JSQ_FIELDS`).
    name : str
        The network's name.
    extras : tuple of (str, JsonValue)
        The ``x-...`` fields, sorted, in plain form.
    expected : dict or None
        The ``expected`` block in plain form, or None.
    source : str or None
        The file it came from.

    Returns
    -------
    Network

    Raises
    ------
    NetworkError
        If any rule of the format is broken.

    Examples
    --------
    >>> doc = {"stations": {"1": {"mu": 2}}, "streams": [{"choice": ["1"], "rate": 1}]}
    >>> jsq_network(Context(None), doc, "mm1", (), None, None).stations
    (Station(id='1', mu=Fraction(2, 1), service=Distribution(dist='exponential', params=()), capacity=None),)
    """
    stations_doc = as_map(ctx, doc["stations"], "stations")
    if not stations_doc:
        ctx.fail("stations", "must not be empty")
    stations = tuple(_station(ctx, sid, s, key_path("stations", sid)) for sid, s in stations_doc.items())
    ids = tuple(s.id for s in stations)
    streams = tuple(_stream(ctx, s, f"streams[{i}]", ids)
                    for i, s in enumerate(as_list(ctx, doc["streams"], "streams", True)))
    feedback = tuple(_feedback(ctx, f, f"feedback[{i}]", ids)
                     for i, f in enumerate(as_list(ctx, doc.get("feedback", []), "feedback")))
    check_feedback_sums(ctx, feedback)
    ties = as_tie_breaking(ctx, doc.get("tie_breaking", []), "tie_breaking", ids)
    check_tie_sets(ctx, ties, streams, feedback)
    return normalise(ctx, Network(name, stations, streams, feedback, ties, extras, expected, source,
                                  notes=tuple(ctx.notes)))
