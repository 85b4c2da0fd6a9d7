"""Separable certificates (docs/math/separable.md): both sides of gadget networks, checked cluster by cluster.

The truth is independent of certify's checkers: the gadget's throughput into the
sink from its own truncated chain (certify.stationary, a linear solve), the drift
re-derived state by state from the JSQ rules (tests/independent.py), and the
cluster decomposition compared with that drift exactly.
"""

from __future__ import annotations

import copy
import random
import time
from fractions import Fraction as F

import numpy as np
import pytest

import certify
import certify.exact.separable as separable_module
from certify.exact.clusters import form_evaluator, form_value
from certify.exact.separable import Structure, check_separable, cluster_forms, clusters, families, sub_chain
from certify.exact.separable_growth import check_separable_growth, growth_structure
from certify.explain import explain
from certify.io.loader import from_dict
from certify.markov.chain import compile_chain
from certify.markov.laws import NotPhaseType
from certify.markov.phases import markov_chain
from certify.markov.regions import signature
from certify.proof.context import ProofContext, RunState
from certify.proof.result import Result
from certify.proof.separable import SeparableTry, run_separable, separable_tries
from certify.search.separable import default_structure, raised_structure
from certify.stationary import stationary
from tests import independent

GADGET_TIES = (F(3, 10), F(7, 10))


ERLANG2 = {"dist": "erlang", "k": 2}
H2 = {"dist": "hyperexponential", "probs": ["9/10", "1/10"], "rates": ["9/5", "1/5"]}  # mean 1 (station a)
H2_B = {"dist": "hyperexponential", "probs": ["9/10", "1/10"], "rates": ["27/10", "3/10"]}  # mean 2/3 (station b)
COXIAN = {"dist": "coxian", "rates": ["2", "1/2"], "probs": ["1/4"]}  # mean 1/2 + (1/4)(2) = 1, scv 2 (station a)


def gadgets(G: int, mu_s: F, lam_s: F, law: dict | None = None, law_b: dict | None = None) -> dict:
    """G gadgets (a: mu 1, b: mu 3/2, a JSQ stream 8/5, ties 3/10 : 7/10; a's output to s) into one sink s.

    ``law``, ``law_b``: the service law of every gadget's station a, b (default exponential).
    """
    stations = {"s": {"mu": str(mu_s)}}
    streams = [{"choice": ["s"], "rate": str(lam_s)}]
    fb, ties = [], []
    for g in range(G):
        a, b = f"a{g}", f"b{g}"
        stations[a], stations[b] = ({"mu": 1, "service": law} if law else {"mu": 1}), {"mu": "3/2"}
        if law_b:
            stations[b]["service"] = law_b
        streams.append({"choice": [a, b], "rate": "8/5"})
        ties.append({"set": [a, b], "probs": {a: str(GADGET_TIES[0]), b: str(GADGET_TIES[1])}})
        fb.append({"from": a, "choice": ["s"], "prob": 1})
    return {"format": "jsq-network/1", "name": f"gadgets-{G}", "stations": stations, "streams": streams,
            "feedback": fb, "tie_breaking": ties}


def throughput(law: dict | None = None, law_b: dict | None = None) -> float:
    """d: the stationary throughput of a gadget's station a, from the gadget's own chain truncated at 40 per station."""
    doc = gadgets(1, F(1), F(1), law, law_b)
    doc["stations"].pop("s")
    doc["streams"] = doc["streams"][1:]
    doc["feedback"] = []
    net = from_dict(doc)
    return stationary(net, truncate=40).throughput[net.station_ids.index("a0")]


def at_load(G: int, r: float, law: dict | None = None, law_b: dict | None = None) -> certify.Network:
    """G gadgets, the sink at load factor r of the exact boundary lam_s + G d = mu_s (mu_s = G d + 1/2)."""
    d = F(throughput(law, law_b)).limit_denominator(10**6)
    mu = (G * d + F(1, 2)).limit_denominator(10**6)
    lam = (F(r).limit_denominator(1000) * mu - G * d).limit_denominator(10**6)
    return from_dict(gadgets(G, mu, lam, law, law_b))


def _prove(net):
    return certify.prove(net, simulate=False, time_limit=60)


def test_stable_side_proved_by_a_separable_certificate():
    """Two gadgets into a sink at 95% of its boundary: stable, by a separable Foster certificate that verifies."""
    net = from_dict(gadgets(2, F(9, 5), F(2, 5)))
    res = _prove(net)
    assert (res.verdict, res.certificate["kind"]) == ("stable", "separable-foster")
    assert certify.verify(net, res.certificate).ok
    independent.check_separable(net, copy.deepcopy(res.certificate))


def test_unstable_side_proved_by_a_separable_growth_certificate():
    """The same network at 106% of the boundary: unstable, by a separable growth certificate that verifies."""
    net = from_dict(gadgets(2, F(9, 5), F(3, 5)))
    res = _prove(net)
    assert (res.verdict, res.certificate["kind"]) == ("unstable", "separable-growth")
    assert certify.verify(net, res.certificate).ok
    independent.check_separable_growth(net, copy.deepcopy(res.certificate))


@pytest.mark.parametrize("G, law", [(3, None), (8, None), (3, ERLANG2), (2, H2), (2, COXIAN)],
                         ids=["G3", "G8", "G3-erlang2", "G2-h2", "G2-coxian"])
def test_both_sides_at_three_percent_of_the_exact_boundary(G, law):
    """G gadgets at 0.97 and 1.03 of the boundary computed from the gadget's own chain: stable below, unstable above."""
    below, above = at_load(G, 0.97, law), at_load(G, 1.03, law)
    low, high = _prove(below), _prove(above)
    assert (low.verdict, low.certificate["kind"]) == ("stable", "separable-foster")
    # exponential gadgets from J = 7 on may be decided first by the sink-growth stage (its table over every station
    # of R' with per-station levels reaches the sink at 1.03): a certificate of the same verdict, checked the same way
    assert high.verdict == "unstable" and high.certificate["kind"] in (
        ("separable-growth", "sink-growth") if law is None else ("separable-growth",))
    assert certify.verify(above, high.certificate).ok
    if high.certificate["kind"] == "sink-growth":
        independent.check_sink_growth(above, copy.deepcopy(high.certificate), count=60)
    if law is not None:  # the phase-type side, re-checked state by state (with phases) from the JSQ rules
        independent.check_separable(below, copy.deepcopy(low.certificate), count=60)
        independent.check_separable_growth(above, copy.deepcopy(high.certificate), count=80)


def test_gadgets_beyond_the_phase_vector_limit_are_proved_on_both_sides():
    """Five gadgets with Erlang-2 service at both stations (3^10 phase vectors, beyond the whole-network limit) at
    0.97 and 1.03 of the exact boundary: stable below and unstable above by separable certificates that verify."""
    below, above = at_load(5, 0.97, ERLANG2, ERLANG2), at_load(5, 1.03, ERLANG2, ERLANG2)
    with pytest.raises(NotPhaseType, match="59049 phase vectors"):
        markov_chain(below)
    low, high = _prove(below), _prove(above)
    assert (low.verdict, low.certificate["kind"]) == ("stable", "separable-foster")
    assert (high.verdict, high.certificate["kind"]) == ("unstable", "separable-growth")
    assert certify.verify(below, low.certificate).ok and certify.verify(above, high.certificate).ok
    independent.check_separable(below, copy.deepcopy(low.certificate), count=60)
    independent.check_separable_growth(above, copy.deepcopy(high.certificate), count=80)


def test_beyond_the_phase_vector_limit_the_whole_network_searches_are_skipped():
    """Where only the separable tries can use the expansion, every whole-network search says it was skipped and why."""
    res = _prove(at_load(5, 0.97, ERLANG2, ERLANG2))
    skipped = [a for a in res.attempts if "59049 phase vectors" in a.outcome]
    assert {a.stage for a in skipped} >= {"quadratic Foster", "linear growth (transience)"}
    assert all(a.outcome.startswith("skipped") for a in skipped)


FEEDBACK_NET = {  # JSQ sets fed back into, one holding the station served (compared after its departure), ties
    "format": "jsq-network/1", "name": "feedback-mix",
    "stations": {"1": {"mu": 1}, "2": {"mu": 2}, "3": {"mu": "3/2"}, "4": {"mu": 1}, "5": {"mu": 2}, "6": {"mu": 1}},
    "streams": [{"choice": ["1", "2"], "rate": 1}, {"choice": ["4", "5", "6"], "rate": "1/2"}, {"choice": ["3"], "rate": "1/3"}],
    "feedback": [{"from": "1", "choice": ["3", "4"], "prob": "1/2"}, {"from": "3", "choice": ["3", "6"], "prob": "1/4"},
                 {"from": "5", "choice": ["1"], "prob": "1/3"}, {"from": "2", "choice": ["1", "2"], "prob": "1/5"}],
    "tie_breaking": [{"set": ["1", "2"], "probs": {"1": "1/4", "2": "3/4"}}],
}


def cascade(mu_5: F, lam_5: F) -> dict:
    """{1,2} share a stream; 1's output joins JSQ{3,4}; 3's output goes on to the sink 5, which has its own stream."""
    return {"format": "jsq-network/1", "name": "cascade",
            "stations": {"1": {"mu": 1}, "2": {"mu": "3/2"}, "3": {"mu": 1}, "4": {"mu": "3/2"}, "5": {"mu": str(mu_5)}},
            "streams": [{"choice": ["1", "2"], "rate": "8/5"}, {"choice": ["5"], "rate": str(lam_5)}],
            "feedback": [{"from": "1", "choice": ["3", "4"], "prob": 1}, {"from": "3", "choice": ["5"], "prob": 1}],
            "tie_breaking": [{"set": ["1", "2"], "probs": {"1": "3/10", "2": "7/10"}},
                             {"set": ["3", "4"], "probs": {"3": "3/10", "4": "7/10"}}]}


def cascade_sides(build, sink: str, last: str, truncate: int):
    """(load factor, truth, network) at 0.97 / 1.03 of a cascade's boundary; its throughput into the sink, d, is the
    last stage's station ``last`` in the head's own chain (the cascade without the sink), truncated at ``truncate``."""
    head = build(F(1), F(1))
    head["stations"].pop(sink)
    head["streams"] = head["streams"][:1]
    head["feedback"] = [f for f in head["feedback"] if sink not in f["choice"]]
    net = from_dict(head)
    d = F(stationary(net, truncate=truncate).throughput[net.station_ids.index(last)]).limit_denominator(10**6)
    mu = d + F(1, 2)
    return [(r, want, from_dict(build(mu, r * mu - d))) for r, want in ((F(97, 100), "stable"), (F(103, 100), "unstable"))]


def test_cascade_both_sides_with_merged_groups():
    """A depth-2 cascade at 0.97 / 1.03 of its boundary (the head's own chain): both sides, by the merged groups."""
    for _, want, net in cascade_sides(cascade, "5", "3", 14):
        res = _prove(net)
        assert res.verdict == want, res.reasons
        assert res.certificate["kind"] == f"separable-{'foster' if want == 'stable' else 'growth'}"
        assert res.certificate["groups"] == [["1", "2", "3", "4"]]


@pytest.mark.parametrize("law", [{"dist": "erlang", "k": 2}, {"dist": "coxian", "scv": 2}], ids=["erlang2", "coxian"])
def test_a_phase_type_sink_is_a_group_of_its_own(law):
    """A depth-2 cascade whose sink has Erlang-2 or Coxian service (the boundary is the exponential one's: the sink
    does not feed back): both sides at 0.97 / 1.03, the sink a group of its own whose table sees its phase."""
    def build(mu_5, lam_5):
        doc = cascade(mu_5, lam_5)
        doc["stations"]["5"]["service"] = law
        return doc

    for _, want, net in cascade_sides(build, "5", "3", 14):
        res = _prove(net)
        assert res.verdict == want, res.reasons
        assert res.certificate["groups"] == [["1", "2", "3", "4"], ["5"]]
        assert certify.verify(net, res.certificate).ok
        check = independent.check_separable if want == "stable" else independent.check_separable_growth
        check(net, copy.deepcopy(res.certificate), count=40)


def cascade3(mu_7: F, lam_7: F) -> dict:
    """The depth-3 cascade: {1,2} -> 1's output joins JSQ{3,4} -> 3's joins JSQ{5,6} -> 5's goes on to the sink 7."""
    doc = cascade(F(1), F(1))
    doc["stations"].update({"5": {"mu": 1}, "6": {"mu": "3/2"}, "7": {"mu": str(mu_7)}})
    doc["streams"][1] = {"choice": ["7"], "rate": str(lam_7)}
    doc["feedback"][1] = {"from": "3", "choice": ["5", "6"], "prob": 1}
    doc["feedback"].append({"from": "5", "choice": ["7"], "prob": 1})
    doc["tie_breaking"].append({"set": ["5", "6"], "probs": {"5": "3/10", "6": "7/10"}})
    return doc


def test_a_merged_shape_over_its_bound_is_tried_when_its_regions_are_few():
    """The depth-3 cascade's merged group at K = 2 bounds 7 million regions and has few: it is tried (counted)."""
    from certify.exact.separable import MAX_SEPARABLE_REGIONS, region_bound

    chain = compile_chain(from_dict(cascade3(F(3, 5), F(1, 2))))
    st = default_structure(chain, 2, True)
    assert st.groups == ((0, 1, 2, 3, 4, 5),)
    assert region_bound(chain, st) > MAX_SEPARABLE_REGIONS
    assert any(t.K == 2 and t.merged for t in separable_tries(chain, ["table"]))


def test_where_the_groups_merge_the_merged_try_comes_first():
    """A cascade's separable tries start with the merged groups at K = 2 (the default groups at K = 6 come later);
    gadgets, whose groups do not merge, start at K = 6."""
    def tries(doc):
        return [(t.K, t.merged, t.raised) for t in separable_tries(compile_chain(from_dict(doc)), ["table"])]

    on_cascade = tries(cascade(F(2), F(1, 2)))
    assert on_cascade[0] == (2, True, False) and on_cascade.index((6, False, False)) > 0
    assert tries(gadgets(2, F(9, 5), F(2, 5)))[0] == (6, False, False)


def test_the_checks_stop_listing_past_their_cap(monkeypatch):
    """With the cap on listed local states below a cluster's count, both checks fail saying so (nothing is accepted)."""
    import certify.exact.separable as sep
    import certify.exact.separable_growth as sepg

    chain = compile_chain(from_dict(gadgets(1, F(9, 5), F(2, 5))))
    st = Structure((), (), 1, ((0, 0), (1, 1), (2, 2)))
    monkeypatch.setattr(sep, "MAX_SEPARABLE_REGIONS", 1)
    monkeypatch.setattr(sepg, "MAX_SEPARABLE_REGIONS", 1)
    good = {c.stations: {a: F(-1) for a in c.stations} for c in clusters(chain, st)}
    chk = check_separable(chain, st, [F(1), F(1), F(1)], good)
    assert not chk.ok and "stopped listing" in chk.failures[0]
    gst = growth_structure((), 1)
    gchk = check_separable_growth(chain, gst, [F(1), F(1), F(1)])
    assert not gchk.ok and "stopped listing" in gchk.failures[0]


@pytest.mark.slow
def test_depth_three_cascade_both_sides():
    """A depth-3 cascade at 0.97 / 1.03 of its boundary (the head's own chain, truncated): both sides, one merged group."""
    for _, want, net in cascade_sides(cascade3, "7", "5", 7):
        res = certify.prove(net, simulate=False, time_limit=240)
        assert res.verdict == want, res.reasons
        assert res.certificate["groups"] == [["1", "2", "3", "4", "5", "6"]]
        assert certify.verify(net, res.certificate).ok
        if want == "stable":
            independent.check_separable(net, copy.deepcopy(res.certificate), count=40)
        else:
            independent.check_separable_growth(net, copy.deepcopy(res.certificate), count=60)


def _gadgets_fed_back() -> dict:
    """Gadgets whose b station feeds back into its own pair (compared after its departure), the sink into itself."""
    doc = gadgets(2, F(9, 5), F(1, 5))
    doc["feedback"] += [{"from": f"b{g}", "choice": [f"a{g}", f"b{g}"], "prob": "1/4"} for g in range(2)]
    doc["feedback"].append({"from": "s", "choice": ["s"], "prob": "1/10"})
    return doc


def _phased() -> dict:
    """Gadgets with Erlang-2 service at a0 and at the sink, H2 at b1 (a fast station of the second group, fed back into)."""
    doc = _gadgets_fed_back()
    doc["stations"]["a0"]["service"] = ERLANG2
    doc["stations"]["b1"]["service"] = H2_B
    doc["stations"]["s"]["service"] = ERLANG2
    return doc


def _coxian_cascade() -> dict:
    """The depth-2 cascade with Coxian service (scv 2) at its head station 1."""
    doc = cascade(F(2), F(1, 2))
    doc["stations"]["1"]["service"] = COXIAN
    return doc


def _levels_313(chain):
    """The merged cascade group with its own level per station: 3, 1, 3, 2 on stations 1-4."""
    st = default_structure(chain, 2, True)
    return Structure(st.groups, st.multipliers, ((3, 1, 3, 2),), st.pairs, st.phases)


@pytest.mark.parametrize("doc, shape", [
    (gadgets(2, F(9, 5), F(2, 5)), False), (_gadgets_fed_back(), False), (FEEDBACK_NET, False), (_phased(), False),
    (cascade(F(2), F(1, 2)), False), (cascade(F(2), F(1, 2)), True), (cascade(F(2), F(1, 2)), _levels_313),
    (_phased(), lambda ch: raised_structure(ch, 2)), (_coxian_cascade(), lambda ch: raised_structure(ch, 1)),
], ids=["gadgets", "gadgets-fed-back", "feedback-mix", "phase-type", "cascade", "cascade-merged", "cascade-levels",
        "phase-type-raised", "coxian-cascade-raised"])
def test_cluster_forms_sum_to_the_drift_state_by_state(doc, shape):
    """For random V and states, the clusters' linear parts plus the constant parts equal AV from the JSQ rules."""
    net = from_dict(doc)
    chain = markov_chain(net)
    st = shape(chain) if callable(shape) else default_structure(chain, 2, shape)
    rng = random.Random(5)
    pos = {i: k for k, i in enumerate(i for i, s in enumerate(net.stations) if not s.service.is_exponential)}
    P = {p: F(rng.randint(-4, 9), rng.randint(1, 4)) for p in st.pairs}
    T = {(g, l, c): F(rng.randint(-9, 9), rng.randint(1, 3)) for g in range(len(st.groups)) for l in st.multipliers[g]
         for c in st.cells(g)}

    def cell(g, x, phi):  # the levels read from st.K here, not through the Structure's helpers
        F_g = st.groups[g]
        levels = [st.K] * len(F_g) if isinstance(st.K, int) else st.K[g]
        return tuple(min(x[a], k) for a, k in zip(F_g, levels)) + tuple(phi[pos[a]] for a in F_g if a in pos)

    def V(x, phi):
        v = sum(((1 if a == b else 2) * p * x[a] * x[b] for (a, b), p in P.items()), F(0))
        for (g, l, c), t in T.items():
            if cell(g, x, phi) == c:
                v += x[l] * t
        return v

    theta = [P[p] for p in st.pairs] + [T[(g, l, c)] for g in range(len(st.groups)) for l in st.multipliers[g]
                                        for c in st.cells(g)]
    fams = families(chain)
    tables = []
    for c in clusters(chain, st):
        sub, loc = sub_chain(chain, c, fams)
        fast = {a: (st.K if isinstance(st.K, int) else st.K[g][k]) for g in c.groups for k, a in enumerate(st.groups[g])}
        levels = {loc[a]: fast.get(a, 1) for a in c.stations if a in fast or st.phase_count(a)}
        forms = {(f.region.key, tuple(sorted((f.phases or {}).items()))): f for f in cluster_forms(chain, st, c)}
        tables.append((c, sub, levels, forms))
    for _ in range(80):
        x = tuple(rng.choice([0, 1, 2, 3, rng.randint(0, 40)]) for _ in range(chain.J))
        phi = independent.phase_vectors(net, x, np.random.default_rng(rng.randint(0, 10**6)))
        linear = F(0)
        for c, sub, levels, forms in tables:
            local_phases = tuple((a, phi[pos[a]]) for a in c.stations if a in pos)
            form = forms[(signature(sub, [x[a] for a in c.stations], levels), local_phases)]
            linear += sum((sum((k * theta[v] for v, k in f.items()), F(0)) * x[i] for i, f in form.coefs.items()), F(0))
        constant = F(0)  # the rest of each jump's change of V: rate x (d'Pd + d_l T(cell after the jump))
        total = F(0)
        for (y, f), rate in independent.jumps(net, x, phi):
            d = [b - a for a, b in zip(x, y)]
            change = V(y, f) - V(x, phi)
            total += rate * change
            lin_part = sum((2 * p * (d[a] * x[b] + d[b] * x[a]) if a != b else 2 * p * d[a] * x[a]
                            for (a, b), p in P.items()), F(0))
            for (g, l, c), t in T.items():
                lin_part += x[l] * (t * (cell(g, y, f) == c) - t * (cell(g, x, phi) == c))
            constant += rate * (change - lin_part)
        assert linear + constant == total, (x, phi)


def test_the_raised_try_needs_phase_type_service_and_a_station_downstream():
    """The try with levels raised near phase-type service is scheduled for a Coxian-headed cascade into a sink, and
    neither for its exponential twin nor for the same cascade without the sink (no multiplier left)."""
    def stages(doc):
        return [t.stage for t in separable_tries(markov_chain(from_dict(doc)), ["table"])]

    raised = "separable certificates (K=2, merged groups, 3 near phase-type service)"
    assert raised in stages(_coxian_cascade())
    assert raised not in stages(cascade(F(2), F(1, 2)))
    no_sink = _coxian_cascade()
    del no_sink["stations"]["5"]
    no_sink["streams"] = no_sink["streams"][:1]
    no_sink["feedback"] = no_sink["feedback"][:1]
    assert "separable certificates (K=2, merged groups)" in stages(no_sink) and raised not in stages(no_sink)


def test_a_raised_budget_is_refused():
    """Raising one station's budget in one cluster breaks a generator's slope: the exact check refuses it."""
    chain = compile_chain(from_dict(gadgets(1, F(9, 5), F(2, 5))))
    st = Structure((), (), 1, ((0, 0), (1, 1), (2, 2)))
    bad = {c.stations: {a: F(10) for a in c.stations} for c in clusters(chain, st)}
    chk = check_separable(chain, st, [F(1), F(1), F(1)], bad)
    assert not chk.ok and any("slope" in f for f in chk.failures)


def test_growth_needs_every_state():
    """f = x_s alone does not grow where the sink is empty and the gadgets idle: refused (the check covers every state)."""
    net = from_dict(gadgets(1, F(1, 2), F(1)))  # the sink is overloaded even without the gadget
    chain = compile_chain(net)
    st = growth_structure(default_structure(chain, 2).groups, 2)
    w = [F(1) if s == "s" else F(0) for s in chain.ids]
    cells = [F(0)] * len(st.cells(0))
    assert check_separable_growth(chain, st, w + cells).ok  # Af = 1 + ... - 1/2 > 0 everywhere
    w_bad = [F(1) if s == "a0" else F(0) for s in chain.ids]  # x_a drifts down when a is the longer one
    assert not check_separable_growth(chain, st, w_bad + cells).ok


def test_forged_table_is_refused_by_verify():
    """A separable certificate whose table value changed (digest resealed) does not verify."""
    net = from_dict(gadgets(2, F(9, 5), F(2, 5)))
    cert = copy.deepcopy(_prove(net).certificate)
    name = next(iter(cert["tables"][0]["s"]))
    cert["tables"][0]["s"][name] = str(F(cert["tables"][0]["s"][name]) + 50)
    res = certify.verify(net, independent.reseal(cert))
    assert not res.ok


@pytest.mark.parametrize("edit, field", [
    (lambda c: c.update(groups=[["a0", "b0"], ["b0", "a1"]]), "groups"),
    (lambda c: c["P"].reverse(), "P"),
    (lambda c: c["budgets"].append({"cluster": ["a0"], "budget": {}}), "budgets"),
    (lambda c: c.update(K=0), "K"),
    (lambda c: c.update(K=[3, 3]), "K"),
    (lambda c: c.update(K=[[3, 3], [3]]), "K[1]"),
    (lambda c: c.update(K=[[3, 3], [3, 0]]), "K[1]"),
    (lambda c: c.update(K=[[3, 3]]), "K"),
    (lambda c: c.update(K=36, groups=[["a0", "b0", "a1", "b1"]], multipliers=[["s", "a0", "b0", "a1", "b1"]]), "groups"),
])
def test_malformed_fields_are_named(edit, field):
    """A malformed payload field is refused with a failure naming the field."""
    net = from_dict(gadgets(2, F(9, 5), F(2, 5)))
    cert = copy.deepcopy(_prove(net).certificate)
    edit(cert)
    res = certify.verify(net, independent.reseal(cert))
    assert not res.ok and any(f.startswith(field) or field in f for f in res.failures), res.failures


def test_explain_renders_both_kinds():
    """certify explain renders both separable kinds through their own hooks."""
    for lam in (F(2, 5), F(3, 5)):
        net = from_dict(gadgets(2, F(9, 5), lam))
        md = explain(net, _prove(net).certificate).render("markdown")
        assert "cluster by cluster" in md and "gadgets-2" in md


def test_explain_names_a_level_per_station():
    """A certificate with one clip level per station is explained with those levels, not a single K."""
    from tests.real_certificates import case

    net, cert = case("separable-levels")
    md = explain(net, cert).render("markdown")
    assert "clipped at K = (2, 2, 1, 1) (a level per station of each group)" in md


@pytest.mark.slow
def test_boundary_brackets_the_sink_of_four_gadgets():
    """certify.boundary brackets lam_s* = mu_s - 4 d within 0.005, with a verified certificate at each end."""
    d = F(throughput()).limit_denominator(10**6)
    mu = 4 * d + F(1, 2)
    net = from_dict(gadgets(4, mu, F(1, 2)))
    res = certify.boundary(net, "streams[0].rate", F(1, 20), F(9, 10), tol=F(1, 200), time_limit=300)
    star = mu - 4 * F(throughput())
    assert res.stable_at is not None and res.unstable_at is not None
    assert res.stable_at <= star <= res.unstable_at and res.unstable_at - res.stable_at <= F(1, 200)
    for side in ("stable", "unstable"):
        cert = res.certificates[side]
        assert cert["kind"] == f"separable-{'foster' if side == 'stable' else 'growth'}"
        assert certify.verify(from_dict(res.documents[side]), cert).ok


def test_a_certificate_for_other_laws_is_refused():
    """A separable certificate of the exponential gadgets does not verify once a station's law is Erlang-2."""
    net = from_dict(gadgets(2, F(9, 5), F(2, 5)))
    cert = _prove(net).certificate
    erlang = from_dict(gadgets(2, F(9, 5), F(2, 5), ERLANG2))
    res = certify.verify(erlang, cert)
    assert not res.ok and any("network" in f or "phase_expansion" in f for f in res.failures), res.failures


def test_phased_streams_are_refused():
    """Phase-type interarrival laws are not expanded by the separable kinds: no separable try, and a file is refused."""
    doc = gadgets(2, F(9, 5), F(2, 5))
    doc["streams"][0]["interarrival"] = ERLANG2
    net = from_dict(doc)
    chain = markov_chain(net)
    assert separable_tries(chain, ["table"]) == []
    st = default_structure(chain, 2)
    assert "exponential interarrival" in (check_separable(chain, st, [], {}).failures[0])


@pytest.mark.slow
def test_a_depth_three_cascade_with_an_erlang_head_needs_the_merged_groups():
    """bench/variants.py's depth-3 cascade (seed 1: Erlang-2 service at its head station 1) at 0.97 of its exact
    boundary: the default groups find no certificate, the merged group (its wide LP by the interior-point method)
    does, and the certificate holds state by state."""
    from pathlib import Path

    net = certify.load(Path(__file__).parent / "data" / "networks" / "cascade3-erlang2-head-r0.97.json")
    res = certify.prove(net, simulate=False, time_limit=300)
    assert (res.verdict, res.certificate["kind"]) == ("stable", "separable-foster")
    tries = {a.stage: a.outcome for a in res.attempts}
    assert tries["separable certificates (K=2, merged groups)"].startswith("Foster: delta")
    assert certify.verify(net, res.certificate).ok
    independent.check_separable(net, copy.deepcopy(res.certificate), count=40)
    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 120), None, True, ["table"])
    assert run_separable(ctx, SeparableTry(6)) is None  # the default groups at K = 6 find no certificate


@pytest.mark.slow
def test_a_depth_three_cascade_with_a_coxian_head_needs_a_finer_table_there():
    """bench/variants.py's depth-3 cascade (seed 1 of --cascade-laws h2,coxian: Coxian service, scv 2, at its head
    station 1) at 0.97 of its exact boundary: the merged groups at K = 2 find no certificate, K = 3 on the head pair
    with the sink as the only multiplier does, and the certificate holds state by state."""
    from pathlib import Path

    net = certify.load(Path(__file__).parent / "data" / "networks" / "cascade3-coxian-head-r0.97.json")
    res = certify.prove(net, simulate=False, time_limit=300)
    assert (res.verdict, res.certificate["kind"]) == ("stable", "separable-foster")
    assert res.certificate["K"] == [[3, 3, 2, 2, 2, 2]] and res.certificate["multipliers"] == [["7"]]
    tries = {a.stage: a.outcome for a in res.attempts}
    assert tries["separable certificates (K=2, merged groups)"].startswith("no certificate")
    assert tries["separable certificates (K=2, merged groups, 3 near phase-type service)"].startswith("Foster: delta")
    assert certify.verify(net, res.certificate).ok
    independent.check_separable(net, copy.deepcopy(res.certificate), count=40)


def _listed_fresh(chain, st):
    """Every cluster's forms, computed with nothing kept from earlier listings."""
    separable_module._listed.clear()
    return [list(cluster_forms(chain, st, c)) for c in clusters(chain, st)]


def test_forms_listed_again_equal_the_computed_ones():
    """A second listing of the same clusters (kept from the first) equals a fresh computation."""
    chain = markov_chain(from_dict(cascade(F(2), F(1, 2))))
    st = default_structure(chain, 2, True)
    fresh = _listed_fresh(chain, st)
    assert [list(cluster_forms(chain, st, c)) for c in clusters(chain, st)] == fresh


def test_a_form_handed_out_is_the_callers_own():
    """Changing a listed form's generators and coefficients does not change what the next listing gives."""
    chain = compile_chain(from_dict(gadgets(2, F(9, 5), F(2, 5))))
    st = default_structure(chain, 2)
    fresh = _listed_fresh(chain, st)
    for c in clusters(chain, st):
        for form in cluster_forms(chain, st, c):
            form.generators.clear()
            for coefs in form.coefs.values():
                for v in coefs:
                    coefs[v] += 1
            form.coefs.clear()
    assert [list(cluster_forms(chain, st, c)) for c in clusters(chain, st)] == fresh


def test_forms_are_kept_per_chain():
    """Listing one network's forms first does not change another's (the sink's rate differs)."""
    slow = compile_chain(from_dict(gadgets(2, F(9, 5), F(2, 5))))
    fast = compile_chain(from_dict(gadgets(2, F(11, 5), F(2, 5))))
    st = default_structure(slow, 2)
    want = _listed_fresh(fast, st)
    _listed_fresh(slow, st)
    got = [list(cluster_forms(fast, st, c)) for c in clusters(fast, st)]
    assert got == want and got != _listed_fresh(slow, st)


def test_forms_past_the_cap_are_not_kept(monkeypatch):
    """With a cap below the clusters' coefficients, what is kept stays under it and listings still equal the computed ones."""
    chain = markov_chain(from_dict(cascade(F(2), F(1, 2))))
    st = default_structure(chain, 2, True)
    fresh = _listed_fresh(chain, st)
    sizes = [sum(len(f) for form in forms for f in form.coefs.values()) for forms in fresh]
    monkeypatch.setattr(separable_module, "FORM_CACHE", max(sizes) - 1)
    again = _listed_fresh(chain, st)
    kept = sum(n for _, n in separable_module._listed.values())
    assert again == fresh and kept <= max(sizes) - 1


_PRIMES = [p for p in range(2, 2000) if all(p % q for q in range(2, p))]


@pytest.mark.parametrize("denominators, cap", [([2**20], 4096), ([3, 7, 2**20], 4096), (_PRIMES, 4096), (_PRIMES, 64)],
                         ids=["grid", "few", "many-primes", "past-the-cap"])
def test_the_integer_evaluation_equals_the_term_by_term_one(denominators, cap, monkeypatch):
    """form_evaluator gives form_value's exact value on the forms of a phase-type network, for coefficients over one
    grid, a few denominators, or hundreds of primes (also past the common denominator's cap, where it falls back)."""
    monkeypatch.setattr("certify.exact.clusters.MAX_COMMON_BITS", cap)
    chain = markov_chain(from_dict(_phased()))
    st = default_structure(chain, 2)
    forms = [f for fs in _listed_fresh(chain, st) for form in fs for f in form.coefs.values()]
    rng = random.Random(7)
    n = 1 + max(v for f in forms for v in f)
    theta = [F(rng.randint(-10**6, 10**6), rng.choice(denominators)) for _ in range(n)]
    value = form_evaluator(theta)
    assert [value(f) for f in forms] == [form_value(f, theta) for f in forms]
