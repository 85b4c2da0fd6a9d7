"""Simulation: the numba kernel (:mod:`.kernel`), replications (:mod:`.simulate`) and the evidence checks (:mod:`.evidence`)."""
