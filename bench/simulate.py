"""Benchmark: certify's simulator against ciw on a three-station JSQ network with feedback (issue 4).

The network: stations 1, 2, 3 (mu = 1 each); a stream of rate 0.9 joins the
shortest queue of {1, 2}, another of rate 0.9 that of {2, 3}; after service at
station 1 a customer is routed again into {3} with probability 0.5.  Two cases
with the same means: exponential primitives, and general ones (Erlang and
lognormal services and interarrival times).

ciw (a pure-Python discrete-event library) models JSQ with dispatcher nodes:
zero-time, infinite-server nodes whose ``LoadBalancing`` router joins the
station with the fewest customers present (the one in service included), ties
uniformly at random.  Each stream has its own dispatcher (the arrivals), the
feedback its own (station 1 routes to it with probability 0.5).

Events are counted the same way for both: exogenous arrivals plus service
completions (ciw's dispatcher passes are not counted).  ciw runs a short
horizon, certify a long one (events per second do not depend on the horizon);
certify's numba compilation (or cache load) is excluded from its rate and
reported.  Mean queue lengths are time averages over [warmup, horizon] with a
95% t interval across replications; both simulators must agree (intervals
overlap).  The section "Simulator: certify vs ciw (issue 4)" of
``docs/benchmarks.md`` is replaced (or ``--out PATH``).

Usage::

    python bench/simulate.py            # full run (about a minute)
    python bench/simulate.py --quick    # a few seconds
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from docs_section import write_section  # noqa: E402  (sibling module; scripts run as files)
from scipy.stats import t as student_t

import certify
from certify.core.model import Distribution, Network

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "docs" / "benchmarks.md"
SECTION = "## Simulator: certify vs ciw (issue 4)"
TARGETS = {"exponential": 500.0, "general": 100.0}


def network(general: bool) -> Network:
    """The benchmark network, with exponential or with general (Erlang/lognormal) primitives."""
    doc: dict[str, Any] = {
        "format": "jsq-network/1", "name": "bench-3station-" + ("general" if general else "exponential"),
        "stations": {"1": {"mu": 1}, "2": {"mu": 1}, "3": {"mu": 1}},
        "streams": [{"choice": ["1", "2"], "rate": 0.9}, {"choice": ["2", "3"], "rate": 0.9}],
        "feedback": [{"from": "1", "choice": ["3"], "prob": 0.5}],
    }
    if general:
        doc["stations"]["1"]["service"] = {"dist": "erlang", "k": 2}
        doc["stations"]["2"]["service"] = {"dist": "lognormal", "scv": 0.5}
        doc["stations"]["3"]["service"] = {"dist": "erlang", "k": 3}
        doc["streams"][0]["interarrival"] = {"dist": "lognormal", "scv": 2}
        doc["streams"][1]["interarrival"] = {"dist": "erlang", "k": 2}
    net = certify.from_dict(doc)
    assert isinstance(net, Network)
    return net


# ----------------------------------------------------------------------------- ciw
def ciw_dist(dist: Distribution, rate: float) -> Any:
    """The ciw distribution of ``dist`` with mean ``1/rate``."""
    import ciw

    p = dict(dist.params)
    if dist.is_exponential:
        return ciw.dists.Exponential(rate)
    if dist.dist == "deterministic":
        return ciw.dists.Deterministic(1 / rate)
    if dist.dist == "erlang":  # the Erlang law as a gamma: ciw's own sampler, faster than its phase-type Erlang
        return ciw.dists.Gamma(float(p["k"]), 1 / (p["k"] * rate))
    if dist.dist == "gamma":
        scv = float(p["scv"])
        return ciw.dists.Gamma(1 / scv, scv / rate)
    if dist.dist == "lognormal":
        s2 = math.log1p(float(p["scv"]))
        return ciw.dists.Lognormal(-math.log(rate) - s2 / 2, math.sqrt(s2))
    raise ValueError(f"no ciw form for {dist.describe()}")


def to_ciw(net: Network) -> Any:
    """A ciw network: stations 1..J, then one dispatcher per stream, then one per feedback entry."""
    import ciw

    if net.has_capacities or net.tie_breaking or any(s.choice is None for s in net.streams):
        raise ValueError("ciw model: fixed choice sets, uniform ties and no capacities only")
    J, S = net.J, len(net.streams)
    node = {sid: i + 1 for i, sid in enumerate(net.station_ids)}
    inf = float("inf")
    arrivals: list[Any] = [None] * J + [ciw_dist(s.interarrival, float(s.rate)) for s in net.streams]
    services: list[Any] = [ciw_dist(st.service, float(st.mu)) for st in net.stations] + [ciw.dists.Deterministic(0.0)] * S
    servers: list[Any] = [1] * J + [inf] * S
    routers: list[Any] = [None] * J + [ciw.routing.LoadBalancing([node[m] for m in s.choice]) for s in net.streams]
    for st in net.stations:
        fbs = [f for f in net.feedback if f.source == st.id]
        dests = []
        for f in fbs:
            dests.append(len(arrivals) + 1)
            arrivals.append(None)
            services.append(ciw.dists.Deterministic(0.0))
            servers.append(inf)
            routers.append(ciw.routing.LoadBalancing([node[m] for m in f.choice]))
        routers[node[st.id] - 1] = (ciw.routing.Probabilistic(dests, [float(f.prob) for f in fbs]) if fbs
                                    else ciw.routing.Leave())
    return ciw.create_network(arrival_distributions=arrivals, service_distributions=services,
                              number_of_servers=servers, routing=ciw.routing.NetworkRouting(routers=routers))


def run_ciw(net: Network, horizon: float, seed: int, warmup: float = 0.0) -> dict[str, Any]:
    """One ciw replication: events (exogenous arrivals + service completions), wall and CPU seconds, mean queue lengths."""
    import ciw

    N = to_ciw(net)
    ciw.seed(seed)
    sim = ciw.Simulation(N)
    t0, c0 = time.perf_counter(), time.process_time()
    sim.simulate_until_max_time(horizon)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    J = net.J
    area = np.zeros(J)
    completions = 0
    for r in sim.get_all_records():
        if 1 <= r.node <= J and r.record_type == "service":
            completions += 1
            area[r.node - 1] += max(0.0, min(r.exit_date, horizon) - max(r.arrival_date, warmup))
    for j in range(J):  # customers still present at the horizon
        for ind in sim.nodes[j + 1].all_individuals:
            area[j] += max(0.0, horizon - max(ind.arrival_date, warmup))
    events = completions + sim.nodes[0].number_accepted_individuals
    return {"events": events, "wall_s": wall, "cpu_s": cpu, "mean_queue": area / (horizon - warmup)}


def t_interval(values: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Mean and t half-width across replications (axis 0)."""
    r = values.shape[0]
    q = student_t.ppf(0.5 + level / 2, r - 1)
    return values.mean(axis=0), q * values.std(axis=0, ddof=1) / math.sqrt(r)


# ----------------------------------------------------------------------------- run
def measure(general: bool, ciw_horizon: float, ciw_reps: int, cert_horizon: float, cert_reps: int,
            seed: int) -> dict[str, Any]:
    """ciw and certify on the same network: rates, ratio, mean queue lengths with intervals."""
    net = network(general)
    cw = [run_ciw(net, ciw_horizon, seed + r, warmup=0.05 * ciw_horizon) for r in range(ciw_reps)]
    ciw_events = sum(c["events"] for c in cw)
    ciw_wall = sum(c["wall_s"] for c in cw)
    ciw_cpu = sum(c["cpu_s"] for c in cw)
    ciw_mean, ciw_half = t_interval(np.array([c["mean_queue"] for c in cw]))
    warm = certify.simulate(net, 10.0, replications=1, progress=False)  # numba: compile, or load from the cache
    c0 = time.process_time()
    res = certify.simulate(net, cert_horizon, replications=cert_reps, seed=seed, warmup=0.05 * cert_horizon,
                           progress=False)
    cert_cpu = time.process_time() - c0
    cert_mean = np.array([iv.estimate for iv in res.mean_queue()])
    cert_half = np.array([iv.hi - iv.estimate for iv in res.mean_queue()])
    agree = bool(np.all(np.abs(cert_mean - ciw_mean) <= cert_half + ciw_half))
    ciw_rate = ciw_events / ciw_wall
    return {
        "case": "general" if general else "exponential", "net": net,
        "ciw_events": ciw_events, "ciw_wall": ciw_wall, "ciw_rate": ciw_rate,
        "cert_events": res.events, "cert_wall": res.wall_s, "cert_rate": res.events_per_s,
        "compile_s": warm.compile_s, "ratio": res.events_per_s / ciw_rate,
        "cpu_ratio": (res.events / cert_cpu) / (ciw_events / ciw_cpu),
        "ciw_mean": ciw_mean, "ciw_half": ciw_half, "cert_mean": cert_mean, "cert_half": cert_half, "agree": agree,
    }


def cold_compile_s() -> float:
    """certify's numba compilation from scratch: a fresh process with an empty numba cache directory."""
    code = ("import json, certify; net = certify.loads('{\"format\": \"jsq-network/1\", \"stations\": {\"1\": {\"mu\": 1}}, "
            "\"streams\": [{\"choice\": [\"1\"], \"rate\": 0.5}]}'); "
            "print(json.dumps(certify.simulate(net, 10.0, replications=1, progress=False).compile_s))")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=tmp)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return float(json.loads(out.stdout.strip().splitlines()[-1]))


def describe(net: Network) -> str:
    laws = [f"{st.id}: {st.service.describe()}" for st in net.stations]
    arr = [f"{{{','.join(s.choice or ())}}}: {s.interarrival.describe()}" for s in net.streams]
    return "services " + ", ".join(laws) + "; interarrivals " + ", ".join(arr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="certify's simulator against ciw: events per second and mean queue lengths.")
    ap.add_argument("--quick", action="store_true", help="short horizons (a few seconds)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="markdown file to write (default docs/benchmarks.md)")
    args = ap.parse_args(argv)
    ciw_h, ciw_r = (1000.0, 3) if args.quick else (20_000.0, 5)
    cert_h, cert_r = (1e5, 4) if args.quick else (2e6, 8)

    load0 = os.getloadavg()[0]
    t_start = time.perf_counter()
    cold = cold_compile_s()
    rows = []
    for general in (False, True):
        rows.append(measure(general, ciw_h, ciw_r, cert_h, cert_r, args.seed))
        r = rows[-1]
        print(f"{r['case']}: ciw {r['ciw_rate']:.4g} events/s, certify {r['cert_rate']:.4g} events/s, "
              f"ratio {r['ratio']:.0f}x, means agree: {r['agree']}", file=sys.stderr)
    total = time.perf_counter() - t_start

    import ciw

    cmd = "python bench/simulate.py" + (" --quick" if args.quick else "") + (f" --seed {args.seed}" if args.seed != 1 else "")
    lines = [
        SECTION, "",
        f"Machine: 2-core machine ({platform.processor() or platform.machine()}), Python {platform.python_version()}, "
        f"certify {certify.__version__}, ciw {ciw.__version__}. Date: {datetime.date.today().isoformat()}. "
        f"Command: `{cmd}` (total {total:.1f} s). Load average (1 min) at start {load0:.2f}, at end "
        f"{os.getloadavg()[0]:.2f}: both simulators share the machine with whatever else runs.", "",
        "Network: stations 1, 2, 3 with mu = 1; streams of rate 0.9 on choice sets {1,2} and {2,3}; feedback from "
        "station 1 into {3} with probability 0.5; uniform ties. ciw models JSQ with zero-time dispatcher nodes routed by "
        "`ciw.routing.LoadBalancing` (customers present, the one in service included). Events = exogenous arrivals + "
        "service completions, counted the same way for both (ciw's dispatcher passes are not counted). "
        f"ciw: {ciw_r} replications of horizon {ciw_h:g}; certify: {cert_r} replications of horizon {cert_h:g} "
        "(one thread). Rates are events per wall-clock second; `CPU ratio` is the same ratio in events per CPU second "
        "of the process (less sensitive to other load on the machine). certify's rate excludes numba compilation: "
        "`compile s` is this run's compilation or cache load (a short run before the timed one); compiling from scratch "
        f"(empty numba cache, fresh process) took {cold:.1f} s. "
        "Mean queue lengths: time averages over [0.05 horizon, horizon], 95% t intervals across replications.", "",
    ]
    for r in rows:
        lines.append(f"- {r['case']}: {describe(r['net'])}")
    lines += ["", "| primitives | ciw events | ciw s | ciw events/s | certify events | certify s | certify events/s "
              "| compile s | ratio | CPU ratio | target | means agree |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        tgt = TARGETS[r["case"]]
        lines.append(f"| {r['case']} | {r['ciw_events']} | {r['ciw_wall']:.2f} | {r['ciw_rate']:.4g} | {r['cert_events']} "
                     f"| {r['cert_wall']:.2f} | {r['cert_rate']:.4g} | {r['compile_s']:.2f} | **{r['ratio']:.0f}x** "
                     f"| {r['cpu_ratio']:.0f}x | >= {tgt:g}x ({'met' if r['ratio'] >= tgt else 'MISSED'}) "
                     f"| {'yes' if r['agree'] else 'NO'} |")
    lines += ["", "| primitives | station | ciw mean queue (95% CI) | certify mean queue (95% CI) |", "|---|---|---|---|"]
    for r in rows:
        for j, sid in enumerate(r["net"].station_ids):
            lines.append(f"| {r['case']} | {sid} | {r['ciw_mean'][j]:.4f} +- {r['ciw_half'][j]:.4f} "
                         f"| {r['cert_mean'][j]:.4f} +- {r['cert_half'][j]:.4f} |")
    section = "\n".join(lines) + "\n"
    write_section(args.out, SECTION, section)
    print(section)
    print(f"written to {args.out}", file=sys.stderr)
    return 0 if all(r["agree"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
