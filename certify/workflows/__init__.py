"""Workflows on top of the prover: sweeps, atlas plots, certificate regression tests and the pytest plugin."""
