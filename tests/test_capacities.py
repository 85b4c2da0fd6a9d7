"""Networks where only some stations have a capacity: flow balance with losses and the overflow certificates.

Independent truth: the closed form of the overflow example (docs/math/capacities.md), the
M/M/1 queue, and a state-by-state re-evaluation of every certificate (tests/independent.py).
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from certify import prove, verify
from certify.core.model import Feedback, Network, Station, Stream
from certify.exact.overflow import check_overflow, lossy_sets, transitions
from certify.markov.chain import compile_chain
from tests import independent


def spill(lam: F, cap: int = 1, mu1: F = F(1), mu2: F = F(1)) -> Network:
    """A stream of rate lam into the shorter of station 1 (capacity cap) and station 2 (no capacity)."""
    return Network("spill", (Station("1", mu1, capacity=cap), Station("2", mu2)), (Stream(lam, choice=("1", "2")),))


def own_stream(rate2: F) -> Network:
    """Station 1 (capacity 2) with its own stream 1/2; station 2 (no capacity) with its own stream ``rate2``."""
    streams = (Stream(F(1, 2), choice=("1",)), Stream(rate2, choice=("2",)))
    return Network("own", (Station("1", F(1), capacity=2), Station("2", F(1))), streams)


def proved(net: Network):
    """The result of prove, its certificate re-verified by certify and re-evaluated independently."""
    res = prove(net, time_limit=30, simulate=False)
    cert = res.certificate
    assert cert is not None, res.reasons
    assert verify(net, cert).ok
    if cert["kind"].startswith("overflow"):
        independent.check_overflow(net, cert)
    elif cert["kind"] == "static-split":
        independent.check_static_split(net, cert)
    return res


def test_uncapped_station_overloaded_by_its_own_stream_is_unstable():
    """Station 2's own stream 1.2 > mu2 = 1 makes the network unstable whatever capped station 1 does."""
    res = proved(own_stream(F(6, 5)))
    assert (res.verdict, res.certificate["kind"], res.semantics) == ("unstable", "static-split", "general")


def test_uncapped_station_below_its_rate_is_stable():
    """With station 2's own stream 4/5 < 1 the overflow certificate proves stability (an M/M/1 queue at 2)."""
    res = proved(own_stream(F(4, 5)))
    assert (res.verdict, res.certificate["kind"]) == ("stable", "overflow-foster")
    assert F(res.certificate["claims"]["delta"]) == F(1, 5)  # mu2 - lam2: the M/M/1 drift


@pytest.mark.parametrize("lam", [F(3, 2), F(8, 5), F(33, 20), F(9, 5), F(39, 20)])
def test_overflow_verdict_matches_closed_form(lam):
    """The verdict is the sign of the closed-form overflow lam^2/(1 + lam) - mu2, and delta its size."""
    D = lam * lam / (1 + lam) - 1
    res = proved(spill(lam))
    assert res.verdict == ("unstable" if D > 0 else "stable")
    assert float(F(res.certificate["claims"]["delta"])) == pytest.approx(abs(float(D)), abs=1e-6)


def test_overflow_with_feedback_and_two_capped_stations():
    """Two capped stations and feedback from the uncapped one: both sides proved, re-evaluated state by state."""
    def net(lam: F) -> Network:
        stations = (Station("1", F(1), capacity=2), Station("2", F(1), capacity=1), Station("3", F(2)))
        return Network("three", stations, (Stream(lam, choice=("1", "2", "3")),), (Feedback("3", ("1", "3"), F(1, 4)),))
    low, high = proved(net(F(2))), proved(net(F(7, 2)))
    assert (low.certificate["kind"], high.certificate["kind"]) == ("overflow-foster", "overflow-growth")
    assert (low.verdict, high.verdict) == ("stable", "unstable")


def test_static_split_of_the_uncapped_network_is_refused_with_losses():
    """A capped station's overload is lost, not queued: the uncapped network's dual certificate does not verify."""
    uncapped = Network("lossy", (Station("1", F(1)), Station("2", F(1))), (Stream(F(2), choice=("1",)), Stream(F(1, 2), choice=("2",))))
    capped = Network("lossy", (Station("1", F(1), capacity=1), Station("2", F(1))), uncapped.streams)
    cert = prove(uncapped, time_limit=30, simulate=False).certificate
    assert cert is not None and cert["kind"] == "static-split"
    chain = compile_chain(capped)
    from certify.certificates.kinds.static_split import read_static_split
    from certify.exact import check_static_split

    args = read_static_split(capped, cert).args
    chk = check_static_split(*args)
    assert not chk.ok and any("lossy set {1}" in f for f in chk.failures)
    assert lossy_sets(chain, [1, None]) == [(0,)]
    assert prove(capped, time_limit=30, simulate=False).verdict == "stable"


def test_transitions_agree_with_the_independent_generator():
    """The checker's state-by-state chain equals tests/independent.py's generator on every small state."""
    net = Network(
        "mix", (Station("1", F(1), capacity=2), Station("2", F(3, 2), capacity=1), Station("3", F(2))),
        (Stream(F(2), choice=("1", "2", "3")), Stream(F(1, 3), choice=("1", "2"))), (Feedback("3", ("2", "3"), F(1, 3)),),
    )
    chain = compile_chain(net)
    caps = [2, 1, None]
    for x in [(a, b, c) for a in range(3) for b in range(2) for c in range(5)]:
        want: dict = {}
        for y, r in independent.generator(net, x):
            if y != x:
                want[y] = want.get(y, F(0)) + r
        assert transitions(chain, caps, x) == want, x


def test_forged_overflow_table_is_refused():
    """A table whose drift has the wrong sign somewhere is refused by the exact check."""
    chain = compile_chain(spill(F(9, 5)))
    assert not check_overflow(chain, [1, None], 1, {(0,): F(0), (1,): F(0)}, "overflow-growth").ok  # D(1) = 9/5 - 2 < 0
    assert check_overflow(chain, [1, None], 1, {(0,): F(0), (1,): F(9, 14)}, "overflow-growth").ok


def test_two_uncapped_stations_say_what_is_not_analysed():
    """With two uncapped stations and no overload, prove says which searches it did not run."""
    net = Network("two-free", (Station("1", F(1), capacity=1), Station("2", F(1)), Station("3", F(1))),
                  (Stream(F(1), choice=("1", "2", "3")),))
    res = prove(net, time_limit=30, simulate=False)
    assert res.verdict == "undecided"
    assert any("model no capacity" in r for r in res.reasons)


def test_overflow_certificate_refused_for_non_exponential_laws():
    """An overflow certificate of the exponential network does not verify when station 2's service is Erlang-2."""
    from certify.core.model import Distribution
    from tests.independent import reseal

    net = spill(F(9, 5))
    cert = prove(net, time_limit=30, simulate=False).certificate
    erl = Network("spill", (net.stations[0], Station("2", F(1), Distribution("erlang", (("k", 2),)))), net.streams)
    from certify.core.envelope import network_digest

    forged = reseal({**cert, "network": {"name": erl.name, "digest": network_digest(erl)}})
    res = verify(erl, forged)
    assert not res.ok and any("exponential laws only" in f for f in res.failures), res.failures


def test_boundary_brackets_the_golden_ratio():
    """certify boundary over the spill network's rate brackets (1 + sqrt 5)/2, where lam^2/(1 + lam) = mu2 = 1."""
    from certify.workflows.boundary import boundary

    res = boundary(spill(F(3, 2)), "streams[0].rate", F(1), F(5, 2), tol=F(1, 1000), time_limit=120)
    golden = (1 + 5 ** 0.5) / 2
    assert float(F(res.stable_at)) < golden < float(F(res.unstable_at))
    assert float(F(res.unstable_at) - F(res.stable_at)) <= 1e-3
    assert {c["kind"] for c in res.certificates.values()} == {"overflow-foster", "overflow-growth"}


def test_table_spread_beyond_the_reachability_bound_is_refused_before_the_search():
    """A growth table whose spread would need a search over more than MAX_REACH_STATES states is refused at once."""
    import time

    from certify.exact.overflow import MAX_REACH_STATES

    # station 1 (capacity 1) receives nothing, so its level only falls: h(1) can be as low as one likes
    idle = Network("idle", (Station("1", F(1), capacity=1), Station("2", F(1))), (Stream(F(3, 2), choice=("2",)),))
    chain = compile_chain(idle)
    t0 = time.perf_counter()
    chk = check_overflow(chain, [1, None], 1, {(0,): F(0), (1,): -F(10) ** 30}, "overflow-growth")
    assert not chk.ok and str(MAX_REACH_STATES) in chk.failures[0]
    assert time.perf_counter() - t0 < 5
