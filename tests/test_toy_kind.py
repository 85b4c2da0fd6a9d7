"""A certificate kind is one module: a toy kind registered here is verified and explained, no other module touched.

The toy kind ``toy-mm1`` proves an M/M/1 queue stable by its load: the payload is
the margin mu - lam, the exact check recomputes it from the network.  The independent
truth is the M/M/1 closed form (stable iff lam < mu).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction as F
from typing import Any

import pytest

from certify import verify
from certify.certificates.kinds import REGISTRY, Kind
from certify.certificates.reading import Reading
from certify.core.envelope import seal
from certify.core.errors import CertificateError
from certify.core.model import Network, Station, Stream
from certify.core.numbers import q, unq
from certify.exact.facts import Check, Facts
from certify.explain import explain
from certify.explain.common import Context, claim_section
from certify.explain.document import Proof


@dataclass(frozen=True)
class MarginFacts(Facts):
    """The toy check holds: the queue's margin mu - lam > 0."""

    margin: F


def _read(net: Network, cert: dict[str, Any]) -> Reading | str:
    if net.J != 1 or len(net.streams) != 1 or net.feedback:
        return "the toy kind is about one station with one stream"
    if not isinstance(cert.get("margin"), str):
        raise CertificateError(None, "margin", "must be a rational string")
    return Reading((net, unq(cert["margin"], "margin")))


def _check(net: Network, margin: F) -> Check[MarginFacts]:
    true = net.stations[0].mu - net.streams[0].rate
    if true <= 0 or margin != true:
        return Check.failed([f"margin {margin} is not mu - lam = {true} > 0"])
    return Check.passed(MarginFacts(margin))


def _statement(net: Any, chain: Any, template: str) -> tuple[str, str]:
    return "markovian", "The M/M/1 queue has lam < mu: positive recurrent (toy kind)."


def explain_toy(ctx: Context) -> Proof:
    """The toy kind's readable proof."""
    return Proof(f"{ctx.net.name} is stable: its load", (claim_section(ctx, "stable", "the toy margin"),))


TOY = Kind("toy-mm1", "stable", ("margin",), _read, _check, lambda f: {"margin": q(f.margin)}, _statement,
           "tests.test_toy_kind:explain_toy")


def mm1(lam: F) -> Network:
    """One station of rate 1 with a Poisson stream of rate ``lam``."""
    return Network("mm1", (Station("1", F(1)),), (Stream(lam, choice=("1",)),))


def toy_certificate(net: Network, margin: F) -> dict[str, Any]:
    """A toy certificate, sealed like every kind's."""
    return seal(net, "toy-mm1", {"margin": q(margin)}, {"margin": q(margin)}, *_statement(net, None, ""))


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> Kind:
    """The toy kind in the registry for one test (removed after)."""
    monkeypatch.setitem(REGISTRY, TOY.name, TOY)
    return TOY


def test_toy_kind_verifies_when_registered(toy):
    """A registered toy kind's certificate verifies, with the statement its kind derives."""
    res = verify(mm1(F(1, 2)), toy_certificate(mm1(F(1, 2)), F(1, 2)))
    assert res.ok, res.failures
    assert res.facts.statement.startswith("The M/M/1 queue")


def test_toy_kind_refuses_a_wrong_margin(toy):
    """The toy kind's exact check refuses a margin that is not mu - lam (the closed form)."""
    res = verify(mm1(F(1, 2)), toy_certificate(mm1(F(1, 2)), F(1, 3)))
    assert not res.ok and any("is not mu - lam = 1/2" in f for f in res.failures)


def test_toy_kind_refuses_an_overloaded_queue(toy):
    """An M/M/1 queue with lam > mu has no valid toy certificate, whatever margin it claims."""
    net = mm1(F(3, 2))
    assert not verify(net, toy_certificate(net, F(-1, 2))).ok


def test_toy_kind_is_explained_through_its_own_hook(toy):
    """explain renders the toy kind by the explainer its Kind names."""
    net = mm1(F(1, 2))
    text = explain(net, toy_certificate(net, F(1, 2))).render("markdown")
    assert text.startswith("# mm1 is stable: its load") and "toy margin" in text


def test_unregistered_kind_is_refused():
    """Without the registration, the same file is an unknown kind."""
    res = verify(mm1(F(1, 2)), toy_certificate(mm1(F(1, 2)), F(1, 2)))
    assert not res.ok and "unknown certificate kind 'toy-mm1'" in res.failures[0]
