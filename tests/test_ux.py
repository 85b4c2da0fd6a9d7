"""What a careful newcomer trips over: option checks, output paths, solver noise, the report, region texts."""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
import warnings
from fractions import Fraction as F
from pathlib import Path

import pytest

from certify.cli import main
from certify.proof.result import Attempt, Result
from certify.search import solvers

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "certify.cli"]
FORK_JOIN = ROOT / "models" / "fork-join-maximal.json"


def cli(capsys, *args) -> tuple[int, str, str]:
    """Run the CLI in this process: (exit status, stdout, stderr)."""
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:  # argparse refusals
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def one_line(err: str) -> str:
    """The single line of ``err`` (asserting there is exactly one and no traceback)."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.fixture
def net(corpus_dir) -> Path:
    return corpus_dir / "mmjsq-k2-m0.90.json"


# ------------------------------------------------------------------------ options
@pytest.mark.parametrize("value", ["0", "-1", "inf", "nan", "ten"])
@pytest.mark.parametrize("command", ["prove", "sweep"])
def test_time_limit_must_be_positive_finite(capsys, net, command, value):
    """`--time-limit` that is not a positive finite number is one line naming the option and value, exit 2."""
    extra = ["--vary", "streams[0].rate=1:2:2"] if command == "sweep" else []
    code, out, err = cli(capsys, command, net, *extra, "--time-limit", value)
    line = one_line(err)
    assert code == 2 and out == "" and "--time-limit" in line and repr(value) in line


@pytest.mark.parametrize("value", ["0", "-0.5", "1.5", "nan", "half"])
def test_theorem_share_must_be_in_the_unit_interval(capsys, net, value):
    """`--theorem-share` outside (0, 1] is one line naming the option, the value and the rule, exit 2."""
    code, out, err = cli(capsys, "prove", net, "--theorem-share", value)
    line = one_line(err)
    assert code == 2 and out == "" and "--theorem-share" in line and repr(value) in line


def test_unknown_solver_lists_the_installed_ones(capsys, net):
    """`--solver FOO` is refused with exit 2 in one line listing every installed solver."""
    code, _, err = cli(capsys, "prove", net, "--solver", "FOO")
    line = one_line(err)
    assert code == 2 and "'FOO'" in line and all(s in line for s in solvers.installed_solvers())


def test_solver_name_is_case_insensitive(capsys, net):
    """`--solver clarabel` is accepted and reported as CLARABEL."""
    code, out, err = cli(capsys, "prove", net, "--solver", "clarabel", "--no-flow-bound")
    assert code == 0 and "(CLARABEL)" in out and err == ""


@pytest.mark.parametrize(
    "args,option",
    [
        (["simulate", "{net}", "--horizon", "0"], "--horizon"),
        (["simulate", "{net}", "--horizon", "inf"], "--horizon"),
        (["simulate", "{net}", "--horizon", "10", "--reps", "0"], "--reps"),
        (["simulate", "{net}", "--horizon", "10", "--seed", "-1"], "--seed"),
        (["simulate", "{net}", "--horizon", "10", "--warmup", "-1"], "--warmup"),
        (["simulate", "{net}", "--horizon", "10", "--warmup", "10"], "--warmup"),
        (["stationary", "{net}", "--truncate", "0"], "--truncate"),
        (["sweep", "{net}", "--vary", "streams[0].rate=1:2:2", "--workers", "0"], "--workers"),
        (["sweep", "{net}", "--vary", "streams[0].rate=1:2:2", "--sim-budget", "-1"], "--sim-budget"),
        (["prove", "{net}", "--sim-budget", "inf"], "--sim-budget"),
        (["prove", "{net}", "--seed", "x"], "--seed"),
    ],
)
def test_numeric_options_out_of_range(capsys, net, args, option):
    """Every numeric option out of range is one line naming the option, exit 2, before any work."""
    code, out, err = cli(capsys, *[a.format(net=net) for a in args])
    assert code == 2 and out == "" and option in one_line(err)


# ------------------------------------------------------------------------ output paths
@pytest.mark.parametrize("where", ["missing-dir", "directory", "unwritable"])
def test_prove_out_checked_before_the_proof(capsys, net, tmp_path, where):
    """`prove --out` into a missing directory, onto a directory or where nothing can be created: exit 2 before proving."""
    path = {"missing-dir": tmp_path / "no" / "c.json", "directory": tmp_path, "unwritable": Path("/proc/c.json")}[where]
    code, out, err = cli(capsys, "prove", net, "--out", path)
    line = one_line(err)
    assert code == 2 and out == "" and "--out" in line and str(path) in line


def test_sweep_csv_checked_before_any_point(capsys, net, tmp_path):
    """`sweep --csv` into a missing directory is refused before the results file is even created."""
    db = tmp_path / "r.sqlite"
    code, out, err = cli(capsys, "sweep", net, "--vary", "streams[0].rate=1:2:2", "--out", db, "--csv", tmp_path / "x" / "a.csv")
    assert code == 2 and "--csv" in one_line(err) and not db.exists() and out == ""


def test_sweep_plot_directory_refused(capsys, net, tmp_path):
    """`sweep --plot DIR` names --plot and the rule, exit 2."""
    code, _, err = cli(capsys, "sweep", net, "--vary", "streams[0].rate=1:2:2", "--out", tmp_path / "r.sqlite", "--plot", tmp_path)
    assert code == 2 and "--plot" in one_line(err) and "directory" in err


def test_plot_unknown_image_format_refused(capsys, net, tmp_path):
    """`simulate --plot q.xyz` is refused before simulating: matplotlib cannot write .xyz."""
    code, out, err = cli(capsys, "simulate", net, "--horizon", "10", "--plot", tmp_path / "q.xyz")
    assert code == 2 and out == "" and ".xyz" in one_line(err)


def test_sweep_out_not_sqlite_refused(capsys, net, tmp_path):
    """`sweep --out` naming an existing file that is not a SQLite results file is refused, and the file is untouched."""
    f = tmp_path / "notes.txt"
    f.write_text("my notes\n")
    code, _, err = cli(capsys, "sweep", net, "--vary", "streams[0].rate=1:2:2", "--out", f)
    assert code == 2 and "SQLite" in one_line(err) and f.read_text() == "my notes\n"


# ------------------------------------------------------------------------ certificates and the report
def test_out_prints_the_recheck_command(capsys, net, tmp_path):
    """After writing `--out C` the report prints `re-check with: certify verify NETWORK C`, and that command passes."""
    cert = tmp_path / "c.json"
    code, out, err = cli(capsys, "prove", net, "--out", cert)
    assert code == 0 and err == "" and cert.exists()
    assert out.strip().splitlines()[-1] == f"re-check with: certify verify {net} {cert}"
    assert cli(capsys, "verify", net, cert)[0] == 0


def test_out_without_certificate_exits_3(capsys, corpus_dir, tmp_path):
    """An undecided verdict with `--out` says in one line that no certificate was written, writes nothing, exit 3."""
    cert = tmp_path / "c.json"
    code, out, err = cli(capsys, "prove", corpus_dir / "ce-tie-expB-g0.50.json", "--template", "quadratic",
                         "--time-limit", "0.01", "--out", cert)
    assert "verdict: undecided" in out
    assert code == 3 and "no certificate written" in one_line(err) and not cert.exists()


def test_verify_json_facts_are_json(capsys, corpus_dir, tmp_path):
    """`verify --json` facts keep lists as lists and rationals as "p/q" strings (no Python reprs)."""
    net = corpus_dir / "dhk2-A-m0.90.json"
    cert = tmp_path / "c.json"
    assert cli(capsys, "prove", net, "--template", "quadratic", "--out", cert)[0] == 0
    code, out, _ = cli(capsys, "verify", net, cert, "--json")
    facts = json.loads(out)["facts"]
    assert code == 0 and isinstance(facts["variables"], list) and facts["variables"][0].startswith("P[")
    assert re.fullmatch(r"-?\d+(/\d+)?", facts["delta"])
    assert "[" not in json.dumps({k: v for k, v in facts.items() if isinstance(v, str)})


@pytest.mark.parametrize("command", [["regions"], ["stationary"], ["simulate", "--horizon", "10"]])
def test_fork_join_refusal_says_prove_and_verify(capsys, command):
    """regions/stationary/simulate refuse a fork-join file in one line naming it and `prove`/`verify`, exit 2."""
    code, out, err = cli(capsys, command[0], FORK_JOIN, *command[1:])
    line = one_line(err)
    assert code == 2 and out == "" and str(FORK_JOIN) in line and "certify prove" in line and "certify verify" in line


def test_report_columns_align_on_long_sizes():
    """The time column of the report lines up even when one size text is long."""
    res = Result("n", attempts=[Attempt("a", "short", 0.1, "x"), Attempt("long stage name", "s" * 40, 2.5, "y"),
                                Attempt("b", "6 faces (1 with a range of velocities)", 10.0, "z")])
    rows = res.table().splitlines()[1:4]
    assert len({r.index("s  ", r.index(".")) for r in rows}) == 1, rows


# ------------------------------------------------------------------------ solver noise
def test_prove_prints_nothing_on_stderr(corpus_dir):
    """`certify prove` on a corpus file, with HiGHS (which prints a banner), writes nothing to stderr."""
    out = subprocess.run([*CLI, "prove", str(corpus_dir / "dhk2-A-m0.90.json"), "--solver", "HIGHS"],
                         capture_output=True, text=True)
    assert out.returncode == 0 and out.stderr == "" and "Running HiGHS" not in out.stdout


class _NoisyProblem:
    """Stands in for a cvxpy problem whose solver warns, logs and prints from 'C code'."""

    status = "optimal_inaccurate"

    def solve(self, solver=None):
        from cvxpy.settings import LOGGER

        warnings.warn("Solution may be inaccurate. Try another solver.", UserWarning, stacklevel=1)
        LOGGER.warning("Encountered unexpected exception importing solver XYZ")
        os.write(2, b"iteration 17: residual 1e-3\n")


def test_solve_captures_warnings_logs_and_output(capfd):
    """`solvers.solve` returns what the solver said as one-line notes and leaks none of it to stdout/stderr."""
    status, notes = solvers.solve(_NoisyProblem(), "CLARABEL")
    io = capfd.readouterr()
    assert status == "optimal_inaccurate" and io.err == "" and io.out == ""
    text = " | ".join(notes)
    assert "Solution may be inaccurate" in text and "importing solver XYZ" in text and "residual 1e-3" in text
    assert all(n.startswith("CLARABEL: ") and "\n" not in n and ".py" not in n for n in notes)


def test_solver_warnings_become_a_reason(capsys, net, monkeypatch):
    """A warning raised inside a solve during `prove` is reported as a `solver notes` reason, not on stderr."""
    import cvxpy as cp

    real = cp.Problem.solve

    def noisy(self, *a, **k):
        warnings.warn("Solution may be inaccurate.", UserWarning, stacklevel=1)
        return real(self, *a, **k)

    monkeypatch.setattr(cp.Problem, "solve", noisy)
    code, out, err = cli(capsys, "prove", net, "--solver", "SCS")  # a solve through cvxpy, whose solve the test patches
    assert code == 0 and err == "" and "solver notes" in out and "Solution may be inaccurate" in out


def test_solver_error_is_a_status():
    """A solver that fails gives the status `solver-error` with its message as the first note, never an exception."""
    import cvxpy as cp

    class Failing:
        status = None

        def solve(self, solver=None):
            raise cp.error.SolverError("Solver 'SCS' failed.")

    status, notes = solvers.solve(Failing(), "SCS")
    assert status == "solver-error" and "SCS" in notes[0]


# ------------------------------------------------------------------------ region descriptions
def _holds(desc: str, x: tuple[int, ...], ids: list[str]) -> bool:
    """Evaluate a description printed by Region.describe at the state x."""
    if desc == "all states":
        return True
    val = {f"x{s}": v for s, v in zip(ids, x)}

    def term(t: str) -> int:
        m = re.fullmatch(r"(x\w+)(?: ([+-]) (\d+))?|(\d+)", t.strip())
        assert m, t
        if m[4] is not None:
            return int(m[4])
        return val[m[1]] + (0 if m[2] is None else int(m[3]) * (1 if m[2] == "+" else -1))

    ops = {"=": lambda a, b: a == b, "<=": lambda a, b: a <= b, "<": lambda a, b: a < b, ">=": lambda a, b: a >= b}
    for part in desc.split(", "):
        pieces = re.split(r" (<=|>=|<|=) ", part)
        vals = [term(t) for t in pieces[0::2]]
        if not all(ops[o](a, b) for o, a, b in zip(pieces[1::2], vals, vals[1:])):
            return False
    return True


@pytest.mark.parametrize("name", ["ce-tie-expB-g0.50.json", "dhk2-A-m0.90.json", "bramson-J5-s33-m0.90.json"])
def test_region_descriptions_are_minimal_and_exact(corpus_dir, name):
    """Region.describe names each tie once (x1 = x2 = x3, never x1 = x3 next to it) and defines exactly the region."""
    import certify
    from certify.markov.chain import compile_chain
    from certify.markov.regions import enumerate_regions

    chain = compile_chain(certify.load(corpus_dir / name))
    ids = list(chain.ids)
    box = list(itertools.product(range(4), repeat=chain.J)) if chain.J <= 4 else None
    for reg in enumerate_regions(chain):
        desc = reg.describe(ids)
        names = re.findall(r"x\w+", desc)
        eq_pairs = [p for p in desc.split(", ") if " = " in p and "<" not in p and ">" not in p]
        assert len({n for p in eq_pairs for n in re.findall(r"x\w+", p)}) == sum(len(re.findall(r"x\w+", p)) for p in eq_pairs)
        assert len(names) <= 3 * chain.J, desc
        points = box or [reg.point(), tuple(v + 1 for v in reg.point())]
        for x in points:
            assert _holds(desc, x, ids) == reg.contains(x), (desc, x)


def test_region_description_of_fixed_levels():
    """Clip levels are printed as exact values (x1 = 3), not as lower bounds only."""
    from certify.markov.regions import INF, Region

    # x1 = 3 (level), x2 >= x1 + 1
    d = [[0, -3, -4], [3, 0, -1], [INF, INF, 0]]
    reg = Region((), (), (), tuple(tuple(r) for r in d))
    desc = reg.describe(["1", "2"])
    assert desc == "x1 = 3, x2 >= 4"
    for x in itertools.product(range(8), repeat=2):
        assert _holds(desc, x, ["1", "2"]) == reg.contains(x)


def test_json_value_rationals_and_lists():
    """The CLI's JSON conversion writes Fractions as "p/q", tuples as lists and keeps numbers numbers."""
    from certify.cli.plain_json import json_value

    assert json_value({"a": (F(1, 3), 2, "s"), 3: [F(4)], "f": float("inf")}) == {"a": ["1/3", 2, "s"], "3": ["4"], "f": "inf"}


def test_closed_pipe_ends_quietly(tmp_path):
    """`certify regions --list | head -1` ends with exit 0 and no traceback when the reader leaves early."""
    ring = {"format": "jsq-network/1", "stations": {str(i): {"mu": 1} for i in range(1, 8)},
            "streams": [{"choice": [str(i), str(i % 7 + 1)], "rate": 0.2} for i in range(1, 8)]}
    path = tmp_path / "ring7.json"
    path.write_text(json.dumps(ring))
    cmd = f"{sys.executable} -m certify regions {path} --list | head -1"
    out = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
