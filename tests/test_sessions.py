"""Sessions per thread and task, or for the whole process (all_threads: what `warpsim profile` and
`warpsim check` open, as Nsight Compute and compute-sanitizer watch every thread)."""

import threading

import numpy as np
import pytest

import warpsim as cp
from warpsim.sessions import SessionStack, sessions_on

pytestmark = pytest.mark.nvrtc


def seen_from_another_thread(stack) -> tuple:
    seen = []
    worker = threading.Thread(target=lambda: seen.append(stack.active()))
    worker.start()
    worker.join()
    return seen[0]


def test_a_session_is_this_threads_unless_pushed_for_all():
    stack = SessionStack("test_sessions_stack", listed=False)
    mine = stack.push("mine")
    everyone = stack.push("everyone", all_threads=True)
    assert set(stack.active()) == {"mine", "everyone"}
    assert seen_from_another_thread(stack) == ("everyone",)
    assert sessions_on()
    stack.pop(everyone)
    assert stack.active() == ("mine",) and seen_from_another_thread(stack) == ()
    stack.pop(mine)
    assert stack.active() == ()


ADD = r'extern "C" __global__ void add_one(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1.0f; }'


@pytest.mark.parametrize("all_threads", [False, True])
def test_a_profile_of_all_threads_takes_their_launches(all_threads):
    kernel = cp.RawKernel(ADD, "add_one")
    start = np.random.default_rng(2).random(1000, dtype=np.float32)
    arrays = [cp.asarray(start) for _ in range(3)]

    def work(x):
        for _ in range(2):
            kernel((4,), (256,), (x, np.int32(1000)))
    with cp.profile(all_threads=all_threads) as prof:
        workers = [threading.Thread(target=work, args=(x,)) for x in arrays]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        work(arrays[0])
    for k, x in enumerate(arrays):
        expected = start.copy()
        for _ in range(4 if k == 0 else 2):
            expected += np.float32(1)
        np.testing.assert_array_equal(x.get(), expected)
    assert len(prof) == (8 if all_threads else 2)
