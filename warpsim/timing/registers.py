"""Registers per thread from the cubin ptxas made: what occupancy is computed from."""

from __future__ import annotations

import struct
from functools import lru_cache


@lru_cache(maxsize=64)
def cubin_registers(cubin: bytes, kernel: str) -> int:
    """Registers per thread of `kernel` in a cubin (ptxas's EIATTR_REGCOUNT); 0 when not found. Kept per
    cubin and kernel: a profiled launch asks each time, and reading the ELF took 17 ms for a module of many
    kernels (a bytes object keeps its hash, so a lookup costs nothing more)."""
    from ..sass.executor.cubin_info import kernel_image
    try:
        return kernel_image(cubin, kernel).registers
    except (struct.error, ValueError, IndexError):      # not an ELF warpsim understands
        return 0


def kernel_registers(loaded_module, kernel: str) -> int:
    """Registers per thread ptxas gave the kernel (32 when the cubin does not say)."""
    from ..sass import sass_of
    return cubin_registers(sass_of(loaded_module).cubin, kernel) or 32
