"""The piecewise-quadratic template: proofs, refusals, continuity, and an independent state-by-state drift check."""

import copy
import re
import subprocess
import sys
from collections import defaultdict
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import certify
from certify.exact import check_foster
from certify.io.loader import from_dict, load
from certify.markov.chain import Chain, compile_chain
from certify.markov.drift import compile_drifts
from certify.search.template import search_template
from certify.templates import TEMPLATES
from certify.templates.piecewise import PiecewiseQuadratic
from certify.templates.quadratic import Quadratic
from tests.conftest import assert_runs_without_numpy
from tests.test_independent_drift import drift

ROOT_MODELS = Path(__file__).resolve().parents[1] / "models"


def network(mus, streams, feedback=(), name="net"):
    """A jsq-network/1 network from station rates, (choice, rate) streams and (from, choice, prob) feedback."""
    ids = [str(i + 1) for i in range(len(mus))]
    return from_dict(
        {
            "format": "jsq-network/1",
            "name": name,
            "stations": {s: {"mu": m} for s, m in zip(ids, mus)},
            "streams": [{"choice": list(c), "rate": r} for c, r in streams],
            "feedback": [{"from": f, "choice": list(c), "prob": p} for f, c, p in feedback],
        }
    )


# The DHK distribution counterexample with station 3's own stream at 0.12 (true boundary 0.25):
# the plain quadratic cannot prove it, the piecewise quadratic can.
CE_DIST_012 = (
    (1, 1, 1),
    [(("1", "2"), 1.5), (("3",), 0.12)],
    [("1", ("3",), 1)],
)


def prove_piecewise(net):
    """prove with the piecewise template only, and re-check the written certificate."""
    res = certify.prove(net, templates=["piecewise"])
    assert res.verdict == "stable", res.reasons
    assert res.certificate["template"] == "piecewise"
    chk = certify.verify(net, res.certificate)
    assert chk.ok, chk.failures
    return res


# ---------------------------------------------------------------- proofs


def test_proves_mm1():
    """An M/M/1 queue (no walls: one cell) is proved stable and its certificate verifies."""
    res = prove_piecewise(network([2], [(("1",), 1)]))
    assert list(res.certificate["coefficients"]) == ["P[all][1,1]"]


def test_proves_symmetric_two_station_jsq():
    """Symmetric two-station JSQ at load 0.95 is proved stable with two pieces and one wall vector."""
    res = prove_piecewise(network([1, 1], [(("1", "2"), 1.9)]))
    names = set(res.certificate["coefficients"])
    assert {"P[1>=2][1,1]", "P[1<=2][2,2]", "t[1>=2/1<=2][1]"} <= names


def test_proves_heterogeneous_two_station_feedback(corpus_dir):
    """A two-station network with heterogeneous feedback (DHK, 3% below the boundary) is proved stable."""
    prove_piecewise(load(corpus_dir / "dhk2-B-m0.97.json"))


def test_proves_symmetric_three_station_jsq():
    """Symmetric three-station JSQ at load 0.95 (six ordering cells) is proved stable."""
    res = prove_piecewise(network([1, 1, 1], [(("1", "2", "3"), 2.85)]))
    cells = {re.match(r"P\[(.*)\]\[", n).group(1) for n in res.certificate["coefficients"] if n.startswith("P[")}
    assert len(cells) == 6


def test_proves_heterogeneous_three_station_jsq():
    """Heterogeneous three-station M/M-JSQ (mu = 1, 2, 3 at load 0.85) is proved stable."""
    prove_piecewise(load(ROOT_MODELS / "mm-jsq-heterogeneous.json"))


def test_proves_homogeneous_feedback_three_stations(corpus_dir):
    """Three stations with homogeneous feedback into choice sets (DHK, 3% below the boundary) are proved stable."""
    prove_piecewise(load(corpus_dir / "dhk-hom-J3-s12-m0.97.json"))


def test_proves_what_the_quadratic_cannot():
    """On a DHK counterexample network at half its boundary load no plain quadratic exists, a piecewise one does."""
    net = network(*CE_DIST_012)
    chain = compile_chain(net)
    assert not search_template(Quadratic(chain, compile_drifts(chain))).found
    prove_piecewise(net)


# ---------------------------------------------------------------- refusals


def test_never_proves_unstable(corpus_dir):
    """Networks past their boundary (tie-breaking counterexample, two-station feedback) are never called stable."""
    for name in ("ce-tie-expA-g1.00.json", "dhk2-B-m1.03.json", "mmjsq-k2-m1.05.json"):
        net = load(corpus_dir / name)
        assert certify.prove(net, templates=["piecewise"]).verdict != "stable", name
    chain = compile_chain(load(corpus_dir / "ce-tie-expA-g1.00.json"))
    assert not search_template(PiecewiseQuadratic(chain, compile_drifts(chain))).found


def test_stable_certificate_refused_past_the_boundary():
    """A certificate for symmetric JSQ at load 0.9 is refused exactly for the same network at load 1.05."""
    res = prove_piecewise(network([1, 1], [(("1", "2"), 1.8)]))
    theta = {n: Fraction(v) for n, v in res.certificate["coefficients"].items()}
    over = compile_chain(network([1, 1], [(("1", "2"), 2.1)]))
    chk = check_foster(over, "piecewise", theta)
    assert not chk.ok and any("drift slope" in f for f in chk.failures)


def test_changed_coefficient_refused():
    """Changing one coefficient of a certificate (a wall vector, a piece entry) makes it invalid."""
    net = network(*CE_DIST_012)
    cert = prove_piecewise(net).certificate
    chain = compile_chain(net)
    theta = {n: Fraction(v) for n, v in cert["coefficients"].items()}
    for name in ("t[1>=2/1<=2][3]", "P[1<=2][1,3]", "P[1>=2][3,3]"):
        bad = dict(theta)
        bad[name] += Fraction(1, 1024)
        chk = check_foster(chain, "piecewise", bad)
        assert not chk.ok and any("continuity" in f for f in chk.failures), name
        edited = copy.deepcopy(cert)
        edited["coefficients"][name] = str(bad[name])
        assert not certify.verify(net, edited).ok
    mm1 = network([2], [(("1",), 1)])
    assert not check_foster(compile_chain(mm1), "piecewise", {"P[all][1,1]": Fraction(-1)}).ok


def test_declines_phases_and_large_networks():
    """Phase-type chains and networks beyond four stations get no option sets, and the checker refuses them."""
    assert PiecewiseQuadratic.escalation(SimpleNamespace(has_phases=True, J=2)) == []
    F = Fraction
    big = Chain(tuple("12345"), (F(1),) * 5, ((tuple(range(5)), F(4)),), (), (F(1),) * 5)
    assert PiecewiseQuadratic.escalation(big) == []
    chk = check_foster(big, "piecewise", {})
    assert not chk.ok and "at most 4 stations" in chk.failures[0]


def test_registered_after_existing_templates():
    """The template is registered as "piecewise", after the quadratic and table templates."""
    names = list(TEMPLATES)
    assert TEMPLATES["piecewise"] is PiecewiseQuadratic
    assert names.index("piecewise") > max(names.index("quadratic"), names.index("table"))


def test_cli_prove_and_verify(tmp_path):
    """``certify prove <model> --template piecewise`` prints verdict stable, and ``certify verify`` accepts the file."""
    cert = tmp_path / "cert.json"
    model = str(ROOT_MODELS / "two-station-feedback.json")
    out = subprocess.run(
        [sys.executable, "-m", "certify.cli", "prove", model, "--template", "piecewise", "--out", str(cert)],
        capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stderr
    assert "verdict: stable" in out.stdout and "piecewise Foster" in out.stdout
    out = subprocess.run([sys.executable, "-m", "certify.cli", "verify", model, str(cert)], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("valid"), out.stdout + out.stderr


def test_checker_imports_no_numpy():
    """Checking a piecewise certificate exactly never imports numpy, scipy or cvxpy."""
    code = (
        "import sys\n"
        "from fractions import Fraction as F\n"
        "from certify.markov.chain import Chain\n"
        "from certify.exact import check_foster\n"
        "ch = Chain(('1', '2'), (F(1), F(2)), (((0, 1), F(2)),), (), (F(1), F(1)))\n"
        "th = {n: F(0) for n in ('t[1>=2/1<=2][1]', 't[1>=2/1<=2][2]', 'P[1>=2][1,2]', 'P[1<=2][1,2]')}\n"
        "th.update({n: F(1) for n in ('P[1>=2][1,1]', 'P[1>=2][2,2]', 'P[1<=2][1,1]', 'P[1<=2][2,2]')})\n"
        "res = check_foster(ch, 'piecewise', th)\n"
        "assert res.ok, res.failures\n"
    )
    assert_runs_without_numpy(code)


# ---------------------------------------------------------------- independent truth

PIECE = re.compile(r"^P\[(.*)\]\[([^,\]]+),([^,\]]+)\]$")


def pieces(cert):
    """{cell label: {(a, b): P_ab}} from the certificate's coefficient names."""
    out = defaultdict(dict)
    for name, v in cert["coefficients"].items():
        m = PIECE.match(name)
        if m:
            cell, a, b = m.groups()
            out[cell][(a, b)] = out[cell][(b, a)] = Fraction(v)
    return dict(out)


def conditions(cell):
    """[(a, b)] meaning x_a >= x_b, parsed from a label like ``1>=2,1<=3``."""
    if cell == "all":
        return []
    out = []
    for cond in cell.split(","):
        if ">=" in cond:
            a, b = cond.split(">=")
            out.append((a, b))
        else:
            a, b = cond.split("<=")
            out.append((b, a))
    return out


def lyapunov(cert, ids):
    """V(x) from the pieces, locating x's cells by comparing queues; asserts all cells containing x agree."""
    P = pieces(cert)
    conds = {c: conditions(c) for c in P}
    pos = {s: i for i, s in enumerate(ids)}

    def V(x):
        vals = {
            c: sum(P[c][(a, b)] * x[pos[a]] * x[pos[b]] for a in ids for b in ids)
            for c in P
            if all(x[pos[a]] >= x[pos[b]] for a, b in conds[c])
        }
        assert vals, x
        assert len(set(vals.values())) == 1, (x, vals)  # continuity: every piece whose cell holds x agrees
        return next(iter(vals.values()))

    return V


def random_states(rng, J, N, walls, count):
    """States with |x|_1 >= N: many on or next to walls (|x_a - x_b| <= 3), some with small or empty queues."""
    for _ in range(count):
        x = [int(v) for v in rng.integers(0, 2 * N // J + 2, size=J)]
        if walls and rng.random() < 0.7:
            a, b = walls[int(rng.integers(len(walls)))]
            x[b] = max(0, x[a] + int(rng.integers(-3, 4)))
            if rng.random() < 0.3:  # a second wall too
                c, d = walls[int(rng.integers(len(walls)))]
                x[d] = max(0, x[c] + int(rng.integers(-3, 4)))
        if rng.random() < 0.3:
            x[int(rng.integers(J))] = int(rng.integers(0, 3))
        if rng.random() < 0.2:  # one queue dominates, the others small
            k = int(rng.integers(J))
            x = [int(rng.integers(0, 4)) if i != k else N + int(rng.integers(0, N)) for i in range(J)]
        while sum(x) < N:
            x[int(rng.integers(J))] += N - sum(x)
        yield tuple(x)


INDEPENDENT = [
    ("corpus", "dhk2-B-m0.97.json"),
    ("net", CE_DIST_012),
    ("corpus", "dhk-hom-J3-s12-m0.97.json"),
    ("corpus", "tail-k4-het.json"),
]


@pytest.mark.parametrize("kind,spec", INDEPENDENT, ids=["dhk2-B", "ce-dist-lam3-0.12", "dhk-hom-J3", "tail-k4-het"])
def test_independent_drift_beyond_bound(corpus_dir, kind, spec):
    """At random states beyond the certified bound (many on or next to walls), AV(x) <= -delta from the JSQ rules."""
    net = load(corpus_dir / spec) if kind == "corpus" else network(*spec)
    cert = prove_piecewise(net).certificate
    ids = net.station_ids
    delta = Fraction(cert["claims"]["delta"])
    N = int(Fraction(cert["claims"]["exceptional_set"]["bound"]))
    V = lyapunov(cert, ids)
    walls = sorted({(a, b) for c in pieces(cert) for a, b in conditions(c)})
    walls = [(ids.index(a), ids.index(b)) for a, b in walls]
    rng = np.random.default_rng(11)
    for x in random_states(rng, net.J, N, walls, 250):
        assert V(x) >= 0, x
        assert drift(net, V, x) <= -delta, x


def test_continuity_exact(corpus_dir):
    """Adjacent pieces differ by h t' + t h' exactly: x'(P_+ - P_-)x vanishes on the whole wall x_a = x_b."""
    for kind, spec in INDEPENDENT:
        net = load(corpus_dir / spec) if kind == "corpus" else network(*spec)
        cert = prove_piecewise(net).certificate
        ids = list(net.station_ids)
        P = pieces(cert)
        conds = {c: set(conditions(c)) for c in P}
        pairs = 0
        for c1 in P:
            for c2 in P:
                diff = conds[c1] - conds[c2]
                if len(diff) != 1 or len(conds[c2] - conds[c1]) != 1:
                    continue
                (a, b), = diff
                pairs += 1
                # h-perp is spanned by e_k (k not a, b) and e_a + e_b; D = P_c1 - P_c2 must vanish on it.
                basis = [{k: 1} for k in ids if k not in (a, b)] + [{a: 1, b: 1}]
                for u in basis:
                    for v in basis:
                        val = sum(
                            (P[c1][(i, j)] - P[c2][(i, j)]) * ui * vj for i, ui in u.items() for j, vj in v.items()
                        )
                        assert val == 0, (spec, c1, c2, u, v)
        assert pairs > 0


@pytest.mark.parametrize("kind,spec", INDEPENDENT[:3] + [("corpus", "dhk-hom-J4-s13-m0.90.json")],
                         ids=["dhk2-B", "ce-dist-lam3-0.12", "dhk-hom-J3", "dhk-hom-J4"])
def test_affine_drift_equals_generator(corpus_dir, kind, spec):
    """For random continuous pieces, the template's affine drift on a refined region equals AV(x) from the JSQ rules."""
    net = load(corpus_dir / spec) if kind == "corpus" else network(*spec)
    chain = compile_chain(net)
    tm = PiecewiseQuadratic(chain, compile_drifts(chain))
    rng = np.random.default_rng(5)
    sub = tm._substitution()
    vals = {v: Fraction(int(rng.integers(-64, 65)), 16) for v in range(tm.np_vars) if sub[v] == {v: 1}}
    theta = [sum((q * vals[u] for u, q in expr.items()), Fraction(0)) for expr in sub]
    assert not [f for f in tm.check_side(theta) if "continuity" in f]
    V = lyapunov({"coefficients": dict(zip(tm.variables(), theta))}, net.station_ids)
    affine, s = tm.affine_drifts(theta)
    walls = list(tm.arr.walls)
    unbounded = [r for r, rd in enumerate(tm.drifts) if rd.generators]
    checked = 0
    for x in random_states(rng, net.J, 12, walls, 300):
        here = [r for r in unbounded if tm.drifts[r].region.contains(x)]
        if not here:
            continue  # a bounded refined region
        assert len(here) == 1, x  # the refined regions partition the states
        a, c = affine[here[0]]
        assert drift(net, V, x) == Fraction(sum(ai * xi for ai, xi in zip(a, x)) + c, s), x
        checked += 1
    assert checked > 150
