"""The numeric searches (LP, SDP, fluid, instability): the only layer that imports numpy or a solver."""
