"""pytest plugin: certificates as test items (``pytest --certify-certs DIR_OR_MANIFEST``).

Registered through the ``pytest11`` entry point, so any project with certify
installed can run its certificates under pytest.  Each (network, certificate)
pair becomes one test item that re-checks the certificate exactly; a model change
that invalidates it fails with a message naming the network, the region and the
violated inequality.  Without the option the plugin does nothing.

The hooks and the item classes run inside a pytest session, so their
docstrings have no ``>>>`` examples; ``tests/test_regression.py`` runs them
under pytest's ``pytester``.  Usage::

    pytest --certify-certs certs/            # every certs/**/NAME.cert.json beside NAME.json
    pytest --certify-certs certs/pairs.toml  # the pairs of a manifest

Public: the hooks :func:`pytest_addoption` and
:func:`pytest_collection_modifyitems`, :class:`CertificateItem`,
:class:`CertificateCollection`, :class:`InvalidCertificate`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..core.errors import NetworkError
from .regression import Pair, find_pairs, verify_pair

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr, TracebackStyle

__all__ = [
    "InvalidCertificate",
    "CertificateItem",
    "CertificateCollection",
    "pytest_addoption",
    "pytest_collection_modifyitems",
]


def pytest_addoption(parser: pytest.Parser) -> None:
    """pytest hook: add the option ``--certify-certs DIR_OR_MANIFEST`` (repeatable) to a ``certify`` group.

    Parameters
    ----------
    parser : pytest.Parser
        pytest's option parser.

    Examples
    --------
    Runs inside a pytest session (no ``>>>`` example); ``pytest --help``
    lists the option under ``certify``.
    """
    group = parser.getgroup("certify")
    group.addoption(
        "--certify-certs",
        action="append",
        default=[],
        metavar="DIR",
        help="re-check the certificates of a directory (NAME.cert.json beside NAME.json) or a manifest file",
    )


class InvalidCertificate(Exception):
    """A certificate that no longer holds for its network.

    A failed test, that is a verdict, not a :class:`certify.CertificateError`
    (which is a malformed file).  Its message is
    :meth:`~certify.workflows.regression.PairResult.message`.

    Examples
    --------
    >>> str(InvalidCertificate("INVALID: certificate a.cert.json for network a.json"))
    'INVALID: certificate a.cert.json for network a.json'
    """


class CertificateItem(pytest.Item):
    """One (network, certificate) pair as a pytest item, checked exactly.

    Parameters
    ----------
    pair : Pair
        The pair.
    **kwargs
        pytest's item arguments (``name``, ``parent``); build it with
        ``CertificateItem.from_parent``.

    Examples
    --------
    Made by :class:`CertificateCollection` inside a pytest session (no
    ``>>>`` example).
    """

    def __init__(self, *, pair: Pair, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pair = pair

    def runtest(self) -> None:
        """Re-check the pair (:func:`~certify.workflows.regression.verify_pair`).

        Raises
        ------
        InvalidCertificate
            The certificate does not hold, or a file cannot be read.
        """
        res = verify_pair(self.pair)
        if not res.ok:
            raise InvalidCertificate(res.message())

    def repr_failure(  # pytest's signature
        self, excinfo: pytest.ExceptionInfo[BaseException], style: TracebackStyle | None = None
    ) -> str | TerminalRepr:
        """The failure report: the pair's message for an invalid certificate, else pytest's own.

        Parameters
        ----------
        excinfo : pytest.ExceptionInfo
            The failure.
        style : str, optional
            pytest's traceback style.

        Returns
        -------
        str or TerminalRepr
            What pytest prints for the failure.
        """
        if isinstance(excinfo.value, InvalidCertificate):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[os.PathLike[str] | str, int | None, str]:
        """Where pytest says the item is: the certificate file, no line, ``certificate NAME``.

        Returns
        -------
        tuple
            (path, line, description) as pytest expects.
        """
        return self.pair.certificate, None, f"certificate {self.pair.name}"


class CertificateCollection(pytest.Collector):
    """The pairs of one directory or manifest, as a pytest collector.

    Parameters
    ----------
    target : Path
        The directory or manifest (:func:`~certify.workflows.regression.find_pairs`).
    **kwargs
        pytest's collector arguments; build it with ``CertificateCollection.from_parent``.

    Examples
    --------
    Made by :func:`pytest_collection_modifyitems` inside a pytest session
    (no ``>>>`` example).
    """

    def __init__(self, *, target: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target = target

    def collect(self) -> Iterator[CertificateItem]:
        """One item per pair.

        Yields
        ------
        CertificateItem
            Named after the pair.

        Raises
        ------
        NetworkError
            The target has no pairs (see :func:`~certify.workflows.regression.find_pairs`).
        """
        for pair in find_pairs(self.target):
            yield CertificateItem.from_parent(self, name=pair.name, pair=pair)


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """pytest hook: add one item per pair of every ``--certify-certs`` target to the session's items.

    Parameters
    ----------
    session : pytest.Session
        The session.
    config : pytest.Config
        Its configuration (the option's values).
    items : list of pytest.Item
        The collected items, extended in place.

    Raises
    ------
    pytest.UsageError
        A target has no pairs: one clear error, not a traceback.

    Examples
    --------
    Runs inside a pytest session (no ``>>>`` example):
    ``pytest --certify-certs certs/`` collects ``certs/**/NAME.cert.json``.
    """
    for target in config.getoption("certify_certs") or []:
        coll = CertificateCollection.from_parent(session, name=f"certify-certs:{target}", target=Path(target))
        try:
            found = list(coll.collect())
        except NetworkError as exc:
            raise pytest.UsageError(f"--certify-certs: {exc}") from None
        items.extend(found)
        # Report them as collected, so that pytest's "collected N items" counts them.
        config.hook.pytest_collectreport(report=pytest.CollectReport(coll.nodeid, "passed", None, list(found)))
