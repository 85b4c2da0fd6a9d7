"""``python -m certify.cli``: the command line (same as the ``certify`` script and ``python -m certify``)."""

import sys

from . import main

__all__: list[str] = []

sys.exit(main())
