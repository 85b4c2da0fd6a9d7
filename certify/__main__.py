"""``python -m certify``: the command line (same as the ``certify`` script)."""

import sys

from .cli import main

sys.exit(main())
