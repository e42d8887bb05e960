"""``python -m fakeapi serve``: the same as the ``fakeapi`` console script."""

import sys

from fakeapi.cli import main

sys.exit(main())
