"""Profiling at SASS level without verification: the SASS run alone is the launch (sass/alone.py).

Each test compares the launch's memory with a NumPy reference on random inputs and
its SASS counts with the verified mode's (the PTX run beside the SASS run), and
checks what keeps the PTX run and that the profile says why.
"""

import numpy as np
import pytest

import warpsim as cp
from warpsim.machine.events import LaunchObserver

pytestmark = [pytest.mark.nvrtc, pytest.mark.sass]

SOURCE = r"""
extern "C" __global__ void axpy_in_place(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void block_sum(const float* x, float* out) {
    __shared__ float tile[128];
    int t = threadIdx.x;
    tile[t] = x[blockIdx.x * 128 + t];
    __syncthreads();
    for (int s = 64; s > 0; s >>= 1) {
        if (t < s) tile[t] += tile[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = tile[0];
}
extern "C" __global__ void divergent_loop(const int* x, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = x[i];
    for (int k = 0; k < (v & 15); ++k) v = v * 3 + k;
    out[i] = v;
}
extern "C" __global__ void count_hits(const int* x, int* bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[x[i] & 7], 1);
}
extern "C" __global__ void store_at(int* out, int index) {
    out[index + threadIdx.x] = 1;
}
"""

TIMING_KEYS = ("gpu__", "sm__cycles", "sm__warps_active", "smsp__issue_active", "smsp__average_warps_issue_stalled")


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(code=SOURCE)


def profiled(launch, verify: bool, **settings):
    with cp.settings(sass_verify=verify, **settings), cp.profile(level="sass") as prof:
        launch()
    assert len(prof.launches) == 1
    return prof.launches[0]


def counts(profile) -> dict:
    return {k: v for k, v in profile.metrics.items() if not k.startswith(TIMING_KEYS)}


def divergent_reference(x):
    v = x.astype(np.int64)
    out = v.copy()
    for i, start in enumerate(v):
        value, k = int(start), 0
        while k < (value & 15):                      # the bound reads the v the loop changes
            value = (value * 3 + k) & 0xFFFFFFFF
            k += 1
        out[i] = value
    return out.astype(np.uint32).view(np.int32)


def test_a_read_modify_write_kernel_runs_once_and_counts_as_verified(module):
    rng = np.random.default_rng(1)
    n = 1000
    x, y0 = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    dx = cp.asarray(x)
    runs = {}
    for verify in (True, False):
        dy = cp.asarray(y0)
        runs[verify] = profiled(lambda: module.get_function("axpy_in_place")(
            (4,), (256,), (np.float32(3), dx, dy, np.int32(n))), verify), dy.get()
    expected = (3.0 * x.astype(np.float64) + y0).astype(np.float32)    # ptxas fuses it: one rounding
    for verify, (launch, y) in runs.items():
        np.testing.assert_array_equal(y, expected)       # once: a second run would add a*x again
        assert launch.level == "sass"
    alone, verified = runs[False][0], runs[True][0]
    assert (alone.execution, verified.execution) == ("sass", "ptx+sass")
    assert "no PTX run" in alone.execution_note and verified.execution_note == "verification is on"
    assert counts(alone) == counts(verified)
    assert [(r.line, r.inst, r.thread_inst) for r in alone.lines] == \
        [(r.line, r.inst, r.thread_inst) for r in verified.lines]
    assert (alone.histogram == verified.histogram).all()


@pytest.mark.parametrize("kernel", ["block_sum", "divergent_loop", "count_hits"])
def test_alone_matches_numpy_and_the_verified_counts(module, kernel):
    rng = np.random.default_rng(2)
    results = {}
    for verify in (True, False):
        if kernel == "block_sum":
            x = rng.random(128 * 6, dtype=np.float32) if verify else x
            out = cp.zeros(6, dtype=np.float32)
            launch = profiled(lambda: module.get_function(kernel)((6,), (128,), (cp.asarray(x), out)), verify,
                              gpu="h200")
            reference = x.reshape(6, 128).astype(np.float64).sum(axis=1)
            np.testing.assert_allclose(out.get(), reference, rtol=1e-5)
        elif kernel == "divergent_loop":
            x = rng.integers(0, 1000, 512).astype(np.int32) if verify else x
            out = cp.zeros(512, dtype=np.int32)
            launch = profiled(lambda: module.get_function(kernel)((4,), (128,), (cp.asarray(x), out)), verify,
                              gpu="h200")
            np.testing.assert_array_equal(out.get(), divergent_reference(x))
        else:
            x = rng.integers(0, 1 << 20, 700).astype(np.int32) if verify else x
            out = cp.zeros(8, dtype=np.int32)
            launch = profiled(lambda: module.get_function(kernel)((3,), (256,), (cp.asarray(x), out, np.int32(700))),
                              verify, gpu="h200")
            np.testing.assert_array_equal(out.get(), np.bincount(x & 7, minlength=8))
        results[verify] = launch, out.get()
    alone, verified = results[False][0], results[True][0]
    assert alone.execution == "sass" and verified.execution == "ptx+sass"
    np.testing.assert_array_equal(results[False][1], results[True][1])
    assert counts(alone) == counts(verified)
    assert alone.timing is not None and alone.timing.cycles > 0      # the SASS run's sample times it
    assert alone.sass_counts == verified.sass_counts
    assert alone.activity.warps == verified.activity.warps > 0          # the chart, from the SASS issues
    assert (alone.activity.live_lanes == verified.activity.live_lanes).all()
    assert set(np.unique(alone.activity.matrix().compressed())) <= set(range(1, 33))


def test_stack_scheduling_keeps_the_ptx_run_and_says_why(module):
    out = cp.zeros(8, dtype=np.int32)
    x = cp.asarray(np.arange(100, dtype=np.int32))
    launch = profiled(lambda: module.get_function("count_hits")((1,), (128,), (x, out, np.int32(100))), False,
                      scheduling="stack")
    assert launch.level == "ptx" and launch.execution == "ptx"
    assert "'stack'" in launch.level_note
    np.testing.assert_array_equal(out.get(), np.bincount(np.arange(100) & 7, minlength=8))


def test_a_sanitizer_session_keeps_the_ptx_run_beside_the_sass_run(module):
    out = cp.zeros(8, dtype=np.int32)
    x = cp.asarray(np.arange(100, dtype=np.int32))
    with cp.check(tools=("memcheck",)):
        launch = profiled(lambda: module.get_function("count_hits")((1,), (128,), (x, out, np.int32(100))), False)
    assert launch.level == "sass" and launch.execution == "ptx+sass"
    assert "warpsim_checkers" in launch.execution_note
    np.testing.assert_array_equal(out.get(), np.bincount(np.arange(100) & 7, minlength=8))


def test_a_ptx_level_profile_alongside_keeps_the_ptx_run_beside_the_sass_run(module):
    out = cp.zeros(8, dtype=np.int32)
    x = cp.asarray(np.arange(100, dtype=np.int32))
    with cp.settings(sass_verify=False), cp.profile(level="ptx") as ptx, cp.profile(level="sass") as sass:
        module.get_function("count_hits")((1,), (128,), (x, out, np.int32(100)))
    assert ptx[0].level == "ptx" and ptx[0].metrics["smsp__inst_executed.sum"] > 0
    assert sass[0].level == "sass" and sass[0].execution == "ptx+sass"     # the SASS ran beside it, checked
    assert "level 'ptx'" in sass[0].execution_note
    np.testing.assert_array_equal(out.get(), np.bincount(np.arange(100) & 7, minlength=8))


class WatchesBlocks(LaunchObserver):
    def __init__(self):
        self.blocks = 0

    def block_executed(self, ctx, block, idx, warps):
        self.blocks += 1


def test_an_observer_of_ptx_events_keeps_the_ptx_run_and_the_sass_runs_beside_it(module):
    from warpsim.api.args import pack_arguments
    watcher = WatchesBlocks()
    function = module.get_function("count_hits")
    out = cp.zeros(8, dtype=np.int32)
    x = cp.asarray(np.arange(100, dtype=np.int32))
    params = pack_arguments(function.kernel_name, function.params, (x, out, np.int32(100)))
    with cp.settings(sass_verify=False), cp.profile() as prof:
        function.loaded_module.launch(function.kernel_name, (1,), (128,), params, observers=(watcher,))
    assert watcher.blocks > 0
    assert prof[0].level == "sass" and prof[0].execution == "ptx+sass"
    assert "WatchesBlocks" in prof[0].execution_note
    np.testing.assert_array_equal(out.get(), np.bincount(np.arange(100) & 7, minlength=8))


def test_a_fault_in_the_sass_run_is_the_launchs_error(module):
    out = cp.zeros(32, dtype=np.int32)
    with pytest.raises(cp.MemoryFault) as caught:
        profiled(lambda: module.get_function("store_at")((1,), (32,), (out, np.int32(1 << 24))), False)
    assert "SASS executor" in str(caught.value)


SPIN = r"""
extern "C" __global__ void spin(float* x) {
    __shared__ int flag;
    if (threadIdx.x == 0) while (flag == 0) { }
    __syncthreads();
}
"""


def test_a_spin_wait_without_stores_is_handed_to_the_ptx_run_which_tells_the_livelock(monkeypatch):
    from warpsim.sass import alone
    monkeypatch.setattr(alone, "QUIET_ROUNDS", 2000)
    kernel = cp.RawKernel(SPIN, "spin")
    x = cp.asarray(np.arange(4, dtype=np.float32))
    with pytest.raises(cp.DeadlockError, match="livelock"):
        with cp.settings(sass_verify=False), cp.profile():
            kernel((1,), (32,), (x,))
    np.testing.assert_array_equal(x.get(), np.arange(4, dtype=np.float32))


def test_the_activity_trace_is_the_same_with_machine_code_and_without(module):
    """SassActivityTrace writes a batch's issues in one machine-code call where the batch runs machine
    code (activity.record_issues); the chart's arrays equal those of the NumPy writes (engine='numpy')."""
    rng = np.random.default_rng(21)
    x = cp.asarray(rng.integers(0, 1000, 4096).astype(np.int32))
    traces = []
    for engine in ("numpy", "compiled"):
        out = cp.zeros(4096, dtype=np.int32)
        launch = profiled(lambda: module.get_function("divergent_loop")((32,), (128,), (x, out)), False, engine=engine)
        traces.append(launch.activity)
    numpy_trace, compiled_trace = traces
    assert numpy_trace.warps == compiled_trace.warps > 0
    for name in ("active", "ptx_line", "source_line", "issued", "live_lanes"):
        np.testing.assert_array_equal(getattr(numpy_trace, name), getattr(compiled_trace, name), err_msg=name)
    assert (numpy_trace.issued > 0).any() and len(np.unique(numpy_trace.active)) > 2


def test_record_issues_writes_what_block_executed_writes_up_to_the_cap():
    """One machine-code call per issued block gives block_executed's trace, the warps whose issues pass
    max_issues cut at the cap."""
    from types import SimpleNamespace
    from warpsim.metrics.activity import SassActivityTrace, record_issues
    rng = np.random.default_rng(4)
    steps = [SimpleNamespace(ins=SimpleNamespace(ptx_line=int(line), source=("k.cu", int(line) + 100)))
             for line in rng.integers(1, 50, 5)]
    block = SimpleNamespace(index=3, steps=steps)
    reference, fast = SassActivityTrace(max_warps=8, max_issues=23), SassActivityTrace(max_warps=8, max_issues=23)
    for trace in (reference, fast):
        trace._row = np.array([0, 1, 2, -1, 3, 4, 5, 6, 7, -1], dtype=np.int64)
        trace._batch_recorded = True
    for _ in range(7):
        warps = np.sort(rng.choice(10, rng.integers(1, 10), replace=False))
        counts = rng.integers(1, 33, len(warps))
        reference.block_executed(None, block, None, warps, counts)
        ptx_lines, source_lines = fast._block_lines(block)
        record_issues(fast.active, fast.ptx_line, fast.source_line, fast.issued, fast._row[warps], counts,
                      ptx_lines, source_lines)
    assert (reference.issued > 23).any()
    for name in ("active", "ptx_line", "source_line", "issued"):
        np.testing.assert_array_equal(getattr(reference, name), getattr(fast, name), err_msg=name)


PRINTF_SOURCE = r"""
extern "C" __global__ void report(const float* x, const long long* big, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && (i % 5) == 0) printf("lane %d x %.3f big %lld %s\n", i, x[i], big[i], i & 1 ? "odd" : "even");
}
"""


@pytest.mark.parametrize("verify", [False, True])
def test_device_printf_runs_at_sass_level_and_prints_once(verify, capfd):
    rng = np.random.default_rng(31)
    n = 40 + int(rng.integers(0, 20))
    x = rng.standard_normal(n).astype(np.float32)
    big = rng.integers(-(1 << 40), 1 << 40, n)
    kernel = cp.RawModule(code=PRINTF_SOURCE).get_function("report")
    capfd.readouterr()
    launch = profiled(lambda: kernel((2,), (32,), (cp.asarray(x), cp.asarray(big), np.int32(n))), verify)
    assert launch.level == "sass", launch.level_note
    expected = "".join(f"lane {i} x {float(x[i]):.3f} big {int(big[i])} {'odd' if i & 1 else 'even'}\n"
                       for i in range(0, n, 5))
    assert capfd.readouterr().out == expected


MALLOC_SOURCE = r"""
extern "C" __global__ void scratch(const int* x, long long* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int* p = (int*)malloc(8 * (1 + (x[i] & 3)));
    if (p == nullptr) { out[i] = -1; return; }
    for (int k = 0; k <= (x[i] & 3); ++k) p[k] = x[i] + k;
    long long s = 0;
    for (int k = 0; k <= (x[i] & 3); ++k) s += p[k];
    out[i] = s;
    free(p);
}
"""


@pytest.mark.parametrize("verify", [False, True])
def test_device_malloc_and_free_run_at_sass_level(verify):
    rng = np.random.default_rng(8)
    n = 100 + int(rng.integers(0, 28))
    x = rng.integers(-1000, 1000, n).astype(np.int32)
    out = cp.zeros(n, dtype=np.int64)
    kernel = cp.RawModule(code=MALLOC_SOURCE).get_function("scratch")
    launch = profiled(lambda: kernel((1,), (128,), (cp.asarray(x), out, np.int32(n))), verify)
    assert launch.level == "sass", launch.level_note
    terms = (x & 3).astype(np.int64) + 1
    np.testing.assert_array_equal(out.get(), terms * x + terms * (terms - 1) // 2)


def test_an_assert_in_a_kernel_run_at_sass_level_fails_the_launch_as_assert():
    from warpsim.errors import TrapError
    source = r"""
    extern "C" __device__ void __assertfail(const char*, const char*, unsigned, const char*, unsigned long);
    extern "C" __global__ void checks(const int* x, int* y) {
        int v = x[threadIdx.x];
        if (!(v > 0)) __assertfail("v > 0", "checks.cu", 4, "checks", 1);
        y[threadIdx.x] = v;
    }"""
    x = np.arange(1, 65, dtype=np.int32)
    bad = int(np.random.default_rng(2).integers(0, 64))
    x[bad] = -3
    kernel = cp.RawModule(code=source).get_function("checks")
    with pytest.raises(TrapError, match="checks.cu:4: checks: Assertion `v > 0` failed") as caught:
        profiled(lambda: kernel((1,), (64,), (cp.asarray(x), cp.zeros(64, dtype=np.int32))), False)
    assert "SASS executor" in str(caught.value) and caught.value.thread == (bad, 0, 0)
