"""The predicted GPU clock of a program: when each stream's work starts and ends on the chosen GPU.

warpsim runs each call's work when the call is made, so results are those of one stream; this clock
says when a GPU would have done that work, for CUDA events and `warpsim profile --gpu`'s timeline.

- Work on a stream starts once the stream's earlier work has ended, and no earlier than the host
  issued it: `host_ms` is the host thread's place on the GPU clock, moved only by calls that wait
  for the GPU (synchronize calls, synchronous copies).
- The legacy NULL stream (handles 0 and 1) waits for every blocking stream's work, and their later
  work waits for its; streams created with cudaStreamNonBlocking stand apart, as in CUDA.
- Kernels of different streams share the SMs as a fluid: a kernel that keeps a share s of the SMs
  busy for d ms adds s x d to their busy time and ends no earlier than that busy time allows. Kernels
  that fill a few SMs each (a HyperQ program's one-thread kernels on 32 streams) run side by side;
  kernels that fill the GPU run one after another, whatever their streams.
- Copies use a copy engine per direction (HtoD, DtoH, DtoD), each one copy at a time, beside the
  kernels; memsets use the SMs, as the kernels CUDA runs for them do.
- cudaStreamWaitEvent holds a stream's later work until the event's time.
- Streams share the GPU's hardware work queues (CUDA_DEVICE_MAX_CONNECTIONS of them, 8 unless the
  program's environment says, 1 to 32), the k-th stream created on queue k mod their number, and a
  queue starts its work in the order it was issued: work waiting for its own stream holds the work
  of the queue's other streams behind it. An H100 (validation/stream_queues): n streams each given
  a kernel and a second that waits for it, issued stream by stream, take (ceil(n / queues) + 1)
  kernels' time: 32 streams 5x with 8 queues, 9x with 4, 33x with 1, 2x with 32; one kernel a
  stream, 1.0-1.2x whatever the queues.
"""

from __future__ import annotations

import os

LEGACY_STREAMS = (0, 1)         # the NULL stream and cudaStreamLegacy
NON_BLOCKING = 0x01             # cudaStreamNonBlocking
DEFAULT_CONNECTIONS = 8         # CUDA_DEVICE_MAX_CONNECTIONS' default


def work_queues() -> int:
    """The hardware work queues streams share: CUDA_DEVICE_MAX_CONNECTIONS, 1 to 32 (8 unset)."""
    try:
        return min(32, max(1, int(os.environ.get("CUDA_DEVICE_MAX_CONNECTIONS", DEFAULT_CONNECTIONS))))
    except ValueError:
        return DEFAULT_CONNECTIONS


class GpuClock:
    def __init__(self, stream_settings: dict):
        self.stream_settings = stream_settings      # stream -> (flags, priority), the runtime's
        self.host_ms = 0.0
        self.stream_end: dict[int, float] = {}      # stream -> when its last work ends
        self.sm_busy_ms = 0.0                       # the SMs' busy time so far, as whole-GPU ms
        self.engine_end: dict[str, float] = {}      # copy engine -> when it is free
        self.queues = work_queues()
        self.queue_of: dict[int, int] = {}          # stream -> its work queue, in creation order
        self.queue_started: dict[int, float] = {}   # work queue -> when its last work started

    def stream_created(self, stream: int) -> None:
        """A new stream takes the next work queue, round robin."""
        self.queue_of[stream] = len(self.queue_of) % self.queues

    def _blocking(self, stream: int) -> bool:
        return not self.stream_settings.get(stream, (0, 0))[0] & NON_BLOCKING

    def ready(self, stream: int) -> float:
        """When work issued now on `stream` may start (and what an event recorded there reads)."""
        t = max(self.host_ms, self.stream_end.get(stream, 0.0))
        if stream in LEGACY_STREAMS:
            return max([t, *(end for s, end in self.stream_end.items() if self._blocking(s))])
        if self._blocking(stream):
            return max([t, *(self.stream_end.get(s, 0.0) for s in LEGACY_STREAMS)])
        return t

    def run(self, stream: int, ms: float, sm_share: float = 1.0, engine: str | None = None) -> float:
        """Put `ms` of work on `stream` (on the SMs, a share of them, or on a copy engine); its start."""
        start = self.ready(stream)
        queue = self.queue_of.get(stream)
        if queue is not None:                       # behind the work issued before it on its queue
            start = self.queue_started[queue] = max(start, self.queue_started.get(queue, 0.0))
        if engine is None:
            self.sm_busy_ms = max(self.sm_busy_ms, start) + ms * min(1.0, max(0.0, sm_share))
            end = max(start + ms, self.sm_busy_ms)
        else:
            end = max(start, self.engine_end.get(engine, 0.0)) + ms
            self.engine_end[engine] = end
        self.stream_end[stream] = end
        return end - ms

    def wait_until(self, ms: float) -> None:
        """The host waits for the GPU until `ms` (an event's time, a stream's end)."""
        self.host_ms = max(self.host_ms, ms)

    def synchronize(self, stream: int | None = None) -> None:
        """cudaStreamSynchronize (stream), cudaDeviceSynchronize (None): the host waits for the work."""
        self.wait_until(self.ready(stream) if stream is not None else self.latest())

    def wait_event(self, stream: int, ms: float) -> None:
        """cudaStreamWaitEvent: the stream's later work starts after `ms`."""
        self.stream_end[stream] = max(self.stream_end.get(stream, 0.0), ms)

    def latest(self) -> float:
        """When all the work so far ends."""
        return max([self.host_ms, *self.stream_end.values()])
