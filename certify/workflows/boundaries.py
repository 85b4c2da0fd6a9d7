"""Several stability boundaries at once, on a local pool or a Dask cluster (``certify boundary`` with many files or ``--over``).

:func:`boundaries` runs one :func:`~certify.workflows.boundary.boundary`
bisection per network, and per value of a second parameter (``over``) swept on
a grid while the first is bisected: the boundary *curve*.  Each bisection is
one task for the sweep's executors (:mod:`certify.workflows.executors`):
in this process, on a pool of worker processes, or on a Dask cluster.  The
whole run shares one deadline (``time_limit``), each bisection gets what is left
when it starts, and finished boundaries are handed to ``progress`` as they come
(``certify boundary --out`` writes their certificates then), so a Ctrl-C keeps
every boundary already bracketed.

Public: :func:`boundaries`, :class:`BoundaryCurve` (its rows: :class:`BoundaryRow`), :class:`BoundaryTask`,
:func:`run_boundary`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from typing import TYPE_CHECKING, Any, TypedDict

from ..core.errors import NetworkError, NotSupported
from ..core.jsontypes import JsonDocument, JsonObject
from ..core.model import Network
from ..core.numbers import approx_str, exact_str, q
from ..core.render import html_escape, html_table, markdown_escape, markdown_table
from ..proof.options import ProveOptions
from .boundary import LOAD, bisection_interval, boundary
from .boundary_result import BoundaryResult
from .crossings import DEFAULT_GRID, check_grid
from .paths import ExactDocument, apply_values, base_doc, check_path
from .vary import parse_vary

if TYPE_CHECKING:
    from distributed import Client
    from pandas import DataFrame

__all__ = ["BoundaryTask", "BoundaryRow", "BoundaryCurve", "boundaries", "run_boundary"]


@dataclass(frozen=True)
class BoundaryTask:
    """One bisection of a :func:`boundaries` run: plain data, so that a worker process or a Dask worker can run it.

    Attributes
    ----------
    index : int
        Its place in the run (files first, then the ``over`` values).
    label : str
        The network's name, and ``PATH=value`` for an ``over`` value.
    doc : dict
        The network document (:func:`~certify.workflows.paths.base_doc`; with the ``over`` value applied,
        :func:`~certify.workflows.paths.apply_values`).
    over_value : Fraction or None
        The value of the ``over`` parameter (None without one).
    parameter, lo, hi, tol : str or Fraction
        The bisection, as for :func:`~certify.workflows.boundary.boundary`.
    point_limit : float
        Seconds per probe.
    deadline : float
        ``time.time()`` at which the whole run ends (each bisection gets what is left).
    options : ProveOptions or None
        How each probe is proved (as for :func:`~certify.workflows.boundary.boundary`; None: the defaults).
    grid : int
        Interior points probed before bisecting (as for :func:`~certify.workflows.boundary.boundary`).

    Examples
    --------
    >>> BoundaryTask(0, "mm1", {}, None, "load", Fraction(1, 2), Fraction(3, 2), None, 60.0, 0.0).label
    'mm1'
    """

    index: int
    label: str
    doc: JsonDocument | ExactDocument
    over_value: Fraction | None
    parameter: str
    lo: Fraction
    hi: Fraction
    tol: Fraction | None
    point_limit: float
    deadline: float
    options: ProveOptions | None = None
    grid: int = DEFAULT_GRID


def run_boundary(task: BoundaryTask) -> tuple[int, BoundaryResult]:
    """Run one task's bisection (in whatever process the executor chose).

    Parameters
    ----------
    task : BoundaryTask
        The bisection.

    Returns
    -------
    (int, BoundaryResult)
        The task's index and its bracket.

    Examples
    --------
    >>> import time
    >>> doc = {"format": "jsq-network/1", "name": "mm1", "stations": {"1": {"mu": 1}}, "streams": [{"choice": ["1"], "rate": 1}]}
    >>> i, r = run_boundary(BoundaryTask(3, "mm1", doc, None, "load", Fraction(1, 2), Fraction(3, 2), Fraction(1, 4),
    ...                                  30.0, time.time() + 60))
    >>> i, r.stable_at, r.unstable_at
    (3, Fraction(7, 8), Fraction(9, 8))
    """
    from ..io.loader import from_dict

    left = max(0.0, task.deadline - time.time())
    try:
        net = from_dict(task.doc)
        assert isinstance(net, Network)
        res = boundary(net, task.parameter, task.lo, task.hi, task.options, tol=task.tol, grid=task.grid,
                       point_limit=task.point_limit, time_limit=left)
    except Exception as exc:  # recorded, as a sweep records a point that raised: the other boundaries go on
        res = BoundaryResult(task.label, task.parameter, task.lo, task.hi, task.tol or Fraction(0),
                             stopped=f"the bisection raised {exc!r}", grid=task.grid)
    return task.index, res


class BoundaryRow(TypedDict):
    """One row of :meth:`BoundaryCurve.rows`: a task's label, ``over`` value and (first) bracket, exact.

    Examples
    --------
    >>> row = BoundaryRow(label="mm1", over_value=None, stable_at=Fraction(7, 8), unstable_at=Fraction(9, 8),
    ...                   width=Fraction(1, 4), crossings=1, bracketed=True, probes=6, time_s=0.5, stopped="done")
    >>> row["width"]
    Fraction(1, 4)
    """

    label: str
    over_value: Fraction | None
    stable_at: Fraction | None
    unstable_at: Fraction | None
    width: Fraction | None
    crossings: int
    bracketed: bool
    probes: int
    time_s: float
    stopped: str


@dataclass
class BoundaryCurve:
    """The brackets of a :func:`boundaries` run, one per network (and ``over`` value), in task order.

    Attributes
    ----------
    parameter : str
        The parameter bisected.
    over : str or None
        The parameter swept on a grid (None without one).
    tasks : list of BoundaryTask
        Every bisection asked for.
    results : dict of int to BoundaryResult
        The finished ones, by task index.
    stopped : str
        ``done``, or why the run ended early.
    time_s : float
        Seconds for the whole run.

    Examples
    --------
    >>> c = BoundaryCurve("load", None, [])
    >>> c.bracketed, c.to_json()["boundaries"]
    (True, [])
    """

    parameter: str
    over: str | None
    tasks: list[BoundaryTask]
    results: dict[int, BoundaryResult] = field(default_factory=dict)
    stopped: str = "done"
    time_s: float = 0.0

    @property
    def bracketed(self) -> bool:
        """True when every bisection finished with at least one crossing bracketed by proofs on both sides.

        Returns
        -------
        bool
            Whether each task has a result with a bracketed crossing.

        Examples
        --------
        >>> BoundaryCurve("load", None, []).bracketed
        True
        """
        return all(t.index in self.results and self.results[t.index].bracketed for t in self.tasks)

    def rows(self) -> list[BoundaryRow]:
        """One row per task: label, ``over`` value, the (first) bracket (exact), width, crossings found, probes, time.

        Returns
        -------
        list of BoundaryRow
            ``label``, ``over_value``, ``stable_at``, ``unstable_at``, ``width`` (Fractions or None: the
            first crossing's), ``crossings`` (how many were found), ``bracketed``, ``probes``, ``time_s``, ``stopped``.

        Examples
        --------
        >>> BoundaryCurve("load", None, []).rows()
        []
        """
        out: list[BoundaryRow] = []
        for t in self.tasks:
            r = self.results.get(t.index)
            out.append({"label": t.label, "over_value": t.over_value,
                        "stable_at": r.stable_at if r else None, "unstable_at": r.unstable_at if r else None,
                        "width": r.width if r else None, "crossings": len(r.crossings) if r else 0,
                        "bracketed": bool(r and r.bracketed),
                        "probes": len(r.steps) if r else 0, "time_s": r.time_s if r else 0.0,
                        "stopped": r.stopped if r else "not run"})
        return out

    def to_json(self) -> JsonObject:
        """The run as one JSON object: the parameters and, per task, its label, ``over`` value and whole bracket.

        Returns
        -------
        dict
            ``parameter``, ``over``, ``stopped``, ``time_s``, ``boundaries`` (each
            :meth:`BoundaryResult.to_json` plus ``label`` and ``over_value``, or
            ``{"label", "over_value", "stopped": "not run"}``).

        Examples
        --------
        >>> BoundaryCurve("load", "stations.1.mu", []).to_json()["over"]
        'stations.1.mu'
        """
        items: list[JsonObject] = []
        for t in self.tasks:
            r = self.results.get(t.index)
            head: JsonObject = {"label": t.label, "over_value": None if t.over_value is None else q(t.over_value)}
            items.append({**head, **r.to_json()} if r is not None else {**head, "stopped": "not run"})
        return {"parameter": self.parameter, "over": self.over, "stopped": self.stopped, "time_s": round(self.time_s, 3),
                "boundaries": items}

    def to_pandas(self) -> DataFrame:
        """The brackets as a pandas DataFrame, exact values as Fractions (one row per task).

        Returns
        -------
        pandas.DataFrame
            The columns of :meth:`rows`.

        Examples
        --------
        >>> list(BoundaryCurve("load", None, []).to_pandas().columns)[:3]
        ['label', 'over_value', 'stable_at']
        """
        import pandas as pd

        cols = ["label", "over_value", "stable_at", "unstable_at", "width", "crossings", "bracketed", "probes", "time_s",
                "stopped"]
        return pd.DataFrame(self.rows(), columns=cols)

    def _table(self) -> list[list[object]]:
        def ex(x: Fraction | None) -> str:
            return "-" if x is None else exact_str(x)

        return [[r["label"], ex(r["stable_at"]), ex(r["unstable_at"]), ex(r["width"]), r["crossings"], r["probes"],
                 f"{r['time_s']:.1f}"] for r in self.rows()]

    _HEADER = ["boundary", "stable at", "unstable at", "width", "crossings", "probes", "s"]

    def _repr_markdown_(self) -> str:
        head = f"**{len(self.tasks)} boundaries along {markdown_escape(self.parameter)}**"
        return f"{head}\n\n{markdown_table(self._HEADER, self._table())}"

    def _repr_html_(self) -> str:
        head = f"<p><b>{len(self.tasks)} boundaries along {html_escape(self.parameter)}</b></p>"
        return f"<div>{head}{html_table(self._HEADER, self._table())}</div>"


def summary(task: BoundaryTask, res: BoundaryResult) -> str:
    """One line for a finished bisection: its label, the bracket (every bracket, when several) and the time.

    Parameters
    ----------
    task : BoundaryTask
        The task.
    res : BoundaryResult
        Its bracket.

    Returns
    -------
    str
        E.g. ``mm1: stable at 0.96875, unstable at 1.0625 (width 0.09375, 6 probes, 0.8 s)``.

    Examples
    --------
    >>> t = BoundaryTask(0, "mm1", {}, None, "load", Fraction(1, 2), Fraction(3, 2), None, 60.0, 0.0)
    >>> summary(t, BoundaryResult("mm1", "load", Fraction(1, 2), Fraction(3, 2), Fraction(1, 10), Fraction(31, 32)))
    'mm1: stable at 0.96875, no value proved unstable (0 probes, 0.0 s)'
    """
    tail = f"{len(res.steps)} probes, {res.time_s:.1f} s"
    if len(res.crossings) > 1:
        each = "; ".join(f"stable at {approx_str(c.stable_at)}, unstable at {approx_str(c.unstable_at)}" for c in res.crossings)
        return f"{task.label}: {len(res.crossings)} crossings: {each} ({tail})"
    s = f"stable at {approx_str(res.stable_at)}" if res.stable_at is not None else "no value proved stable"
    u = f"unstable at {approx_str(res.unstable_at)}" if res.unstable_at is not None else "no value proved unstable"
    w = f"width {approx_str(res.width)}, " if res.width is not None else ""
    return f"{task.label}: {s}, {u} ({w}{tail})"


def slug(task: BoundaryTask) -> str:
    """A directory name for a task's certificates: its index and label, safe in any file system.

    Parameters
    ----------
    task : BoundaryTask
        The task.

    Returns
    -------
    str
        E.g. ``01-mm1-stations.1.mu=3_2``.

    Examples
    --------
    >>> slug(BoundaryTask(1, "mm1 @ stations.1.mu=3/2", {}, Fraction(3, 2), "load", Fraction(1), Fraction(2), None, 1.0, 0.0))
    '01-mm1-stations.1.mu=3_2'
    """
    return f"{task.index:02d}-" + re.sub(r"[^A-Za-z0-9.=+-]+", "_", task.label.replace(" @ ", "-")).strip("_")


def boundaries(
    networks: Sequence[Network],
    parameter: str,
    lo: object,
    hi: object,
    options: ProveOptions | None = None,
    *,
    over: str | tuple[str, Sequence[Fraction | int | float | str]] | None = None,
    tol: object = None,
    grid: int = DEFAULT_GRID,
    point_limit: float = 60.0,
    time_limit: float = 600.0,
    workers: int = 1,
    scheduler: str | Client | None = None,
    progress: Callable[[BoundaryTask, BoundaryResult], None] | None = None,
    started: Callable[[list[BoundaryTask]], None] | None = None,
    **kw: Any,
) -> BoundaryCurve:
    """Bracket several stability boundaries: one bisection per network and per value of ``over``, run in parallel.

    Parameters
    ----------
    networks : sequence of Network
        The JSQ networks (each bisected along ``parameter``).
    parameter, lo, hi, options, tol, grid, point_limit
        As for :func:`~certify.workflows.boundary.boundary`, for every bisection.
    over : str or (str, sequence of number), optional
        A second parameter swept on a grid while the first is bisected: ``PATH=START:STOP:N`` or
        ``(PATH, values)`` (the boundary curve); every network gets every value.
    time_limit : float
        Seconds for the whole run (each bisection gets what is left when it starts).
    workers : int
        Local worker processes (1: in this process).
    scheduler : str or distributed.Client, optional
        A Dask scheduler: the bisections run there.
    progress : callable, optional
        Called as ``progress(task, result)`` as each bisection finishes (in the order they finish).
    started : callable, optional
        Called with the tasks once every parameter is checked on every network, before any bisection runs.
    **kw
        Fields of :class:`~certify.proof.options.ProveOptions` by name (``templates``, ``solver``, ...): they
        replace those of ``options``.

    Returns
    -------
    BoundaryCurve
        Every bracket, in task order; a Ctrl-C ends the run, keeping the finished ones (``stopped`` says so).

    Raises
    ------
    NetworkError
        When a parameter names no number of a network, or the interval, the ``over`` grid or ``grid`` is malformed.
    NotSupported
        For a fork-join network.

    Examples
    --------
    The M/M/1 queue's boundary in the load is mu: along a grid of mu, the curve load* = mu.

    >>> from certify.core.model import Station, Stream
    >>> mm1 = Network("mm1", (Station("1", Fraction(1)),), (Stream(Fraction(1), choice=("1",)),))
    >>> curve = boundaries([mm1], "load", "0.25", "4", over="stations.1.mu=1:2:2", tol="0.1")
    >>> [(r["label"], r["stable_at"] < r["over_value"] < r["unstable_at"]) for r in curve.rows()]
    [('mm1 @ stations.1.mu=1', True), ('mm1 @ stations.1.mu=2', True)]
    """
    from .executors import executor

    a, b, t = bisection_interval(lo, hi, tol)
    n = check_grid(grid)
    opts = ProveOptions.of(options, "boundaries", **kw)
    t0 = time.perf_counter()
    deadline = time.time() + time_limit
    over_path: str | None = None
    values: list[Fraction | None] = [None]
    if over is not None:
        over_path, over_grid = parse_vary(over, option="--over") if isinstance(over, str) else (over[0], list(over[1]))
        values = [Fraction(v) for v in over_grid] or [None]
    tasks: list[BoundaryTask] = []
    for net in networks:
        if not isinstance(net, Network):
            raise NotSupported(f"{getattr(net, 'name', net)}: boundaries are for JSQ networks")
        doc = base_doc(net)
        if parameter != LOAD:  # refused here, before any worker starts
            check_path(doc, parameter, partial(NetworkError, net.source, "--vary"))
        tokens = None
        if over_path is not None:
            tokens = check_path(doc, over_path, partial(NetworkError, net.source, "--over"))
        for v in values:
            doc_v = doc if v is None or tokens is None else apply_values(doc, [tokens], [v])
            label = net.name if v is None else f"{net.name} @ {over_path}={exact_str(v)}"
            tasks.append(BoundaryTask(len(tasks), label, doc_v, v, parameter, a, b, t, point_limit, deadline, opts, n))
    if started is not None:
        started(tasks)
    curve = BoundaryCurve(parameter, over_path, tasks)
    by_index = {t.index: t for t in tasks}
    outcomes = executor(tasks, workers, scheduler, fn=run_boundary)
    try:
        for index, res in outcomes:
            curve.results[index] = res
            if progress is not None:
                progress(by_index[index], res)
    except KeyboardInterrupt:
        curve.stopped = "interrupted (Ctrl-C): the boundaries finished so far"
    finally:
        close = getattr(outcomes, "close", None)
        if close is not None:
            close()
    curve.time_s = time.perf_counter() - t0
    return curve
