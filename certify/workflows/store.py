"""The SQLite results file of sweeps: one committed row per finished point, so a sweep resumes.

The file holds two tables: ``sweeps`` (one row per sweep key: the network, the
spec, the number of points) and ``points`` (one row per finished point of a
sweep key).  Each point is committed in its own transaction as soon as it is
added, so an interrupted sweep loses nothing finished.  Points whose prove
raised (method ``error: ...``) are stored but not reported as finished, so the
next run recomputes them.

Public: :class:`ResultStore`.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Sequence
from fractions import Fraction

from ..core.jsontypes import JsonObject
from ..core.numbers import exact_str
from .sweep_result import ERROR_METHOD, SweepPoint

__all__ = ["ResultStore"]

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


class ResultStore:
    """The SQLite results file: one committed row per finished point.

    Parameters
    ----------
    path : path, optional
        The file (created with its tables if new); ``None``: an in-memory
        database that lasts as long as the store.

    Examples
    --------
    >>> from fractions import Fraction
    >>> store = ResultStore(None)
    >>> store.register("k1", "mm1", {"vary": []}, 2)
    >>> store.add("k1", ["streams[0].rate"], SweepPoint(0, (Fraction(1, 2),), "stable", "theorem", "general", 0.1, []))
    >>> store.add("k1", ["streams[0].rate"], SweepPoint(1, (Fraction(3),), "undecided", "error: KeyError", "markovian", 0.1, []))
    >>> {i: (p.values, p.verdict) for i, p in store.finished("k1").items()}
    {0: ((Fraction(1, 2),), 'stable')}
    >>> store.close()
    """

    def __init__(self, path: str | os.PathLike[str] | None) -> None:
        self.conn = sqlite3.connect(":memory:" if path is None else str(path), timeout=60)
        self.conn.executescript(_SCHEMA)
        self.conn.commit()

    def register(self, key: str, network: str, spec: JsonObject, points: int) -> None:
        """Record a sweep (once: a sweep already registered under ``key`` keeps its row).

        Parameters
        ----------
        key : str
            The sweep's key (:attr:`SweepResult.key`).
        network : str
            The network's name.
        spec : dict
            What the key is a digest of (JSON).
        points : int
            The number of points of the grid.

        Examples
        --------
        >>> store = ResultStore(None)
        >>> store.register("k1", "mm1", {"seed": 0}, 3)
        >>> store.conn.execute("SELECT key, network, points FROM sweeps").fetchall()
        [('k1', 'mm1', 3)]
        """
        with self.conn:
            self.conn.execute("INSERT OR IGNORE INTO sweeps VALUES (?, ?, ?, ?, ?)",
                              (key, network, json.dumps(spec, sort_keys=True), points, time.time()))

    def finished(self, key: str) -> dict[int, SweepPoint]:
        """The points of sweep ``key`` stored so far, except those whose prove raised.

        Parameters
        ----------
        key : str
            The sweep's key.

        Returns
        -------
        dict of int to SweepPoint
            Grid index -> point.

        Examples
        --------
        >>> ResultStore(None).finished("no-such-sweep")
        {}
        """
        cur = self.conn.execute(
            "SELECT idx, value1, value2, verdict, method, semantics, time_s, reasons, theorems, seed, finished "
            "FROM points WHERE key = ?", (key,))
        out = {}
        for idx, v1, v2, verdict, method, sem, t, reasons, theorems, seed, fin in cur:
            if method.startswith(ERROR_METHOD):
                continue
            vals = tuple(Fraction(v) for v in (v1, v2) if v is not None)
            out[idx] = SweepPoint(idx, vals, verdict, method, sem, t, json.loads(reasons), json.loads(theorems), seed, fin)
        return out

    def add(self, key: str, paths: Sequence[str], p: SweepPoint) -> None:
        """Store one point of sweep ``key`` and commit it before returning (replacing an earlier row of that index).

        Parameters
        ----------
        key : str
            The sweep's key.
        paths : sequence of str
            The swept field paths (one or two).
        p : SweepPoint
            The point.

        Examples
        --------
        >>> from fractions import Fraction
        >>> store = ResultStore(None)
        >>> store.add("k1", ["stations.1.mu"], SweepPoint(0, (Fraction(2),), "stable", "theorem", "general", 0.1, []))
        >>> store.conn.execute("SELECT param1, value1, verdict FROM points").fetchall()
        [('stations.1.mu', '2', 'stable')]
        """
        pv = [(path, exact_str(v)) for path, v in zip(paths, p.values)] + [(None, None)] * (2 - len(paths))
        with self.conn:  # one transaction per point: committed before the next one is looked at
            self.conn.execute(
                "INSERT OR REPLACE INTO points VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (key, p.index, pv[0][0], pv[0][1], pv[1][0], pv[1][1], p.verdict, p.method, p.semantics, p.time_s,
                 json.dumps(p.reasons), json.dumps(p.theorems), p.seed, p.finished),
            )

    def close(self) -> None:
        """Close the database (every point is already committed).

        Examples
        --------
        >>> store = ResultStore(None)
        >>> store.close()
        """
        self.conn.close()
