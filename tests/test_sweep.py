"""Parameter sweeps (certify.sweep / certify sweep): resumable store, pool and Dask, CSV, atlas plots."""

from __future__ import annotations

import importlib
import importlib.util
import multiprocessing
import os
import sqlite3
import subprocess
import sys
import time
from fractions import Fraction as F
from pathlib import Path

import pytest

import certify
import certify.proof.pipeline
from certify.cli import main
from certify.io.loader import dump, from_dict

ROOT = Path(__file__).resolve().parents[1]
sweep_mod = importlib.import_module("certify.workflows.sweep_result")  # the result types and read_csv (certify.sweep is the function)

_spec = importlib.util.spec_from_file_location("criteria", ROOT / "models" / "criteria.py")
criteria = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(criteria)

PAIR = {"format": "jsq-network/1", "name": "pair", "stations": {"1": {"mu": 1}, "2": {"mu": 1}},
        "streams": [{"choice": ["1", "2"], "rate": 1}]}


def _key_of(db: Path) -> str:
    conn = sqlite3.connect(db)
    try:
        (key,) = conn.execute("SELECT key FROM sweeps").fetchone()
        return key
    finally:
        conn.close()


def _finished(db: Path) -> dict[int, float]:
    if not db.exists():
        return {}
    conn = sqlite3.connect(db, timeout=30)
    try:
        return dict(conn.execute("SELECT idx, finished FROM points"))
    except sqlite3.OperationalError:  # the table is not there yet
        return {}
    finally:
        conn.close()


def test_coarse_atlas_proved_on_the_right_side():
    """On a 3 x 3 (gamma, lambda_12) grid of the tie-breaking network every cell >= 1% from the boundary is proved on the right side."""
    net = certify.load(ROOT / "models" / "tie-breaking-J3.json")
    res = certify.sweep(net, [("tie_breaking[0].probs.1", "0:1:3"), ("streams[0].rate", "0.6:1.6:3")],
                        time_limit=8, workers=1)
    assert len(res.points) == 9 and res.notes  # probs.2 follows as 1 - gamma, and says so
    for p in res.points:
        gamma, lam12 = p.values
        d1, lost = criteria.subsystem_throughput(float(lam12), float(gamma))
        assert lost < 1e-9
        load = float(net.streams[1].rate) + d1
        if abs(load - 1) >= 0.01:
            assert p.verdict == ("stable" if load < 1 else "unstable"), (gamma, lam12, load, p.verdict, p.reasons)


def test_interrupted_sweep_resumes_without_recomputing(tmp_path, monkeypatch):
    """A sweep stopped by Ctrl-C half-way keeps its finished points, and the same sweep run again proves only the rest."""
    # the Ctrl-C comes from inside, during the fourth point: polling the results file from outside raced the
    # workers (a fast CI machine finished all 80 points before the first poll saw three rows)
    net_file = ROOT / "models" / "distribution-h2-J3.json"
    db = tmp_path / "results.sqlite"
    n = 40
    grid = f"0.01:0.13:{n}"
    driver = (
        "import os, signal, sys\n"
        "import certify.cli, certify.proof.pipeline as pipeline\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)  # where the caller ignores SIGINT (a background job)\n"
        "real, calls = pipeline.prove, []\n"
        "def prove(*a, **kw):\n"
        "    calls.append(1)\n"
        "    if len(calls) == 4:\n"
        "        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while the fourth point is being proved\n"
        "    return real(*a, **kw)\n"
        "pipeline.prove = prove\n"
        "sys.exit(certify.cli.main(sys.argv[1:]))\n")
    cmd = [sys.executable, "-c", driver, "sweep", str(net_file), "--vary", f"streams[1].rate={grid}",
           "--out", str(db), "--workers", "1", "--time-limit", "20"]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    out, err = proc.stdout, proc.stderr
    assert proc.returncode == 130, out + err
    assert "run the same command again to resume" in err
    before = _finished(db)
    assert len(before) == 3, "the three points finished before the Ctrl-C are stored, no more"

    calls = []
    real = certify.proof.pipeline.prove

    def counting(*a, **kw):
        calls.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(certify.proof.pipeline, "prove", counting)
    res = certify.sweep(certify.load(net_file), [("streams[1].rate", grid)], time_limit=20, out=db, workers=1)
    assert res.key == _key_of(db)
    assert (res.reused, res.computed, len(calls)) == (len(before), n - len(before), n - len(before))
    after = _finished(db)
    assert len(after) == n and all(after[i] == t for i, t in before.items())  # finished rows untouched
    assert {p.verdict for p in res.points} == {"stable"}


def test_closing_the_pool_early_stops_points_in_flight():
    """Closing run_pool's iterator after two outcomes terminates the workers still proving, without waiting for them."""
    from certify.workflows.executors import run_pool

    others = set(multiprocessing.active_children())  # children of earlier tests in this process, if any
    outcomes = run_pool([0, 0, 60, 60], 2, fn=time.sleep)
    got = [next(outcomes), next(outcomes)]
    outcomes.close()
    t0 = time.perf_counter()
    while set(multiprocessing.active_children()) - others and time.perf_counter() - t0 < 20:
        time.sleep(0.1)
    assert got == [None, None]
    assert not set(multiprocessing.active_children()) - others, "a worker still sleeps through its 60 s point"


def test_pool_and_dask_give_identical_results():
    """The same sweep gives identical verdicts, methods and reasons on the local pool and on a Dask LocalCluster."""
    distributed = pytest.importorskip("distributed")
    net = from_dict(PAIR)
    vary = [("streams[0].rate", ["0.5", "1.5", "2.5", "3.5"])]
    pool = certify.sweep(net, vary, time_limit=20, workers=2)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        dask = certify.sweep(net, vary, time_limit=20, scheduler=cluster.scheduler_address)

    def view(r):
        return [(p.index, p.values, p.verdict, p.method, p.semantics, p.reasons, p.seed) for p in r.points]

    assert pool.key == dask.key
    assert view(pool) == view(dask)
    assert [p.verdict for p in pool.points] == ["stable", "stable", "unstable", "unstable"]


def test_bad_vary_specs_give_one_line_exit_2(tmp_path, capsys):
    """Unknown paths, bad ranges and values that break the network give one error line naming --vary and the rule (exit 2)."""
    net_file = tmp_path / "pair.json"
    dump(from_dict(PAIR), net_file)
    cases = {
        "streams[3].rate=0.5:1:3": "streams[3] does not exist (streams has 1 entry)",
        "stations.9.mu=0.5:1:3": "stations.9 does not exist",
        "stations.1=0.5:1:3": "stations.1 is a map, not a number",
        "streams[0].rate=1:0.5:3": "START (1) must be smaller than STOP (0.5)",
        "streams[0].rate=0.5:1:0": "must be an integer >= 1",
        "streams[0].rate=0.5:1": "must be START:STOP:N",
        "streams[0].rate": "must be PATH=START:STOP:N",
        "streams[0].rate=-1:1:3": "streams[0].rate: -1 must be > 0",
    }
    for spec, rule in cases.items():
        rc = main(["sweep", str(net_file), "--vary", spec, "--out", str(tmp_path / "r.sqlite")])
        err = capsys.readouterr().err
        assert rc == 2, spec
        assert err.count("\n") == 1 and err.startswith("certify: --vary: "), err
        assert rule in err, err


def test_csv_export_round_trips(tmp_path):
    """Writing a sweep to CSV and reading it back gives the same exact values, verdicts, methods and reasons."""
    net = from_dict(PAIR)
    res = certify.sweep(net, [("streams[0].rate", ["1/3", "2.5"]), ("stations.2.mu", "1:2:2")], time_limit=20, workers=1)
    path = tmp_path / "out.csv"
    res.to_csv(path)
    paths, points = sweep_mod.read_csv(path)
    assert paths == ("streams[0].rate", "stations.2.mu")
    assert [(p.index, p.values, p.verdict, p.method, p.semantics, p.reasons, p.seed, p.time_s) for p in points] == [
        (p.index, p.values, p.verdict, p.method, p.semantics, p.reasons, p.seed, p.time_s) for p in res.points]
    assert points[0].values == (F(1, 3), F(1))


def test_atlas_draws_the_theorem_boundary(tmp_path):
    """A 1-D atlas of M/M-JSQ puts the theorem boundary at lam = mu_1 + mu_2 exactly, and 2-D maps with a boundary are drawn."""
    atlas = importlib.import_module("certify.workflows.atlas")
    net = from_dict(PAIR)
    res = certify.sweep(net, [("streams[0].rate", "0.5:3.5:4")], time_limit=20, workers=1)
    xs, names = atlas._boundary_1d(res)
    assert xs == [pytest.approx(2.0, abs=1e-9)] and names
    res.plot(tmp_path / "strip.png")
    res2 = certify.sweep(net, [("streams[0].rate", "0.5:3.5:3"), ("stations.2.mu", "0.5:1.5:2")], time_limit=20, workers=1)
    assert atlas._boundary_2d(res2) is not None
    res2.plot(tmp_path / "map.png")
    for name in ("strip.png", "map.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_example_runs_in_fast_mode(tmp_path):
    """examples/atlas_tiebreak.py --fast sweeps 5 x 5 cells, proves every cell >= 1% from the boundary correctly, and draws the atlas."""
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "atlas_tiebreak.py"), "--fast", "--out",
                          str(tmp_path / "atlas.png")], capture_output=True, text=True, timeout=600, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stdout + out.stderr
    assert "swept 25 points (5 x 5)" in out.stdout
    assert "0 on the wrong side, 0 not proved" in out.stdout
    assert (tmp_path / "atlas.png").stat().st_size > 0


def _readme_sweep_snippet() -> str:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Sweeps and atlases"):]
    return section[section.index("```python\n") + len("```python\n"):section.index("\n```", section.index("```python"))]


def test_readme_snippet_runs_as_an_unguarded_script(tmp_path):
    """The README's certify.sweep snippet, pasted into a script without a __main__ guard, finishes with results."""
    code = _readme_sweep_snippet()
    assert "__main__" not in code and "certify.sweep(" in code
    code = code.replace('"models/', f'"{ROOT}/models/').replace("0.5:3.5:13", "0.5:3.5:3").replace("time_limit=10", "time_limit=5")
    script = tmp_path / "atlas_script.py"
    script.write_text(code)
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "stable" in out.stdout and out.stderr == ""
    assert (tmp_path / "results.sqlite").exists() and (tmp_path / "atlas.png").exists()
    assert len((tmp_path / "atlas.csv").read_text().splitlines()) == 1 + 3


@pytest.mark.parametrize("kw", [{"time_limit": float("inf")}, {"time_limit": float("nan")}, {"sim_budget": -1},
                                {"workers": 0}, {"workers": 1.5}])
def test_api_budgets_must_be_finite(kw):
    """certify.sweep refuses an infinite or NaN time limit, a negative budget and a non-integer worker count."""
    net = from_dict(PAIR)
    with pytest.raises(certify.NetworkError):
        certify.sweep(net, [("streams[0].rate", "1:2:2")], **kw)
