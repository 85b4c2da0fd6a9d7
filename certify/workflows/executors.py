"""Where a sweep's points run: in this process, on a local process pool, or on a Dask cluster.

A point is plain data (:class:`PointTask`: the network document and the
:class:`~certify.proof.options.ProveOptions` it is proved with, seed included)
and :func:`run_point` proves it and never raises, so the same task gives the
same outcome (:class:`PointOutcome`) wherever it runs.  Each executor
is an iterator of outcomes in the order they finish; closing it early (an
interrupted sweep) stops the points still in flight.

The pool's workers are spawned processes that import :func:`run_point` by its
module path (``certify.workflows.executors``) and do not re-run the caller's
``__main__`` script (:class:`_BareMainProcess`), ignore Ctrl-C (the parent
handles it) and use one BLAS thread each.

Public: :class:`PointTask`, :class:`PointOutcome`, :func:`run_point`,
:func:`run_serial`, :func:`run_pool`, :func:`run_dask`, :func:`executor`.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import os
import time
from collections.abc import Callable, Generator
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict

from ..core.errors import NetworkError
from ..core.jsontypes import JsonObject
from ..core.vocabulary import Semantics, Verdict
from ..proof.options import ProveOptions
from .paths import ExactDocument
from .sweep_result import ERROR_METHOD

if TYPE_CHECKING:
    from multiprocessing.popen_spawn_posix import Popen
    from multiprocessing.process import BaseProcess

    from distributed import Client

#: What an executor returns: a generator of outcomes (of :func:`run_point`, or of the ``fn`` given), closed to stop early.
Outcomes: TypeAlias = "Generator[Any, None, None]"

__all__ = ["PointTask", "PointOutcome", "run_point", "run_serial", "run_pool", "run_dask", "executor"]


class PointTask(TypedDict):
    """One point of a sweep to prove: plain data, picklable, the same wherever it runs.

    Keys: ``index`` (grid index), ``values`` (the swept values), ``doc`` (the
    network document at this point) and ``options`` (how :func:`certify.prove`
    runs there: a :class:`~certify.proof.options.ProveOptions`, the point's seed included).

    Examples
    --------
    >>> task = PointTask(index=0, values=(), doc={}, options=ProveOptions(time_limit=1.0, simulate=False))
    >>> task["index"], task["options"].time_limit
    (0, 1.0)
    """

    index: int
    values: tuple[Fraction, ...]
    doc: ExactDocument
    options: ProveOptions


class PointOutcome(TypedDict):
    """What :func:`run_point` says about one point (the fields of :class:`~certify.workflows.sweep_result.SweepPoint` it fills).

    Examples
    --------
    >>> PointOutcome(index=0, verdict="stable", method="theorem", semantics="general", time_s=0.0, reasons=[],
    ...              theorems=[])["verdict"]
    'stable'
    """

    index: int
    verdict: Verdict
    method: str
    semantics: Semantics
    time_s: float
    reasons: list[str]
    theorems: list[JsonObject]


def run_point(task: PointTask) -> PointOutcome:
    """Prove one point (in a worker process, a Dask worker, or here); never raises.

    Parameters
    ----------
    task : PointTask
        The point.

    Returns
    -------
    PointOutcome
        The verdict, method, semantics, time, reasons and theorems of
        :func:`certify.prove` at this point (a solver's notes added to the
        reasons).  If prove raises, the verdict is ``undecided``, the method
        ``error: <exception type>`` and the reason names the exception: a bug
        in one point must not lose the sweep.

    Examples
    --------
    >>> task = PointTask(index=3, values=(), doc={"format": "jsq-network/1", "stations": {"1": {"mu": "2"}},
    ...                  "streams": [{"choice": ["1"], "rate": "1"}]}, options=ProveOptions(time_limit=10.0, simulate=False))
    >>> out = run_point(task)
    >>> out["index"], out["verdict"]
    (3, 'stable')
    >>> run_point({**task, "doc": {}})["method"]
    'error: NetworkError'
    """
    from ..io.loader import from_dict
    from ..proof.pipeline import prove
    from ..search.solvers import collect, notes_reason

    t0 = time.perf_counter()
    try:
        with collect() as notes:
            res = prove(from_dict(task["doc"]), task["options"])
        said = notes_reason(notes)
        if said and said not in res.reasons:
            res.reasons.append(said)
    except Exception as exc:  # a bug in one point must not lose the sweep
        return {"index": task["index"], "verdict": "undecided", "method": f"{ERROR_METHOD}: {type(exc).__name__}",
                "semantics": "markovian", "time_s": time.perf_counter() - t0, "reasons": [f"prove raised {exc!r}"],
                "theorems": []}
    return {"index": task["index"], "verdict": res.verdict, "method": res.method, "semantics": res.semantics,
            "time_s": res.time_s, "reasons": list(res.reasons),
            # TheoremVerdict.to_json (certify/exact/verdict.py) is typed dict[str, object]; its values are JSON
            "theorems": [tv.to_json() for tv in res.theorems]}


def _worker_init() -> None:
    """Pool workers: one BLAS thread each, one process per exact cell check (the pool has the other cores), and
    Ctrl-C is the parent's business."""
    import signal

    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "CERTIFY_CHECK_PROCESSES"):
        os.environ.setdefault(var, "1")
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_serial(tasks: list[Any], fn: Callable[[Any], Any] = run_point) -> Outcomes:
    """Prove the points one after another in this process.

    Parameters
    ----------
    tasks : list of PointTask
        The points.
    fn : callable
        What runs one task (default :func:`run_point`; a boundary task for :mod:`certify.workflows.boundaries`).

    Yields
    ------
    PointOutcome
        One per task, in the order given.

    Examples
    --------
    >>> [o["verdict"] for o in run_serial([])]
    []
    """
    for t in tasks:
        yield fn(t)


class _BareMainProcess(multiprocessing.context.SpawnProcess):
    """A spawned worker that does not re-run the caller's ``__main__`` script.

    A spawned child normally imports the parent's main script again (as
    ``__mp_main__``) before it unpickles its task, so a script that calls
    :func:`certify.sweep` at top level, without ``if __name__ == "__main__":``,
    would start the sweep again in every worker (and fail).  The points' tasks
    need only :mod:`certify` (plain data and :func:`run_point`), so the worker
    is started as if the parent had no main script: the README's snippet works
    when pasted into a script, guarded or not.
    """

    @staticmethod
    def _Popen(process_obj: BaseProcess) -> Popen:
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

    Process = _BareMainProcess


def run_pool(tasks: list[Any], workers: int, fn: Callable[[Any], Any] = run_point) -> Outcomes:
    """Prove the points on a local pool of spawned worker processes.

    Parameters
    ----------
    tasks : list of PointTask
        The points.
    workers : int
        The number of worker processes.
    fn : callable
        What runs one task (a module-level function: it is pickled by name).

    Yields
    ------
    PointOutcome
        One per task, in the order they finish.  Closing the iterator before
        the end (an interrupted sweep) terminates the workers: the points in
        flight are not reported.

    Examples
    --------
    >>> [o["verdict"] for o in run_pool([], 2)]
    []
    """
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    ex = ProcessPoolExecutor(max_workers=workers, mp_context=_BareMainContext(), initializer=_worker_init)
    done_all = False
    try:
        pending = {ex.submit(fn, t) for t in tasks}
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


def run_dask(tasks: list[Any], scheduler: str | Client, fn: Callable[[Any], Any] = run_point) -> Outcomes:
    """Prove the points on an existing Dask distributed cluster.

    Parameters
    ----------
    tasks : list of PointTask
        The points.
    scheduler : str or distributed.Client
        The scheduler's address (a client is opened and closed here), or a
        client to use.
    fn : callable
        What runs one task (a module-level function of certify: the workers import it).

    Yields
    ------
    PointOutcome
        One per task, in the order they finish; closing the iterator early
        cancels the points not finished.

    Raises
    ------
    NetworkError
        (option ``--scheduler``) dask.distributed is not installed, or the
        scheduler cannot be reached.

    Examples
    --------
    >>> import distributed
    >>> with distributed.Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
    ...     [o["verdict"] for o in run_dask([], client)]
    []
    """
    try:
        from distributed import Client, as_completed
    except ImportError as exc:  # pragma: no cover - dask is a dependency
        raise NetworkError(None, "--scheduler", f"dask.distributed is not installed ({exc})") from None
    own = not isinstance(scheduler, Client)
    if isinstance(scheduler, Client):
        client = scheduler
    else:
        if isinstance(scheduler, str):
            _check_address(scheduler)
        try:
            client = Client(scheduler, timeout="20s", set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise NetworkError(None, "--scheduler", f"cannot connect to the Dask scheduler at {scheduler!r}: {exc}") from None
    futures = [client.submit(fn, t, pure=False) for t in tasks]
    try:
        for fut in as_completed(futures, loop=client.loop):
            yield fut.result()
    finally:
        client.cancel([f for f in futures if not f.done()])
        if own:
            client.close()


def _check_address(address: str) -> None:
    """Refuse an address Dask cannot parse before a Client is made for it.

    A Client whose address does not parse raises ValueError from its
    constructor, and the half-made object then hangs the interpreter's exit
    for 40 s and prints a traceback; parsing first gives the same one-line
    refusal without either.
    """
    from distributed.comm import resolve_address

    try:
        resolve_address(address)
    except ValueError as exc:
        raise NetworkError(None, "--scheduler", f"cannot connect to the Dask scheduler at {address!r}: {exc}") from None
    except OSError:  # e.g. an unknown host name: the Client's connection attempt reports it, as before
        pass


def executor(todo: list[Any], workers: int, scheduler: str | Client | None = None, fn: Callable[[Any], Any] = run_point) -> Outcomes:
    """The executor a sweep uses for the points still to do.

    Parameters
    ----------
    todo : list of PointTask
        The points not yet stored.
    workers : int
        Local worker processes (1: in this process).
    scheduler : str or distributed.Client, optional
        A Dask scheduler: the points run there instead.
    fn : callable
        What runs one task (default :func:`run_point`).

    Returns
    -------
    iterator of PointOutcome
        :func:`run_serial` when there is nothing to do or ``workers`` is 1 (and
        no scheduler), :func:`run_dask` with a scheduler, else :func:`run_pool`
        with at most one worker per point.

    Examples
    --------
    >>> list(executor([], workers=4))
    []
    """
    if not todo:
        return run_serial([], fn)
    if scheduler is not None:
        return run_dask(todo, scheduler, fn)
    if workers == 1:
        return run_serial(todo, fn)
    return run_pool(todo, min(workers, len(todo)), fn)
