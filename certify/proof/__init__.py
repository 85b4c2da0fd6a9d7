"""The JSQ prover: the pipeline of :func:`certify.prove` (:mod:`.pipeline`)."""
