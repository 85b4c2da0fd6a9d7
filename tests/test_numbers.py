"""One source of truth for every number: explicit phases, sums within 1e-9, ranges, and extreme-but-allowed values.

The rules are those of the :mod:`certify.io.loader` module docstring; every stage reads the
numbers the loader produced, so these tests compare stages against the loaded network.
"""

import copy
import json
import math
import subprocess
import sys
from fractions import Fraction as F
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import certify
from certify.core.errors import NetworkError
from certify.core.model import Distribution, Network, Station, Stream
from certify.io.distributions import MAX_PHASES
from certify.io.graph import from_graph
from certify.io.loader import from_dict, load, to_dict
from certify.markov.chain import compile_chain
from certify.markov.laws import NotPhaseType, phase_type
from certify.markov.phases import MAX_PHASE_VECTORS, markov_chain
from certify.simulation.evidence import simulation_check
from certify.simulation.simulate import simulate
from certify.simulation.tables import compile_network
from certify.stationary import stationary

MODELS = Path(__file__).resolve().parents[1] / "models"

# H2 with mean 1.0000009 (0.5/2 + 0.5 * 7500009/5000000): within the relative 1e-6 of 1/mu = 1.
SLOW_H2 = {"dist": "hyperexponential", "probs": [0.5, 0.5], "rates": [2, "5000000/7500009"]}
SLOW_MEAN = F(10000009, 10000000)


def net_doc(stations, streams, **extra):
    """A jsq-network/1 document."""
    return {"format": "jsq-network/1", "stations": stations, "streams": streams, **extra}


def one_station(service=None, mu=1, rate=1, interarrival=None):
    """A single-station document with optional service and interarrival laws."""
    st = {"mu": mu, **({"service": service} if service else {})}
    sm = {"choice": ["1"], "rate": rate, **({"interarrival": interarrival} if interarrival else {})}
    return net_doc({"1": st}, [sm])


# ---------------------------------------------------------------- explicit phases are authoritative
def test_phases_within_tolerance_set_mu_exactly():
    """Phases whose mean is within 1e-6 of 1/mu make mu exactly 1/mean of the phases."""
    net = from_dict(one_station(SLOW_H2))
    assert net.stations[0].mu == 1 / SLOW_MEAN


def test_derived_mu_is_noted_with_field_and_both_values():
    """The derived rate gets one note naming the field, the written value, the phases' mean and the rate used."""
    net = from_dict(one_station(SLOW_H2))
    assert net.notes == ("stations.1.mu: 1 as written, but the explicit phases of stations.1.service have mean "
                         "1.0000009; mu = 10000000/10000009 (from the phases) is used by every stage",)


def test_interarrival_phases_set_the_stream_rate():
    """An explicit Coxian interarrival law within 1e-6 sets the stream's rate to 1/mean, with a note."""
    cox = {"dist": "coxian", "rates": [2, "2000000/1000001"], "probs": [1]}  # mean 0.5 + 0.5000005
    net = from_dict(one_station(rate=1, interarrival=cox, mu=3))
    assert net.streams[0].rate == 1 / F(20000010, 20000000) and "streams[0].rate: 1 as written" in net.notes[0]


def test_exact_phase_mean_gives_no_note():
    """models/distribution-h2-J3.json writes 5/81 exactly: it loads with mu as written and no note."""
    net = load(MODELS / "distribution-h2-J3.json")
    assert net.notes == () and net.stations[1].mu == 1


def test_corpus_rounded_phase_rate_loads_with_a_note(corpus_dir):
    """ce-dist-B-h2.json (5/81 rounded to 0.0617283950617284) loads, mu = 1/mean of its phases, and says so."""
    net = load(corpus_dir / "ce-dist-B-h2.json")
    d = net.stations[1].service
    mean = sum((p / r for p, r in zip(d.get("probs"), d.get("rates"))), F(0))
    assert net.stations[1].mu == 1 / mean != 1
    assert len(net.notes) == 1 and net.notes[0].startswith("stations.2.mu: 1 as written")


def test_every_stage_sees_the_derived_rate():
    """The mean chain, the phase-type chain, the simulator and the written document all use mu = 1/mean."""
    net = from_dict(one_station(SLOW_H2))
    mu = 1 / SLOW_MEAN
    assert compile_chain(net).mu == (mu,) and markov_chain(net).mu == (mu,)
    assert phase_type(net.stations[0].service, net.stations[0].mu).mean == SLOW_MEAN
    assert from_dict(to_dict(net)).stations[0].mu == mu and to_dict(net)["stations"]["1"]["mu"] == "10000000/10000009"


def test_rewritten_document_loads_without_a_note():
    """to_dict writes the derived rate, so the document it gives loads to an equal network with no note."""
    net = from_dict(one_station(SLOW_H2))
    again = from_dict(to_dict(net))
    assert again == net and again.notes == ()


def test_overload_hidden_in_the_phases_is_never_stable():
    """Arrival rate 1 into mu = 1 whose phases have mean 1.0000009: the static split proves it unstable."""
    net = from_dict(one_station(SLOW_H2))
    res = certify.prove(net, simulate=False, time_limit=30)
    assert res.verdict == "unstable"
    split = [a for a in res.attempts if a.stage.startswith("necessary condition")]
    assert split and split[0].outcome.startswith("FAILS")


def test_simulator_samples_the_chains_law():
    """The simulator's hyperexponential row holds phase_type's exact probabilities and rates (as floats)."""
    net = from_dict(one_station({"dist": "hyperexponential", "probs": [0.25, 0.75], "rates": [0.5, 3]}, mu=F(4, 3)))
    ph = phase_type(net.stations[0].service, net.stations[0].mu)
    row = compile_network(net).laws[1]
    assert row[3] == 2 and list(row[4:8]) == [0.25, float(ph.exit[0]), 1.0, float(ph.exit[1])]


# ---------------------------------------------------------------- probabilities within 1e-9 of 1
def test_tie_probabilities_within_1e_9_are_divided_by_their_sum():
    """Tie-breaking probabilities summing to 1 + 5e-10 are divided by that exact sum, with a note."""
    doc = net_doc({"1": {"mu": 1}, "2": {"mu": 1}}, [{"choice": ["1", "2"], "rate": 1}],
                  tie_breaking=[{"set": ["1", "2"], "probs": {"1": 0.7, "2": 0.3000000005}}])
    net = from_dict(doc)
    total = F("0.7") + F("0.3000000005")
    assert dict(net.tie_breaking[0].probs) == {"1": F("0.7") / total, "2": F("0.3000000005") / total}
    assert net.notes == ("tie_breaking[0].probs: the probabilities sum to 1.0000000005, not exactly 1; each is "
                         "divided by that sum (so they sum to exactly 1) and every stage uses the divided values",)


def test_choices_within_1e_9_sum_to_exactly_1():
    """A stream's choices summing to 1 - 1e-10 are normalised to an exact sum of 1 before any stage sees them."""
    doc = net_doc({"1": {"mu": 1}, "2": {"mu": 1}},
                  [{"choices": [{"set": ["1"], "prob": 0.5}, {"set": ["2"], "prob": 0.4999999999}], "rate": 1}])
    net = from_dict(doc)
    assert sum(p for _, p in net.streams[0].choices) == 1 and "streams[0].choices" in net.notes[0]
    assert sum(r for _, r in net.streams[0].routing_sets()) == 1


def test_hyperexponential_probs_normalised_before_the_mean():
    """Hyperexponential probs within 1e-9 are normalised first; the mean (and mu) come from the normalised law."""
    net = from_dict(one_station({"dist": "hyperexponential", "probs": [0.5, 0.5000000002], "rates": [2, 0.5]},
                                mu=0.8))
    probs = net.stations[0].service.get("probs")
    assert sum(probs) == 1 and net.stations[0].mu == 1 / (probs[0] / 2 + probs[1] / F(1, 2))
    assert len(net.notes) == 2  # the sum, then the mean


def test_exact_sums_give_no_note():
    """Probabilities summing to exactly 1 are kept as written, with no note."""
    doc = net_doc({"1": {"mu": 1}, "2": {"mu": 1}}, [{"choice": ["1", "2"], "rate": 1}],
                  tie_breaking=[{"set": ["1", "2"], "probs": {"1": 0.7, "2": 0.3}}])
    net = from_dict(doc)
    assert net.notes == () and dict(net.tie_breaking[0].probs) == {"1": F(7, 10), "2": F(3, 10)}


# ---------------------------------------------------------------- networkx input follows the same rules
def test_graph_phases_set_mu_with_a_note():
    """from_graph makes explicit phases authoritative too, naming the graph node in the note."""
    G = nx.DiGraph()
    G.add_node("a", mu=1, service=SLOW_H2)
    G.add_node("in", rate=0.5)
    G.add_edge("in", "a")
    net = from_graph(G)
    assert net.stations[0].mu == 1 / SLOW_MEAN and net.notes[0].startswith("graph node 'a'.mu: 1 as written")


def test_graph_tie_probabilities_normalised():
    """from_graph normalises tie-breaking probabilities within 1e-9 of 1 like the file loader."""
    G = nx.DiGraph(tie_breaking=[{"set": ["a", "b"], "probs": {"a": 0.5, "b": 0.5000000001}}])
    G.add_node("a", mu=1)
    G.add_node("b", mu=1)
    G.add_node("in", rate=1)
    G.add_edges_from([("in", "a"), ("in", "b")])
    net = from_graph(G)
    assert sum(p for _, p in net.tie_breaking[0].probs) == 1 and len(net.notes) == 1


def test_graph_rate_out_of_range_is_normalised():
    """from_graph rescales every rate into [1e-9, 1e9] by one factor when one lies outside (a change of time unit)."""
    G = nx.DiGraph()
    G.add_node("a", mu=1e10)
    G.add_node("in", rate=1)
    G.add_edge("in", "a")
    net = from_graph(G)
    mu, lam = net.stations[0].mu, net.streams[0].rate
    assert mu / lam == 10**10 and all(F(1, 10**9) <= r <= 10**9 for r in (mu, lam))


def test_graph_rate_spread_beyond_1e18_refused():
    """from_graph refuses rates whose largest is more than 1e18 times the smallest, naming the smallest."""
    G = nx.DiGraph()
    G.add_node("a", mu=1e19)
    G.add_node("in", rate=0.5)
    G.add_edge("in", "a")
    with pytest.raises(NetworkError) as info:
        from_graph(G)
    assert "times smaller than the largest rate" in info.value.rule


# ---------------------------------------------------------------- the phase-type expansion is bounded
def test_huge_expansion_refused_before_building():
    """Three Erlang-1000 laws would give about 10^9 phase vectors: NotPhaseType says so, at once."""
    e = {"dist": "erlang", "k": MAX_PHASES}
    net = from_dict(net_doc({"1": {"mu": 1, "service": e}, "2": {"mu": 1, "service": e}},
                            [{"choice": ["1", "2"], "rate": 1, "interarrival": e}]))
    with pytest.raises(NotPhaseType, match=rf"would have 1002001000 phase vectors \(limit {MAX_PHASE_VECTORS}\)"):
        markov_chain(net)


def test_erlang_at_the_bound_expands_exactly():
    """Erlang k = 1000 (the bound) expands, with its mean computed exactly (by back-substitution)."""
    net = from_dict(one_station({"dist": "erlang", "k": MAX_PHASES}, mu=F(1, 3), rate=F(1, 7)))
    ch = markov_chain(net)
    assert ch.mu == (F(1, 3),) and len(ch.phase_space()) == MAX_PHASES + 1


def test_stationary_refuses_a_huge_expansion():
    """certify.stationary refuses a network whose expansion is too large with one NetworkError line."""
    e = {"dist": "erlang", "k": MAX_PHASES}
    net = from_dict(net_doc({"1": {"mu": 1, "service": e}, "2": {"mu": 1, "service": e}},
                            [{"choice": ["1", "2"], "rate": 1}]), "big.json")
    with pytest.raises(NetworkError, match=r"^big.json: no stationary analysis: .*phase vectors \(limit 10000\)$"):
        stationary(net)


def test_stationary_refuses_an_enormous_truncation():
    """An explicit truncation beyond the state limit is refused naming the field, before anything is built."""
    net = from_dict(net_doc({"1": {"mu": 1}}, [{"choice": ["1"], "rate": 0.5}]), "t.json")
    with pytest.raises(NetworkError, match=r"^t.json: truncate: 10{30} must be <= 3000000"):
        stationary(net, truncate=10**30)


# ---------------------------------------------------------------- partial capacities
PARTIAL = net_doc({"1": {"mu": 1, "capacity": 3}, "2": {"mu": 1}}, [{"choice": ["1", "2"], "rate": 2.5}])


def test_simulation_check_caps_starts_at_capacities():
    """With only some capacities, the simulation fallback runs and its large starts respect every capacity."""
    net = from_dict(PARTIAL)
    ev = simulation_check(net, directions=[(1, 1), (1, 0)], budget_s=2, seed=1)
    assert ev.verdict == "likely-unstable"
    assert all(s.start.x0[0] <= 3 for s in ev.starts) and len(ev.starts) == 3


def test_stationary_with_partial_capacities():
    """certify.stationary solves a network where only some stations have a capacity (the rest truncated)."""
    net = from_dict({**PARTIAL, "streams": [{"choice": ["1", "2"], "rate": 1}]})
    res = stationary(net, truncate=40)
    assert not res.exact and 0 < res.mean_queue[0] <= 3


# ---------------------------------------------------------------- extreme-but-allowed values: nothing crashes
E_K = {"dist": "erlang", "k": MAX_PHASES}
EXTREME = {
    "rates-1e9": one_station(mu=1e9, rate=1e9),
    "rates-1e-9": one_station(mu=1e-9, rate=1e-9),
    "fast-server-slow-arrivals": net_doc({"1": {"mu": 1e9}, "2": {"mu": 1e-9}}, [{"choice": ["1", "2"], "rate": 1e-9}]),
    "slow-server-fast-arrivals": one_station(mu=1e-9, rate=1e9),
    "erlang-k-at-bound-service": one_station(E_K, mu=1e9, rate=1),
    "erlang-k-at-bound-arrivals": one_station(mu=1, rate=1e-9, interarrival=E_K),
    "gamma-scv-1/1000": one_station({"dist": "gamma", "scv": 0.001}, mu=2, rate=1),
    "gamma-scv-1000": one_station({"dist": "gamma", "scv": 1000}, mu=2, rate=1),
    "lognormal-scv-1000": one_station({"dist": "lognormal", "scv": 1000}, mu=2, rate=1e-9),
    "lognormal-scv-1/1000": one_station(mu=2, rate=1, interarrival={"dist": "lognormal", "scv": 0.001}),
    "hyperexp-scv-1000": one_station({"dist": "hyperexponential", "scv": 1000}, mu=1e9, rate=1),
    "hyperexp-phases-extreme": one_station({"dist": "hyperexponential", "probs": [0.5, 0.5000000001],
                                            "rates": [1e9, 1e-9]}, mu=2e-9, rate=1e-9),
    "coxian-1000-phases": one_station({"dist": "coxian", "rates": [1000] * 1000, "probs": [1] * 999}, rate=0.5),
    "deterministic-1e9": one_station({"dist": "deterministic"}, mu=1e9, rate=1e9,
                                     interarrival={"dist": "deterministic"}),
    "capacity-1e9": net_doc({"1": {"mu": 1, "capacity": 10**9}, "2": {"mu": 1e9, "capacity": 1}},
                            [{"choice": ["1", "2"], "rate": 1e9}]),
    "sixty-digit-numbers": one_station(mu="1" * 30 + "/" + "3" * 30, rate="9" * 59 + "/" + "1" + "0" * 59),
    "ties-and-choices-within-1e-9": net_doc(
        {"1": {"mu": 1e-9}, "2": {"mu": 1e9}, "3": {"mu": 1}},
        [{"choices": [{"set": ["1", "2"], "prob": 0.5}, {"set": ["2", "3"], "prob": 0.5000000009}], "rate": 1e9}],
        tie_breaking=[{"set": ["1", "2"], "probs": {"1": 0.9999999991, "2": 0}}],
        feedback=[{"from": "3", "choice": ["1", "2", "3"], "prob": 1}]),
}


def horizon_for(net) -> float:
    """A horizon of about 2000 events at the network's fastest total rate."""
    return 2000.0 / float(sum(s.rate for s in net.streams) + sum(s.mu for s in net.stations))


def exercise(doc):
    """Load, compile, expand and simulate ``doc``; only the documented NotPhaseType may be raised (by the expansion)."""
    net = from_dict(copy.deepcopy(doc), "extreme.json")
    ch = compile_chain(net)
    assert all(m > 0 for m in ch.mu)
    try:
        ph = markov_chain(net)
    except NotPhaseType as exc:
        assert str(exc)
    else:
        assert ph.mu == tuple(s.mu for s in net.stations)
    res = simulate(net, horizon_for(net), replications=2, seed=3, progress=False)
    assert res.events >= 0 and np.isfinite(res.rep_mean_queue).all()
    return net


@pytest.mark.parametrize("name", sorted(EXTREME))
def test_extreme_values_run_every_stage(name):
    """An extreme-but-allowed network loads, compiles, expands (or says why not) and simulates without an error."""
    net = exercise(EXTREME[name])
    assert math.isfinite(horizon_for(net))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    mus=st.lists(st.sampled_from([1e-9, "1/3", 1, 1e3, 1e9]), min_size=1, max_size=3),
    rate=st.sampled_from([1e-9, 0.5, 1e9]),
    law=st.sampled_from([None, {"dist": "erlang", "k": MAX_PHASES}, {"dist": "gamma", "scv": 0.001},
                         {"dist": "lognormal", "scv": 1000}, {"dist": "hyperexponential", "scv": 1000},
                         {"dist": "deterministic"}]),
    eps=st.sampled_from(["0", "1e-10", "-1e-9"]),
)
def test_fuzz_extreme_values_never_crash(mus, rate, law, eps):
    """Random mixes of extreme rates, laws at their bounds and probabilities within 1e-9 run without an error."""
    ids = [str(i + 1) for i in range(len(mus))]
    stations = {i: {"mu": m} for i, m in zip(ids, mus)}
    stations["1"].update({"service": law} if law else {})
    stream = {"choice": ids, "rate": rate, **({"interarrival": law} if law else {})}
    ties = [{"set": ids, "probs": {i: str(F(1, len(ids)) + (F(eps) if i == "1" else 0)) for i in ids}}] if len(ids) > 1 else []
    net = exercise(net_doc(stations, [stream], tie_breaking=ties))
    assert all(sum(p for _, p in tb.probs) == 1 for tb in net.tie_breaking)


def test_stationary_refuses_an_inaccurate_solve():
    """Rates spanning 18 orders of magnitude: stationary refuses (residual named) instead of reporting garbage."""
    net = from_dict(copy.deepcopy(EXTREME["ties-and-choices-within-1e-9"]), "wide.json")
    with pytest.raises(NetworkError, match=r"^wide.json: the stationary equations cannot be solved accurately in "
                                           r"double precision \(relative residual .* 18 orders of magnitude\)$"):
        stationary(net, truncate=5)


# ---------------------------------------------------------------- no stage re-normalises on its own
UNNORMALISED = Distribution("hyperexponential", (("probs", (F(1, 2), F(1, 3))), ("rates", (F(1), F(2)))))


def test_phase_type_does_not_renormalise():
    """A hand-built hyperexponential whose probs do not sum to 1 has no phase-type form (never silently rescaled)."""
    with pytest.raises(NotPhaseType, match="sum to 5/6, not exactly 1"):
        phase_type(UNNORMALISED, F(1))


def test_simulator_does_not_renormalise():
    """The simulator refuses the same hand-built law instead of simulating a rescaled one."""
    net = Network("h", (Station("1", F(1), UNNORMALISED),), (Stream(F(1, 2), choice=("1",)),))
    with pytest.raises(ValueError, match="sum to 5/6, not exactly 1"):
        compile_network(net)


def test_cli_refuses_out_of_range_rate_with_exit_2(tmp_path):
    """certify prove on mu = 1e999 prints one line naming file, field and rule, and exits 2."""
    f = tmp_path / "big.json"
    f.write_text(json.dumps(one_station(mu="1e999")))
    out = subprocess.run([sys.executable, "-m", "certify.cli", "prove", str(f)], capture_output=True, text=True)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip() == (f'certify: {f}: stations.1.mu: "1e999" has 1000 digits in its numerator or denominator '
                                  "(at most 60 allowed)")
