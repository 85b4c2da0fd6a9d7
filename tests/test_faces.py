"""Face-guided tables (certify.proof.faces): small fast sets read off the failed Foster search decide random networks.

The network is a random heterogeneous feedback network of six stations (``bench/frontier.py``,
J = 6, seed 8) at 0.92 and 0.935 of its static split's critical load: its default table follows
five stations and is too large to list, and the quadratic and linear searches fail on both.
The truth of each verdict is checked independently of certify's checkers: the certificate's
drift is re-derived state by state from the JSQ rules (tests/independent.py).  A simulation of
the 0.93 network (``certify simulate --x0 50,...``) shows stations 4 and 6 growing: the JSQ
boundary lies below the static split's, so the unstable side is not flow balance.
"""

from __future__ import annotations

import copy
from contextlib import contextmanager
from pathlib import Path

import pytest

import certify
from certify.io.loader import load
from certify.markov.chain import compile_chain
from certify.proof.faces import FaceTries, face_fast_sets, faces_of
from certify.proof.markovian import schedule
from tests import independent

DATA = Path(__file__).parent / "data" / "networks"
BELOW, ABOVE = DATA / "random-J6-s8-r0.92.json", DATA / "random-J6-s8-r0.935.json"


def ids(chain, stations) -> list[str]:
    """The station ids of some station indices."""
    return [chain.ids[j] for j in stations]


def test_fast_sets_are_the_choice_sets_outside_the_face():
    """On the face {4, 6}, 4's feedback {2,5,6} routes among {2,5} (5 feeds 4: first), {1,2,4} among {1,2}; then the union."""
    ch = compile_chain(load(BELOW))
    face = tuple(ch.ids.index(s) for s in ("4", "6"))
    assert [ids(ch, s) for s in face_fast_sets(ch, face)] == [["2", "5"], ["1", "2"], ["1", "2", "5"]]


def test_a_face_with_every_station_has_no_fast_set():
    """No choice set has stations outside the face of every station: nothing to follow."""
    ch = compile_chain(load(BELOW))
    assert face_fast_sets(ch, tuple(range(ch.J))) == []


def test_faces_are_the_distinct_supports_in_order():
    """Repeated generators give one face; the empty direction gives none."""
    assert faces_of([(0, 0, 0), (1, 0, 1), (2, 0, 1), (0, 1, 0)], 3) == [(0, 2), (1,)]


def test_the_schedule_holds_face_tries_only_where_the_default_table_is_large():
    """Five stations share choice sets here (tried); a three-station tie-breaking network keeps its default tables."""
    assert any(isinstance(item, FaceTries) for item in schedule(compile_chain(load(BELOW)), ["quadratic", "table"]))
    assert not any(isinstance(item, FaceTries) for item in schedule(compile_chain(load(BELOW)), ["quadratic"]))
    small = compile_chain(load("models/tie-breaking-J3.json"))
    assert not any(isinstance(item, FaceTries) for item in schedule(small, ["quadratic", "table"]))


@contextmanager
def without_sink_stages():
    """prove without the sink-growth and sink-drain stages (which now decide these networks first, at sink 2)."""
    import certify.proof.drain as drain_stage
    import certify.proof.sink as sink_stage

    saved = sink_stage.SINK_MIN_J, drain_stage.DRAIN_MIN_J, sink_stage.LATE_MIN_J
    # the face-guided tables are what these tests are about
    sink_stage.SINK_MIN_J = drain_stage.DRAIN_MIN_J = sink_stage.LATE_MIN_J = 10**6
    try:
        yield
    finally:
        sink_stage.SINK_MIN_J, drain_stage.DRAIN_MIN_J, sink_stage.LATE_MIN_J = saved


@pytest.fixture(scope="module")
def below():
    """The network at 0.92 and certify's verdict on it, without the sink stages."""
    net = load(BELOW)
    with without_sink_stages():
        return net, certify.prove(net, simulate=False, time_limit=120)


@pytest.fixture(scope="module")
def above():
    """The network at 0.935 and certify's verdict on it, without the sink stages."""
    net = load(ABOVE)
    with without_sink_stages():
        return net, certify.prove(net, simulate=False, time_limit=120)


def test_below_is_proved_stable_by_a_face_guided_table(below):
    """Stable by a table over two of the five shared stations, which no default search reaches."""
    net, res = below
    assert (res.verdict, res.method) == ("stable", "table Foster-Lyapunov certificate")
    assert res.certificate["options"]["fast"] in (["1", "2"], ["2", "5"], ["1", "2", "5"])
    assert any("guided by the face {4,6}" in a.stage for a in res.attempts)


def test_below_certificate_drift_is_negative_state_by_state(below):
    """The file verifies, and its drift from the JSQ rules is <= -delta at random far states."""
    net, res = below
    assert certify.verify(net, res.certificate).ok
    independent.check_foster(net, copy.deepcopy(res.certificate))


def test_above_is_proved_unstable_below_the_static_split(above):
    """Unstable at 0.935 of the static split's critical load, by a growth function with a face-guided table."""
    net, res = above
    assert (res.verdict, res.method) == ("unstable", "growth certificate with bounded table")
    assert res.certificate["table"]["fast"] in (["1", "2"], ["2", "5"], ["1", "2", "5"])


def test_above_certificate_grows_state_by_state(above):
    """The file verifies, and its drift from the JSQ rules is >= delta at random states where it is large."""
    net, res = above
    assert certify.verify(net, res.certificate).ok
    independent.check_growth(net, copy.deepcopy(res.certificate))


def test_regions_over_their_size_bound_are_listed_up_to_the_cap(monkeypatch):
    """Above the product bound, ``cap`` lists the regions anyway: all of them under the cap, None (remembered) past it."""
    import certify.proof.context as context
    from certify.markov.regions import enumerate_regions
    from certify.proof.result import Result

    ch = compile_chain(load(BELOW))
    levels = {ch.ids.index("2"): 4, ch.ids.index("5"): 4}
    count = len(enumerate_regions(ch, levels))
    monkeypatch.setattr(context, "MAX_REGIONS", 1000)
    res = Result("random")
    regions = context.Regions(res, ch)
    assert regions.get(levels) is None
    assert len(regions.get(levels, cap=count) or []) == count
    small = context.Regions(res, ch)
    assert small.get(levels, cap=count - 1) is None
    assert res.attempts[-1].outcome == "given up (too many to search)"
    before = len(res.attempts)
    assert small.get(levels, cap=count - 1) is None  # remembered: not listed again at the same cap
    assert small.get(levels) is None
    assert len(res.attempts) == before


def test_regions_given_up_at_one_cap_are_listed_at_a_larger_one(monkeypatch):
    """A level set given up at one cap is listed again, and in full, when a later stage asks with a larger cap."""
    import certify.proof.context as context
    from certify.markov.regions import enumerate_regions
    from certify.proof.result import Result

    ch = compile_chain(load(BELOW))
    levels = {ch.ids.index("2"): 4, ch.ids.index("5"): 4}
    count = len(enumerate_regions(ch, levels))
    monkeypatch.setattr(context, "MAX_REGIONS", 1000)
    regions = context.Regions(Result("random"), ch)
    assert regions.get(levels, cap=count // 2) is None
    assert len(regions.get(levels, cap=count) or []) == count
