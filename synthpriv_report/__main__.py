"""``python -m synthpriv_report``: the ``synthpriv-report`` command line."""

import sys

from .tools.cli import main

sys.exit(main())
