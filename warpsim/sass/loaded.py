"""A cubin with only SASS (no PTX), loaded on a device and launched on the SASS executor.

warpsim runs PTX for results wherever it has PTX. A cubin built without
`-lineinfo` (`nvcc -cubin`, `ptxas k.ptx -o k.cubin`) or a program's
fatbinary holding only `code=sm_90` carries no PTX at all: its kernels run on
the SASS executor (warpsim.sass.executor), directly on the device's heap, and
that run's results are the launch's results.

SassOnlyModule stands where a machine.device.LoadedModule stands (kernel_names,
params, global_address, launch, and the `module`/`program` facts callers read:
each kernel's static shared memory, local memory size, register count). What
the cubin says replaces what the PTX would: the parameters' offsets and sizes
come from .nv.info's KPARAM_INFO (their names are `param_<ordinal>`, their types
unknown); `__device__` variables (.nv.global, .nv.global.init) and
`__constant__` ones (.nv.constant3) are allocated on the heap with the
cubin's initial bytes, and a launch reads the constants' current bytes into
bank 3 and gives the variables' addresses to the slots the driver relocates.

What it does not have, because it needs a PTX run: the sanitizer's checks, and
observers of PTX events (the profiler's PTX counters). A kernel whose SASS uses
an opcode the executor lacks is refused when it is first asked for (get_function,
a launch), naming the opcode and the kernel.
"""

from __future__ import annotations

import operator
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..errors import (
    BudgetExceeded,
    DeadlockError,
    IllegalInstruction,
    InvalidValue,
    MemoryFault,
    TrapError,
    WarpsimError,
)
from ..machine import cooperative as cooperative_launch
from ..machine.device import MAX_SHARED_PER_BLOCK, LaunchResult, launch_dimensions
from ..sessions import report_unwatched_fault
from ..settings import current as current_settings
from .elf import sections as elf_sections
from .elf import symbols as elf_symbols

GLOBAL_SECTIONS = (".nv.global", ".nv.global.init")
CONSTANT_SECTION = ".nv.constant3"          # the module's __constant__ variables (bank 3)
ZERO_FILLED = ".nv.global"                  # NOBITS: no bytes in the file


class SassOnlyError(WarpsimError):
    """A SASS-only kernel warpsim cannot run (an opcode the executor lacks), or a feature that
    needs a PTX run asked of SASS-only code."""


@dataclass
class SassOnlyKernel:
    """The facts callers read from a PTX kernel (.directives, .kind), for a SASS-only one."""
    name: str
    kind: str = "entry"
    has_body: bool = True
    directives: dict = field(default_factory=dict)   # no .maxntid/.reqntid: SASS does not say
    params: list = field(default_factory=list)


@dataclass
class SassOnlyFacts:
    """`loaded.module` of a SASS-only module: no PTX text, its kernels, its target."""
    functions: dict
    target: tuple
    variables: dict = field(default_factory=dict)
    kernels: list = field(default_factory=list)
    text: str = ""


@dataclass
class _Layout:
    local_size: int = 0


@dataclass
class SassOnlyProgram:
    """`loaded.program` of a SASS-only module: shared and local sizes, global addresses."""
    kernel_static_shared: dict
    layout: _Layout
    global_addresses: dict = field(default_factory=dict)
    sources: dict = field(default_factory=dict)


class SassOnlyModule:
    """A cubin without PTX placed on a device: variables allocated, kernels run on the SASS executor."""

    sass_only = True

    def __init__(self, device, cubin: bytes, name: str = "<cubin>"):
        from . import sass_for_cubin
        from .executor.cubin_info import kernel_image
        self.device, self.name, self.cubin = device, name, bytes(cubin)
        self.sass_module = sass_for_cubin(self.cubin)
        self.arch = self.sass_module.arch or "sm_90"
        if not self.sass_module.kernel_names:
            raise SassOnlyError(f"{name}: the cubin has no kernels")
        self.images = {kernel: kernel_image(self.cubin, kernel, self.arch)
                       for kernel in self.sass_module.kernel_names}
        functions = {kernel: SassOnlyKernel(kernel) for kernel in self.images}
        self.module = SassOnlyFacts(functions, (self.arch,), kernels=list(functions.values()))
        self.program = SassOnlyProgram(
            {kernel: image.static_shared for kernel, image in self.images.items()},
            _Layout(max((image.stack_bytes for image in self.images.values()), default=0)))
        self.sources = self.program.sources
        self._constants: dict = {}              # __constant__ name -> size (read at each launch)
        with device.lock:
            self._allocate_variables()

    # ------------------------------------------------------------ what callers ask

    @property
    def kernel_names(self) -> list:
        return list(self.images)

    def params(self, kernel: str) -> list:
        """(name, offset, size, align, type) of each parameter, from KPARAM_INFO (type unknown: '')."""
        image = self._image(kernel)
        self.executor_program(kernel)           # an opcode the executor lacks: refused here, named
        return [(f"param_{ordinal}", offset, size, _alignment(offset, size), "")
                for ordinal, offset, size in image.params]

    def global_address(self, name: str) -> int:
        try:
            return self.program.global_addresses[name]
        except KeyError:
            raise KeyError(f"module '{self.name}' has no __device__/__constant__ variable '{name}'") from None

    def reads_grid_workspace(self, kernel: str) -> bool:
        """Whether the kernel, or a device function ptxas kept apart, reads the words a grid sync
        finds the grid workspace in (%envreg1/2: c[0x0][0x44] and c[0x0][0x48])."""
        from .executor.launch import ENVREG1, ENVREG2
        words = (f"c[0x0][0x{ENVREG1:x}]", f"c[0x0][0x{ENVREG2:x}]")
        functions = [f for f in self.sass_module.functions.values() if f.name == kernel or not f.entry]
        return any(word in ins.text for f in functions for ins in f.instructions for word in words)

    def cubin_registers(self, kernel: str) -> int:
        """Registers per thread of the kernel, as ptxas recorded them in the cubin (EIATTR_REGCOUNT)."""
        return self._image(kernel).registers

    def executor_program(self, kernel: str):
        """(SassProgram, KernelImage) of the kernel; SassOnlyError naming the opcodes it lacks."""
        from .executor import SassUnsupported, load_program
        self._image(kernel)
        try:
            return load_program(self.sass_module, kernel)
        except SassUnsupported as exc:
            raise SassOnlyError(f"{self.name}: kernel '{kernel}' has only SASS ({self.arch}, no PTX), and "
                                f"{exc}; rebuild it with PTX (nvcc -gencode arch=compute_90,code=compute_90, "
                                "or ptxas -lineinfo for a cubin) so warpsim runs the PTX") from None

    def _image(self, kernel: str):
        image = self.images.get(kernel)
        if image is None:
            raise WarpsimError(f"module '{self.name}' has no kernel '{kernel}' "
                               f"(kernels: {', '.join(self.kernel_names) or 'none'})")
        return image

    # ------------------------------------------------------------ variables

    def _allocate_variables(self) -> None:
        """Every __device__ and __constant__ variable on the heap, with the cubin's initial bytes."""
        memory = self.device.memory
        section_list = elf_sections(self.cubin)
        for name, section_index, offset, size in elf_symbols(self.cubin, section_list):
            if not name or not 0 < section_index < len(section_list) or size <= 0:
                continue
            section, file_offset, section_size = section_list[section_index]
            if section not in GLOBAL_SECTIONS + (CONSTANT_SECTION,) or name in self.program.global_addresses:
                continue
            address = memory.allocate(size, 16, initialized=True)
            memory.memset(address, 0, size)
            if section != ZERO_FILLED:
                initial = self.cubin[file_offset + offset:file_offset + min(offset + size, section_size)]
                if initial:
                    memory.write_bytes(address, np.frombuffer(initial, dtype=np.uint8))
            self.program.global_addresses[name] = address
            if section == CONSTANT_SECTION:
                self._constants[name] = size

    def _slot_addresses(self, image) -> dict:
        """The addresses the driver relocates into the constant banks: the module's variables, the
        device-runtime functions the executor runs (vprintf: executor/device_calls.py), and 0 for
        any other symbol the module does not define (a kernel that calls it is refused)."""
        from .executor.device_calls import device_function_address
        addresses = dict(self.program.global_addresses)
        for _, _, symbol, _ in image.symbol_slots:
            addresses.setdefault(symbol, device_function_address(symbol))
        return addresses

    def _constant_bytes(self) -> dict:
        memory = self.device.memory
        return {name: memory.read_bytes(self.program.global_addresses[name], size).tobytes()
                for name, size in self._constants.items()}

    # ------------------------------------------------------------ launch

    def launch(self, kernel: str, grid, block, params: bytes, shared_mem: int = 0,
               observers=(), cta_range: tuple | None = None, **overrides) -> LaunchResult:
        """Run the whole grid on the SASS executor, on the device's heap (the launch's results)."""
        from .executor import (
            SassDeadlock,
            SassExecutionError,
            SassFault,
            SassTrap,
            run_launch,
        )
        from .executor.errors import SassIllegalInstruction
        program, image = self.executor_program(kernel)
        if cta_range is not None:
            raise SassOnlyError(f"kernel '{kernel}' has only SASS: a launch in CTA shards needs its PTX")
        grid, block = launch_dimensions(grid, "grid", kernel), launch_dimensions(block, "block", kernel)
        params = bytes(memoryview(params).cast("B"))
        needed = max((offset + size for _, offset, size in image.params), default=0)
        if len(params) < needed:
            raise InvalidValue(f"the parameter buffer has {len(params)} bytes; the kernel's parameters "
                               f"take {needed}", kernel=kernel)
        try:
            dynamic = operator.index(shared_mem)
        except TypeError:
            raise InvalidValue(f"the dynamic shared memory size must be an int number of bytes, got "
                               f"{shared_mem!r}", kernel=kernel) from None
        if dynamic < 0 or image.static_shared + dynamic > MAX_SHARED_PER_BLOCK:
            raise InvalidValue(f"{image.static_shared + dynamic} bytes of shared memory per block (static "
                               f"{image.static_shared}, dynamic {dynamic}): 0 to {MAX_SHARED_PER_BLOCK} "
                               "are possible", kernel=kernel)
        _say_what_is_not_watched(self, kernel)
        settings = current_settings()
        result = LaunchResult(kernel, grid, block, dynamic)
        start = time.perf_counter()
        workspace = cooperative_launch.workspace(self.device) if overrides.get("cooperative") else 0
        with self.device.lock:
            try:
                stats = run_launch(program, image, memory=self.device.memory, grid=grid, block=block,
                                   params=params, shared_bytes=image.static_shared + dynamic,
                                   constants=self._constant_bytes(), addresses=self._slot_addresses(image),
                                   observers=tuple(observers), batch_threads=settings.batch_threads,
                                   max_rounds=overrides.get("max_rounds", settings.max_rounds),
                                   grid_workspace=workspace)
            except SassFault as exc:
                raise _told(MemoryFault(f"{exc} (SASS-only kernel, run on the SASS executor)", kernel=kernel,
                                        block=exc.block, thread=exc.thread, instruction=exc.instruction,
                                        source_line=exc.source_line)) from None
            except SassIllegalInstruction as exc:
                raise _told(IllegalInstruction(f"{exc} (SASS-only kernel, run on the SASS executor)", kernel=kernel,
                                               block=exc.block, thread=exc.thread, instruction=exc.instruction,
                                               source_line=exc.source_line)) from None
            except SassTrap as exc:
                raise _told(TrapError(f"{exc} (SASS-only kernel, run on the SASS executor)", kernel=kernel,
                                      block=exc.block, thread=exc.thread, instruction=exc.instruction,
                                      source_line=exc.source_line)) from None
            except SassDeadlock as exc:
                raise _told(DeadlockError(str(exc), kernel=kernel)) from None
            except SassExecutionError as exc:
                if "ran past" in str(exc):
                    raise _told(BudgetExceeded(str(exc), kernel=kernel)) from None
                raise _told(SassOnlyError(f"kernel '{kernel}' (SASS only): {exc}")) from None
        result.rounds = stats["rounds"]
        result.seconds = time.perf_counter() - start
        return result


def _told(exc):
    """`exc`, once the active sessions have been told of it (no observer of theirs saw this launch)."""
    report_unwatched_fault(exc)
    return exc


UNWATCHED = {"warpsim_checkers": "the sanitizer's checks (warpsim check)",
             "warpsim_profilers": "the profiler's counters and predicted time (warpsim profile)"}


class SassOnlyWarning(UserWarning):
    """A tool is on that needs a PTX run, and a SASS-only kernel ran without it."""


def _say_what_is_not_watched(module, kernel: str) -> None:
    """Once per kernel and module: which active tools do not see this launch, and why."""
    from ..sessions import watching_sessions
    missing = [UNWATCHED[name] for name in watching_sessions() if name in UNWATCHED]
    told = module.__dict__.setdefault("_told", set())
    if not missing or (kernel, tuple(missing)) in told:
        return
    told.add((kernel, tuple(missing)))
    warnings.warn(SassOnlyWarning(
        f"kernel '{kernel}' of {module.name} has only SASS ({module.arch}, no PTX): it ran on the SASS "
        f"executor, and {' and '.join(missing)} need a PTX run, so they do not cover it; rebuild with "
        "PTX (-gencode arch=compute_90,code=compute_90) to have them"), stacklevel=3)


def _alignment(offset: int, size: int) -> int:
    """The largest power of two up to 8 that divides both the offset and the size (ABI alignment)."""
    align = 8
    while align > 1 and (offset % align or size % align):
        align //= 2
    return align


def load_cubin(device, cubin: bytes, name: str = "<cubin>") -> SassOnlyModule:
    """A SASS-only cubin (no PTX) loaded on `device`; its kernels run on the SASS executor."""
    return SassOnlyModule(device, cubin, name)
