"""The shell and Python examples of README.md and docs/, read from the Markdown and run as a user would.

A fenced block is read as follows:

* ``sh`` -- every line (``\\`` continues it) is a command; a trailing ``# comment`` is dropped.
* ``text`` or a bare fence whose lines start with ``$ `` -- each ``$ `` line is a command and
  the lines under it are the output the docs show.
* ``python`` -- a program, run alone in a fresh interpreter.
* ``json`` followed by prose saying "Save it as `NAME`" -- written to ``NAME`` first.

Every file's examples run in order in one scratch directory (so a certificate written by one
command is there for the next) holding links to ``models/``, ``corpus/`` and ``examples/``, and
the placeholder files the prose names: ``network.json``, ``cert.json`` and ``certs/``. Tokens
written in capitals as placeholders (``FILE``, ``NETWORK``, ``CERT``, ``T``, ``R``, ``S``) are
replaced by those files and small numbers.

Shown output is compared after two normalisations that are not claims: run times become
``<t>`` and runs of spaces one space. A shown line ``...`` stands for any number of lines, and
``...`` inside a line for any text. ``python tests/docs_examples.py --update`` rewrites the
shown output of every ``$`` command whose run no longer matches it (times
included) and prints what changed.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC_FILES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md")
                                  if "_build" not in p.parts)]
# Commands that are not examples of certify: the install and test commands (CI runs them), LaTeX.
NOT_RUN = ("pip ", "python -m pytest", "pdflatex ")
PLACEHOLDERS = {"FILE": "network.json", "NETWORK": "network.json", "CERT": "cert.json", "T": "1000", "R": "2",
                "S": "1"}
# Examples that take minutes (a 21 x 21 sweep, five boundaries): the slow run only.
SLOW = ("certify sweep models/tie-breaking-J3.json --vary \"tie_breaking[0].probs.1=0:1:21\"", "--over ")
TIMEOUT_S = 300


@dataclass
class Example:
    """One runnable example: where it is written, what it runs, and the output the docs show."""

    doc: str
    line: int
    kind: str  # "shell", "python" or "file"
    code: str
    shown: list[str] = field(default_factory=list)
    shown_span: tuple[int, int] | None = None  # lines of ``shown`` in the file (0-based, end exclusive)

    @property
    def where(self) -> str:
        """``FILE:LINE`` of the example."""
        return f"{self.doc}:{self.line}"

    @property
    def slow(self) -> bool:
        """Whether the example runs in the slow run only."""
        return self.kind == "shell" and any(s in self.code for s in SLOW)


def _commands(body: list[str], start: int) -> list[tuple[int, str]]:
    """(line, command) for each logical line of a shell block, comments dropped."""
    out: list[tuple[int, str]] = []
    buf, first = "", start
    for i, raw in enumerate(body):
        line = raw.rstrip()
        if not buf:
            first = start + i
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        cmd = re.sub(r"\s+#\s.*$", "", buf + line).strip()
        buf = ""
        if cmd and not cmd.startswith("#"):
            out.append((first, " ".join(cmd.split())))
    return out


def read_examples(doc: str) -> list[Example]:
    """Every example of one Markdown file, in the order written.

    Parameters
    ----------
    doc : str
        The file, relative to the repository root.

    Returns
    -------
    list of Example
    """
    lines = (ROOT / doc).read_text().splitlines()
    out: list[Example] = []
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*$", lines[i])
        if not m or lines[i].startswith("```{"):
            i += 1
            continue
        lang, start = m.group(1), i + 1
        j = start
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        body = lines[start:j]
        if lang == "sh":
            out += [Example(doc, n + 1, "shell", c) for n, c in _commands(body, start)]
        elif lang in ("text", "console", "") and body and body[0].startswith("$ "):
            k = 0
            while k < len(body):
                cmd, k0 = body[k][2:].strip(), k
                k += 1
                while k < len(body) and not body[k].startswith("$ "):
                    k += 1
                out.append(Example(doc, start + k0 + 1, "shell", cmd, body[k0 + 1:k], (start + k0 + 1, start + k)))
        elif lang == "python":
            out.append(Example(doc, start + 1, "python", "\n".join(body)))
        elif lang == "json":
            after = " ".join(lines[j + 1:j + 4])
            saved = re.search(r"Save it as `([^`]+)`", after)
            if saved:
                out.append(Example(doc, start + 1, "file", "\n".join(body), [saved.group(1)]))
        i = j + 1
    return out


def prepare(work: Path) -> None:
    """Fill a scratch directory with the repository's data and the placeholder files the docs name."""
    for name in ("models", "corpus", "examples"):
        (work / name).symlink_to(ROOT / name)
    shutil.copy(ROOT / "models" / "symmetric-jsq-J4.json", work / "network.json")
    certs = work / "certs"
    certs.mkdir()
    shutil.copy(ROOT / "models" / "symmetric-jsq-J4.json", certs / "symmetric-jsq-J4.json")
    for net, cert in (("network.json", "cert.json"), ("certs/symmetric-jsq-J4.json", "certs/symmetric-jsq-J4.cert.json")):
        proc = _shell(f"certify prove {net} --out {cert} --sim-budget 0", work)
        assert proc.returncode == 0, proc.stdout + proc.stderr


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("MPLBACKEND", "Agg")
    env["COLUMNS"] = "200"
    return env


def _shell(cmd: str, work: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, shell=True, cwd=work, capture_output=True, text=True, timeout=TIMEOUT_S, env=_env())


def _substitute(cmd: str) -> str:
    return " ".join(PLACEHOLDERS.get(tok, tok) for tok in cmd.split(" "))


def normalise(line: str) -> str:
    """A line with its run times replaced by ``<t>`` and runs of spaces by one."""
    line = re.sub(r"\b\d+(?:\.\d+)?\s?s\b", "<t>", line)
    return " ".join(line.split())


def _line_matches(shown: str, actual: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in normalise(shown).split("..."))
    return re.fullmatch(pattern, normalise(actual)) is not None


def output_matches(shown: list[str], actual: list[str]) -> bool:
    """Whether the shown lines match the actual output, ``...`` lines standing for any lines.

    Examples
    --------
    >>> output_matches(["a 0.1s", "...", "z"], ["a   0.25s", "b", "c", "z"])
    True
    >>> output_matches(["a", "z"], ["a", "b", "z"])
    False
    """
    if not shown:
        return not actual
    if shown[0].strip() == "...":
        return any(output_matches(shown[1:], actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and _line_matches(shown[0], actual[0]) and output_matches(shown[1:], actual[1:])


def run_example(ex: Example, work: Path) -> tuple[str | None, list[str]]:
    """Run one example in ``work``; (what went wrong or None, the output lines)."""
    if ex.kind == "file":
        (work / ex.shown[0]).write_text(ex.code + "\n")
        return None, []
    if ex.kind == "python":
        proc = subprocess.run([sys.executable, "-c", ex.code], cwd=work, capture_output=True, text=True,
                              timeout=TIMEOUT_S, env=_env())
        if proc.returncode != 0:
            return f"{ex.where}: the Python example exited {proc.returncode}:\n{proc.stdout}{proc.stderr}", []
        return None, proc.stdout.splitlines()
    parts = [p for p in ex.code.split(" && ") if not p.startswith(NOT_RUN)]
    if not parts:
        return None, []
    proc = _shell(_substitute(" && ".join(parts)), work)
    lines = proc.stdout.splitlines()
    if proc.returncode != 0:
        return f"{ex.where}: `{ex.code}` exited {proc.returncode}:\n{proc.stdout}{proc.stderr}", lines
    if ex.shown and not output_matches(ex.shown, lines):
        return (f"{ex.where}: `{ex.code}` printed\n" + "\n".join(lines) + "\nbut the docs show\n" + "\n".join(ex.shown),
                lines)
    return None, lines


def run_doc(doc: str, slow: bool) -> list[str]:
    """Run every example of ``doc`` (the slow ones only when ``slow``); the failures found."""
    examples = read_examples(doc)
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        prepare(work)
        for ex in examples:
            if ex.slow and not slow:
                continue
            problem, _ = run_example(ex, work)
            if problem:
                failures.append(problem)
    return failures


def update(docs: list[str]) -> None:
    """Rewrite the shown output of every ``$`` command from a run of the examples."""
    for doc in docs:
        examples = read_examples(doc)
        lines = (ROOT / doc).read_text().splitlines()
        edits: list[tuple[tuple[int, int], list[str]]] = []
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            prepare(work)
            for ex in examples:
                problem, out = run_example(ex, work)
                if ex.shown_span is not None and out and not output_matches(ex.shown, out):
                    edits.append((ex.shown_span, out))
                    print(f"{ex.where}: {shlex.quote(ex.code)}: output updated")
                elif problem:
                    print(problem)
        for (a, b), out in sorted(edits, reverse=True):
            lines[a:b] = out
        if edits:
            (ROOT / doc).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    if sys.argv[1:2] != ["--update"]:
        sys.exit("usage: python tests/docs_examples.py --update [DOC.md ...]")
    update(sys.argv[2:] or DOC_FILES)


def models_report(path: Path) -> str:
    """What ``certify prove`` reports for a file of ``models/``: ``verdict, method (delta D)``, as models/README.md shows.

    Examples
    --------
    >>> models_report(ROOT / "models" / "overloaded-unstable.json")
    'unstable, static split LP dual (flow balance)'
    """
    import json

    import certify

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cert.json"
        res = certify.prove(certify.load(path), simulate=False, out=out)
        delta = json.loads(out.read_text()).get("claims", {}).get("delta") if out.exists() else None
    text = f"{res.verdict}, {res.method}"
    if isinstance(delta, str):
        from fractions import Fraction

        text += f" (delta {float(Fraction(delta)):.3g})"
    return text
