"""Write one benchmark's section into docs/benchmarks.md, keeping the other sections."""

from __future__ import annotations

import re
from pathlib import Path


def write_section(path: Path, heading: str, section: str) -> None:
    """Write ``section`` into ``path``, replacing an existing section that starts with ``heading``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.read_text() if path.exists() else "# Benchmarks\n"
    pat = re.compile(re.escape(heading) + r".*?(?=^## |\Z)", re.S | re.M)
    if pat.search(old):
        new = pat.sub(lambda _: section.rstrip() + "\n\n", old).rstrip() + "\n"
    else:
        new = old.rstrip() + "\n\n" + section.rstrip() + "\n"
    path.write_text(new)
