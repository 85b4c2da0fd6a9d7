"""Reading and writing networks: the file formats and networkx graphs.

From the bottom up: :mod:`.context` (where a refusal points, how values are
shown), :mod:`.number_fields` (exact numbers and their rules),
:mod:`.fields` (maps, lists, integers, station sets, ``expected``),
:mod:`.distributions` (service and interarrival laws, phase-type rules),
:mod:`.jsq_schema` and :mod:`.forkjoin_schema` (the two formats),
:mod:`.loader` (text and files: ``load``, ``loads``, ``from_dict``,
``to_dict``, ``dump``) and :mod:`.graph` (networkx routing graphs).
"""

__all__: list[str] = []
