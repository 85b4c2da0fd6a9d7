"""Frontier benchmark (issue 21, item 6): where means do not decide — gadgets, cascades, random heterogeneous feedback.

Three families, each case proved by ``certify prove FILE --json --sim-budget 0 --time-limit T`` (or, for the
random family, ``certify boundary FILE --load 0.5:1.2 --tol 0.005 --json``) in a fresh process; wall time and
peak memory per case (the wrapper of ``bench/symmetry.py``).

1. ``gadgets``: G tie-breaking gadgets into one sink S.  A gadget is two stations a (mu = 1) and b (mu = 3/2)
   sharing a JSQ stream of rate 8/5 with ties broken 3/10 : 7/10 (a : b); a's output goes on to S with
   probability 1, b's leaves.  S (its rate mu_S) also has its own stream lam_S.  S is stable iff
   lam_S + sum_g d_g < mu_S, where d_g is the gadget's stationary throughput at a: no mean-based criterion gives
   it.  d_g is computed here from the gadget's own chain (it does not see S) truncated at 60 customers per
   station, by :func:`certify.stationary.stationary` (error far below 1e-6 at this load).  A case at load
   factor r sets mu_S = G d + 1/2 and lam_S = r mu_S - G d, so the exact boundary is r = 1.
   Laws: exponential, or phase-type service at every gadget's station a, mean kept (``--laws``): Erlang-2
   (``erlang2``), a hyperexponential of scv 4.56 (``h2``: probabilities 1/10, 9/10, rates 1/5, 9/5), a Coxian-2 of
   scv 2 (``coxian``); with ``-both`` (``erlang2-both``, ...) at both stations of every gadget (H2 then has mean 1
   at b too), where the whole phase space (3^(2G) vectors for Erlang-2) is beyond the whole-network searches.
2. ``cascade``: depth 2 — stations 1, 2 share a stream (the gadget), 1's output joins JSQ{3, 4}, 3's output goes
   on to 5 (the sink, with its own stream).  The throughput into 5 is station 3's in the chain of 1..4 (truncated
   at 14 per station).  Depth 3: 3's output joins JSQ{5, 6} instead, 5's output goes on to the sink 7 (the
   throughput from the chain of 1..6 truncated at 7 per station).  Same load factors.
3. ``random``: J stations, mu in {1/2, 1, 3/2, 2}, J streams of random choice sets of 1 to 3 stations, feedback
   from most stations (p in [1/10, 6/10]) to a random set, random ties (``random.Random(seed)``), every rate
   scaled so that the static split's critical load factor is 1 (bisection on its LP); the boundary of
   the load factor is bracketed by ``certify boundary --load``, and the band is the bracket's width (the
   unstable end minus the stable one; ``inf`` when a side is not proved).

4. ``sink boundary`` (``--sink-boundary``, default G = 4): exponential gadgets (``--sink-boundary-law``: gadgets
   of another of the laws above, named ``sink-G4-erlang2``), the sink's own stream rate bisected by ``certify
   boundary FILE --vary streams[0].rate=0.3:0.7 --tol 0.005 --out DIR``; the exact boundary is lam_S = mu_S - G d
   = 1/2 (to the rounding of mu_S and d).  Each end's certificate is re-checked by ``certify verify`` in a fresh
   process; a bracket that misses 1/2 is a wrong verdict.

``--baseline REV`` runs every prove case a second time with certify at git revision REV (a detached worktree,
the working directory of that process, so ``python -m certify`` imports it), in the same run: the pipeline
before the separable kinds is ``54bda29``.

Usage::

    python bench/frontier.py --quick     # G = 2 exponential, cascade depth 2, random J = 4 (a few minutes)
    python bench/frontier.py             # G = 2..8, every law, cascades 2 and 3, random J = 4, 6, 8 (long)
    python bench/frontier.py --baseline 54bda29 --laws exponential --random ""   # against an earlier pipeline
    python bench/frontier.py --gadgets "" --no-cascades --random 6 --seeds 1,2,3,8,15  # the random family only

A full run writes its table into docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile
from fractions import Fraction as F
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from docs_section import merge_table_section  # noqa: E402
from symmetry import run  # noqa: E402

import certify  # noqa: E402
from certify.io.loader import from_dict  # noqa: E402
from certify.stationary import stationary  # noqa: E402

HEADING = "## Frontier: gadgets, cascades, random feedback (issue 21)"
RANDOM_HEADING = "## Frontier: random heterogeneous feedback networks (issue 21)"
SINK_HEADING = "## Frontier: the sink's boundary behind G gadgets (issue 21)"
ERLANG2 = {"dist": "erlang", "k": 2}
#: The phase-type service laws of a gadget's station a (its mean stays 1/mu).
LAWS = {"erlang2": ERLANG2, "h2": {"dist": "hyperexponential", "probs": [0.1, 0.9], "rates": [0.2, 1.8]},
        "coxian": {"dist": "coxian", "scv": 2}}


def _gadget(g: int, law: str) -> tuple[dict, list[dict], dict]:
    a, b = f"a{g}", f"b{g}"
    st = {a: {"mu": 1}, b: {"mu": 1.5}}
    name, both = law.removesuffix("-both"), law.endswith("-both")
    if name != "exponential":
        st[a]["service"] = LAWS[name]
    if both and name != "exponential":
        st[b] = {"mu": 1 if name == "h2" else 1.5, "service": LAWS[name]}  # frontier's H2 has mean 1
    return st, [{"choice": [a, b], "rate": 1.6}], {"set": [a, b], "probs": {a: 0.3, b: 0.7}}


def gadget_throughput(law: str) -> float:
    """d: the stationary throughput of a gadget's station a (its own chain, truncated at 60 per station)."""
    st, streams, tb = _gadget(0, law)
    net = from_dict({"format": "jsq-network/1", "name": "gadget", "stations": st, "streams": streams, "tie_breaking": [tb]})
    res = stationary(net, truncate=60)
    return res.throughput[net.station_ids.index("a0")]


def gadgets(G: int, law: str, r: float, d: float) -> dict:
    """G gadgets into one sink, at load factor r of the exact boundary."""
    mu_s = G * d + 0.5
    stations: dict = {"s": {"mu": round(mu_s, 12)}}
    streams: list = [{"choice": ["s"], "rate": round(r * mu_s - G * d, 12)}]
    fb, ties = [], []
    for g in range(G):
        st, sm, tb = _gadget(g, law)
        stations.update(st)
        streams += sm
        ties.append(tb)
        fb.append({"from": f"a{g}", "choice": ["s"], "prob": 1})
    return {"format": "jsq-network/1", "name": f"gadgets-G{G}-{law}-r{r}", "stations": stations, "streams": streams,
            "feedback": fb, "tie_breaking": ties}


def _cascade_head() -> tuple[dict, list, list, list]:
    stations = {"1": {"mu": 1}, "2": {"mu": 1.5}, "3": {"mu": 1}, "4": {"mu": 1.5}}
    streams = [{"choice": ["1", "2"], "rate": 1.6}]
    fb = [{"from": "1", "choice": ["3", "4"], "prob": 1}]
    ties = [{"set": ["1", "2"], "probs": {"1": 0.3, "2": 0.7}}, {"set": ["3", "4"], "probs": {"3": 0.3, "4": 0.7}}]
    return stations, streams, fb, ties


def cascade_throughput() -> float:
    """The throughput of station 3 (into the sink) in the chain of stations 1..4, truncated at 14 per station."""
    stations, streams, fb, ties = _cascade_head()
    net = from_dict({"format": "jsq-network/1", "name": "cascade-head", "stations": stations, "streams": streams,
                     "feedback": fb, "tie_breaking": ties})
    return stationary(net, truncate=14).throughput[net.station_ids.index("3")]


def cascade(r: float, d: float) -> dict:
    """The depth-2 cascade into sink 5, at load factor r of the exact boundary."""
    stations, streams, fb, ties = _cascade_head()
    mu_s = d + 0.5
    stations["5"] = {"mu": round(mu_s, 12)}
    streams = [*streams, {"choice": ["5"], "rate": round(r * mu_s - d, 12)}]
    fb = [*fb, {"from": "3", "choice": ["5"], "prob": 1}]
    return {"format": "jsq-network/1", "name": f"cascade2-r{r}", "stations": stations, "streams": streams,
            "feedback": fb, "tie_breaking": ties}


def _cascade3_head() -> tuple[dict, list, list, list]:
    stations, streams, fb, ties = _cascade_head()
    stations.update({"5": {"mu": 1}, "6": {"mu": 1.5}})
    fb = [*fb, {"from": "3", "choice": ["5", "6"], "prob": 1}]
    ties = [*ties, {"set": ["5", "6"], "probs": {"5": 0.3, "6": 0.7}}]
    return stations, streams, fb, ties


def cascade3_throughput() -> float:
    """The throughput of station 5 (into the sink) in the chain of stations 1..6, truncated at 7 per station."""
    stations, streams, fb, ties = _cascade3_head()
    net = from_dict({"format": "jsq-network/1", "name": "cascade3-head", "stations": stations, "streams": streams,
                     "feedback": fb, "tie_breaking": ties})
    return stationary(net, truncate=7).throughput[net.station_ids.index("5")]


def cascade3(r: float, d: float) -> dict:
    """The depth-3 cascade {1,2} -> {3,4} -> {5,6} -> sink 7, at load factor r of the boundary."""
    stations, streams, fb, ties = _cascade3_head()
    mu_s = d + 0.5
    stations["7"] = {"mu": round(mu_s, 12)}
    streams = [*streams, {"choice": ["7"], "rate": round(r * mu_s - d, 12)}]
    fb = [*fb, {"from": "5", "choice": ["7"], "prob": 1}]
    return {"format": "jsq-network/1", "name": f"cascade3-r{r}", "stations": stations, "streams": streams,
            "feedback": fb, "tie_breaking": ties}


def _scaled(doc: dict, factor: float) -> dict:
    out = json.loads(json.dumps(doc))
    for st in out["streams"]:
        st["rate"] = round(st["rate"] * factor, 9)
    return out


def critical_factor(doc: dict) -> float:
    """The factor on every stream rate at which the static split LP's best slack is 0 (bisection, 1e-6)."""
    from certify.markov.chain import compile_chain
    from certify.search.instability import static_split

    def feasible(f: float) -> bool:
        ss = static_split(compile_chain(from_dict(_scaled(doc, f))))
        return ss.slack is not None and ss.slack > 0

    lo, hi = 1e-3, 1e3
    while hi - lo > 1e-6 * hi:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if feasible(mid) else (lo, mid)
    return lo


def random_feedback(J: int, seed: int) -> dict:
    """A random heterogeneous feedback network, scaled so that the static split's critical load factor is 1."""
    rng = random.Random(seed)
    ids = [str(i + 1) for i in range(J)]
    stations = {s: {"mu": rng.choice([0.5, 1, 1.5, 2])} for s in ids}
    streams = [{"choice": sorted(rng.sample(ids, rng.randint(1, 3)), key=int), "rate": round(rng.uniform(0.1, 0.5), 3)}
               for _ in range(J)]
    fb, ties = [], []
    for s in ids:
        if rng.random() < 0.75:
            fb.append({"from": s, "choice": sorted(rng.sample(ids, rng.randint(1, 3)), key=int),
                       "prob": round(rng.uniform(0.1, 0.6), 2)})
    sets = {tuple(c["choice"]) for c in streams + fb if len(c["choice"]) == 2}
    for c in sorted(sets)[:2]:
        p = round(rng.uniform(0.1, 0.9), 2)
        ties.append({"set": list(c), "probs": {c[0]: p, c[1]: round(1 - p, 2)}})
    doc = {"format": "jsq-network/1", "name": f"random-J{J}-s{seed}", "stations": stations, "streams": streams,
           "feedback": fb, "tie_breaking": ties}
    return _scaled(doc, critical_factor(doc))


def _random_order(cells: list[str]) -> tuple[int, int]:
    """Random networks by J, then seed (names random-J<J>-s<seed>)."""
    m = re.fullmatch(r"random-J(\d+)-s(\d+)", cells[0])
    return (int(m.group(1)), int(m.group(2))) if m else (10**9, 0)


def _certify(args: list[str], limit: float, base: Path | None) -> tuple[float, float, str, int]:
    """``python -m certify ARGS`` in a fresh process, run from this checkout or, with ``base``, from that one."""
    # python -m puts the working directory first on sys.path: run from the checkout whose certify is wanted
    here = os.getcwd()
    os.chdir(base if base is not None else ROOT)
    try:
        return run([sys.executable, "-m", "certify", *args], timeout=limit + 120)
    finally:
        os.chdir(here)


def prove_case(doc: dict, tmp: Path, limit: float, base: Path | None = None) -> dict:
    """certify prove in a fresh process: verdict, method, wall seconds, peak MB (and the same with the baseline)."""
    path = tmp / f"{doc['name']}.json"
    path.write_text(json.dumps(doc))
    args = ["prove", str(path), "--json", "--sim-budget", "0", "--time-limit", str(limit)]
    wall, mb, out, rc = _certify(args, limit, None)
    res = json.loads(out.strip().splitlines()[-1]) if out.strip() else {"verdict": f"exit {rc}", "method": ""}
    row = {"name": doc["name"], "J": len(doc["stations"]), "verdict": res["verdict"], "method": res["method"],
           "s": wall, "mb": mb, "base_verdict": "-", "base_s": float("nan")}
    if base is not None:
        bwall, _, bout, brc = _certify(args, limit, base)
        bres = json.loads(bout.strip().splitlines()[-1]) if bout.strip() else {"verdict": f"exit {brc}"}
        row.update(base_verdict=bres["verdict"], base_s=bwall)
    return row


def boundary_case(doc: dict, tmp: Path, limit: float, loads: str = "0.5:1.2") -> dict:
    """certify boundary --load in a fresh process: the bracket, its width (the band), wall seconds, peak MB."""
    path = tmp / f"{doc['name']}.json"
    path.write_text(json.dumps(doc))
    wall, mb, out, rc = run([sys.executable, "-m", "certify", "boundary", str(path), "--load", loads, "--tol", "0.005",
                             "--json", "--time-limit", str(limit)], timeout=limit + 120)
    res = json.loads(out.strip().splitlines()[-1]) if out.strip() else {}
    lo, hi = res.get("stable_at"), res.get("unstable_at")
    band = float(F(hi) - F(lo)) if lo is not None and hi is not None else float("inf")
    return {"name": doc["name"], "J": len(doc["stations"]), "stable_at": lo, "unstable_at": hi, "band": band,
            "s": wall, "mb": mb}


def sink_boundary_case(G: int, d: float, tmp: Path, limit: float, law: str = "exponential") -> dict:
    """certify boundary --vary on the sink's own stream of G gadgets of one law, then verify of each end's certificate."""
    doc = gadgets(G, law, 1.0, d)
    name = f"sink-G{G}" if law == "exponential" else f"sink-G{G}-{law}"
    path, out = tmp / f"{name}.json", tmp / f"{name}-ends"
    path.write_text(json.dumps(doc))
    wall, mb, text, rc = run([sys.executable, "-m", "certify", "boundary", str(path), "--vary", "streams[0].rate=0.3:0.7",
                              "--tol", "0.005", "--json", "--time-limit", str(limit), "--out", str(out)],
                             timeout=limit + 120)
    res = json.loads(text.strip().splitlines()[-1]) if text.strip() else {}
    lo, hi = res.get("stable_at"), res.get("unstable_at")
    truth = F(doc["stations"]["s"]["mu"]).limit_denominator(10**12) - G * F(d)
    verified = []
    for end in ("stable", "unstable"):
        if (out / f"{end}.cert.json").exists():
            _, _, _, vrc = run([sys.executable, "-m", "certify", "verify", str(out / f"{end}.json"),
                                str(out / f"{end}.cert.json")], timeout=600)
            verified.append(f"{end} {'valid' if vrc == 0 else 'INVALID'}")
    inside = lo is not None and hi is not None and F(lo) <= truth + F(1, 10**8) and truth - F(1, 10**8) <= F(hi)
    return {"name": name, "J": len(doc["stations"]), "truth": float(truth), "stable_at": lo, "unstable_at": hi,
            "width": float(F(hi) - F(lo)) if lo is not None and hi is not None else float("inf"), "inside": inside,
            "verified": ", ".join(verified) or "-", "s": wall, "mb": mb}


def _baseline(rev: str, tmp: Path) -> Path:
    """A detached worktree of ``rev`` (the pipeline to compare with, in the same run)."""
    where = tmp / "baseline"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(where), rev], check=True,
                   capture_output=True)
    return where


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="G = 2 exponential, cascade depth 2, random J = 4; print only")
    ap.add_argument("--limit", type=float, default=120.0, help="--time-limit of each prove (default 120)")
    ap.add_argument("--boundary-limit", type=float, default=300.0, help="--time-limit of each boundary (default 300)")
    ap.add_argument("--gadgets", default="2,3,4,6,8", help="the G values (default 2,3,4,6,8)")
    ap.add_argument("--laws", default="exponential,erlang2,h2,coxian",
                    help="gadget laws (default exponential,erlang2,h2,coxian; erlang2-both etc.: at both stations)")
    ap.add_argument("--random", default="4,6,8", help="J of the random networks (default 4,6,8)")
    ap.add_argument("--seeds", default="1,2,3", help="seeds of the random networks (default 1,2,3)")
    ap.add_argument("--sink-boundary", default="4", help="G of the sink-boundary cases (default 4; '' for none)")
    ap.add_argument("--sink-boundary-law", default="exponential",
                    help="the law of the sink-boundary cases' gadgets: exponential (default) or a law of --laws")
    ap.add_argument("--no-cascades", action="store_true", help="skip the cascades")
    ap.add_argument("--loads", default="0.5:1.2", help="the load range bisected for the random networks (default 0.5:1.2)")
    ap.add_argument("--baseline", metavar="REV", help="also run every prove case with certify at git revision REV")
    args = ap.parse_args()
    if args.sink_boundary_law.removesuffix("-both") not in ("exponential", *LAWS):
        ap.error(f"--sink-boundary-law: {args.sink_boundary_law!r} is not a law (exponential, {', '.join(LAWS)}, "
                 "each with -both)")
    if args.quick:
        Gs, laws, Js, seeds, Gb = (2,), ("exponential",), (4,), (1,), ()
    else:
        Gb = tuple(int(g) for g in args.sink_boundary.split(",")) if args.sink_boundary else ()
        Gs = tuple(int(g) for g in args.gadgets.split(",")) if args.gadgets else ()
        laws = tuple(args.laws.split(","))
        Js = tuple(int(j) for j in args.random.split(",")) if args.random else ()
        seeds = tuple(int(x) for x in args.seeds.split(","))
    rows, brows, srows = [], [], []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        base = _baseline(args.baseline, tmp) if args.baseline else None
        try:
            for law in laws if Gs else ():
                dg = gadget_throughput(law)
                for G in Gs:
                    for r in (0.97, 1.03):
                        row = prove_case(gadgets(G, law, r, dg), tmp, args.limit, base)
                        row.update(family=f"gadgets ({law})", r=r, want="stable" if r < 1 else "unstable")
                        rows.append(row)
                        print(row, flush=True)
            cascades = [] if args.no_cascades else [("cascade (depth 2)", cascade, cascade_throughput)]
            if not (args.quick or args.no_cascades):
                cascades.append(("cascade (depth 3)", cascade3, cascade3_throughput))
            for family, build, through in cascades:
                dc = through()
                for r in (0.97, 1.03):
                    row = prove_case(build(r, dc), tmp, args.limit, base)
                    row.update(family=family, r=r, want="stable" if r < 1 else "unstable")
                    rows.append(row)
                    print(row, flush=True)
            for J in Js:
                for seed in seeds:
                    brow = boundary_case(random_feedback(J, seed), tmp, args.boundary_limit, args.loads)
                    brows.append(brow)
                    print(brow, flush=True)
            dx = gadget_throughput(args.sink_boundary_law) if Gb else 0.0
            for G in Gb:
                srow = sink_boundary_case(G, dx, tmp, args.boundary_limit, args.sink_boundary_law)
                srows.append(srow)
                print(srow, flush=True)
        finally:
            if base is not None:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], capture_output=True)
    where = f", baseline `{args.baseline}` in the same run" if args.baseline else ""
    command = shlex.join(["python", "bench/frontier.py", *sys.argv[1:]])
    today = datetime.date.today().isoformat()
    intro = (f"`{command}` with certify {certify.__version__}; each case in a fresh process, `--time-limit "
             f"{args.limit:g}`{where}. Load factor r of the exact boundary (r = 1). Rows of earlier runs whose cases "
             "this run did not measure are kept (column measured).")
    header = ["family", "case", "J", "r", "truth", "verdict", "method", "s", "MB", "baseline verdict", "baseline s",
              "measured"]
    cells = [[x["family"], x["name"], str(x["J"]), str(x["r"]), x["want"], x["verdict"], x["method"], f"{x['s']:.1f}",
              f"{x['mb']:.0f}", x["base_verdict"], f"{x['base_s']:.1f}", today] for x in rows]
    bintro = (f"`{command}` with certify {certify.__version__}: `certify boundary FILE --load {args.loads} --tol 0.005 "
              f"--time-limit {args.boundary_limit:g}` in a fresh process per network; the load factor 1 is the static "
              "split's critical load (flow balance proves every load above it unstable). The band is the unstable end "
              "minus the stable end (inf: a side not proved). Rows of earlier runs whose networks this run did not "
              "measure are kept (column measured).")
    bheader = ["random network", "J", "stable at", "unstable at", "band", "s", "MB", "measured"]
    bcells = []
    for x in brows:
        lo = f"{float(F(x['stable_at'])):.4f}" if x["stable_at"] is not None else "-"
        hi = f"{float(F(x['unstable_at'])):.4f}" if x["unstable_at"] is not None else "-"
        bcells.append([x["name"], str(x["J"]), lo, hi, f"{x['band']:.3g}", f"{x['s']:.1f}", f"{x['mb']:.0f}", today])
    sintro = (f"`{command}` with certify {certify.__version__}: G gadgets into one sink (exponential; the law of "
              "`--sink-boundary-law` where the case's name ends with it: Erlang-2, H2 or Coxian at each gadget's a), "
              "`certify boundary "
              "FILE --vary streams[0].rate=0.3:0.7 --tol 0.005 --time-limit "
              f"{args.boundary_limit:g} --out DIR` (the sink's own stream rate lam_S) in a fresh process, then `certify "
              "verify` of each end's certificate in another; the exact boundary is lam_S = mu_S - G d (d from the "
              "gadget's own chain).")
    sheader = ["case", "J", "exact boundary", "stable at", "unstable at", "width", "exact inside", "certificates",
               "s", "MB", "measured"]
    scells = [[x["name"], str(x["J"]), f"{x['truth']:.6f}",
               f"{float(F(x['stable_at'])):.6f}" if x["stable_at"] is not None else "-",
               f"{float(F(x['unstable_at'])):.6f}" if x["unstable_at"] is not None else "-",
               f"{x['width']:.3g}", "yes" if x["inside"] else "NO", x["verified"], f"{x['s']:.1f}", f"{x['mb']:.0f}",
               today] for x in srows]
    lines = [HEADING, "", intro, "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(c) + " |" for c in cells]
    blines = [RANDOM_HEADING, "", bintro, "", "| " + " | ".join(bheader) + " |", "|" + "---|" * len(bheader)]
    blines += ["| " + " | ".join(c) + " |" for c in bcells]
    slines = [SINK_HEADING, "", sintro, "", "| " + " | ".join(sheader) + " |", "|" + "---|" * len(sheader)]
    slines += ["| " + " | ".join(c) + " |" for c in scells]
    text = "\n".join(lines) + "\n"
    btext = "\n".join(blines) + "\n"
    stext = "\n".join(slines) + "\n"
    print(text if rows else "", btext if brows else "", stext if srows else "", sep="\n")
    wrong = [x for x in rows if x["verdict"] in ("stable", "unstable") and x["verdict"] != x["want"]]
    wrong += [x for x in rows if x["base_verdict"] in ("stable", "unstable") and x["base_verdict"] != x["want"]]
    wrong += [x for x in srows if (x["stable_at"] is not None and x["unstable_at"] is not None and not x["inside"])
              or "INVALID" in x["verified"]]
    if wrong:
        print(f"WRONG VERDICT: {wrong}", file=sys.stderr)
        return 1
    if not args.quick:
        doc = ROOT / "docs" / "benchmarks.md"
        if rows:
            merge_table_section(doc, HEADING, intro, header, cells, key=1)
        if brows:
            merge_table_section(doc, RANDOM_HEADING, bintro, bheader, bcells, order=_random_order)
        if srows:
            merge_table_section(doc, SINK_HEADING, sintro, sheader, scells)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
