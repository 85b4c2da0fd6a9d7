"""The ``certify`` command line.

Bad input (an invalid network or certificate file, an option out of range, an
output path that cannot be written) prints one line naming the thing, the value
and the rule, and exits with status 2, without a traceback.  Options are checked
by argparse (``type=`` functions of :mod:`certify.cli.options`), and output
paths and the options checked against the network before any work starts.

Exit status: 0 done; 1 ``verify``: invalid certificate, ``prove --expect``: a
different verdict; 2 bad input; 3 ``prove --out``: the verdict has no
certificate, nothing was written; 130 interrupted.

The parser is :mod:`certify.cli.parser`; the commands are
:mod:`~certify.cli.prove_commands` (prove, verify),
:mod:`~certify.cli.model_commands` (regions, stationary),
:mod:`~certify.cli.simulate_command` and :mod:`~certify.cli.sweep_command`.

Public: :func:`main`, :data:`EXIT_NO_CERTIFICATE`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from ..core.errors import CertifyError, OptionError
from .parser import build_parser
from .prove_commands import EXIT_NO_CERTIFICATE

__all__ = ["main", "EXIT_NO_CERTIFICATE"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``certify`` command line (the console script and ``python -m certify``).

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0 done; 1 ``verify``: invalid certificate, ``prove
        --expect``: another verdict; 2 bad input (one line on stderr:
        ``certify: <message>``); 3 ``prove --out``: the verdict has no
        certificate; 130 interrupted.

    Raises
    ------
    SystemExit
        From argparse: ``--help``, ``--version``, or a bad option (one line on
        stderr, status 2).

    Examples
    --------
    >>> main(["regions", "models/tie-breaking-J3.json"])
    tie-breaking-J3: 12 regions (11 unbounded), 3 stations, 1 choice set with ties
    0
    >>> import contextlib, io
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     main(["regions", "models/no-such-file.json"])
    2
    >>> print(err.getvalue(), end="")  # doctest: +ELLIPSIS
    certify: models/no-such-file.json: ...
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except OptionError as exc:  # an option value refused after parsing: reported as argparse reports one, exit 2
        parser.exit(2, f"certify: {exc}\n")
    except CertifyError as exc:  # the one place refusals become output: NetworkError, CertificateError, NotSupported, SolverError
        print(f"certify: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `certify prove ... | head`: the reader left, nothing more to say
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # e.g. an output file that became unwritable while the work ran
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"certify: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("certify: interrupted", file=sys.stderr)
        return 130
