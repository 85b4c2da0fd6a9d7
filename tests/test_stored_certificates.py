"""Certificate files written by an earlier version still verify, and today's writers write the same content.

``tests/data/certificates/`` holds one network and one certificate per case of
``tests/real_certificates.py`` (every kind), written before the certificate kinds
became one module each (commit 663e7ed); ``static-split-lossy`` and
``overflow-growth`` were rewritten once, when the statements of those two (new,
unreleased) cases were corrected to claim only what their theorems give;
``fluid-flow-inflow`` (the optional ``inflow_depth`` field) was added with it, ``sink-growth``
(a certificate nesting another) with its kind, ``sink-set`` (a set of sinks) with the sets,
``sink-drain`` and ``sink-drain-set`` with the stable side of sinks (docs/math/drain.md), ``sink-drain-mixed``
(``table.K`` a list: one clip level per fast station) with per-station levels, ``sink-set-face`` and
``sink-drain-face`` (four sinks, a union of routing sets) with the wider sets of certify.search.sink_sets.
The four ``sink-drain*`` files were rewritten, and ``sink-drain-ties`` (the claim ``tie_excess``) added, when the
drain theorem admitted ties that send R' more than it sends itself: its statement now names that case.
``separable-levels`` and ``separable-levels-growth`` (the separable kinds' ``K`` a list of levels per group) were
added with per-station levels in those kinds, ``separable-sink-phases`` and ``separable-sink-phases-growth`` (a
phase-type sink as a group of its own) with that group. The five separable files whose search changed
(``separable-foster``, ``-levels``, ``-phases``, ``-sink-phases``, ``-sink-phases-growth``) were rewritten when the
separable LPs began to hold each inequality once (fewer rows; another optimal vertex, the same format), and the
earlier files still verify (their copies are in git history, commit 5cea4f7). ``separable-beyond-phases`` and
``separable-beyond-phases-growth`` (three gadgets with Erlang-4 service at both stations: 15,625 phase vectors, past
the limit of certify.markov.phases, so nothing lists the whole phase space) were added with that reading.
``sink-growth-box`` (a Poisson-table sink-growth certificate, a level per station of R', certify.proof.poisson; the
network of ``sink-growth``) was added in stop 44. ``sink-drain-set-ties`` (a pair of sinks whose subset {s} has its own function
although a stream's tie adds work to R', checked on R'_eps: docs/math/drain.md, hypothesis 1's second case, with
its statement) was added in stop 47. ``sink-drain-set-box`` (the pair of ``sink-drain-set`` by a Poisson box, levels 2 on
every station of R', with the subset {s}'s own function from the same box) was added in stop 52. The nine sink files
were rewritten in stop 45, when the sink kinds' rate inequalities began to be checked cell by cell
(certify.exact.cell_rates; the claims now name the cells); the files written before are kept in
``tests/data/legacy-certificates/`` and still verify, region by region, as they were checked when written.
Regenerate only on purpose: a change here is a change of the file format.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import certify
from certify.core.envelope import dumps
from tests.real_certificates import CASES, case

DATA = Path(__file__).resolve().parent / "data" / "certificates"
LEGACY = Path(__file__).resolve().parent / "data" / "legacy-certificates"
NAMES = sorted(p.name[: -len(".cert.json")] for p in DATA.glob("*.cert.json"))


def test_every_case_has_a_stored_certificate():
    """Every case of tests/real_certificates.py has a stored network and certificate, and nothing else is stored."""
    assert NAMES == sorted(CASES)
    assert sorted(p.name for p in DATA.iterdir()) == sorted([f"{n}.json" for n in NAMES] + [f"{n}.cert.json" for n in NAMES])


@pytest.mark.parametrize("name", NAMES)
def test_stored_certificate_still_verifies(name):
    """A certificate file written by the earlier version verifies against its network today."""
    net = certify.load(DATA / f"{name}.json")
    res = certify.verify(net, json.loads((DATA / f"{name}.cert.json").read_text()))
    assert res.ok, res.failures


@pytest.mark.parametrize("name", NAMES)
def test_todays_writer_writes_the_same_file(name):
    """The certificate built today for the same case is byte-identical to the stored one."""
    _, cert = case(name)
    assert dumps(cert) == (DATA / f"{name}.cert.json").read_text()


LEGACY_NAMES = sorted(p.name[: -len(".cert.json")] for p in LEGACY.glob("*.cert.json"))


def test_the_sink_certificates_written_before_the_cell_check_are_kept():
    """The nine sink files of stop 44 are kept, each with its network (a clone that lacks them fails here)."""
    assert len(LEGACY_NAMES) == 9 and set(LEGACY_NAMES) <= {n for n in NAMES if n.startswith("sink-")}
    assert sorted(p.name for p in LEGACY.iterdir()) == sorted([f"{n}.json" for n in LEGACY_NAMES]
                                                              + [f"{n}.cert.json" for n in LEGACY_NAMES])


@pytest.mark.parametrize("name", LEGACY_NAMES)
def test_a_sink_certificate_written_before_the_cell_check_still_verifies(name):
    """A sink certificate whose claims count regions (no cells) verifies region by region, its claims unchanged."""
    net = certify.load(LEGACY / f"{name}.json")
    old = json.loads((LEGACY / f"{name}.cert.json").read_text())
    assert "cells" not in old["claims"] and old["claims"]["regions"] > 0
    res = certify.verify(net, old)
    assert res.ok, res.failures
    new = json.loads((DATA / f"{name}.cert.json").read_text())
    assert new["claims"]["cells"] > 0
    same = {k: v for k, v in old.items() if k not in ("claims", "digest")}
    assert same == {k: v for k, v in new.items() if k not in ("claims", "digest")}


@pytest.mark.parametrize("name", ["sink-drain", "sink-growth-box"])
def test_a_new_sink_certificate_without_its_cells_claim_is_refused(name):
    """Removing ``claims.cells`` sends the file to the region check, whose regions claim then differs: refused."""
    from tests.independent import reseal

    cert = json.loads((DATA / f"{name}.cert.json").read_text())
    del cert["claims"]["cells"]
    res = certify.verify(certify.load(DATA / f"{name}.json"), reseal(cert))
    assert not res.ok and any(f.startswith("claim regions = 0 but the exact check gives ") for f in res.failures)
