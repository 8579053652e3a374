"""``python -m benchuq ...``: the same as the ``benchuq`` command."""

import sys

from benchuq.cli.main import main

sys.exit(main())
