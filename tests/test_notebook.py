"""The example notebook runs top to bottom (nbclient), and results render as HTML and Markdown in it."""

from __future__ import annotations

from fractions import Fraction as F
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_example_notebook_executes():
    """examples/notebook_boundary.ipynb runs without an error; the result, boundary, proof, curve and sweep cells render as HTML."""
    nbformat = pytest.importorskip("nbformat", reason="the notebook test needs nbformat (pip install -e '.[test]')")
    nbclient = pytest.importorskip("nbclient", reason="the notebook test needs nbclient (pip install -e '.[test]')")
    pytest.importorskip("ipykernel", reason="the notebook test needs ipykernel (pip install -e '.[test]')")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. MissingIDFieldWarning: every cell has an id
        nb = nbformat.read(ROOT / "examples" / "notebook_boundary.ipynb", as_version=4)
        nbformat.validate(nb)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]
    html = [any("text/html" in o.get("data", {}) for o in c.outputs) for c in code]
    assert html[0] and html[1] and html[2] and html[4] and html[5]  # Result, boundary, steps, the proof, the curve
    shown = "".join(o["data"]["text/html"] for c in code for o in c.outputs if "text/html" in o.get("data", {}))
    assert "stable" in shown and "unstable" in shown and "streams[1].rate" in shown
    assert "Foster" in shown or "fluid" in shown  # the readable proof of the stable end
    assert "3 boundaries along streams[1].rate" in shown


def test_results_render_as_markdown_and_html():
    """Result, SweepResult and BoundaryResult give Markdown and HTML with their verdicts, escaped."""
    import certify

    net = certify.loads('{"format": "jsq-network/1", "name": "a<b", "stations": {"1": {"mu": 1}}, '
                        '"streams": [{"choice": ["1"], "rate": 1}]}')
    res = certify.prove(net, simulate=False)
    assert res._repr_markdown_().startswith("**a\\<b: undecided") and "| stage |" in res._repr_markdown_()
    assert "a&lt;b" in res._repr_html_() and "<b>a<b" not in res._repr_html_()
    b = certify.boundary(net, "load", "0.5", "1.5", tol="0.1")
    assert "stable at load" in b._repr_markdown_() and "<table>" in b._repr_html_()
    sw = certify.sweep(net, [("streams[0].rate", [F(1, 2), F(3, 2)])], workers=1)
    assert "2 points (stable 1, unstable 1)" in sw._repr_markdown_() and "<td>0.5</td>" in sw._repr_html_()


def test_to_pandas_keeps_exact_values():
    """to_pandas() of a sweep and of a boundary keeps the parameter values as exact Fractions."""
    pytest.importorskip("pandas", reason="to_pandas needs pandas (pip install -e '.[notebook]')")
    import certify

    net = certify.loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 1}}, "streams": [{"choice": ["1"], "rate": 1}]}')
    df = certify.sweep(net, [("streams[0].rate", ["1/3", "3/2"])], workers=1).to_pandas()
    assert list(df["streams[0].rate"]) == [F(1, 3), F(3, 2)] and list(df["verdict"]) == ["stable", "unstable"]
    steps = certify.boundary(net, "load", "0.5", "1.5", tol="0.1").to_pandas()
    assert steps["value"].iloc[0] == F(1, 2) and steps["approx"].iloc[0] == 0.5



