"""Independent stability criteria for the canonical models in this directory.

This script does not import ``certify``: it reads each model file with ``json``
/ ``tomllib`` and evaluates the known criterion named in the file's ``x-model``
block (see ``README.md`` and ``../docs/math/theorems.md``):

- ``subset``       Bramson 2011 / Foss-Chernova, no feedback: stable iff for every
                   non-empty set A of stations, sum of lam_C over C subset of A < mu(A);
                   a reversed inequality means an overloaded set (unstable under
                   every policy).  M/M-JSQ and Foley-McDonald are special cases.
- ``dhk-homogeneous``  Dai-Hasenbein-Kim, p[i][C] = p_C:
                   Lambda_C + lam*/(1 - p*) P_C < mu_C for every non-empty C.
- ``two-station``  the two-station conditions C0/C1/C2 of the corpus README.
- ``finite-capacity`` every station capped: stable at any load (finite chain); for
                   the symmetric two-queue loss system the closed-form blocking
                   probability of the corpus README is reported.
- ``fork-join``    (n,k) fork-join with redundancy (seed 003): stable iff lam < theta,
                   sum_i min(d_i, theta) = k theta; theta = mu*/k for maximal designs.
- ``tie-breaking`` DHK-style 3-station network: station 3 is stable iff
                   lam_3 + d_1 < mu_3, with d_1 the throughput of station 1 in the
                   autonomous 1-2 JSQ subsystem, from its truncated CTMC (on
                   queue lengths x service phases when the service is Erlang or
                   hyperexponential).

For the linear criteria it reports ``s_star``, the factor by which all exogenous
rates may be scaled before the boundary is reached, and ``margin = 1/s_star``
(below 1: stable side).  For the tie-breaking network the margin is the effective
utilisation (lam_3 + d_1)/mu_3 of station 3.

Run ``python models/criteria.py``: it prints one line per model and exits with
status 1 if a model's ``expected`` verdict disagrees with its criterion or lies
within 5% of the boundary.
"""

from __future__ import annotations

import itertools
import json
import tomllib
from fractions import Fraction
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spl

HERE = Path(__file__).resolve().parent
MIN_DISTANCE = 0.05  # required relative distance from the stability boundary


def read(path: Path) -> dict:
    """Parse a model file (JSON or TOML) into a plain dict."""
    if path.suffix == ".toml":
        return tomllib.loads(path.read_text())
    return json.loads(path.read_text())


def model_files() -> list[Path]:
    """Every model file in this directory, sorted by name."""
    return sorted(p for p in HERE.iterdir() if p.suffix in (".json", ".toml"))


def _stations(doc: dict) -> tuple[list[str], dict[str, float]]:
    ids = list(doc["stations"])
    return ids, {s: float(doc["stations"][s]["mu"]) for s in ids}


def class_rates(doc: dict) -> dict[frozenset, float]:
    """Exogenous rate per choice set lam_C (``choice``, ``choices`` and ``sample`` streams)."""
    lam: dict[frozenset, float] = {}
    for st in doc["streams"]:
        r = float(st["rate"])
        if "choice" in st:
            parts = [(st["choice"], 1.0)]
        elif "choices" in st:
            parts = [(c["set"], float(c["prob"])) for c in st["choices"]]
        else:
            pool, d = st["sample"]["from"], int(st["sample"]["d"])
            combos = list(itertools.combinations(pool, d))
            parts = [(c, 1.0 / len(combos)) for c in combos]
        for C, p in parts:
            key = frozenset(C)
            lam[key] = lam.get(key, 0.0) + r * p
    return lam


def _nonempty_subsets(ids: list[str]):
    for k in range(1, len(ids) + 1):
        for A in itertools.combinations(ids, k):
            yield frozenset(A)


def subset_condition(doc: dict) -> dict:
    """Bramson's subcriticality: the worst ratio over sets A of (sum_{C subset A} lam_C) / mu(A)."""
    if doc.get("feedback"):
        raise ValueError("the subset condition is for networks without feedback")
    ids, mu = _stations(doc)
    lam = class_rates(doc)
    worst, arg = -1.0, None
    for A in _nonempty_subsets(ids):
        load = sum(r for C, r in lam.items() if C <= A) / sum(mu[s] for s in A)
        if load > worst + 1e-15:
            worst, arg = load, A
    return {"margin": worst, "s_star": 1.0 / worst, "binding": "{" + ",".join(sorted(arg)) + "}",
            "numbers": f"max_A Lambda_A/mu(A) = {worst:.4f} at A = {{{','.join(sorted(arg))}}}"}


def dhk_homogeneous(doc: dict) -> dict:
    """DHK homogeneous-feedback criterion: max over C of (Lambda_C + lam*/(1-p*) P_C) / mu_C."""
    ids, mu = _stations(doc)
    lam = class_rates(doc)
    per_station: dict[str, dict[frozenset, float]] = {s: {} for s in ids}
    for f in doc.get("feedback", []):
        row = per_station[f["from"]]
        row[frozenset(f["choice"])] = row.get(frozenset(f["choice"]), 0.0) + float(f["prob"])
    p = per_station[ids[0]]
    for s in ids[1:]:
        if per_station[s] != p:
            raise ValueError(f"feedback from station {s} differs from station {ids[0]}: not homogeneous")
    lam_star, p_star = sum(lam.values()), sum(p.values())
    # Lambda_C and P_C are both linear in the exogenous scale s (P_C does not scale).
    worst, arg = -1.0, None
    for C in _nonempty_subsets(ids):
        lhs = sum(r for B, r in lam.items() if B <= C) + lam_star / (1 - p_star) * sum(
            q for B, q in p.items() if B <= C)
        ratio = lhs / sum(mu[s] for s in C)
        if ratio > worst + 1e-15:
            worst, arg = ratio, C
    name = "{" + ",".join(sorted(arg)) + "}"
    return {"margin": worst, "s_star": 1.0 / worst, "binding": name,
            "numbers": f"lam* = {lam_star:.4g}, p* = {p_star:.4g}, lam*/(1-p*) = {lam_star / (1 - p_star):.4g}; "
                       f"max_C (Lambda_C + lam*/(1-p*) P_C)/mu_C = {worst:.4f} at C = {name}"}


def two_station(doc: dict) -> dict:
    """The corpus README's C0/C1/C2 for two stations with heterogeneous feedback.

    Each condition is ``s * a < b`` in the scale s of the exogenous rates, so
    s_star = min b/a over the conditions with a > 0.
    """
    ids, mu = _stations(doc)
    if len(ids) != 2:
        raise ValueError("two-station criterion needs exactly two stations")
    s1, s2 = ids
    lam = class_rates(doc)
    l1 = lam.get(frozenset([s1]), 0.0)
    l2 = lam.get(frozenset([s2]), 0.0)
    l12 = lam.get(frozenset([s1, s2]), 0.0)
    p = {(i, C): 0.0 for i in (s1, s2) for C in ("1", "2", "12")}
    code = {frozenset([s1]): "1", frozenset([s2]): "2", frozenset([s1, s2]): "12"}
    for f in doc.get("feedback", []):
        p[(f["from"], code[frozenset(f["choice"])])] += float(f["prob"])
    m1, m2 = mu[s1], mu[s2]
    p1s = p[(s1, "1")] + p[(s1, "2")] + p[(s1, "12")]
    p2s = p[(s2, "1")] + p[(s2, "2")] + p[(s2, "12")]
    c1 = 1 - p[(s1, "1")] - p[(s1, "12")]
    c2 = 1 - p[(s2, "2")] - p[(s2, "12")]
    conds = {
        "C0": (l1 + l2 + l12, m1 * (1 - p1s) + m2 * (1 - p2s)),
        # (lam1 - mu1 (1 - p11)) c2 + p21 (lam2 + lam12 + mu1 (p12 + p1,12)) < 0
        "C1": (l1 * c2 + p[(s2, "1")] * (l2 + l12),
               m1 * (1 - p[(s1, "1")]) * c2 - p[(s2, "1")] * m1 * (p[(s1, "2")] + p[(s1, "12")])),
        "C2": (l2 * c1 + p[(s1, "2")] * (l1 + l12),
               m2 * (1 - p[(s2, "2")]) * c1 - p[(s1, "2")] * m2 * (p[(s2, "1")] + p[(s2, "12")])),
    }
    ratios = {k: (a / b if b > 0 else float("inf")) for k, (a, b) in conds.items()}
    worst = max(ratios, key=ratios.get)
    text = "; ".join(f"{k}: {a:.4g} < {b:.4g}" for k, (a, b) in conds.items())
    return {"margin": ratios[worst], "s_star": 1.0 / ratios[worst], "binding": worst,
            "numbers": f"{text} (binding {worst}, lhs/rhs = {ratios[worst]:.4f})"}


def subsystem_throughput(lam12: float, gamma: float, mu1: float = 1.0, mu2: float = 1.0,
                         N: int = 60) -> tuple[float, float]:
    """Station 1's throughput d_1 in the two-queue JSQ subsystem, truncated at N per queue.

    Customers arrive at rate ``lam12`` and join the shorter of queues 1 and 2
    (ties to queue 1 with probability ``gamma``); both queues' outputs leave.
    Arrivals to a full queue are lost; returns (d_1, rate of lost arrivals).
    """
    n = (N + 1) ** 2

    def idx(a: int, b: int) -> int:
        return a * (N + 1) + b

    rows, cols, vals = [], [], []
    for a in range(N + 1):
        for b in range(N + 1):
            s = idx(a, b)
            p1 = 1.0 if a < b else 0.0 if a > b else gamma
            for t, r in ((idx(a + 1, b), lam12 * p1) if a < N else (None, 0.0),
                         (idx(a, b + 1), lam12 * (1 - p1)) if b < N else (None, 0.0),
                         (idx(a - 1, b), mu1) if a > 0 else (None, 0.0),
                         (idx(a, b - 1), mu2) if b > 0 else (None, 0.0)):
                if r > 0:
                    rows.append(s)
                    cols.append(t)
                    vals.append(r)
    Q = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))
    Q = Q - sp.diags(np.asarray(Q.sum(axis=1)).ravel())
    A = Q.T.tolil()
    A[0, :] = 1.0  # replace one balance equation by the normalisation
    rhs = np.zeros(n)
    rhs[0] = 1.0
    pi = spl.spsolve(A.tocsc(), rhs).reshape(N + 1, N + 1)
    d1 = mu1 * float(pi[1:, :].sum())
    lost = lam12 * float(pi[N, :].sum() + pi[:, N].sum())
    return d1, lost


def phases_of(dist: dict | None, mu: float) -> tuple[list[float], list[float], list[tuple[int, int, float]]]:
    """(alpha, exit rates, moves) of a service law given as a format dist with mean 1/mu.

    Exponential, Erlang-k and explicit hyperexponential only (what the tests need).
    """
    if dist is None or dist["dist"] == "exponential":
        return [1.0], [mu], []
    if dist["dist"] == "erlang":
        k = int(dist["k"])
        return [1.0] + [0.0] * (k - 1), [0.0] * (k - 1) + [k * mu], [(i, i + 1, k * mu) for i in range(k - 1)]
    if dist["dist"] == "hyperexponential" and "rates" in dist:
        return [float(p) for p in dist["probs"]], [float(Fraction(str(r))) for r in dist["rates"]], []
    raise ValueError(f"no phase form for {dist}")


def subsystem_throughput_ph(lam12: float, gamma: float, ph1, ph2, N: int = 60) -> tuple[float, float]:
    """:func:`subsystem_throughput` with phase-type service: states (x1, x2, phase1, phase2).

    ``ph1``/``ph2`` are (alpha, exit, moves) from :func:`phases_of`.  A customer
    joining an empty queue starts in a phase drawn from alpha; after a service
    the next customer (if any) does too.  Returns (d_1, rate of lost arrivals).
    """
    phs = (ph1, ph2)
    states = [(a, b, i, j) for a in range(N + 1) for b in range(N + 1)
              for i in (range(len(ph1[0])) if a else [-1]) for j in (range(len(ph2[0])) if b else [-1])]
    index = {st: k for k, st in enumerate(states)}
    rows, cols, vals = [], [], []

    def add(s, t, r):
        if r > 0 and t != s:
            rows.append(index[s])
            cols.append(index[t])
            vals.append(r)

    for st in states:
        a, b, i, j = st
        p1 = 1.0 if a < b else 0.0 if a > b else gamma
        for k, share in ((0, p1), (1, 1 - p1)):
            x, ph = [a, b], [i, j]
            if x[k] == N or share == 0:
                continue
            alpha = phs[k][0]
            if x[k] == 0:
                for q, al in enumerate(alpha):
                    y, f = list(x), list(ph)
                    y[k] += 1
                    f[k] = q
                    add(st, (*y, *f), lam12 * share * al)
            else:
                y = list(x)
                y[k] += 1
                add(st, (*y, *ph), lam12 * share)
        for k in (0, 1):
            x, ph = [a, b], [i, j]
            if x[k] == 0:
                continue
            alpha, exits, moves = phs[k]
            for u, v, r in moves:
                if u == ph[k]:
                    f = list(ph)
                    f[k] = v
                    add(st, (*x, *f), r)
            e = exits[ph[k]]
            y = list(x)
            y[k] -= 1
            if y[k] == 0:
                f = list(ph)
                f[k] = -1
                add(st, (*y, *f), e)
            else:
                for q, al in enumerate(alpha):
                    f = list(ph)
                    f[k] = q
                    add(st, (*y, *f), e * al)
    n = len(states)
    Q = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))
    Q = Q - sp.diags(np.asarray(Q.sum(axis=1)).ravel())
    A = Q.T.tolil()
    A[0, :] = 1.0
    rhs = np.zeros(n)
    rhs[0] = 1.0
    pi = spl.spsolve(A.tocsc(), rhs)
    d1 = sum(pi[index[st]] * phs[0][1][st[2]] for st in states if st[0] > 0)
    lost = lam12 * sum(pi[index[st]] for st in states if st[0] == N and st[1] == N)
    lost += lam12 * sum(pi[index[st]] * (1.0 if st[0] < st[1] else 0.0 if st[0] > st[1] else gamma)
                        for st in states if st[0] == N and st[1] < N)
    lost += lam12 * sum(pi[index[st]] * (1.0 if st[1] < st[0] else 0.0 if st[1] > st[0] else 1 - gamma)
                        for st in states if st[1] == N and st[0] < N)
    return float(d1), float(lost)


def tie_breaking(doc: dict) -> dict:
    """DHK-style network: stations a,b share a JSQ stream, a feeds c with prob 1, c has its own stream."""
    ids, mu = _stations(doc)
    lam = class_rates(doc)
    pair = next(C for C in lam if len(C) == 2)
    fb = doc["feedback"]
    assert len(fb) == 1 and float(fb[0]["prob"]) == 1.0 and len(fb[0]["choice"]) == 1
    a, c = fb[0]["from"], fb[0]["choice"][0]
    (b,) = pair - {a}
    gamma = 0.5
    for tb in doc.get("tie_breaking", []):
        if frozenset(tb["set"]) == pair:
            gamma = float(tb["probs"][a])
    laws = {s: doc["stations"][s].get("service") for s in (a, b)}
    if any(v is not None and v["dist"] != "exponential" for v in laws.values()):
        # phase-type service in the 1-2 subsystem: the CTMC on (x_a, x_b, phases)
        pa, pb = phases_of(laws[a], mu[a]), phases_of(laws[b], mu[b])
        N = 120

        def thr(g: float) -> tuple[float, float]:
            return subsystem_throughput_ph(lam[pair], g, pa, pb, N=N)
    else:
        N = 60

        def thr(g: float) -> tuple[float, float]:
            return subsystem_throughput(lam[pair], g, mu[a], mu[b])
    d1, lost = thr(gamma)
    d0, _ = thr(0.0)
    dg1, _ = thr(1.0)
    lam3 = lam.get(frozenset([c]), 0.0)
    util = (lam3 + d1) / mu[c]
    g_star = (mu[c] - lam3 - d0) / (dg1 - d0) if dg1 != d0 else float("nan")
    return {"margin": util, "s_star": None, "binding": f"station {c}",
            "numbers": f"d_1 = {d1:.6f} (gamma = {gamma:g}, truncation N = {N}, lost rate {lost:.1e}); "
                       f"(lam_3 + d_1)/mu_3 = ({lam3:g} + {d1:.6f})/{mu[c]:g} = {util:.4f}; "
                       f"d_1(gamma=0) = {d0:.6f}, d_1(gamma=1) = {dg1:.6f}, "
                       f"boundary gamma* = {g_star:.4f}; lam_3 boundary = {mu[c] - d1:.6f}"}


def loss_blocking(K: int, rho: float) -> float:
    """Blocking probability of the symmetric two-queue JSQ loss system (corpus README closed form)."""
    num = rho ** (2 * K)
    den = sum(rho**j for j in range(2 * K + 1)) - sum(rho ** (m - 1) * 2.0 ** (-m) for m in range(1, K + 1))
    return num / den


def finite_capacity(doc: dict) -> dict:
    """Every station has a capacity: a finite irreducible chain, stable at any load (margin 0)."""
    caps = [doc["stations"][s].get("capacity") for s in doc["stations"]]
    if any(c is None for c in caps):
        raise ValueError("finite-capacity criterion needs a capacity at every station")
    ids, mu = _stations(doc)
    numbers = f"capacities {caps}: finite state space"
    lam = class_rates(doc)
    if len(ids) == 2 and len(set(caps)) == 1 and len(set(mu.values())) == 1 and list(lam) == [frozenset(ids)]:
        rho = lam[frozenset(ids)] / (2 * mu[ids[0]])
        numbers += f"; blocking probability (closed form, rho = {rho:g}, K = {caps[0]}) = {loss_blocking(caps[0], rho):.10g}"
    return {"margin": 0.0, "s_star": None, "binding": "none", "numbers": numbers}


def fork_join(doc: dict) -> dict:
    """(n,k) fork-join with redundancy: stable iff lam < theta, sum_i min(d_i, theta) = k theta (water-filling)."""
    d = sorted(float(v["mu"]) for v in doc["servers"].values())
    n, k, lam = len(d), int(doc["k"]), float(doc["rate"])
    theta = None
    for j in range(n + 1):  # the j slowest servers are capped at their rate, the rest contribute theta
        if k - (n - j) <= 0:
            continue
        t = sum(d[:j]) / (k - (n - j))
        if (j == 0 or d[j - 1] <= t + 1e-15) and (j == n or t <= d[j] + 1e-15):
            theta = t
            break
    assert theta is not None
    mu_star = sum(d)
    maximal = max(d) <= mu_star / k + 1e-15
    return {"margin": lam / theta, "s_star": theta / lam, "binding": "job throughput",
            "numbers": f"theta = {theta:.6g} (water-filling), mu*/k = {mu_star / k:.6g}, maximal design: {maximal}; "
                       f"lam/theta = {lam / theta:.4f}"}


CRITERIA = {
    "subset": subset_condition,
    "dhk-homogeneous": dhk_homogeneous,
    "two-station": two_station,
    "tie-breaking": tie_breaking,
    "finite-capacity": finite_capacity,
    "fork-join": fork_join,
}


def evaluate(path: Path) -> dict:
    """Evaluate the criterion named in the file; returns margin, verdict and the numbers."""
    doc = read(path)
    out = dict(CRITERIA[doc["x-model"]["criterion"]](doc))
    out["verdict"] = "stable" if out["margin"] < 1 else "unstable"
    out["expected"] = doc["expected"]["verdict"]
    out["distance"] = abs(1 - out["margin"])
    return out


def main() -> int:
    bad = 0
    for path in model_files():
        r = evaluate(path)
        ok = r["verdict"] == r["expected"] and r["distance"] >= MIN_DISTANCE
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {path.name}: {r['verdict']} (expected {r['expected']}, "
              f"margin {r['margin']:.4f}) {r['numbers']}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
