"""The empty-state pre-checks: Emptiable guards every stability stage, Reachability only the Markovian ones."""

import json

from certify.cli import main
from certify.proof.pipeline import prove

FB12 = {"format": "jsq-network/1", "name": "fb12", "stations": {"1": {"mu": 1}, "2": {"mu": 1}},
        "streams": [{"choice": ["1"], "rate": 0.4}], "feedback": [{"from": "1", "choice": ["1", "2"], "prob": 1}]}


def test_feedback_into_own_set_proves_stable_by_fluid(tmp_path, capsys):
    """Station 1 feeding back into JSQ{1, 2} (2 exits) gets a fluid certificate, which verify accepts."""
    f, cert = tmp_path / "fb12.json", tmp_path / "fb12.cert.json"
    f.write_text(json.dumps(FB12))
    assert main(["prove", str(f), "--out", str(cert)]) == 0
    out = capsys.readouterr().out
    assert "verdict: stable (general; fluid linear Lyapunov certificate)" in out
    assert "the verdict is for the tie-breaking given, not for every tie-breaking rule" in out
    assert main(["verify", str(f), str(cert)]) == 0


def test_tie_that_never_moves_on_stops_every_stage():
    """With ties in {1, 2} always sent to 1 the last customer cycles at 1: no stability verdict is searched."""
    doc = dict(FB12, tie_breaking=[{"set": ["1", "2"], "probs": {"1": 1, "2": 0}}])
    from certify.io.loader import from_dict

    res = prove(from_dict(doc), simulate=False)
    assert res.verdict == "undecided" and res.certificate is None
    assert any("not shown to empty when no customer arrives (station 1:" in r for r in res.reasons)
