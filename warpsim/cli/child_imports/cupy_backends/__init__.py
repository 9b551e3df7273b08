"""`import cupy_backends` in a child of a `warpsim run` program: warpsim's stand-ins (see ../cupy)."""

from warpsim.cli.run import install_cupy_modules

install_cupy_modules()
