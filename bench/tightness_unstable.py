"""Benchmark: how close do the instability proofs get to the true stability boundary (the unstable side)?

The cases are those of ``bench/tightness.py`` (one representative per corpus
family, every phase-type file, the models), scaled the same way (t = s/s_true;
DHK counterexamples scale the stream(s) into station 3 only).  For each network
the scale is bisected for the *smallest* t at which ``certify.prove(net_t,
simulate=False)`` says ``unstable``, whatever proves it (a growth certificate,
the static-split dual, a closed set, or a theorem whose hypotheses were checked):
first t = 2 (if that is not proved, t is doubled up to 8), then t = 0.98, *below*
the true boundary, where a sound tool must not say ``unstable`` (if it does, the
row is flagged UNSOUND and the exit status is 3), then ``--steps`` halvings.  The
ratio ``proved unstable / true`` is the smallest t proved (>= 1 for a sound tool).

Usage::

    python bench/tightness_unstable.py             # full run, writes docs/benchmarks.md
    python bench/tightness_unstable.py --quick     # 2 families, 5 steps
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction

from docs_section import write_section  # noqa: E402  (sibling module; scripts run as files)
from tightness import Case, case_arguments, scaled, scaled_str, selected_cases

import certify

SECTION = "## Tightness, the unstable side: proved unstable / true boundary (issue 13)"
LO_T = Fraction(49, 50)  # 2% below the true boundary: the soundness probe
HI_T = Fraction(2)  # first probe; doubled up to MAX_T when not proved
MAX_T = Fraction(8)
PER_CALL_S = 20.0


@dataclass
class Row:
    case: Case
    t_proved: Fraction | None = None  # smallest t proved unstable
    t_not: Fraction | None = None  # largest t not proved unstable
    steps: int = 0
    times: list[float] = field(default_factory=list)
    methods: Counter[str] = field(default_factory=Counter)
    method_at_best: str = ""
    note: str = ""
    unsound: bool = False


def bisect(case: Case, steps: int) -> Row:
    row = Row(case)
    s_grid = Fraction(case.s_true).limit_denominator(10**8)

    def attempt(t: Fraction) -> bool:
        t0 = time.perf_counter()
        res = certify.prove(scaled(case, s_grid * t), time_limit=PER_CALL_S, simulate=False)
        row.times.append(time.perf_counter() - t0)
        ok = res.verdict == "unstable"
        if ok:
            row.methods[res.method] += 1
            if row.t_proved is None or t < row.t_proved:
                row.method_at_best = res.method
        elif not row.note and t >= 1:
            row.note = f"at t = {float(t):g}: {res.verdict}: {'; '.join(res.reasons[-1:])}"[:300]
        return ok

    t = HI_T
    while not attempt(t):
        row.t_not = t
        if t >= MAX_T:
            return row
        t *= 2
    row.t_proved = t
    if attempt(LO_T):
        row.t_proved, row.unsound = LO_T, True
        row.note = f"UNSOUND: proved unstable at {float(LO_T):g} x the true boundary"
        return row
    lo = row.t_not if row.t_not is not None else LO_T
    hi = row.t_proved
    for _ in range(steps):
        mid = (lo + hi) / 2
        row.steps += 1
        if attempt(mid):
            hi = row.t_proved = mid
        else:
            lo = mid
    row.t_not = lo
    if row.t_proved < 1:
        row.unsound = True
        row.note = f"UNSOUND: proved unstable at {float(row.t_proved):.6f} x the true boundary"
    return row


def ratio_str(r: Row) -> str:
    if r.t_proved is None:
        return f"> {float(r.t_not or MAX_T):g}"
    return f"{float(r.t_proved):.5f}"


def table(rows: list[Row]) -> str:
    head = ["source", "family", "network", "J", "scaled", "s_true", "proved unstable / true", "bracket", "steps", "calls",
            "mean prove s", "method at the smallest t", "note"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        c = r.case
        bracket = f"{float(r.t_proved - r.t_not):.1e}" if r.t_proved is not None and r.t_not is not None else ""
        cells = [c.source, f"`{c.family}`", f"`{c.file}`", str(len(c.net.stations)),
                 scaled_str(c),
                 f"{c.s_true:.6f}", ("**" + ratio_str(r) + " UNSOUND**") if r.unsound else ratio_str(r), bracket,
                 str(r.steps), str(len(r.times)),
                 f"{sum(r.times) / max(1, len(r.times)):.3f}", r.method_at_best, r.note.replace("|", "/")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Proved unstable / true stability boundary, per network.")
    case_arguments(ap)
    args = ap.parse_args(argv)
    t_start = time.perf_counter()
    steps, cases, excluded = selected_cases(args)
    rows = []
    for case in cases:
        row = bisect(case, steps)
        rows.append(row)
        print(f"{case.file}: proved unstable / true {ratio_str(row)}, {len(row.times)} calls, {sum(row.times):.1f} s"
              f"{'  CRITICAL: ' + row.note if row.unsound else ''}", file=sys.stderr)
    total = time.perf_counter() - t_start
    cmd = "python bench/tightness_unstable.py" + (" --quick" if args.quick else "") + \
        (f" --steps {steps}" if args.steps is not None else "")
    unsound = [r for r in rows if r.unsound]
    tight = [r for r in rows if r.t_proved is not None and not r.unsound and r.t_proved - 1 <= Fraction(1, 1000)]
    methods = Counter(r.method_at_best for r in rows if r.method_at_best)
    notes = [
        f"Machine: 2-core machine ({platform.processor() or platform.machine()}), Python {platform.python_version()}, "
        f"certify {certify.__version__}. Date: {datetime.date.today().isoformat()}. Command: `{cmd}` (total {total:.1f} s).",
        "",
        "The cases and the scaling of `bench/tightness.py` (s = t x s_true, s_true independent of certify). For each "
        "network the scale is bisected for the smallest t at which `certify.prove(net_t, simulate=False)` says `unstable`, "
        f"whatever proves it (growth certificate, static-split dual, closed set, or a theorem): t = {float(HI_T):g} first "
        f"(doubled up to {float(MAX_T):g} when not proved), then t = {float(LO_T):g}, below the true boundary, as a "
        f"soundness probe (a sound tool never proves it), then {steps} halvings. Per-call `time_limit` {PER_CALL_S:g} s. "
        "The bisection's grid is the resolution: with the bracket "
        f"{float((HI_T - LO_T) / 2**steps):.1e} wide, the first grid point above t = 1 is "
        f"{float(LO_T + (HI_T - LO_T) * ((1 - LO_T) * 2**steps // (HI_T - LO_T) + 1) / 2**steps):.5f}. "
        "The stable side is the table above.",
        "",
        "**Soundness: " + (f"CRITICAL: {len(unsound)} row(s) proved unstable below the true boundary" if unsound else
                           f"no row proved unstable below the true boundary (every ratio >= 1; the {float(LO_T):g} "
                           "probe was never proved)") + ".**",
        "",
        f"**Summary: {len(tight)} of {len(rows)} networks are proved unstable within 0.1% above the true boundary.** "
        "Methods at the smallest t: " + "; ".join(f"{m} ({n})" for m, n in methods.most_common()) + ".",
    ]
    if excluded:
        notes += ["", "Corpus families without a usable file: " + "; ".join(excluded) + "."]
    section = "\n".join([SECTION, "", *notes, "", table(rows), ""])
    write_section(args.out, SECTION, section)
    print(section)
    print(f"written to {args.out}", file=sys.stderr)
    return 3 if unsound else 0


if __name__ == "__main__":
    raise SystemExit(main())
