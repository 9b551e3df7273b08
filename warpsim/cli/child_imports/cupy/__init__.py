"""`import cupy` in a Python process that a program under `warpsim run` started: warpsim's CuPy.

`warpsim run` puts this folder's parent first on PYTHONPATH for the program's
child processes, so a script it runs with `subprocess` meets the same cupy.
This module puts warpsim's CuPy modules in its place (sys.modules), and the
import gives them.
"""

from warpsim.cli.run import install_cupy_modules

install_cupy_modules()
