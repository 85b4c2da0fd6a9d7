"""Exact stationary analysis of finite and truncated networks.

:func:`stationary` (:mod:`.solve`) builds the network's generator
(:mod:`.generator`), truncated where a station has no capacity, solves
``pi Q = 0`` and returns a :class:`StationaryResult` (:mod:`.result`); the
closed forms it is checked against live in :mod:`.closed_forms`, the tail decay
of the minimum queue of parallel JSQ in :mod:`.qbd` (its sparse numerics at scale
in :mod:`.caudal`).

>>> import certify
>>> from certify.stationary import stationary
>>> net = certify.loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 2, "capacity": 1}}, '
...     '"streams": [{"choice": ["1"], "rate": 1}]}')
>>> round(stationary(net).blocking_probability, 12)
0.333333333333
"""

from .closed_forms import jsq_tail_theorem, loss2_blocking, parallel_jsq, symmetric_loss2
from .qbd import MinQueueDecay, caudal_root, min_queue_decay, qbd_blocks, rate_matrix
from .result import StationaryResult, TruncationError
from .solve import default_truncation, stationary

__all__ = [
    "StationaryResult",
    "TruncationError",
    "stationary",
    "default_truncation",
    "loss2_blocking",
    "symmetric_loss2",
    "parallel_jsq",
    "jsq_tail_theorem",
    "qbd_blocks",
    "rate_matrix",
    "caudal_root",
    "min_queue_decay",
    "MinQueueDecay",
]
