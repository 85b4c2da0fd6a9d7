"""Every verdict's claim matches its theorem: Dai's interarrival conditions are checked on the network."""

from fractions import Fraction as F

import certify
from certify.exact.theory import Hypotheses, jackson, theorem_verdicts, two_station
from certify.io.loader import from_dict
from certify.markov.chain import compile_chain


def _single(rate, mu=2, arrival="deterministic", service="deterministic"):
    return from_dict({
        "format": "jsq-network/1",
        "name": "g1",
        "stations": {"1": {"mu": mu, "service": {"dist": service}}},
        "streams": [{"choice": ["1"], "rate": rate, "interarrival": {"dist": arrival}}],
    })


def test_dd1_is_undecided_with_the_fluid_model_proved():
    """A D/D/1 queue at load 0.5 is undecided: the fluid model is proved stable, Dai's conditions are named as missing."""
    res = certify.prove(_single(1), simulate=False)
    assert res.verdict == "undecided" and res.certificate is None
    assert any(r.startswith("the fluid model is stable: checked exactly") for r in res.reasons)
    assert any("Dai" in r and "streams[0]: deterministic" in r for r in res.reasons)


def test_dd1_theorems_are_not_proofs():
    """The Jackson and no-feedback theorems report 'stable' on a D/D/1 queue as unproved, naming the failing stream."""
    res = certify.prove(_single(1), simulate=False)
    assert res.theorems and all(not t["proved"] and "streams[0]" in t["missing"][0] for t in res.theorems)


def test_dd1_simulation_evidence_leaves_it_undecided():
    """Simulation evidence on a D/D/1 queue is reported but the verdict stays undecided (not positive Harris recurrent)."""
    res = certify.prove(_single(1), sim_budget=2)
    assert res.verdict == "undecided" and res.certificate is None
    assert res.simulation is not None
    assert any(r.startswith("the fluid model is stable: checked exactly") for r in res.reasons)


def test_deterministic_service_with_poisson_arrivals_is_stable():
    """Deterministic service with Poisson arrivals meets Dai's conditions: the fluid certificate proves stability."""
    res = certify.prove(_single(1, arrival="exponential"), simulate=False)
    assert res.verdict == "stable" and res.semantics == "general" and res.certificate["kind"] == "fluid-flow"


def test_overloaded_dd1_is_unstable_without_dai():
    """The unstable side is flow balance: an overloaded D/D/1 queue is proved unstable all the same."""
    res = certify.prove(_single(3), simulate=False)
    assert res.verdict == "unstable" and res.method.startswith("static split")


def test_theorem_stable_side_needs_dai_unstable_side_does_not():
    """jackson() proves 'stable' only with Dai's conditions, and 'unstable' without them."""
    bad = Hypotheses(("streams[0]: deterministic",))
    low, high = compile_chain(_single(1)), compile_chain(_single(3))
    assert jackson(low).proved and not jackson(low, bad).proved
    assert jackson(high, bad).proved and jackson(high, bad).verdict == "unstable"


def test_hypotheses_listed():
    """A proved theorem verdict lists the hypotheses it checked, Dai's conditions included."""
    (tv,) = [t for t in theorem_verdicts(compile_chain(_single(1, arrival="exponential")), _single(1, arrival="exponential"))
             if t.theorem.startswith("generalized Jackson")]
    assert "every choice set holds one station" in tv.hypotheses and any("spread out" in h for h in tv.hypotheses)


def test_two_station_conditions_are_a_cross_check():
    """The two-station C0/C1/C2 conditions (corpus README) are reported but never proved, so never a verdict."""
    net = from_dict({
        "format": "jsq-network/1",
        "stations": {"1": {"mu": 1}, "2": {"mu": 2}},
        "streams": [{"choice": ["1", "2"], "rate": F(1, 2)}],
        "feedback": [{"from": "1", "choice": ["2"], "prob": F(1, 5)}],
    })
    tv = two_station(compile_chain(net))
    assert tv is not None and tv.verdict == "stable" and not tv.proved and "cross-check" in tv.theorem
    res = certify.prove(net, time_limit=0, simulate=False)
    assert res.verdict == "undecided" and not res.method.startswith("theorem")
