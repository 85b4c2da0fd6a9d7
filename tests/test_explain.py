"""certify explain: a readable proof of every certificate kind, in Markdown, LaTeX and HTML."""

from __future__ import annotations

import copy
import html.parser
import json
import re
import shutil
import subprocess
from fractions import Fraction

import pytest
import sympy

from certify.certificates import verify
from certify.core.latex import station_tex
from certify.core.model import Network, Station, Stream
from certify.explain import explain
from certify.explain.render import LATEX_PACKAGES
from tests.real_certificates import CASES, case

FOSTER_CASES = [n for n, (_, _, kind) in CASES.items() if kind == "foster"]
FORMATS = ("markdown", "latex", "html")


def frac_tex(q: Fraction) -> str:
    """The test's own writing of an exact rational in LaTeX (as a proof must print it)."""
    q = Fraction(q)
    if q.denominator == 1:
        return str(q.numerator)
    return f"{'-' if q < 0 else ''}\\frac{{{abs(q.numerator)}}}{{{q.denominator}}}"


def latex_problems(tex: str) -> list[str]:
    """What would stop LaTeX: unbalanced braces, mismatched environments, odd $, special characters loose in text."""
    problems = []
    body = re.sub(r"\\begin\{verbatim\}.*?\\end\{verbatim\}", "", tex, flags=re.S)
    body = "\n".join(line for line in body.splitlines() if not line.lstrip().startswith("%"))
    plain = re.sub(r"\\[{}$&%#_]", "", body)
    depth = 0
    for ch in plain:
        depth += (ch == "{") - (ch == "}")
        if depth < 0:
            problems.append("a closing brace without an opening one")
            break
    if depth > 0:
        problems.append(f"{depth} unclosed braces")
    stack = []
    for kind, env in re.findall(r"\\(begin|end)\{([^}]*)\}", body):
        if kind == "begin":
            stack.append(env)
        elif not stack or stack.pop() != env:
            problems.append(f"\\end{{{env}}} does not close the open environment")
    if stack:
        problems.append(f"unclosed environments {stack}")
    for para_ in re.split(r"\n\s*\n", plain):
        if para_.count("$") % 2:
            problems.append(f"odd number of $ in: {para_[:80]!r}")
        outside = re.sub(r"\$[^$]*\$", "", para_)
        outside = re.sub(r"\\\[.*?\\\]|\\begin\{(align\*|tabular|longtable)\}.*?\\end\{\1\}", "", outside, flags=re.S)
        for ch in "_^#":
            if ch in outside:
                problems.append(f"unescaped {ch} in text: {outside[:80]!r}")
    return problems


class _Tags(html.parser.HTMLParser):
    VOID = {"meta", "br", "hr", "img"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.problems: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.problems.append(f"</{tag}> does not close the open element")


def html_problems(text: str) -> list[str]:
    """Mismatched HTML elements."""
    p = _Tags()
    p.feed(text)
    return p.problems + ([f"unclosed {p.stack}"] if p.stack else [])


@pytest.mark.parametrize("name", list(CASES))
def test_every_kind_renders_in_every_format(name):
    """Every certificate kind gets a proof that renders as well-formed Markdown, LaTeX and HTML."""
    net, cert = case(name)
    proof = explain(net, cert, max_rows=4)
    md, tex, page = (proof.render(f) for f in FORMATS)
    assert md.startswith(f"# {net.name}") and "## How to re-check" in md and "certify verify" in md
    assert not re.search(r"&(lt|gt|amp);", md), "the Markdown reads as plain text: no HTML entities"
    assert latex_problems(tex) == [] and latex_problems(proof.render("latex", standalone=True)) == []
    assert html_problems(page) == [] and html_problems(proof.render("html", standalone=True)) == []


@pytest.mark.parametrize("name", FOSTER_CASES)
def test_foster_markdown_names_v_delta_bound_and_regions(name):
    """A Foster proof names V, delta and the exceptional-set bound exactly, and the number of regions the checker checked."""
    net, cert = case(name)
    facts = verify(net, cert).facts.checked
    md = explain(net, cert).render("markdown")
    assert "V(x" in md and "Foster's criterion" in md
    assert f"\\delta = {frac_tex(facts.delta)}" in md
    assert f"N = {facts.exceptional_l1_bound}" in md and f"< {facts.exceptional_l1_bound}" in md
    assert f"cut into {facts.regions} regions" in md and facts.regions == cert["claims"]["regions"]


@pytest.mark.parametrize("name", [n for n in FOSTER_CASES if n != "quartic"])
def test_foster_tightest_region_has_zero_slack_and_sets_delta(name):
    """The drift table's slacks are >= 0, the tightest is 0, and its steepest slope is exactly -delta (the checker's delta)."""
    net, cert = case(name)
    delta = verify(net, cert).facts.checked.delta
    proof = explain(net, cert, max_rows=10**6)
    table = next(b for s in proof.sections if s.title.startswith("The drift") for b in s.blocks if hasattr(b, "rows"))
    slopes = [r[-2].tex for r in table.rows]
    slacks = [r[-1].tex for r in table.rows]
    assert slacks[0] == "0" and slopes[0] == frac_tex(-delta)
    assert not any(s.startswith("-") for s in slacks)


def test_quadratic_v_is_the_certificates_form():
    """The quadratic V printed equals x'Px with P read from the file (off-diagonal entries counted twice)."""
    net, cert = case("quadratic")
    ids = [s.id for s in net.stations]
    xs = sympy.symbols(f"s0:{len(ids)}")
    V = 0
    for name, value in cert["coefficients"].items():
        i, j = (ids.index(s) for s in name[2:-1].split(","))
        V += (1 if i == j else 2) * sympy.Rational(value) * xs[i] * xs[j]
    expected = sympy.latex(V, symbol_names={x: f"x_{{{s}}}" for x, s in zip(xs, ids)}, order="grlex")
    assert f"V(x) = {expected}" in explain(net, cert).render("markdown")


def test_long_tables_are_summarised_with_the_full_table_in_the_appendix():
    """With max_rows = 3, the region table keeps 3 rows in the text and all of them in the appendix."""
    net, cert = case("table")
    proof = explain(net, cert, max_rows=3)
    text = next(s for s in proof.sections if s.title.startswith("The drift"))
    shown = next(b for b in text.blocks if hasattr(b, "rows"))
    full = next(b for s in proof.appendix if s.title == "The drift on every region" for b in s.blocks)
    assert len(shown.rows) == 3 and len(full.rows) > 3 and full.rows[:3] == shown.rows
    assert "## Appendix" in proof.render("markdown") and "Appendix: The drift on every region" in proof.render("latex")


def test_fluid_proof_names_dai_and_the_faces():
    """A fluid proof states Dai's theorem, its interarrival conditions, V, delta, eta and the number of faces."""
    net, cert = case("fluid-linear")
    facts = verify(net, cert).facts.checked
    md = explain(net, cert).render("markdown")
    assert "Dai's fluid-limit theorem" in md and "unbounded and spread out" in md
    assert f"\\delta = {frac_tex(facts.delta)}" in md and f"\\eta = {frac_tex(facts.eta)}" in md
    assert f"cut into {facts.faces} faces" in md and "V(z) = " in md


def test_symmetric_proofs_say_which_orbits_they_check():
    """A proof reduced by station classes names the classes and says that the listed regions are one per orbit."""
    for name in ("quadratic-symmetric", "fluid-symmetric"):
        net, cert = case(name)
        md = explain(net, cert).render("markdown")
        assert "sorted chamber" in md and "one per orbit" in md and "\\{1, 2, 3\\}" in md


def test_odd_station_names_are_escaped_in_every_format():
    """A station id with LaTeX, Markdown and HTML specials is escaped in all three formats."""
    from certify import prove

    odd = "a_b&c<d>"
    net = Network("odd|net", (Station(odd, Fraction(1)), Station("2", Fraction(1))), (Stream(Fraction(3, 2), choice=(odd, "2")),))
    cert = prove(net, templates=["quadratic"], fluid=False, simulate=False).certificate
    proof = explain(net, cert)
    md, tex, page = (proof.render(f) for f in FORMATS)
    assert latex_problems(tex) == [] and html_problems(page) == []
    assert odd not in page and "a_b&amp;c&lt;d&gt;" in page
    assert station_tex(odd) in tex and "\\&" in station_tex(odd) and "odd\\|net" in md
    assert "a\\_b&c\\<d>" in md  # '<' before a letter could open an HTML tag; '&' before 'c<' is no entity


def test_explain_refuses_a_certificate_that_does_not_verify():
    """An edited certificate is refused with its first failure; no proof is written."""
    from certify.core.errors import CertificateError

    net, cert = case("quadratic")
    with pytest.raises(CertificateError, match="does not verify.*digest"):
        explain(net, {**cert, "coefficients": {**cert["coefficients"], "P[1,1]": "2"}})


def _write_case(tmp_path, name):
    from certify.io.loader import dump

    net, cert = case(name)
    dump(net, tmp_path / "net.json")
    (tmp_path / "cert.json").write_text(json.dumps(dict(copy.deepcopy(cert))))
    return tmp_path / "net.json", tmp_path / "cert.json"


def _cli(capsys, *args):
    from certify.cli import main

    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:  # argparse refusals
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_writes_each_format_and_refuses_bad_input(tmp_path, capsys):
    """certify explain prints Markdown, writes LaTeX with --out, exits 1 on an invalid certificate and 2 on bad options."""
    net, cert = _write_case(tmp_path, "quadratic")
    code, out, _ = _cli(capsys, "explain", net, cert)
    assert code == 0 and out.startswith("# dhk2-A-m0.90 is positive recurrent") and f"certify verify {net} {cert}" in out
    code, out, _ = _cli(capsys, "explain", net, cert, "--format", "latex", "--out", tmp_path / "p.tex")
    assert code == 0 and (tmp_path / "p.tex").read_text().startswith("% certify explain")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**json.loads(cert.read_text()), "claims": {}}))
    code, out, err = _cli(capsys, "explain", net, bad)
    assert code == 1 and out == "" and "does not verify" in err and "Traceback" not in err
    for opts in (["--format", "pdf"], ["--max-rows", "0"], ["--out", tmp_path / "missing" / "p.md"]):
        code, out, err = _cli(capsys, "explain", net, cert, *opts)
        assert code == 2 and "Traceback" not in err and err.count("\n") == 1, (opts, err)


# The commands and environments of LaTeX itself, amsmath, amssymb and longtable that the proofs may use.
STANDARD_COMMANDS = set("""
    Bigl Bigr Lambda Pi mathrm backslash wedge sim vert allowdisplaybreaks begin bigl bigr caption cdot delta
    documentclass dots emptyset end endhead
    ensuremath eta frac ge hline in infty item lVert lambda le left lim liminf limsup lvert mathbb mathcal max mid min mu
    ne ni notin par qquad quad rVert right rvert section smallskip subsection sum text textasciicircum textasciitilde
    textbackslash textstyle theta to top usepackage varepsilon varphi sigma alpha beta gamma ldots cdots times approx
    geq leq neq subseteq cup cap setminus small setlength tabcolsep
""".split())
STANDARD_ENVIRONMENTS = {"document", "center", "tabular", "longtable", "itemize", "enumerate", "align*", "verbatim"}


def test_latex_uses_only_standard_commands():
    """Every LaTeX command and environment of every proof is one of LaTeX, amsmath, amssymb or longtable (no pdflatex here)."""
    for name in CASES:
        net, cert = case(name)
        tex = explain(net, cert, max_rows=3).render("latex", standalone=True)
        body = re.sub(r"\\begin\{verbatim\}.*?\\end\{verbatim\}", "", tex, flags=re.S)
        assert set(re.findall(r"\\([A-Za-z]+)", body)) <= STANDARD_COMMANDS, name
        assert set(re.findall(r"\\begin\{([^}]*)\}", tex)) <= STANDARD_ENVIRONMENTS, name


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed: the LaTeX output is checked structurally only")
@pytest.mark.parametrize("name", ["quadratic", "table", "fluid-linear", "growth", "static-split", "fj-foster"])
def test_latex_compiles_with_pdflatex(tmp_path, name):
    """The standalone LaTeX (the fragment with amsmath, amssymb, longtable) compiles with pdflatex."""
    net, cert = case(name)
    (tmp_path / "proof.tex").write_text(explain(net, cert, max_rows=5).render("latex", standalone=True))
    res = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "proof.tex"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and (tmp_path / "proof.pdf").exists(), res.stdout[-2000:]
    assert set(LATEX_PACKAGES) == {"amsmath", "amssymb", "longtable"}


@pytest.mark.parametrize("name", list(CASES))
def test_explain_refuses_or_writes_every_mutated_certificate(name):
    """A resealed mutation of a real certificate (the forger's) is refused with CertificateError or gets a well-formed proof."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from certify.core.errors import CertificateError
    from tests.test_forger import CLASSES, edits_for, mutate

    net, cert = case(name)

    @settings(max_examples=4, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
    @given(data=st.data())
    def run(data):
        cls = data.draw(st.sampled_from(CLASSES), label="class")
        forged = mutate(cert, data.draw(edits_for(cls, net, cert), label="edits"))
        try:
            proof = explain(net, forged, max_rows=3)
        except CertificateError as exc:
            assert "does not verify" in str(exc)
            return
        assert latex_problems(proof.render("latex")) == [] and html_problems(proof.render("html")) == []

    run()
