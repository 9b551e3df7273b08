"""A batch's first launch raises glibc's malloc thresholds (machine/malloc_threshold.py), so warm plain
launches of a large batch take their temporaries from pages the process keeps, not fresh mappings."""

import platform
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import warpsim as cp
from warpsim.machine import malloc_threshold

from ptx_kernels import ADD


def test_a_block_is_freed_once_per_larger_size(monkeypatch):
    freed = []
    monkeypatch.setattr(malloc_threshold, "_raised_to", 0)
    monkeypatch.setattr(malloc_threshold.np, "empty", lambda n, dtype: freed.append(n) or np.zeros(n, dtype))
    for threads in (1024, 512, 65536, 65536, 1 << 20):
        malloc_threshold.keep_heap_for_threads(threads)
    assert freed == [1024 * 256, 65536 * 256, malloc_threshold.LARGEST_BLOCK]


@pytest.mark.parametrize("engine", ["compiled", "numpy"])
def test_repeated_large_launches_match_numpy_on_fresh_inputs(engine):
    add = cp.RawModule(ptx=ADD).get_function("add")
    rng = np.random.default_rng(7)
    n = 65536
    with cp.settings(engine=engine):
        for _ in range(3):
            a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
            b = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
            out = cp.zeros(n, dtype=np.int32)
            add((n // 256,), (256,), (cp.asarray(a), cp.asarray(b), out, np.uint32(n)))
            np.testing.assert_array_equal(out.get(), (a.astype(np.int64) + b).astype(np.int32))


WARM_FAULTS = textwrap.dedent("""
    import resource, sys
    import numpy as np
    import warpsim as cp
    sys.path.insert(0, sys.argv[1])
    from ptx_kernels import ADD
    add = cp.RawModule(ptx=ADD).get_function("add")
    n = 65536
    a, b, out = cp.arange(n, dtype=np.int32), cp.ones(n, dtype=np.int32), cp.zeros(n, dtype=np.int32)
    with cp.settings(engine=sys.argv[2]):
        for _ in range(2):
            add((n // 256,), (256,), (a, b, out, np.uint32(n)))
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(3):
            add((n // 256,), (256,), (a, b, out, np.uint32(n)))
        print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    assert (out.get() == np.arange(n) + 1).all()
""")


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the thresholds are glibc's")
@pytest.mark.parametrize("engine", ["compiled", "numpy"])
def test_warm_plain_launches_of_a_fresh_process_take_few_page_faults(engine):
    # Before the thresholds were raised, each of these launches took 400-1,700 faults (its
    # 256 KB temporaries and register rows mapped afresh); a fresh process, as users launch.
    here = str(__import__("pathlib").Path(__file__).parent)
    done = subprocess.run([sys.executable, "-c", WARM_FAULTS, here, engine], capture_output=True, text=True,
                          check=True)
    assert int(done.stdout.split()[-1]) < 3 * 50
