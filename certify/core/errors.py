"""Errors raised for networks that break the file format.

Every refusal of a network (a file, a dict, a networkx graph) is one
:class:`NetworkError` whose message is a single line naming the file, the field
path and the rule that is broken.
"""

from __future__ import annotations

__all__ = ["NetworkError"]


class NetworkError(ValueError):
    """A network breaks a rule of the format.

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
        """A copy of this error that names ``file`` (unless it already names one)."""
        if self.file is not None or file is None:
            return self
        return NetworkError(file, self.path, self.rule)
