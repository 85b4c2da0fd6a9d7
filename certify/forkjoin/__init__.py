"""Fork-join networks with redundancy: exact checks (:mod:`.check`), the numeric search (:mod:`.search`), the prover (:mod:`.prove`)."""
