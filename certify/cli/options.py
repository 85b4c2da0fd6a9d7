"""The command line's option checks: argparse types for numbers and solvers, and output paths checked before any work.

The ``type=`` functions refuse a bad value with
:class:`argparse.ArgumentTypeError`, so argparse reports it in one line naming
the option (``certify prove: argument --time-limit: '0' must be a positive
finite number of seconds``) and exits with status 2.  :func:`check_output`
refuses an output path that cannot be written before any work starts.
:func:`prove_options` turns a command's parsed options into the one
:class:`~certify.proof.options.ProveOptions` it proves with.

Public: :func:`positive_finite`, :func:`nonnegative_finite`,
:func:`int_at_least`, :func:`solver_name`, :func:`check_output`,
:func:`prove_options`, :data:`PROVE_FLAGS`, and the limits
:data:`MAX_SEED`, :data:`MAX_REPS`, :data:`MAX_WORKERS`, :data:`MAX_TRUNCATE`.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable, Sequence

from ..core.errors import OptionError
from ..proof.options import ProveChanges, ProveField, ProveOptions

__all__ = [
    "MAX_SEED",
    "MAX_REPS",
    "MAX_WORKERS",
    "MAX_TRUNCATE",
    "positive_finite",
    "nonnegative_finite",
    "unit_share",
    "int_at_least",
    "solver_name",
    "check_output",
    "PROVE_FLAGS",
    "prove_options",
]

MAX_SEED = 2**63 - 1
"""The largest ``--seed``."""
MAX_REPS = 1_000_000
"""The most ``simulate --reps``."""
MAX_WORKERS = 1024
"""The most ``sweep --workers``."""
MAX_TRUNCATE = 10_000
"""The largest ``stationary --truncate``."""

#: The options of ``certify prove`` by their argparse names, and the :class:`ProveOptions` field each sets
#: (a ``no_`` flag sets its field to the opposite).
PROVE_FLAGS: dict[str, ProveField] = {
    "time_limit": "time_limit",
    "template": "templates",
    "solver": "solver",
    "sim_budget": "sim_budget",
    "seed": "seed",
    "theorem_share": "theorem_share",
    "no_symmetry": "symmetry",
    "no_flow_bound": "flow_bound",
}

_SQLITE_MAGIC = b"SQLite format 3\x00"


def _number(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    return x


def positive_finite(what: str = "number") -> Callable[[str], float]:
    """An argparse type: a positive finite number.

    Parameters
    ----------
    what : str
        What the number is, as the message names it (``number of seconds``).

    Returns
    -------
    callable
        ``str -> float``, raising :class:`argparse.ArgumentTypeError` for
        text that is not a positive finite number.

    Examples
    --------
    >>> parse = positive_finite("number of seconds")
    >>> parse("2.5")
    2.5
    >>> parse("inf")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 'inf' must be a positive finite number of seconds
    """

    def parse(text: str) -> float:
        x = _number(text)
        if not (math.isfinite(x) and x > 0):
            raise argparse.ArgumentTypeError(f"{text!r} must be a positive finite {what}")
        return x

    parse.__name__ = "positive finite " + what
    return parse


def unit_share(text: str) -> float:
    """An argparse type: a share of something, a number in (0, 1].

    Parameters
    ----------
    text : str
        The option's value.

    Returns
    -------
    float
        The share.

    Raises
    ------
    argparse.ArgumentTypeError
        When the text is not a number in (0, 1].

    Examples
    --------
    >>> unit_share("0.5"), unit_share("1")
    (0.5, 1.0)
    >>> unit_share("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '0' must be a number in (0, 1] (a share of the time limit)
    """
    x = _number(text)
    if not (math.isfinite(x) and 0 < x <= 1):
        raise argparse.ArgumentTypeError(f"{text!r} must be a number in (0, 1] (a share of the time limit)")
    return x


def nonnegative_finite(what: str = "number") -> Callable[[str], float]:
    """An argparse type: a finite number >= 0.

    Parameters
    ----------
    what : str
        What the number is, as the message names it.

    Returns
    -------
    callable
        ``str -> float``, raising :class:`argparse.ArgumentTypeError` for
        text that is not a finite number >= 0.

    Examples
    --------
    >>> parse = nonnegative_finite("number of seconds")
    >>> parse("0")
    0.0
    >>> parse("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '-1' must be a finite number of seconds >= 0
    """

    def parse(text: str) -> float:
        x = _number(text)
        if not (math.isfinite(x) and x >= 0):
            raise argparse.ArgumentTypeError(f"{text!r} must be a finite {what} >= 0")
        return x

    parse.__name__ = "non-negative finite " + what
    return parse


def int_at_least(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in [low, high].

    Parameters
    ----------
    low : int
        The smallest value allowed.
    high : int, optional
        The largest value allowed (default: no limit).

    Returns
    -------
    callable
        ``str -> int``, raising :class:`argparse.ArgumentTypeError` for text
        that is not an integer in range.

    Examples
    --------
    >>> parse = int_at_least(1, 10)
    >>> parse(" 3 ")
    3
    >>> parse("11")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '11' must be an integer between 1 and 10
    >>> int_at_least(0)("x")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 'x' is not an integer
    """

    def parse(text: str) -> int:
        try:
            n = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if n < low or (high is not None and n > high):
            rule = f">= {low}" if high is None else f"between {low} and {high}"
            raise argparse.ArgumentTypeError(f"{text!r} must be an integer {rule}")
        return n

    parse.__name__ = "integer"
    return parse


def solver_name(text: str) -> str:
    """An argparse type: one of the installed solvers, as cvxpy spells it (case-insensitive).

    Parameters
    ----------
    text : str
        The solver's name, any case.

    Returns
    -------
    str
        The name as cvxpy spells it.

    Raises
    ------
    argparse.ArgumentTypeError
        No installed solver has that name (the message lists those installed).

    Examples
    --------
    >>> solver_name("clarabel")
    'CLARABEL'
    >>> solver_name("FOO")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 'FOO' is not an installed solver (installed: ...)
    """
    from ..search.solvers import SolverNotInstalled, check_solver

    try:
        return check_solver(text)
    except SolverNotInstalled as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def check_output(option: str, path: str, kind: str = "file") -> None:
    """Refuse an output path that cannot be written, before any work.

    Parameters
    ----------
    option : str
        The option that named the path (named in the error).
    path : str
        The output path.
    kind : {"file", "sqlite", "image", "directory"}
        ``file``: any file; ``sqlite``: an existing non-empty file must be a
        SQLite database; ``image``: the extension must be a format matplotlib
        writes; ``directory``: an existing directory, or one that can be created
        in an existing directory.

    Raises
    ------
    OptionError
        Naming ``option``, the path and why it cannot be written: empty, a
        directory, a missing or non-directory parent, not a regular file, not
        writable, not a SQLite file, not an image format.  Nothing is created
        or changed.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> check_output("--out", os.path.join(d, "c.json"))
    >>> check_output("--out", d)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    certify.core.errors.OptionError: --out: '...' is a directory: give a file name
    >>> check_output("--plot", os.path.join(d, "atlas.xyz"), "image")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    certify.core.errors.OptionError: --plot: '...atlas.xyz' has the extension .xyz, not an image format matplotlib writes (...)
    """
    import tempfile

    def fail(rule: str) -> OptionError:
        return OptionError(option, f"{path!r} {rule}")

    if not path or not path.strip():
        raise fail("is empty: give a " + ("directory" if kind == "directory" else "file") + " name")
    if kind == "directory":
        if os.path.exists(path) and not os.path.isdir(path):
            raise fail("exists and is not a directory")
        where = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(where):
            raise fail(f"cannot be created: {os.path.dirname(path) or where!r} is not an existing directory")
        try:
            with tempfile.NamedTemporaryFile(dir=where, prefix=".certify-", delete=True):
                pass
        except OSError as exc:
            raise fail(f"cannot be written ({exc.strerror or exc})") from None
        return
    if os.path.isdir(path):
        raise fail("is a directory: give a file name")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.exists(parent):
        raise fail(f"cannot be written: the directory {os.path.dirname(path) or parent!r} does not exist")
    if not os.path.isdir(parent):
        raise fail(f"cannot be written: {os.path.dirname(path)!r} is not a directory")
    if os.path.exists(path):
        if not os.path.isfile(path):
            raise fail("is not a regular file")
        try:
            with open(path, "ab"):
                pass
        except OSError as exc:
            raise fail(f"cannot be written ({exc.strerror or exc})") from None
        if kind == "sqlite" and os.path.getsize(path) > 0:
            with open(path, "rb") as fh:
                if fh.read(16) != _SQLITE_MAGIC:
                    raise fail("exists and is not a SQLite results file (give a new name, or the file of an earlier sweep)")
    else:
        try:
            with tempfile.NamedTemporaryFile(dir=parent, prefix=".certify-", delete=True):
                pass
        except OSError as exc:
            raise fail(f"cannot be written: cannot create files in {parent!r} ({exc.strerror or exc})") from None
    if kind == "image":
        ext = os.path.splitext(path)[1].lstrip(".").lower()
        if ext:
            import matplotlib

            matplotlib.use("Agg")
            from matplotlib.backend_bases import FigureCanvasBase

            known = FigureCanvasBase.get_supported_filetypes()
            if ext not in known:
                raise fail(f"has the extension .{ext}, not an image format matplotlib writes ({', '.join(sorted(known))})")


def prove_options(args: argparse.Namespace, flags: Sequence[str] = tuple(PROVE_FLAGS)) -> ProveOptions:
    """The :class:`~certify.proof.options.ProveOptions` a command proves with, from its parsed options.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of the command.
    flags : sequence of str
        Which of :data:`PROVE_FLAGS` the command has (default: all, as ``prove`` has); each other field
        keeps its default.

    Returns
    -------
    ProveOptions
        The options, checked once.

    Examples
    --------
    >>> from certify.cli.parser import build_parser
    >>> args = build_parser().parse_args(["prove", "net.json", "--time-limit", "5", "--template", "quadratic",
    ...                                   "--no-symmetry"])
    >>> opts = prove_options(args)
    >>> opts.time_limit, opts.templates, opts.symmetry, opts.flow_bound
    (5.0, ('quadratic',), False, True)
    >>> args = build_parser().parse_args(["boundary", "net.json", "--load", "0.5:1.5", "--time-limit", "30"])
    >>> prove_options(args, ("template", "solver")).time_limit  # the run's limit is not a probe's
    120.0
    """
    changes: ProveChanges = {}
    for flag in flags:
        value = getattr(args, flag)
        changes[PROVE_FLAGS[flag]] = not value if flag.startswith("no_") else value
    return ProveOptions.of(None, "prove_options", **changes)
