"""The predicted GPU clock's hardware work queues (runtime/gpu_clock.py): n streams of a kernel and
one that waits for it take (ceil(n / queues) + 1) kernels' time, as an H100 measured
(validation/stream_queues); kernels that wait for nothing run side by side whatever the queues."""

import pytest

from warpsim.runtime.gpu_clock import GpuClock


def _streams_of_two(n: int, pairs: bool = True) -> float:
    clock = GpuClock({})
    streams = list(range(10, 10 + n))
    for stream in streams:
        clock.stream_created(stream)
    for stream in streams:
        clock.run(stream, 1.0, sm_share=0.0)
        if pairs:
            clock.run(stream, 1.0, sm_share=0.0)
    return clock.latest()


@pytest.mark.parametrize("queues, n, expected", [("8", 8, 2), ("8", 9, 3), ("8", 32, 5), ("4", 32, 9),
                                                   ("1", 4, 5), ("32", 32, 2), (None, 16, 3), ("x", 16, 3)])
def test_streams_of_two_kernels_wait_behind_their_queue(monkeypatch, queues, n, expected):
    if queues is None:
        monkeypatch.delenv("CUDA_DEVICE_MAX_CONNECTIONS", raising=False)
    else:
        monkeypatch.setenv("CUDA_DEVICE_MAX_CONNECTIONS", queues)     # ('x': not a number, the default)
    assert _streams_of_two(n) == pytest.approx(expected)
    assert _streams_of_two(n, pairs=False) == pytest.approx(1.0)
