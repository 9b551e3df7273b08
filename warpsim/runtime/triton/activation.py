"""Making the warpsim backend Triton's active driver for a program `warpsim run` runs."""

from __future__ import annotations

import contextlib
import os
import sys

from . import BACKEND_NAME, ENV_SWITCH


@contextlib.contextmanager
def triton_on_warpsim():
    """Inside the block, Triton's active driver is warpsim's (Triton chooses it on first use).

    Sets WARPSIM_TRITON=1 and TRITON_DEFAULT_BACKEND=warpsim (which also wins over an NVIDIA
    driver a GPU machine has); where Triton already made a driver in this process, it is put
    aside for the block and put back after it, as are the environment, Triton's do_bench and
    argument binding (host_arrays.py), torch's CUDA surface and tensors on "cuda" (torch_device.py,
    cuda_tensors.py).
    """
    saved_env = {name: os.environ.get(name) for name in (ENV_SWITCH, "TRITON_DEFAULT_BACKEND")}
    os.environ[ENV_SWITCH] = "1"
    os.environ["TRITON_DEFAULT_BACKEND"] = BACKEND_NAME
    config = _driver_config()
    saved_driver = (config._default, config._active) if config is not None else None
    if config is not None:                      # private fields: DriverConfig makes them lazily
        config._default = config._active = None
    from .bench import install_on_import
    install_on_import()                         # Triton already imported (a second run in this process)
    from . import torch_device
    torch_device.install_on_import()            # torch on "cuda" from the script's first tensor
    try:
        yield
    finally:
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        config = _driver_config()
        if config is not None:
            config._default, config._active = saved_driver or (None, None)
        from .bench import uninstall
        uninstall()
        if "triton.runtime.jit" in sys.modules:
            from . import host_arrays
            host_arrays.uninstall()
        from . import taken_addresses, torch_device
        torch_device.uninstall()
        taken_addresses.uninstall()


def _driver_config():
    """Triton's DriverConfig when triton is imported (None otherwise: nothing to put aside)."""
    module = sys.modules.get("triton.runtime.driver")
    return getattr(module, "driver", None) if module is not None else None
