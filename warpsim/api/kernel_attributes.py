"""A kernel's attributes as CuPy reports them (RawKernel.attributes, Function.num_regs, ...).

CuPy reads these from the driver (cuFuncGetAttribute) after loading the
cubin. warpsim has no cubin, so each comes from where the driver's figure
comes from: registers and the local frame from ptxas when one is installed
(warpsim.metrics.registers, an estimate from the PTX otherwise), static
shared and const sizes from the module's layout, max threads per block from
the register file (64K registers per SM, allocated per warp in units of 256)
and the kernel's .maxntid. max_dynamic_shared_size_bytes and
preferred_shared_memory_carveout can be set, as in CUDA; a launch asking
for more dynamic shared memory than max_dynamic_shared_size_bytes, or more
threads than max_threads_per_block, is refused as CUDA refuses it
(`check_launch_resources`, used by CuPy's kernels in raw.py and Numba's in
warpsim.cuda.dispatcher).
"""

from __future__ import annotations

import math

from ..errors import CooperativeLaunchTooLarge, InvalidValue, LaunchOutOfResources
from ..metrics.occupancy import co_resident_blocks
from ..metrics.registers import RegisterCount, registers_per_thread

__all__ = ["KernelAttributes"]

REGISTERS_PER_SM = 65536
# 255 registers (the most a thread has) x 256 threads fit the 64K register file: no ptxas needed.
REGISTER_SAFE_THREADS = 256
REGISTER_ALLOCATION_UNIT = 256           # registers, per warp
DEFAULT_DYNAMIC_SHARED_LIMIT = 48 * 1024  # without opting in, static + dynamic <= 48 KB
MAX_SHARED_PER_BLOCK = 227 * 1024         # an H100/H200 block's most, opted in


def _ptx_version(module) -> int:
    """The PTX version a kernel was compiled from; a cubin without PTX reports its target's, as
    cuFuncGetAttribute's PTX version for a cubin built for sm_90 is 90."""
    version = getattr(module, "version", None)
    if version is None:
        return _binary_version(module)
    major, _, minor = str(version).partition(".")
    return int(major or 0) * 10 + int(minor or 0)


def _binary_version(module) -> int:
    for target in module.target or ():
        if str(target).startswith("sm_"):
            return int("".join(ch for ch in str(target)[3:] if ch.isdigit()))
    return 90


class KernelAttributes:
    """Mixin: attributes of the kernel `self._attribute_kernel()` returns (loaded module, name)."""

    _settable = ("max_dynamic_shared_size_bytes", "preferred_shared_memory_carveout")
    # How the error for too much dynamic shared memory tells the user to opt in.
    _opt_in_example = "kernel.max_dynamic_shared_size_bytes = {size}"

    def _attribute_kernel(self):
        raise NotImplementedError

    def _attribute_store(self) -> dict:
        store = self.__dict__.setdefault("_set_attributes", {})
        return store

    def _registers(self):
        loaded, name = self._attribute_kernel()
        from_cubin = getattr(loaded, "cubin_registers", None)      # a module of SASS alone: no PTX to count
        if from_cubin is not None:
            return RegisterCount(from_cubin(name), "ptxas", "the cubin's register count (EIATTR_REGCOUNT)")
        return registers_per_thread(loaded.module, name)

    @property
    def num_regs(self) -> int:
        return self._registers().registers

    @property
    def local_size_bytes(self) -> int:
        count = self._registers()
        if not count.is_estimate:
            return count.stack_frame
        loaded, _ = self._attribute_kernel()
        return loaded.program.layout.local_size

    @property
    def shared_size_bytes(self) -> int:
        loaded, name = self._attribute_kernel()
        program = getattr(loaded, "program", None)      # a stand-in module (tests) may have none
        return program.kernel_static_shared.get(name, 0) if program is not None else 0

    @property
    def const_size_bytes(self) -> int:
        loaded, _ = self._attribute_kernel()
        return sum(v.size for v in loaded.module.variables.values() if v.space == "const")

    @property
    def max_threads_per_block(self) -> int:
        loaded, name = self._attribute_kernel()
        threads = self._register_file_threads()
        limit = loaded.module.functions[name].directives.get("maxntid")
        if limit:
            threads = min(threads, math.prod(limit))
        return threads

    def _register_file_threads(self) -> int:
        """The most threads a block can have before its registers overflow the SM's 64K."""
        per_warp = math.ceil(max(self.num_regs, 1) * 32 / REGISTER_ALLOCATION_UNIT) * REGISTER_ALLOCATION_UNIT
        return min(1024, REGISTERS_PER_SM // per_warp * 32)

    @property
    def ptx_version(self) -> int:
        return _ptx_version(self._attribute_kernel()[0].module)

    @property
    def binary_version(self) -> int:
        return _binary_version(self._attribute_kernel()[0].module)

    @property
    def cache_mode_ca(self) -> int:
        return 0

    @property
    def max_dynamic_shared_size_bytes(self) -> int:
        limit = self._attribute_store().get("max_dynamic_shared_size_bytes")
        return DEFAULT_DYNAMIC_SHARED_LIMIT - self.shared_size_bytes if limit is None else limit

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, value: int) -> None:
        value = int(value)
        if not 0 <= value <= MAX_SHARED_PER_BLOCK - self.shared_size_bytes:
            raise InvalidValue(f"max_dynamic_shared_size_bytes = {value}; with "
                               f"{self.shared_size_bytes} bytes of static shared memory a block can "
                               f"have 0 to {MAX_SHARED_PER_BLOCK - self.shared_size_bytes}",
                               kernel=self._attribute_kernel()[1])
        self._attribute_store()["max_dynamic_shared_size_bytes"] = value

    @property
    def preferred_shared_memory_carveout(self) -> int:
        return self._attribute_store().get("preferred_shared_memory_carveout", -1)

    @preferred_shared_memory_carveout.setter
    def preferred_shared_memory_carveout(self, value: int) -> None:
        self._attribute_store()["preferred_shared_memory_carveout"] = int(value)

    def check_launch_resources(self, block, shared_mem: int) -> None:
        """Refuse what the GPU refuses: dynamic shared memory past the kernel's limit (48 KB
        with the static part unless opted in; InvalidValue) and blocks the register file cannot
        hold (registers per thread from ptxas x threads > 65536; LaunchOutOfResources). A
        block past .maxntid is the launch's to refuse (InvalidValue, as the H200's driver does)."""
        if shared_mem < 0:
            raise InvalidValue(f"shared_mem = {shared_mem} bytes is negative", kernel=self._attribute_kernel()[1])
        # With no dynamic shared memory only a static part past 48 KB can be refused (a limit that
        # was set is at least 0): a launch loop's usual case asks for the limit no further.
        limit = self.max_dynamic_shared_size_bytes \
            if shared_mem or self.shared_size_bytes > DEFAULT_DYNAMIC_SHARED_LIMIT else 0
        if shared_mem > limit:
            kernel = self._attribute_kernel()[1]
            raise InvalidValue(
                f"{shared_mem} bytes of dynamic shared memory exceed the kernel's "
                f"max_dynamic_shared_size_bytes ({limit}); above 48 KB of static and dynamic shared "
                f"memory a kernel must opt in first: {self._opt_in_example.format(size=shared_mem)} "
                f"(CUDA's cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, ...))",
                kernel=kernel)
        threads = block[0] * block[1] * block[2]
        if threads <= REGISTER_SAFE_THREADS:
            return
        count = self._registers()
        loaded, kernel = self._attribute_kernel()
        maxntid = loaded.module.functions[kernel].directives.get("maxntid")
        if maxntid and threads > math.prod(maxntid):
            return
        if not count.is_estimate and threads > self._register_file_threads():
            raise LaunchOutOfResources(
                f"too many resources requested for launch: a block of {threads} threads at "
                f"{count.registers} registers each (ptxas) needs more than the 65536 registers of an "
                f"SM; at most {self._register_file_threads()} threads", kernel=kernel)

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize: int = 0) -> int:
        """The most blocks of `blockdim` threads a cooperative launch (grid-wide sync) may have:
        blocks per SM by occupancy times the SMs of the GPU preset (settings gpu, default the
        H200), as Numba's kernel method of this name answers for the GPU."""
        from ..machine.device import launch_dimensions
        from ..settings import current
        from ..timing.presets import gpu_preset
        loaded, name = self._attribute_kernel()
        preset = gpu_preset(current().gpu or "h200")
        major, minor = preset.compute_capability
        block = launch_dimensions(blockdim, "block", name)
        shared = loaded.program.kernel_static_shared.get(name, 0) + dynsmemsize
        return co_resident_blocks(block[0] * block[1] * block[2], self._registers().registers, shared,
                                  f"sm_{major}{minor}", preset.sms)

    def check_co_resident(self, grid, block, shared_mem: int) -> None:
        """A cooperative launch must fit on the GPU at once: refuse, as the driver does, a grid
        of more blocks than max_cooperative_grid_blocks."""
        from ..machine.device import launch_dimensions
        from ..settings import current
        from ..timing.presets import gpu_preset
        name = self._attribute_kernel()[1]
        limit = self.max_cooperative_grid_blocks(block, shared_mem)
        grid = launch_dimensions(grid, "grid", name)
        blocks = grid[0] * grid[1] * grid[2]
        if blocks > limit:
            preset = gpu_preset(current().gpu or "h200")
            raise CooperativeLaunchTooLarge(
                f"a cooperative launch of {blocks} blocks, more than the {limit} that can be resident "
                f"at once on {preset.sms} SMs of the {preset.full_name}", kernel=name)

    @property
    def attributes(self) -> dict:
        """Every attribute by the name CuPy's RawKernel.attributes uses."""
        names = ("binary_version", "cache_mode_ca", "const_size_bytes", "local_size_bytes",
                 "max_dynamic_shared_size_bytes", "max_threads_per_block", "num_regs",
                 "preferred_shared_memory_carveout", "ptx_version", "shared_size_bytes")
        return {name: getattr(self, name) for name in names}
