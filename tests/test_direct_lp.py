"""The LPs solved directly (HiGHS, Clarabel) on sparse matrices: optima, multipliers, statuses, silence, no cvxpy."""

from __future__ import annotations

import itertools
import subprocess
import sys
import warnings
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from certify.cli import main
from certify.search import linprog, solvers
from certify.search.linprog import solve_lp

ROOT = Path(__file__).resolve().parents[1]
PATHS = [("HIGHS", "direct"), ("CLARABEL", "direct"), ("HIGHS", "cvxpy"), ("SCS", "auto")]
JSQ2 = '{"format": "jsq-network/1", "name": "jsq2", "stations": {"1": {"mu": 1}, "2": {"mu": 1}}, ' \
       '"streams": [{"rate": 1.5, "choice": ["1", "2"]}], "feedback": []}'


def _random_lp(seed: int, n: int = 3, m: int = 6):
    """A bounded feasible LP min c'x, A x <= b, one equality row, 0 <= x <= 2 (x = 0.5 is strictly feasible)."""
    rng = np.random.default_rng(seed)
    A = rng.integers(-3, 4, size=(m, n)).astype(float)
    b = A @ np.full(n, 0.5) + rng.integers(1, 4, size=m)
    E = rng.integers(1, 3, size=(1, n)).astype(float)
    return rng.integers(-5, 6, size=n).astype(float), A, b, E, E @ np.full(n, 0.5)


def _vertex_optimum(c, A, b, E, e, lo=0.0, hi=2.0) -> float:
    """min c'x by enumerating every vertex: n active constraints among the rows, the equality and the bounds."""
    n = len(c)
    rows = [(A[i], b[i]) for i in range(len(b))] + [(-np.eye(n)[j], -lo) for j in range(n)] + [(np.eye(n)[j], hi) for j in range(n)]
    best = np.inf
    for pick in itertools.combinations(range(len(rows)), n - 1):
        M = np.vstack([E] + [rows[k][0] for k in pick])
        if abs(np.linalg.det(M)) < 1e-9:
            continue
        x = np.linalg.solve(M, np.concatenate([e, [rows[k][1] for k in pick]]))
        if all(r @ x <= v + 1e-9 for r, v in rows):
            best = min(best, float(c @ x))
    return best


@pytest.mark.parametrize("solver,via", PATHS)
@pytest.mark.parametrize("seed", range(4))
def test_optimum_matches_vertex_enumeration(solver, via, seed):
    """The optimal value equals the best feasible vertex, found by brute force."""
    c, A, b, E, e = _random_lp(seed)
    res = solve_lp(c, sp.csr_matrix(A), b, sp.csr_matrix(E), e, bounds=(0.0, 2.0), solver=solver, via=via)
    assert res.ok and res.solver == solver
    assert res.objective == pytest.approx(_vertex_optimum(c, A, b, E, e), abs=1e-5)


@pytest.mark.parametrize("solver,via", PATHS[:3])
@pytest.mark.parametrize("seed", range(4))
def test_multipliers_satisfy_the_kkt_conditions(solver, via, seed):
    """Without bounds the multipliers are >= 0, complementary, and c + A_ub'y_ub + A_eq'y_eq = 0."""
    c, A, b, E, e = _random_lp(seed)
    n = len(c)
    A = np.vstack([A, -np.eye(n), np.eye(n)])  # the box as rows
    b = np.concatenate([b, np.zeros(n), np.full(n, 2.0)])
    res = solve_lp(c, sp.csr_matrix(A), b, sp.csr_matrix(E), e, solver=solver, via=via)
    assert res.ok and res.y_ub is not None and res.y_eq is not None
    assert np.all(res.y_ub >= -1e-6)
    assert np.abs(res.y_ub * (A @ res.x - b)).max() < 1e-5
    assert np.abs(c + A.T @ res.y_ub + E.T @ res.y_eq).max() < 1e-5


@pytest.mark.parametrize("solver", ["HIGHS", "CLARABEL"])
def test_infeasible_and_unbounded_statuses(solver):
    """x <= -1 with x >= 0 is infeasible; min -x with x <= 1 only on y is unbounded."""
    one = sp.csr_matrix([[1.0, 0.0]])
    assert solve_lp([1.0, 1.0], one, [-1.0], bounds=(0.0, np.inf), solver=solver).outcome == "infeasible"
    assert solve_lp([-1.0, 0.0], sp.csr_matrix([[0.0, 1.0]]), [1.0], solver=solver).outcome == "unbounded"


def test_direct_needs_a_direct_solver():
    """`via="direct"` with a solver that is only reachable through cvxpy is refused."""
    with pytest.raises(ValueError, match="SCS has no direct call"):
        solve_lp([1.0], bounds=(0.0, 1.0), solver="SCS", via="direct")


def test_an_unknown_method_is_refused():
    """A `method` other than None, "ipm" or "ipm-no-presolve" is refused, naming the value."""
    with pytest.raises(ValueError, match="method must be None or 'ipm' or 'ipm-no-presolve', not 'barrier'"):
        solve_lp([1.0], bounds=(0.0, 1.0), method="barrier")


@pytest.mark.parametrize("method", ["ipm", "ipm-no-presolve"])
@pytest.mark.parametrize("seed", range(4))
def test_interior_point_optimum_matches_the_simplex(seed, method):
    """HiGHS's interior-point method (no crossover; with presolve or without) reaches the dual simplex's optimal
    value on random bounded LPs."""
    rng = np.random.default_rng(seed)
    A = sp.csr_matrix(rng.uniform(-1, 1, (30, 12)))
    b = rng.uniform(0.5, 2.0, 30)
    c = rng.uniform(-1, 1, 12)
    simplex = solve_lp(c, A, b, bounds=(-5.0, 5.0))
    ipm = solve_lp(c, A, b, bounds=(-5.0, 5.0), method=method)
    assert simplex.ok and ipm.ok
    assert abs(simplex.objective - ipm.objective) <= 1e-6 * (1 + abs(simplex.objective))
    assert (A @ ipm.x <= b + 1e-6).all()


def test_installed_solvers_agree_with_cvxpy():
    """The solvers found without importing cvxpy are exactly those cvxpy reports as installed."""
    import cvxpy as cp

    assert set(solvers.installed_solvers()) == set(cp.installed_solvers())
    assert solvers.default_solver() == "HIGHS"


def test_solver_failure_is_a_status(monkeypatch):
    """A direct solver that fails gives `solver-error: <message>`, never an exception."""
    def broken(*args):
        raise linprog._Failed("HiGHS failed: kSolveError")

    monkeypatch.setattr(linprog, "_highs", broken)
    res = solve_lp([1.0], bounds=(0.0, 1.0))
    assert res.failed and not res.ok and res.outcome == "solver-error: HiGHS failed: kSolveError"


def test_solver_warnings_in_a_direct_solve_become_a_reason(capsys, tmp_path, monkeypatch):
    """A warning raised inside a direct HiGHS solve during `prove` is one `solver notes` reason, not stderr."""
    real = linprog._highs

    def noisy(*args):
        warnings.warn("Solution may be inaccurate.", UserWarning, stacklevel=1)
        return real(*args)

    monkeypatch.setattr(linprog, "_highs", noisy)
    path = tmp_path / "jsq2.json"
    path.write_text(JSQ2)
    code = main(["prove", str(path), "--no-flow-bound"])  # the fluid LP (the max-flow bound needs none)
    out = capsys.readouterr()
    assert code == 0 and out.err == "" and "solver notes" in out.out and "HIGHS: UserWarning: Solution may be inaccurate" in out.out


def test_highs_prints_nothing_in_a_fresh_process():
    """The first HiGHS solve of a process (whose banner HiGHS prints) writes nothing to stdout or stderr."""
    code = "from certify.search.linprog import solve_lp\nassert solve_lp([1.0], bounds=(0.0, 1.0)).ok\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0 and out.stdout == "" and out.stderr == ""


def test_prove_by_an_lp_never_imports_cvxpy():
    """`certify prove` of a network proved by LPs leaves cvxpy unimported, and reports the solver as (HIGHS)."""
    code = ("import sys\nfrom certify.cli import main\ncode = main(['prove', 'models/tie-breaking-J3.json'])\n"
            "print('cvxpy loaded:', 'cvxpy' in sys.modules, 'exit:', code)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    assert "verdict: stable" in out.stdout and "(HIGHS)" in out.stdout
    assert out.stdout.strip().splitlines()[-1] == "cvxpy loaded: False exit: 0"


def test_quartic_template_still_solves_its_sdp(tmp_path):
    """`--template quartic` (an SDP, through cvxpy) still finds a certificate that passes the exact check."""
    path = tmp_path / "jsq2.json"
    path.write_text(JSQ2)
    code = (f"import sys\nfrom certify.cli import main\ncode = main(['prove', {str(path)!r}, '--template', 'quartic'])\n"
            "print('cvxpy loaded:', 'cvxpy' in sys.modules, 'exit:', code)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    assert "verdict: stable" in out.stdout and "quartic" in out.stdout and "exact check passed" in out.stdout
    assert out.stdout.strip().splitlines()[-1] == "cvxpy loaded: True exit: 0"


@pytest.mark.parametrize("solver", ["CLARABEL", "SCS"])
def test_named_solver_proves_the_same(capsys, tmp_path, solver):
    """`--solver CLARABEL` (direct) and `--solver SCS` (through cvxpy) prove jsq2 stable, naming the solver."""
    path = tmp_path / "jsq2.json"
    path.write_text(JSQ2)
    code = main(["prove", str(path), "--solver", solver.lower(), "--no-flow-bound"])  # an LP, not the max-flow bound
    out = capsys.readouterr()
    assert code == 0 and "verdict: stable" in out.out and f"({solver})" in out.out


def test_static_split_slack_matches_closed_form():
    """Two unit stations sharing a stream of rate r: the static split slack is 1 - r/2, on every path."""
    from certify.core.model import Network, Station, Stream
    from certify.markov.chain import compile_chain
    from certify.search.instability import static_split

    for rate in (F(1, 2), F(3, 2), F(5, 2)):
        chain = compile_chain(Network("jsq2", (Station("1", F(1)), Station("2", F(1))), (Stream(rate, choice=("1", "2")),)))
        for solver in ("HIGHS", "CLARABEL", "SCS"):
            assert static_split(chain, solver=solver).slack == pytest.approx(1 - float(rate) / 2, abs=1e-4)  # SCS: 1e-4
