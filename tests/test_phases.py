"""Phase-type expansion: the laws, the transitions against an independent generator, and verdicts."""

import importlib.util
import json
from fractions import Fraction as F
from functools import cache
from pathlib import Path

import numpy as np
import pytest

import certify
from certify.core.errors import NetworkError
from certify.core.model import Distribution
from certify.io.loader import from_dict
from certify.markov.drift import compile_drifts
from certify.markov.laws import NotPhaseType, phase_type
from certify.markov.phases import expand, markov_chain
from certify.markov.regions import enumerate_regions, signature
from tests.test_independent_drift import lyapunov

_spec = importlib.util.spec_from_file_location("criteria", Path(__file__).resolve().parents[1] / "models" / "criteria.py")
criteria = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(criteria)


def dist(name, **params):
    return Distribution(name, tuple(sorted(params.items())))


def second_moment(ph):
    """E[T^2] = 2 alpha (-S)^{-2} 1, by solving (-S) m1 = 1 and (-S) m2 = m1 exactly."""
    n = ph.n
    S = [[F(0)] * n for _ in range(n)]
    for i in range(n):
        S[i][i] = ph.exit[i] + sum((r for a, _, r in ph.moves if a == i), F(0))
    for a, b, r in ph.moves:
        S[a][b] -= r

    def solve(rhs):
        A = [row[:] + [v] for row, v in zip(S, rhs)]
        for c in range(n):
            p = next(r for r in range(c, n) if A[r][c])
            A[c], A[p] = A[p], A[c]
            for r in range(n):
                if r != c and A[r][c]:
                    f = A[r][c] / A[c][c]
                    A[r] = [x - f * y for x, y in zip(A[r], A[c])]
        return [A[i][n] / A[i][i] for i in range(n)]

    m1 = solve([F(1)] * n)
    m2 = solve(m1)
    return 2 * sum((a * v for a, v in zip(ph.alpha, m2)), F(0))


@pytest.mark.parametrize(
    "d,rate,scv",
    [
        (dist("erlang", k=3), F(3, 2), F(1, 3)),
        (dist("gamma", scv=F(1, 4)), F(3, 2), F(1, 4)),
        (dist("hyperexponential", scv=F(5, 3)), F(3, 2), F(5, 3)),
        (dist("hyperexponential", probs=(F(1, 2), F(1, 2)), rates=(F(3, 4), F(3, 2))), F(1), F(11, 9)),
        (dist("coxian", probs=(F(1, 4),), rates=(F(2), F(2, 3))), F(8, 7), F(79, 49)),
        (dist("coxian", scv=F(1, 2)), F(3, 2), F(1, 2)),
        (dist("coxian", scv=F(1)), F(1), F(1)),
        (dist("coxian", scv=F(37, 7)), F(2, 3), F(37, 7)),
        (dist("coxian", scv=F(8)), F(5), F(8)),
    ],
)
def test_phase_laws_have_the_right_moments(d, rate, scv):
    """Each expansion has mean 1/rate and the squared coefficient of variation of its closed form."""
    ph = phase_type(d, rate)
    assert ph.mean == 1 / rate and ph.proper()
    assert second_moment(ph) / ph.mean**2 - 1 == scv


@pytest.mark.parametrize(
    "d", [dist("deterministic"), dist("lognormal", scv=F(2)), dist("gamma", scv=F(2, 3)), dist("hyperexponential", scv=F(2))]
)
def test_laws_without_exact_phases_are_refused(d):
    """Deterministic, lognormal, non-Erlang gamma and irrational balanced H2 have no exact phase form."""
    with pytest.raises(NotPhaseType):
        phase_type(d, F(1))


def ph_network(seed):
    """A random 3-station network with phase-type service, a phase-type stream, feedback (also into itself) and ties."""
    rng = np.random.default_rng(seed)
    laws = [
        None,
        {"dist": "erlang", "k": 2},
        {"dist": "hyperexponential", "probs": [0.5, 0.5], "rates": [0.75, 1.5]},
        {"dist": "coxian", "rates": [1.5, 1.5], "probs": [0.5]},
    ]
    stations = {}
    for s in "123":
        mu = 1
        law = laws[int(rng.integers(len(laws)))]
        stations[s] = {"mu": mu} | ({"service": law} if law else {})
    stations["1"]["service"] = laws[2]  # at least one phase-type station
    return from_dict(
        {
            "format": "jsq-network/1",
            "name": f"random-ph-{seed}",
            "stations": stations,
            "streams": [
                {"choice": ["1", "2"], "rate": 0.8, "interarrival": {"dist": "erlang", "k": 2}},
                {"choice": ["2", "3"], "rate": 0.5},
                {"choices": [{"set": ["1", "3"], "prob": 0.5}, {"set": ["3"], "prob": 0.5}], "rate": 0.5,
                 "interarrival": {"dist": "hyperexponential", "probs": [0.5, 0.5], "rates": [1, "1/3"]}},
            ],
            "feedback": [
                {"from": "1", "choice": ["1", "2"], "prob": 0.3},
                {"from": "2", "choice": ["3"], "prob": 0.2},
                {"from": "3", "choice": ["1", "3"], "prob": 0.25},
            ],
            "tie_breaking": [{"set": ["1", "2"], "probs": {"1": 0.7, "2": 0.3}}],
        }
    )


def phase_generator(net, x, phi):
    """Transitions {(new x, new phases): rate} out of (x, phi), written directly from the network's rules."""
    ids = net.station_ids
    ph_st = [i for i, s in enumerate(net.stations) if not s.service.is_exponential]
    ph_sm = [k for k, s in enumerate(net.streams) if not s.interarrival.is_exponential]
    laws = {i: phase_type(net.stations[i].service, net.stations[i].mu) for i in ph_st}
    slaws = {k: phase_type(net.streams[k].interarrival, net.streams[k].rate) for k in ph_sm}
    out = {}

    def emit(y, ph, rate):
        key = (tuple(y), tuple(ph))
        if rate and key != (tuple(x), tuple(phi)):
            out[key] = out.get(key, F(0)) + rate

    def join(choice, y, ph, rate):
        m = min(y[ids.index(s)] for s in choice)
        tied = tuple(s for s in choice if y[ids.index(s)] == m)
        for s, p in net.tie_probs(tied).items():
            j = ids.index(s)
            z = list(y)
            z[j] += 1
            if j in laws and y[j] == 0:
                for q, a in enumerate(laws[j].alpha):
                    f = list(ph)
                    f[ph_st.index(j)] = q
                    emit(z, f, rate * p * a)
            else:
                emit(z, ph, rate * p)

    for k, st in enumerate(net.streams):
        if k not in slaws:
            for choice, rate in st.routing_sets():
                join(choice, x, phi, rate)
            continue
        law, pos = slaws[k], len(ph_st) + ph_sm.index(k)
        cur = phi[pos]
        for a, b, r in law.moves:
            if a == cur:
                emit(x, phi[:pos] + (b,) + phi[pos + 1 :], r)
        for q, al in enumerate(law.alpha):
            f = phi[:pos] + (q,) + phi[pos + 1 :]
            for choice, rate in st.routing_sets():
                join(choice, x, f, law.exit[cur] * al * rate / st.rate)
    for i, station in enumerate(net.stations):
        if x[i] == 0:
            continue
        routes = [(f.choice, f.prob) for f in net.feedback if f.source == station.id]
        routes.append((None, 1 - sum((p for _, p in routes), F(0))))
        y = list(x)
        y[i] -= 1
        if i not in laws:
            for choice, p in routes:
                if choice is None:
                    emit(y, phi, station.mu * p)
                else:
                    join(choice, y, phi, station.mu * p)
            continue
        law, pos = laws[i], ph_st.index(i)
        cur = phi[pos]
        for a, b, r in law.moves:
            if a == cur:
                emit(x, phi[:pos] + (b,) + phi[pos + 1 :], r)
        nexts = [(q, a) for q, a in enumerate(law.alpha) if a] if y[i] > 0 else [(-1, F(1))]
        for q, a in nexts:
            f = phi[:pos] + (q,) + phi[pos + 1 :]
            for choice, p in routes:
                if choice is None:
                    emit(y, f, law.exit[cur] * a * p)
                else:
                    join(choice, y, f, law.exit[cur] * a * p)
    return out


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_transitions_match_an_independent_generator(seed):
    """At random (x, phases) the compiled (region, phase) transitions equal those written from the rules."""
    net = ph_network(seed)
    chain = expand(net)
    levels = chain.base_levels
    drifts = compile_drifts(chain, enumerate_regions(chain, levels))
    by_key = {(d.region.key, d.phase): d for d in drifts}
    D = chain.scale
    rng = np.random.default_rng(seed)
    space = chain.phase_space()
    npst = len(chain.ph_stations)
    checked = 0
    for _ in range(150):
        x = tuple(int(v) for v in rng.integers(0, 5, size=3))
        fits = [p for p in space if all((p[k] < 0) == (x[i] == 0) for k, i in enumerate(chain.ph_stations))]
        phi = fits[int(rng.integers(len(fits)))]
        item = by_key[(signature(chain, x, levels), phi)]
        got = {}
        for d, t, r in item.moves:
            y = list(x)
            for a, s in d:
                y[a] += s
            got[(tuple(y), t)] = got.get((tuple(y), t), F(0)) + F(r, D)
        assert got == phase_generator(net, x, phi), (x, phi)
        mean = [sum((r * (y[a] - x[a]) for (y, _), r in got.items()), F(0)) for a in range(3)]
        assert mean == [F(m, D) for m in item.mean]
        checked += 1
    assert checked == 150 and npst >= 1


def h2_tie_network(lam12, gamma, lam3, service2):
    """Stations 1, 2 share a JSQ stream, station 2 has phase-type service; 1 feeds 3; 3 has its own stream."""
    return from_dict(
        {
            "format": "jsq-network/1",
            "name": "ph-tie",
            "stations": {"1": {"mu": 1}, "2": {"mu": 1, "service": service2}, "3": {"mu": 1}},
            "streams": [{"choice": ["1", "2"], "rate": str(lam12)}, {"choice": ["3"], "rate": str(lam3)}],
            "feedback": [{"from": "1", "choice": ["3"], "prob": 1}],
            "tie_breaking": [{"set": ["1", "2"], "probs": {"1": str(gamma), "2": str(1 - gamma)}}],
        }
    )


H2_MILD = {"dist": "hyperexponential", "probs": [0.9, 0.1], "rates": [1.8, 0.2]}
H2_HARSH = {"dist": "hyperexponential", "probs": [0.95, 0.05], "rates": [5, "5/81"]}


@cache
def _subsystem_throughput_ph(lam12, gamma, service2_json):
    """(d_1, lost rate) of the truncated 1-2 phase CTMC (N = 120, several seconds), computed once per process.

    It does not depend on the load, so the 0.99 and 1.01 cases of one law share it (one xdist group).
    """
    ph2 = criteria.phases_of(json.loads(service2_json), 1.0)
    return criteria.subsystem_throughput_ph(float(lam12), float(gamma), criteria.phases_of(None, 1.0), ph2, N=120)


@pytest.mark.parametrize(
    "lam12,gamma,service2",
    [pytest.param(F(6, 5), F(1, 2), H2_MILD, id="H2-mild", marks=pytest.mark.xdist_group("phases-H2-mild")),
     pytest.param(F(1), F(3, 10), {"dist": "erlang", "k": 3}, id="Erlang3", marks=pytest.mark.xdist_group("phases-Erlang3")),
     pytest.param(F(3, 2), F(1, 2), H2_HARSH, id="H2-harsh", marks=pytest.mark.xdist_group("phases-H2-harsh"))],
)
@pytest.mark.parametrize("load", [F(99, 100), F(101, 100)])
def test_distribution_networks_decided_within_one_percent(lam12, gamma, service2, load):
    """Station 3's effective load lam3 + d_1 (d_1 from the truncated phase CTMC) at 0.99 is stable, at 1.01 unstable."""
    d1, lost = _subsystem_throughput_ph(lam12, gamma, json.dumps(service2, sort_keys=True))
    assert lost < 1e-6
    lam3 = (load - F(d1)).limit_denominator(10**6)
    net = h2_tie_network(lam12, gamma, lam3, service2)
    res = certify.prove(net)
    assert res.verdict == ("stable" if load < 1 else "unstable"), res.reasons
    assert res.expansion and "service at 2" in res.expansion[0]
    assert certify.verify(net, res.certificate).ok


def test_phase_certificate_names_and_guards_its_expansion(corpus_dir):
    """A phase-type certificate carries the expansion; changing the network's law makes verify refuse it."""
    net = certify.load(corpus_dir / "ce-dist-B-h2.json")
    res = certify.prove(net)
    assert res.verdict == "unstable" and res.certificate["phase_expansion"]
    assert "phase-type" in res.table()
    other = h2_tie_network(F(3, 2), F(1, 2), F(11, 50), {"dist": "hyperexponential", "probs": [0.9, 0.1], "rates": [1.8, 0.2]})
    assert not certify.verify(other, res.certificate).ok


def test_gamma_service_without_phases_stays_general():
    """A lognormal station gets no Markovian certificate: only general-semantics answers, with the reason."""
    net = h2_tie_network(F(1), F(1, 2), F(1, 10), {"dist": "lognormal", "scv": 2})
    res = certify.prove(net, simulate=False)
    assert res.semantics == "general" and not res.expansion
    assert res.verdict == "stable" and res.certificate["kind"] == "fluid" or res.verdict == "undecided"
    if res.verdict == "undecided":
        assert any("no finite phase-type representation" in r for r in res.reasons)


def test_finite_capacity_with_phases_is_stable():
    """Every station capped and phase-type service: a finite irreducible chain, proved stable."""
    net = from_dict(
        {
            "format": "jsq-network/1",
            "name": "cap",
            "stations": {"1": {"mu": 1, "capacity": 2, "service": {"dist": "erlang", "k": 2}}, "2": {"mu": 1, "capacity": 2}},
            "streams": [{"choice": ["1", "2"], "rate": 3}],
        }
    )
    res = certify.prove(net)
    assert res.verdict == "stable" and res.expansion


def test_expansion_uses_phase_means_for_the_mean_data():
    """The chain's mean service rates are those of the phases as written (here exactly 1/mean)."""
    net = h2_tie_network(F(1), F(1, 2), F(1, 10), {"dist": "hyperexponential", "probs": [0.9, 0.1], "rates": [1.8, 0.2]})
    ch = markov_chain(net)
    assert ch.has_phases and ch.mu[1] == 1 / (F(9, 10) / F(9, 5) + F(1, 10) / F(1, 5))


@pytest.mark.parametrize(
    "service,rule",
    [
        ({"dist": "coxian", "rates": [2, 2], "probs": [0.5, 0.5]}, "needs 1"),
        ({"dist": "coxian", "rates": [2, 2], "probs": [0.2]}, "must equal the mean"),
        ({"dist": "coxian", "probs": [0.5]}, "rates"),
    ],
)
def test_bad_coxian_is_refused(service, rule):
    """A Coxian law with the wrong number of probabilities, a wrong mean or no rates gets one clear error."""
    with pytest.raises(NetworkError, match=rule):
        h2_tie_network(F(1), F(1, 2), F(1, 10), service)


def test_phase_table_certificate_drift_from_the_rules():
    """A phase-type table certificate: AV(x, phases) <= -delta at random far states, from the independent generator."""
    ph2 = criteria.phases_of(H2_MILD, 1.0)
    d1, _ = criteria.subsystem_throughput_ph(1.2, 0.5, criteria.phases_of(None, 1.0), ph2, N=80)
    net = h2_tie_network(F(6, 5), F(1, 2), (F(97, 100) - F(d1)).limit_denominator(10**6), H2_MILD)
    res = certify.prove(net)
    cert = res.certificate
    assert res.verdict == "stable" and cert["template"] == "table"
    K = cert["options"]["K"]
    V = lyapunov(cert, net.station_ids)
    delta = F(cert["claims"]["delta"])
    N = int(F(cert["claims"]["exceptional_set"]["bound"]))
    rng = np.random.default_rng(11)
    for _ in range(200):
        x = [int(rng.integers(0, 2 * K)), int(rng.integers(0, 2 * K)), N + int(rng.integers(0, N))]
        if rng.random() < 0.3:
            x[int(rng.integers(2))] += N
        phi = (-1 if x[1] == 0 else int(rng.integers(2)),)
        out = phase_generator(net, tuple(x), phi)
        av = sum((r * (V(y, f) - V(x, phi)) for (y, f), r in out.items()), F(0))
        assert av <= -delta, (x, phi)


@pytest.mark.parametrize("service, phrase", [
    ({"dist": "coxian", "scv": 0.4}, "must be >= 0.5 for a Coxian-2 law"),
    ({"dist": "coxian", "scv": 2, "rates": [1, 2], "probs": [0.5]}, 'give either "scv"'),
])
def test_coxian_scv_is_checked(service, phrase):
    """A Coxian given by its scv needs scv >= 1/2 and no explicit phases beside it."""
    doc = {"format": "jsq-network/1", "stations": {"1": {"mu": 1, "service": service}},
           "streams": [{"choice": ["1"], "rate": 0.5}]}
    with pytest.raises(NetworkError) as exc:
        from_dict(doc)
    assert phrase in str(exc.value)


def test_scv_grid_gives_exact_coxian_laws():
    """Varying stations.1.service.scv over a grid gives a network at every point whose law has exactly that scv."""
    from certify.workflows.paths import apply_values, base_doc, path_tokens

    net = from_dict({"format": "jsq-network/1", "stations": {"1": {"mu": 2, "service": {"dist": "coxian", "scv": 1}}},
                     "streams": [{"choice": ["1"], "rate": 1}]})
    for scv in (F(1, 2), F(3, 4), F(5, 3), F(8)):
        doc = apply_values(base_doc(net), [path_tokens("stations.1.service.scv")], [scv])
        ph = phase_type(from_dict(doc).stations[0].service, F(2))
        assert ph.mean == F(1, 2) and second_moment(ph) / ph.mean**2 - 1 == scv
