"""The one exception tree: every refusal certify raises is a :class:`CertifyError`.

::

    ValueError
    └── CertifyError                 anything certify refuses
        ├── NetworkError             a network breaks a rule of the format (FILE: FIELD: rule)
        │   └── NetworkNotSupported  ... and is also NotSupported (a valid network this analysis does not cover)
        ├── CertificateError         a certificate file or field is malformed (FILE: FIELD: rule)
        ├── NotSupported             a feature the analysis does not cover (a law without phases, ...)
        │   └── NetworkNotSupported
        └── SolverError              a numeric solver failed or is not installed

Every message is one line naming the thing (file, field, option, law), the
offending value and the rule it breaks.  The command line prints it as
``certify: <message>`` and exits with status 2.  A certificate that is well
formed but does not hold is not an exception: :func:`certify.verify` returns a
failed check (a verdict), and never raises on a malformed certificate either.
"""

from __future__ import annotations

__all__ = ["CertifyError", "NetworkError", "NetworkNotSupported", "OptionError", "CertificateError", "NotSupported", "SolverError"]


class CertifyError(ValueError):
    """Base class of every error certify raises for input it refuses.

    It subclasses :class:`ValueError` because, before this tree existed, every
    refusal was a plain ``ValueError``: code and tests that catch
    ``ValueError`` keep working, and a refusal *is* a bad value.  Catch
    ``CertifyError`` to tell certify's refusals from other errors.

    Parameters
    ----------
    *args : str
        The message: one line naming the thing, the value and the rule.

    Examples
    --------
    >>> from certify.core.errors import CertifyError, NotSupported
    >>> issubclass(NotSupported, CertifyError) and issubclass(CertifyError, ValueError)
    True
    >>> str(CertifyError("something: 3 must be > 4"))
    'something: 3 must be > 4'
    """


class NetworkError(CertifyError):
    """A network breaks a rule of the format.

    Every refusal of a network (a file, a dict, a networkx graph) and of a
    command-line value checked against it is one ``NetworkError`` whose message
    is a single line naming the file, the field path and the rule that is broken.

    Parameters
    ----------
    file : str or None
        The file (or other source) the network came from; ``None`` if unknown.
    path : str or None
        Where the problem is, e.g. ``streams[1].choice[0]``, ``stations.3.mu``,
        ``feedback from station "1"`` or ``graph node ('stream', 0)``; ``None``
        for problems with the document as a whole (unreadable file, syntax error).
    rule : str
        What is wrong, naming the offending value and the rule.

    Examples
    --------
    >>> str(NetworkError("net.json", "streams[0].rate", "-1 must be > 0"))
    'net.json: streams[0].rate: -1 must be > 0'
    >>> str(NetworkError(None, "stations", "must not be empty"))
    'stations: must not be empty'
    """

    def __init__(self, file: str | None, path: str | None, rule: str) -> None:
        super().__init__(file, path, rule)
        self.file = file
        self.path = path
        self.rule = rule

    def __str__(self) -> str:
        parts = [p for p in (self.file, self.path) if p]
        parts.append(self.rule)
        return ": ".join(parts)

    def with_file(self, file: str | None) -> NetworkError:
        """A copy of this error (of the same class) that names ``file`` (unless it already names one).

        Parameters
        ----------
        file : str or None
            The file to name.

        Returns
        -------
        NetworkError
            This error when it already names a file (or ``file`` is None), else a copy naming ``file``.

        Examples
        --------
        >>> str(NetworkError(None, "stations", "must not be empty").with_file("net.json"))
        'net.json: stations: must not be empty'
        >>> str(NetworkError("a.json", "n", "rule").with_file("b.json"))
        'a.json: n: rule'
        """
        if self.file is not None or file is None:
            return self
        return type(self)(file, self.path, self.rule)


class OptionError(CertifyError):
    """A command-line option's value breaks its rule (checked after parsing, e.g. against the network).

    The CLI reports it the way argparse reports a bad value of a ``type=``
    check: one line on stderr, exit status 2, no traceback.

    Parameters
    ----------
    option : str
        The option, e.g. ``--x0``.
    rule : str
        What is wrong, naming the offending value and the rule.

    Examples
    --------
    >>> str(OptionError("--warmup", "50 must be smaller than --horizon (20)"))
    '--warmup: 50 must be smaller than --horizon (20)'
    """

    def __init__(self, option: str, rule: str) -> None:
        super().__init__(option, rule)
        self.option = option
        self.rule = rule

    def __str__(self) -> str:
        return f"{self.option}: {self.rule}"


class CertificateError(CertifyError):
    """A certificate file or one of its fields is malformed.

    Raised by :func:`certify.load_certificate` (a file that cannot be read, is
    not JSON or is not a certificate), by the readers of a certificate's fields
    and by the template option validators (an option out of range, a station
    list not in canonical form).  :func:`certify.verify` catches it and reports
    the message as a failure line (``malformed certificate: ...``).

    Parameters
    ----------
    file : str or None
        The certificate file; ``None`` if unknown (a dict, or a field read
        after loading).
    field : str or None
        The field path, e.g. ``coefficients.P[1,1]`` or ``options.K``;
        ``None`` for the file as a whole (unreadable, not JSON).
    rule : str
        What is wrong, naming the offending value and the rule.

    Examples
    --------
    >>> str(CertificateError("mm1.cert.json", "options.K", "0 must be an integer in 1..100"))
    'mm1.cert.json: options.K: 0 must be an integer in 1..100'
    >>> from certify.core.numbers import unq
    >>> try:
    ...     unq("6/8", "coefficients.w[1]")
    ... except CertificateError as exc:
    ...     print(exc.field, "|", exc.rule)
    coefficients.w[1] | '6/8' is not in canonical form (write '3/4')
    """

    def __init__(self, file: str | None, field: str | None, rule: str) -> None:
        super().__init__(file, field, rule)
        self.file = file
        self.field = field
        self.rule = rule

    def __str__(self) -> str:
        parts = [p for p in (self.file, self.field) if p]
        parts.append(self.rule)
        return ": ".join(parts)


class NotSupported(CertifyError):
    """A well-formed input that the analysis does not cover.

    For example a law with no finite phase-type form given to the Markov chain
    builder (:class:`certify.markov.laws.NotPhaseType` is a subclass), a
    template that declines a network, or a fork-join file given to a command
    that handles JSQ networks only.  The message names the thing, the value
    and the limit or rule.

    Parameters
    ----------
    *args : str
        The message.

    Examples
    --------
    >>> str(NotSupported("lognormal(scv=2) has no finite phase-type representation"))
    'lognormal(scv=2) has no finite phase-type representation'
    >>> from fractions import Fraction
    >>> from certify.core.model import Distribution
    >>> from certify.markov.laws import phase_type
    >>> try:
    ...     phase_type(Distribution("lognormal", (("scv", Fraction(2)),)), Fraction(1))
    ... except NotSupported as exc:
    ...     print(exc)
    lognormal(scv=2) has no finite phase-type representation
    """


class SolverError(CertifyError):
    """A numeric solver that failed, or that is not installed.

    :class:`certify.search.solvers.SolverNotInstalled` is a subclass.  A solver
    failure during ``prove`` is reported as a reason, never raised and never a
    verdict; this is raised where no answer can be given without the solver.

    Parameters
    ----------
    *args : str
        The message, naming the solver and what failed.

    Examples
    --------
    >>> str(SolverError("'CLARABEL' is not an installed solver"))
    "'CLARABEL' is not an installed solver"
    >>> from certify.search.solvers import check_solver
    >>> try:
    ...     check_solver("NO-SUCH-SOLVER")
    ... except SolverError as exc:
    ...     print(str(exc).split(" (")[0])
    'NO-SUCH-SOLVER' is not an installed solver
    """


class NetworkNotSupported(NetworkError, NotSupported):
    """A valid network that this analysis does not cover, e.g. a fork-join file given to ``stationary``.

    Both a :class:`NotSupported` (what it means) and a :class:`NetworkError`
    naming the file and field (what these refusals were before the tree
    existed, so ``except NetworkError`` keeps catching them).

    Parameters
    ----------
    file : str or None
        The file the network came from.
    path : str or None
        The field that names what is not covered (``format``, ``stations.1.service``).
    rule : str
        What this analysis does not cover.

    Examples
    --------
    >>> e = NetworkNotSupported("fj.json", "format", "fork-join-redundancy/1 networks are not supported here")
    >>> isinstance(e, NetworkError), isinstance(e, NotSupported), str(e)
    (True, True, 'fj.json: format: fork-join-redundancy/1 networks are not supported here')
    """
