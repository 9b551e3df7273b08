"""Limits the driver enforces on Numba launches: the dynamic shared memory opt-in and the
register file (the same checks as CuPy's kernels, warpsim.api.kernel_attributes)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba.cuda")
from warpsim import cuda  # noqa: E402
from warpsim.errors import LaunchError  # noqa: E402

pytestmark = pytest.mark.numba

KB = 1024


@cuda.jit
def through_dynamic_shared(a, out):
    buffer = cuda.shared.array(0, dtype=np.int32)
    i = cuda.threadIdx.x
    n = cuda.blockDim.x
    slot = buffer.size - n + i          # the far end of the dynamic shared memory
    buffer[slot] = a[i] * 3
    cuda.syncthreads()
    out[i] = buffer[buffer.size - 1 - i]


def _inputs(n=64):
    rng = np.random.default_rng(5)
    return rng.integers(-1000, 1000, n).astype(np.int32), np.full(n, -7, np.int32)


def test_more_than_48_kb_of_dynamic_shared_memory_needs_the_opt_in():
    from cuda.core._utils.cuda_utils import CUDAError
    a, out = _inputs()
    size = 96 * KB
    with pytest.raises(LaunchError, match="CUDA_ERROR_INVALID_VALUE.*max_dynamic_shared_size_bytes") as caught:
        through_dynamic_shared[1, 64, 0, size](a, out)
    assert isinstance(caught.value, CUDAError)          # what a Numba program catches
    assert (out == -7).all()                           # nothing ran
    through_dynamic_shared[1, 64, 0, 48 * KB](a, out)  # 48 KB needs no opt-in
    assert (out == (a * 3)[::-1]).all()
    out[:] = -7
    through_dynamic_shared.max_dynamic_shared_size_bytes = size
    through_dynamic_shared[1, 64, 0, size](a, out)
    assert (out == (a * 3)[::-1]).all()
    kernel = next(iter(through_dynamic_shared.overloads.values()))
    assert kernel.max_dynamic_shared_size_bytes == size


def test_the_opt_in_per_specialization_and_its_bound():
    @cuda.jit
    def copy(a, out):
        buffer = cuda.shared.array(0, dtype=np.float32)
        i = cuda.threadIdx.x
        buffer[buffer.size - 1 - i] = a[i]
        cuda.syncthreads()
        out[i] = buffer[buffer.size - 1 - i] + 1

    a = np.random.default_rng(2).random(32).astype(np.float32)
    out = np.zeros(32, np.float32)
    copy[1, 32, 0, 4 * KB](a, out)
    kernel = next(iter(copy.overloads.values()))
    assert kernel.max_dynamic_shared_size_bytes == 48 * KB
    with pytest.raises(LaunchError, match="CUDA_ERROR_INVALID_VALUE"):
        kernel.max_dynamic_shared_size_bytes = 228 * KB   # past the 227 KB a block can have
    kernel.max_dynamic_shared_size_bytes = 200 * KB
    copy[1, 32, 0, 200 * KB](a, out)
    assert (out == a + 1).all()
    with pytest.raises(LaunchError, match="CUDA_ERROR_INVALID_VALUE"):
        copy[1, 32, 0, 201 * KB](a, out)
    with pytest.raises(LaunchError, match="CUDA_ERROR_INVALID_VALUE.*negative"):
        copy[1, 32, 0, -4](a, out)
    with pytest.raises(LaunchError, match="int number of bytes"):
        copy[1, 32, 0, "lots"](a, out)


LIVE = 64


def _register_hungry():
    """A kernel with LIVE int64 accumulators alive across a loop: about 2 x LIVE registers."""
    init = "\n".join(f"    x{k} = i + {k}" for k in range(LIVE))
    step = "\n".join(f"        x{k} = x{k} * v + {k}" for k in range(LIVE))
    source = (f"def hungry(a, out, n):\n    i = cuda.grid(1)\n{init}\n    for j in range(n):\n"
              f"        v = a[j]\n{step}\n    out[i] = {' ^ '.join(f'x{k}' for k in range(LIVE))}\n")
    scope = {"cuda": cuda}
    exec(compile(source, "register_hungry.py", "exec"), scope)
    return cuda.jit(scope["hungry"])


def _hungry_reference(a, threads: int) -> np.ndarray:
    i = np.arange(threads, dtype=np.int64)
    result = np.zeros(threads, np.int64)
    for k in range(LIVE):
        x = i + k
        for v in a:
            x = x * v + k
        result ^= x
    return result


@pytest.mark.sass
def test_a_block_the_register_file_cannot_hold_is_out_of_resources():
    hungry = _register_hungry()
    a = np.random.default_rng(3).integers(-5, 6, 7).astype(np.int64)
    out = np.zeros(1024, np.int64)
    hungry[1, 256](a, out, len(a))
    kernel = next(iter(hungry.overloads.values()))
    if kernel._registers().is_estimate:
        pytest.skip("no ptxas to count registers")
    assert kernel.regs_per_thread * 1024 > 65536
    assert kernel.max_threads_per_block < 1024 and hungry.get_max_threads_per_block()[kernel.argument_types] < 1024
    want = _hungry_reference(a, 256)
    assert (out[:256] == want).all()
    out[:] = 0
    with pytest.raises(LaunchError, match="CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES.*registers"):
        hungry[1, 1024](a, out, len(a))
    assert (out == 0).all()
    hungry[4, 256](a, out, len(a))          # the kernel still runs after the refusal
    assert (out == _hungry_reference(a, 1024)).all()
