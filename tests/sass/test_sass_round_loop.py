"""The compiled round loop (sass/compiled/round_loop.py) gives the rounds' bits and counts.

Divergent kernels run profiled at SASS level (the SASS run alone) three ways:
on the NumPy steps (engine='numpy'), with the compiled tier but rounds in
Python (no loop), and with the loop. The outputs must match a NumPy reference
and be the same bytes all three ways, and every counter, the per-instruction
counts, the per-line table, the lane histogram and the activity trace must be
equal; the loop must have run rounds. A launch with the timing model predicts
the same time with the tier on and off.
"""

from __future__ import annotations

import numpy as np
import pytest

import warpsim as cp
from warpsim.sass.compiled import round_loop
from warpsim.sass.executor import launch as sass_launch

pytestmark = [pytest.mark.sass, pytest.mark.nvrtc]

SOURCE = r"""
extern "C" __global__ void for_trips(const int* x, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = x[i];
    for (int k = 0; k < (v & 15); ++k) v = v * 3 + k;
    out[i] = v;
}
extern "C" __global__ void long_trips(const int* x, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = x[i];
    int trips = (v & 511) + 300;        // more rounds than one call of the loop runs (LOOP_ROUNDS)
    for (int k = 0; k < trips; ++k) v = v * 3 + k;
    out[i] = v;
}
extern "C" __global__ void while_trips(const int* x, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = x[i] + 1;
    int steps = 0;
    while (v != 1 && steps < 90) { v = (v & 1) ? 3 * v + 1 : v >> 1; ++steps; }
    out[i] = steps;
}
extern "C" __global__ void nested_branches(const int* x, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = x[i];
    int acc = 0;
    for (int k = 0; k < (v & 7) + 1; ++k) {
        if ((v >> k) & 1) {
            if (k & 1) acc += v * k; else acc ^= v + k;
        } else {
            acc -= k;
            if (acc < -5) acc = acc * 3;
        }
    }
    out[i] = acc;
}
extern "C" __global__ void early_exits(const int* x, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = x[i];
    if ((v & 3) == 0) return;
    for (int k = 0; k < 40; ++k) {
        v = v * 5 + 1;
        if ((v & 31) == 7) { out[i] = k; return; }
    }
    out[i] = -v;
}
extern "C" __global__ void loop_with_barrier(const int* x, int* out) {
    __shared__ int tile[128];
    int t = threadIdx.x;
    int v = x[blockIdx.x * 128 + t];
    for (int round = 0; round < 3; ++round) {
        for (int k = 0; k < (v & 7); ++k) v = v * 7 + k;
        tile[t] = v;
        __syncthreads();
        v += tile[t ^ 1];
        __syncthreads();
    }
    out[blockIdx.x * 128 + t] = v;
}
"""

N = 8192                # several tiles of lanes (tiled.TILE_CHUNK) and several warps per CTA


def wrap(value: int) -> int:
    """A Python integer as the int32 the kernel holds (two's complement wrap-around)."""
    return (value + 2**31) % 2**32 - 2**31


def trips_for(v: int) -> int:
    k = 0
    while k < (v & 15):             # the bound is read again each trip, from the new v
        v = wrap(v * 3 + k)
        k += 1
    return v


def reference(kernel: str, x: np.ndarray) -> np.ndarray:
    """What each thread of `kernel` writes (untouched: 12345)."""
    out = np.full(N, 12345, dtype=np.int64)
    for i, v in enumerate(int(v) for v in x):
        if kernel == "for_trips":
            out[i] = trips_for(v)
        elif kernel == "long_trips":
            for k in range((v & 511) + 300):
                v = wrap(v * 3 + k)
            out[i] = v
        elif kernel == "while_trips":
            u, steps = (v + 1) & 0xFFFFFFFF, 0
            while u != 1 and steps < 90:
                u, steps = ((3 * u + 1) & 0xFFFFFFFF if u & 1 else u >> 1), steps + 1
            out[i] = steps
        elif kernel == "nested_branches":
            acc = 0
            for k in range((v & 7) + 1):
                if (v >> k) & 1:
                    acc = wrap(acc + v * k) if k & 1 else acc ^ wrap(v + k)
                else:
                    acc = wrap(acc - k)
                    acc = wrap(acc * 3) if acc < -5 else acc
            out[i] = acc
        elif kernel == "early_exits":
            if i >= N - 100 or (v & 3) == 0:
                continue
            for k in range(40):
                v = wrap(v * 5 + 1)
                if (v & 31) == 7:
                    out[i] = k
                    break
            else:
                out[i] = wrap(-v)
    return out.astype(np.int32)


def barrier_reference(x: np.ndarray) -> np.ndarray:
    v = [int(a) for a in x]
    for _ in range(3):
        for t in range(N):
            k = 0
            while k < (v[t] & 7):
                v[t] = wrap(v[t] * 7 + k)
                k += 1
        v = [wrap(v[t] + v[t ^ 1]) for t in range(N)]      # t ^ 1 stays in the CTA of 128
    return np.array(v, dtype=np.int32)


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(code=SOURCE)


def _launch(module, kernel: str, x: np.ndarray, engine: str, loop: bool, monkeypatch, gpu=None):
    """(output bytes, the launch's profile, rounds the loop ran) of one profiled launch."""
    ran = []
    original = round_loop.RoundLoop.run

    def counted(self, st, patience, limit):
        before = st.rounds
        found = original(self, st, patience, limit)
        ran.append(st.rounds - before)
        return found
    monkeypatch.setattr(round_loop.RoundLoop, "run", counted)
    monkeypatch.setattr(sass_launch, "round_loop_for",
                        round_loop.round_loop_for if loop else (lambda st, engine: None))
    out = cp.asarray(np.full(N, 12345, dtype=np.int32))
    xs = cp.asarray(x)
    args = {"early_exits": (xs, out, np.int32(N - 100))}.get(kernel, (xs, out))
    with cp.settings(engine=engine, sass_verify=False, **({"gpu": gpu} if gpu else {})), cp.profile() as prof:
        module.get_function(kernel)((N // 128,), (128,), args)
    launch = prof.launches[0]
    assert launch.execution == "sass", launch.execution_note
    return out.get(), launch, sum(ran)


def _summary(launch) -> dict:
    activity = launch.activity
    return {"metrics": launch.metrics, "sass_counts": launch.sass_counts,
            "lines": [(r.line, r.inst, r.thread_inst) for r in launch.lines],
            "histogram": launch.histogram.tolist(),
            **{name: getattr(activity, name).tolist() for name in ("active", "ptx_line", "source_line", "issued",
                                                                  "live_lanes")}}


@pytest.mark.parametrize("kernel", ["for_trips", "long_trips", "while_trips", "nested_branches", "early_exits",
                                    "loop_with_barrier"])
def test_the_loop_gives_the_bits_and_counts_of_the_rounds_in_python(module, kernel, monkeypatch):
    rng = np.random.default_rng(hash(kernel) % 1000)
    x = rng.integers(-2**31, 2**31, N).astype(np.int32)
    expected = barrier_reference(x) if kernel == "loop_with_barrier" else reference(kernel, x)
    runs = {}
    for engine, loop in (("numpy", False), ("compiled", False), ("compiled", True)):
        out, launch, rounds = _launch(module, kernel, x, engine, loop, monkeypatch)
        np.testing.assert_array_equal(out, expected, err_msg=f"{kernel} {engine} loop={loop}")
        runs[engine, loop] = out.tobytes(), _summary(launch), rounds
    assert runs["compiled", True][2] > 0                    # the loop ran rounds
    assert runs["numpy", False][2] == runs["compiled", False][2] == 0
    reference_bytes, reference_summary, _ = runs["numpy", False]
    for key, (data, summary, _) in runs.items():
        assert data == reference_bytes, key
        for name, value in reference_summary.items():
            assert summary[name] == value, (key, name)


@pytest.mark.parametrize("kernel", ["while_trips", "nested_branches", "early_exits"])
def test_the_timing_model_predicts_the_same_time_with_the_tier_on_and_off(module, kernel, monkeypatch):
    """The timing model's recorder takes the loop's record: its sampled CTAs' issues, lanes and BSYNC
    arrivals from the log it shares with the activity trace, every CTA's work from the per-warp issues.
    The prediction is the rounds' in Python, to the bit."""
    x = np.random.default_rng(5).integers(0, 1000, N).astype(np.int32)
    found = {}
    for engine, loop in (("numpy", False), ("compiled", False), ("compiled", True)):
        out, launch, rounds = _launch(module, kernel, x, engine, loop, monkeypatch, gpu="h200")
        found[engine, loop] = rounds, (out.tobytes(), launch.timing.cycles, launch.timing.stalls,
                                       launch.timing.achieved_occupancy, launch.metrics, _summary(launch)["active"])
    assert found["compiled", True][0] > 0                 # the loop ran rounds
    assert found["numpy", False][1] == found["compiled", False][1] == found["compiled", True][1]


def test_the_table_covers_loops_and_names_what_it_does_not(module):
    from warpsim.sass import sass_of
    from warpsim.sass.compiled.loop_table import LoopTable
    from warpsim.sass.executor import load_program
    program, _ = load_program(sass_of(module.get_function("while_trips").loaded_module), "while_trips")
    table = LoopTable(program, program.segments)
    loop_blocks = [b for b in program.blocks if b.control is not None and b.control.jump is not None
                   and b.guards[-1] is not None and 0 in program.segments.get(b.index, {})
                   and program.segments[b.index][0].stop == len(b.steps) - 1]     # value instructions, @P BRA
    assert loop_blocks and all(table.block_at_pc[b.start] == b.index for b in loop_blocks)
    assert "not a value instruction" in table.why[0]          # the first block loads: the engine runs it


def test_the_select_from_kept_places_chooses_what_the_select_from_lanes_chooses(module):
    """select_groups deciding from a warp's places (places.py) fills what it fills reading the warp's lanes,
    on random PCs (block starts, BSYNCs among them, exited lanes), barriers and rotation states."""
    from warpsim.sass import sass_of
    from warpsim.sass.compiled.places import UNKNOWN
    from warpsim.sass.compiled.rounds import Select, select_groups
    from warpsim.sass.executor import load_program
    from warpsim.sass.executor.state import SassState
    program, _ = load_program(sass_of(module.get_function("nested_branches").loaded_module), "nested_branches")
    starts = np.array([b.start for b in program.blocks if program.steps[b.start].wait is None
                       or program.steps[b.start].wait[0] == "bsync"])
    rng = np.random.default_rng(8)

    class Memory:
        buffer = np.zeros(8, dtype=np.uint8)
    for trial in range(40):
        st = SassState(program, (1, 1, 1), (512, 1, 1), np.arange(1), {0: np.zeros(4096, np.uint8)}, 0, 16, Memory())
        places_per_warp = rng.integers(1, 9, st.n_warps)
        for w in range(st.n_warps):
            st.pc[w * 32:(w + 1) * 32] = rng.choice(np.append(rng.choice(starts, places_per_warp[w]), -1), 32)
        st.B[:] = rng.random(st.B.shape) < 0.7
        st.starved[:] = rng.integers(0, 40, st.n_warps)
        st.rotating[:] = rng.random(st.n_warps) < 0.3
        st.last_pc[:] = rng.choice(starts, st.n_warps)
        yields = np.ones_like(program.yields) if trial % 2 else program.yields     # rotating warps may switch
        found = []
        for kept in (False, True):
            state = [a.copy() for a in (st.starved, st.rotating, st.last_pc)]
            select = Select(st)
            if kept:
                select.places[2][:] = UNKNOWN
            n_places = select.places[2] if kept else select.not_kept
            groups, live = select_groups(st.pc, program.wait_kind, select.bsync_barrier, st.B, state[0], state[1],
                                         state[2], yields, 12, select.exited, *select.buffers,
                                         *select.places[:2], n_places)
            out = select.groups(groups) if groups > 0 else []
            found.append((groups, live, [a.tolist() for a in state], select.exited.tolist(),
                          [(pc, g.idx.tolist(), [r.tolist() for r in g.warp_runs()]) for pc, g in out]))
        assert found[0] == found[1], trial
        assert (select.places[2] >= 0).any()            # some warps were decided from their places
