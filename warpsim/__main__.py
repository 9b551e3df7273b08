"""`python -m warpsim ...` is the `warpsim` command."""

import sys

from .cli import main

sys.exit(main())
