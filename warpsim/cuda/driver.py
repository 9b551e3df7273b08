"""The simulated device, its context, streams and events for `warpsim.cuda`
(Numba's host API), and CuPy's `cupy.cuda` names (Device, runtime,
get_current_stream, get_elapsed_time); warpsim.cuda re-exports them.

There is one device (id 0, compute capability DEFAULT_CC) and one context;
launches run to completion in order, so streams and synchronization have
nothing to wait for and events time the simulation on the host's clock.
"""

from __future__ import annotations

import contextlib
import time
from collections import namedtuple

from .. import api
from ..frontends.numba import DEFAULT_CC

MemoryInfo = namedtuple("MemoryInfo", "free total")


class SimulatedDevice:
    """What numba.cuda.get_current_device() returns, for the simulated GPU (H100-like, sm_90)."""

    id = 0
    compute_capability = DEFAULT_CC
    uuid = "GPU-00000000-0000-0000-0000-000000000000"
    ATTRIBUTES = {
        "MAX_THREADS_PER_BLOCK": 1024, "MAX_BLOCK_DIM_X": 1024, "MAX_BLOCK_DIM_Y": 1024,
        "MAX_BLOCK_DIM_Z": 64, "MAX_GRID_DIM_X": 2 ** 31 - 1, "MAX_GRID_DIM_Y": 65535,
        "MAX_GRID_DIM_Z": 65535, "MAX_SHARED_MEMORY_PER_BLOCK": 48 * 1024,
        "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 227 * 1024, "TOTAL_CONSTANT_MEMORY": 64 * 1024,
        "WARP_SIZE": 32, "MAX_REGISTERS_PER_BLOCK": 65536, "MULTIPROCESSOR_COUNT": 132,
        "MAX_THREADS_PER_MULTI_PROCESSOR": 2048, "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": 228 * 1024,
        "COMPUTE_CAPABILITY_MAJOR": DEFAULT_CC[0], "COMPUTE_CAPABILITY_MINOR": DEFAULT_CC[1],
        "CLOCK_RATE": 1_980_000, "MEMORY_CLOCK_RATE": 2_619_000, "GLOBAL_MEMORY_BUS_WIDTH": 5120,
        "L2_CACHE_SIZE": 50 * 1024 * 1024, "ASYNC_ENGINE_COUNT": 1, "CONCURRENT_KERNELS": 1,
        "UNIFIED_ADDRESSING": 1, "CAN_MAP_HOST_MEMORY": 1, "MANAGED_MEMORY": 1,
        "COOPERATIVE_LAUNCH": 1, "ECC_ENABLED": 0, "PCI_BUS_ID": 0, "PCI_DEVICE_ID": 0,
        "PCI_DOMAIN_ID": 0, "INTEGRATED": 0,
    }

    supports_float16 = supports_bfloat16 = supports_fp8 = True

    @property
    def name(self) -> str:
        return f"warpsim simulated GPU (sm_{DEFAULT_CC[0]}{DEFAULT_CC[1]})"

    def __getattr__(self, attribute):
        try:
            return SimulatedDevice.ATTRIBUTES[attribute]
        except KeyError:
            raise AttributeError(f"the simulated device has no attribute {attribute}") from None

    def reset(self) -> None:
        synchronize()

    def get_primary_context(self) -> "Context":
        return current_context()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self) -> str:
        return f"<CUDA device 0 '{self.name}'>"


_DEVICE = SimulatedDevice()


class Context:
    """The one context of the simulated device."""

    device = _DEVICE

    def get_memory_info(self) -> MemoryInfo:
        memory = api.current_device().memory
        total = memory.limit
        return MemoryInfo(total - memory.allocated, total)

    def synchronize(self) -> None:
        synchronize()

    def reset(self) -> None:
        synchronize()

    def get_default_stream(self) -> "Stream":
        return default_stream()

    @contextlib.contextmanager
    def defer_cleanup(self):
        yield

    def __getattr__(self, name):
        raise AttributeError(f"warpsim's simulated CUDA context has no '{name}' (it offers the "
                             "device, memory info, synchronize and reset, not the driver API)")

    def __repr__(self) -> str:
        return "<warpsim CUDA context on the simulated device>"


_CONTEXT = Context()


class Stream:
    """Accepted everywhere Numba or CuPy takes a stream; launches run to completion in order anyway."""

    null: "Stream"

    def __init__(self, handle: int = 0, non_blocking: bool = False, null: bool = False):
        self.handle = handle

    def use(self) -> "Stream":
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass

    def synchronize(self) -> None:
        pass

    @contextlib.contextmanager
    def auto_synchronize(self):
        yield self

    def add_callback(self, callback, arg=None) -> None:
        callback(self, None, arg)

    def __int__(self) -> int:
        return self.handle

    def __repr__(self) -> str:
        return "<warpsim CUDA stream (launches run in order)>"


class Event:
    """Records the host clock: elapsed_time is the simulation's wall time in milliseconds."""

    def __init__(self, timing: bool = True):
        self.timing, self.time = timing, None

    def record(self, stream=0) -> None:
        self.time = time.perf_counter()

    def synchronize(self) -> None:
        pass

    def wait(self, stream=0) -> None:
        pass

    def query(self) -> bool:
        return True

    def elapsed_time(self, evtend: "Event") -> float:
        return event_elapsed_time(self, evtend)


Stream.null = Stream()


# --- CuPy's cupy.cuda names (`import warpsim as cp; cp.cuda.Device().synchronize()`) ---

class Device:
    """CuPy's `cupy.cuda.Device`: the one simulated device, id 0."""

    def __init__(self, device: int = 0):
        if int(device) != 0:
            raise ValueError(f"warpsim simulates one device (id 0), not {device}")
        self.id = 0

    compute_capability = property(lambda self: "90")

    def synchronize(self) -> None:
        pass

    def use(self) -> "Device":
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass

    def __int__(self) -> int:
        return 0


def get_current_stream() -> Stream:
    return Stream.null


def get_elapsed_time(start: Event, end: Event) -> float:
    """Milliseconds between two recorded events (host time spent simulating)."""
    return event_elapsed_time(start, end)


class _Runtime:
    """CuPy's `cupy.cuda.runtime`: the calls scripts make around kernels."""

    @staticmethod
    def deviceSynchronize() -> None:
        pass

    @staticmethod
    def getDeviceCount() -> int:
        return 1

    @staticmethod
    def getDevice() -> int:
        return 0

    @staticmethod
    def getDeviceProperties(device: int = 0) -> dict:
        d = _DEVICE
        return {"name": d.name.encode() if isinstance(d.name, str) else d.name,
                "major": 9, "minor": 0, "multiProcessorCount": d.MULTIPROCESSOR_COUNT,
                "maxThreadsPerBlock": 1024, "warpSize": 32, "sharedMemPerBlock": 48 * 1024,
                "regsPerBlock": 65536, "totalGlobalMem": 80 * 2**30}


runtime = _Runtime()


class _Gpus:
    """`cuda.gpus`: the one simulated device."""

    current = property(lambda self: _DEVICE)

    def __getitem__(self, index: int):
        if index != 0:
            raise IndexError(f"device {index} does not exist: warpsim simulates one GPU")
        return _DEVICE

    def __len__(self) -> int:
        return 1

    def __iter__(self):
        return iter([_DEVICE])


gpus = _Gpus()


def synchronize() -> None:
    """Launches finish before they return, so there is never anything to wait for."""


def is_available() -> bool:
    return True


def is_supported_version() -> bool:
    return True


def cuda_error():
    return None


def is_float16_supported() -> bool:
    return True


def is_bfloat16_supported() -> bool:
    return True


def detect() -> bool:
    print("Found 1 CUDA devices (simulated by warpsim)")
    print(f"id 0    {_DEVICE.name}                              [SUPPORTED]")
    print(f"                      Compute Capability: {DEFAULT_CC[0]}.{DEFAULT_CC[1]}")
    print("Summary:\n\t1/1 devices are supported")
    return True


def get_current_device() -> SimulatedDevice:
    return _DEVICE


def list_devices() -> list:
    return [_DEVICE]


def select_device(device_id: int) -> SimulatedDevice:
    return gpus[device_id]


def close() -> None:
    pass


def current_context(devnum=None) -> Context:
    return _CONTEXT


@contextlib.contextmanager
def defer_cleanup():
    yield


def stream() -> Stream:
    return Stream()


default_stream = legacy_default_stream = per_thread_default_stream = stream


def external_stream(ptr) -> Stream:
    return Stream(int(ptr))


def event(timing: bool = True) -> Event:
    return Event(timing)


def event_elapsed_time(evtstart: Event, evtend: Event) -> float:
    if evtstart.time is None or evtend.time is None:
        raise RuntimeError("both events must be recorded before elapsed_time")
    return (evtend.time - evtstart.time) * 1000.0


def profile_start() -> None:
    pass


def profile_stop() -> None:
    pass


@contextlib.contextmanager
def profiling():
    yield
