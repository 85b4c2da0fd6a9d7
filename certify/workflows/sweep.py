"""Parameter sweeps: :func:`certify.prove` over a grid of one or two parameters, resumable.

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

The pieces live beside this module: field paths in
:mod:`~certify.workflows.paths`, the grids in :mod:`~certify.workflows.vary`,
the results file in :mod:`~certify.workflows.store`, where points run in
:mod:`~certify.workflows.executors`, and the result types in
:mod:`~certify.workflows.sweep_result`.

Every point is proved with one :class:`~certify.proof.options.ProveOptions`
(the sweep's defaults: :data:`SWEEP_OPTIONS`), its seed set per point.

Public: :func:`sweep`, :data:`DEFAULT_TIME_LIMIT`, :data:`SWEEP_OPTIONS`.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import numbers
import os
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any, cast

from ..core.errors import NetworkError
from ..core.jsontypes import JsonDocument, JsonObject
from ..core.numbers import exact_str
from ..core.version import __version__
from ..proof.options import ProveOptions
from .executors import PointTask, executor
from .paths import Tokens, apply_values, base_doc, path_tokens, rescale_notes
from .store import ResultStore
from .sweep_result import SweepPoint, SweepResult, tally
from .vary import VarySpec, normalise_vary

if TYPE_CHECKING:
    from distributed import Client

    from ..core.model import ForkJoinNetwork, Network

__all__ = ["DEFAULT_TIME_LIMIT", "SWEEP_OPTIONS", "sweep"]

DEFAULT_TIME_LIMIT = 10.0
"""Seconds of search per point."""

SWEEP_OPTIONS = ProveOptions(time_limit=DEFAULT_TIME_LIMIT, sim_budget=0.0)
"""How a sweep proves each point unless told otherwise: :data:`DEFAULT_TIME_LIMIT` seconds, no simulation checks."""

# The options a sweep's key has always recorded (by name); any other option enters the key only when it is not the default.
_KEYED = ("time_limit", "sim_budget", "simulate", "templates", "seed")

_OPTION = "vary"  # the argument named in errors about the grid


def sweep(
    net: Network | ForkJoinNetwork,
    vary: Sequence[VarySpec],
    options: ProveOptions | None = None,
    *,
    out: str | os.PathLike[str] | None = None,
    workers: int = 2,
    scheduler: str | Client | None = None,
    progress: bool | None = None,
    on_point: Callable[[SweepPoint], None] | None = None,
    **kw: Any,
) -> SweepResult:
    """Run :func:`certify.prove` at every point of a grid of one or two parameters.

    Parameters
    ----------
    net : Network or ForkJoinNetwork
        The network; the parameters not varied keep its values.
    vary : list
        One or two ``(path, values)`` pairs, where ``path`` is a field path as in
        error messages (``streams[0].rate``, ``stations.3.mu``) and ``values`` the
        numbers (taken exactly: a float stands for its shortest decimal) or a
        ``"START:STOP:N"`` range; a ``"PATH=START:STOP:N"`` string works too.
        The grid is their product, the first parameter varying slowest.
    options : ProveOptions, optional
        How :func:`prove` runs at every point (default :data:`SWEEP_OPTIONS`): ``time_limit`` seconds per
        point (positive), ``sim_budget`` seconds of simulation checks per point that no proof decides
        (verdicts ``likely-stable``/``likely-unstable``; 0 runs none), ``simulate`` (default: when
        ``sim_budget > 0``), ``templates`` (default: all); point ``i`` gets the seed ``seed + i``.
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
    **kw
        Fields of :class:`~certify.proof.options.ProveOptions` by name (``time_limit=20``, ``sim_budget``,
        ``simulate``, ``templates``, ``seed``, ...): they replace those of ``options``.

    Returns
    -------
    SweepResult
        The points in grid order, with the sweep's ``key``.

    Raises
    ------
    NetworkError
        A bad path or range, a grid value that makes the network invalid, or a budget, worker count or seed
        out of range (named as the argument).

    Examples
    --------
    >>> import certify
    >>> net = certify.loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 1}, "2": {"mu": 1}}, '
    ...                     '"streams": [{"choice": ["1", "2"], "rate": 1}]}')
    >>> res = certify.sweep(net, [("streams[0].rate", "1:3:2")], workers=1)
    >>> [(str(p.values[0]), p.verdict) for p in res.points]
    [('1', 'stable'), ('3', 'unstable')]
    """
    base = base_doc(net)
    spec = normalise_vary(vary, base, _OPTION)
    opts = ProveOptions.of(options if options is not None else SWEEP_OPTIONS, "sweep", **kw)
    time_limit, sim_budget, seed = opts.time_limit, opts.sim_budget, opts.seed
    _check_budgets(time_limit, sim_budget, workers, seed)
    opts = replace(opts, simulate=sim_budget > 0 if opts.simulate is None else bool(opts.simulate))
    paths = [p for p, _ in spec]
    toks = [cast(Tokens, path_tokens(p)) for p in paths]  # each checked by normalise_vary
    grids = [vals for _, vals in spec]
    key, key_doc = _key(base, spec, opts)
    tasks = _tasks(base, paths, toks, grids, opts)
    name = base.get("name", "network")
    network = name if isinstance(name, str) else "network"  # to_dict writes the name, a string

    store = ResultStore(out)
    try:
        store.register(key, network, key_doc, len(tasks))
        have = store.finished(key)
        result = SweepResult(key, network, tuple(paths), tuple(tuple(g) for g in grids), [],
                             time_limit, sim_budget, reused=len(have), notes=rescale_notes(base, toks), base=base)
        by_index = _run(store, result, tasks, have, seed=seed, workers=workers, scheduler=scheduler,
                        progress=progress, on_point=on_point)
        result.points = [by_index[i] for i in sorted(by_index)]
        return result
    finally:
        store.close()


def _key(base: JsonDocument, spec: list[tuple[str, list[Fraction]]], opts: ProveOptions) -> tuple[str, JsonObject]:
    """The sweep's key (16 hex digits) and the document it is the digest of: the same sweep, the same key.

    The options other than those keyed since the first sweeps (:data:`_KEYED`) enter it only when not the default,
    so that a sweep that does not set them keeps its key (and resumes from the same results file).
    """
    templates = None if opts.templates is None else list(opts.templates)
    key_doc: JsonObject = {
        "version": __version__, "network": base, "vary": [[p, [exact_str(v) for v in vals]] for p, vals in spec],
        "time_limit": float(opts.time_limit), "sim_budget": float(opts.sim_budget), "simulate": opts.simulate,
        "templates": templates, "seed": int(opts.seed)}
    others = {k: v for k, v in opts.changed().items() if k not in _KEYED}
    if others:
        key_doc["options"] = others
    return hashlib.sha256(json.dumps(key_doc, sort_keys=True).encode()).hexdigest()[:16], key_doc


def _real(x: object) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _check_budgets(time_limit: float, sim_budget: float, workers: int, seed: int) -> None:
    """Refuse budgets, worker counts and seeds out of range (one NetworkError naming the argument)."""
    if not _real(time_limit) or not (math.isfinite(time_limit) and time_limit > 0):
        raise NetworkError(None, "time_limit", f"{time_limit!r} must be a positive finite number of seconds")
    if not _real(sim_budget) or not (math.isfinite(sim_budget) and sim_budget >= 0):
        raise NetworkError(None, "sim_budget", f"{sim_budget!r} must be a finite number of seconds >= 0")
    if isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers < 1:
        raise NetworkError(None, "workers", f"{workers!r} must be an integer >= 1")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise NetworkError(None, "seed", f"{seed!r} must be an integer >= 0")


def _tasks(base: JsonDocument, paths: list[str], toks: list[Tokens], grids: list[list[Fraction]], opts: ProveOptions) -> list[PointTask]:
    """One task per grid point (first parameter slowest), each network checked valid before anything runs."""
    from ..io.loader import from_dict

    tasks: list[PointTask] = []
    for idx, vals in enumerate(itertools.product(*grids)):
        doc = apply_values(base, toks, vals)
        try:
            from_dict(doc)
        except NetworkError as exc:
            at = ", ".join(f"{p} = {exact_str(v)}" for p, v in zip(paths, vals))
            raise NetworkError(None, _OPTION, f"at {at} the network is invalid: {exc.path}: {exc.rule}") from None
        tasks.append({"index": idx, "values": vals, "doc": doc, "options": replace(opts, seed=opts.seed + idx)})
    return tasks


def _run(store: ResultStore, result: SweepResult, tasks: list[PointTask], have: dict[int, SweepPoint], *, seed: int,
         workers: int, scheduler: str | Client | None, progress: bool | None,
         on_point: Callable[[SweepPoint], None] | None) -> dict[int, SweepPoint]:
    """Prove the points not in ``have``, storing each as it finishes; every point by index."""
    todo = [t for t in tasks if t["index"] not in have]
    by_index = dict(have)
    values_of = {t["index"]: t["values"] for t in tasks}
    bar = _bar(progress, len(tasks), len(have), result.network)
    try:
        runner = executor(todo, workers, scheduler)
        with closing(runner):
            for r in runner:
                i = r["index"]
                pt = SweepPoint(i, tuple(values_of[i]), r["verdict"], r["method"], r["semantics"], r["time_s"],
                                r["reasons"], r["theorems"], seed + i, time.time())
                store.add(result.key, result.paths, pt)
                by_index[i] = pt
                result.computed += 1
                if bar is not None:
                    bar.update(1)
                    bar.set_postfix_str(tally(by_index.values()), refresh=False)
                if on_point is not None:
                    on_point(pt)
    finally:
        if bar is not None:
            bar.close()
    return by_index


def _bar(progress: bool | None, total: int, initial: int, name: str) -> Any:
    import sys

    if progress is False or (progress is None and not sys.stderr.isatty()):
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, desc=f"sweep {name}", unit="pt", dynamic_ncols=True)
