"""Typed results: the vocabularies, stages that return outcomes (never touching the Result), one ProveOptions."""

from __future__ import annotations

from fractions import Fraction as F
from typing import get_args

import pytest

import certify
from certify.core.model import Network, Station, Stream
from certify.core.vocabulary import VERDICTS, Verdict
from certify.exact.verdict import TheoremVerdict
from certify.proof.context import ProofContext
from certify.proof.options import ProveOptions
from certify.proof.pipeline import JSQ_STAGES, prove
from certify.proof.result import VERDICTS as RESULT_VERDICTS
from certify.proof.stage import StageOutcome
from certify.workflows.sweep import SWEEP_OPTIONS

MM1 = Network("mm1", (Station("1", F(2)),), (Stream(F(1), choice=("1",)),))
MODELS = ["symmetric-jsq-J4.json", "overloaded-unstable.json", "loss-two-queue-K3.json", "distribution-h2-J3.json",
          "two-station-feedback.json"]


def _plain(res: certify.Result) -> dict:
    out = res.to_json()
    out.pop("time_s")
    for a in out["attempts"]:
        a.pop("time_s")
    return out


def test_verdicts_are_the_literal_values():
    """The verdict tuple is the Literal's values, in the order the result module always listed them."""
    assert VERDICTS == get_args(Verdict) == RESULT_VERDICTS
    assert VERDICTS == ("stable", "unstable", "likely-stable", "likely-unstable", "undecided")


@pytest.mark.parametrize("model", MODELS)
def test_stages_leave_the_result_alone(model):
    """Each stage returns a frozen outcome; the verdict, method, certificate and reasons of the Result stay untouched."""
    ctx = ProofContext.for_file(f"models/{model}")
    outcomes = []
    for stage in JSQ_STAGES:
        if not stage.applies(ctx):
            continue
        outcomes.append(stage.run(ctx))
        assert isinstance(outcomes[-1], StageOutcome)
        assert (ctx.res.verdict, ctx.res.method, ctx.res.certificate, ctx.res.reasons) == ("undecided", "none", None, [])
        if outcomes[-1].stop:
            break
    assert outcomes  # every model runs at least the necessary condition


def test_options_object_and_keywords_give_the_same_result():
    """prove(net, ProveOptions(...)) and prove(net, **the same keywords) agree; keywords override the object."""
    kw = {"templates": ["quadratic"], "simulate": False, "symmetry": False}
    assert _plain(prove(MM1, ProveOptions(**kw))) == _plain(prove(MM1, **kw))
    assert prove(MM1, ProveOptions(templates=["quadratic"]), templates=None).method.startswith("fluid")


def test_an_unknown_keyword_is_refused_by_name():
    """A misspelt option is a TypeError naming prove, as for any function."""
    with pytest.raises(TypeError, match=r"prove\(\) got an unexpected keyword argument 'time_limt'"):
        prove(MM1, time_limt=5)


def test_theorems_are_typed_and_serialised_at_the_edge():
    """Result.theorems holds TheoremVerdict objects; to_json gives their JSON form; indexing by name still reads it."""
    res = certify.prove(certify.load("models/symmetric-jsq-J4.json"), simulate=False)
    assert res.theorems and all(isinstance(tv, TheoremVerdict) for tv in res.theorems)
    assert res.to_json()["theorems"] == [tv.to_json() for tv in res.theorems]
    assert res.theorems[0]["verdict"] == res.theorems[0].verdict == "stable"


def test_a_sweep_keeps_its_key_unless_a_new_option_is_set():
    """The sweep's defaults are SWEEP_OPTIONS (same key either way); an option outside the historic five changes the key."""
    net = certify.loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 2}}, "streams": [{"choice": ["1"], "rate": 1}]}')
    vary = [("streams[0].rate", [1])]
    plain = certify.sweep(net, vary, workers=1)
    assert certify.sweep(net, vary, SWEEP_OPTIONS, workers=1).key == plain.key
    assert certify.sweep(net, vary, workers=1, symmetry=False).key != plain.key
