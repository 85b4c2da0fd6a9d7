"""pytest plugin: certificates as test items (``pytest --certify-certs DIR_OR_MANIFEST``).

Registered through the ``pytest11`` entry point, so any project with certify
installed can run its certificates under pytest.  Each (network, certificate)
pair becomes one test item that re-checks the certificate exactly; a model change
that invalidates it fails with a message naming the network, the region and the
violated inequality.  Without the option the plugin does nothing.
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


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("certify")
    group.addoption(
        "--certify-certs",
        action="append",
        default=[],
        metavar="DIR",
        help="re-check the certificates of a directory (NAME.cert.json beside NAME.json) or a manifest file",
    )


class InvalidCertificate(Exception):
    """A certificate that no longer holds for its network (a failed test: a verdict, not a
    :class:`certify.CertificateError`, which is a malformed file)."""


class CertificateItem(pytest.Item):
    """One (network, certificate) pair, checked exactly."""

    def __init__(self, *, pair: Pair, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pair = pair

    def runtest(self) -> None:
        res = verify_pair(self.pair)
        if not res.ok:
            raise InvalidCertificate(res.message())

    def repr_failure(  # pytest's signature
        self, excinfo: pytest.ExceptionInfo[BaseException], style: TracebackStyle | None = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, InvalidCertificate):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[os.PathLike[str] | str, int | None, str]:
        return self.pair.certificate, None, f"certificate {self.pair.name}"


class CertificateCollection(pytest.Collector):
    """The pairs of one directory or manifest."""

    def __init__(self, *, target: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target = target

    def collect(self) -> Iterator[CertificateItem]:
        for pair in find_pairs(self.target):
            yield CertificateItem.from_parent(self, name=pair.name, pair=pair)


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    for target in config.getoption("certify_certs") or []:
        coll = CertificateCollection.from_parent(session, name=f"certify-certs:{target}", target=Path(target))
        try:
            items.extend(coll.collect())
        except NetworkError as exc:
            raise pytest.UsageError(f"--certify-certs: {exc}") from None
