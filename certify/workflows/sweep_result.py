"""What a sweep returns: its points (:class:`SweepPoint`), the whole sweep (:class:`SweepResult`), CSV files.

Public: :class:`SweepPoint`, :class:`SweepResult`, :func:`read_csv`,
:func:`tally`, :data:`ERROR_METHOD`.
"""

from __future__ import annotations

import csv
import json
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, cast

from ..core.jsontypes import JsonDocument, JsonObject
from ..core.numbers import as_fraction, exact_str
from ..core.render import html_escape, html_table, markdown_escape, markdown_table
from ..core.vocabulary import VERDICTS, Semantics, Verdict
from .paths import Tokens, apply_values, path_tokens

if TYPE_CHECKING:
    from pandas import DataFrame

    from ..core.model import ForkJoinNetwork, Network

__all__ = ["ERROR_METHOD", "SweepPoint", "SweepResult", "read_csv", "tally"]

ERROR_METHOD = "error"
"""The method of a point whose prove raised: stored, and recomputed by the next run."""

_VERDICT_ORDER = VERDICTS


@dataclass
class SweepPoint:
    """One point of a sweep: its parameter values and what :func:`certify.prove` said there.

    Parameters
    ----------
    index : int
        Its place in the grid (the first parameter varies slowest).
    values : tuple of Fraction
        The values of the swept parameters, in the order of the sweep's paths.
    verdict : Verdict
        As in :class:`certify.Result`.
    method : str
        As in :class:`certify.Result`.
    semantics : Semantics
        As in :class:`certify.Result`.
    time_s : float
        Seconds the proof took.
    reasons : list of str
        As in :class:`certify.Result`.
    theorems : list of dict
        The known theorems that applied (JSON form).
    seed : int
        The seed of the point's simulation checks.
    finished : float
        When it was stored (seconds since the epoch).

    Examples
    --------
    >>> from fractions import Fraction
    >>> p = SweepPoint(0, (Fraction(1, 2),), "stable", "theorem", "general", 0.01, [])
    >>> p.verdict, p.seed
    ('stable', 0)
    """

    index: int
    values: tuple[Fraction, ...]
    verdict: Verdict
    method: str
    semantics: Semantics
    time_s: float
    reasons: list[str]
    theorems: list[JsonObject] = field(default_factory=list)
    seed: int = 0
    finished: float = 0.0  # when it was stored (seconds since the epoch)


@dataclass
class SweepResult:
    """The points of a sweep, in grid order (the first parameter varies slowest).

    ``computed`` points were proved by this call; ``reused`` were found in the
    results file from an earlier run of the same sweep (same ``key``).

    Parameters
    ----------
    key : str
        The sweep's identity: a digest of the network, the grid, the budgets,
        the templates, the seed and the certify version.
    network : str
        The network's name.
    paths : tuple of str
        The swept field paths.
    values : tuple of tuple of Fraction
        The grid of each path.
    points : list of SweepPoint
        The points, in grid order.
    time_limit, sim_budget : float
        The per-point budgets (seconds).
    computed, reused : int
        Points proved by this call, and found in the results file.
    notes : list of str
        What else changed with the swept values (rescaled probabilities).
    base : dict
        The network document the paths point into.

    Examples
    --------
    >>> import certify
    >>> net = certify.loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 2}}, '
    ...                     '"streams": [{"choice": ["1"], "rate": 1}]}')
    >>> res = certify.sweep(net, [("streams[0].rate", [1, 3])], workers=1)
    >>> res.paths, res.computed, res.reused
    (('streams[0].rate',), 2, 0)
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
    base: JsonDocument = field(default_factory=dict, repr=False)

    def counts(self) -> dict[str, int]:
        """How many points got each verdict.

        Returns
        -------
        dict of str to int
            Verdict -> number of points (verdicts no point got are absent).

        Examples
        --------
        >>> import certify
        >>> net = certify.loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 2}}, '
        ...                     '"streams": [{"choice": ["1"], "rate": 1}]}')
        >>> certify.sweep(net, [("streams[0].rate", [1, 1.5, 3])], workers=1).counts()
        {'stable': 2, 'unstable': 1}
        """
        return dict(Counter(p.verdict for p in self.points))

    def network_at(self, values: Sequence[object]) -> Network | ForkJoinNetwork:
        """The network with the swept parameters set to ``values``.

        Parameters
        ----------
        values : sequence of numbers
            One exact number (Fraction, int, decimal string, float) per path.

        Returns
        -------
        Network
            The swept network at that point (rescaled probabilities included).

        Raises
        ------
        NetworkError
            The values make the network invalid.

        Examples
        --------
        >>> import certify
        >>> net = certify.loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 2}}, '
        ...                     '"streams": [{"choice": ["1"], "rate": 1}]}')
        >>> res = certify.sweep(net, [("streams[0].rate", [1, 3])], workers=1)
        >>> res.network_at(["5/2"]).streams[0].rate
        Fraction(5, 2)
        """
        from ..io.loader import from_dict

        toks = [cast(Tokens, path_tokens(p)) for p in self.paths]  # each checked when the sweep ran
        fr = [v if isinstance(v, Fraction) else as_fraction(v) for v in values]
        return from_dict(apply_values(self.base, toks, fr))

    def to_csv(self, path: str | os.PathLike[str]) -> None:
        """Write one row per point: index, the parameter values (exact), verdict, method, semantics, time_s, seed, reasons (JSON).

        Parameters
        ----------
        path : path
            The CSV file (overwritten).

        Examples
        --------
        >>> import certify, pathlib, tempfile
        >>> net = certify.loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 2}}, '
        ...                     '"streams": [{"choice": ["1"], "rate": 1}]}')
        >>> f = pathlib.Path(tempfile.mkdtemp()) / "sweep.csv"
        >>> certify.sweep(net, [("streams[0].rate", ["1/3"])], workers=1).to_csv(f)
        >>> f.read_text().splitlines()[0]
        'index,streams[0].rate,verdict,method,semantics,time_s,seed,reasons'
        """
        with open(path, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(["index", *self.paths, "verdict", "method", "semantics", "time_s", "seed", "reasons"])
            for p in self.points:
                w.writerow([p.index, *map(exact_str, p.values), p.verdict, p.method, p.semantics, repr(p.time_s), p.seed,
                            json.dumps(p.reasons)])

    def to_pandas(self) -> DataFrame:
        """One row per point as a pandas DataFrame; the parameter columns hold the exact values (Fractions).

        Returns
        -------
        pandas.DataFrame
            Columns ``index``, one per swept path (exact ``Fraction``), ``verdict``, ``method``,
            ``semantics``, ``time_s``, ``seed``.

        Examples
        --------
        >>> import certify
        >>> net = certify.loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 2}}, '
        ...                     '"streams": [{"choice": ["1"], "rate": 1}]}')
        >>> df = certify.sweep(net, [("streams[0].rate", [1, 3])], workers=1).to_pandas()
        >>> list(df["verdict"]), df["streams[0].rate"].iloc[1]
        (['stable', 'unstable'], Fraction(3, 1))
        """
        import pandas as pd

        rows = [{"index": p.index, **dict(zip(self.paths, p.values)), "verdict": p.verdict, "method": p.method,
                 "semantics": p.semantics, "time_s": p.time_s, "seed": p.seed} for p in self.points]
        return pd.DataFrame(rows, columns=["index", *self.paths, "verdict", "method", "semantics", "time_s", "seed"])

    def _rows(self, limit: int = 20) -> tuple[list[str], list[list[object]]]:
        header = [*self.paths, "verdict", "method", "s"]
        rows: list[list[object]] = [[*map(exact_str, p.values), p.verdict, p.method, f"{p.time_s:.2f}"]
                                    for p in self.points[:limit]]
        if len(self.points) > limit:
            rows.append([*(["..."] * len(self.paths)), f"{len(self.points) - limit} more points", "", ""])
        return header, rows

    def _head(self) -> str:
        counts = ", ".join(f"{v} {n}" for v, n in sorted(self.counts().items()))
        return f"sweep of {self.network} over {' x '.join(self.paths)}: {len(self.points)} points ({counts})"

    def _repr_markdown_(self) -> str:
        """The sweep in a notebook, as Markdown: the counts and the first points."""
        header, rows = self._rows()
        return f"**{markdown_escape(self._head())}**\n\n" + markdown_table(header, rows)

    def _repr_html_(self) -> str:
        """The sweep in a notebook, as HTML: the counts and the first points."""
        header, rows = self._rows()
        return f"<div><p><b>{html_escape(self._head())}</b></p>{html_table(header, rows)}</div>"

    def plot(self, path: str | os.PathLike[str], **kw: Any) -> None:
        """Draw the atlas to an image file (see :func:`certify.workflows.atlas.plot_atlas`).

        Parameters
        ----------
        path : path
            The image file (the extension chooses the format).
        **kw
            Passed to :func:`certify.workflows.atlas.plot_atlas`.

        Examples
        --------
        >>> import certify, pathlib, tempfile
        >>> net = certify.loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 2}}, '
        ...                     '"streams": [{"choice": ["1"], "rate": 1}]}')
        >>> f = pathlib.Path(tempfile.mkdtemp()) / "atlas.png"
        >>> certify.sweep(net, [("streams[0].rate", [1, 3])], workers=1).plot(f, theorem=False)
        >>> f.read_bytes()[:4]
        b'\\x89PNG'
        """
        from .atlas import plot_atlas

        plot_atlas(self, path, **kw)


def read_csv(path: str | os.PathLike[str]) -> tuple[tuple[str, ...], list[SweepPoint]]:
    """Read a file written by :meth:`SweepResult.to_csv`.

    Parameters
    ----------
    path : path
        The CSV file.

    Returns
    -------
    tuple of (tuple of str, list of SweepPoint)
        The parameter paths and the points (exact values; no theorems, no
        ``finished`` time: the CSV does not hold them).

    Examples
    --------
    >>> import certify, pathlib, tempfile
    >>> net = certify.loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 2}}, '
    ...                     '"streams": [{"choice": ["1"], "rate": 1}]}')
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "sweep.csv"
    >>> certify.sweep(net, [("streams[0].rate", ["1/3", 3])], workers=1).to_csv(f)
    >>> paths, points = read_csv(f)
    >>> paths, [(p.values, p.verdict) for p in points]
    (('streams[0].rate',), [((Fraction(1, 3),), 'stable'), ((Fraction(3, 1),), 'unstable')])
    """
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    head, body = rows[0], rows[1:]
    paths = tuple(head[1:head.index("verdict")])
    out = []
    for r in body:
        d = dict(zip(head, r))
        verdict, semantics = cast(Verdict, d["verdict"]), cast(Semantics, d["semantics"])  # as to_csv wrote them
        out.append(SweepPoint(int(d["index"]), tuple(Fraction(d[p]) for p in paths), verdict, d["method"],
                              semantics, float(d["time_s"]), json.loads(d["reasons"]), seed=int(d["seed"])))
    return paths, out


def tally(points: Iterable[SweepPoint]) -> str:
    """The verdict counts of some points in one short line (the progress bar's postfix).

    Parameters
    ----------
    points : iterable of SweepPoint
        The points so far.

    Returns
    -------
    str
        ``"stable 3 unstable 1"``: each verdict some point got, with its count,
        proved verdicts first.

    Examples
    --------
    >>> pts = [SweepPoint(i, (), v, "", "markovian", 0.0, []) for i, v in enumerate(["unstable", "stable", "stable"])]
    >>> tally(pts)
    'stable 2 unstable 1'
    """
    c = Counter(p.verdict for p in points)
    return " ".join(f"{v} {c[v]}" for v in _VERDICT_ORDER if c[v])
