"""`import cupyx` in a Python process that a program under `warpsim run` started: warpsim's cupyx.

As child_imports/cupy: the import puts warpsim's CuPy modules (cupyx's among
them) in sys.modules, and gives warpsim.api.cupyx.
"""

from warpsim.cli.run import install_cupy_modules

install_cupy_modules()
