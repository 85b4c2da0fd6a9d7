"""Real certificates of every kind, built once per test session (the forger mutates them, explain writes them out).

``case(name)`` gives ``(network, certificate)`` for a name of :data:`CASES`
(mostly J = 2..3, each built in a few seconds) or :data:`SLOW_CASES`.
"""

from __future__ import annotations

import time
from fractions import Fraction
from functools import cache
from pathlib import Path

import certify
from certify.core.certificate import Certificate
from certify.io.loader import from_dict, load
from certify.proof.context import ProofContext, RunState
from certify.proof.pipeline import prove
from certify.proof.result import Result
from certify.proof.sink import SinkGrowth
from tests.conftest import CORPUS

MODELS = Path(__file__).resolve().parents[1] / "models"
DATA = Path(__file__).resolve().parent / "data" / "networks"
H2_MILD = {"dist": "hyperexponential", "probs": [0.9, 0.1], "rates": [1.8, 0.2]}


class GrowthStages:
    """The sink-growth stage's two instances in the pipeline's order, run as one stage: the second tries the sinks
    whose R' splits into the separable try's groups (inside ``prove`` they wait for that try, which decides them)."""

    def run(self, ctx: ProofContext):
        """The first instance's outcome when it decides, else the second's."""
        out = SinkGrowth(prove).run(ctx)
        return out if out.decision is not None else SinkGrowth(prove, after_separable=True).run(ctx)


def stage_context(net, seconds: float = 60, templates: tuple[str, ...] = ("table",)) -> ProofContext:
    """A fresh run's context on ``net`` with ``seconds`` to go, for a stage run alone."""
    return ProofContext(net, Result(net.name), RunState(time.perf_counter() + seconds), None, True, list(templates))


def run_stage(stage, net, seconds: float = 60, templates: tuple[str, ...] = ("table",)):
    """The decision of one proof stage run alone on ``net`` within ``seconds`` (asserted to be one).

    The sink stages' own instances run inside ``prove`` from six stations on (below, late instances after the
    Markovian stage); the builders below run them alone.
    """
    decision = stage.run(stage_context(net, seconds, templates)).decision
    assert decision is not None
    return decision


def sink_growth_decision(network_file: str, seconds: float = 240):
    """``(network, decision)``: the sink-growth stage alone on a stored network (tests/data/networks), within
    ``seconds``.

    240 s by default: the stage stops once it decides (7-9 s alone on the stored cases); its nested run gets a share
    of a share of this, which a loaded machine (the suite beside the slow suite, a corpus run or a simulation) cut
    short at 60 s.
    """
    net = load(DATA / network_file)
    return net, run_stage(GrowthStages(), net, seconds, ("quadratic",))


def _prove(net, **kw):
    res = certify.prove(net, simulate=False, time_limit=60, **kw)
    assert res.certificate is not None, res.reasons
    return res.certificate


def _fluid(net, kind):
    from certify.certificates import fluid_certificate
    from certify.exact import check_fluid
    from certify.markov.chain import compile_chain
    from certify.markov.fluid import fluid_faces
    from certify.search.fluid import fluid_candidates, solve_fluid

    chain = compile_chain(net)
    faces = fluid_faces(chain)
    lp = solve_fluid(chain, faces, kind)
    assert lp.found
    coeffs = next(c for c in fluid_candidates(chain, kind, lp.coeffs) if check_fluid(chain, kind, c, faces).ok)
    return fluid_certificate(net, chain, kind, coeffs, check_fluid(chain, kind, coeffs, faces))


def _fluid_flow(net, depth=0):
    """A linear fluid certificate with w = 1, checked by the max-flow bound at an inflow depth (what prove writes for
    8+ station orbits)."""
    from fractions import Fraction

    from certify.certificates import fluid_flow_certificate
    from certify.exact import check_fluid_flow
    from certify.markov.chain import compile_chain

    chain = compile_chain(net)
    w = [Fraction(1)] * chain.J
    chk = check_fluid_flow(chain, w, depth)
    assert chk.ok, chk.failures
    return fluid_flow_certificate(net, chain, w, chk, depth)


def _fluid_symmetric(net):
    """A linear fluid certificate found and checked on one face per orbit of the station classes (records them)."""
    from certify.certificates import fluid_certificate
    from certify.exact import check_fluid
    from certify.markov.chain import compile_chain
    from certify.markov.fluid import fluid_faces
    from certify.markov.symmetry import station_classes
    from certify.search.fluid import fluid_candidates, solve_fluid

    chain = compile_chain(net)
    sym = station_classes(chain)
    assert not sym.trivial
    faces = fluid_faces(chain, symmetry=sym)
    lp = solve_fluid(chain, faces, "linear", classes=sym.classes)
    assert lp.found
    coeffs = next(c for c in fluid_candidates(chain, "linear", lp.coeffs, classes=sym.classes)
                  if check_fluid(chain, "linear", c, faces, symmetry=sym).ok)
    return fluid_certificate(net, chain, "linear", coeffs, check_fluid(chain, "linear", coeffs, faces, symmetry=sym), symmetry=sym)


def _ph_tie():
    """Two stations sharing one stream, station 2 with H2 service: a phase-type table certificate."""
    return from_dict({
        "format": "jsq-network/1", "name": "ph-tie",
        "stations": {"1": {"mu": 1}, "2": {"mu": 1, "service": H2_MILD}},
        "streams": [{"choice": ["1", "2"], "rate": 1}],
    })


TRAP = {
    "format": "jsq-network/1", "name": "trap",
    "stations": {"1": {"mu": 1}, "2": {"mu": 1}},
    "streams": [{"choice": ["1"], "rate": 0.5}, {"choice": ["2"], "rate": 0.1}],
    "feedback": [{"from": "2", "choice": ["2"], "prob": 1}],
}

# Every station but 3 capped (station 1: 2, station 2: 1), feedback from 3 into {1, 3}: the overflow kinds.
def _spill(rate):
    return lambda: from_dict({
        "format": "jsq-network/1", "name": f"spill-{rate}",
        "stations": {"1": {"mu": 1, "capacity": 2}, "2": {"mu": 1, "capacity": 1}, "3": {"mu": 2}},
        "streams": [{"choice": ["1", "2", "3"], "rate": rate}],
        "feedback": [{"from": "3", "choice": ["1", "3"], "prob": 0.25}],
    })


# Station 1 capped (2), station 2 uncapped with its own stream 1.2 > mu2: flow balance with a lossy set.
LOSSY = {
    "format": "jsq-network/1", "name": "lossy",
    "stations": {"1": {"mu": 1, "capacity": 2}, "2": {"mu": 1}},
    "streams": [{"choice": ["1"], "rate": 0.5}, {"choice": ["2"], "rate": 1.2}],
}


# Two tie-breaking gadgets feeding one sink (tests/test_separable.py): the separable kinds, at 95% and 106% of the boundary.
def _gadgets(lam_s, law=None):
    from tests.test_separable import gadgets

    return lambda: from_dict(gadgets(2, Fraction(9, 5), lam_s, law))


def _erlang_sink(lam_s):
    from tests.test_separable import gadgets

    def build():
        doc = gadgets(2, Fraction(9, 5), lam_s)
        doc["stations"]["s"]["service"] = {"dist": "erlang", "k": 2}
        return from_dict(doc)

    return build


def _beyond_phases(lam_s):
    """Three gadgets with Erlang-4 service at both stations: 5^6 = 15,625 phase vectors, past MAX_PHASE_VECTORS."""
    from tests.test_separable import gadgets

    erlang4 = {"dist": "erlang", "k": 4}
    return lambda: from_dict(gadgets(3, Fraction(27, 10), lam_s, erlang4, erlang4))


def _coxian_cascade(lam_5):
    from tests.test_separable import COXIAN, cascade

    def build():
        doc = cascade(Fraction(2), lam_5)
        doc["stations"]["1"]["service"] = COXIAN
        return from_dict(doc)

    return build


def _raised(net):
    """The separable try with a level per station (K = 1, 2 beside the Coxian head) alone: prove reaches it only on
    depth-3 cascades, after the merged groups fail."""
    import time

    from certify.proof.context import ProofContext, RunState
    from certify.proof.result import Result
    from certify.proof.separable import SeparableTry, run_separable

    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 60), None, True, ["table"])
    return run_separable(ctx, SeparableTry(1, True, True)).decision.certificate


def _raised_growth(net):
    """A separable growth certificate on the same shape (prove's raised try is Foster only; the kind takes levels)."""
    from certify.certificates.kinds.separable import separable_growth_certificate
    from certify.exact.separable_growth import check_separable_growth, growth_structure
    from certify.markov.phases import markov_chain
    from certify.search.separable import raised_structure, search_separable_growth

    chain = markov_chain(net)
    st = raised_structure(chain, 1)
    gst = growth_structure(st.groups, st.K, st.phases)
    grow = search_separable_growth(chain, gst, None, None)
    return separable_growth_certificate(net, chain, gst, grow.theta, check_separable_growth(chain, gst, grow.theta))


def _sink_growth(net):
    """The sink-growth stage alone (prove runs it only from six stations on): a gadget overloading its sink."""
    return run_stage(GrowthStages(), net).certificate


def _sink_box(net):
    """A Poisson-table sink-growth certificate: a table over both stations of R' with a level per station, (6, 4)."""
    import time

    from certify.certificates import nested_verdict
    from certify.certificates.kinds.sink_growth import sink_growth_certificate
    from certify.exact.sink import check_sink_growth, reduced_network
    from certify.markov.chain import compile_chain
    from certify.proof.context import ProofContext, RunState
    from certify.proof.poisson import box
    from certify.proof.result import Result

    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 60), None, True, ["table"])
    red = reduced_network(net, "s")
    chain = compile_chain(red.network)
    K = (6, 4)
    _, rates = box(ctx, red, chain, K, time.perf_counter() + 60)
    assert rates.growth is not None
    w, table, rate = rates.growth
    sub = _prove(red.network)
    fast = list(range(chain.J))
    chk = check_sink_growth(net, "s", w, rate, nested_verdict(red.network, sub), table, fast, K)
    assert chk.ok, chk.failures
    return sink_growth_certificate(net, "s", w, rate, sub, chk, table, fast, K, ())


def _sink_net():
    from tests.test_separable import at_load

    return at_load(1, 1.2)


def _pair_net():
    from tests.test_sink_set import pair_doc

    return from_dict(pair_doc(2, 1.1))  # {s} needs its forced inflow: the certificate lists it in subsets


def _drain_net():
    from tests.test_separable import at_load

    return at_load(1, 0.95)


def _drain(net):
    from tests.test_drain import drain_certificate

    return drain_certificate(net, "s", ["a0", "b0"], 3)


def _drain_ties_net():
    from tests.test_drain_ties import tie_gadget_doc

    return from_dict(tie_gadget_doc(Fraction(8, 5), Fraction(2, 5), Fraction(1, 2)))  # ties send a0 2/25 more


def _drain_mixed(net):
    from tests.test_drain import drain_certificate

    return drain_certificate(net, "s", ["a0", "b0"], (3, 2))  # table.K a list: one clip level per fast station


def _drain_pair_net():
    from tests.test_drain import pair_with_side_doc

    return from_dict(pair_with_side_doc(0.95))  # {s} needs its own g, nondecreasing along x


def _drain_pair_box(net):
    """A Poisson-table sink-drain certificate of the pair: levels 2 on every station of R', the subset {s}'s own g from
    the same box, nondecreasing along its directions (certify.search.cell_rows.SubsetRate, stop 52)."""
    import time

    from certify.certificates.kinds.sink_drain import sink_drain_certificate
    from certify.exact.drain import check_sink_drain
    from certify.exact.sink import reduced_network
    from certify.markov.chain import compile_chain
    from certify.markov.drift import compile_drifts
    from certify.proof.context import ProofContext, RunState
    from certify.proof.poisson import box
    from certify.proof.result import Result
    from certify.search.drain import solve_reduced_lyapunov

    ctx = ProofContext(net, Result(net.name), RunState(time.perf_counter() + 60), None, True, ["table"])
    red = reduced_network(net, ("s", "t"))
    chain = compile_chain(red.network)
    K = (2,) * chain.J
    _, rates = box(ctx, red, chain, K, time.perf_counter() + 60)
    assert rates.drain is not None and [H for H, *_ in rates.drain_subsets] == [("s",)]
    P, _ = solve_reduced_lyapunov(chain, compile_drifts(chain))
    w, table, rate = rates.drain
    fast, subsets = list(range(chain.J)), list(rates.drain_subsets)
    chk = check_sink_drain(net, ("s", "t"), P, w, rate, table, fast, K, subsets=subsets)
    assert chk.ok, chk.failures
    return sink_drain_certificate(net, ("s", "t"), P, w, rate, chk, table, fast, K, subsets)


def _drain_set_ties_net():
    from tests.test_drain_ties import two_sink_doc

    return from_dict(two_sink_doc())  # a stream's tie with t sends a 2/25 more; {s} has its own g, found on R'_eps


def _drain_set_ties(net):
    from tests.test_drain import drain_certificate

    return drain_certificate(net, ("s", "t"), ["a", "b"], 3)


def _drain_pair(net):
    from tests.test_drain import drain_certificate

    return drain_certificate(net, ("s", "t"), ["a0", "b0", "a1", "b1"], 2)


def _drain_stage(net):
    """The sink-drain stage alone (prove runs it only from six stations on)."""
    from certify.proof.drain import SinkDrain

    return run_stage(SinkDrain(), net).certificate


def _theorem(net):
    from certify.certificates import theorem_certificate
    from certify.exact.theory import theorem_verdicts
    from certify.markov.chain import compile_chain

    return theorem_certificate(net, next(t for t in theorem_verdicts(compile_chain(net), net) if t.decides))


# name -> (network loader, certificate builder, expected kind); J = 2..3 (a few up to 7), each built in a few seconds.
CASES = {
    "quadratic": (lambda: load(CORPUS / "dhk2-A-m0.90.json"), lambda n: _prove(n, templates=["quadratic"]), "foster"),
    "table": (lambda: load(MODELS / "tie-breaking-J3.json"), lambda n: _prove(n, templates=["table"]), "foster"),
    "table-phases": (_ph_tie, lambda n: _prove(n, templates=["table"]), "foster"),
    "piecewise": (lambda: load(CORPUS / "dhk2-B-m0.97.json"), lambda n: _prove(n, templates=["piecewise"]), "foster"),
    "quartic": (lambda: load(CORPUS / "dhk2-A-m0.90.json"), lambda n: _prove(n, templates=["quartic"]), "foster"),
    "growth": (lambda: load(CORPUS / "ce-tie-expA-g1.00.json"), lambda n: _prove(n, templates=["quadratic"]), "growth"),
    "growth-table": (lambda: load(CORPUS / "ce-dist-A-exp.json"), lambda n: _prove(n), "growth"),
    "static-split": (lambda: load(CORPUS / "mmjsq-k2-m1.05.json"), lambda n: _prove(n, templates=["quadratic"]), "static-split"),
    "fluid-linear": (lambda: load(CORPUS / "dhk2-A-m0.97.json"), lambda n: _fluid(n, "linear"), "fluid"),
    "fluid-quadratic": (lambda: load(CORPUS / "dhk2-A-m0.97.json"), lambda n: _fluid(n, "quadratic"), "fluid"),
    "fluid-symmetric": (lambda: load(MODELS / "power-of-two-J4.toml"), _fluid_symmetric, "fluid"),
    "fluid-flow": (lambda: load(MODELS / "homogeneous-feedback-J3.json"), _fluid_flow, "fluid-flow"),
    "fluid-flow-inflow": (lambda: load(DATA / "inflow-feedback-J3.json"), lambda n: _fluid_flow(n, 2), "fluid-flow"),
    "quadratic-symmetric": (lambda: load(MODELS / "power-of-two-J4.toml"), lambda n: _prove(n, templates=["quadratic"]), "foster"),
    "closed-set": (lambda: from_dict(TRAP), _prove, "closed-set"),
    "finite-state": (lambda: load(CORPUS / "loss2-a1.6-K3.json"), _prove, "finite-state"),
    "theorem": (lambda: load(CORPUS / "mmjsq-k2-m0.90.json"), _theorem, "theorem"),
    "overflow-foster": (_spill(2), _prove, "overflow-foster"),
    "overflow-growth": (_spill(3.5), _prove, "overflow-growth"),
    "static-split-lossy": (lambda: from_dict(LOSSY), _prove, "static-split"),
    "separable-foster": (_gadgets(Fraction(2, 5)), _prove, "separable-foster"),
    "separable-growth": (_gadgets(Fraction(3, 5)), _prove, "separable-growth"),
    "sink-growth": (_sink_net, _sink_growth, "sink-growth"),
    "sink-set": (_pair_net, _sink_growth, "sink-growth"),
    "sink-growth-box": (_sink_net, _sink_box, "sink-growth"),  # a level per station of R' (certify.proof.poisson)
    "sink-drain": (_drain_net, _drain, "sink-drain"),
    "sink-drain-set": (_drain_pair_net, _drain_pair, "sink-drain"),
    "sink-drain-set-box": (_drain_pair_net, _drain_pair_box, "sink-drain"),  # a box with a subset's g (stop 52)
    "sink-drain-mixed": (_drain_net, _drain_mixed, "sink-drain"),
    "sink-drain-ties": (_drain_ties_net, _drain, "sink-drain"),  # W on R' with the ties' excess stream
    "sink-drain-set-ties": (_drain_set_ties_net, _drain_set_ties, "sink-drain"),  # a subset's g on R'_eps (stop 47)
    # four sinks, a union of routing sets (certify.search.sink_sets) of bench/frontier.py's J = 8 seed 11
    "sink-set-face": (lambda: load(DATA / "random-J8-s11-r0.915.json"), _sink_growth, "sink-growth"),
    "sink-drain-face": (lambda: load(DATA / "random-J8-s11-r0.905.json"), _drain_stage, "sink-drain"),
    "separable-phases": (_gadgets(Fraction(2, 5), {"dist": "erlang", "k": 2}), _prove, "separable-foster"),
    # a level per station: K = 2 on the Coxian head pair of a depth-2 cascade, 1 on the pair downstream
    "separable-levels": (_coxian_cascade(Fraction(1, 2)), _raised, "separable-foster"),
    "separable-levels-growth": (_coxian_cascade(Fraction(2)), _raised_growth, "separable-growth"),
    # the sink's Erlang-2 service: the sink a group of its own, its table over its phase
    "separable-sink-phases": (_erlang_sink(Fraction(2, 5)), _prove, "separable-foster"),
    "separable-sink-phases-growth": (_erlang_sink(Fraction(3, 5)), _prove, "separable-growth"),
    # past the phase-vector limit: the whole chain is never listed, each cluster sees only its own phases
    # (d = 0.6485 per gadget from its own chain: the boundary is lam_s = 0.754)
    "separable-beyond-phases": (_beyond_phases(Fraction(3, 5)), _prove, "separable-foster"),
    "separable-beyond-phases-growth": (_beyond_phases(Fraction(9, 10)), _prove, "separable-growth"),
    "fj-foster": (lambda: load(CORPUS / "fjr-n3k2-max-333333-rho0.90.json"), lambda n: _prove(n), "fork-join-foster"),
    "fj-capacity": (lambda: load(CORPUS / "fjr-n3k2-max-333333-rho1.05.json"), lambda n: _prove(n), "fork-join-capacity"),
    "fj-independent": (lambda: load(CORPUS / "fjr-n3k3-nonmax-403030-rho0.84.json"), lambda n: _prove(n), "fork-join-independent"),
}
# Slower to build (a J = 3 phase-type growth table, about 7 s): only in the slow run.
SLOW_CASES = {
    "growth-phases": (lambda: load(CORPUS / "ce-dist-B-h2.json"), lambda n: _prove(n), "growth"),
}
ALL_CASES = {**CASES, **SLOW_CASES}


@cache
def case(name):
    """(network, original certificate) for a case, built once per session."""
    load_net, build, kind = ALL_CASES[name]
    net = load_net()
    cert = build(net)
    cert = cert.to_json() if isinstance(cert, Certificate) else cert  # the file's JSON object: what the forger mutates
    assert cert["kind"] == kind, (name, cert["kind"])
    if "table" in name:
        assert cert.get("template") == "table" or "table" in cert, name
    return net, cert


