"""The readable proofs of the fork-join certificates, against numbers computed here from the fork/cancel rules."""

from __future__ import annotations

import re
from fractions import Fraction as F
from functools import cache
from itertools import combinations, product

import pytest

from certify.certificates import capacity_certificate, forkjoin_foster_certificate, independent_certificate
from certify.core.latex import frac_tex
from certify.core.model import ForkJoinNetwork
from certify.exact.forkjoin import check_capacity, check_forkjoin_foster, check_independent
from certify.explain import explain
from tests.real_certificates import case

ODD = "a_b&c"


# ----------------------------------------------------------------------------- independent truth
def rates(net):
    return [F(mu) for _, mu in net.servers]


def jumps(net, q):
    """The jumps out of q by the rules of fork-join-redundancy/1, written out here."""
    d, top = rates(net), max(q)
    positive = sum(1 for x in q if x < top)
    out = {}

    def add(t, r):
        out[t] = out.get(t, F(0)) + r

    add(tuple(x + 1 for x in q), F(net.rate))
    for i, x in enumerate(q):
        if x == 0:
            continue
        if x == top and positive == net.k - 1:  # the k-th task of the oldest job: it leaves, the others are cancelled
            add(tuple(y - 1 if y == top else y for y in q), d[i])
        else:
            add(q[:i] + (x - 1,) + q[i + 1:], d[i])
    return out


def states_with_max(net, N):
    return [q for q in product(range(N + 1), repeat=net.n) if max(q) == N and sum(x < N for x in q) <= net.k - 1]


def lag_v(net, cert):
    """V = N + h(min(N - Q, K)), h read straight from the file (levels sorted decreasingly within each class)."""
    ids = [s for s, _ in net.servers]
    classes = [[ids.index(s) for s in c] for c in cert["classes"]]
    K = cert["K"]
    h = {tuple(int(x) for x in k.split(",")): F(v) for k, v in cert["table"].items()}

    def V(q):
        N = max(q)
        lag = [min(N - x, K) for x in q]
        for c in classes:
            for i, v in zip(c, sorted((lag[i] for i in c), reverse=True)):
                lag[i] = v
        return N + h[tuple(lag)]

    return V


def drift(net, V, q):
    return sum((r * (V(t) - V(q)) for t, r in jumps(net, q).items()), F(0))


def body_rows(md, caption):
    """The data rows of the Markdown table under ``*caption...*``."""
    block = md.split(f"*{caption}", 1)[1].split("\n\n", 2)[1]
    return [ln for ln in block.splitlines() if ln.startswith("|")][2:]


def tex_balanced(tex):
    plain = re.sub(r"\\[{}]", "", tex)
    depth = 0
    for ch in plain:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def envs_balanced(tex):
    stack = []
    for kind, env in re.findall(r"\\(begin|end)\{(\w+\*?)\}", tex):
        if kind == "begin":
            stack.append(env)
        elif not stack or stack.pop() != env:
            return False
    return not stack


# ----------------------------------------------------------------------------- small networks with an odd server id
def odd_capacity():
    net = ForkJoinNetwork("odd", 3, 2, F(1, 2), ((ODD, F(3, 5)), ("2", F(1, 5)), ("3", F(1, 5))))
    return net, capacity_certificate(net, [ODD], check_capacity(net, [ODD]))


def odd_independent():
    net = ForkJoinNetwork("odd", 2, 2, F(1, 2), ((ODD, F(1)), ("2", F(1))))
    return net, independent_certificate(net, check_independent(net))


def odd_lag_table():
    net = ForkJoinNetwork("odd", 3, 2, F(3, 10), ((ODD, F(1, 3)), ("2", F(1, 3)), ("3", F(1, 3))))
    h = {(0, 0, 0): F(0), (1, 0, 0): F(-1, 2)}
    return net, forkjoin_foster_certificate(net, 1, h, check_forkjoin_foster(net, 1, h))


@cache
def heterogeneous():
    """Rates 3/5, 1/5, 1/5 (two classes of servers): a lag table proved here (about a second)."""
    import certify

    net = ForkJoinNetwork("het", 3, 2, F(3, 10), (("1", F(3, 5)), ("2", F(1, 5)), ("3", F(1, 5))))
    cert = certify.prove(net, simulate=False, time_limit=60).certificate
    assert cert is not None and cert["kind"] == "fork-join-foster" and len(cert["classes"]) == 2
    return net, cert


ALL = {"fj-foster": lambda: case("fj-foster"), "fj-capacity": lambda: case("fj-capacity"),
       "fj-independent": lambda: case("fj-independent"), "odd-capacity": odd_capacity,
       "odd-independent": odd_independent, "odd-lag-table": odd_lag_table, "heterogeneous": heterogeneous}


# ----------------------------------------------------------------------------- the lag table
@pytest.mark.parametrize("name", ["fj-foster", "heterogeneous"])
def test_lag_table_names_the_delta_of_the_worst_state(name):
    """The proof's delta is minus the largest drift over the states with N = K+1 and K+2, computed from the rules."""
    net, cert = ALL[name]()
    V, K = lag_v(net, cert), cert["K"]
    worst = max(drift(net, V, q) for N in (K + 1, K + 2) for q in states_with_max(net, N))
    md = explain(net, cert).render("markdown")
    assert f"\\delta = {frac_tex(-worst)}" in md


def test_lag_table_lists_each_region_drift_once_tightest_first():
    """The region table has one row per orbit of lag levels, with the drift the states of that region have."""
    net, cert = case("fj-foster")
    V, K = lag_v(net, cert), cert["K"]
    by_levels = {}
    for q in states_with_max(net, K + 1):
        levels = tuple(sorted((K + 1 - x for x in q), reverse=True))  # one class: the orbit is the sorted lags
        by_levels.setdefault(levels, set()).add(drift(net, V, q))
    assert all(len(v) == 1 for v in by_levels.values())
    rows = body_rows(explain(net, cert).render("markdown"), "The drift on each region")
    assert len(rows) == len(by_levels) == cert["claims"]["regions"]  # (N = K+1 reaches every lag level 0..K+1)
    expected = sorted((v.pop() for v in by_levels.values()), reverse=True)
    shown = [row.split(" | ")[3] for row in rows]
    assert shown == [f"${frac_tex(av)}$" for av in expected]
    assert rows[0].rstrip(" |").endswith("$0$")


def test_lag_table_shows_every_table_value():
    """Every cell of the certificate's table h appears with its exact value."""
    net, cert = case("fj-foster")
    md = explain(net, cert).render("markdown")
    rows = body_rows(md, "The table h")
    assert len(rows) == len(cert["table"])
    for key, v in cert["table"].items():
        assert f"| $({key.replace(',', ', ')})$ | ${frac_tex(F(v))}$ |" in md


def test_lag_table_counts_the_exceptional_states():
    """The exceptional set {N <= K} has as many states as a brute-force count finds."""
    net, cert = case("fj-foster")
    K = cert["K"]
    count = sum(len(states_with_max(net, N)) for N in range(K + 1))
    md = explain(net, cert).render("markdown")
    assert f"the {count} states with at most {K} jobs present" in md


@pytest.mark.parametrize("name", ["fj-foster", "heterogeneous"])
def test_lag_table_worked_state_has_the_tightest_drift(name):
    """The worked state's jumps are those of the rules, and its drift is -delta."""
    net, cert = ALL[name]()
    V = lag_v(net, cert)
    md = explain(net, cert).render("markdown")
    q = tuple(int(x) for x in re.search(r"For example at \$q = \(([\d, ]+)\)\$", md).group(1).split(", "))
    rows = body_rows(md, f"The jumps out of {q}")
    assert len(rows) == len(jumps(net, q))
    av = drift(net, V, q)
    assert av == -F(cert["claims"]["delta"])
    assert f"AV(q) = {frac_tex(av)}" in md


def test_long_lag_tables_go_to_the_appendix():
    """With max_rows = 2 the region table and the table h keep 2 rows and the appendix holds them all."""
    net, cert = case("fj-foster")
    proof = explain(net, cert, max_rows=2)
    titles = {s.title: s for s in proof.appendix}
    assert len(titles["The drift on every region"].blocks[0].rows) == cert["claims"]["regions"]
    assert len(titles["The table h"].blocks[0].rows) == cert["claims"]["cells"]
    md = proof.render("markdown")
    assert len(body_rows(md, "The drift on each region")) == 2
    assert "## Appendix" in md


# ----------------------------------------------------------------------------- capacity
def test_capacity_bound_and_slack_from_the_rates():
    """The bound is d(R^c)/(k - |R|) from the file's rates, with slack lam - bound."""
    net, cert = case("fj-capacity")
    ids = [s for s, _ in net.servers]
    R = cert["capped"]
    bound = sum(F(mu) for s, mu in net.servers if s not in R) / (net.k - len(R))
    md = explain(net, cert).render("markdown")
    assert f"$\\frac{{d(R^c)}}{{k - \\lvert R\\rvert}} < \\lambda$ | ${frac_tex(bound)}$ | ${frac_tex(F(net.rate))}$ | " \
           f"${frac_tex(F(net.rate) - bound)}$ |" in md
    assert len(body_rows(md, "The servers and the capped set R")) == len(ids)


def test_capacity_names_the_water_filling_theta():
    """theta is the least bound over all sets of at most k-1 servers (brute force)."""
    net, cert = case("fj-capacity")
    d = rates(net)
    theta = min(sum(d[i] for i in range(net.n) if i not in R) / (net.k - m)
                for m in range(net.k) for R in combinations(range(net.n), m))
    md = explain(net, cert).render("markdown")
    assert f"\\theta = {frac_tex(theta)}" in md
    assert explain(net, cert).title == f"{net.name} is unstable: a flow-balance bound on the job throughput"


# ----------------------------------------------------------------------------- (k,k)
def test_independent_slope_bound_and_exceptional_count():
    """The slope 2(min d - lam), the bound (n lam + mu* + 1)/slope and the states with |q|_1 below it, counted here."""
    net, cert = case("fj-independent")
    d, lam = rates(net), F(net.rate)
    slope = 2 * (min(d) - lam)
    bound = (net.n * lam + sum(d) + 1) / slope
    count = sum(1 for q in product(range(int(bound) + 1), repeat=net.n) if sum(q) < bound)
    md = explain(net, cert).render("markdown")
    assert f"AV \\le -{frac_tex(slope)}\\,\\lVert q\\rVert_{{1}} + {frac_tex(net.n * lam + sum(d))} \\le -1" in md
    assert f"= {frac_tex(bound)}$" in md
    assert f"a set of {count} states" in md


def test_independent_worked_state_drift():
    """The worked state's drift of sum Q_i^2, from the rules, is the one shown and is at most -1."""
    net, cert = case("fj-independent")
    md = explain(net, cert).render("markdown")
    q = tuple(int(x) for x in re.search(r"For example at \$q = \(([\d, ]+)\)\$", md).group(1).split(", "))
    av = drift(net, lambda s: sum(x * x for x in s), q)
    assert av <= -1
    assert f"AV(q) = {frac_tex(av)}" in md
    assert len(body_rows(md, "The drift's coefficient of each busy queue")) == net.n


# ----------------------------------------------------------------------------- every format, every kind
@pytest.mark.parametrize("name", sorted(ALL))
def test_every_format_renders_well_formed(name):
    """Markdown, LaTeX (balanced braces and environments) and HTML render, each with the re-check command."""
    net, cert = ALL[name]()
    proof = explain(net, cert, max_rows=3)
    tex = proof.render("latex", standalone=True)
    assert tex_balanced(tex) and envs_balanced(tex)
    assert "certify verify NETWORK CERT" in proof.render("markdown")
    html = proof.render("html")
    assert html.count("<section>") == html.count("</section>") == len(proof.sections) + len(proof.appendix)


@pytest.mark.parametrize("name", ["odd-capacity", "odd-independent", "odd-lag-table"])
def test_odd_server_id_is_escaped(name):
    """A server id with _ and & is escaped in Markdown, LaTeX and HTML."""
    net, cert = ALL[name]()
    proof = explain(net, cert)
    md, tex, html = proof.render("markdown"), proof.render("latex"), proof.render("html")
    assert "a\\_b&c" in md
    assert "a\\_b\\&c" in tex and "a_b&c" not in tex
    assert "a_b&amp;c" in html and "a_b&c" not in html
