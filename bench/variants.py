"""Randomised gadgets and cascades (issue 21): the frontier's families with drawn parameters, proved at 0.97 / 1.03.

bench/frontier.py measures each family at one choice of rates and ties.  Here every case draws its own
(``random.Random(seed)``), as a network someone else wrote down would:

1. ``gadgets``: G gadgets into one sink S, each gadget with its own mu_a, mu_b in {1/2, 1, 3/2, 2}, stream rate
   (50-90 % of mu_a + mu_b), tie probability gamma in [0.1, 0.9] and law at a (exponential, or one of
   frontier's Erlang-2, H2, Coxian laws, mean kept: mu_a = 1 then).  d = the sum of the gadgets' throughputs at a,
   each from its own chain truncated at 60 per station.  ``--wide`` draws them wider (:func:`draw_wide_gadgets`):
   any mu with any law, a law at b too (Erlang-2 and -3, H2 of scv 5/3 and 41/9, Coxian of scv 2 and 0.7), a's
   feedback into S with a drawn probability three times in ten (d counts it); those cases are named ``...-wide``.
2. ``cascade2`` / ``cascade3``: {1, 2} share a stream; 1's output (probability 1 or 7/10) joins JSQ{3, 4}
   (depth 3: 3's output joins JSQ{5, 6}); the last pair's first station feeds the sink (probability 1 or 4/5).
   Rates mu in {4/5, 1, 5/4, 3/2, 2}, the head's load 50-80 %, a pair may have its own stream, ties drawn,
   phase-type service at station 1 or 3 in a third of the cases (Erlang-2; ``--cascade-laws h2,coxian`` draws
   among H2 and Coxian instead, and names the case after them: ``cascade3-s1-h2+coxian``). d = the feeder's
   throughput times its probability, from the chain of the stations before the sink truncated at two levels (13
   and 16 per station at depth 2, 5 and 6 at depth 3; the larger is used): a case whose two values differ by more
   than a ninth of the nearest load's distance from its boundary (mu_S / 300 at 0.97 / 1.03) is drawn again.

A case at load factor r sets mu_S = d + 1/2 and the sink's own stream lam_S = r mu_S - d, so
the exact boundary is r = 1 (``--sink-law erlang2`` or ``coxian`` gives the sink that service law, mean 1/mu_S
kept: the sink feeds nothing back, so its boundary is the same, and the case is named ``...-sink-erlang2``);
each case is proved at r = 0.97 and 1.03 (``--loads``: other factors, none of them 1) by ``certify prove FILE --json
--sim-budget 0 --time-limit T`` in a fresh process (bench/frontier.py's ``prove_case``: wall time and peak memory).
A verdict on the wrong side is a wrong verdict: the run prints it and exits 1.

Usage::

    python bench/variants.py                          # gadgets G = 3, 5, 8, cascades 2 and 3, seeds 1-2 (long)
    python bench/variants.py --families cascade2 --seeds 1 --quick   # one case, print only
    python bench/variants.py --families gadgets --gadgets 2,4,6,8 --seeds 1,2,3 --wide
    python bench/variants.py --families gadgets --gadgets 4 --seeds 1 --wide --loads 0.995,1.005 --quick
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import shlex
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from docs_section import merge_table_section  # noqa: E402
from frontier import LAWS, prove_case  # noqa: E402

import certify  # noqa: E402
from certify.io.loader import from_dict  # noqa: E402
from certify.stationary import stationary  # noqa: E402

HEADING = "## Frontier: randomised gadgets and cascades (issue 21)"
PAIR_MU = [0.5, 1, 1.5, 2]
CASCADE_MU = [0.8, 1, 1.25, 1.5, 2]
#: The sink's laws (H2 is not among them: frontier's H2 fixes its mean at 1).
SINK_LAWS = ("exponential", "erlang2", "coxian")


def _throughput(doc: dict, station: str, truncate: int) -> float:
    net = from_dict(doc)
    return stationary(net, truncate=truncate).throughput[net.station_ids.index(station)]


def draw_gadgets(G: int, rng: random.Random) -> tuple[dict, float, str]:
    """G drawn gadgets (stations, streams, ties, feedback into S), d, and a label of their laws."""
    doc: dict = {"format": "jsq-network/1", "stations": {}, "streams": [], "feedback": [], "tie_breaking": []}
    d, laws = 0.0, []
    for g in range(G):
        a, b = f"a{g}", f"b{g}"
        law = rng.choice(["exponential", "exponential", *LAWS])
        mua = rng.choice(PAIR_MU) if law == "exponential" else 1  # frontier's laws have mean 1
        mub = rng.choice(PAIR_MU)
        st = {a: {"mu": mua}, b: {"mu": mub}}
        if law != "exponential":
            st[a]["service"] = LAWS[law]
        gam = round(rng.uniform(0.1, 0.9), 2)
        one = {"format": "jsq-network/1", "name": "gadget", "stations": st,
               "streams": [{"choice": [a, b], "rate": round(rng.uniform(0.5, 0.9) * (mua + mub), 3)}],
               "tie_breaking": [{"set": [a, b], "probs": {a: gam, b: round(1 - gam, 2)}}]}
        d += _throughput(one, a, 60)
        doc["stations"].update(st)
        doc["streams"] += one["streams"]
        doc["tie_breaking"] += one["tie_breaking"]
        doc["feedback"].append({"from": a, "choice": ["s"], "prob": 1})
        laws.append(law)
    return doc, d, "+".join(sorted(set(laws)))


def _wide_law(name: str, mu: float) -> dict | None:
    """A service law of ``--wide`` with mean 1/mu: None (exponential), Erlang-k, H2 with explicit phases, Coxian."""
    if name == "exponential":
        return None
    if name.startswith("erlang"):
        return {"dist": "erlang", "k": int(name[-1])}
    if name == "h2-low":  # scv 5/3
        return {"dist": "hyperexponential", "probs": [0.25, 0.75], "rates": [0.5 * mu, 1.5 * mu]}
    if name == "h2-high":  # scv 41/9
        return {"dist": "hyperexponential", "probs": [0.1, 0.9], "rates": [0.2 * mu, 1.8 * mu]}
    return {"dist": "coxian", "scv": 2 if name == "coxian-2" else 0.7}


#: The laws ``--wide`` draws at a gadget's stations (exponential twice as often).
WIDE_LAWS = ["exponential", "exponential", "erlang2", "erlang3", "h2-low", "h2-high", "coxian-2", "coxian-0.7"]


def draw_wide_gadgets(G: int, rng: random.Random) -> tuple[dict, float, str]:
    """G drawn gadgets as :func:`draw_gadgets`, drawn wider (``--wide``): any mu with any law, a law at b too (half
    the time exponential), the stream 40-85 % of mu_a + mu_b, and a's feedback into S with probability 1 (seven times
    in ten) or drawn in [0.3, 0.9], d counting it; each gadget's throughput at a from its chain truncated at 40 and at
    60, which must agree within 1e-4 (else the gadget is drawn again)."""
    doc: dict = {"format": "jsq-network/1", "stations": {}, "streams": [], "feedback": [], "tie_breaking": []}
    d, laws = 0.0, []
    for g in range(G):
        a, b = f"a{g}", f"b{g}"
        while True:
            mua, mub = rng.choice(PAIR_MU), rng.choice(PAIR_MU)
            la, lb = rng.choice(WIDE_LAWS), rng.choice([*WIDE_LAWS, *["exponential"] * 4])
            st = {a: {"mu": mua}, b: {"mu": mub}}
            for s, law, mu in ((a, la, mua), (b, lb, mub)):
                if (service := _wide_law(law, mu)) is not None:
                    st[s]["service"] = service
            gam = round(rng.uniform(0.1, 0.9), 2)
            q = 1 if rng.random() < 0.7 else round(rng.uniform(0.3, 0.9), 2)
            one = {"format": "jsq-network/1", "name": "gadget", "stations": st,
                   "streams": [{"choice": [a, b], "rate": round(rng.uniform(0.4, 0.85) * (mua + mub), 3)}],
                   "tie_breaking": [{"set": [a, b], "probs": {a: gam, b: round(1 - gam, 2)}}]}
            d40, d60 = (_throughput(one, a, t) for t in (40, 60))
            if abs(d40 - d60) <= 1e-4:
                break
        d += q * d60
        doc["stations"].update(st)
        doc["streams"] += one["streams"]
        doc["tie_breaking"] += one["tie_breaking"]
        doc["feedback"].append({"from": a, "choice": ["s"], "prob": q})
        laws.append(f"{la}/{lb}")
    return doc, d, "+".join(sorted(set(laws)))


def draw_cascade(depth: int, rng: random.Random, laws: tuple[str, ...] = ("erlang2",), agree: float = 1 / 300
                 ) -> tuple[dict, float, str] | None:
    """A drawn cascade before its sink, d, a label; None when the two truncations disagree by more than ``agree``
    times mu_S (draw again)."""
    st: dict = {"1": {"mu": rng.choice(CASCADE_MU)}, "2": {"mu": rng.choice(CASCADE_MU)}}
    streams = [{"choice": ["1", "2"], "rate": round(rng.uniform(0.5, 0.8) * (st["1"]["mu"] + st["2"]["mu"]), 4)}]
    gam = round(rng.uniform(0.2, 0.8), 2)
    ties = [{"set": ["1", "2"], "probs": {"1": gam, "2": round(1 - gam, 2)}}]
    fb = []
    for lvl in range(1, depth):
        a, b, up = str(2 * lvl + 1), str(2 * lvl + 2), str(2 * lvl - 1)
        st[a], st[b] = {"mu": rng.choice(CASCADE_MU)}, {"mu": rng.choice(CASCADE_MU)}
        fb.append({"from": up, "choice": [a, b], "prob": rng.choice([1, 1, 0.7])})
        if rng.random() < 0.5:
            streams.append({"choice": [a, b], "rate": round(rng.uniform(0.1, 0.4) * (st[a]["mu"] + st[b]["mu"]), 4)})
        gam = round(rng.uniform(0.2, 0.8), 2)
        ties.append({"set": [a, b], "probs": {a: gam, b: round(1 - gam, 2)}})
    law = rng.choice(["exponential", "exponential", "phase"])
    where = rng.choice(["1", "3"])
    if law == "phase":
        law = rng.choice(laws) if len(laws) > 1 else laws[0]  # one law: the draws stay as before the option
        st[where]["service"] = LAWS[law]
        if law == "h2":
            st[where]["mu"] = 1  # its phase rates give mean 1
    feeder, q = str(2 * depth - 1), rng.choice([1, 1, 0.8])
    head = {"format": "jsq-network/1", "name": "head", "stations": st, "streams": streams, "feedback": fb,
            "tie_breaking": ties}
    t1, t2 = (13, 16) if depth == 2 else (5, 6)
    d1, d2 = (q * _throughput(head, feeder, t) for t in (t1, t2))
    if abs(d1 - d2) > (d2 + 0.5) * agree:
        return None
    sink = str(2 * depth + 1)
    head["feedback"] = [*fb, {"from": feeder, "choice": [sink], "prob": q}]
    return head, d2, law if law == "exponential" else f"{law} at {where}"


def at_load(head: dict, sink: str, d: float, r: float, name: str) -> dict:
    """The network with its sink (mu_S = d + 1/2, own stream r mu_S - d): the exact boundary is r = 1."""
    doc = json.loads(json.dumps(head))
    mu_s = d + 0.5
    doc["name"] = f"{name}-r{r}"
    doc["stations"][sink] = {"mu": round(mu_s, 12)}
    doc["streams"] = [{"choice": [sink], "rate": round(r * mu_s - d, 12)}, *doc["streams"]]
    return doc


def cases(family: str, seed: int, G: int, laws: tuple[str, ...] = ("erlang2",), wide: bool = False,
          agree: float = 1 / 300) -> tuple[dict, str, float, str]:
    """One drawn case of a family: (network before its sink's stream, sink, d, label); a cascade's two truncations
    agree within ``agree`` times mu_S."""
    rng = random.Random(seed)
    if family == "gadgets":
        doc, d, label = (draw_wide_gadgets if wide else draw_gadgets)(G, rng)
        return doc, "s", d, label
    depth = 2 if family == "cascade2" else 3
    while (got := draw_cascade(depth, rng, laws, agree)) is None:
        pass
    doc, d, label = got
    return doc, str(2 * depth + 1), d, label


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", default="gadgets,cascade2,cascade3", help="default gadgets,cascade2,cascade3")
    ap.add_argument("--gadgets", default="3,5,8", help="G of the gadget cases (default 3,5,8)")
    ap.add_argument("--seeds", default="1,2", help="seeds: one drawn case per seed (and G) (default 1,2)")
    ap.add_argument("--cascade-laws", default="erlang2",
                    help="laws a cascade's phase-type station draws from, of erlang2,h2,coxian (default erlang2)")
    ap.add_argument("--sink-law", default="exponential", choices=SINK_LAWS,
                    help="the sink's service law, its mean kept (default exponential)")
    ap.add_argument("--wide", action="store_true",
                    help="draw the gadgets wider: laws at both stations, any mu, feedback probability drawn")
    ap.add_argument("--loads", default="0.97,1.03",
                    help="load factors of the exact boundary each case is proved at, none of them 1 (default 0.97,1.03)")
    ap.add_argument("--limit", type=float, default=120.0, help="--time-limit of each prove (default 120)")
    ap.add_argument("--quick", action="store_true", help="print only (docs/benchmarks.md is not written)")
    args = ap.parse_args()
    unknown = sorted(set(args.cascade_laws.split(",")) - set(LAWS))
    if unknown:
        ap.error(f"--cascade-laws: {', '.join(unknown)} is not a law (laws: {', '.join(LAWS)})")
    try:
        loads = [float(r) for r in args.loads.split(",")]
    except ValueError:
        ap.error(f"--loads: {args.loads!r} is not a comma-separated list of numbers")
    if any(not (r > 0) or r == 1 for r in loads):
        ap.error(f"--loads: {args.loads!r}: every factor must be positive and not 1 (1 is the boundary itself)")
    agree = min(abs(r - 1) for r in loads) / 9  # a ninth of the nearest load's distance: 1/300 at 0.97 / 1.03
    seeds = [int(s) for s in args.seeds.split(",")]
    todo = []
    for family in args.families.split(","):
        for G in [int(g) for g in args.gadgets.split(",")] if family == "gadgets" else [0]:
            todo += [(family, seed, G) for seed in seeds]
    rows, wrong = [], []
    laws = tuple(args.cascade_laws.split(","))
    with tempfile.TemporaryDirectory() as d:
        for family, seed, G in todo:
            head, sink, dd, label = cases(family, seed, G, laws, args.wide, agree)
            name = f"{family}{G if G else ''}-s{seed}"
            if family == "gadgets" and args.wide:
                name += "-wide"  # another draw than the default's: its own rows
            if family != "gadgets" and laws != ("erlang2",):
                name += f"-{'+'.join(laws)}"  # another draw than the default's: its own rows
            if args.sink_law != "exponential":
                name += f"-sink-{args.sink_law}"
            for r in loads:
                doc = at_load(head, sink, dd, r, name)
                if args.sink_law != "exponential":
                    doc["stations"][sink]["service"] = LAWS[args.sink_law]
                res = prove_case(doc, Path(d), args.limit)
                want = "stable" if r < 1 else "unstable"
                row = [f"{name} @ {r}", str(len(head["stations"]) + 1), label, f"{dd:.6f}", want, res["verdict"],
                       res["method"], f"{res['s']:.1f}", f"{res['mb']:.0f}", datetime.date.today().isoformat()]
                rows.append(row)
                print(" | ".join(row), flush=True)
                if res["verdict"] in ("stable", "unstable") and res["verdict"] != want:
                    wrong.append(row)
    if wrong:
        print(f"WRONG VERDICT: {wrong}", file=sys.stderr)
        return 1
    if not args.quick:
        command = shlex.join(["python", "bench/variants.py", *sys.argv[1:]])
        intro = (f"`{command}` with certify {certify.__version__}: the frontier's families with drawn rates, ties "
                 f"and laws (bench/variants.py says how), each case at {' and '.join(f'{r:g}' for r in loads)} of "
                 f"its exact boundary, `certify prove --time-limit {args.limit:g}` in a fresh process. Rows of earlier "
                 "runs whose cases this run did not measure are kept (column measured).")
        header = ["case @ r", "J", "laws", "d", "truth", "verdict", "method", "s", "MB", "measured"]
        merge_table_section(ROOT / "docs" / "benchmarks.md", HEADING, intro, header, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
