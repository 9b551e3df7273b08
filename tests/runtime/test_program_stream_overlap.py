"""The predicted GPU clock runs streams side by side (runtime/gpu_clock.py): CUDA events around
kernels of several streams read what a GPU would take (tests/runtime/programs/stream_overlap.cu)."""

import os

import pytest

pytestmark = pytest.mark.programs

# Cycles a wait takes. On a GPU (WARPSIM_PROGRAMS_NATIVE) the kernels must outlast their launches: an
# H100 gave 3.2x for the eight streams at 20,000 cycles (10 us kernels) and 1.0x at 2,000,000
# (validation/programs/h100/stream_overlap_native.txt).
CYCLES = "2000000" if os.environ.get("WARPSIM_PROGRAMS_NATIVE") else "20000"


def test_streams_share_the_sms_and_keep_the_legacy_streams_order(built, run):
    result = run(built("stream_overlap"), CYCLES)
    assert result.returncode == 0, result.stdout + result.stderr
    ratio = {name: float(value) for name, value in (line.rsplit(" ", 1) for line in result.stdout.splitlines())}
    assert ratio["eight streams"] == pytest.approx(1.0, abs=0.15)          # one SM each: side by side
    assert ratio["one stream"] == pytest.approx(8.0, rel=0.05)             # one after another
    assert ratio["four full kernels on four streams"] == pytest.approx(4.0, rel=0.1)   # every SM each
    # 16 streams on 8 hardware work queues: a queue's second stream waits behind its first's pair
    # (an H100: 3.04x; with one queue a stream it would be 2x)
    assert ratio["sixteen streams of two"] == pytest.approx(3.0, rel=0.1)
    assert 4.0 < ratio["blocking stream after the legacy one"] <= 5.0       # waits for the legacy stream
    assert ratio["non-blocking stream after the legacy one"] == pytest.approx(1.0, abs=0.15)
    assert 2.5 < ratio["waiting for another stream's event"] <= 3.0
    assert ratio["waited at least the cycles"] == 1
    # the wait's loop as its SASS clocks it (an H100: 39 cycles; 4 cycles a PTX instruction gave 20)
    assert 25 <= ratio["cycles an iteration"] <= 60
