"""Benchmark: how close does each Foster template get to the true stability boundary?

For one representative Markovian ``jsq-network/1`` file of each corpus family
(``corpus/public``; the file with the largest J <= ``--max-j``, ties by
name), every phase-type file (exact expansion of Erlang/hyperexponential laws),
and every Markovian model in ``models/`` with an ``x-model`` block, the
load scale s is bisected for the largest s at which
``certify.prove(net_s, templates=[name])`` returns ``stable``, for each registered
template (``certify.templates.TEMPLATES``).

Scaling.  net_s multiplies every exogenous stream rate by s (exact Fractions,
``to_dict`` -> scale -> ``from_dict``); all other data are kept.  The true critical
scale is s_true = 1/margin: a corpus file's rates are the boundary rates times
``x-case.margin``; a model's margin is recomputed by ``models/criteria.py`` (which
does not import certify).  DHK counterexample networks (families
``dhk_counterexample_*``) are different: station 3 receives station 1's output,
whose throughput d_1 depends on the shared stream lam_12, so scaling every stream
is not linear in the effective load.  There only the stream(s) whose choice set is
exactly station 3 are scaled: the effective load is (s lam_3 + d_1)/mu_3 and
s_true = (mu_3 - d_1)/lam_3, with d_1 = ``x-case.boundary.d1_exact`` (corpus) or
margin * mu_3 - lam_3 (models, margin from ``criteria.py``).

Bisection.  s = t * s_true on t in [0.5, 1.02]: first t = 0.5 (if that is not
proved, t is halved down to 1/64 and the bisection runs in [t, 2t]; the row says
"< t" when nothing was proved, at once when every Foster stage of the template was
skipped as too large), then t = 1.02, *above* the true boundary, where a
sound tool must not say ``stable`` (if it does, the row is flagged UNSOUND and the
exit status is 3), then ``--steps`` halvings.  The certified ratio is the largest t
proved; the bracket width is 0.52 / 2^steps.  A (network, template) pair whose
single prove takes more than ``SKIP_S`` seconds is not bisected further.

Reported per row: s_true (relative to the file's rates), certified ratio, steps,
calls, mean prove wall time, mean time per Foster LP (LP build + solve + exact
check), that LP time relative to the quadratic template's on the same network (the
baseline measured in the same run), and the region / LP size of the proved
certificate at the certified scale (from ``res.attempts``).

Usage::

    python bench/tightness.py              # full run, writes docs/benchmarks.md
    python bench/tightness.py --quick      # 2 families, 5 steps, a few seconds
    python bench/tightness.py --out PATH   # write the section to PATH instead
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import platform
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from statistics import mean
from typing import Any

from docs_section import write_section  # noqa: E402  (sibling module; scripts run as files)

import certify
from certify.core.model import Network
from certify.io.loader import from_dict, load, to_dict
from certify.markov.laws import NotPhaseType
from certify.markov.phases import markov_chain
from certify.templates import TEMPLATES

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "docs" / "benchmarks.md"
CORPUS = ROOT / "corpus" / "public"
MODELS = ROOT / "models"
SECTION = "## Tightness: certified / true boundary (issue 3)"

LO_T = Fraction(1, 2)  # lower end of the bisection, as a fraction of s_true
MIN_T = Fraction(1, 64)  # when LO_T is not proved, t is halved down to this before giving up
HI_T = Fraction(51, 50)  # upper end: 2% above the true boundary (soundness probe)
PER_CALL_S = 20.0  # time_limit passed to certify.prove
SKIP_S = 20.0  # a single prove slower than this stops the bisection of that pair
SOUND_TOL = 1e-9
QUICK_FAMILIES = ("dhk_counterexample_tiebreak", "mm_jsq_parallel")
CE_PREFIX = "dhk_counterexample"


@dataclass
class Case:
    """One network to bisect: which streams are scaled and where the true boundary lies."""

    source: str  # "corpus" or "model"
    family: str
    file: str
    net: Network
    scaled: list[int]  # indices of the streams multiplied by s
    s_true: float  # true critical scale, relative to the file's rates
    how: str  # how s_true was obtained


@dataclass
class Row:
    case: Case
    template: str
    t_cert: Fraction | None = None  # largest t proved (s = t * s_true); None: not even t = 0.5
    t_fail: Fraction | None = None  # smallest t not proved
    steps: int = 0
    times: list[float] = field(default_factory=list)
    lp_times: list[float] = field(default_factory=list)
    regions: str = ""
    lp: str = ""
    note: str = ""
    unsound: bool = False
    slow: bool = False  # stopped after a prove slower than SKIP_S
    not_applicable: bool = False  # every Foster stage of the template was skipped (too many regions x cells)


# ---------------------------------------------------------------- cases


def _load_criteria() -> Any:
    spec = importlib.util.spec_from_file_location("models_criteria", MODELS / "criteria.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _station3_streams(net: Network) -> tuple[str, list[int]]:
    """The station fed by station 1's output (default "3") and the streams whose choice is exactly it."""
    target = "3"
    for f in net.feedback:
        if f.prob == 1 and len(f.choice) == 1:
            target = f.choice[0]
    idx = [i for i, sm in enumerate(net.streams) if sm.choice is not None and tuple(sm.choice) == (target,)]
    return target, idx


def _mu(net: Network, sid: str) -> Fraction:
    return next(s.mu for s in net.stations if s.id == sid)


def _ce_case(source: str, family: str, name: str, net: Network, d1: float, how: str) -> Case:
    target, idx = _station3_streams(net)
    if not idx:
        raise ValueError(f"{name}: no stream with choice [{target!r}]")
    lam3 = float(sum((net.streams[i].rate for i in idx), Fraction(0)))
    s_true = (float(_mu(net, target)) - d1) / lam3
    return Case(source, family, name, net, idx, s_true, f"(mu_{target} - d_1)/lam_{target}, {how}")


def _markovian(net: Network) -> bool:
    """Exponential, or with an exact phase-type expansion (a CTMC either way)."""
    try:
        markov_chain(net)
    except NotPhaseType:
        return False
    return True


def _usable(net: Any) -> bool:
    return isinstance(net, Network) and not net.has_capacities and _markovian(net)


def corpus_cases(corpus: Path, max_j: int, families: tuple[str, ...] | None) -> tuple[list[Case], list[str]]:
    """One representative per family: the Markovian file with a margin and the largest J <= max_j."""
    by_family: dict[str, list[tuple[int, str, Path, dict]]] = {}
    excluded: dict[str, str] = {}
    for path in sorted(corpus.glob("*.json")):
        doc = json.loads(path.read_text())
        case = doc.get("x-case", {})
        fam = case.get("family", "?")
        if doc.get("format") != "jsq-network/1":
            excluded.setdefault(fam, f"format {doc.get('format')}")
            continue
        net = load(path)
        if not isinstance(net, Network) or net.has_capacities:
            excluded.setdefault(fam, "finite capacities (no load boundary)")
            continue
        if not _markovian(net) or case.get("margin") is None:
            continue
        by_family.setdefault(fam, []).append((len(net.stations), path.stem, path, doc))
    notes = [f"`{f}` ({why})" for f, why in sorted(excluded.items()) if f not in by_family]
    cases = []
    for fam in sorted(by_family):
        if families is not None and fam not in families:
            continue
        cands = sorted(by_family[fam], key=lambda c: (-c[0] if c[0] <= max_j else c[0], c[1]))
        # the representative, and every phase-type file of the family (distributions matter there)
        picks = [cands[0]] + [c for c in cands[1:] if not load(c[2]).is_markovian]
        for _, stem, path, doc in picks:
            net = load(path)
            assert isinstance(net, Network)
            xc = doc["x-case"]
            if fam.startswith(CE_PREFIX):
                d1 = float(xc["boundary"]["d1_exact"])
                cases.append(_ce_case("corpus", fam, stem, net, d1, f"d_1 = {d1:g} (x-case.boundary.d1_exact)"))
            else:
                all_idx = list(range(len(net.streams)))
                cases.append(Case("corpus", fam, stem, net, all_idx, 1.0 / float(xc["margin"]),
                                  f"1/margin (margin {xc['margin']})"))
    return cases, notes


def model_cases(models: Path) -> list[Case]:
    """Every Markovian model with an x-model block; s_true from models/criteria.py."""
    crit = _load_criteria()
    cases = []
    for path in sorted(p for p in models.iterdir() if p.suffix in (".json", ".toml")):
        doc = crit.read(path)
        if "x-model" not in doc:
            continue
        net = load(path)
        if not _usable(net):
            continue
        assert isinstance(net, Network)
        fam = doc["x-model"]["family"]
        ev = crit.evaluate(path)
        if fam.startswith(CE_PREFIX):
            target, idx = _station3_streams(net)
            lam3 = float(sum((net.streams[i].rate for i in idx), Fraction(0)))
            d1 = ev["margin"] * float(_mu(net, target)) - lam3
            cases.append(_ce_case("model", fam, path.name, net, d1, f"d_1 = {d1:.6f} (criteria.py, truncated CTMC)"))
        else:
            s_star = ev.get("s_star") or 1.0 / ev["margin"]
            cases.append(Case("model", fam, path.name, net, list(range(len(net.streams))), float(s_star),
                              f"criteria.py `{doc['x-model']['criterion']}` (margin {ev['margin']:.6f})"))
    return cases


# ---------------------------------------------------------------- bisection


def scaled(case: Case, s: Fraction) -> Network:
    """The case's network with the scaled streams' rates multiplied by s (exactly)."""
    doc = to_dict(case.net)
    for i in case.scaled:
        doc["streams"][i]["rate"] = case.net.streams[i].rate * s
    net = from_dict(doc)
    assert isinstance(net, Network)
    return net


def _foster_stage(stage: str, template: str) -> bool:
    """Stages are labelled ``<template> Foster`` or ``<template> (options) Foster``."""
    return stage.startswith(template + " ") and stage.endswith("Foster")


def _sizes(res: Any, template: str) -> tuple[str, str]:
    """(regions, LP size) of the proved Foster stage, else of the last Foster stage tried."""
    regions, lp, last = "", "", ("", "")
    for a in res.attempts:
        if a.stage.startswith("regions"):
            regions = a.size + ("" if a.stage == "regions" else " " + a.stage[len("regions"):].strip())
        elif _foster_stage(a.stage, template):
            lp = a.size
            last = (regions, lp)
            if a.outcome.startswith("found"):
                return last
    return last


def _bisect(row, attempt, steps: int, slow) -> None:
    """Halve [row.t_cert, row.t_fail] ``steps`` times (fewer if ``slow()``), keeping t_cert proved."""
    for _ in range(steps):
        if slow():
            break
        mid = (row.t_cert + row.t_fail) / 2
        row.steps += 1
        if attempt(mid):
            row.t_cert = mid
        else:
            row.t_fail = mid


def bisect(case: Case, template: str, steps: int, s_grid: Fraction) -> Row:
    row = Row(case, template)

    def attempt(t: Fraction) -> bool:
        t0 = time.perf_counter()
        res = certify.prove(scaled(case, s_grid * t), templates=[template], time_limit=PER_CALL_S, fluid=False)
        row.times.append(time.perf_counter() - t0)
        row.lp_times += [a.time_s for a in res.attempts if _foster_stage(a.stage, template) and a.outcome != "skipped"]
        ok = res.verdict == "stable"
        if ok and res.method.startswith(template):
            row.regions, row.lp = _sizes(res, template)
        elif not ok and row.t_cert is None:
            row.regions, row.lp = _sizes(res, template)
            fost = [a for a in res.attempts if _foster_stage(a.stage, template)]
            row.not_applicable = all(a.outcome == "skipped" for a in fost)
            row.note = f"at t = {float(t):g}: {res.verdict}: " + (fost[-1].outcome if fost else "; ".join(res.reasons[-1:]))
            if row.not_applicable:
                row.note += (f" ({fost[-1].size}: the template does not apply at its default options)" if fost
                             else " (the template declines this network)")
        return ok

    def slow() -> bool:
        if row.times[-1] > SKIP_S:
            row.slow = True
            row.note = (row.note + "; " if row.note else "") + f"skipped: one prove took {row.times[-1]:.1f} s > {SKIP_S:g} s"
            return True
        return False

    t = LO_T
    while not attempt(t):
        row.t_fail = t
        if slow() or row.not_applicable or t <= MIN_T:
            return row
        t /= 2
    row.t_cert = t
    if slow():
        return row
    if row.t_fail is not None:  # proved only below 0.5: bisect in [t, 2t]
        _bisect(row, attempt, steps, slow)
        return row
    if attempt(HI_T):
        row.t_cert, row.unsound = HI_T, True
        row.note = f"UNSOUND: proved stable at {float(HI_T):g} x the true boundary"
        return row
    row.t_fail = HI_T
    _bisect(row, attempt, steps, slow)
    if row.t_cert > 1:
        row.unsound = True
        row.note = f"UNSOUND: proved stable at {float(row.t_cert):.6f} x the true boundary"
    return row


# ---------------------------------------------------------------- report


def ratio_str(r: Row) -> str:
    if r.t_cert is None:
        return f"< {float(r.t_fail or LO_T):g}"
    if r.slow and r.t_fail is None:
        return f">= {float(r.t_cert):g}"  # not bisected: only a lower bound
    return f"{float(r.t_cert):.5f}"


def scaled_str(c: Case) -> str:
    """The ``scaled`` column: which streams the scale multiplies."""
    if len(c.scaled) == len(c.net.streams):
        return "all streams"
    return ", ".join(f"[{','.join(c.net.streams[i].choice or ())}]" for i in c.scaled)


def case_arguments(ap: argparse.ArgumentParser) -> None:
    """The options choosing the cases and the output (shared with bench/tightness_unstable.py)."""
    ap.add_argument("--quick", action="store_true", help=f"families {', '.join(QUICK_FAMILIES)} only, 5 steps, no models")
    ap.add_argument("--steps", type=int, default=None, help="bisection steps (default 12, quick 5)")
    ap.add_argument("--max-j", type=int, default=4, help="largest J of a corpus representative (default 4)")
    ap.add_argument("--corpus", type=Path, default=CORPUS, help="corpus directory (default corpus/public)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="markdown file to write (default docs/benchmarks.md)")


def selected_cases(args: argparse.Namespace) -> tuple[int, list[Case], list[str]]:
    """The bisection steps, the cases and the notes on excluded families that the options of :func:`case_arguments` choose."""
    steps = args.steps if args.steps is not None else (5 if args.quick else 12)
    cases, excluded = corpus_cases(args.corpus, args.max_j, QUICK_FAMILIES if args.quick else None)
    if not args.quick:
        cases += model_cases(MODELS)
    return steps, cases, excluded


def table(rows: list[Row]) -> str:
    head = ("source", "family", "network", "J", "scaled", "s_true", "template", "certified / true", "bracket",
            "steps", "calls", "mean prove s", "mean LP s", "LP time / quadratic", "regions (certified scale)",
            "LP (certified scale)", "note")
    base = {r.case.file: mean(r.lp_times) for r in rows if r.template == "quadratic" and r.lp_times}
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        c = r.case
        scaled_s = scaled_str(c)
        bracket = "" if r.t_cert is None or r.t_fail is None or r.unsound else f"{float(r.t_fail - r.t_cert):.1e}"
        vs = f"{mean(r.lp_times) / base[c.file]:.2f}x" if c.file in base and r.lp_times else "n/a"
        lines.append("| " + " | ".join([
            c.source, f"`{c.family}`", f"`{c.file}`", str(len(c.net.stations)), scaled_s, f"{c.s_true:.6f}",
            r.template, ("**" + ratio_str(r) + " UNSOUND**") if r.unsound else ratio_str(r), bracket,
            str(r.steps), str(len(r.times)), f"{mean(r.times):.3f}" if r.times else "",
            f"{mean(r.lp_times):.3f}" if r.lp_times else "", vs, r.regions, r.lp,
            r.note.replace("|", "/")]) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Certified / true stability boundary, per family and template.")
    case_arguments(ap)
    args = ap.parse_args(argv)
    t_start = time.perf_counter()
    steps, cases, excluded = selected_cases(args)
    certify.prove(cases[0].net, templates=["quadratic"])  # warm up imports and the solver

    rows: list[Row] = []
    for case in cases:
        s_grid = Fraction(case.s_true).limit_denominator(10**8)
        for name in TEMPLATES:
            row = bisect(case, name, steps, s_grid)
            rows.append(row)
            print(f"{case.file} [{name}]: certified/true {ratio_str(row)}, {len(row.times)} calls, "
                  f"{sum(row.times):.1f} s{'  CRITICAL: ' + row.note if row.unsound else ''}", file=sys.stderr)
    total = time.perf_counter() - t_start

    cmd = "python bench/tightness.py" + (" --quick" if args.quick else "") + \
        (f" --steps {steps}" if args.steps is not None else "") + (f" --max-j {args.max_j}" if args.max_j != 4 else "")
    unsound = [r for r in rows if r.unsound or (r.t_cert is not None and float(r.t_cert) > 1 + SOUND_TOL)]
    skipped = [r for r in rows if r.slow]
    notes = [
        f"Machine: 2-core machine ({platform.processor() or platform.machine()}), Python {platform.python_version()}, "
        f"certify {certify.__version__}. Date: {datetime.date.today().isoformat()}. Command: `{cmd}` "
        f"(total {total:.1f} s).",
        "",
        "For each corpus family with Markovian `jsq-network/1` files, one representative (the file with the largest "
        f"J <= {args.max_j}, ties by name), every phase-type file (Erlang/hyperexponential laws, expanded into phases)"
        + ("" if args.quick else ", and every Markovian or phase-type model in `models/`") +
        ": the load scale s (stream rates x s, exact Fractions) is bisected for the largest s at which "
        "`certify.prove(net, templates=[name], fluid=False)` says `stable` (Markovian certificates only). "
        "`s_true` is the true critical scale relative to the "
        "file: 1/margin (corpus `x-case.margin`; models: `models/criteria.py`, independent of certify). "
        "For the DHK counterexample networks only the stream(s) into station 3 are scaled (`scaled` column): "
        "the effective load is (s lam_3 + d_1)/mu_3, so s_true = (mu_3 - d_1)/lam_3, with d_1 = "
        "`x-case.boundary.d1_exact` (models: from `criteria.py`).",
        "",
        f"Bisection on t = s/s_true in [{float(LO_T):g}, {float(HI_T):g}]: t = {float(LO_T):g} first (if not proved, t "
        f"is halved down to {float(MIN_T):g} and the bisection runs in [t, 2t]; `< t` when nothing was proved, at once "
        f"when every stage of the template was skipped as too large), then t = {float(HI_T):g}, above the true "
        f"boundary, as a soundness probe (a sound tool never proves it), then {steps} halvings; `certified / true` is "
        f"the largest t proved, `bracket` the width of the final interval. Per-call `time_limit` {PER_CALL_S:g} s; "
        f"a pair whose single prove takes > {SKIP_S:g} s is not bisected further. `mean LP s` = mean wall time of "
        "one template stage (LP build + solve + exact check); "
        "`LP time / quadratic` = `mean LP s` relative to the quadratic template's on the same network, "
        "measured in the same run (the baseline); `mean prove s` also counts the necessary-condition LP and, on "
        "failure, the growth (transience) search. `regions`/`LP` are the certificate's sizes at the certified scale "
        "(table: regions refined by clip cells, with K), or of the last failed attempt when nothing was proved.",
        "",
        "**Soundness: " + (f"CRITICAL: {len(unsound)} row(s) certified beyond the true boundary" if unsound else
                           f"no row certified beyond the true boundary (every ratio <= 1; the {float(HI_T):g} probe "
                           "was never proved)") + ".** "
        + (f"Skipped after one slow prove: {', '.join(f'`{r.case.file}` [{r.template}]' for r in skipped)}." if skipped
           else f"No pair needed the > {SKIP_S:g} s skip."),
    ]
    tight = [r for r in rows if r.t_cert is not None and not r.unsound and r.t_fail is not None and r.t_fail > 1]
    loose = [r for r in rows if r not in tight and not r.unsound]
    notes += ["", f"**Summary: {len(tight)} of {len(rows)} (network, template) pairs are certified up to the true "
                  "boundary (the final bracket contains t = 1).**" + (
                  " Short of it: " + "; ".join(f"`{r.case.file}` [{r.template}] {ratio_str(r)}" for r in loose) + "."
                  if loose else "")]
    if excluded:
        notes += ["", "Corpus families without a usable file: " + "; ".join(excluded) + "."]
    section = "\n".join([SECTION, "", *notes, "", table(rows), ""])
    write_section(args.out, SECTION, section)
    print(section)
    print(f"written to {args.out}", file=sys.stderr)
    if unsound:
        print("CRITICAL: a template proved 'stable' beyond the true stability boundary", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
