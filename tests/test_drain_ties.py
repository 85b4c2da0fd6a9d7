"""Sink drain where ties with the sink send the rest more than the rest sends itself (docs/math/drain.md, eps_t).

Truth from outside the checker: the ties' excess is re-derived by enumerating every tied pair (T_R, T_G), and it
bounds, at sampled states of the whole network, by how much N's jumps into each station of R' exceed R''s (both
generators written from the JSQ rules in tests/independent.py); the certified rate bounds the exact stationary
inflow of R' (a truncated CTMC); the proof's V decreases far out on the whole network.
"""

from __future__ import annotations

import copy
import itertools
import random
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest

import certify
from certify.core.model import Feedback, Network, Station, Stream, TieBreak
from certify.exact.drain import check_sink_drain, excess_network, feedback_excess, largest_drain_rate, tie_excess
from certify.exact.sink import reduced_network
from certify.explain import explain
from certify.io.loader import from_dict, load
from certify.markov.chain import compile_chain
from certify.markov.drift import compile_drifts
from certify.search.drain import solve_drain_rate, solve_reduced_lyapunov
from certify.stationary import stationary
from tests import independent
from tests.independent import reseal
from tests.test_drain import _stage, drain_certificate
from tests.test_sink_set import random_feedback_doc

DATA = Path(__file__).parent / "data" / "networks"


def tie_gadget_doc(mu_s: F, extra: F, share: F) -> dict:
    """A gadget (a0: mu 1, b0: mu 3/2, a JSQ stream 8/5 into {a0, b0}, ties 3/10 : 7/10, a0's output to s), the
    sink's own stream 1/2, and a stream ``extra`` into {a0, b0, s} whose three-way tie sends a0 ``share`` (s none)."""
    return {"format": "jsq-network/1", "name": "tie-gadget",
            "stations": {"s": {"mu": str(mu_s)}, "a0": {"mu": 1}, "b0": {"mu": "3/2"}},
            "streams": [{"choice": ["s"], "rate": "1/2"}, {"choice": ["a0", "b0"], "rate": "8/5"},
                        {"choice": ["a0", "b0", "s"], "rate": str(extra)}],
            "feedback": [{"from": "a0", "choice": ["s"], "prob": 1}],
            "tie_breaking": [{"set": ["a0", "b0"], "probs": {"a0": "3/10", "b0": "7/10"}},
                             {"set": ["a0", "b0", "s"], "probs": {"a0": str(share), "b0": str(1 - share), "s": "0"}}]}


def _inflow(extra: F) -> float:
    """E[u] = 1/2 + a0's throughput under R''s exact stationary law (both streams into {a0, b0}, CTMC at 40)."""
    net = from_dict(tie_gadget_doc(F(2), extra, F(1, 2)))
    red = reduced_network(net, "s").network
    return 0.5 + stationary(red, truncate=40).throughput[red.station_ids.index("a0")]


@pytest.fixture(scope="module")
def tied():
    """The tie gadget with extra = 2/5 and a0's share 1/2, the sink at 0.95 of u's exact mean, and its certificate."""
    mu_s = (F(_inflow(F(2, 5))) / F(95, 100)).limit_denominator(10**6)
    net = from_dict(tie_gadget_doc(mu_s, F(2, 5), F(1, 2)))
    return net, drain_certificate(net, "s", ["a0", "b0"], 3)


def test_the_excess_is_what_the_three_way_tie_adds_over_the_pair_tie():
    """a0 gets 1/2 of the stream 2/5 at the three-way tie and 3/10 at the pair's: eps_a0 = 2/5 (1/2 - 3/10) = 2/25."""
    net = from_dict(tie_gadget_doc(F(2), F(2, 5), F(1, 2)))
    assert tie_excess(net, "s") == {"a0": F(2, 25)}


def test_uniform_ties_add_nothing():
    """Without declared ties every eps_t is 0 (1/(a + b) <= 1/a), and R'_eps is R' itself."""
    net = Network("n", tuple(Station(s, F(1)) for s in "123"), (Stream(F(1), choice=("1", "2", "3")),))
    assert tie_excess(net, "3") == {}
    rest = reduced_network(net, "3").network
    assert excess_network(rest, {}) is rest


def _with_random_ties(seed: int) -> dict:
    """random_feedback_doc(seed) with declared ties on its routing sets and on their pairs (random probabilities)."""
    doc = random_feedback_doc(seed)
    rng = random.Random(seed)
    sets = {tuple(st["choice"]) for st in doc["streams"]} | {tuple(f["choice"]) for f in doc["feedback"]}
    tied = {tuple(sorted(T)) for C in sets if len(C) > 1 for n in range(2, len(C) + 1)
            for T in itertools.combinations(C, n)}
    ties = []
    for T in sorted(tied):
        if rng.random() < 0.6:
            weights = [rng.randint(0, 4) for _ in T]
            if sum(weights) == 0:
                weights[0] = 1
            ties.append({"set": list(T), "probs": {t: f"{v}/{sum(weights)}" for t, v in zip(T, weights)}})
    doc["tie_breaking"] = ties
    return doc


def test_the_excess_matches_an_enumeration_of_every_tied_pair_on_random_networks():
    """On seeded random feedback networks with random ties, tie_excess equals the full enumeration of
    tests/independent.py for every single sink."""
    seen = 0
    for seed in range(60):
        net = from_dict(_with_random_ties(seed))
        for st in net.stations:
            got = tie_excess(net, st.id)
            assert got == independent.tie_excess(net, [st.id]), (seed, st.id)
            seen += bool(got)
    assert seen >= 5


def test_the_excess_bounds_what_n_adds_to_the_rest_state_by_state():
    """At sampled states of N (ties of every kind included), N's jumps into each station of R' exceed R''s by at
    most eps_t, and by exactly eps_a0 where the three stations tie."""
    net = from_dict(tie_gadget_doc(F(2), F(2, 5), F(1, 2)))
    eps = tie_excess(net, "s")
    ids = net.station_ids
    rng = np.random.default_rng(5)
    states = [tuple(int(v) for v in rng.integers(0, 4, size=3)) for _ in range(300)]
    states += [(k, k, k) for k in range(4)]
    most = F(0)
    for x in states:
        for t, r in independent.added_rates(net, ["s"], x).items():
            assert r <= eps.get(t, 0), (x, t, r, eps)
            most = max(most, r)
    assert most == eps["a0"], most
    assert ids == ("s", "a0", "b0")


def test_a_sink_with_tie_excess_is_certified_and_verifies(tied):
    """The tie gadget's sink at 0.95 of its exact inflow has a drain certificate naming the excess; verify accepts."""
    net, cert = tied
    assert cert is not None and cert["claims"]["tie_excess"] == {"a0": "2/25"}
    assert certify.verify(net, cert).ok


def test_the_certified_rate_bounds_the_exact_inflow(tied):
    """c is at least E[u] under R''s exact stationary law (R', not R'_eps: the excess enters W only)."""
    net, cert = tied
    assert float(F(cert["rate"])) >= _inflow(F(2, 5)) - 1e-9


def test_the_tie_certificate_holds_state_by_state(tied):
    """u + A'g <= c on R' and A'W < 0 far out on R' with the excess stream, re-checked from the network's fields."""
    net, cert = tied
    independent.check_sink_drain(net, copy.deepcopy(cert))


def test_the_proofs_lyapunov_function_decreases_far_out_on_the_tied_network(tied):
    """V = |s|^2/2 + g(y) s + kappa W (kappa = 20) has AV < 0 at sampled far states of the whole network, ties
    with the sink included."""
    net, cert = tied
    V = independent.drain_lyapunov(net, cert, F(20))
    rng = np.random.default_rng(4)
    states = list(independent.far_states(rng, net, 10**5, 150))
    states += [(k, k, k) for k in (10**4, 3 * 10**4)] + [(k, k + 1, k) for k in (10**4,)]
    for x in states:
        vx = V(x)
        av = sum((r * (V(y) - vx) for y, r in independent.generator(net, x)), F(0))
        assert av < 0, f"AV at {x} is {av}"


def test_a_w_that_drains_the_rest_but_not_the_rest_with_the_excess_is_refused():
    """With a0 taking the whole three-way tie of a stream 3/5, R' (load 2.2 of 2.5) drains but R'_eps (2.62) cannot:
    a certificate whose W was found on R' is refused, naming R'_eps."""
    net = from_dict(tie_gadget_doc(F(3), F(3, 5), F(1)))
    red = reduced_network(net, "s")
    chain = compile_chain(red.network)
    drifts = compile_drifts(chain)
    P, _ = solve_reduced_lyapunov(chain, drifts)
    w, _, rate = solve_drain_rate(chain, red, drifts, [], 0, ("s",), F(3))
    chk = check_sink_drain(net, "s", P, w, rate)
    assert not chk.ok and "ties' excess" in chk.failures[0], chk.failures
    plus = compile_chain(excess_network(red.network, tie_excess(net, "s")))
    assert solve_reduced_lyapunov(plus, compile_drifts(plus)) is None


def test_a_certificate_that_hides_the_excess_from_its_claims_is_refused(tied):
    """The claims are recomputed on verify: a resealed certificate without ``tie_excess`` in its claims is refused."""
    net, cert = tied
    bad = copy.deepcopy(cert)
    bad["claims"].pop("tie_excess")
    res = certify.verify(net, reseal(bad))
    assert not res.ok and any("tie_excess" in f for f in res.failures), res.failures


def test_subset_functions_are_refused_where_departures_from_the_rest_carry_the_excess():
    """For a pair of sinks whose tie with R' sends R' more on the feedback of a station of R', a listed subset is
    refused (hypothesis 1)."""
    ties = (TieBreak(("1", "2", "3"), (("1", F(9, 10)), ("2", F(0)), ("3", F(1, 10)))),)
    net = Network("n", tuple(Station(s, F(1)) for s in "1234"), (Stream(F(1, 2), choice=("1",)),),
                  (Feedback("1", ("1", "2", "3"), F(1, 2)),), ties)
    assert feedback_excess(net, ("3", "4")) == independent.tie_excess(net, ("3", "4"), departures_from_rest=True) != {}
    P = {"P[1,1]": F(1), "P[1,2]": F(0), "P[2,2]": F(1)}
    chk = check_sink_drain(net, ("3", "4"), P, [F(0), F(0)], F(1, 2), subsets=[(("3",), [F(0), F(0)], F(1, 2), None)])
    assert not chk.ok and "hypothesis 1" in chk.failures[0], chk.failures


def test_the_departures_excess_matches_an_enumeration_on_random_networks():
    """feedback_excess equals the enumeration of tests/independent.py restricted to the feedback of stations outside
    the sinks, for every single sink and linked pair of seeded random networks with random ties."""
    seen = 0
    for seed in range(40):
        net = from_dict(_with_random_ties(seed))
        ids = net.station_ids
        for G in [(i,) for i in ids] + [(ids[0], ids[-1])]:
            got = feedback_excess(net, G)
            assert got == independent.tie_excess(net, G, departures_from_rest=True), (seed, G)
            seen += bool(got)
    assert seen >= 5


def two_sink_doc(lam_s: F = F(1, 10)) -> dict:
    """The gadget {a, b} (stream 8/5, ties 3/10 : 7/10) whose a feeds the sink s (mu 1, own stream ``lam_s``); a
    second sink t (mu 1, own stream 1/5) shares a stream 1/5 with s, and a stream 2/5 into {a, b, t} ties three ways
    at 1/2 : 1/2 : 0, so a tie with t sends a more than R' does (eps_a = 2/25, from a stream)."""
    return {"format": "jsq-network/1", "name": "two-sink-tie",
            "stations": {"s": {"mu": 1}, "t": {"mu": 1}, "a": {"mu": 1}, "b": {"mu": "3/2"}},
            "streams": [{"choice": ["s"], "rate": str(lam_s)}, {"choice": ["t"], "rate": "1/5"},
                        {"choice": ["s", "t"], "rate": "1/5"}, {"choice": ["a", "b"], "rate": "8/5"},
                        {"choice": ["a", "b", "t"], "rate": "2/5"}],
            "feedback": [{"from": "a", "choice": ["s"], "prob": 1}],
            "tie_breaking": [{"set": ["a", "b"], "probs": {"a": "3/10", "b": "7/10"}},
                             {"set": ["a", "b", "t"], "probs": {"a": "1/2", "b": "1/2", "t": "0"}}]}


def _busy_a(net, with_excess: bool) -> float:
    """a's exact busy fraction (its throughput) on R' or R'_eps of the pair {s, t} (a CTMC truncated at 40)."""
    red = reduced_network(net, ("s", "t")).network
    if with_excess:
        red = excess_network(red, tie_excess(net, ("s", "t")))
    return stationary(red, truncate=40).throughput[red.station_ids.index("a")]


@pytest.fixture(scope="module")
def two_sinks():
    """The two-sink network and its sink-drain certificate for {s, t}, the subset {s} found on R'_eps."""
    net = from_dict(two_sink_doc())
    return net, drain_certificate(net, ("s", "t"), ["a", "b"], 3)


def test_the_subset_needs_a_function_and_the_excess_comes_from_a_stream(two_sinks):
    """{s}'s largest inflow (1/10 + a busy) is above mu_s = 1, and the excess into a is carried by a stream only."""
    net, _ = two_sinks
    red = reduced_network(net, ("s", "t"))
    assert largest_drain_rate(red, ("s",)) == F(11, 10) > 1
    assert tie_excess(net, ("s", "t")) == {"a": F(2, 25)} and feedback_excess(net, ("s", "t")) == {}


def test_a_subset_function_is_certified_where_a_stream_carries_the_excess(two_sinks):
    """The pair's certificate lists {s} with its own function although ties add work to R'; verify accepts."""
    net, cert = two_sinks
    assert cert is not None and [e["set"] for e in cert["subsets"]] == [["s"]]
    assert cert["claims"]["tie_excess"] == {"a": "2/25"}
    assert certify.verify(net, cert).ok


def test_the_subsets_rate_bounds_the_exact_inflow_of_the_rest_with_the_excess(two_sinks):
    """c_s is at least E[u_s] under R'_eps's exact stationary law, which is above R''s: the excess matters."""
    net, cert = two_sinks
    c_s = float(F(cert["subsets"][0]["rate"]))
    plain, plus = 0.1 + _busy_a(net, False), 0.1 + _busy_a(net, True)
    assert plus > plain + 0.03
    assert plus - 1e-9 <= c_s < 1


def test_a_subset_function_found_on_the_rest_alone_is_refused(two_sinks):
    """{s}'s function found on R' claims a rate below E[u_s] on R'_eps: the check on R'_eps refuses it."""
    net, _ = two_sinks
    *_, subsets, chk = drain_certificate(net, ("s", "t"), ["a", "b"], 3, subsets_on_rest=True, check=False)
    assert float(subsets[0][2]) < 0.1 + _busy_a(net, True)
    assert not chk.ok and "(on R'_eps)" in chk.failures[0], chk.failures


def test_the_two_sink_certificate_holds_state_by_state(two_sinks):
    """u_H + A'g_H <= c_H on R' (for {s, t}) and on R'_eps (for {s}), monotone along Dirs and the excess, re-checked
    from the network's fields."""
    net, cert = two_sinks
    independent.check_sink_drain(net, copy.deepcopy(cert))


def test_the_proofs_lyapunov_function_decreases_far_out_with_one_sink_much_longer(two_sinks):
    """V = |s|^2/2 + Lambda + kappa W has AV < 0 at sampled far states of the whole network, among them states where
    s is far longer than t and t ties with a and b (the tie that adds work to a)."""
    net, cert = two_sinks
    V = independent.drain_lyapunov(net, cert, F(40))
    ids = net.station_ids
    rng = np.random.default_rng(7)
    states = list(independent.far_states(rng, net, 10**5, 150))
    for big in (10**4, 3 * 10**4):
        for k in (0, 1, 3, 50, 400):
            x = {"s": big, "t": k, "a": k, "b": k}
            states.append(tuple(x[i] for i in ids))
            x = {"s": big, "t": k, "a": k + 1, "b": k}
            states.append(tuple(x[i] for i in ids))
    for x in states:
        vx = V(x)
        av = sum((r * (V(y) - vx) for y, r in independent.generator(net, x)), F(0))
        assert av < 0, f"AV at {x} is {av}"


def test_explain_names_the_excess(tied):
    """The readable proof says which station ties add work to and that W was checked with it."""
    net, cert = tied
    text = explain(net, cert).render("markdown")
    assert "2/25 into a0" in text and "W is checked on R'" in text


@pytest.mark.slow
def test_the_random_J6_network_is_drained_past_its_fluid_limit():
    """J = 6 seed 21 of bench/frontier.py at 0.82 (above the fluid linear certificate's 0.794): its sink 1 is fed
    by ties that send station 3 more than R' does; the drain stage proves it, verify accepts, and the hypotheses
    hold state by state."""
    net = load(DATA / "random-J6-s21-r0.82.json")
    assert tie_excess(net, "1")
    out, _ = _stage(net)
    assert out.decision is not None and out.decision.verdict == "stable"
    cert = out.decision.certificate.to_json()
    assert cert["kind"] == "sink-drain" and cert["claims"]["tie_excess"]
    assert certify.verify(net, cert).ok
    independent.check_sink_drain(net, copy.deepcopy(cert), count=100)
