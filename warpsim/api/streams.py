"""CuPy's streams and events on the simulated device.

Every launch runs to completion, in order, before its call returns, so there
is never work in flight: a stream is a name a program uses (it is exported in
`__cuda_array_interface__`, `with stream:` makes it current), synchronizing
returns at once, and an event records the host's clock, so elapsed times are
the time the simulation took, not the GPU's.
"""

from __future__ import annotations

import contextvars
import itertools
import time

__all__ = ["Stream", "ExternalStream", "Event", "get_current_stream", "get_elapsed_time",
           "get_default_stream_ptr", "LEGACY_DEFAULT_STREAM", "PER_THREAD_DEFAULT_STREAM"]

LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM = 1, 2    # cudaStreamLegacy, cudaStreamPerThread
_handles = itertools.count(0x5000)      # made-up stream handles: distinct, never 0, 1 or 2
_current: contextvars.ContextVar = contextvars.ContextVar("warpsim_stream", default=None)


class Stream:
    """Stream(null=False, non_blocking=False, ptds=False); Stream.null and Stream.ptds exist."""

    null: "Stream"
    ptds: "Stream"

    def __init__(self, null: bool = False, non_blocking: bool = False, ptds: bool = False,
                 priority=None):
        if null and ptds:
            raise ValueError("null and ptds cannot both be True")
        self.ptr = 0 if null else PER_THREAD_DEFAULT_STREAM if ptds else next(_handles)
        self.non_blocking, self.priority = non_blocking, priority or 0
        self._tokens: list = []

    device_id = property(lambda self: 0)
    done = property(lambda self: True)

    @property
    def exported_ptr(self) -> int:
        """The handle `__cuda_array_interface__` gives: 1 for the null (legacy default) stream."""
        return LEGACY_DEFAULT_STREAM if self.ptr == 0 else self.ptr

    def use(self) -> "Stream":
        _current.set(self)
        return self

    def __enter__(self) -> "Stream":
        self._tokens.append(_current.set(self))
        return self

    def __exit__(self, *exc) -> None:
        _current.reset(self._tokens.pop())

    def synchronize(self) -> None:
        """Nothing is ever in flight on the simulator."""

    def record(self, event: "Event | None" = None) -> "Event":
        event = event if event is not None else Event()
        event.record(self)
        return event

    def wait_event(self, event: "Event") -> None:
        pass

    def add_callback(self, callback, arg) -> None:
        callback(self, None, arg)

    def launch_host_func(self, callback, arg) -> None:
        callback(arg)

    def is_capturing(self) -> bool:
        return False

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and other.ptr == self.ptr

    def __hash__(self) -> int:
        return hash(self.ptr)

    def __repr__(self) -> str:
        return f"<Stream 0x{self.ptr:x} (warpsim: launches run in order)>"


class ExternalStream(Stream):
    """A stream handle made elsewhere (ExternalStream(ptr))."""

    def __init__(self, ptr: int, device_id: int = -1):
        super().__init__()
        self.ptr = int(ptr)


Stream.null = Stream(null=True)
Stream.ptds = Stream(ptds=True)


def get_current_stream(device_id: int = -1) -> Stream:
    return _current.get() or Stream.null


def get_default_stream_ptr() -> int:
    """What CuPy exports for the default stream (the legacy one: 1)."""
    return LEGACY_DEFAULT_STREAM


class Event:
    """Event(block=False, disable_timing=False, interprocess=False): records the host clock."""

    def __init__(self, block: bool = False, disable_timing: bool = False, interprocess: bool = False):
        self.block, self.disable_timing, self.interprocess = block, disable_timing, interprocess
        self.time: float | None = None
        self.ptr = next(_handles)

    done = property(lambda self: True)

    def record(self, stream: Stream | None = None) -> None:
        self.time = time.perf_counter()

    def synchronize(self) -> None:
        pass


def get_elapsed_time(start_event: Event, end_event: Event) -> float:
    """Milliseconds between two recorded events: host time spent simulating, not GPU time."""
    for name, event in (("start_event", start_event), ("end_event", end_event)):
        if event.disable_timing:
            raise ValueError(f"{name} was created with disable_timing=True")
        if event.time is None:
            from .cuda_errors import CUDARuntimeError
            raise CUDARuntimeError(f"cudaErrorInvalidResourceHandle: {name} was never recorded")
    return (end_event.time - start_event.time) * 1000.0
