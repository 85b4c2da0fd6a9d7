"""The checker validates every field of a certificate against the network, and derives what it claims."""

import copy
from fractions import Fraction

import pytest

import certify
from certify.certificates import (
    closed_set_certificate,
    finite_certificate,
    network_digest,
    theorem_certificate,
    verify,
)
from certify.core.envelope import _body_digest
from certify.exact import check_closed_set, check_finite, closed_set
from certify.exact.theory import theorem_verdicts
from certify.io.loader import from_dict
from certify.markov.chain import compile_chain
from certify.markov.phases import markov_chain


def net_of(stations, streams, feedback=(), ties=()):
    """A jsq-network/1 network from plain dicts."""
    doc = {"format": "jsq-network/1", "stations": stations, "streams": list(streams)}
    if feedback:
        doc["feedback"] = list(feedback)
    if ties:
        doc["tie_breaking"] = list(ties)
    return from_dict(doc)


def resealed(cert, **changes):
    """A copy of ``cert`` with top-level ``changes`` and a recomputed digest (a forger's edit)."""
    out = copy.deepcopy(cert)
    out.update(changes)
    out["digest"] = _body_digest(out)
    return out


TRAP = net_of(
    {"1": {"mu": 1}, "2": {"mu": 1}},
    [{"choice": ["1"], "rate": 0.5}, {"choice": ["2"], "rate": 0.1}],
    feedback=[{"from": "2", "choice": ["2"], "prob": 1}],
)
TIES = net_of(
    {"1": {"mu": 1}, "2": {"mu": 1}, "3": {"mu": 1}},
    [{"choice": ["1", "2"], "rate": 1}, {"choice": ["3"], "rate": 0.3}],
    feedback=[{"from": "1", "choice": ["3"], "prob": 1}],
    ties=[{"set": ["1", "2"], "probs": {"1": 0.3, "2": 0.7}}],
)


@pytest.fixture(scope="module")
def table_cert():
    """An exactly checked table Foster certificate for a three-station tie network."""
    res = certify.prove(TIES, templates=["table"], simulate=False, time_limit=60)
    assert res.verdict == "stable" and res.certificate["template"] == "table", res.reasons
    return res.certificate


@pytest.fixture(scope="module")
def quadratic_cert():
    """An exactly checked quadratic Foster certificate for an M/M-JSQ pair."""
    net = net_of({"1": {"mu": 1}, "2": {"mu": 2}}, [{"choice": ["1", "2"], "rate": 2}])
    res = certify.prove(net, templates=["quadratic"], simulate=False, time_limit=30)
    assert res.certificate is not None
    return net, res.certificate


def test_closed_set_certificate_verifies():
    """Customers fed back to station 2 with probability 1 give a closed-set certificate that verify accepts."""
    chain = compile_chain(TRAP)
    S = closed_set(chain)
    assert S == (1,)
    cert = closed_set_certificate(TRAP, chain, S, check_closed_set(chain, S))
    res = verify(TRAP, cert)
    assert res.ok, res.failures
    assert res.facts.semantics == "general" and res.facts.checked.inflow == Fraction(1, 10)


def test_closed_set_with_a_leaving_station_is_refused():
    """A closed-set certificate that lists a station whose customers can leave is refused."""
    chain = compile_chain(TRAP)
    cert = closed_set_certificate(TRAP, chain, (1,), check_closed_set(chain, (1,)))
    res = verify(TRAP, resealed(cert, stations=["1", "2"]))
    assert not res.ok and any("station 1: customers leave" in f for f in res.failures), res.failures


def test_finite_certificate_verifies():
    """A network whose every station has a capacity gets a finite-state certificate that verify accepts."""
    net = net_of({"1": {"mu": 1, "capacity": 3}, "2": {"mu": 1, "capacity": 2}}, [{"choice": ["1", "2"], "rate": 5}])
    chain = markov_chain(net)
    res = verify(net, finite_certificate(net, chain, check_finite(chain, [3, 2])))
    assert res.ok and res.facts.checked.states == 12, res.failures


def test_finite_certificate_for_partial_capacities_is_refused():
    """A finite-state certificate is refused when some station has no capacity, whatever its claims say."""
    full = net_of({"1": {"mu": 1, "capacity": 3}, "2": {"mu": 1, "capacity": 2}}, [{"choice": ["1", "2"], "rate": 5}])
    part = net_of({"1": {"mu": 1, "capacity": 3}, "2": {"mu": 1}}, [{"choice": ["1", "2"], "rate": 5}])
    chain = markov_chain(full)
    cert = finite_certificate(full, chain, check_finite(chain, [3, 2]))
    forged = resealed(cert, network={"name": part.name, "digest": network_digest(part)})
    res = verify(part, forged)
    assert not res.ok and any("no finite capacity" in f for f in res.failures), res.failures


def test_instability_certificate_does_not_apply_to_capacitated_network():
    """A static-split certificate of the uncapacitated network is refused with capacities: station 1's overload is lost."""
    free = net_of({"1": {"mu": 1}}, [{"choice": ["1"], "rate": 2}])
    capped = net_of({"1": {"mu": 1, "capacity": 4}}, [{"choice": ["1"], "rate": 2}])
    cert = certify.prove(free, simulate=False).certificate
    assert cert["kind"] == "static-split"
    forged = resealed(cert, network={"name": capped.name, "digest": network_digest(capped)})
    res = verify(capped, forged)
    assert not res.ok and any("lossy set {1}" in f for f in res.failures), res.failures


def test_theorem_certificate_verifies_and_names_its_hypotheses():
    """A theorem certificate is re-derived by re-running the criterion, and its statement lists the hypotheses."""
    net = net_of({"1": {"mu": 1}, "2": {"mu": 1}}, [{"choice": ["1", "2"], "rate": 1.5}])
    tv = next(t for t in theorem_verdicts(compile_chain(net), net) if t.decides)
    res = verify(net, theorem_certificate(net, tv))
    assert res.ok, res.failures
    assert tv.theorem in res.facts.statement and "hypotheses hold" in res.facts.statement


def test_theorem_that_does_not_apply_is_refused():
    """A theorem certificate naming a theorem that does not apply to the network is refused."""
    net = net_of({"1": {"mu": 1}, "2": {"mu": 1}}, [{"choice": ["1", "2"], "rate": 1.5}])
    tv = next(t for t in theorem_verdicts(compile_chain(net), net) if t.decides)
    forged = resealed(theorem_certificate(net, tv), theorem="generalized Jackson network")
    res = verify(net, forged)
    assert not res.ok and any("does not apply" in f for f in res.failures), res.failures


@pytest.mark.parametrize("value", ["2/4", "+1", "1.5", "1e3", 3, None, "1" * 3000])
def test_non_canonical_coefficient_is_refused(quadratic_cert, value):
    """A coefficient that is not a canonical 'p/q' string of bounded length is refused, naming the coefficient."""
    net, cert = quadratic_cert
    coeffs = dict(cert["coefficients"])
    name = sorted(coeffs)[0]
    coeffs[name] = value
    res = verify(net, resealed(cert, coefficients=coeffs))
    assert not res.ok and any(f"coefficients.{name}" in f for f in res.failures), res.failures


@pytest.mark.parametrize(
    "options, field",
    [
        ({"fast": ["2", "1"]}, "options.fast"),
        ({"fast": ["1", "1"]}, "options.fast"),
        ({"fast": ["1", "9"]}, "options.fast"),
        ({"multipliers": []}, "options.multipliers"),
        ({"multipliers": ["3", "1"]}, "options.multipliers"),
        ({"K": 6.9}, "options.K"),
        ({"K": True}, "options.K"),
        ({"K": 10**7}, "options.K"),
        ({"depth": 2}, "options"),
    ],
)
def test_table_options_are_validated(table_cert, options, field):
    """Reordered, repeated or unknown stations, non-integer or huge K and unknown options are refused by field."""
    forged = resealed(table_cert, options={**table_cert["options"], **options})
    res = verify(TIES, forged)
    assert not res.ok and any(f.startswith(f"malformed certificate: {field}") for f in res.failures), res.failures


def test_unknown_field_is_refused(quadratic_cert):
    """A certificate with a field its kind does not have is refused."""
    net, cert = quadratic_cert
    res = verify(net, resealed(cert, note="trust me"))
    assert not res.ok and any("unknown field" in f for f in res.failures), res.failures


def test_extra_claim_is_refused(quadratic_cert):
    """A claim the checker does not derive is refused, even next to correct claims."""
    net, cert = quadratic_cert
    res = verify(net, resealed(cert, claims={**cert["claims"], "verdict": "stable for all laws"}))
    assert not res.ok and any("claim verdict" in f for f in res.failures), res.failures


def test_statement_is_derived_not_read(quadratic_cert):
    """An edited statement is refused, and a valid certificate's facts carry the derived statement."""
    net, cert = quadratic_cert
    assert verify(net, cert).facts.statement == cert["statement"]
    res = verify(net, resealed(cert, statement=cert["statement"] + " For every distribution."))
    assert not res.ok and any(f.startswith("statement:") for f in res.failures), res.failures


@pytest.mark.parametrize("cert", [[], "x", None, 3])
def test_verify_never_raises_on_non_objects(quadratic_cert, cert):
    """A certificate that is not a JSON object is refused, not raised on."""
    net, _ = quadratic_cert
    assert not verify(net, cert).ok
