"""Scale by family (issue 12, item 6): the largest J that `certify prove` proves by a certificate in 30 s and 300 s.

Six families of networks, each written as a ``jsq-network/1`` file with exact
rational rates at margin 3%: every arrival rate is scaled so that the exact
criterion's ratio max_A w(A)/mu(A) (:func:`certify.exact.flows.max_ratio`) is
97/100, the stable side.  The weights w are the choice sets' arrival rates,
plus lam*/(1-p*) p_C for the homogeneous-feedback family (the Dai-Hasenbein-Kim
criterion).  The ratio is computed twice, from the weights built here and from
the written file (``certify.load`` and ``compile_chain``), and must be exactly
97/100 both times.

1. ``symmetric``: J identical stations (mu = 1), one full-choice stream;
2. ``classes``: three server classes (rates 1/2, 1, 2) of J/3 stations each, one
   stream per class choosing its class (half of the arrivals, in proportion to the
   class capacity) and one full-choice stream (the other half);
3. ``ring``: mu = 1, stream i (equal rates) chooses {i, i+1 mod J};
4. ``power-of-two``: identical stations, one stream per pair (equal rates);
5. ``feedback``: identical stations, one full-choice stream, feedback w.p. 3/10
   from every station to a JSQ over all stations;
6. ``random``: rates drawn from {1/2, 2/3, 1, 3/2, 2} by ``random.Random(seed)``;
   stream i (equal rates) chooses station i and 1 or 2 other stations drawn at
   random (a random choice set of 2 or 3 stations that covers every station); no
   feedback.

Each network is proved by ``certify prove FILE --json --sim-budget 0
--time-limit 300`` in a fresh process (start-up included; peak resident memory
by the wrapper of ``bench/symmetry.py``), on an increasing list of sizes per
family, stopping at the first size that is not proved by a certificate (verdict
``stable``, method not a theorem) within the limit.  The fluid stage's attempt
gives the number of faces listed (one per orbit with the reduction; none where
the max-flow bound decides).  Baseline in the same run: per family, the largest
J that the pipeline of before this issue (``--no-symmetry --no-flow-bound``:
every fluid face listed) proves within 60 s, timed again with the reduction
(``--no-flow-bound``) and with the default pipeline.  The scan passes ``--theorem-share 1``
(every family is decided by a theorem; the certificate stages get the whole limit).
A ring of 24 stations is run once more with the default settings (``--time-limit
120``, the certificate stages get a quarter of it when a theorem decides; the issue
accepts a theorem verdict there).

Usage::

    python bench/scale.py                     # every family; writes docs/benchmarks.md (about an hour)
    python bench/scale.py --quick             # small sizes, 30 s cap, prints only (a couple of minutes)
    python bench/scale.py --families ring,random --max-total 600
    python bench/scale.py --quick --families symmetric --sizes 10,20
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction as F
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from docs_section import write_section  # noqa: E402
from symmetry import _PEAK, power_of_two, symmetric  # noqa: E402

import certify  # noqa: E402
from certify.core.model import Network  # noqa: E402
from certify.exact.flows import max_ratio  # noqa: E402
from certify.markov.chain import compile_chain  # noqa: E402

HEADING = "## Scale by family (issue 12)"
MARGIN = F(97, 100)
FEEDBACK_P = F(3, 10)
RANDOM_RATES = (F(1, 2), F(2, 3), F(1), F(3, 2), F(2))

#: Sizes per family: the scan (stops at the first failure) and the ``--no-symmetry`` baseline (60 s each).
SIZES = {
    "symmetric": ((10, 20, 50, 100, 200, 400, 1000), (6, 8, 10, 12, 14, 16, 18)),
    "classes": ((12, 24, 36, 48, 60, 120, 240), (6, 9, 12, 15)),
    "ring": ((6, 8, 10, 12, 24, 50, 100, 200, 400), (6, 7, 8, 9, 10)),
    "power-of-two": ((4, 6, 8, 10, 12, 16, 24, 32, 48), (4, 5, 6, 7, 8)),
    "feedback": ((5, 10, 20, 40, 80, 160), (4, 6, 8, 10, 12, 14, 16)),
    "random": ((6, 8, 10, 12, 24, 50, 100, 200, 400), (6, 7, 8, 9)),
}
QUICK_SIZES = {
    "symmetric": ((10, 20), (6, 8)),
    "classes": ((6, 12), (6,)),
    "ring": ((6, 8), (6,)),
    "power-of-two": ((4, 6), (4,)),
    "feedback": ((5, 10), (4,)),
    "random": ((6, 8), (6,)),
}


# --- networks -------------------------------------------------------------------------------------------------


def classes3(J: int) -> dict:
    """Three classes (mu 1/2, 1, 2) of J/3 stations; class streams (half, by capacity) and a full-choice stream."""
    if J % 3:
        raise ValueError(f"classes: J = {J} is not a multiple of 3")
    per, rates = J // 3, (F(1, 2), F(1), F(2))
    st = {f"{c}{k + 1}": {"mu": str(r)} for c, r in zip("abc", rates) for k in range(per)}
    total = sum(rates) * per
    streams = [{"rate": str(r * per / 2), "choice": [f"{c}{k + 1}" for k in range(per)]} for c, r in zip("abc", rates)]
    streams.append({"rate": str(total / 2), "choice": list(st)})
    return {"format": "jsq-network/1", "name": f"classes-J{J}", "stations": st, "streams": streams}


def ring(J: int) -> dict:
    """J stations of rate 1; stream i (rate 1) chooses {i, i+1 mod J}."""
    ids = [str(a + 1) for a in range(J)]
    return {"format": "jsq-network/1", "name": f"ring-J{J}", "stations": {i: {"mu": 1} for i in ids},
            "streams": [{"rate": "1", "choice": [ids[a], ids[(a + 1) % J]]} for a in range(J)]}


def feedback(J: int) -> dict:
    """J stations of rate 1, one full-choice stream, feedback w.p. 3/10 from every station to a JSQ over all."""
    doc = symmetric(J, F(1))
    ids = list(doc["stations"])
    doc["name"] = f"feedback-J{J}"
    doc["feedback"] = [{"from": i, "choice": ids, "prob": str(FEEDBACK_P)} for i in ids]
    return doc


def heterogeneous(J: int, seed: int) -> dict:
    """Random rates from RANDOM_RATES; stream i (rate 1) chooses station i and 1 or 2 random others."""
    rng = random.Random(seed)
    ids = [str(a + 1) for a in range(J)]
    st = {i: {"mu": str(rng.choice(RANDOM_RATES))} for i in ids}
    streams = []
    for a in range(J):
        others = rng.sample([b for b in range(J) if b != a], rng.choice((1, 2)))
        streams.append({"rate": "1", "choice": [ids[b] for b in sorted([a, *others])]})
    return {"format": "jsq-network/1", "name": f"random-J{J}-s{seed}", "stations": st, "streams": streams}


def builders(seed: int) -> dict[str, Callable[[int], dict]]:
    """The six families, each a function of J giving a network document at unscaled rates."""
    return {
        "symmetric": lambda J: symmetric(J, F(1)),
        "classes": classes3,
        "ring": ring,
        "power-of-two": lambda J: power_of_two(J, F(1)),
        "feedback": feedback,
        "random": lambda J: heterogeneous(J, seed),
    }


# --- the exact ratio --------------------------------------------------------------------------------------------


def doc_weights(doc: dict) -> tuple[dict[tuple[int, ...], F], list[F]]:
    """The criterion's weights w_C (arrivals plus lam*/(1-p*) p_C for feedback the same from every station) and mu."""
    idx = {sid: a for a, sid in enumerate(doc["stations"])}
    mu = [F(str(s["mu"])) for s in doc["stations"].values()]
    w: dict[tuple[int, ...], F] = {}
    for s in doc["streams"]:
        C = tuple(sorted(idx[i] for i in s["choice"]))
        w[C] = w.get(C, F(0)) + F(str(s["rate"]))
    rows: dict[str, dict[tuple[int, ...], F]] = {i: {} for i in doc["stations"]}
    for f in doc.get("feedback", []):
        C = tuple(sorted(idx[i] for i in f["choice"]))
        rows[f["from"]][C] = rows[f["from"]].get(C, F(0)) + F(str(f["prob"]))
    return _add_feedback(w, list(rows.values())), mu


def chain_weights(path: Path) -> tuple[dict[tuple[int, ...], F], list[F]]:
    """The same weights, independently, from the written file: ``certify.load`` and ``compile_chain``."""
    net = certify.load(path)
    assert isinstance(net, Network), path
    ch = compile_chain(net)
    rows: list[dict[tuple[int, ...], F]] = [{} for _ in range(ch.J)]
    for i, C, p in ch.feedback:
        rows[i][C] = rows[i].get(C, F(0)) + p
    return _add_feedback(dict(ch.arrivals), rows), list(ch.mu)


def _add_feedback(lam: dict[tuple[int, ...], F], rows: Sequence[Mapping[tuple[int, ...], F]]) -> dict[tuple[int, ...], F]:
    """lam_C + lam*/(1-p*) p_C when every station's feedback row is the same p (DHK); lam itself without feedback."""
    if not any(rows):
        return dict(lam)
    if any(r != rows[0] for r in rows):
        raise ValueError("feedback differs between stations: the DHK weights do not apply")
    p_star, lam_star = sum(rows[0].values(), F(0)), sum(lam.values(), F(0))
    w = dict(lam)
    for C, p in rows[0].items():
        w[C] = w.get(C, F(0)) + lam_star / (1 - p_star) * p
    return w


def at_margin(doc: dict) -> dict:
    """``doc`` with every arrival rate scaled so that max_A w(A)/mu(A) is MARGIN (w is linear in the arrival rates)."""
    w, mu = doc_weights(doc)
    scale = MARGIN / max_ratio(w, mu).ratio
    out = json.loads(json.dumps(doc))
    for s in out["streams"]:
        s["rate"] = str(F(str(s["rate"])) * scale)
    w, mu = doc_weights(out)
    assert max_ratio(w, mu).ratio == MARGIN, doc["name"]
    return out


def write_network(doc: dict, tmp: Path) -> Path:
    """Write ``doc`` at margin 3% and check, from the file, that the exact ratio is 97/100."""
    path = tmp / f"{doc['name']}.json"
    path.write_text(json.dumps(at_margin(doc)))
    w, mu = chain_weights(path)
    ratio = max_ratio(w, mu).ratio
    assert ratio == MARGIN, f"{doc['name']}: ratio {ratio} from the file, not {MARGIN}"
    return path


# --- one prove ---------------------------------------------------------------------------------------------------


@dataclass
class Run:
    """One ``certify prove`` in a fresh process: its outcome, cost and fluid-face count."""

    family: str
    J: int
    symmetry: bool
    flow_bound: bool
    verdict: str
    method: str
    wall: float
    mb: float
    faces: int | None = None
    classes: str = ""
    note: str = ""

    @property
    def by_certificate(self) -> bool:
        """Proved stable by a certificate (not by a theorem)."""
        return self.verdict == "stable" and not self.method.startswith("theorem")


def measure(cmd: list[str], timeout: float) -> tuple[float, float, str, str, int | None]:
    """Wall s, peak MB (the wrapper of bench/symmetry.py), stdout, stderr, exit status (None: killed at ``timeout``).

    The wrapper runs in its own process group, which is killed as a whole on
    time-out (so that no orphaned prover keeps running).
    """
    t0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-c", _PEAK, *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return time.perf_counter() - t0, 0.0, out, err, None
    wall = time.perf_counter() - t0
    last = err.strip().splitlines()[-1] if err.strip() else ""
    mb = int(last) / 1024 if last.isdigit() else 0.0
    return wall, mb, out, err, p.returncode


def fluid_size(attempts: list[dict]) -> tuple[int | None, str]:
    """The number of fluid faces listed and the symmetry found, from the fluid-faces attempt's ``size``."""
    for a in attempts:
        if str(a.get("stage", "")).startswith("fluid faces"):
            size = str(a.get("size", ""))
            m = re.search(r"(\d+) faces", size)
            c = re.search(r"(\d+) station class", size)  # the prover's plural reads "classs" today
            n = int(c.group(1)) if c else 0
            return (int(m.group(1)) if m else None), (f"{n} class{'es' if n != 1 else ''}" if c else "")
    return None, ""


def prove(family: str, path: Path, J: int, limit: float, symmetry: bool = True, share: float = 1.0,
          flow_bound: bool = True) -> Run:
    """``certify prove path --json --sim-budget 0 --time-limit limit --theorem-share share`` (``--no-symmetry`` unless
    ``symmetry``, ``--no-flow-bound`` unless ``flow_bound``).

    Every family here is decided by a theorem, so by default (share 1/4) the certificate stages would get only a
    quarter of the limit; the scan measures the certificates, so it gives them all of it (``share`` 1).
    """
    cmd = [sys.executable, "-m", "certify", "prove", str(path), "--json", "--sim-budget", "0",
           "--time-limit", str(limit), "--theorem-share", str(share), *([] if symmetry else ["--no-symmetry"]),
           *([] if flow_bound else ["--no-flow-bound"])]
    wall, mb, out, err, rc = measure(cmd, timeout=limit + 60)
    if rc is None:
        return Run(family, J, symmetry, flow_bound, "killed", "", wall, mb, note=f"killed at {limit + 60:.0f} s")
    try:
        res = json.loads(out.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        tail = " ".join(err.strip().splitlines()[-3:-1])[-200:]
        return Run(family, J, symmetry, flow_bound, f"exit {rc}", "", wall, mb, note=tail)
    faces, cls = fluid_size(res.get("attempts", []))
    cut = next((r for r in res.get("reasons", []) if "reached during" in r), "")
    return Run(family, J, symmetry, flow_bound, res["verdict"], res["method"], wall, mb, faces, cls, cut[:80])


def show(r: Run) -> str:
    """One printed line per run."""
    faces = "-" if r.faces is None else str(r.faces)
    how = ("sym" if r.symmetry else "full") + ("" if r.flow_bound else " faces")
    return (f"{r.family:>12} J={r.J:>4} {how:>10} {r.verdict:>10} {r.wall:7.2f}s "
            f"{r.mb:6.0f} MB faces {faces:>6} {r.classes:>10}  {r.method} {r.note}")


# --- the scans ---------------------------------------------------------------------------------------------------


@dataclass
class Family:
    """One family's scan, baseline pair and the J it reached."""

    name: str
    runs: list[Run] = field(default_factory=list)
    base: tuple[Run, Run, Run] | None = None  # (--no-symmetry --no-flow-bound, --no-flow-bound, default) at the baseline J
    stopped: str = ""

    def largest(self, limit: float) -> Run | None:
        """The largest-J run proved by a certificate within ``limit`` seconds of wall time."""
        ok = [r for r in self.runs if r.by_certificate and r.wall <= limit]
        return max(ok, key=lambda r: r.J) if ok else None


class Clock:
    """Seconds since the start, and whether ``--max-total`` forbids starting another run."""

    def __init__(self, max_total: float | None) -> None:
        self.t0, self.max_total = time.perf_counter(), max_total

    def elapsed(self) -> float:
        """Seconds since the start."""
        return time.perf_counter() - self.t0

    def over(self) -> bool:
        """True once the overall budget is spent."""
        return self.max_total is not None and self.elapsed() > self.max_total


def scan(fam: Family, build: Callable[[int], dict], sizes: Sequence[int], limit: float, tmp: Path, clock: Clock) -> None:
    """Prove at increasing J; stop at the first size not proved by a certificate within ``limit``."""
    for J in sizes:
        if clock.over():
            fam.stopped = f"--max-total reached before J = {J}"
            return
        fam.runs.append(prove(fam.name, write_network(build(J), tmp), J, limit))
        print(show(fam.runs[-1]), flush=True)
        if not (fam.runs[-1].by_certificate and fam.runs[-1].wall <= limit):
            fam.stopped = f"first failure at J = {J}"
            return
    fam.stopped = "every size proved"


def baseline(fam: Family, build: Callable[[int], dict], sizes: Sequence[int], limit: float, tmp: Path,
             clock: Clock) -> None:
    """The largest J that ``--no-symmetry --no-flow-bound`` proves within ``limit``; then the same network with the
    reduction (``--no-flow-bound``) and with the default pipeline."""
    best: Run | None = None
    for J in sizes:
        if clock.over():
            break
        r = prove(fam.name, write_network(build(J), tmp), J, limit, symmetry=False, flow_bound=False)
        print(show(r), flush=True)
        if not (r.by_certificate and r.wall <= limit):
            break
        best = r
    if best is not None:
        path = write_network(build(best.J), tmp)
        red = prove(fam.name, path, best.J, limit, flow_bound=False)
        now = prove(fam.name, path, best.J, limit)
        print(show(red), flush=True)
        print(show(now), flush=True)
        fam.base = (best, red, now)


# --- the report --------------------------------------------------------------------------------------------------


def ratio_text(fam: Family, k: int) -> str:
    """Wall time of the pipeline of before the issue / of base run ``k`` (1: the reduction, 2: default) at the baseline J."""
    if fam.base is None:
        return "-"
    full, other = fam.base[0], fam.base[k]
    return f"{full.wall / other.wall:.1f}x ({full.wall:.1f} s / {other.wall:.2f} s)"


def faces_text(fam: Family) -> str:
    """Orbit faces / full faces at the baseline J (both counted with ``--no-flow-bound``)."""
    if fam.base is None or fam.base[0].faces is None or fam.base[1].faces is None:
        return "-"
    full, red = fam.base[0], fam.base[1]
    return f"{red.faces} / {full.faces} (J = {full.J})"


def summary_row(fam: Family, cap: float) -> str:
    """family | largest J in 30 s | in cap | wall | peak MB | method | faces | two ratios to the pipeline of before."""
    a, b = fam.largest(30), fam.largest(cap)
    wall, mb, how = (f"{b.wall:.2f}", f"{b.mb:.0f}", b.method) if b else ("-", "-", "-")
    return (f"| {fam.name} | {a.J if a else '-'} | {b.J if b else '-'} | {wall} | {mb} | {how} | {faces_text(fam)} | "
            f"{ratio_text(fam, 1)} | {ratio_text(fam, 2)} |")


def run_row(r: Run) -> str:
    """One row of the table of every run."""
    faces = "-" if r.faces is None else str(r.faces)
    return (f"| {r.family} | {r.J} | {'yes' if r.symmetry else 'no'} | {'yes' if r.flow_bound else 'no'} | "
            f"{r.verdict} | {r.method} | {r.wall:.2f} | "
            f"{r.mb:.0f} | {faces} | {r.classes or '-'} | {r.note or ''} |")


def report(fams: list[Family], ring24: Run | None, caps: tuple[float, float], seed: int, command: str,
           total: float) -> str:
    """The markdown section (every number from this run); ``caps`` are the scan's and the baseline's limits."""
    cap, base_cap = caps
    lines = [HEADING, "",
             f"Machine: {os.cpu_count()}-core {platform.machine()}, Python {platform.python_version()}. "
             f"Date: {time.strftime('%Y-%m-%d')}. Command: `{command}` (total {total:.0f} s). Random seed: {seed}.", "",
             "Each network is written with exact rational rates at margin 3% (max_A w(A)/mu(A) = 97/100 exactly, "
             "by `certify.exact.flows.max_ratio`, checked on the written file) and proved by "
             f"`certify prove FILE --json --sim-budget 0 --time-limit {cap:.0f} --theorem-share 1` in a fresh process "
             "(start-up included; peak resident memory of that process), at increasing J (the sizes in `SIZES`) until "
             "the first size that is not proved by a certificate (verdict stable, method not a theorem) within the "
             "limit. The size lists end near the largest size that finishes on this machine (a failing size costs the "
             "whole limit): where every size was proved, the largest J is a lower bound. Faces are the fluid faces "
             "listed (one per orbit with the reduction; none where the max-flow bound decides, kind `fluid-flow`). "
             "The baseline is the pipeline of before this issue, `--no-symmetry --no-flow-bound` (every fluid face "
             f"listed), at the largest J it proves within {base_cap:.0f} s; the same network is then proved with the "
             "reduction alone (`--no-flow-bound`) and with the default pipeline, in the same run. In the summary, "
             f"wall, peak MB and method are those of the largest J proved in {cap:.0f} s.", "",
             f"| family | largest J in 30 s | in {cap:.0f} s | wall s | peak MB | method | orbit faces / full faces | "
             "before / reduction | before / default |",
             "|---|---|---|---|---|---|---|---|---|"]
    lines += [summary_row(f, cap) for f in fams]
    lines += [""] + [f"- {f.name}: {f.stopped}." for f in fams if f.stopped]
    if ring24 is not None:
        lines += ["", f"**Ring of {ring24.J}** (the default settings: `--time-limit 120`, `--theorem-share 0.25`): "
                      f"{ring24.verdict} by {ring24.method or '-'} in "
                      f"{ring24.wall:.1f} s wall, {ring24.mb:.0f} MB."]
    lines += ["", "Every run:", "",
              "| family | J | reduction | max-flow bound | verdict | method | wall s | peak MB | faces | symmetry | note |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for f in fams:
        lines += [run_row(r) for r in f.runs]
        if f.base is not None:
            lines += [run_row(r) for r in f.base]
    if ring24 is not None:
        lines.append(run_row(ring24))
    return "\n".join(lines) + "\n"


def main() -> int:
    """Run the scans and baselines of the chosen families; print, and write the section unless ``--quick``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, a 30 s cap; print only")
    ap.add_argument("--families", default=",".join(SIZES), help="comma-separated subset of " + ",".join(SIZES))
    ap.add_argument("--max-total", type=float, default=None, help="start no new run after S seconds overall")
    ap.add_argument("--sizes", default=None, help="override the scan sizes (comma-separated J) of every family")
    ap.add_argument("--seed", type=int, default=12, help="seed of the random heterogeneous family")
    args = ap.parse_args()
    names = [n.strip() for n in args.families.split(",") if n.strip()]
    unknown = [n for n in names if n not in SIZES]
    if unknown:
        ap.error(f"unknown families {unknown}; choose from {list(SIZES)}")
    cap, base_cap = (30.0, 30.0) if args.quick else (300.0, 60.0)
    table = QUICK_SIZES if args.quick else SIZES
    build = builders(args.seed)
    clock = Clock(args.max_total)
    print(f"seed {args.seed}; cap {cap:.0f} s; baseline cap {base_cap:.0f} s", flush=True)
    fams, ring24 = [], None
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for name in names:
            fam = Family(name)
            sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else table[name][0]
            scan(fam, build[name], sizes, cap, tmp, clock)
            baseline(fam, build[name], table[name][1], base_cap, tmp, clock)
            fams.append(fam)
        if "ring" in names and not args.quick and not clock.over():
            ring24 = prove("ring", write_network(ring(24), tmp), 24, 120.0, share=0.25)  # the default settings
            print(show(ring24), flush=True)
    command = "python bench/scale.py" + "".join(f" {a}" for a in sys.argv[1:])
    text = report(fams, ring24, (cap, base_cap), args.seed, command, clock.elapsed())
    if not args.quick:
        write_section(ROOT / "docs" / "benchmarks.md", HEADING, text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
