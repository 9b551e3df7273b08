"""The compiled round loop (machine/compiled/loop.py) against the round-by-round NumPy engine.

Kernels whose covered blocks the loop runs for many rounds, converged and
divergent, with global loads and without, under its and lowest-pc: results
(checked against NumPy), warp and thread instructions and rounds must be
those of the NumPy tier exactly; so must the whole machine state when a budget
stops a launch mid-run, the errors of launches that never end (the round and
instruction budgets, the livelock watch), which the engine checks between the
loop's calls, and the fault of a bad load inside the loop. The loop is compiled once per machine (disk cache).
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import warpsim as cp
from warpsim.api.args import pack_arguments
from warpsim.errors import BudgetExceeded, DeadlockError, MemoryFault
from warpsim.machine.compiled import report
from warpsim.machine.events import LaunchObserver

HASH_LOOP = r"""
extern "C" __global__ void hash_loop(unsigned* out, const unsigned* trips) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned h = i * 2654435761u, acc = i;
    for (unsigned k = 0; k < trips[i]; ++k) {
        h = h * 1664525u + 1013904223u;
        if (h & 0x100) acc += h >> 7;
        else acc ^= h * 3u;
    }
    out[i] = acc ^ h;
}
"""


def hash_loop_reference(trips: np.ndarray) -> np.ndarray:
    i = np.arange(len(trips), dtype=np.uint32)
    h = i * np.uint32(2654435761)
    acc = i.copy()
    for k in range(int(trips.max())):
        on = k < trips
        h = np.where(on, h * np.uint32(1664525) + np.uint32(1013904223), h)
        acc = np.where(on & ((h & 0x100) != 0), acc + (h >> 7), acc)
        acc = np.where(on & ((h & 0x100) == 0), acc ^ (h * np.uint32(3)), acc)
    return acc ^ h


def launch(engine, scheduling, function, grid, block, args, **settings):
    with cp.settings(engine=engine, scheduling=scheduling, **settings):
        function(grid, block, args)
    last = function.last_launch
    return last.warp_instructions, last.thread_instructions, last.rounds


@pytest.fixture(scope="module")
def hash_loop():
    return cp.RawModule(code=HASH_LOOP).get_function("hash_loop")


@pytest.mark.parametrize("scheduling", ["its", "lowest-pc"])
def test_a_divergent_loop_gives_the_numpy_tiers_results_and_counters(hash_loop, scheduling):
    rng = np.random.default_rng(5)
    n = 2048
    trips = rng.integers(0, 40, n).astype(np.uint32)
    trips[:32] = 37                                  # one converged warp
    expected = hash_loop_reference(trips)
    seen = {}
    for engine in ("numpy", "compiled"):
        out = cp.full(n, 0xDEADBEEF, dtype=cp.uint32)
        counters = launch(engine, scheduling, hash_loop, (n // 256,), (256,), (out, cp.asarray(trips)))
        np.testing.assert_array_equal(out.get(), expected)
        seen[engine] = counters
    assert seen["numpy"] == seen["compiled"]
    loop_rows = [r for r in report(hash_loop.loaded_module.program) if r["in_round_loop"]]
    assert loop_rows, "the loop ran no block"


def test_rotation_under_its_matches_with_a_short_patience(hash_loop, monkeypatch):
    """A divergent warp that keeps groups waiting goes round-robin (its' starved/rotating state)."""
    from warpsim.machine.scheduling.its import IndependentThreadScheduling
    monkeypatch.setattr(IndependentThreadScheduling, "patience", 3)
    trips = np.tile(np.array([1, 39], dtype=np.uint32), 128)
    seen = {}
    for engine in ("numpy", "compiled"):
        out = cp.zeros(256, dtype=cp.uint32)
        seen[engine] = launch(engine, "its", hash_loop, (1,), (256,), (out, cp.asarray(trips)))
        np.testing.assert_array_equal(out.get(), hash_loop_reference(trips))
    assert seen["numpy"] == seen["compiled"]


class StateAtFailure(LaunchObserver):
    """Copies the batch's whole state when the launch fails (a budget stops it mid-run)."""

    def launch_failed(self, ctx, exc):
        self.state = {"pc": ctx.pc.copy(), "status": ctx.status.copy(), "starved": ctx.starved.copy(),
                      "rotating": ctx.rotating.copy(), "last_pc": ctx.last_pc.copy(),
                      "rounds": ctx.rounds, "issued": ctx.issued,
                      "thread_instructions": ctx.thread_instructions,
                      **{k: v.copy() for k, v in ctx.regs.items()}}


def state_after(engine, scheduling, function, args, rounds):
    """The machine state when a launch of 8 warps is stopped by a budget of `rounds` rounds."""
    watch = StateAtFailure()
    params = pack_arguments(function.kernel_name, function.params, args)
    with cp.settings(engine=engine, scheduling=scheduling, max_rounds=rounds):
        with pytest.raises(BudgetExceeded):
            function.loaded_module.launch(function.kernel_name, (1,), (256,), params, observers=(watch,))
    return watch.state


@pytest.mark.parametrize("scheduling", ["its", "lowest-pc"])
def test_the_whole_state_matches_when_a_budget_stops_the_loop_mid_run(hash_loop, scheduling, monkeypatch):
    """Registers, pcs and its' starved/rotating/last_pc, compared after 40, 97 and 150 rounds
    (a short patience makes its' round-robin start within them)."""
    from warpsim.machine.scheduling.its import IndependentThreadScheduling
    monkeypatch.setattr(IndependentThreadScheduling, "patience", 3)
    rng = np.random.default_rng(9)
    trips = cp.asarray(rng.integers(0, 900, 256).astype(np.uint32))
    for rounds in (40, 97, 150):
        a = state_after("numpy", scheduling, hash_loop, (cp.zeros(256, cp.uint32), trips), rounds)
        b = state_after("compiled", scheduling, hash_loop, (cp.zeros(256, cp.uint32), trips), rounds)
        assert a.keys() == b.keys()
        for key in a:
            np.testing.assert_array_equal(a[key], b[key], err_msg=f"{key} after {rounds} rounds")
        if scheduling == "its":
            assert a["starved"].any() or a["rotating"].any()


HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"
FOREVER = HEADER + """
.visible .entry forever(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
LOOP:
    add.u32 %r1, %r1, 1;
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra EVEN;
    xor.b32 %r1, %r1, 6;
EVEN:
    bra LOOP;
    ret;
}
"""
SPIN = HEADER + """
.visible .entry spin(.param .u64 out)
{
LOOP:
    bra LOOP;
    ret;
}
"""


def error_on(engine, ptx, kernel, **settings):
    function = cp.RawModule(ptx=ptx).get_function(kernel)
    with pytest.raises((BudgetExceeded, DeadlockError)) as info:
        launch(engine, "its", function, (2,), (64,), (cp.zeros(1, cp.uint32),), **settings)
    return type(info.value), str(info.value)


@pytest.mark.parametrize("budget", [{"max_rounds": 5000}, {"max_instructions": 9001}])
def test_a_loop_that_never_ends_stops_at_the_same_budget(budget):
    numpy_error = error_on("numpy", FOREVER, "forever", **budget)
    assert numpy_error[0] is BudgetExceeded
    assert error_on("compiled", FOREVER, "forever", **budget) == numpy_error


def test_a_spin_that_changes_nothing_is_the_same_livelock():
    numpy_error = error_on("numpy", SPIN, "spin")
    assert numpy_error[0] is DeadlockError and "livelock" in numpy_error[1]
    assert error_on("compiled", SPIN, "spin") == numpy_error


GATHER = r"""
extern "C" __global__ void gather(const float* x, const int* start, float* out, int steps, int step) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    int j = start[i];
    #pragma unroll 1
    for (int k = 0; k < steps; ++k) {
        acc = acc * 0.5f + x[j];
        j += step;
    }
    out[i] = acc;
}
"""


@pytest.fixture(scope="module")
def gather():
    return cp.RawModule(code=GATHER).get_function("gather")


def gather_reference(x, start, steps, step):
    acc = np.zeros(len(start), dtype=np.float32)
    for k in range(steps):          # acc * 0.5 is exact, so fma is one rounding of the f64 sum
        acc = (acc.astype(np.float64) * 0.5 + x[start + k * step]).astype(np.float32)
    return acc


@pytest.mark.parametrize("scheduling", ["its", "lowest-pc"])
def test_loads_in_the_loop_give_the_numpy_tiers_results_and_counters(gather, scheduling):
    rng = np.random.default_rng(11)
    n, steps, step = 1024, 30, 7
    x = rng.random(n + steps * step, dtype=np.float32)
    start = rng.integers(0, n, n).astype(np.int32)
    seen = {}
    for engine in ("numpy", "compiled"):
        out = cp.full(n, np.nan, dtype=cp.float32)
        seen[engine] = launch(engine, scheduling, gather, (n // 256,), (256,),
                              (cp.asarray(x), cp.asarray(start), out, np.int32(steps), np.int32(step)))
        np.testing.assert_array_equal(out.get(), gather_reference(x, start, steps, step))
    assert seen["numpy"] == seen["compiled"]
    rows = report(gather.loaded_module.program)
    assert any(r["in_round_loop"] for r in rows), rows


def test_a_load_past_the_end_inside_the_loop_is_the_same_fault(gather):
    """Only the last thread's last trip reads one element past x, many rounds into the loop."""
    n, steps, step = 512, 20, 64
    x = cp.asarray(np.arange(n + step * (steps - 1) - 1, dtype=np.float32))
    start = cp.asarray(np.arange(n, dtype=np.int32))
    messages = {}
    for engine in ("numpy", "compiled"):
        with pytest.raises(MemoryFault) as caught:
            launch(engine, "its", gather, (n // 256,), (256,),
                   (x, start, cp.zeros(n, cp.float32), np.int32(steps), np.int32(step)))
        messages[engine] = str(caught.value)
    assert "thread: (255, 0, 0)" in messages["numpy"] and "block: (1, 0, 0)" in messages["numpy"]
    assert messages["numpy"] == messages["compiled"]


def test_a_load_of_freed_memory_inside_the_loop_is_the_same_use_after_free(gather):
    n = 256
    keep = cp.zeros(4096, dtype=cp.float32)            # a live neighbour
    start, out = cp.asarray(np.arange(n, dtype=np.int32)), cp.zeros(n, cp.float32)
    freed = cp.zeros(4096, dtype=cp.float32)
    address = freed.data.ptr
    del freed                                          # freed last: no later allocation reuses it
    gc.collect()
    messages = {}
    for engine in ("numpy", "compiled"):
        with pytest.raises(MemoryFault) as caught:
            launch(engine, "its", gather, (1,), (n,),
                   (np.uint64(address), start, out, np.int32(5), np.int32(1)))
        messages[engine] = str(caught.value)
    assert "use after free" in messages["numpy"] and keep.size == 4096
    assert messages["numpy"] == messages["compiled"]


def profiled(engine, function, grid, block, args, gpu=""):
    with cp.settings(engine=engine, gpu=gpu):
        with cp.profile(level="ptx") as prof:
            function(grid, block, args)
    return prof.launches[0]


def test_the_profilers_counts_and_activity_trace_match_when_the_loop_runs(hash_loop):
    """Profiling keeps the round loop (it counts what the profiler counts): every metric, the
    per-line counts, the lane histogram and the activity trace's record of each issue."""
    rng = np.random.default_rng(3)
    n = 4096                                          # past the trace's 64 warps
    trips = cp.asarray(rng.integers(0, 40, n).astype(np.uint32))
    a = profiled("numpy", hash_loop, (n // 256,), (256,), (cp.zeros(n, cp.uint32), trips))
    b = profiled("compiled", hash_loop, (n // 256,), (256,), (cp.zeros(n, cp.uint32), trips))
    assert any(r["in_round_loop"] for r in report(hash_loop.loaded_module.program))
    assert a.metrics == b.metrics
    assert str(a.lines) == str(b.lines)
    np.testing.assert_array_equal(a.histogram, b.histogram)
    for field in ("active", "ptx_line", "source_line", "issued", "live_lanes"):
        np.testing.assert_array_equal(getattr(a.activity, field), getattr(b.activity, field), err_msg=field)
    assert a.activity.issued.min() > 0


def test_a_profile_with_a_gpu_keeps_the_loop_for_the_trace_and_the_timing_sample(hash_loop):
    """The activity trace logs its first 64 warps, the timing model's recorder its sampled CTAs'
    warps: the loop writes one log for both, each reads its own rows, and the trace and the
    prediction are those of the rounds in Python."""
    rng = np.random.default_rng(4)
    n = 8192                                          # 32 CTAs: samples past the trace's 64 warps
    trips = cp.asarray(rng.integers(0, 40, n).astype(np.uint32))
    a = profiled("numpy", hash_loop, (n // 256,), (256,), (cp.zeros(n, cp.uint32), trips), gpu="h200")
    program = hash_loop.loaded_module.program
    before = sum(program.__dict__["_round_loop"].lanes_by_block.values()) if "_round_loop" in program.__dict__ else 0
    b = profiled("compiled", hash_loop, (n // 256,), (256,), (cp.zeros(n, cp.uint32), trips), gpu="h200")
    assert sum(program.__dict__["_round_loop"].lanes_by_block.values()) - before > n     # the loop ran
    assert a.metrics == b.metrics
    for field in ("active", "ptx_line", "source_line", "issued", "live_lanes"):
        np.testing.assert_array_equal(getattr(a.activity, field), getattr(b.activity, field), err_msg=field)
    assert (a.timing.cycles, a.timing.stalls) == (b.timing.cycles, b.timing.stalls)
