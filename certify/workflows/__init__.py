"""Workflows on top of the prover: sweeps, atlas plots, certificate regression tests and the pytest plugin.

A sweep (:func:`certify.sweep`, :mod:`~certify.workflows.sweep`) is built from
field paths (:mod:`~certify.workflows.paths`), grids
(:mod:`~certify.workflows.vary`), a resumable SQLite results file
(:mod:`~certify.workflows.store`), executors (:mod:`~certify.workflows.executors`)
and its result types (:mod:`~certify.workflows.sweep_result`); its atlas plots
are :mod:`~certify.workflows.atlas`.  Certificate regression tests are
:mod:`~certify.workflows.regression`, and :mod:`~certify.workflows.pytest_plugin`
runs them under pytest.
"""

__all__: list[str] = []
