"""Sphinx configuration for the certify documentation.

Build (no network needed, warnings are errors)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.abspath(".."))

from certify import __version__  # noqa: E402

project = "certify"
author = "the certify developers"
copyright = "the certify developers"
version = release = __version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

# Markdown pages (MyST).
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3

# Docstrings: numpydoc sections; no per-class member tables (autodoc lists members itself).
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "signature"
# A type named in a signature that two modules export (Context in io and explain, RegionDrift in markov.drift and
# markov.jumps, Certificate in core.certificate and core.envelope) links to either: the same object, or both named in
# full in the text. Sphinx warns "more than one target found" for those; nothing else is a python reference warning
# (unresolved ones are silent outside nitpicky mode), so that one category is silenced.
suppress_warnings = ["ref.python"]
autodoc_preserve_defaults = True
# Members inherited from pytest (CertificateItem) keep their pytest docstrings out of these pages.
autodoc_inherit_docstrings = False
autosummary_generate = False

# The example scripts as a gallery; not executed at build time (several run for minutes at full size,
# and the fast modes are run by tests/test_examples.py).
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "examples",
    "filename_pattern": r"^$",
    "plot_gallery": "False",
    "image_scrapers": (),
    "download_all_examples": False,
    "show_memory": False,
    "show_signature": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "copyfile_regex": "",
    "write_computation_times": False,
}

# Offline build: no intersphinx, nothing fetched.
html_theme = "alabaster"
html_title = f"certify {release}"
html_static_path: list[str] = []
html_theme_options = {"description": "exactly checked stability proofs for JSQ networks", "fixed_sidebar": True}
