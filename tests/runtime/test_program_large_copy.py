"""Host <-> device copies of 2 GiB and more in a whole program (tests/runtime/programs/large_copy.cu):
sizes past a C int once failed inside warpsim (ctypes.string_at's int size; HeCBench geglu's 2.7 GB
input). The bytes round-trip, and a kernel's change to the last pages is seen, as NumPy computes."""

import numpy as np
import pytest

pytestmark = [pytest.mark.programs, pytest.mark.slow]
N, TAIL = (1 << 31) + 4096, 8192


def test_copies_past_two_gib_round_trip(built, run):
    seed = int(np.random.default_rng().integers(1, 1000))
    result = run(built("large_copy"), seed)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert "to device cudaSuccess" in lines and "to host cudaSuccess" in lines
    pages, state = [], seed
    for _ in range(TAIL // 4096):                  # the program's per-page pattern
        state = (state * 1664525 + 1013904223) & 0xFFFFFFFF
        pages.append(state >> 24)
    tail = np.arange(N - TAIL, N, dtype=np.uint64) % 251
    before, after = int(tail.sum()), int((tail + 1).sum())
    assert f"head {sum(pages) * 4096} tail before {before} after {after}" in lines
    assert "match 1" in lines
