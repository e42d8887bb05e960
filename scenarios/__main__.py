"""``python -m scenarios``: see :mod:`scenarios.cli`."""

import sys

from scenarios import main

sys.exit(main())
