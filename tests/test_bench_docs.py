"""bench/docs_section.py: a benchmark's table in docs/benchmarks.md keeps the rows of earlier runs."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from docs_section import merge_table_section  # noqa: E402

OLD = """# Benchmarks

## Mine

old command

| name | value |
|---|---|
| a | 1 |
| b | 2 |

A note written by hand.

## Other

kept as it was
"""


def _merged(tmp_path: Path, rows: list[list[str]]) -> str:
    p = tmp_path / "benchmarks.md"
    p.write_text(OLD)
    merge_table_section(p, "## Mine", "new command", ["name", "value"], rows, order=lambda r: r[0])
    return p.read_text()


def test_a_new_row_replaces_the_row_of_its_name(tmp_path: Path) -> None:
    """A row this run measured replaces the old row with the same name, and the other old rows stay."""
    text = _merged(tmp_path, [["b", "9"]])
    assert "| a | 1 |" in text and "| b | 9 |" in text and "| b | 2 |" not in text


def test_new_names_are_added_in_order(tmp_path: Path) -> None:
    """A row with a new name is added, and the table is sorted by the given order."""
    text = _merged(tmp_path, [["0", "5"]])
    assert text.index("| 0 | 5 |") < text.index("| a | 1 |") < text.index("| b | 2 |")


def test_notes_and_other_sections_stay(tmp_path: Path) -> None:
    """The hand-written text after the table and the other sections are kept; the intro is the new run's."""
    text = _merged(tmp_path, [["b", "9"]])
    assert "A note written by hand." in text and "kept as it was" in text
    assert "new command" in text and "old command" not in text


def test_a_table_of_other_columns_among_the_notes_stays(tmp_path: Path) -> None:
    """A hand-written table with other columns after the notes, and the notes around it, are all kept in order."""
    p = tmp_path / "benchmarks.md"
    p.write_text(OLD.replace("A note written by hand.\n", "A note written by hand.\n\n| x | y | z |\n|---|---|---|\n"
                                                           "| 1 | 2 | 3 |\n\nA second note.\n"))
    merge_table_section(p, "## Mine", "new command", ["name", "value"], [["b", "9"]], order=lambda r: r[0])
    text = p.read_text()
    assert text.index("| b | 9 |") < text.index("A note written by hand.") < text.index("| 1 | 2 | 3 |")
    assert text.index("| 1 | 2 | 3 |") < text.index("A second note.") < text.index("kept as it was")
