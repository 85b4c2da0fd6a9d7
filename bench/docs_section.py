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


def _cells(line: str) -> list[str]:
    """The cells of one markdown table row."""
    return [c.strip() for c in line.strip().strip("|").split("|")]


def merge_table_section(path: Path, heading: str, intro: str, header: list[str], rows: list[list[str]],
                        order=None, key: int = 0) -> None:
    """Write a section whose table keeps the rows of earlier runs: a row is replaced only by a new row of its name.

    The section is ``heading``, ``intro``, then one table with the columns ``header`` whose cell ``key`` names the
    row; the rows of the section's old tables (every table of the section, with the same number of columns) whose
    names this run did not measure are kept, and the text after the old section's first such table is kept after the
    new one (the hand-written notes, other tables among them).  ``order`` sorts the rows by their cells (default: as found, new ones last).
    """
    old = path.read_text() if path.exists() else ""
    pat = re.compile(re.escape(heading) + r".*?(?=^## |\Z)", re.S | re.M)
    m = pat.search(old)
    kept: dict[str, list[str]] = {}
    notes = ""
    if m:
        lines = m.group(0).splitlines()
        first, rest = -1, []
        for k, line in enumerate(lines):
            cells = _cells(line) if line.startswith("|") else []
            if len(cells) == len(header):  # a line of this section's table (or of an older one with its columns)
                first = k if first < 0 else first
                if cells != header and not set(cells[0]) <= set("-:"):
                    kept[cells[key]] = cells
            elif first >= 0:
                rest.append(line)  # the notes after the table, other tables among them
        notes = "\n".join(rest).strip()
    for r in rows:
        kept[r[key]] = r
    table = list(kept.values())
    if order is not None:
        table.sort(key=order)
    text = [heading, "", intro.strip(), "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    text += ["| " + " | ".join(r) + " |" for r in table]
    if notes:
        text += ["", notes]
    write_section(path, heading, "\n".join(text) + "\n")
