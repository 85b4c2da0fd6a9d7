"""Stability boundaries proved on both sides (certify.boundary / certify boundary)."""

from __future__ import annotations

import importlib.util
import json
from fractions import Fraction as F
from pathlib import Path

import pytest

import certify
from certify.certificates import verify
from certify.cli import main
from certify.workflows.boundary import boundary, default_tolerance
from tests.test_ux import cli, one_line

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("criteria", ROOT / "models" / "criteria.py")
criteria = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(criteria)

MM1 = {"format": "jsq-network/1", "name": "mm1", "stations": {"1": {"mu": 1}}, "streams": [{"choice": ["1"], "rate": 1}]}


def _both_ends_verify(res) -> None:
    """Each end's certificate passes verify against the network at that end."""
    for side in ("stable", "unstable"):
        net = certify.from_dict(res.documents[side])
        out = verify(net, res.certificates[side])
        assert out.ok, (side, out.failures)
        assert res.certificates[side]["claims"]  # a real certificate, with its derived claims


def test_tie_breaking_boundary_is_bracketed_around_the_exact_value():
    """On the tie-breaking counterexample the proved bracket of lambda_3 is at most 0.005 wide and contains 1 - d_1 (exact CTMC)."""
    d1, lost = criteria.subsystem_throughput(1.0, 0.1)
    assert lost < 1e-9
    res = boundary(certify.load(ROOT / "models" / "tie-breaking-J3.json"), "streams[1].rate", "0.5", "0.7", tol="0.005")
    assert res.bracketed and res.width <= F(1, 200)
    assert res.stable_at < 1 - d1 < res.unstable_at
    _both_ends_verify(res)


def test_distribution_boundary_is_bracketed_around_the_exact_value(corpus_dir):
    """On the exponential distribution counterexample the bracket of lambda_3 contains 1 - d_1 = 1/4 and is at most 0.005 wide."""
    d1, _ = criteria.subsystem_throughput(1.5, 0.5)
    res = boundary(certify.load(corpus_dir / "ce-dist-A-exp.json"), "streams[1].rate", "0.2", "0.3", tol="0.005")
    assert res.bracketed and res.width <= F(1, 200)
    assert res.stable_at < 1 - d1 < res.unstable_at
    _both_ends_verify(res)


@pytest.mark.slow
def test_hyperexponential_boundary_is_bracketed_around_the_exact_value(corpus_dir):
    """With H2 service at station 2 the bracket of lambda_3 contains 1 - d_1 from the phase-type subsystem CTMC."""
    doc = json.loads((corpus_dir / "ce-dist-B-h2.json").read_text())
    star = doc["x-case"]["boundary"]["lambda3_star"]  # 1 - d_1, the subsystem (x1, x2, phase) CTMC of the corpus
    res = boundary(certify.load(corpus_dir / "ce-dist-B-h2.json"), "streams[1].rate", "0.15", "0.25", tol="0.005")
    assert res.bracketed and res.width <= F(1, 200)
    assert res.stable_at < star < res.unstable_at
    _both_ends_verify(res)


def test_load_parameter_brackets_the_mm1_boundary_at_one():
    """Scaling every stream rate brackets an M/M/1 queue's boundary at load 1, with exact dyadic ends."""
    res = boundary(certify.from_dict(MM1), "load", "0.5", "1.5", tol="0.01")
    assert res.stable_at < 1 < res.unstable_at and res.width <= F(1, 100)
    assert res.stable_at.denominator & (res.stable_at.denominator - 1) == 0  # midpoints of exact ends


def test_reversed_orientation_is_read_from_the_ends():
    """Varying a service rate (stable above the boundary) brackets mu = lambda from the other side."""
    res = boundary(certify.from_dict(MM1), "stations.1.mu", "0.5", "1.5", tol="0.01")
    assert res.unstable_at < 1 < res.stable_at and res.orientation == -1


def test_no_crossing_is_said_and_not_bracketed():
    """An interval stable at every probe says only that no crossing was found: no bracket, a note, no unstable certificate."""
    res = boundary(certify.from_dict(MM1), "load", "0.2", "0.5")
    assert not res.bracketed and res.crossings == []
    assert res.stopped.startswith("no crossing found in [0.2, 0.5]: 9 of 9 probes proved stable, none proved unstable")
    assert "a crossing between two probes is not excluded" in res.stopped and "no crossing in" not in res.stopped
    assert "unstable" not in res.certificates
    assert any("unstable side is not proved" in n for n in res.notes)


def test_default_tolerance_gives_three_significant_digits():
    """The default width is five units of the fourth significant digit of the larger end."""
    assert default_tolerance(F(1, 5), F(3, 10)) == F(1, 2000)
    assert default_tolerance(F(5), F(12)) == F(1, 20)
    assert default_tolerance(F(1, 10), F(1)) == F(1, 200)


def test_cli_json_and_out_directory(tmp_path, capsys):
    """`certify boundary --json --out DIR` prints the bracket on the last line and writes both ends, which verify accepts."""
    net = tmp_path / "mm1.json"
    net.write_text(json.dumps(MM1))
    out = tmp_path / "ends"
    code = main(["boundary", str(net), "--load", "0.5:1.5", "--tol", "0.05", "--json", "--out", str(out)])
    doc = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0
    assert {"parameter", "stable_at", "unstable_at", "width", "steps", "certificates"} <= set(doc)
    assert F(doc["stable_at"]) < 1 < F(doc["unstable_at"]) and F(doc["width"]) <= F(1, 20)
    for side in ("stable", "unstable"):
        files = doc["certificates"][side]
        assert main(["verify", files["network"], files["certificate"]]) == 0


@pytest.mark.parametrize(("args", "phrase"), [
    (["--vary", "streams[0].rate"], "must be PATH=LO:HI"),
    (["--vary", "streams[0].rate=2:1"], "LO (2) must be smaller than HI (1)"),
    (["--vary", "streams[0].rate=1:2:3"], "must be LO:HI"),
    (["--vary", "streams[5].rate=1:2"], "streams[5] does not exist"),
    (["--load", "0:2"], "must be positive"),
    (["--load", "1:2", "--vary", "streams[0].rate=1:2"], "exactly one of --vary"),
    ([], "exactly one of --vary"),
    (["--load", "0.5:1.5", "--tol", "0"], "--tol"),
])
def test_bad_options_are_one_line_exit_2(tmp_path, capsys, args, phrase):
    """A bad interval, path, load or tolerance is one line naming the option and the rule, exit 2, no traceback."""
    net = tmp_path / "mm1.json"
    net.write_text(json.dumps(MM1))
    code, out, err = cli(capsys, "boundary", net, *args)
    assert code == 2 and out == "" and phrase in one_line(err), err


def test_out_that_is_a_file_is_refused_before_any_probe(tmp_path, capsys):
    """`--out` naming an existing file is refused in one line (exit 2) before anything is proved."""
    net = tmp_path / "mm1.json"
    net.write_text(json.dumps(MM1))
    (tmp_path / "x").write_text("")
    code, out, err = cli(capsys, "boundary", net, "--load", "0.5:1.5", "--out", tmp_path / "x")
    assert code == 2 and "is not a directory" in one_line(err) and out == ""


# ---------------------------------------------------------------- several boundaries: the curve, on a pool or Dask

def test_boundary_curve_over_gamma_brackets_each_exact_value_on_a_pool():
    """Bisecting lambda_3 over a grid of the tie probability gamma on 2 workers brackets 1 - d_1(gamma) (exact CTMC) at each gamma."""
    from certify.workflows.boundaries import boundaries

    net = certify.load(ROOT / "models" / "tie-breaking-J3.json")
    curve = boundaries([net], "streams[1].rate", "0.5", "0.8", over="tie_breaking[0].probs.1=0.1:0.3:3", tol="0.005",
                       workers=2)
    assert curve.bracketed and curve.stopped == "done" and len(curve.rows()) == 3
    for row, task in zip(curve.rows(), curve.tasks):
        d1, lost = criteria.subsystem_throughput(1.0, float(row["over_value"]))
        assert lost < 1e-9
        assert row["stable_at"] < 1 - d1 < row["unstable_at"] and row["width"] <= F(1, 200), row
        _both_ends_verify(curve.results[task.index])


def test_boundaries_of_several_networks_run_on_dask():
    """Two networks' load boundaries run on a (local, in-process) Dask cluster, each bracketing its exact value."""
    import distributed

    from certify.workflows.boundaries import boundaries

    mm1 = certify.from_dict(MM1)
    jsq2 = certify.from_dict({**MM1, "name": "jsq2", "stations": {"1": {"mu": 1}, "2": {"mu": 2}},
                              "streams": [{"choice": ["1", "2"], "rate": 1}]})
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as client:
        curve = boundaries([mm1, jsq2], "load", "0.5", "5", tol="0.05", scheduler=client)
    (a, b) = curve.rows()
    assert a["stable_at"] < 1 < a["unstable_at"] and b["stable_at"] < 3 < b["unstable_at"]  # lambda* = sum of mu


def test_cli_several_boundaries_json_and_out_subdirectories(tmp_path, capsys):
    """With --over, `certify boundary --json` prints every bracket in one object and --out writes one directory each."""
    net = tmp_path / "mm1.json"
    net.write_text(json.dumps(MM1))
    code = main(["boundary", str(net), "--load", "0.25:4", "--over", "stations.1.mu=1:2:2", "--tol", "0.05", "--json",
                 "--out", str(tmp_path / "ends")])
    doc = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0 and doc["over"] == "stations.1.mu" and len(doc["boundaries"]) == 2
    for b in doc["boundaries"]:
        assert F(b["stable_at"]) < F(b["over_value"]) < F(b["unstable_at"])  # M/M/1: load* = mu
        files = b["certificates"]["unstable"]
        assert Path(files["certificate"]).parent.parent == tmp_path / "ends"
        assert main(["verify", files["network"], files["certificate"]]) == 0


def test_bad_over_is_one_line_exit_2(tmp_path, capsys):
    """An --over naming no number of the network is refused in one line, exit 2, before any probe."""
    net = tmp_path / "mm1.json"
    net.write_text(json.dumps(MM1))
    code, out, err = cli(capsys, "boundary", net, "--load", "0.5:1.5", "--over", "stations.9.mu=1:2:2")
    assert code == 2 and "--over" in one_line(err) and out == "", err


def test_a_second_vary_with_a_grid_is_the_curve(tmp_path, capsys):
    """`--vary PATH=LO:HI --vary PATH2=START:STOP:N` bisects the first along the second's grid (as --over)."""
    net = tmp_path / "mm1.json"
    net.write_text(json.dumps(MM1))
    code = main(["boundary", str(net), "--vary", "streams[0].rate=0.25:4", "--vary", "stations.1.mu=1:3:2", "--tol", "0.05",
                 "--json"])
    doc = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0 and doc["over"] == "stations.1.mu" and [b["over_value"] for b in doc["boundaries"]] == ["1", "3"]
    assert all(F(b["stable_at"]) < F(b["over_value"]) < F(b["unstable_at"]) for b in doc["boundaries"])  # lambda* = mu
    code, out, err = cli(capsys, "boundary", net, "--vary", "streams[0].rate=0.5:2", "--vary", "stations.1.mu=1:2")
    assert code == 2 and "at most one --vary PATH=START:STOP:N" in one_line(err)


@pytest.mark.parametrize("time_limit, first_bisection_limit", [(100.0, 10.0), (14.0, None)])
def test_a_probe_after_the_grid_gets_what_is_left_when_less_than_tail_share_would_remain(monkeypatch, time_limit,
                                                                                       first_bisection_limit):
    """With 10-s probes, the first probe after the ends and the grid gets 10 s where 100 s are left, and all that is
    left (more than 10 s) where 14 s are."""
    import certify.proof.pipeline as pipeline
    from certify.workflows.boundary import boundary

    limits: list[float] = []
    real = pipeline.prove

    def recorded(net, options=None, **kw):
        limits.append(options.time_limit)
        return real(net, options, **kw)

    monkeypatch.setattr(pipeline, "prove", recorded)
    boundary(certify.from_dict(MM1), "load", "0.5", "1.5", tol="0.01", grid=1, point_limit=10.0, time_limit=time_limit)
    assert max(limits[:3]) <= 10.0  # the ends and the grid point: their own limit
    if first_bisection_limit is None:
        assert 10.0 < limits[3] <= 14.0
    else:
        assert limits[3] == first_bisection_limit
