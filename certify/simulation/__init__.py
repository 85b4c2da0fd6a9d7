"""Simulation: event-driven replications of a JSQ network, and the evidence checks built on them.

:func:`~certify.simulation.simulate.simulate` (:mod:`.simulate`, the run driver)
flattens the network into the kernels' tables (:mod:`.tables`), runs the numba
kernels (:mod:`.kernel`) and returns a
:class:`~certify.simulation.result.SimulationResult` (:mod:`.result`);
:mod:`.evidence` classifies the growth of the total queue when every proof
fails.  Simulation is evidence, never a proof.

The package exports nothing itself (``certify.simulate`` and
``certify.SimulationResult`` are the public names); import from the modules.
"""
