"""Parameter sweeps: :func:`prove` over a grid of one or two parameters, resumable.

A sweep varies one or two numbers of a network, named by the same field paths
that error messages use (``streams[0].rate``, ``stations.3.mu``,
``tie_breaking[0].probs.1``), over an exact grid, and runs
:func:`certify.prove` at every point with a per-point budget.  Results are
written to a SQLite file as they finish (one committed row per point), so an
interrupted sweep loses nothing finished, and running the same sweep again
skips the points already stored.

Points run on a local process pool (``workers``; 1 runs them in this process)
or on an existing Dask distributed cluster (``scheduler``).  Each point gets the
seed ``seed + index``, so a sweep gives the same results wherever it runs.

Varying one probability of a tie-breaking set (``tie_breaking[i].probs.S``) or
of a stream's ``choices`` rescales the other probabilities of that set that are
not varied themselves so that they still sum to 1 (for a two-station set: the
other one is ``1 - value``); :attr:`SweepResult.notes` says so.

Public: :func:`sweep`, :func:`parse_vary`, :func:`read_csv`, :class:`SweepResult`,
:class:`SweepPoint`.
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import json
import math
import multiprocessing
import multiprocessing.context
import numbers
import os
import re
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..core.errors import NetworkError
from ..core.numbers import as_fraction, exact_str, parse_number

__all__ = ["SweepPoint", "SweepResult", "parse_vary", "read_csv", "sweep", "DEFAULT_TIME_LIMIT"]

DEFAULT_TIME_LIMIT = 10.0  # seconds of search per point
MAX_PARAMETERS = 2
_SCHEMA = """
CREATE TABLE IF NOT EXISTS sweeps (
    key TEXT PRIMARY KEY,
    network TEXT NOT NULL,
    spec TEXT NOT NULL,
    points INTEGER NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS points (
    key TEXT NOT NULL,
    idx INTEGER NOT NULL,
    param1 TEXT NOT NULL,
    value1 TEXT NOT NULL,
    param2 TEXT,
    value2 TEXT,
    verdict TEXT NOT NULL,
    method TEXT NOT NULL,
    semantics TEXT NOT NULL,
    time_s REAL NOT NULL,
    reasons TEXT NOT NULL,
    theorems TEXT NOT NULL,
    seed INTEGER NOT NULL,
    finished REAL NOT NULL,
    PRIMARY KEY (key, idx)
);
"""
_ERROR_METHOD = "error"  # points whose prove raised: stored, and recomputed by the next run


# ------------------------------------------------------------------------ exact values
# ------------------------------------------------------------------------------ paths
_TOKEN = re.compile(r'\.([A-Za-z0-9_-]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')
_HEAD = re.compile(r'([A-Za-z0-9_-]+)|\[("(?:[^"\\]|\\.)*")\]')


def _tokens(path: str) -> list[str | int] | None:
    """``streams[0].rate`` -> ["streams", 0, "rate"]; ``stations["a b"].mu`` -> ["stations", "a b", "mu"]."""
    m = _HEAD.match(path)
    if not m:
        return None
    out: list[str | int] = [m[1] if m[1] is not None else json.loads(m[2])]
    pos = m.end()
    while pos < len(path):
        m = _TOKEN.match(path, pos)
        if not m:
            return None
        if m[1] is not None:
            # a plain key segment; digits name a map key here (stations.3), an index only in [..]
            out.append(m[1])
        elif m[2] is not None:
            out.append(int(m[2]))
        else:
            out.append(json.loads(m[3]))
        pos = m.end()
    return out


def _show_path(tokens: Sequence[str | int]) -> str:
    s = ""
    for t in tokens:
        if isinstance(t, int):
            s += f"[{t}]"
        elif re.fullmatch(r"[A-Za-z0-9_-]+", t):
            s += f".{t}" if s else t
        else:
            s += f"[{json.dumps(t)}]"
    return s


def _resolve(doc: dict, tokens: list[str | int]) -> str | None:
    """None when ``tokens`` names a number in ``doc``; else why not (one phrase)."""
    node: Any = doc
    for k, t in enumerate(tokens):
        here = _show_path(tokens[:k]) or "the document"
        if isinstance(node, dict):
            if isinstance(t, int) or t not in node:
                keys = ", ".join(map(str, node)) or "none"
                return f"unknown field path: {_show_path(tokens[: k + 1])} does not exist ({here} has the fields {keys})"
        elif isinstance(node, list):
            if not isinstance(t, int):
                return f"{here} is a list: write {here}[i] with an index i"
            if t >= len(node):
                n = len(node)
                return f"unknown field path: {_show_path(tokens[: k + 1])} does not exist ({here} has {n} entr{'y' if n == 1 else 'ies'})"
        else:
            return f"{here} is a number, it has no field {_show_path(tokens[k:k + 1]).lstrip('.')}"
        node = node[t]
    if isinstance(node, (dict, list)) or as_fraction(node) is None:
        kind = "a map" if isinstance(node, dict) else "a list" if isinstance(node, list) else f"{node!r}"
        return f"{_show_path(tokens)} is {kind}, not a number (name a number, e.g. streams[0].rate or stations.1.mu)"
    return None


def _set(doc: dict, tokens: list[str | int], value: Fraction) -> None:
    node: Any = doc
    for t in tokens[:-1]:
        node = node[t]
    node[tokens[-1]] = value


def _get(doc: dict, tokens: Sequence[str | int]) -> Any:
    node: Any = doc
    for t in tokens:
        node = node[t]
    return node


def _prob_group(tokens: list[str | int], doc: dict) -> tuple[tuple, list[list[str | int]]] | None:
    """The probabilities that must sum to 1 together with the one at ``tokens`` (their paths), if any."""
    if len(tokens) == 4 and tokens[0] == "tie_breaking" and tokens[2] == "probs":
        probs = _get(doc, tokens[:3])
        return tuple(tokens[:3]), [[*tokens[:3], s] for s in probs]
    if len(tokens) == 5 and tokens[0] == "streams" and tokens[2] == "choices" and tokens[4] == "prob":
        choices = _get(doc, tokens[:3])
        return tuple(tokens[:3]), [[*tokens[:3], k, "prob"] for k in range(len(choices))]
    return None


def _complements(doc: dict, paths: list[list[str | int]]) -> list[tuple[list[list[str | int]], list[list[str | int]]]]:
    """For each set of probabilities touched by ``paths``: (the varied ones, the others to rescale)."""
    groups: dict[tuple, tuple[list, list]] = {}
    for tok in paths:
        g = _prob_group(tok, doc)
        if g is None:
            continue
        gid, members = g
        varied = [m for m in members if m in paths]
        groups[gid] = (varied, [m for m in members if m not in paths])
    return [v for v in groups.values() if v[1]]


def _apply(base: dict, paths: list[list[str | int]], values: Sequence[Fraction]) -> dict:
    """A copy of ``base`` with the values set (and complementary probabilities rescaled)."""
    doc = json.loads(json.dumps(base, default=str))  # deep copy; Fractions never occur in a to_dict document
    for tok, v in zip(paths, values):
        _set(doc, tok, v)
    for varied, others in _complements(base, paths):
        rest = 1 - sum((_get(doc, m) for m in varied), Fraction(0))
        old = [as_fraction(_get(base, m)) or Fraction(0) for m in others]
        total = sum(old, Fraction(0))
        for m, o in zip(others, old):
            _set(doc, m, o * rest / total if total > 0 else rest / len(others))
    return doc


# ------------------------------------------------------------------------------ specs
def _grid(start: Fraction, stop: Fraction, n: int) -> list[Fraction]:
    if n == 1:
        return [start]
    return [start + (stop - start) * k / (n - 1) for k in range(n)]


def parse_vary(spec: str, net: Any = None, option: str = "--vary") -> tuple[str, list[Fraction]]:
    """``PATH=START:STOP:N`` as (PATH, N exact values from START to STOP).

    START and STOP are decimals (or ``p/q``) taken exactly; N >= 2 points are
    spread evenly with both ends included (N = 1: START alone, STOP must equal it).
    With ``net`` given, PATH must name a number of that network.  A bad spec
    raises one :class:`~certify.core.errors.NetworkError` naming ``option``.

    >>> parse_vary("streams[0].rate=0.5:1:3")
    ('streams[0].rate', [Fraction(1, 2), Fraction(3, 4), Fraction(1, 1)])
    >>> parse_vary("streams[0].rate=1:0.5:3")
    Traceback (most recent call last):
    ...
    certify.core.errors.NetworkError: --vary: 'streams[0].rate=1:0.5:3': START (1) must be smaller than STOP (0.5)
    """

    def fail(rule: str) -> NetworkError:
        return NetworkError(None, option, f"{spec!r}: {rule}")

    path, eq, rng = spec.rpartition("=")
    if not eq or not path.strip():
        raise fail("must be PATH=START:STOP:N, e.g. streams[0].rate=0.5:1.5:11")
    path = path.strip()
    parts = rng.split(":")
    if len(parts) != 3:
        raise fail(f"the range {rng!r} must be START:STOP:N (three parts separated by ':')")
    start, stop = parse_number(parts[0]), parse_number(parts[1])
    if start is None:
        raise fail(f"START {parts[0]!r} is not a number")
    if stop is None:
        raise fail(f"STOP {parts[1]!r} is not a number")
    n_text = parts[2].strip()
    if not n_text.isdigit() or int(n_text) < 1:
        raise fail(f"N {parts[2]!r} must be an integer >= 1 (the number of points)")
    n = int(n_text)
    if n == 1 and start != stop:
        raise fail(f"with N = 1 the range is one point: STOP ({parts[1].strip()}) must equal START ({parts[0].strip()})")
    if n > 1 and start >= stop:
        raise fail(f"START ({parts[0].strip()}) must be smaller than STOP ({parts[1].strip()})")
    if net is not None:
        _check_path(_base_doc(net), path, fail)
    return path, _grid(start, stop, n)


def _check_path(doc: dict, path: str, fail: Callable[[str], NetworkError]) -> list[str | int]:
    tok = _tokens(path)
    if tok is None:
        raise fail(f"{path!r} is not a field path (write it as in error messages: streams[0].rate, stations.3.mu)")
    why = _resolve(doc, tok)
    if why is not None:
        raise fail(why)
    return tok


def _base_doc(net: Any) -> dict:
    from ..io.loader import to_dict

    return json.loads(json.dumps(to_dict(net), default=str))


# ---------------------------------------------------------------------------- results
@dataclass
class SweepPoint:
    """One point of a sweep: its parameter values and what :func:`prove` said there."""

    index: int
    values: tuple[Fraction, ...]
    verdict: str
    method: str
    semantics: str
    time_s: float
    reasons: list[str]
    theorems: list[dict] = field(default_factory=list)
    seed: int = 0
    finished: float = 0.0  # when it was stored (seconds since the epoch)


@dataclass
class SweepResult:
    """The points of a sweep, in grid order (the first parameter varies slowest).

    ``computed`` points were proved by this call; ``reused`` were found in the
    results file from an earlier run of the same sweep (same ``key``).
    """

    key: str
    network: str
    paths: tuple[str, ...]
    values: tuple[tuple[Fraction, ...], ...]
    points: list[SweepPoint]
    time_limit: float
    sim_budget: float
    computed: int = 0
    reused: int = 0
    notes: list[str] = field(default_factory=list)
    base: dict = field(default_factory=dict, repr=False)

    def counts(self) -> dict[str, int]:
        """How many points got each verdict."""
        return dict(Counter(p.verdict for p in self.points))

    def network_at(self, values: Sequence[Any]) -> Any:
        """The network with the swept parameters set to ``values`` (any exact numbers)."""
        from ..io.loader import from_dict

        toks = [_tokens(p) for p in self.paths]
        fr = [v if isinstance(v, Fraction) else as_fraction(v) for v in values]
        return from_dict(_apply(self.base, toks, fr))  # type: ignore[arg-type]

    def to_csv(self, path: str | os.PathLike) -> None:
        """Write one row per point: index, the parameter values (exact), verdict, method, semantics, time_s, seed, reasons (JSON)."""
        with open(path, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(["index", *self.paths, "verdict", "method", "semantics", "time_s", "seed", "reasons"])
            for p in self.points:
                w.writerow([p.index, *map(exact_str, p.values), p.verdict, p.method, p.semantics, repr(p.time_s), p.seed,
                            json.dumps(p.reasons)])

    def plot(self, path: str | os.PathLike, **kw: Any) -> None:
        """Draw the atlas (see :func:`certify.workflows.atlas.plot_atlas`)."""
        from .atlas import plot_atlas

        plot_atlas(self, path, **kw)


def read_csv(path: str | os.PathLike) -> tuple[tuple[str, ...], list[SweepPoint]]:
    """Read a file written by :meth:`SweepResult.to_csv`: (the parameter paths, the points)."""
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    head, body = rows[0], rows[1:]
    paths = tuple(head[1:head.index("verdict")])
    out = []
    for r in body:
        d = dict(zip(head, r))
        out.append(SweepPoint(int(d["index"]), tuple(Fraction(d[p]) for p in paths), d["verdict"], d["method"],
                              d["semantics"], float(d["time_s"]), json.loads(d["reasons"]), seed=int(d["seed"])))
    return paths, out


# ------------------------------------------------------------------------------ store
class _Store:
    """The SQLite results file: one committed row per finished point."""

    def __init__(self, path: str | os.PathLike | None):
        self.conn = sqlite3.connect(":memory:" if path is None else str(path), timeout=60)
        self.conn.executescript(_SCHEMA)
        self.conn.commit()

    def register(self, key: str, network: str, spec: dict, points: int) -> None:
        with self.conn:
            self.conn.execute("INSERT OR IGNORE INTO sweeps VALUES (?, ?, ?, ?, ?)",
                              (key, network, json.dumps(spec, sort_keys=True), points, time.time()))

    def finished(self, key: str) -> dict[int, SweepPoint]:
        cur = self.conn.execute(
            "SELECT idx, value1, value2, verdict, method, semantics, time_s, reasons, theorems, seed, finished "
            "FROM points WHERE key = ?", (key,))
        out = {}
        for idx, v1, v2, verdict, method, sem, t, reasons, theorems, seed, fin in cur:
            if method.startswith(_ERROR_METHOD):
                continue
            vals = tuple(Fraction(v) for v in (v1, v2) if v is not None)
            out[idx] = SweepPoint(idx, vals, verdict, method, sem, t, json.loads(reasons), json.loads(theorems), seed, fin)
        return out

    def add(self, key: str, paths: Sequence[str], p: SweepPoint) -> None:
        pv = [(path, exact_str(v)) for path, v in zip(paths, p.values)] + [(None, None)] * (2 - len(paths))
        with self.conn:  # one transaction per point: committed before the next one is looked at
            self.conn.execute(
                "INSERT OR REPLACE INTO points VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (key, p.index, pv[0][0], pv[0][1], pv[1][0], pv[1][1], p.verdict, p.method, p.semantics, p.time_s,
                 json.dumps(p.reasons), json.dumps(p.theorems), p.seed, p.finished),
            )

    def close(self) -> None:
        self.conn.close()


# ---------------------------------------------------------------------------- workers
def _run_point(task: dict) -> dict:
    """Prove one point (runs in a worker process, a Dask worker, or here); never raises."""
    from ..io.loader import from_dict
    from ..proof.pipeline import prove
    from ..search.solvers import collect, notes_reason

    t0 = time.perf_counter()
    try:
        with collect() as notes:
            res = prove(from_dict(task["doc"]), time_limit=task["time_limit"], simulate=task["simulate"],
                        sim_budget=task["sim_budget"], templates=task["templates"], seed=task["seed"])
        said = notes_reason(notes)
        if said and said not in res.reasons:
            res.reasons.append(said)
    except Exception as exc:  # a bug in one point must not lose the sweep
        return {"index": task["index"], "verdict": "undecided", "method": f"{_ERROR_METHOD}: {type(exc).__name__}",
                "semantics": "markovian", "time_s": time.perf_counter() - t0, "reasons": [f"prove raised {exc!r}"],
                "theorems": []}
    return {"index": task["index"], "verdict": res.verdict, "method": res.method, "semantics": res.semantics,
            "time_s": res.time_s, "reasons": list(res.reasons), "theorems": list(res.theorems)}


def _worker_init() -> None:
    """Pool workers: one BLAS thread each, and Ctrl-C is the parent's business."""
    import signal

    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _serial(tasks: list[dict]) -> Iterator[dict]:
    for t in tasks:
        yield _run_point(t)


class _BareMainProcess(multiprocessing.context.SpawnProcess):
    """A spawned worker that does not re-run the caller's ``__main__`` script.

    A spawned child normally imports the parent's main script again (as
    ``__mp_main__``) before it unpickles its task, so a script that calls
    :func:`sweep` at top level, without ``if __name__ == "__main__":``, would
    start the sweep again in every worker (and fail).  The points' tasks need
    only :mod:`certify` (plain data and :func:`_run_point`), so the worker is
    started as if the parent had no main script: the README's snippet works when
    pasted into a script, guarded or not.
    """

    @staticmethod
    def _Popen(process_obj: Any) -> Any:
        import sys
        import types

        main = sys.modules.get("__main__")
        sys.modules["__main__"] = types.ModuleType("__main__")  # seen by multiprocessing.spawn.get_preparation_data
        try:
            return multiprocessing.context.SpawnProcess._Popen(process_obj)
        finally:
            if main is not None:
                sys.modules["__main__"] = main


class _BareMainContext(multiprocessing.context.SpawnContext):
    """The spawn start method with :class:`_BareMainProcess` workers."""

    Process = _BareMainProcess  # type: ignore[assignment]


def _pool(tasks: list[dict], workers: int) -> Iterator[dict]:
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    ex = ProcessPoolExecutor(max_workers=workers, mp_context=_BareMainContext(), initializer=_worker_init)
    done_all = False
    try:
        pending = {ex.submit(_run_point, t) for t in tasks}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                yield f.result()
        done_all = True
    finally:
        if not done_all:  # interrupted: stop the points in flight now, they are not stored
            for proc in list((getattr(ex, "_processes", None) or {}).values()):
                proc.terminate()
        ex.shutdown(wait=done_all, cancel_futures=True)


def _dask(tasks: list[dict], scheduler: Any) -> Iterator[dict]:
    try:
        from distributed import Client, as_completed
    except ImportError as exc:  # pragma: no cover - dask is a dependency
        raise NetworkError(None, "--scheduler", f"dask.distributed is not installed ({exc})") from None
    own = not isinstance(scheduler, Client)
    if own:
        try:
            client = Client(scheduler, timeout="20s", set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise NetworkError(None, "--scheduler", f"cannot connect to the Dask scheduler at {scheduler!r}: {exc}") from None
    else:
        client = scheduler
    futures = [client.submit(_run_point, t, pure=False) for t in tasks]
    try:
        for fut in as_completed(futures, loop=client.loop):
            yield fut.result()
    finally:
        client.cancel([f for f in futures if not f.done()])
        if own:
            client.close()


# ------------------------------------------------------------------------------ sweep
def _normalise_vary(vary: Iterable[Any], doc: dict, option: str) -> list[tuple[str, list[Fraction]]]:
    out: list[tuple[str, list[Fraction]]] = []
    for item in vary:
        if isinstance(item, str):
            path, values = parse_vary(item, None, option)
        else:
            path, raw = item
            if isinstance(raw, str):
                path, values = parse_vary(f"{path}={raw}", None, option)
            else:
                values = []
                for v in raw:
                    f = as_fraction(v)
                    if f is None:
                        raise NetworkError(None, option, f"{path!r}: value {v!r} is not a finite number")
                    values.append(f)
                if not values:
                    raise NetworkError(None, option, f"{path!r}: no values given")
                if len(set(values)) != len(values):
                    raise NetworkError(None, option, f"{path!r}: a value is given twice")
        def fail(rule: str, p: str = path) -> NetworkError:
            return NetworkError(None, option, f"{p!r}: {rule}")

        _check_path(doc, path, fail)
        if any(path == p for p, _ in out):
            raise NetworkError(None, option, f"{path!r} is given twice (vary each parameter once)")
        out.append((path, values))
    if not out:
        raise NetworkError(None, option, "give one or two parameters to vary")
    if len(out) > MAX_PARAMETERS:
        raise NetworkError(None, option, f"at most {MAX_PARAMETERS} parameters can be varied together, got {len(out)}")
    return out


def sweep(
    net: Any,
    vary: Sequence[Any],
    *,
    time_limit: float = DEFAULT_TIME_LIMIT,
    sim_budget: float = 0.0,
    simulate: bool | None = None,
    templates: list[str] | None = None,
    seed: int = 0,
    out: str | os.PathLike | None = None,
    workers: int = 2,
    scheduler: Any = None,
    progress: bool | None = None,
    on_point: Callable[[SweepPoint], None] | None = None,
) -> SweepResult:
    """Run :func:`certify.prove` at every point of a grid of one or two parameters.

    Parameters
    ----------
    net : Network
        The network; the parameters not varied keep its values.
    vary : list
        One or two ``(path, values)`` pairs, where ``path`` is a field path as in
        error messages (``streams[0].rate``, ``stations.3.mu``) and ``values`` the
        numbers (taken exactly: a float stands for its shortest decimal) or a
        ``"START:STOP:N"`` range; a ``"PATH=START:STOP:N"`` string works too.
        The grid is their product, the first parameter varying slowest.
    time_limit : float
        Seconds after which :func:`prove` starts no new search, per point.
    sim_budget : float
        Seconds of simulation checks per point that no proof decides (verdicts
        ``likely-stable``/``likely-unstable``); 0 (the default) runs none.
    simulate : bool, optional
        Run the simulation checks; default: when ``sim_budget > 0``.
    templates : list of str, optional
        Foster templates for :func:`prove` (default: all).
    seed : int
        Point ``i`` gets the seed ``seed + i``.
    out : path, optional
        SQLite results file: each finished point is committed at once, and a
        later call with the same network, grid and budgets skips the points it
        already holds.  Default: none (results are only returned).
    workers : int
        Local worker processes (default 2; 1 runs the points in this process).
    scheduler : str or distributed.Client, optional
        Address of an existing Dask distributed scheduler (or a Client): the
        points run there instead of on the local pool.
    progress : bool, optional
        Show a tqdm progress bar (default: when stderr is a terminal).
    on_point : callable, optional
        Called with each :class:`SweepPoint` once it is stored.

    Returns
    -------
    SweepResult
        The points in grid order, with the sweep's ``key``.

    Raises
    ------
    NetworkError
        A bad path or range, or a grid value that makes the network invalid.

    Examples
    --------
    >>> import certify
    >>> net = certify.loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 1}, "2": {"mu": 1}}, '
    ...                     '"streams": [{"choice": ["1", "2"], "rate": 1}]}')
    >>> res = certify.sweep(net, [("streams[0].rate", "1:3:2")], workers=1)
    >>> [(str(p.values[0]), p.verdict) for p in res.points]
    [('1', 'stable'), ('3', 'unstable')]
    """
    from ..core.version import __version__
    from ..io.loader import from_dict

    option = "vary"
    base = _base_doc(net)
    spec = _normalise_vary(vary, base, option)
    if not _real(time_limit) or not (math.isfinite(time_limit) and time_limit > 0):
        raise NetworkError(None, "time_limit", f"{time_limit!r} must be a positive finite number of seconds")
    if not _real(sim_budget) or not (math.isfinite(sim_budget) and sim_budget >= 0):
        raise NetworkError(None, "sim_budget", f"{sim_budget!r} must be a finite number of seconds >= 0")
    if isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers < 1:
        raise NetworkError(None, "workers", f"{workers!r} must be an integer >= 1")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise NetworkError(None, "seed", f"{seed!r} must be an integer >= 0")
    use_sim = sim_budget > 0 if simulate is None else bool(simulate)
    paths = [p for p, _ in spec]
    toks = [_tokens(p) for p in paths]
    grids = [vals for _, vals in spec]
    notes = []
    for varied, others in _complements(base, toks):  # type: ignore[arg-type]
        notes.append(f"{', '.join(_show_path(m) for m in others)} rescaled so that the probabilities of "
                     f"{_show_path(varied[0][:3])} still sum to 1 (varied: {', '.join(_show_path(m) for m in varied)})")

    key_doc = {"version": __version__, "network": base, "vary": [[p, [exact_str(v) for v in vals]] for p, vals in spec],
               "time_limit": float(time_limit), "sim_budget": float(sim_budget), "simulate": use_sim, "templates": templates,
               "seed": int(seed)}
    key = hashlib.sha256(json.dumps(key_doc, sort_keys=True).encode()).hexdigest()[:16]

    combos = list(itertools.product(*grids))
    tasks = []
    for idx, vals in enumerate(combos):
        doc = _apply(base, toks, vals)  # type: ignore[arg-type]
        try:
            from_dict(doc)
        except NetworkError as exc:
            at = ", ".join(f"{p} = {exact_str(v)}" for p, v in zip(paths, vals))
            raise NetworkError(None, option, f"at {at} the network is invalid: {exc.path}: {exc.rule}") from None
        tasks.append({"index": idx, "values": vals, "doc": doc, "time_limit": time_limit, "simulate": use_sim,
                      "sim_budget": sim_budget, "templates": templates, "seed": seed + idx})

    store = _Store(out)
    try:
        store.register(key, base.get("name", "network"), key_doc, len(tasks))
        have = store.finished(key)
        todo = [t for t in tasks if t["index"] not in have]
        result = SweepResult(key, base.get("name", "network"), tuple(paths), tuple(tuple(g) for g in grids), [],
                             time_limit, sim_budget, reused=len(have), notes=notes, base=base)
        by_index = dict(have)
        values_of: dict[int, Sequence[Fraction]] = {t["index"]: t["values"] for t in tasks}  # type: ignore[misc]
        bar = _bar(progress, len(tasks), len(have), result.network)
        try:
            runner: Iterator[dict]
            if not todo:
                runner = _serial([])
            elif scheduler is not None:
                runner = _dask(todo, scheduler)
            elif workers == 1:
                runner = _serial(todo)
            else:
                runner = _pool(todo, min(workers, len(todo)))
            with closing(runner):  # type: ignore[type-var]
                for r in runner:
                    i = r["index"]
                    pt = SweepPoint(i, tuple(values_of[i]), r["verdict"], r["method"], r["semantics"], r["time_s"],
                                    r["reasons"], r["theorems"], seed + i, time.time())
                    store.add(key, paths, pt)
                    by_index[i] = pt
                    result.computed += 1
                    if bar is not None:
                        bar.update(1)
                        bar.set_postfix_str(_tally(by_index.values()), refresh=False)
                    if on_point is not None:
                        on_point(pt)
        finally:
            if bar is not None:
                bar.close()
        result.points = [by_index[i] for i in sorted(by_index)]
        return result
    finally:
        store.close()


def _real(x: Any) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _tally(points: Iterable[SweepPoint]) -> str:
    c = Counter(p.verdict for p in points)
    return " ".join(f"{v} {c[v]}" for v in ("stable", "unstable", "likely-stable", "likely-unstable", "undecided") if c[v])


def _bar(progress: bool | None, total: int, initial: int, name: str) -> Any:
    import sys

    if progress is False or (progress is None and not sys.stderr.isatty()):
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, desc=f"sweep {name}", unit="pt", dynamic_ncols=True)

