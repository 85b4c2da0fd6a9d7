"""``python -m certify``: the command line (same as the ``certify`` script)."""

import sys

from .cli import main

__all__: list[str] = []

sys.exit(main())
