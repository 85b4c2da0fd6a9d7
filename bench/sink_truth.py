"""Simulation check of the random networks' sink brackets (issue 21): evidence, never proof.

For a random network of ``bench/frontier.py`` whose boundary a sink (or pair) G decides, simulate the reduced
network R' (G removed from every choice set, :func:`certify.exact.sink.reduced_network`) and estimate the rate
u_G that R' sends into G when G holds the longest queues: the streams and feedback forced into G, plus p times
each feeder's throughput (p mu_i times the fraction of time it is busy).  The sink-growth certificate proves a
load unstable when a lower bound on this rate exceeds mu(G), the sink-drain one proves it stable when an upper
bound stays below mu(G); the simulated estimate, with its replication interval, says where the two meet.  A
bracket proved by ``certify boundary`` that excludes the load where the estimate crosses mu(G) would contradict
it.

Usage::

    python bench/sink_truth.py 8 15 0.878,0.886,0.891 3,4      # J, seed, loads, the sink(s)
    python bench/sink_truth.py 8 3 0.5,0.51 5 --horizon 200000

Randomness: ``--seed`` (default 1) seeds the replications.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from frontier import _scaled, random_feedback  # noqa: E402

import certify  # noqa: E402
from certify.exact.sink import reduced_network  # noqa: E402
from certify.io.loader import from_dict  # noqa: E402


def sink_rate(J: int, seed: int, load: float, sink: str | tuple[str, ...], horizon: float, reps: int,
              sim_seed: int) -> tuple[float, float, float, float]:
    """(estimate, low, high, mu(G)): the rate R' sends into G by simulation of R' at ``load``, and G's service."""
    net = from_dict(_scaled(random_feedback(J, seed), load))
    red = reduced_network(net, sink)
    mu = {s.id: s.mu for s in net.stations}
    res = certify.simulate(red.network, horizon, replications=reps, seed=sim_seed)
    thr = res.throughput()
    ids = list(red.network.station_ids)
    const = float(sum(r for _, r in red.inflow) + sum(r for _, _, r in red.internal))
    est = lo = hi = const
    for i, _, r in red.feeds:  # a feeder's rate mu_i p times its busy fraction = p times its throughput
        p = float(r / mu[i])
        t = thr[ids.index(i)]
        est, lo, hi = est + p * t.estimate, lo + p * t.lo, hi + p * t.hi
    return est, lo, hi, float(sum(mu[j] for j in red.sinks))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("J", type=int)
    ap.add_argument("seed", type=int, help="the random network's seed (bench/frontier.py)")
    ap.add_argument("loads", help="load factors, comma-separated")
    ap.add_argument("sink", help="the sink, or two stations comma-separated")
    ap.add_argument("--horizon", type=float, default=2e5, help="simulated time per replication (default 2e5)")
    ap.add_argument("--reps", type=int, default=4, help="replications (default 4)")
    ap.add_argument("--seed", dest="sim_seed", type=int, default=1, help="the simulation's seed (default 1)")
    args = ap.parse_args()
    parts = tuple(args.sink.split(","))
    sink: str | tuple[str, ...] = parts if len(parts) > 1 else parts[0]
    for load in map(float, args.loads.split(",")):
        est, lo, hi, cap = sink_rate(args.J, args.seed, load, sink, args.horizon, args.reps, args.sim_seed)
        side = "below" if hi < cap else "above" if lo > cap else "straddles"
        print(f"random-J{args.J}-s{args.seed} at {load}: u_G = {est:.5f} [{lo:.5f}, {hi:.5f}] {side} mu(G) = {cap:.4f}",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
