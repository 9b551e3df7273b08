"""cudaProfilerStart/Stop (cuda_profiler_api.h): CUDA samples such as asyncAPI wrap their timed
work in them and stop on any error code; with no profiler attached both succeed and change
nothing (tests/runtime/programs/profiler_range.cu)."""

import pytest

pytestmark = pytest.mark.programs


def test_profiler_range_calls_succeed_and_the_launch_between_runs(built, run):
    result = run(built("profiler_range"))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert "start cudaSuccess" in lines and "stop cudaSuccess" in lines
    assert "last cudaSuccess" in lines
    assert "nvtx range depth -2 popped -2" in lines   # NVTX with no tool attached: its calls return -2
    assert "elapsed positive 1" in lines          # the events around the launch advanced
    assert "wrong 0" in lines                     # every element got its +1
    assert "not supported" not in result.stderr
