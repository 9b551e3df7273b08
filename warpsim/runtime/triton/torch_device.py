"""torch's CUDA surface while the warpsim backend is active: the simulated GPU, on one stream.

Scripts written for a GPU ask torch about the device beside Triton: Triton's
tutorials test `torch.cuda.get_device_capability()[0] >= 9` before using TMA
and size persistent grids by `get_device_properties("cuda").multi_processor_count`;
scripts gate on `torch.cuda.is_available()`, seed with `torch.cuda.manual_seed`,
time with `torch.cuda.Event(enable_timing=True)` and `torch.cuda.synchronize()`,
and print `torch.cuda.max_memory_allocated()`. The CPU build of torch (the one
that installs without a GPU) raises "Torch not compiled with CUDA enabled" for
all of them. While the backend is active (install to uninstall) torch.cuda
answers for the simulated GPU (the chosen preset, device.py):

- queries: is_available (True), device_count (1), current_device (0),
  get_device_capability / properties / name, get_arch_list, is_bf16_supported,
  is_initialized, mem_get_info;
- one stream, as warpsim runs every launch to completion when it returns:
  synchronize, Stream / current_stream / default_stream / set_stream / stream()
  (and `torch.cpu.set_stream`, which tutorial 02 calls on `getattr(torch, DEVICE.type)`),
  device(i) / set_device(i) for cuda:0 (other indexes refused: one GPU),
  is_current_stream_capturing (False), `_sleep(cycles)` (a launch of that
  many SM cycles on the predicted clock);
- Event: `record` reads the predicted clock that do_bench reads (each launch's
  predicted time from a cold L2 plus the launch overhead CUDA events see:
  device.py), so `start.elapsed_time(end)` is what events around those launches
  would read on that GPU; torch operators run on the CPU and add no time, and an
  interval with no Triton launch in it is NaN, said once on stderr (as do_bench);
- seeds and RNG state: the CPU generator, which "cuda" tensors draw from;
- memory: memory_allocated / max_memory_allocated / reserved / memory_stats count
  the tensors torch made while the backend was active (cuda_tensors.memory);
  empty_cache does nothing.

torch.accelerator (torch's device-generic API) answers the same way: its current
accelerator is cuda:0.

Those answers are for callers outside torch (the script, Triton, warpsim). torch's
own code calling the same functions gets the CPU build's answers (_for_scripts),
so its internals stay on their CPU paths: `_get_available_device_type`, the cuDNN
version check, and torch.compile's Inductor, which reads get_device_properties for
its cache key, branch on them.

Tensors "on cuda" (device="cuda", .cuda(), is_cuda) are cuda_tensors.py's. Any
other torch.cuda call that needs the CUDA runtime (NCCL, the caching allocator's
internals) reaches torch.cuda's `_lazy_init` or a `torch._C._cuda*` binding the
CPU build lacks; here both raise CudaNotSimulated naming the call and warpsim
(the binding's as an AttributeError too, so torch's `hasattr` checks still
answer False), not "Torch not compiled with CUDA enabled". CUDA graphs raise it
at once, pointing to do_bench_cudagraph.
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass

from ...errors import WarpsimError
from .device import Event  # noqa: F401  (torch.cuda.Event under the backend)
from .import_hooks import call_after_import, stop_waiting

_ORIGINAL: dict = {}
_SAID: list = []


class CudaNotSimulated(WarpsimError, RuntimeError):
    """A torch.cuda call that needs the CUDA runtime, made under warpsim's Triton backend."""


class CudaBindingMissing(CudaNotSimulated, AttributeError):
    """The same, met as a missing torch._C._cuda* binding (an AttributeError still, so torch's own
    `hasattr(torch._C, "_cuda_...")` checks answer False as before)."""


@dataclass(frozen=True)
class DeviceProperties:
    """torch.cuda.get_device_properties' fields a script reads, for the simulated GPU."""

    name: str
    major: int
    minor: int
    multi_processor_count: int
    total_memory: int
    L2_cache_size: int
    warp_size: int
    max_threads_per_multi_processor: int
    max_threads_per_block: int
    regs_per_multiprocessor: int
    shared_memory_per_block: int
    shared_memory_per_block_optin: int
    shared_memory_per_multiprocessor: int
    is_integrated: bool = False
    is_multi_gpu_board: bool = False


def device_properties(gpu) -> DeviceProperties:
    p = gpu.preset
    major, minor = p.compute_capability
    return DeviceProperties(name=f"{p.full_name} (warpsim)", major=major, minor=minor,
                            multi_processor_count=p.sms, total_memory=p.hbm_bytes, L2_cache_size=p.l2_bytes,
                            warp_size=p.warp_size, max_threads_per_multi_processor=p.max_warps_per_sm * p.warp_size,
                            max_threads_per_block=p.max_threads_per_block, regs_per_multiprocessor=p.registers_per_sm,
                            shared_memory_per_block=48 * 1024, shared_memory_per_block_optin=p.max_shared_per_block,
                            shared_memory_per_multiprocessor=p.max_shared_per_sm)


def _gpu():
    from .device import active_gpu
    return active_gpu()


def _index(device, where: str) -> int:
    """0 for cuda:0 (or no device); TooManyGPUs for another; device objects of other types are 0 too
    (torch.cuda.device(x.device) of a CPU tensor, which is "on cuda" here)."""
    from .cuda_tensors import host_device
    if device is not None:
        host_device(device, where)
    return 0


class Stream:
    """torch.cuda.Stream's surface for warpsim's one stream (every launch has finished when it returns)."""

    cuda_stream = 0
    priority = 0

    def __init__(self, device=None, priority: int = 0, **kwargs):
        _index(device, "torch.cuda.Stream")
        self.device_index = 0

    @property
    def device(self):
        import torch
        return torch.device("cuda", 0)

    def synchronize(self) -> None:
        pass

    def query(self) -> bool:
        return True

    def wait_event(self, event) -> None:
        pass

    def wait_stream(self, stream) -> None:
        pass

    def record_event(self, event=None):
        event = event if event is not None else Event()
        event.record(self)
        return event

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream)

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "<torch.cuda.Stream device=cuda:0 cuda_stream=0x0 (warpsim's one stream)>"


class DeviceContext:
    """torch.cuda.device(i) / device_of(x): cuda:0 is the only device, so entering changes nothing."""

    def __init__(self, device=None):
        self.idx = _index(getattr(device, "device", device) if not isinstance(device, (int, str)) else device,
                          "torch.cuda.device")

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        return False


_STREAM = Stream()


def _memory_stats(device=None) -> dict:
    from .cuda_tensors import memory
    allocated, peak = memory["allocated"], memory["peak"]
    stats = {}
    for kind in ("allocated_bytes", "reserved_bytes", "active_bytes"):
        stats[f"{kind}.all.current"], stats[f"{kind}.all.peak"] = allocated, peak
    return stats


def _cuda_functions(torch) -> dict:
    """name -> what torch.cuda.<name> is for scripts while the backend is active (install keeps the
    original for torch's own callers)."""
    from . import cuda_tensors

    generator = torch.default_generator

    def memory_summary(device=None, abbreviated=False) -> str:
        stats = _memory_stats()
        return (f"warpsim (simulated {_gpu().preset.full_name}): allocated {stats['allocated_bytes.all.current']} "
                f"bytes, peak {stats['allocated_bytes.all.peak']} bytes (torch tensors in host memory)")

    def mem_get_info(device=None) -> tuple:
        total = _gpu().preset.hbm_bytes
        return total - cuda_tensors.memory["allocated"], total

    def set_device(device) -> None:
        _index(device, "torch.cuda.set_device")

    def manual_seed(seed) -> None:
        generator.manual_seed(int(seed))

    def seed() -> None:
        generator.seed()

    def set_rng_state(new_state, device="cuda") -> None:
        generator.set_state(new_state)

    def set_rng_state_all(states) -> None:
        generator.set_state(list(states)[0])

    def get_device_capability(device=None) -> tuple:
        _index(device, "torch.cuda.get_device_capability")
        return tuple(_gpu().preset.compute_capability)

    def get_device_properties(device=None) -> DeviceProperties:
        _index(device, "torch.cuda.get_device_properties")
        return device_properties(_gpu())

    def nothing(*args, **kwargs) -> None:
        """synchronize, init, empty_cache, set_stream: nothing to do on warpsim's one stream."""

    def current_stream(device=None) -> Stream:
        return _STREAM

    def sleep(cycles: int) -> None:
        """torch.cuda._sleep: a kernel that spins for `cycles` SM clocks, on the predicted clock."""
        gpu = _gpu()
        gpu.advance(int(cycles) / (gpu.preset.kernel_clock_mhz * 1e6))

    return {
        "is_available": lambda: True, "device_count": lambda: 1, "is_initialized": lambda: True,
        "current_device": lambda: 0, "set_device": set_device, "init": nothing,
        "get_device_capability": get_device_capability, "get_device_properties": get_device_properties,
        "get_device_name": lambda device=None: get_device_properties(device).name,
        "get_arch_list": lambda: [f"sm_{_gpu().arch}"],
        "is_bf16_supported": lambda including_emulation=True: _gpu().preset.compute_capability[0] >= 8,
        "synchronize": nothing,
        "Event": Event, "Stream": Stream, "current_stream": current_stream, "default_stream": current_stream,
        "set_stream": nothing, "stream": lambda stream: contextlib.nullcontext(stream),
        "device": DeviceContext, "device_of": DeviceContext,
        "manual_seed": manual_seed, "manual_seed_all": manual_seed, "seed": seed, "seed_all": seed,
        "initial_seed": lambda: generator.initial_seed(),
        "get_rng_state": lambda device="cuda": generator.get_state(),
        "get_rng_state_all": lambda: [generator.get_state()],
        "set_rng_state": set_rng_state, "set_rng_state_all": set_rng_state_all,
        "empty_cache": nothing,
        "memory_allocated": lambda device=None: cuda_tensors.memory["allocated"],
        "max_memory_allocated": lambda device=None: cuda_tensors.memory["peak"],
        "memory_reserved": lambda device=None: cuda_tensors.memory["allocated"],
        "max_memory_reserved": lambda device=None: cuda_tensors.memory["peak"],
        "reset_peak_memory_stats": lambda device=None: cuda_tensors.reset_peak(),
        "reset_max_memory_allocated": lambda device=None: cuda_tensors.reset_peak(),
        "reset_accumulated_memory_stats": nothing, "is_current_stream_capturing": lambda: False, "_sleep": sleep,
        "memory_stats": _memory_stats, "memory_summary": memory_summary, "mem_get_info": mem_get_info,
        "CUDAGraph": _no_graphs, "graph": _no_graphs, "make_graphed_callables": _no_graphs,
        "_lazy_init": _not_simulated,
    }


def _accelerator_functions(torch, cuda: dict) -> dict:
    """name -> what torch.accelerator.<name> is while the backend is active: the simulated GPU is the
    current accelerator (a "cuda" device)."""
    same = ("synchronize", "current_stream", "set_stream", "empty_cache", "memory_allocated",
            "max_memory_allocated", "memory_reserved", "max_memory_reserved", "reset_peak_memory_stats",
            "memory_stats")
    return {**{name: cuda[name] for name in same},
            "is_available": cuda["is_available"], "device_count": cuda["device_count"],
            "current_accelerator": lambda check_available=False: torch.device("cuda", 0),
            "current_device_index": cuda["current_device"], "current_device_idx": cuda["current_device"],
            "set_device_index": cuda["set_device"], "set_device_idx": cuda["set_device"],
            "device_index": DeviceContext, "get_memory_info": cuda["mem_get_info"]}


def _not_simulated() -> None:
    """torch.cuda's _lazy_init: every torch.cuda call not answered above that needs the CUDA runtime."""
    raise CudaNotSimulated(_not_simulated_message(sys._getframe(1)))


def _missing_binding(name: str):
    """torch._C's module __getattr__: a torch.cuda function that skips _lazy_init and reaches for a
    CUDA binding the CPU build lacks (torch.cuda.get_allocator_backend, graphs, ...)."""
    if name.startswith("_cuda"):
        raise CudaBindingMissing(_not_simulated_message(sys._getframe(1)) + f" (torch._C.{name})")
    raise AttributeError(f"module 'torch._C' has no attribute '{name}'")


def _no_graphs(*args, **kwargs):
    """torch.cuda.CUDAGraph / graph / make_graphed_callables."""
    raise CudaNotSimulated("torch.cuda's CUDA graphs are not simulated by warpsim's Triton backend; "
                           "triton.testing.do_bench_cudagraph is, on predicted time (docs/triton.md, 'torch on cuda')")


class _NoNvtx:
    """torch.cuda.nvtx's binding (absent from the CPU build): ranges and marks are accepted and dropped."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: 0


def _not_simulated_message(frame) -> str:
    caller = frame.f_code.co_name
    module = frame.f_globals.get("__name__", "torch.cuda")
    what = (f"{module}.{caller}" if module.startswith("torch.cuda") else
            f"a CUDA tensor or context, asked for by {module}.{caller} past warpsim's mapping of 'cuda' "
            "to host memory,")
    return (
        f"{what} needs the CUDA runtime, which warpsim's Triton backend does not simulate: tensors "
        f"on 'cuda' are host memory the simulated {_gpu().preset.full_name} addresses, and torch.cuda answers "
        "only device queries, synchronize, events, streams, seeds and memory statistics (docs/triton.md, "
        "'torch on cuda'). Run this part on a GPU, or leave it out under warpsim.")


def _for_scripts(original, replacement):
    """replacement for callers outside torch (the script, Triton, warpsim); original for torch's own
    code, which expects the CPU build's answers (docs/triton.md says which paths branch on them).
    Classes (Event, Stream, device) and _lazy_init are replaced for every caller."""
    if isinstance(replacement, type) or replacement is _not_simulated:
        return replacement
    from .cuda_tensors import called_from_torch

    def answer(*args, **kwargs):
        return original(*args, **kwargs) if called_from_torch() else replacement(*args, **kwargs)
    answer.__name__, answer.__qualname__ = original.__name__, original.__qualname__
    answer.__doc__ = f"warpsim's Triton backend: {replacement.__doc__ or 'the simulated GPU'} (torch_device.py)"
    return answer


def install() -> None:
    """Make torch's CUDA surface the simulated GPU's (module doc) and tensors on "cuda" host tensors
    (cuda_tensors.py), until uninstall(). Nothing happens before torch is imported (install_on_import)."""
    torch = sys.modules.get("torch")
    if torch is None or _ORIGINAL:
        return
    import torch.accelerator.memory
    import torch.cuda.memory
    import torch.cuda.nvtx
    import torch.cuda.random
    from . import cuda_tensors
    cuda = _cuda_functions(torch)
    for modules, functions in (((torch.cuda, torch.cuda.memory, torch.cuda.random), cuda),
                               ((torch.accelerator, torch.accelerator.memory), _accelerator_functions(torch, cuda))):
        for name, replacement in functions.items():
            for module in modules:          # the submodules import some by name
                if name in vars(module):
                    original = vars(module)[name]
                    _ORIGINAL[(module.__name__, name)] = original
                    setattr(module, name, _for_scripts(original, replacement))
    _ORIGINAL[("torch.cuda.nvtx", "_nvtx")] = torch.cuda.nvtx._nvtx
    torch.cuda.nvtx._nvtx = _NoNvtx()
    if not hasattr(torch.cpu, "set_stream"):
        _ORIGINAL[("torch.cpu", "set_stream")] = None
        torch.cpu.set_stream = lambda stream: None
    if "__getattr__" not in vars(torch._C):
        _ORIGINAL[("torch._C", "__getattr__")] = None
        torch._C.__getattr__ = _missing_binding
    cuda_tensors.install()
    from . import taken_addresses
    taken_addresses.install()


def uninstall() -> None:
    """Put back everything install() changed (and stop waiting for torch's import)."""
    stop_waiting("torch")
    if "torch" not in sys.modules:
        _ORIGINAL.clear()
        return
    for (module, name), original in list(_ORIGINAL.items()):
        target = sys.modules[module]
        if original is None:
            delattr(target, name)
        else:
            setattr(target, name, original)
    _ORIGINAL.clear()
    _SAID.clear()
    from . import cuda_tensors
    cuda_tensors.uninstall()


def install_on_import() -> None:
    """install() now if torch is imported, else as soon as it is (so a script's first
    `torch.randn(n, device="cuda")` works even before Triton makes its driver)."""
    call_after_import("torch", install)
