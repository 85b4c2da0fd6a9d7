"""Fork-join networks with redundancy (``fork-join-redundancy/1``), the vertical that mirrors the JSQ one.

* :mod:`.capacity` — the rates, the throughput capacity theta and the theorem it decides;
* :mod:`.lags` — the chain: its state space, its jumps, the regions and cells of lag levels;
* :mod:`.checks` — the exact checks of the three certificate kinds, and their facts;
* :mod:`.search` — the numeric search for a Lyapunov table (numpy and a solver);
* :mod:`.prove` — the prover: capacity bound, the (k,k) quadratic, then the table search.

The certificate files of the fork-join kinds are read and written by
:mod:`certify.certificates.kinds` (the ``fork_join_*`` modules).
"""

__all__: list[str] = []
