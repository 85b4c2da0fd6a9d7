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


def test_fluid_statement_claims_nothing_for_a_network_that_may_never_empty():
    """The fluid statement is 'fluid-model' (nothing about the network) when the network is not shown to empty."""
    from certify.certificates.statements import derived_claim
    from certify.io.loader import from_dict

    stuck = from_dict(dict(FB12, tie_breaking=[{"set": ["1", "2"], "probs": {"1": 1, "2": 0}}]))
    assert derived_claim("fluid", from_dict(FB12))[0] == "general"
    semantics, statement = derived_claim("fluid", stuck)
    assert semantics == "fluid-model" and "nothing is claimed about the network itself" in statement


def test_a_fluid_certificate_for_a_network_that_may_never_empty_claims_only_the_fluid_model():
    """The fluid certificate of the stuck network states 'fluid-model', and verify re-derives just that."""
    from certify.certificates import fluid_certificate, verify
    from certify.exact.stability import check_fluid
    from certify.io.loader import from_dict
    from certify.markov.chain import compile_chain

    stuck = from_dict(dict(FB12, tie_breaking=[{"set": ["1", "2"], "probs": {"1": 1, "2": 0}}]))
    chain = compile_chain(stuck)
    from fractions import Fraction

    w = [Fraction(1), Fraction(1)]
    chk = check_fluid(chain, "linear", w)
    assert chk.ok  # the fluid model itself is stable: only the step to the network fails
    cert = fluid_certificate(stuck, chain, "linear", w, chk)
    assert cert["semantics"] == "fluid-model" and "nothing is claimed about the network" in cert["statement"]
    assert verify(stuck, cert).ok
