"""The two scheduling models on the kernels where they differ (and where they must not)."""

import pathlib
import warnings

import numpy as np
import pytest

import warpsim as cp
import warpsim.demo
from warpsim.errors import DeadlockError, LaunchError
from warpsim.machine.device import SyncWarning

pytestmark = pytest.mark.nvrtc
MISUSE = pathlib.Path(__file__).parents[1] / "kernels" / "scheduling.cu"
DEMO = pathlib.Path(warpsim.demo.__file__).parent / "kernels" / "scheduling.cu"
MODELS = ("its", "stack")


@pytest.fixture(scope="module")
def module():
    """The demo's spin-wait and reductions, and the misuse kernels, under one lookup."""
    demo, misuse = cp.RawModule(path=str(DEMO)), cp.RawModule(path=str(MISUSE))

    class Both:
        def get_function(self, name):
            try:
                return demo.get_function(name)
            except Exception:
                return misuse.get_function(name)
    return Both()


def test_spin_wait_completes_under_its(module):
    flag, out = cp.zeros(1, dtype=cp.int32), cp.zeros(3, dtype=cp.int32)
    with cp.settings(scheduling="its"):
        module.get_function("spin_wait")((3,), (32,), (flag, out))
    assert out.get().tolist() == [1, 1, 1]


def test_spin_wait_is_a_reported_hang_under_stack(module):
    flag, out = cp.zeros(1, dtype=cp.int32), cp.zeros(1, dtype=cp.int32)
    with cp.settings(scheduling="stack"), pytest.raises(DeadlockError) as info:
        module.get_function("spin_wait")((1,), (32,), (flag, out))
    msg = str(info.value)
    assert "livelock" in msg and "pre-Volta" in msg and "scheduling='its'" in msg
    assert "lanes [0] issuing" in msg and "scheduling.cu:8" in msg


# The legacy reduction is only promised to work under the pre-Volta stack.
@pytest.mark.parametrize("model, kernel", [("stack", "legacy_reduce"), ("stack", "syncwarp_reduce"),
                                           ("its", "syncwarp_reduce")])
def test_warp_synchronous_reductions(module, model, kernel):
    rng = np.random.default_rng(3)
    x = rng.integers(-1000, 1000, 64 * 5, dtype=np.int32)
    out = cp.full(5, -1, dtype=cp.int32)
    with cp.settings(scheduling=model):
        module.get_function(kernel)((5,), (64,), (cp.asarray(x), out))
    assert np.array_equal(out.get(), x.reshape(5, 64).sum(axis=1))


def test_full_mask_shuffle_in_divergent_branch_under_its_warns(module):
    x = np.arange(32, dtype=np.int32) + 100
    out = cp.zeros(32, dtype=cp.int32)
    with cp.settings(scheduling="its"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module.get_function("divergent_shuffle")((1,), (32,), (cp.asarray(x), out))
    messages = [str(w.message) for w in caught if issubclass(w.category, SyncWarning)]
    assert messages and "exited" in messages[0] and "0xffffffff" in messages[0]
    got = out.get()
    assert (got[:16] == 100).all() and np.array_equal(got[16:], x[16:])


def test_full_mask_shuffle_in_divergent_branch_under_stack_is_an_error(module):
    x = cp.asarray(np.arange(32, dtype=np.int32))
    out = cp.zeros(32, dtype=cp.int32)
    with cp.settings(scheduling="stack"), pytest.raises(LaunchError) as info:
        module.get_function("divergent_shuffle")((1,), (32,), (x, out))
    msg = str(info.value)
    assert "not converged" in msg and "0xffffffff" in msg and "scheduling.cu:9" in msg


def test_shuffle_partners_stuck_at_a_barrier_deadlock(module):
    x = cp.asarray(np.arange(32, dtype=np.int32))
    out = cp.zeros(32, dtype=cp.int32)
    with cp.settings(scheduling="its"), pytest.raises(DeadlockError) as info:
        module.get_function("shuffle_vs_barrier")((1,), (32,), (x, out))
    msg = str(info.value)
    assert "waiting for lanes named in its .sync mask" in msg and "waiting at a CTA barrier" in msg


@pytest.mark.parametrize("model", MODELS)
def test_reconverged_shuffle_agrees_under_both(module, model):
    rng = np.random.default_rng(4)
    x = rng.integers(-1000, 1000, 64, dtype=np.int32)
    out = cp.zeros(64, dtype=cp.int32)
    with cp.settings(scheduling=model):
        module.get_function("converged_shuffle")((1,), (64,), (cp.asarray(x), out))
    v = np.where(np.arange(64) % 2, x * 3, x + 7)
    assert np.array_equal(out.get(), v + v.reshape(-1, 2)[:, ::-1].ravel())


def test_environment_selects_the_model(monkeypatch):
    from warpsim.settings import current
    monkeypatch.setenv("WARPSIM_SCHEDULING", "stack")
    assert current().scheduling == "stack"
    with cp.settings(scheduling="its"):
        assert current().scheduling == "its"


def test_shuffle_from_a_lane_outside_the_mask_is_reported(module):
    x = cp.asarray(np.arange(32, dtype=np.int32))
    out = cp.zeros(32, dtype=cp.int32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module.get_function("shuffle_from_outside_mask")((1,), (32,), (x, out))
    messages = [str(w.message) for w in caught if issubclass(w.category, SyncWarning)]
    assert any("reads lane 16" in m and "undefined" in m for m in messages)


HANDOFF = r"""
extern "C" __global__ void handoff(volatile int* flag, int* out) {
    if (blockIdx.x == 0) { while (*flag == 0) { } out[0] = *flag; }
    else if (threadIdx.x == 0) { *flag = 42; }
}
"""


def test_blocks_of_one_batch_see_each_other_and_later_batches_are_named():
    kernel = cp.RawModule(code=HANDOFF).get_function("handoff")
    flag, out = cp.zeros(1, dtype=cp.int32), cp.zeros(1, dtype=cp.int32)
    kernel((2,), (32,), (flag, out))
    assert out.get()[0] == 42
    flag, out = cp.zeros(1, dtype=cp.int32), cp.zeros(1, dtype=cp.int32)
    with cp.settings(batch_threads=32), pytest.raises(DeadlockError) as info:
        kernel((2,), (32,), (flag, out))
    assert "Blocks 1..1 run in later batches" in str(info.value)
