"""The readable proofs of growth, static-split, closed-set, finite-state and theorem certificates, checked against the network."""

from __future__ import annotations

import html.parser
import re
from fractions import Fraction as F

import pytest

from certify.certificates import closed_set_certificate, finite_certificate, growth_certificate, static_split_certificate
from certify.core.model import Feedback, Network, Station, Stream
from certify.exact import check_closed_set, check_finite, check_growth, check_static_split
from certify.explain import explain
from certify.explain.document import Math, Proof, Table
from certify.markov.chain import compile_chain
from tests.independent import growth_function, jumps, routed
from tests.real_certificates import case

KINDS = ["growth", "growth-table", "static-split", "closed-set", "finite-state", "theorem"]
ODD = "a_b&c"


# ----------------------------------------------------------------------------- reading the proof back
def tex(q: F) -> str:
    """The test's own LaTeX for an exact rational."""
    q = F(q)
    return str(q.numerator) if q.denominator == 1 else f"{'-' if q < 0 else ''}\\frac{{{abs(q.numerator)}}}{{{q.denominator}}}"


def number(cell) -> F:
    """An exact rational read back from a table cell written as LaTeX."""
    s = cell.tex if isinstance(cell, Math) else cell
    m = re.fullmatch(r"(-?)\\frac\{(\d+)\}\{(\d+)\}", s)
    return F(int(m[2]), int(m[3])) * (-1 if m[1] else 1) if m else F(s)


def table(proof: Proof, title: str, appendix: bool = False) -> Table:
    """The first table of the section called ``title`` (in the body or the appendix)."""
    sections = proof.appendix if appendix else proof.sections
    sec = next(s for s in sections if s.title == title)
    return next(b for b in sec.blocks if isinstance(b, Table))


def column(t: Table, name: str) -> list:
    k = t.header.index(name)
    return [row[k] for row in t.rows]


def claim(cert, key) -> F:
    return F(cert["claims"][key])


def latex_problems(text: str) -> list[str]:
    """Unbalanced braces or environments (escaped braces and verbatim blocks aside)."""
    body = re.sub(r"\\begin\{verbatim\}.*?\\end\{verbatim\}", "", text, flags=re.S)
    plain = re.sub(r"\\[{}]", "", body)
    problems, depth = [], 0
    for ch in plain:
        depth += (ch == "{") - (ch == "}")
        if depth < 0:
            return ["a closing brace without an opening one"]
    if depth:
        problems.append(f"{depth} unclosed braces")
    stack: list[str] = []
    for kind, env in re.findall(r"\\(begin|end)\{([^}]*)\}", body):
        if kind == "begin":
            stack.append(env)
        elif not stack or stack.pop() != env:
            problems.append(f"\\end{{{env}}} closes nothing open")
    return problems + ([f"unclosed {stack}"] if stack else [])


class Tags(html.parser.HTMLParser):
    """Collects tag-nesting problems of an HTML fragment."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.problems: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag != "meta":
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.problems.append(f"</{tag}> closes nothing open")


# ----------------------------------------------------------------------------- every kind, every format
@pytest.mark.parametrize("name", KINDS)
def test_every_kind_renders_balanced_latex_and_html(name):
    """Each kind's proof renders as Markdown, as LaTeX with balanced braces and environments, and as well-nested HTML."""
    net, cert = case(name)
    proof = explain(net, cert, max_rows=4)
    assert proof.render("markdown").startswith(f"# {net.name} is ")
    assert latex_problems(proof.render("latex", standalone=True)) == []
    parser = Tags()
    parser.feed(proof.render("html", standalone=True))
    assert parser.problems == [] and parser.stack == []


@pytest.mark.parametrize("name", KINDS)
def test_every_proof_says_how_to_recheck(name):
    """Each proof ends with the certify verify commands for the files it was given."""
    net, cert = case(name)
    md = explain(net, cert, network_file="net.json", certificate_file="cert.json").render("markdown")
    assert "certify verify net.json cert.json" in md
    assert md.index("## How to re-check") > md.index("## Theorem used") > md.index("## The network")


# ----------------------------------------------------------------------------- growth
@pytest.mark.parametrize("name", ["growth", "growth-table"])
def test_growth_states_delta_level_and_increment_bound(name):
    """The growth proof names the certificate's delta, level and increment bound exactly, as the checker derived them."""
    net, cert = case(name)
    md = explain(net, cert).render("markdown")
    assert f"\\delta = {tex(claim(cert, 'delta'))}" in md
    assert f"{tex(claim(cert, 'level'))} = C" in md
    assert f"= {tex(claim(cert, 'increment_bound'))}$" in md
    assert "Fayolle" in md and "Theorem 2.2.7" in md
    assert explain(net, cert).title == f"{net.name} is not positive recurrent (transient): a growth function"


@pytest.mark.parametrize("name", ["growth", "growth-table"])
def test_growth_weights_are_the_certificates(name):
    """Every weight of the file appears exactly as w_j = value."""
    net, cert = case(name)
    md = explain(net, cert).render("markdown")
    for sid, v in cert["weights"].items():
        assert f"w_{{{sid}}} = {tex(F(v))}" in md


@pytest.mark.parametrize("name", ["growth", "growth-table"])
def test_growth_drift_rows_equal_af_computed_from_the_jsq_rules(name):
    """At the state listed in each drift row, Af computed from the network's rules and the file's f equals the row's Af."""
    net, cert = case(name)
    f, _, _ = growth_function(cert, net)
    rows = table(explain(net, cert, max_rows=10_000), "The drift of f where it is unbounded")
    assert rows.rows
    for state, af in zip(column(rows, "a state of it"), column(rows, "Af")):
        x = tuple(int(v) for v in state.strip("()").split(","))
        want = sum((r * (f(y, p) - f(x)) for (y, p), r in jumps(net, x)), F(0))
        assert number(af) == want, (state, af.tex)


@pytest.mark.parametrize("name", ["growth", "growth-table"])
def test_growth_rows_are_tightest_first_and_the_first_sets_delta(name):
    """The drift rows are sorted by Af, the first one's Af is the claimed delta and every slack is Af - delta."""
    net, cert = case(name)
    rows = table(explain(net, cert, max_rows=10_000), "The drift of f where it is unbounded")
    afs = [number(c) for c in column(rows, "Af")]
    delta = claim(cert, "delta")
    assert afs == sorted(afs) and afs[0] == delta
    assert [number(c) for c in column(rows, "slack Af - delta")] == [a - delta for a in afs]


def test_growth_table_values_are_in_the_appendix():
    """A tabled growth certificate lists all (K+1)^|fast| values of T in the appendix, equal to the file's."""
    net, cert = case("growth-table")
    tab = cert["table"]
    t = table(explain(net, cert), "The table T", appendix=True)
    assert len(t.rows) == (tab["K"] + 1) ** len(tab["fast"])
    for row in t.rows:
        assert number(row[-1]) == F(tab["values"][",".join(row[:-1])])


def test_long_drift_table_is_summarised_with_the_whole_table_in_the_appendix():
    """With max_rows 3 the body keeps the 3 tightest drift rows and the appendix has all of them."""
    net, cert = case("growth")
    full = table(explain(net, cert, max_rows=10_000), "The drift of f where it is unbounded")
    proof = explain(net, cert, max_rows=3)
    head = table(proof, "The drift of f where it is unbounded")
    whole = table(proof, "Drift of f on all regions where it is unbounded", appendix=True)
    assert head.rows == full.rows[:3] and whole.rows == full.rows and len(full.rows) > 3
    assert f"lists 3 of {len(full.rows)} rows" in proof.render("markdown")


# ----------------------------------------------------------------------------- static split
def test_static_split_constraint_slacks_match_the_network():
    """Every dual constraint (set C, station j) is listed once with slack u_C + w_j - sum p u computed from the network."""
    net, cert = case("static-split")
    m = cert["multipliers"]
    u = {frozenset(k.split(",")): F(v) for k, v in m["sets"].items()}
    w = {s: F(v) for s, v in m["stations"].items()}
    want = {}
    for C in routed(net):
        for j in C:
            back = sum((fb.prob * u[frozenset(fb.choice)] for fb in net.feedback if fb.source == j), F(0))
            want[(C, j)] = u[C] + w[j] - back
    t = table(explain(net, cert, max_rows=10_000), "The dual constraints")
    got = {}
    for cset, j, _, slack in t.rows:
        C = frozenset(s.strip() for s in cset.tex.strip("\\{}").split(","))
        got[(C, j)] = number(slack)
    assert got == want
    assert [number(r[-1]) for r in t.rows] == sorted(want.values())


def test_static_split_states_the_dual_value_and_overloaded_set():
    """The proof names the dual value (recomputed here from lam, mu, u, w) as negative and the support of w."""
    net, cert = case("static-split")
    m = cert["multipliers"]
    lam = routed(net)
    u = {frozenset(k.split(",")): F(v) for k, v in m["sets"].items()}
    value = sum((lam[C] * u[C] for C in lam), F(0)) + sum((s.mu * F(m["stations"][s.id]) for s in net.stations), F(0))
    md = explain(net, cert).render("markdown")
    assert value < 0 and f"= {tex(value)} < 0" in md
    support = [s for s, v in m["stations"].items() if F(v) > 0]
    assert f"overloaded set $\\{{{', '.join(support)}\\}}$" in md
    assert "not positive recurrent under any policy" in md


def test_static_split_multipliers_are_the_files():
    """The multiplier table lists u_C for every set and w_j for every station of the file, exactly."""
    net, cert = case("static-split")
    m = cert["multipliers"]
    want = {f"u_{{\\{{{k.replace(',', ', ')}\\}}}}": F(v) for k, v in m["sets"].items()}
    want.update({f"w_{{{s}}}": F(v) for s, v in m["stations"].items()})
    t = table(explain(net, cert), "The multipliers")
    assert {r[0].tex: number(r[1]) for r in t.rows} == want


# ----------------------------------------------------------------------------- closed set
def test_closed_set_names_the_set_inflow_and_routing():
    """The closed-set proof has the docstring's title, the set, its feedback routing and the inflow from the network."""
    net, cert = case("closed-set")
    proof = explain(net, cert)
    assert proof.title == "trap is not positive recurrent: a closed set of stations"
    S = set(cert["stations"])
    inflow = sum((r for st in net.streams for c, r in st.routing_sets() if set(c) <= S), F(0))
    md = proof.render("markdown")
    assert f"r = {tex(inflow)} > 0" in md and "S = \\{2\\}" in md
    fb = table(proof, "The closed set")
    assert [r[0] for r in fb.rows] == [f.source for f in net.feedback if f.source in S]
    assert sum(number(r[2]) for r in fb.rows) == 1


# ----------------------------------------------------------------------------- finite state, theorem
def test_finite_state_counts_the_states_and_drains_every_station():
    """The finite-state proof gives prod (K_j + 1) states and a drain order with every station once."""
    net, cert = case("finite-state")
    count = 1
    for s in net.stations:
        count *= s.capacity + 1
    proof = explain(net, cert)
    md = proof.render("markdown")
    assert count == cert["claims"]["states"] and f"= {count}" in md
    drain = table(proof, "Reachability of the empty state")
    assert sorted(r[1] for r in drain.rows) == sorted(net.station_ids)
    assert proof.title == f"{net.name} is positive recurrent: a finite state space"


def test_theorem_proof_names_theorem_source_hypotheses_and_known_verdict():
    """The theorem proof names the theorem, its source, every hypothesis and the numbers, and says the corpus's verdict."""
    net, cert = case("theorem")
    proof = explain(net, cert)
    md = proof.render("markdown")
    facts = proof.sections[0].blocks[1].parts[0]
    assert net.expected["verdict"] == cert["claims"]["verdict"] == "stable"
    assert proof.title == f"{net.name} is stable: the theorem \u201c{cert['theorem']}\u201d"
    items = next(b for b in proof.sections[2].blocks if hasattr(b, "items")).items
    hypotheses = [it.parts[0] for it in items]
    assert all(h in facts for h in hypotheses) and len(hypotheses) == 3
    assert "Foss" in md and "Bramson" in md and "0.9 at A = {1,2}" in proof.sections[3].blocks[0].parts[0]


# ----------------------------------------------------------------------------- odd station ids
def _odd_cases():
    over = Network("over", (Station(ODD, F(1)),), (Stream(F(2), choice=(ODD,)),))
    ch = compile_chain(over)
    trap = Network("trap", (Station("1", F(1)), Station(ODD, F(1))),
                   (Stream(F(1, 2), choice=("1",)), Stream(F(1, 10), choice=(ODD,))), (Feedback(ODD, (ODD,), F(1)),))
    tc = compile_chain(trap)
    lossy = Network("loss", (Station(ODD, F(1), capacity=2),), (Stream(F(2), choice=(ODD,)),))
    lc = compile_chain(lossy)
    u, w = {(0,): F(-1)}, [F(1)]
    return [
        (over, growth_certificate(over, ch, [F(1)], check_growth(ch, [F(1)]))),
        (over, static_split_certificate(over, ch, u, w, check_static_split(ch, u, w))),
        (trap, closed_set_certificate(trap, tc, [1], check_closed_set(tc, [1]))),
        (lossy, finite_certificate(lossy, lc, check_finite(lc, [2]))),
    ]


@pytest.mark.parametrize("k", range(4))
def test_odd_station_ids_are_escaped_in_every_format(k):
    """A station called a_b&c appears escaped in Markdown, LaTeX and HTML, never raw."""
    net, cert = _odd_cases()[k]
    proof = explain(net, cert)
    md, latex, page = proof.render("markdown"), proof.render("latex"), proof.render("html")
    assert ODD not in md and ODD not in latex and ODD not in page
    assert "\\mathrm{a\\_b\\&c}" in md and "a\\_b\\&c" in latex and "a\\_b\\&amp;c" in page
    assert latex_problems(latex) == []


@pytest.mark.slow
def test_phase_type_growth_rows_equal_af_from_the_phase_generator():
    """For a phase-type growth table, Af at each row's state and phases (from the phase generator) equals the row's Af."""
    net, cert = case("growth-phases")
    f, _, _ = growth_function(cert, net)
    rows = table(explain(net, cert, max_rows=10_000), "The drift of f where it is unbounded")
    for state, af in zip(column(rows, "a state of it"), column(rows, "Af")):
        xs, ps = re.fullmatch(r"x = \(([^)]*)\), phase indices \(([^)]*)\)", state).groups()
        x, phi = tuple(int(v) for v in xs.split(",")), tuple(int(v) for v in ps.split(","))
        want = sum((r * (f(y, p) - f(x, phi)) for (y, p), r in jumps(net, x, phi)), F(0))
        assert number(af) == want, (state, af.tex)
