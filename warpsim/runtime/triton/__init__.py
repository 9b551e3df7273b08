"""warpsim's Triton backend: a Triton script written for a GPU runs unchanged on warpsim.

    warpsim run [--gpu h200] python script.py      # or: WARPSIM_TRITON=1 python script.py

Triton finds backends through the `triton.backends` entry points (a compiler
module and a driver module each); warpsim registers this package as the
backend "warpsim" (pyproject.toml). Its driver is active only under `warpsim
run` (activation.py) or with WARPSIM_TRITON=1, so a user with a GPU keeps the
NVIDIA backend. While active the current target is a "cuda" one, as on an
NVIDIA GPU (scripts' `is_cuda()` and Triton's own TMA lowering test for it),
and `cuda` targets compile with warpsim's compiler (compiler.py). While active:

- compiler.py compiles with Triton's NVIDIA passes for the chosen GPU's arch
  (sm_90 for the H200) up to PTX; the PTX keeps the kernel's Python lines.
- driver.py is the driver: the active torch device is the CPU, launches go
  to launcher.py, which runs the PTX on warpsim's default device with the
  tensors' memory (warpsim.machine.host_ranges) and advances a predicted GPU
  clock (device.py) by each launch's predicted time and launch overhead.
- bench.py is do_bench on that clock: `triton.testing.do_bench` and
  `@triton.autotune` see the predicted times, said so in the output.
- cuda_tensors.py and torch_device.py let a script written for a CUDA GPU
  run as it is: tensors made on "cuda" (or moved there) are CPU tensors the
  kernels address in place, `is_cuda` holds, and torch.cuda answers for the
  simulated GPU (events on the predicted clock).

docs/triton.md says what runs, the versions that work together, and what is
not done yet.
"""

from __future__ import annotations

import os

ENV_SWITCH = "WARPSIM_TRITON"      # 1: the warpsim backend is Triton's active driver
BACKEND_NAME = "warpsim"           # the entry point's name (Triton's backends["warpsim"])
TARGET_BACKEND = "cuda"            # the driver's GPUTarget backend: scripts and Triton test it for "cuda"


def enabled() -> bool:
    """Whether the warpsim backend should be Triton's active driver in this process."""
    return os.environ.get(ENV_SWITCH, "") not in ("", "0")
