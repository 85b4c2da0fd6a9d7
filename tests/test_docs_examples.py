"""Every shell and Python example of README.md and docs/ runs from a clone and prints what the docs show."""

import pytest

from tests.docs_examples import DOC_FILES, output_matches, read_examples, run_doc

DOCS_WITH_EXAMPLES = [d for d in DOC_FILES if any(ex.kind != "file" for ex in read_examples(d))]


@pytest.mark.parametrize("doc", DOCS_WITH_EXAMPLES)
def test_doc_examples_run_and_print_what_is_shown(doc: str):
    """Each example of the file exits 0 and prints the output the file shows under it."""
    failures = run_doc(doc, slow=False)
    assert not failures, "\n\n".join(failures)


@pytest.mark.slow
@pytest.mark.parametrize("doc", [d for d in DOCS_WITH_EXAMPLES if any(ex.slow for ex in read_examples(d))])
def test_slow_doc_examples_run(doc: str):
    """The long examples (a 21 x 21 sweep, a boundary curve) run too."""
    failures = run_doc(doc, slow=True)
    assert not failures, "\n\n".join(failures)


def test_examples_are_found_where_the_docs_show_commands():
    """The reader finds the README's headline prove command and its shown output."""
    ex = [e for e in read_examples("README.md") if e.code.startswith("certify prove corpus/")]
    assert ex and ex[0].shown[0].startswith("network: ")


def test_a_changed_number_does_not_match():
    """A shown line with a number the run does not print fails the comparison (times are the only free part)."""
    assert output_matches(["bound 10211 (0.01s)"], ["bound   10211 (0.25s)"])
    assert not output_matches(["bound 2208 (0.01s)"], ["bound 10211 (0.01s)"])


def test_pinned_numbers_in_prose_are_the_run_s(tmp_path):
    """The claims the guides quote for the getting-started certificate (delta, the exceptional set) are the run's."""
    import json
    import re

    import certify
    from tests.docs_examples import ROOT

    net = certify.load(ROOT / "corpus" / "public" / "ce-tie-expB-g0.50.json")
    certify.prove(net, out=tmp_path / "ce.cert.json", simulate=False)
    claims = json.loads((tmp_path / "ce.cert.json").read_text())["claims"]
    shown = re.search(r"has the claims\s+`(\{.*?\})`", (ROOT / "docs" / "guide" / "certificates.md").read_text(), re.S)
    assert shown and json.loads(shown.group(1)) == claims
    bound, delta = claims["exceptional_set"]["bound"], claims["delta"]
    semantics = (ROOT / "docs" / "guide" / "semantics.md").read_text()
    assert f"delta = {delta}" in semantics and f"bound = {bound}" in semantics and f"|x|_1 < {bound}" in semantics
    assert f"|x|_1 >= {bound}" in (ROOT / "docs" / "getting-started.md").read_text()


def _models_rows() -> list[tuple[str, str]]:
    import re

    from tests.docs_examples import ROOT

    rows = []
    for line in (ROOT / "models" / "README.md").read_text().splitlines():
        m = re.match(r"^\| `([^`]+)` \|", line)
        if m:
            rows.append((m.group(1), line.split("|")[-2].strip().removesuffix(" — see note")))
    return rows


@pytest.mark.parametrize(("name", "shown"), _models_rows(), ids=[r[0] for r in _models_rows()])
def test_models_readme_says_what_prove_reports(name: str, shown: str):
    """models/README.md's last column is the verdict, method and delta that prove reports for the file."""
    from tests.docs_examples import ROOT, models_report

    assert shown == models_report(ROOT / "models" / name)
