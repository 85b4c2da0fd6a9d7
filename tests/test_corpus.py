"""Every verdict case of the public corpus: proved (Markovian or phase-type), never contradicted."""

import json
from pathlib import Path

import pytest

import certify
from certify.certificates import verify
from certify.io.loader import load
from certify.markov.laws import NotPhaseType
from certify.markov.phases import markov_chain
from tests.conftest import CORPUS

# Families with a known theorem (certify.exact.theory).
THEOREM_FAMILIES = {"dhk_homogeneous", "bramson_no_feedback", "mm_jsq_parallel", "dhk_two_station", "foley_mcdonald_gsq",
                    "jackson_singleton", "fork_join_redundancy"}
# Families whose stable cases (margin <= 0.97) must get a fluid certificate (general distributions).
FLUID_FAMILIES = {"dhk_homogeneous", "bramson_no_feedback", "dhk_two_station", "foley_mcdonald_gsq", "jackson_singleton"}


# The longest case (about 25 s, J = 8) runs in the slow run only; the same assertions hold for the
# dhk_homogeneous family in the default run through its J = 3..7 cases.
SLOW = {"dhk-hom-J8-s17-m0.90"}


def _cases():
    out = []
    for f in sorted(CORPUS.glob("*.json")):
        doc = json.loads(f.read_text())
        if "verdict" in doc.get("expected", {}):
            out.append(pytest.param(f, id=f.stem, marks=[pytest.mark.slow] if f.stem in SLOW else []))
    return out


@pytest.mark.parametrize("path", _cases())
def test_corpus_verdict(path: Path):
    """The verdict never contradicts the label, is proved where required, and its certificate re-checks."""
    net = load(path)
    expected = net.expected["verdict"]
    res = certify.prove(net)
    opposite = {"stable": "unstable", "unstable": "stable"}[expected]
    assert not any("DISAGREEMENT" in r for r in res.reasons), res.reasons  # theorem and certificate agree
    assert res.verdict != opposite, res.reasons
    assert res.verdict != f"likely-{opposite}"
    if res.certificate is not None:
        assert verify(net, res.certificate).ok
    case = dict(net.extras).get("x-case", {})
    if case.get("family") in THEOREM_FAMILIES:  # a known theorem is reported next to the certificate, and agrees
        assert res.theorems and {t["verdict"] for t in res.theorems} == {expected}, res.theorems
    if path.name.startswith("fjr-"):  # fork-join with redundancy: proved with its own certificates
        assert res.verdict == expected and res.certificate is not None, res.reasons
        return
    if case.get("family") in FLUID_FAMILIES and expected == "stable" and case.get("margin", 1) <= 0.97:
        assert res.semantics == "general" and res.certificate["kind"] in ("fluid", "fluid-flow"), res.reasons
    try:
        markov_chain(net)
    except NotPhaseType:
        return  # no Markovian form: general distributions (fluid certificates) only
    # Every Markovian or phase-type case, counterexamples included, gets the right proved verdict.
    assert res.verdict == expected and res.certificate is not None, res.reasons


def test_corpus_index_lists_every_file():
    """corpus/index.csv has one row per network file, with the family, J, margin and expected answer the file holds."""
    import csv

    with open(CORPUS.parent / "index.csv", newline="") as fh:
        rows = {r["file"]: r for r in csv.DictReader(fh)}
    files = sorted(f.name for f in CORPUS.glob("*.json"))
    assert sorted(rows) == files
    for name in files:
        doc = json.loads((CORPUS / name).read_text())
        exp, case = doc["expected"], doc.get("x-case", {})
        want = exp["verdict"] if "verdict" in exp else f"{exp['quantity']} = {exp['value']}"
        row = rows[name]
        assert (row["family"], row["J"], row["margin"], row["expected"]) == (
            case.get("family", ""), str(case.get("J", "")), str(case.get("margin", "")), want), name
