"""certify boundary: every documented spelling writes ends that verify and load; parameters that cross twice get both brackets."""

from __future__ import annotations

import importlib.util
import json
import re
from fractions import Fraction as F
from pathlib import Path

import pytest

import certify
from certify.certificates import verify
from certify.cli import main
from certify.core.errors import CertifyError
from certify.core.numbers import as_fraction
from certify.io.loader import to_dict
from certify.workflows.boundary import boundary
from certify.workflows.paths import path_tokens
from tests.test_ux import cli, one_line

ROOT = Path(__file__).resolve().parents[1]
TIE = ROOT / "models" / "tie-breaking-J3.json"
_spec = importlib.util.spec_from_file_location("criteria", ROOT / "models" / "criteria.py")
criteria = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(criteria)

# The side each certificate kind proves (README, "Certificates"): read from the kind, not from certify's bookkeeping.
KIND_SIDE = {"foster": "stable", "fluid": "stable", "growth": "unstable", "static-split": "unstable",
             "closed-set": "unstable"}

# Stations 1 and 2 share a stream (1.5); station 1 feeds station 3 (mu3 = 1).  Unstable while mu1 + mu2 < 1.5
# (mu1 < 0.5); stable above that until station 1's throughput d1 reaches mu3 = 1; unstable beyond (large mu1).
TWO = {"format": "jsq-network/1", "name": "two-crossings",
       "stations": {"1": {"mu": 0.8}, "2": {"mu": 1}, "3": {"mu": 1}},
       "streams": [{"choice": ["1", "2"], "rate": 1.5}],
       "feedback": [{"from": "1", "choice": ["3"], "prob": 1}]}

# A symmetric pair of tie-breaking gadgets: ties of 1 and 2 go to 1 with probability g; 1 feeds 3, 2 feeds 4.
# Station 3 is unstable iff 0.45 + d1(g) > 1, station 4 iff 0.45 + d2(g) > 1 (d2 = 1 - d1): unstable near g = 0 and 1.
GADGETS = {"format": "jsq-network/1", "name": "tie-gadget-pair",
           "stations": {"1": {"mu": 1}, "2": {"mu": 1}, "3": {"mu": 1}, "4": {"mu": 1}},
           "streams": [{"choice": ["1", "2"], "rate": 1}, {"choice": ["3"], "rate": 0.45}, {"choice": ["4"], "rate": 0.45}],
           "feedback": [{"from": "1", "choice": ["3"], "prob": 1}, {"from": "2", "choice": ["4"], "prob": 1}],
           "tie_breaking": [{"set": ["1", "2"], "probs": {"1": 0.5, "2": 0.5}}]}


def _number_at(net, path: str) -> F:
    """The exact number a field path names in a loaded network."""
    node = to_dict(net)
    for t in path_tokens(path):
        node = node[t]
    return as_fraction(node)


def _check_written(files: dict, parameter: str | None = None, capsys=None) -> None:
    """Each written end: the network loads (holding the end's value), its certificate is of its side and verifies."""
    for side in ("stable", "unstable"):
        net_path, cert_path = files[side]["network"], files[side]["certificate"]
        net = certify.load(net_path)
        cert = json.loads(Path(cert_path).read_text())
        assert KIND_SIDE[cert["kind"]] == side, (side, cert["kind"])
        assert verify(net, cert).ok
        assert main(["verify", net_path, cert_path]) == 0
        if parameter is not None:
            assert _number_at(net, parameter) == F(files[side]["value"])
    if capsys is not None:
        capsys.readouterr()


def _ends_of(doc: dict) -> dict:
    """A --json bracket's written files, with the value at each end."""
    return {side: {**doc["certificates"][side], "value": doc[f"{side}_at"]} for side in ("stable", "unstable")}


# ---------------------------------------------------------------- issue 19.1: every documented spelling writes its ends

def test_guide_spelling_with_out_writes_ends_that_verify(tmp_path, capsys):
    """The guide's `certify boundary FILE --vary PATH=LO:HI --tol T --out DIR` writes both ends; each loads and verifies."""
    out = tmp_path / "ends"
    code, text, err = cli(capsys, "boundary", TIE, "--vary", "streams[1].rate=0.5:0.7", "--tol", "0.005", "--out", out)
    assert code == 0 and err == "" and "re-check with: certify verify" in text
    shown = dict(re.findall(r"\b(stable|unstable) at streams\[1\]\.rate = (?:\S+ \(= )?([0-9./]+)", text))
    files = {side: {"network": str(out / f"{side}.json"), "certificate": str(out / f"{side}.cert.json"),
                    "value": shown[side]} for side in ("stable", "unstable")}
    _check_written(files, "streams[1].rate", capsys)


def test_readme_spelling_json_and_out(tmp_path, capsys):
    """The README's `--vary PATH=LO:HI --tol T`, with --json and --out: the JSON names files that load and verify."""
    code = main(["boundary", str(TIE), "--vary", "streams[1].rate=0.5:0.8", "--tol", "0.005", "--json",
                 "--out", str(tmp_path / "ends")])
    doc = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0 and len(doc["crossings"]) == 1 and doc["grid"] == 7
    assert F(doc["stable_at"]) < F(doc["unstable_at"]) and F(doc["width"]) <= F(1, 200)
    _check_written(_ends_of(doc), "streams[1].rate", capsys)


def test_load_spelling_with_out_on_a_model(tmp_path, capsys):
    """`--load LO:HI --out DIR` on a model file writes ends whose stream rates are the model's times the end's factor."""
    code = main(["boundary", str(TIE), "--load", "0.5:1.5", "--tol", "0.05", "--json", "--out", str(tmp_path / "e")])
    doc = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0
    for side in ("stable", "unstable"):
        net = certify.load(doc["certificates"][side]["network"])
        assert net.streams[1].rate == F(43, 100) * F(doc[f"{side}_at"])
    _check_written(_ends_of(doc), capsys=capsys)


@pytest.mark.parametrize("spelling", [
    ["--over", "tie_breaking[0].probs.1=0:0.4:2"],
    ["--vary", "tie_breaking[0].probs.1=0:0.4:2"],  # a second --vary PATH=START:STOP:N is the curve
])
def test_curve_spellings_with_out_write_ends_that_verify(tmp_path, capsys, spelling):
    """The boundary curve (`--over` or a second `--vary` grid, `--workers 2`, `--out`): every boundary's ends verify."""
    code = main(["boundary", str(TIE), "--vary", "streams[1].rate=0.5:0.8", *spelling, "--tol", "0.005", "--workers", "2",
                 "--json", "--out", str(tmp_path / "ends")])
    doc = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0 and len(doc["boundaries"]) == 2
    for b in doc["boundaries"]:
        ends = _ends_of(b)
        _check_written(ends, "streams[1].rate", capsys)
        for side in ("stable", "unstable"):  # the over value is in the written network too
            probs = certify.load(ends[side]["network"]).tie_breaking[0].probs
            assert dict(probs)["1"] == F(b["over_value"])


def test_several_files_with_out_text(tmp_path, capsys):
    """Several files in text mode with --out: each boundary's lines name files that load and verify."""
    other = tmp_path / "two.json"
    other.write_text(json.dumps(TWO))
    code, text, _ = cli(capsys, "boundary", TIE, other, "--load", "0.5:1.5", "--tol", "0.1", "--out", tmp_path / "ends")
    assert "boundaries bracketed" in text
    pairs = [line.split("certify verify ")[1].split() for line in text.splitlines() if "certify verify" in line]
    assert code == 0 and len(pairs) == 4
    for net_path, cert_path in pairs:
        assert main(["verify", net_path, cert_path]) == 0
        certify.load(net_path)


def test_python_write_and_boundaries_write(tmp_path):
    """`BoundaryResult.write(dir)` (one bracket) and each result of `certify.boundaries` write ends that load and verify."""
    res = certify.boundary(certify.load(TIE), "streams[1].rate", "0.5", "0.7", tol="0.005")
    paths = res.write(tmp_path / "one")
    _check_written({s: {**paths[s], "value": str(getattr(res, f"{s}_at"))} for s in paths}, "streams[1].rate")
    curve = certify.boundaries([certify.load(TIE)], "streams[1].rate", "0.5", "0.8", over="tie_breaking[0].probs.1=0:0.4:2",
                               tol="0.005")
    for task in curve.tasks:
        r = curve.results[task.index]
        p = r.write(tmp_path / f"c{task.index}")
        _check_written({s: {**p[s], "value": str(getattr(r, f"{s}_at"))} for s in p}, "streams[1].rate")


# ---------------------------------------------------------------- issue 19.2: two crossings, both bracketed

def _sides_right(res) -> None:
    """Each crossing's ends carry certificates of their own side, which verify against the network at that end."""
    for c in res.crossings:
        for side in ("stable", "unstable"):
            cert = c.certificates[side]
            assert KIND_SIDE[cert["kind"]] == side
            assert verify(certify.from_dict(c.documents[side]), cert).ok


def test_two_crossings_in_a_service_rate_are_both_bracketed():
    """mu1 in [0.3, 10]: one bracket around mu1 + mu2 = 1.5 and one around d1(mu1) = mu3 (subsystem CTMC), sides right."""
    res = boundary(certify.from_dict(TWO), "stations.1.mu", "0.3", "10", tol="0.05")
    assert res.bracketed and len(res.crossings) == 2, res.lines()
    low, high = res.crossings
    assert low.unstable_at < F(1, 2) < low.stable_at and low.orientation == -1  # closed form: mu1 + mu2 = 1.5
    assert high.stable_at < high.unstable_at and high.width <= F(1, 20)
    d_s, lost_s = criteria.subsystem_throughput(1.5, 0.5, mu1=float(high.stable_at), mu2=1.0)
    d_u, lost_u = criteria.subsystem_throughput(1.5, 0.5, mu1=float(high.unstable_at), mu2=1.0)
    assert max(lost_s, lost_u) < 1e-9 and d_s < 1 < d_u  # station 3's load d1 / mu3 crosses 1 inside
    _sides_right(res)
    text = "\n".join(res.lines())
    assert "no crossing" not in text and "crossing 1:" in text and "crossing 2:" in text
    assert any("at least 2 times" in n for n in res.notes)


def test_two_crossings_in_a_tie_probability_on_a_gadget_pair():
    """The tie probability in [0.02, 0.98] on a symmetric gadget pair: both crossings bracketed, each around the CTMC value."""
    res = boundary(certify.from_dict(GADGETS), "tie_breaking[0].probs.1", "0.02", "0.98", tol="0.02")
    assert len(res.crossings) == 2, res.lines()
    low, high = res.crossings
    assert low.unstable_at < low.stable_at <= high.stable_at < high.unstable_at
    d = {g: criteria.subsystem_throughput(1.0, float(g))[0] for g in (low.unstable_at, low.stable_at,
                                                                     high.stable_at, high.unstable_at)}
    assert d[low.unstable_at] < 0.45 < d[low.stable_at]  # station 4: 0.45 + (1 - d1) crosses mu4 = 1
    assert d[high.stable_at] < 0.55 < d[high.unstable_at]  # station 3: 0.45 + d1 crosses mu3 = 1
    _sides_right(res)


def test_cli_two_crossings_text_json_and_out(tmp_path, capsys):
    """The CLI prints each bracket, never "no crossing"; --json lists both; --out writes crossing-1/ and crossing-2/."""
    net = tmp_path / "two.json"
    net.write_text(json.dumps(TWO))
    code, text, _ = cli(capsys, "boundary", net, "--vary", "stations.1.mu=0.3:10", "--out", tmp_path / "t")
    assert code == 0 and "no crossing" not in text and "both ends" not in text
    assert "2 crossings found" in text and "crossing 1:" in text and "crossing 2:" in text
    assert "crossing 2 unstable:" in text
    code = main(["boundary", str(net), "--vary", "stations.1.mu=0.3:10", "--json", "--out", str(tmp_path / "j")])
    doc = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0 and len(doc["crossings"]) == 2
    (c1, c2) = doc["crossings"]
    assert F(c1["unstable_at"]) < F(1, 2) < F(c1["stable_at"]) and F(c2["stable_at"]) < F(c2["unstable_at"])
    for i, c in enumerate(doc["crossings"], 1):
        assert Path(c["certificates"]["stable"]["network"]).parent == tmp_path / "j" / f"crossing-{i}"
        _check_written({s: {**c["certificates"][s], "value": c[f"{s}_at"]} for s in ("stable", "unstable")},
                       "stations.1.mu", capsys)


def test_grid_zero_keeps_plain_bisection_and_says_only_what_was_shown():
    """With no grid, both ends unstable is "no crossing found" with the counts, never a claim that none exists."""
    res = boundary(certify.from_dict(TWO), "stations.1.mu", "0.3", "10", grid=0)
    assert res.crossings == [] and not res.bracketed
    assert res.stopped.startswith("no crossing found in [0.3, 10]: 2 of 2 probes proved unstable, none proved stable")
    assert "not excluded" in res.stopped


def test_time_limit_stops_the_grid():
    """A spent time limit stops the search on the grid (the ends only), and that is what it says."""
    res = boundary(certify.from_dict(TWO), "stations.1.mu", "0.3", "10", time_limit=0.0)
    assert res.stopped == "time limit reached on the grid (0 of 7 interior points probed)"
    assert len(res.steps) == 2 and res.crossings == []


def test_bad_grid_is_refused_naming_the_option(tmp_path, capsys):
    """A grid that is not an integer from 0 to 1000 is one error naming --grid (Python and the command)."""
    with pytest.raises(CertifyError, match="--grid"):
        boundary(certify.from_dict(TWO), "stations.1.mu", "0.3", "10", grid=-1)
    from certify.cli.boundary_command import cmd_boundary
    from certify.cli.parser import build_parser

    net = tmp_path / "two.json"
    net.write_text(json.dumps(TWO))
    args = build_parser().parse_args(["boundary", str(net), "--vary", "stations.1.mu=0.3:10"])
    args.grid = "x"  # as an option --grid N would give it
    with pytest.raises(CertifyError) as exc:
        cmd_boundary(args)
    assert "--grid" in one_line(str(exc.value))


def test_explain_reads_each_crossing_and_refuses_one_not_found():
    """`explain(side, crossing=i)` gives the proof of crossing i's end; a crossing not found is a ValueError naming it."""
    res = boundary(certify.from_dict(TWO), "stations.1.mu", "0.3", "10", tol="0.5")
    assert len(res.crossings) == 2
    assert "not positive recurrent" in res.explain("unstable", crossing=2).title
    with pytest.raises(ValueError, match="crossing: 3 is not one of the 2 crossings"):
        res.explain("stable", crossing=3)


def test_an_undecided_end_without_a_crossing_is_named_with_its_nearest_proved_probe():
    """No crossing, the lower end undecided and every proved probe unstable: the note names the end and the nearest probe."""
    from certify.workflows.crossings import notes

    got = notes({F(1, 2): "undecided", F(51, 100): "unstable", F(6, 5): "unstable"}, F(1, 2), F(6, 5), 7)
    assert got == ["the end 0.5 was not proved either way: a crossing between it and 0.51 (proved unstable), or beyond "
                   "it, is not excluded (a wider interval may bracket it)"]



def _stable_on_one_to_two(v: F) -> str:
    """Stable on the open stretch (1, 2) of [0, 4] only."""
    return "stable" if 1 < v < 2 else "unstable"


def test_short_probes_left_undecided_are_probed_whole_and_both_crossings_found():
    """Grid points a short probe leaves undecided between same-side probes get a whole probe later; both crossings show."""
    from certify.workflows.crossings import brackets, grid_points, search

    seen: dict[F, str] = {}
    whole: list[F] = []
    short: list[F] = []

    def probe(v: F) -> str:
        whole.append(v)
        seen[v] = _stable_on_one_to_two(v)
        return seen[v]

    def confirm(v: F) -> str:
        short.append(v)
        seen[v] = "undecided"
        return "undecided"

    stopped = search(F(0), F(4), F(1, 8), 7, probe, float("inf"), confirm=confirm)
    # both ends are unstable: all seven grid points get the short probe; then whole ones in the grid's order until
    # 3/2 shows the stable stretch, whose brackets are bisected before the last two grid points get theirs
    assert short == grid_points(F(0), F(4), 7)
    assert whole[:7] == [F(0), F(4), *short[:5]] and whole[-2:] == short[5:]
    assert stopped == "each of the 2 brackets is at most 0.125 wide"
    assert brackets(seen) == [(F(1), F(9, 8)), (F(15, 8), F(2))]


def test_a_grid_point_between_opposite_sides_gets_the_whole_probe():
    """The short probe is only for a point whose nearest proved neighbours agree; between stable and unstable it is whole."""
    from certify.workflows.crossings import same_side, search

    short: list[F] = []
    ends = {F(0): "stable", F(4): "unstable"}
    search(F(0), F(4), F(1, 8), 1, lambda v: ends.get(v, "undecided"), float("inf"),
           confirm=lambda v: short.append(v) or "undecided")
    assert short == []
    assert same_side({F(0): "unstable", F(1): "undecided", F(4): "unstable"}, F(2))
    assert not same_side({F(0): "unstable", F(1): "stable", F(4): "unstable"}, F(2))


def test_boundary_gives_same_side_grid_points_the_short_share_and_names_those_left_undecided(monkeypatch):
    """boundary proves a grid point between same-side probes with SHORT_SHARE of the probe time; left undecided, a note names it."""
    import time

    import certify.proof.pipeline as pipeline
    from certify.proof.result import Result
    from certify.workflows.boundary import SHORT_SHARE

    real = pipeline.prove
    calls: list[tuple[F, float]] = []
    start = time.perf_counter()

    def prove(net, opts):
        calls.append((net.stations[0].mu, opts.time_limit))
        if opts.time_limit == 4.0 * SHORT_SHARE:  # the short probe: it decides nothing, and the run's time runs out
            time.sleep(max(0.0, start + 3.2 - time.perf_counter()))
            return Result(net.name)
        return real(net, opts)

    monkeypatch.setattr(pipeline, "prove", prove)
    # the ends 0.3 and 10 are unstable (station 2 alone overloaded; station 1's output overloads 3), so the first grid
    # point, 5.15, lies between two unstable probes
    res = boundary(certify.from_dict(TWO), "stations.1.mu", "0.3", "10", grid=3, point_limit=4.0, time_limit=3.0)
    assert [v for v, _ in calls[:2]] == [F(3, 10), F(10)] and res.steps[1].verdict == "unstable"
    assert calls[2:] == [(F(103, 20), 4.0 * SHORT_SHARE)]
    assert "short probe" in res.steps[2].method and res.steps[2].verdict == "undecided"
    assert ("1 grid point between two probes proved on the same side was probed for 0.25 of the probe time only and "
            "not decided (at 5.15)") in res.notes


def _stable_below_undecided_around_half(v: F) -> str:
    """Stable below 0.45, unstable above 0.55, undecided between."""
    return "stable" if v < F(45, 100) else "unstable" if v > F(55, 100) else "undecided"


def test_of_two_equal_halves_the_placed_point_leaving_the_narrower_bracket_is_probed_first():
    """After an undecided midpoint, the placed point that leaves the narrower bracket if proved is probed first."""
    from certify.workflows.crossings import search

    order: list[F] = []
    points = {(F(0), F(1, 2)): F(1, 10), (F(1, 2), F(1)): F(7, 10)}  # steps 1/10 from 0 and 3/10 from 1

    def probe(v: F) -> str:
        order.append(v)
        return _stable_below_undecided_around_half(v)

    search(F(0), F(1), F(1, 100), 0, probe, float("inf"), place=lambda gap, verdicts: points.get(gap))
    assert order[:4] == [F(0), F(1), F(1, 2), F(7, 10)]


def test_a_wide_gaps_midpoint_goes_before_a_point_creeping_by_a_small_step():
    """A placed point that would narrow its bracket less than a wider gap's midpoint is probed after that midpoint."""
    from certify.workflows.crossings import search

    order: list[F] = []

    def probe(v: F) -> str:
        order.append(v)
        return _stable_below_undecided_around_half(v)

    search(F(0), F(1), F(1, 100), 0, probe, float("inf"),
           place=lambda gap, verdicts: (gap[0] + F(1, 100), "stable") if gap == (F(0), F(1, 2)) else None)
    assert order[:4] == [F(0), F(1), F(1, 2), F(3, 4)]  # 1/100 would narrow [0, 1] by 1/100, 3/4 by 1/4


def test_without_placed_points_the_lower_half_is_probed_first():
    """With no placement, the lower of two equal halves is bisected first (plain bisection's order)."""
    from certify.workflows.crossings import search

    order: list[F] = []

    def probe(v: F) -> str:
        order.append(v)
        return _stable_below_undecided_around_half(v)

    search(F(0), F(1), F(1, 100), 0, probe, float("inf"))
    assert order[:4] == [F(0), F(1), F(1, 2), F(1, 4)]


def test_boundary_placement_counts_only_the_named_points_that_were_probed(monkeypatch):
    """A point the placement named for a half that was not probed is not remembered as a placed probe."""
    import certify.workflows.boundary as bd

    seen: list[set[F]] = []

    def placed_point(gap, verdicts, estimates, placed):
        seen.append(set(placed))
        return ((gap[0] + 3 * gap[1]) / 4, "stable") if gap[0] == 0 else None

    monkeypatch.setattr(bd, "placed_point", placed_point)
    place = bd._placer({})
    verdicts = {F(0): "stable", F(1): "unstable", F(1, 2): "undecided"}
    assert place((F(0), F(1, 2)), verdicts) == (F(3, 8), "stable")  # named, and then not probed:
    assert place((F(1, 2), F(1)), verdicts) is None
    verdicts[F(3, 4)] = "undecided"  # the other half's midpoint was
    place((F(0), F(1, 2)), verdicts)  # named again, and probed this time
    verdicts[F(3, 8)] = "undecided"
    place((F(3, 8), F(1, 2)), verdicts)
    assert seen == [set(), set(), set(), {F(3, 8)}]


def test_a_placed_point_in_a_narrow_gap_goes_before_a_wider_gaps_midpoint():
    """A placed point that would leave the bracket narrow is probed before the midpoint of a wider gap elsewhere."""
    from certify.workflows.crossings import search

    order: list[F] = []
    hard = {F(1, 2), F(3, 4)}  # two probes no search decides, one just past the boundary 0.4, one far past it

    def probe(v: F) -> str:
        order.append(v)
        return "undecided" if v in hard else "stable" if v < F(2, 5) else "unstable"

    def place(gap, verdicts):
        return (F(43, 100), "unstable") if gap == (F(1, 4), F(1, 2)) else None

    search(F(0), F(1), F(1, 100), 3, probe, float("inf"), place=place)
    # the grid: 1/2 and 3/4 undecided, 1/4 stable; gaps (1/4, 1/2) and (3/4, 1): the placed 0.43 leaves [1/4, 0.43]
    assert order[:6] == [F(0), F(1), F(1, 2), F(1, 4), F(3, 4), F(43, 100)]


def test_placement_steps_past_a_probe_undecided_beyond_the_zone():
    """On the synthetic zone, with a probe just past its unstable edge left undecided and a hard stretch above, the
    placed search brackets the boundary within 0.01 below that probe instead of bisecting the hard stretch."""
    from certify.workflows.boundary import _placer
    from certify.workflows.crossings import brackets, search
    from tests.test_placement import BOUND, _zone_probe

    seen: dict = {}
    est: dict = {}
    zone = _zone_probe(seen, est)
    short = F(5, 8)  # past the zone (its unstable edge is near 0.617), but this probe runs short of time

    def probe(v: F) -> str:
        verdict = zone(v)
        if v == short or F(7, 10) <= v <= F(9, 10):
            seen[v] = "undecided"
            if v != short:  # the hard stretch leaves no estimate either
                del est[v]
            return "undecided"
        return verdict

    search(F(1, 2), F(1), F(1, 100), 3, probe, float("inf"), place=_placer(est))
    (a, b), = brackets(seen)
    assert a < BOUND < b < short and b - a <= F(1, 100)
    assert len(seen) <= 8
