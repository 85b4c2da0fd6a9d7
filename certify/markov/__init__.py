"""The Markov chain of a network: chain, phase-type expansion, regions, cells, drifts and fluid faces."""
