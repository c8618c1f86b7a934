"""`python -m bench.load`: see `bench/load/__init__.py` and bench/README.md."""

import sys

from bench.load.cli import main

sys.exit(main())
