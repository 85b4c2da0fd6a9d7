"""A new Lyapunov template needs only its class and a registry entry: prove, verify and explain take it from there.

The toy template here, V(x) = c x^2 for one station, is registered in the
template registry for the duration of a test (``monkeypatch``); no module of
certify is edited.  It follows CONTRIBUTING.md's checklist for a new template.
"""

from __future__ import annotations

from fractions import Fraction
from math import ceil
from pathlib import Path

import pytest

import certify
from certify.core.errors import NotSupported
from certify.core.latex import poly_tex
from certify.core.model import Network, Station, Stream
from certify.explain import explain
from certify.templates import TEMPLATES, Template
from certify.templates.linear import LinearTemplate
from certify.templates.readable import Formulas, FunctionText, Sentence, Tex

LAM, MU = Fraction(1), Fraction(3)
MM1 = Network("mm1", (Station("1", MU),), (Stream(LAM, choice=("1",)),))


class Square(LinearTemplate):
    """V(x) = c x^2 for a single station: one coefficient, one drift row per unbounded region."""

    name = "square"
    summary = "V = c x^2, one station"

    @classmethod
    def resolve_options(cls, chain, options):
        if chain.J != 1:
            raise NotSupported("template square: one station only")
        return super().resolve_options(chain, options)

    @classmethod
    def escalation(cls, chain):
        return [{}] if chain.J == 1 else []

    def variables(self):
        return ["c"]

    def check_side(self, theta):
        return [] if theta[0] >= 0 else [f"c = {theta[0]} < 0: V is not bounded below"]

    def row_values(self, theta):
        """Along g, AV = 2 c m x + c sum_d rate_d d^2 grows by 2 c m g (m the scaled mean drift)."""
        c = Fraction(theta[0])
        slopes = [2 * c.numerator * rd.mean[0] * g[0] for rd in self.drifts for g in rd.generators]
        return slopes, c.denominator * self.chain.scale

    def lp_matrix(self):
        import scipy.sparse as sp

        return sp.csr_matrix([[2 * rd.mean[0] * g[0] / self.chain.scale] for rd in self.drifts for g in rd.generators])

    def affine_drifts(self, theta):
        c = Fraction(theta[0])
        const = ceil(c.numerator * self.chain.total_rate * self.chain.scale)  # c sum_d rate_d d^2 <= c (lam + mu)
        return [([2 * c.numerator * rd.mean[0]], const) for rd in self.drifts], c.denominator * self.chain.scale

    def formula(self, theta):
        return f"V = {theta[0]}*x{self.chain.ids[0]}^2"

    def explain_function(self, theta, max_rows):
        v = poly_tex({(2,): theta[0]}, self.chain.ids)
        return FunctionText((Formulas((f"V(x) = {v}",)), Sentence(("V is bounded below: ", Tex("c \\ge 0"), "."))))


@pytest.fixture
def square(monkeypatch):
    """The registry with the toy template added (as the last, most expensive one); restored after the test."""
    monkeypatch.setitem(TEMPLATES, Square.name, Square)


def test_a_registered_template_is_proved_and_exactly_checked(square):
    """prove finds a certificate with the toy template, and verify re-checks it from the file alone."""
    res = certify.prove(MM1, templates=["square"], fluid=False, simulate=False)
    assert res.verdict == "stable" and res.certificate["template"] == "square"
    assert certify.verify(MM1, res.certificate).ok


def test_its_delta_is_the_closed_form(square):
    """The checked delta is the closed form 2c(mu - lam): AV(x) = c(2x(lam - mu) + lam + mu) for x >= 1."""
    cert = certify.prove(MM1, templates=["square"], fluid=False, simulate=False).certificate
    c = Fraction(cert["coefficients"]["c"])
    assert Fraction(cert["claims"]["delta"]) == 2 * c * (MU - LAM)


def test_a_registered_template_explains_itself(square):
    """certify explain renders the toy's proof: its own V, the shared drift table, and the shared Foster sections."""
    cert = certify.prove(MM1, templates=["square"], fluid=False, simulate=False).certificate
    md = explain(MM1, cert).render("markdown")
    v = poly_tex({(2,): Fraction(cert["coefficients"]["c"])}, ["1"])
    assert f"V(x) = {v}" in md and "template square: V = c x^2, one station" in md
    assert "| r1 |" in md and "## The exceptional set" in md


def test_the_checklist_names_every_method_a_template_must_write():
    """CONTRIBUTING.md's list for a new template names every abstract method of Template and LinearTemplate."""
    text = (Path(__file__).resolve().parents[1] / "CONTRIBUTING.md").read_text()
    checklist = text.split("## Adding a Lyapunov template", 1)[1].split("\n## ", 1)[0]
    missing = [m for m in sorted(Template.__abstractmethods__ | LinearTemplate.__abstractmethods__) if f"`{m}()`" not in checklist]
    assert not missing, f"not in the checklist: {missing}"
