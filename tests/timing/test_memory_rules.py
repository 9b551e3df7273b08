"""The model's rules for partly written sectors, atomics over L2 slices, and tensor-core shapes."""

import numpy as np
import pytest

import warpsim as ws
from warpsim.timing import gpu_preset, predict, record_execution
from warpsim.timing.pipes import tensor_cycles

SOURCE = r"""
extern "C" __global__ void scatter(float* out, const float* in, int n, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[(long long)i * stride] = in[i] * 3.0f;
}
extern "C" __global__ void gather(float* out, const float* in, int n, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[(long long)i * stride] * 3.0f;
}
extern "C" __global__ void hashed_gather(float* out, const float* in, unsigned mask) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x, h = i * 2654435761u;
    h ^= h >> 15;
    float v = in[(h * 2246822519u) & mask];
    if (v < 0.0f) out[i] = v;                       // never: the reads alone
}
extern "C" __global__ void reread(float* out, const float* in, int n, int strong) {
    // every thread reads its CTA's 256 floats twice, a pass apart: plain loads find them in L1 again
    int base = blockIdx.x * blockDim.x;
    float acc = 0.0f;
    for (int pass = 0; pass < 2; ++pass)
        for (int k = 0; k < 8; ++k) {
            const float* p = in + base + (threadIdx.x + 32 * k) % blockDim.x;
            acc += strong ? __ldcg(p) : *p;
        }
    if (base + threadIdx.x < n) out[base + threadIdx.x] = acc;
}
extern "C" __global__ void add_at(int* acc, const int* in, int n, int per_warp) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&acc[per_warp ? (i >> 5) : i], in[i]);
}
extern "C" __global__ void add_kept(int* acc, int* old, const int* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;      // ATOMG: the old value is stored
    if (i < n) old[i] = atomicAdd(&acc[i >> 5], in[i]);
}
extern "C" __global__ void add_in_line(int* acc, const int* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;      // a warp's lanes on 32 words of one line
    if (i < n) atomicAdd(&acc[i & 31], in[i]);
}
extern "C" __global__ void add_spread(int* acc, const int* in, int n, int words) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;      // each lane on a line of its own
    if (i < n) atomicAdd(&acc[(int)(((long long)i * 7919) % words)], in[i]);
}
extern "C" __global__ void hashed_adds(unsigned* table, unsigned mask, int reps) {
    // a hash table's updates: each lane's word picked by a mixing hash, REDs in a loop after it
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x, threads = gridDim.x * blockDim.x;
    for (int r = 0; r < reps; ++r) {
        unsigned h = t + r * threads;
        h ^= h >> 16; h *= 0x7feb352du; h ^= h >> 15; h *= 0x846ca68bu; h ^= h >> 16;
        atomicAdd(&table[h & mask], 1u);
    }
}
"""


@pytest.fixture(scope="module")
def mod():
    return ws.RawModule(code=SOURCE)


def _run(mod, name, grid, block, args, record=False):
    from warpsim.api.raw import pack_arguments
    k = mod.get_function(name)
    params = pack_arguments(k.kernel_name, k.params, args)
    if record:
        return record_execution(k.loaded_module, k.kernel_name, (grid,), (block,), params, 0)
    return predict(k.loaded_module, k.kernel_name, (grid,), (block,), params, 0, gpu="h200")


def test_partly_written_sectors_are_counted_and_cost_hbm_time(mod):
    rng = np.random.default_rng(1)
    n = 1 << 14
    x = ws.asarray(rng.random(n, dtype=np.float32) + 0.5)
    partial = {}
    times = {}
    for stride in (1, 2, 8):
        out = ws.zeros(n * stride, dtype=np.float32)
        ex = _run(mod, "scatter", n // 256, 256, (out, x, np.int32(n), np.int32(stride)), record=True)
        partial[stride] = sum(m.partial_lines for m in ex.memory.values())
        np.testing.assert_allclose(out.get()[::stride][:256], 3 * x.get()[:256])   # CTA 0 is sampled
        times[stride] = _run(mod, "scatter", n // 256, 256, (out, x, np.int32(n), np.int32(stride))).time_s
    assert partial[1] == 0                       # whole sectors: no fill from HBM
    assert partial[2] > 0 and partial[8] > partial[2]
    assert times[8] > times[2] > times[1]


def test_strong_loads_send_every_reread_to_the_l2(mod):
    from warpsim.timing.model import KernelCosts
    n = 1 << 16
    x = ws.asarray(np.random.default_rng(3).random(n, dtype=np.float32))
    out = ws.zeros(n, dtype=np.float32)
    misses = {}
    for strong in (0, 1):
        ex = _run(mod, "reread", n // 256, 256, (out, x, np.int32(n), np.int32(strong)), record=True)
        expected = sum(x.get()[:256][(np.arange(256)[:, None] + 32 * np.arange(8)) % 256].sum(axis=1) for _ in range(2))
        np.testing.assert_allclose(out.get()[:256], expected, rtol=1e-5)       # CTA 0 is sampled
        costs = KernelCosts(ex, gpu_preset("h200"), 132, 0.0)
        loads = {i: m for i, m in ex.memory.items() if m.kind == "load" and m.space == "global"}
        misses[strong] = sum(costs.misses[i] for i in loads) / sum(m.cta_unique_sectors for m in loads.values())
    assert misses[0] == pytest.approx(1.0)       # a CTA's first touches reach the L2, its re-reads hit L1
    assert misses[1] >= 15.9                     # ld.global.cg: 8 loads x 2 passes of the same sectors


def test_atomics_on_one_address_per_warp_are_bound_by_the_slices_a_wave_reaches(mod):
    n = 1 << 18
    vals = ws.asarray(np.random.default_rng(2).integers(1, 8, size=n).astype(np.int32))
    per_warp = _run(mod, "add_at", n // 256, 256, (ws.zeros(n // 32, dtype=np.int32), vals, np.int32(n), np.int32(1)))
    distinct = _run(mod, "add_at", n // 256, 256, (ws.zeros(n, dtype=np.int32), vals, np.int32(n), np.int32(0)))
    assert per_warp.details["bounds"]["atomics"] > per_warp.details["bounds"]["execution"] * 0.5
    assert per_warp.time_s > 2 * distinct.time_s   # 32 lanes on one address serialise at its slice


def test_warps_wait_for_serialised_atomics_at_exit_only_where_reductions_queue_on_one_address(mod):
    n = 1 << 18
    vals = ws.asarray(np.random.default_rng(3).integers(1, 8, size=n).astype(np.int32))
    acc = ws.zeros(n // 32, dtype=np.int32)
    timings = {"reduction": _run(mod, "add_at", n // 256, 256, (acc, vals, np.int32(n), np.int32(1))),
               "kept": _run(mod, "add_kept", n // 256, 256, (acc, ws.zeros(n, dtype=np.int32), vals, np.int32(n))),
               "in_line": _run(mod, "add_in_line", n // 256, 256, (acc, vals, np.int32(n)))}
    assert all(t.bottleneck == "atomics" for t in timings.values())
    assert timings["reduction"].top_stall == "drain"
    assert timings["kept"].top_stall == timings["in_line"].top_stall == "long_scoreboard"


def test_serialized_atomics_keep_an_sm_of_many_small_ctas_fuller(mod):
    # while the L2 serializes the REDs the slots stay filled, their CTAs' warps leaving apart: 8 CTAs of
    # 256 an SM hold more of their warps than 2 of 1,024 (fifty-second batch: 79% and 56%)
    n = 1 << 18
    vals = ws.asarray(np.random.default_rng(3).integers(1, 8, size=n).astype(np.int32))
    acc = ws.zeros(n // 32, dtype=np.int32)
    by_block = {b: _run(mod, "add_at", n // b, b, (acc, vals, np.int32(n), np.int32(1))) for b in (256, 1024)}
    assert all(t.bottleneck == "atomics" for t in by_block.values())
    assert by_block[256].achieved_occupancy > 74 > by_block[1024].achieved_occupancy + 10


def test_atomic_lanes_alone_on_their_lines_spread_over_the_slices_and_read_their_sectors(mod):
    n, words = 1 << 20, 1 << 20
    vals = ws.asarray(np.random.default_rng(4).integers(1, 8, size=n).astype(np.int32))
    acc = ws.zeros(words, dtype=np.int32)
    args = (acc, vals, np.int32(n), np.int32(words))
    ex = _run(mod, "add_spread", n // 256, 256, args, record=True)
    site = next(m for m in ex.memory.values() if m.kind == "atomic")
    assert site.atomic_lanes_lone == site.atomic_lanes_single > 0      # one lane, one address, a line each
    assert ex.footprint_read >= site.sectors * 32 * 0.9 // 2 > 0         # read before written (64-byte chunks)
    timing = _run(mod, "add_spread", n // 256, 256, args)
    h200 = gpu_preset("h200")
    lanes_per_clock = n / (timing.details["bounds"]["atomics"] or timing.cycles)
    assert lanes_per_clock == pytest.approx(h200.atomic_spread_units, rel=0.25)
    assert h200.atomic_spread_units > h200.atomic_units       # more than lanes queued on one address a warp


def test_tensor_core_time_follows_the_instruction_shape():
    h200 = gpu_preset("h200")
    wide = tensor_cycles("HGMMA", ("64x256x16", "F32"), h200)
    narrow = tensor_cycles("HGMMA", ("64x16x16", "F32"), h200)
    assert wide == pytest.approx(16 * narrow, rel=0.01)     # the H200's measured intervals, about N / 2
    # the same m64nNk shape takes as long in TF32 (k 8) and FP8 (k 32) as in 16-bit inputs (k 16)
    assert tensor_cycles("HGMMA", ("64x64x8", "F32", "TF32"), h200) == pytest.approx(
        tensor_cycles("HGMMA", ("64x64x16", "F32"), h200))
    assert tensor_cycles("HGMMA", ("64x64x32", "F32", "E4M3", "E4M3"), h200) == pytest.approx(
        tensor_cycles("HGMMA", ("64x64x16", "F32"), h200))
    # mma.sync runs at its measured rate: m16n8k8 is half of m16n8k16
    assert tensor_cycles("HMMA", ("1688", "F32"), h200) == pytest.approx(
        tensor_cycles("HMMA", ("16816", "F32"), h200) / 2)


LANES_SOURCE = r"""
extern "C" __global__ void add_from_lanes(int* line, int active, int stride) {
    int lane = threadIdx.x & 31;
    if (lane < active) atomicAdd(&line[(lane * stride) & 31], 1);
}
// every warp adds to `lines` lines in turn, `per_line` lanes on their own words of each, the lines
// `line_words` apart (the fifty-seventh batch's REDs)
extern "C" __global__ void add_to_lines(float* bins, int per_line, int lines, int line_words, int iters) {
    int lane = threadIdx.x & 31, line = lane / per_line;
    if (line >= (32 / per_line < lines ? 32 / per_line : lines)) return;
    for (int it = 0; it < iters; ++it)
        atomicAdd(bins + ((line + it) & (lines - 1)) * line_words + lane % per_line, 1.0f);
}
"""


def _atomics_bound(kernel, grid, args, gpu="h200"):
    from warpsim.api.raw import pack_arguments
    params = pack_arguments(kernel.kernel_name, kernel.params, args)
    return predict(kernel.loaded_module, kernel.kernel_name, (grid, 1, 1), (256, 1, 1), params, 0,
                   gpu=gpu).details["bounds"]["atomics"]


def test_a_line_pass_of_atomics_costs_by_the_sectors_it_names():
    from warpsim.api.raw import pack_arguments
    from warpsim.timing.execution import PASS_WHOLE_LINE
    kernel = ws.RawModule(code=LANES_SOURCE).get_function("add_from_lanes")
    line = ws.zeros(32, dtype=np.int32)
    bounds, kinds = {}, {}
    for active, stride in ((32, 1), (16, 1), (8, 1), (8, 4)):
        args = (line, np.int32(active), np.int32(stride))
        params = pack_arguments(kernel.kernel_name, kernel.params, args)
        ex = record_execution(kernel.loaded_module, kernel.kernel_name, (1024, 1, 1), (256, 1, 1), params, 0)
        (site,) = [m for m in ex.memory.values() if m.kind == "atomic"]
        kinds[active, stride] = {kind for _, kind, _ in site.atomic_hot_passes}
        bounds[active, stride] = _atomics_bound(kernel, 1024, args)
    assert kinds == {(32, 1): {PASS_WHOLE_LINE}, (16, 1): {2}, (8, 1): {1}, (8, 4): {4}}
    # the H200's whole line against 16 lanes' two sectors, 5.0 / 2.42 cycles a request (microbench12.json);
    # the H100's 16 words spread over four sectors (a histogram of 64 bins) against two sectors, 5.06 / 2.0
    assert bounds[32, 1] / bounds[16, 1] == pytest.approx(5.0 / 2.42, rel=0.05)
    assert bounds[8, 4] / bounds[16, 1] == pytest.approx(5.06 / 2.0, rel=0.1)
    assert bounds[8, 1] < bounds[16, 1]


def test_a_chunks_two_halves_serve_atomics_at_once_and_one_line_alone_waits_on_its_adds():
    """Fifty-seventh batch (an H100): f32 REDs of 16 lanes a line over four lines of a 512-byte chunk took
    198.6 us, over two lines of one half 371.0, over two lines 512 bytes apart 373.9; 8 lanes a line over
    one line 461.8 (its adds wait on each other), over two 324.9."""
    kernel = ws.RawModule(code=LANES_SOURCE).get_function("add_to_lines")
    # which 256-byte blocks share a unit follows the address: the lines start on a 1 KB boundary, as a
    # fresh allocation's do on the GPU
    room = ws.zeros(512 + 256, dtype=np.float32)
    start = (-room.data.ptr % 1024) // 4
    bins = room[start:start + 512]

    def bound(per_line, lines, line_words=32):
        passes = min(lines, 32 // per_line)          # a warp's passes an iteration: as many in every launch
        return _atomics_bound(kernel, 1056, (bins, np.int32(per_line), np.int32(lines), np.int32(line_words),
                                             np.int32(16 // passes)), gpu="h100")
    assert bound(16, 2) / bound(16, 4) == pytest.approx(371.0 / 198.6, rel=0.1)
    assert bound(16, 2, line_words=128) == pytest.approx(bound(16, 2), rel=0.05)
    assert bound(8, 1) / bound(8, 2) == pytest.approx(461.8 / 324.9, rel=0.1)


STREAM = r"""
extern "C" __global__ void stream_region(const int4* __restrict__ base, int region_words, int sharers,
                                         int rounds, int4* sink) {
    const int4* region = base + (long long)(blockIdx.x / sharers) * region_words;
    int4 acc = make_int4(0, 0, 0, 0);
    for (int r = 0; r < rounds; ++r)
        for (int i = threadIdx.x; i < region_words; i += blockDim.x) {
            int4 v = __ldcg(region + i);
            acc.x ^= v.x; acc.y ^= v.y; acc.z ^= v.z; acc.w ^= v.w;
        }
    if (acc.x == 0x12345678 && acc.y == 0x9abcdef) sink[blockIdx.x] = acc;
}
"""


def test_reads_many_ctas_share_reach_the_l2_merged():
    from warpsim.api.raw import pack_arguments
    from warpsim.timing.model import merged_share
    assert merged_share(0.5, 1) == 1.0 and merged_share(0.5, 0.3) == 1.0
    assert merged_share(0.5, 8) > merged_share(0.5, 100) > 0.5
    k = ws.RawModule(code=STREAM).get_function("stream_region")
    grid, words = 132 * 8, 1024                       # 16 KB a CTA, read once (L1 bypassed)
    base = ws.asarray(np.random.default_rng(3).integers(0, 2**31, grid * words * 4, dtype=np.int32))
    sink = ws.zeros(grid * 4, dtype=np.int32)
    runs = {}
    for sharers in (1, grid):
        params = pack_arguments(k.kernel_name, k.params,
                                (base, np.int32(words), np.int32(sharers), np.int32(1), sink))
        runs[sharers] = predict(k.loaded_module, k.kernel_name, (grid,), (256,), params, 0, gpu="h200")
    own, shared = runs[1], runs[grid]
    floor = gpu_preset("h200").l2_merged_floor_load
    # the same requests; the shared region's reach the L2 about `floor` as often
    assert shared.details["l2_bytes"] < own.details["l2_bytes"] * (floor + 0.05)
    assert shared.details["l2_bytes"] > own.details["l2_bytes"] * (floor - 0.05)
    assert sink.get().sum() == 0


MMA_SOURCE = r"""
#include <mma.h>
using namespace nvcuda;
extern "C" __global__ void mma_beside_ffma(const half* a, const half* b, float* c, int mma_rounds, int ffma_rounds) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    float f[8];
    for (int j = 0; j < 8; ++j) f[j] = threadIdx.x + j;
    for (int r = 0; r < mma_rounds; ++r) wmma::mma_sync(acc, fa, fb, acc);
    for (int r = 0; r < ffma_rounds; ++r)
        for (int j = 0; j < 8; ++j) f[j] = fmaf(f[j], 1.0001f, 0.5f);
    float s = 0.0f;
    for (int j = 0; j < 8; ++j) s += f[j];
    acc.x[0] += s * 0.0f;
    wmma::store_matrix_sync(c + blockIdx.x * 256 * (blockDim.x / 32) + (threadIdx.x / 32) * 256, acc, 16,
                            wmma::mem_row_major);
}
"""


def _mma_runs(grid: int, block: int, rounds: dict, seed: int) -> dict:
    """Predicted timings of mma_beside_ffma per name of `rounds` ({name: (mma rounds, FFMA rounds)}),
    each run's first tile checked against the product of its random inputs."""
    from warpsim.api.raw import pack_arguments
    k = ws.RawModule(code=MMA_SOURCE, options=("-arch=sm_90",)).get_function("mma_beside_ffma")
    rng = np.random.default_rng(seed)
    a = ws.asarray(rng.uniform(-1, 1, 256).astype(np.float16))
    b = ws.asarray(rng.uniform(-1, 1, 256).astype(np.float16))
    product = a.get().astype(np.float32).reshape(16, 16) @ b.get().astype(np.float32).reshape(16, 16).T
    runs = {}
    for name, (mma_rounds, ffma_rounds) in rounds.items():
        c = ws.zeros(grid * block * 8, dtype=np.float32)
        params = pack_arguments(k.kernel_name, k.params, (a, b, c, np.int32(mma_rounds), np.int32(ffma_rounds)))
        runs[name] = predict(k.loaded_module, k.kernel_name, (grid,), (block,), params, 0, gpu="h200")
        np.testing.assert_allclose(c.get()[:256].reshape(16, 16), product * mma_rounds, rtol=1e-3, atol=1e-2)
    return runs


def test_a_launch_that_keeps_the_tensor_cores_busy_runs_at_the_tensor_clock():
    h200 = gpu_preset("h200")
    runs = _mma_runs(132 * 4, 128, {"mma": (256, 0), "fma": (0, 2048)}, seed=4)
    mma, fma = runs["mma"], runs["fma"]
    assert mma.details["tensor_busy"] >= 0.2 and fma.details["tensor_busy"] == 0.0
    overhead = 2e-6
    assert mma.time_s - overhead == pytest.approx(mma.cycles / (h200.tensor_clock_mhz * 1e6), rel=1e-6)
    assert fma.time_s - overhead == pytest.approx(fma.cycles / (h200.kernel_clock_mhz * 1e6), rel=1e-6)
    assert any("SM clock" in n for n in mma.notes)


def test_tensor_core_time_and_fp32_issues_of_a_sub_partition_add_up():
    runs = _mma_runs(132, 1024, {"mma": (512, 0), "ffma": (0, 1024), "both": (512, 1024)}, seed=5)
    cycles = {name: t.cycles for name, t in runs.items()}
    # the same warps' mma and FFMA work: the sub-partition is held for both, not for the larger alone
    assert cycles["both"] > max(cycles["mma"], cycles["ffma"]) + 0.5 * min(cycles["mma"], cycles["ffma"])


HALF_IDLE_SOURCE = r"""
extern "C" __global__ void half_idle(float* out, int rounds, int busy_warps) {
    float f[8];
    for (int j = 0; j < 8; ++j) f[j] = threadIdx.x + j;
    __syncthreads();
    if (threadIdx.x / 32 < busy_warps)
        for (int r = 0; r < rounds; ++r)
            for (int j = 0; j < 8; ++j) f[j] = fmaf(f[j], 1.0001f, 0.5f);
    float s = 0.0f;
    for (int j = 0; j < 8; ++j) s += f[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
"""


def test_idle_warps_of_a_cta_do_not_queue_beside_its_busy_ones():
    from warpsim.api.raw import pack_arguments
    k = ws.RawModule(code=HALF_IDLE_SOURCE).get_function("half_idle")
    cycles = {}
    for warps in (4, 8):                    # four busy warps alone, and beside four idle ones
        out = ws.zeros(132 * 32 * warps, dtype=np.float32)
        params = pack_arguments(k.kernel_name, k.params, (out, np.int32(2000), np.int32(4)))
        cycles[warps] = predict(k.loaded_module, k.kernel_name, (132,), (32 * warps,), params, 0, gpu="h200").cycles
        got = out.get().reshape(132, 32 * warps)[0]
        f = np.arange(32 * warps, dtype=np.float32)[:, None] + np.arange(8, dtype=np.float32)
        busy = np.arange(32 * warps) < 128
        for _ in range(2000):
            f[busy] = (f[busy].astype(np.float64) * np.float32(1.0001) + 0.5).astype(np.float32)
        np.testing.assert_allclose(got, f.sum(axis=1), rtol=1e-4)
    assert cycles[8] == pytest.approx(cycles[4], rel=0.02)     # queueing with the idle four: +4.8%


def test_stores_back_to_back_to_the_same_sectors_are_charged_as_one():
    """A cycle for each sector a run of stores fills, two for each it writes in part: four 4-byte stores
    in a row whose lanes sit 16 bytes apart fill each of their 16 sectors together (16 cycles for the
    four requests); one of them alone leaves all 16 partial (32)."""
    from warpsim.timing.execution import store_run_cycles
    lanes = np.arange(32, dtype=np.int64) * 16
    run = [(lanes + 4 * k, 4) for k in range(4)]
    assert store_run_cycles(run) == 16
    assert store_run_cycles(run[:1]) == 32
    coalesced = np.arange(32, dtype=np.int64) * 4       # one line's four sectors, filled
    assert store_run_cycles([(coalesced, 4)]) == 4
    scattered = np.arange(32, dtype=np.int64) * 128     # 32 lines, four bytes of each
    assert store_run_cycles([(scattered, 4)]) == 64


@pytest.mark.parametrize("lines, sms", [(1, 1), (4, 33), (8, 1), (32, 33)])
def test_a_store_holds_the_lsu_a_cycle_a_sector_it_fills_and_two_a_sector_it_writes_in_part(lines, sms):
    """microbench19's mb19_scatter (the H200's cubin), stores from 32 warps on each of 1 or 33 SMs, each
    warp's 32 lanes spread over `lines` lines of its own: the H200 took 4.0 cycles a request per SM for
    one line's four sectors and for four lines' one sector each, 16.0 for eight half sectors, 64.0 for
    32 four-byte pieces. The model within 15%."""
    import json
    import pathlib
    from warpsim.api.raw import pack_arguments
    here = pathlib.Path(__file__).parents[2] / "validation" / "timing"
    measured = json.loads((here / "h200" / "microbench19.json").read_text())
    want = next(r for r in measured if r["kernel"] == "mb19_scatter" and
                (r["mode"], r["lines"], r["warps_per_sm"], r["sms"]) == (0, lines, 32, sms))["cycles_per_request"]
    f = ws.RawModule(path=str(here / "microbench19.cubin")).get_function("mb19_scatter")
    buf, clocks = ws.zeros(sms * 32 * 4 * 32 * 32, dtype=np.int32), ws.zeros(2 * sms, dtype=np.int64)
    cycles = []
    for iters in (16, 32):
        args = (buf, clocks, np.int32(lines), np.int32(iters), np.int32(0), np.int32(0))
        params = pack_arguments(f.kernel_name, f.params, args)
        cycles.append(predict(f.loaded_module, f.kernel_name, (sms,), (1024,), params, 0, gpu="h200",
                              max_ctas=1).cycles)
    per_request = (cycles[1] - cycles[0]) / (16 * 4 * 32)
    assert per_request == pytest.approx(want, rel=0.15)


@pytest.mark.parametrize("kernel", ["mb19_hist_char", "mb19_hist_int"])
def test_a_histogram_in_local_memory_is_paced_by_its_stores_partial_sectors(kernel):
    """microbench19's local-memory histograms (the H200's cubin; 4,096 CTAs of 256 threads, 25 counts
    each into a 16-entry array indexed by a random byte): the hardware interleaves the lanes' local
    words, so a warp's STL of its counters touches 13 (chars) or 17 (ints) sectors, each in part, and
    the H200 took 128-132 and 266-268 us. The model, from the lanes' interleaved words, within 20% (it
    was 0.43x and 0.21x while it saw a warp's 16 bytes of counters as one sector)."""
    import json
    import pathlib
    import sys
    from warpsim.api.raw import pack_arguments
    here = pathlib.Path(__file__).parents[2] / "validation" / "timing"
    sys.path.insert(0, str(here))
    import run_microbench19 as mb
    measured = json.loads((here / "h200" / "microbench19.json").read_text())
    want = next(r for r in measured if r["kernel"] == kernel)["event_us"]
    config = next(c for c in mb.HISTS if c["kernel"] == kernel)
    f = ws.RawModule(path=str(here / "microbench19.cubin")).get_function(kernel)
    grid, block, args, shared = mb.arguments(ws, config, mb.buffers_for(ws))
    t = predict(f.loaded_module, f.kernel_name, (grid,), (block,), pack_arguments(f.kernel_name, f.params, args),
                shared, gpu="h200", max_ctas=4)
    assert t.time_s * 1e6 == pytest.approx(want, rel=0.2)


def test_chunk_spread_counts_doublings_of_the_gaps_between_a_requests_64_byte_chunks():
    from warpsim.timing.execution import SPREAD_DOUBLINGS, chunk_spread
    lanes = np.arange(32)
    warps = np.zeros(32, np.int64)
    assert chunk_spread(warps, (4 * lanes).astype(np.uint64)) == (1, 0.0)        # 128 bytes: chunks side by side
    assert chunk_spread(warps, (128 * lanes).astype(np.uint64)) == (31, 31.0)     # 2 chunks apart: one doubling
    assert chunk_spread(warps, (4096 * lanes).astype(np.uint64)) == (31, 31.0 * SPREAD_DOUBLINGS)
    two = np.repeat([0, 1], 16)                                                    # gaps inside each warp only
    assert chunk_spread(two, (256 * np.tile(np.arange(16), 2)).astype(np.uint64)) == (30, 60.0)


def test_reads_hbm_serves_slower_the_farther_apart_their_chunks_lie(mod):
    """The thirty-first batch: 1M floats read 32 and 128 floats apart move the same 64-byte chunks from
    HBM, 21.0 and 27.3 us on the H200; a warp's request asks for the same sectors and lines either way."""
    n = 1 << 20
    x = ws.asarray(np.random.default_rng(3).random(n * 128, dtype=np.float32))
    out = ws.empty(n, dtype=np.float32)
    near, far = (_run(mod, "gather", n // 256, 256, (out, x, np.int32(n), np.int32(s))) for s in (32, 128))
    assert far.details["dram_bytes"] == pytest.approx(near.details["dram_bytes"], rel=0.02)
    assert far.time_s > 1.1 * near.time_s


def test_partly_written_lines_cost_hbm_more_the_farther_apart_they_lie(mod):
    """The thirty-first batch: 1M floats written 32 and 128 floats apart, one partly written line each,
    39.3 and 57.5 us on the H200 (1.46x); the sectors, lines and HBM bytes are the same."""
    n = 1 << 20
    x = ws.asarray(np.random.default_rng(4).random(n, dtype=np.float32))
    out = ws.zeros(n * 128, dtype=np.float32)
    near, far = (_run(mod, "scatter", n // 256, 256, (out, x, np.int32(n), np.int32(s))) for s in (32, 128))
    assert far.details["dram_bytes"] == pytest.approx(near.details["dram_bytes"], rel=0.02)
    assert 1.25 < far.time_s / near.time_s < 1.7


def test_lines_with_all_their_sectors_written_in_part_cost_hbm_more_a_line(mod):
    """The thirty-first batch: floats written 8 floats apart leave four partly written sectors a line,
    16 apart two; the H200 takes 15.2 and 19.5 us for 1M of them (a quarter and half as many lines),
    more a line for the four (1.56x) than two lines' worth of the one-sector rows allow."""
    n = 1 << 20
    x = ws.asarray(np.random.default_rng(5).random(n, dtype=np.float32))
    out = ws.zeros(n * 16, dtype=np.float32)
    four, two = (_run(mod, "scatter", n // 256, 256, (out, x, np.int32(n), np.int32(s)), record=True) for s in (8, 16))
    site = next(i for i, m in four.memory.items() if m.kind == "store")
    assert four.memory[site].partial_sectors == 4 * four.memory[site].partial_lines
    assert two.memory[site].partial_sectors == 2 * two.memory[site].partial_lines
    t8, t16 = (_run(mod, "scatter", n // 256, 256, (out, x, np.int32(n), np.int32(s))) for s in (8, 16))
    assert 0.64 < t8.time_s / t16.time_s < 0.9     # half the lines at 1.25x a line, and the sectors' bytes


def test_scattered_lines_are_those_of_requests_at_no_one_stride():
    from warpsim.timing.execution import scattered_lines
    lanes = np.arange(32, dtype=np.uint64)
    one = np.zeros(32, np.int64)
    assert scattered_lines(one, 4 * lanes) == 0                           # one line
    assert scattered_lines(one, 256 * lanes) == 0                         # 32 lines at one stride
    picked = np.random.default_rng(6).permutation(1 << 16)[:32].astype(np.uint64)
    assert scattered_lines(one, 128 * picked) == 32                       # 32 lines picked at random
    two = np.repeat([0, 1], 32)
    assert scattered_lines(two, np.concatenate([256 * lanes, 128 * picked])) == 32    # each request alone


def test_a_gather_through_a_random_index_runs_at_the_l2s_scattered_line_rate(mod):
    """The thirty-fifth batch: one word of each of 32 lines picked at random a request, the lines
    resident in L2, ran at 77-80 L2 requests a clock (l2_scattered_lines_per_clk), 2.6x the rate of
    a whole line's sectors; the thirty-sixth and thirty-seventh: lines at one stride run at that
    rate too, so a gather at one stride takes as long."""
    from warpsim.api.raw import pack_arguments
    source = r"""
    extern "C" __global__ void through(float* out, const float* in, const int* index) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        out[i] = 2.0f * in[index[i]];
    }"""
    f = ws.RawModule(code=source).get_function("through")
    n = 1 << 20
    x, out = ws.asarray(np.random.default_rng(7).random(n, dtype=np.float32)), ws.empty(n, dtype=np.float32)
    times = {}
    for name, index in (("random", np.random.default_rng(8).permutation(n)),
                        ("strided", (np.arange(n) * 32) % n + (np.arange(n) * 32) // n)):
        on_device = ws.asarray(index.astype(np.int32))          # kept alive: the arguments hold its address
        args = pack_arguments(f.kernel_name, f.params, (out, x, on_device))
        ex = record_execution(f.loaded_module, f.kernel_name, (n // 256,), (256,), args, 0)
        site = next(m for m in ex.memory.values() if m.space == "global" and m.kind == "load" and m.lines > m.requests)
        times[name] = (site.scattered_lines / site.lines,
                       predict(f.loaded_module, f.kernel_name, (n // 256,), (256,), args, 0, gpu="h200",
                               warm_l2=True).time_s)
    assert times["random"][0] == pytest.approx(1.0) and times["strided"][0] == 0.0
    assert times["random"][1] == pytest.approx(times["strided"][1], rel=0.15)
    assert gpu_preset("h200").l2_scattered_lines_per_clk == pytest.approx(78.6)


def test_lines_read_at_random_over_more_than_the_l2_are_read_from_hbm_each_time():
    """The thirty-fifth batch: one word of each of 32 random lines a request over 512 MB moved 1,022
    MB from HBM for 17.3M lines (64 bytes a line, the array read twice over); over 32 MB, resident
    in the L2, next to nothing."""
    from warpsim.api.raw import pack_arguments
    source = r"""
    extern "C" __global__ void picks(float* out, const float* in, unsigned lines_mask) {
        unsigned t = blockIdx.x * blockDim.x + threadIdx.x, h = t * 0x9E3779B1u;
        float acc = 0.f;
        for (int k = 0; k < 64; ++k) {
            h ^= h >> 15; h *= 0x2C1B3C6Du; h ^= h >> 12;
            acc += in[(size_t)(h & lines_mask) * 32];
        }
        out[t] = acc;
    }"""
    f = ws.RawModule(code=source).get_function("picks")
    grid, block = 132 * 8, 256
    out = ws.empty(grid * block, dtype=np.float32)
    moved = {}
    for mb in (32, 512):
        src = ws.zeros(mb << 18, dtype=np.float32)
        args = pack_arguments(f.kernel_name, f.params, (out, src, np.uint32((mb << 13) - 1)))
        t = predict(f.loaded_module, f.kernel_name, (grid,), (block,), args, 0, gpu="h200", warm_l2=True)
        moved[mb] = t.details["dram_bytes"]
        del src
    reads, array = grid * block * 64 * 64.0, float(512 << 20)      # 64 bytes a line read
    assert moved[32] < 0.1 * reads
    missed = 1 - gpu_preset("h200").l2_bytes / array
    assert moved[512] == pytest.approx(array + (reads - array) * missed, rel=0.1)


def test_a_gather_over_more_than_half_the_l2_reads_its_blocks_from_hbm_again(mod):
    """The forty-first batch (an H100): 8M reads at random over 4-16 MB moved each 64-byte block from
    HBM once, over 32 and 64 MB 4.1x and 5.7x the region: every SM's lines sit in both halves of the
    L2, so a region past half of it is re-read from HBM about as often as the L2 lost its blocks."""
    n = 1 << 22
    out = ws.empty(n, dtype=np.float32)
    read = {}
    for mb in (4, 96):
        x = ws.asarray(np.random.default_rng(mb).random(mb << 18, dtype=np.float32))
        t = _run(mod, "hashed_gather", n // 256, 256, (out, x, np.uint32((mb << 18) - 1)))
        read[mb] = t.details["dram_bytes"]
    assert read[4] == pytest.approx(4 << 20, rel=0.1)               # each block once
    # 4M reads of 64 bytes over 96 MB: 89 MB of distinct blocks, and 1 - 30 / 96 of the 167 MB of re-reads
    assert read[96] == pytest.approx(89e6 + 167e6 * (1 - 30 / 96), rel=0.1)


CHASE = r"""
extern "C" __global__ void chase(int* out, const int* __restrict__ perm, unsigned mask, int steps, int line) {
    extern __shared__ int reserved[];
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned p = ((line ? t >> 5 : t) * 2654435761u) & mask;
    for (int s = 0; s < steps; ++s)
        p = line ? (unsigned)perm[(p & ~31u) | (t & 31)] & mask : (unsigned)perm[p];
    reserved[threadIdx.x] = (int)p;
    out[t] = (int)p;
}
"""


@pytest.mark.parametrize("line", [0, 1])
def test_lines_in_flight_are_bounded_by_what_the_carve_out_leaves_l1(line):
    """32 warps an SM chasing random lines ask for 1,024 at once; under the largest carve-out L1 holds 224
    (the forty-fifth batch: 13-20% longer on an H100), under a smaller one about 1,800. A warp reading one
    line a step asks for 32."""
    from warpsim.api.raw import pack_arguments
    k = ws.RawModule(code=CHASE).get_function("chase")
    k.max_dynamic_shared_size_bytes = 200 * 1024
    rng = np.random.default_rng(5)
    words = 1 << 20
    if line:
        perm = (rng.permutation(words // 32)[:, None] * 32 + np.arange(32)).ravel().astype(np.int32)
    else:
        perm = rng.permutation(words).astype(np.int32)
    src, out = ws.asarray(perm), ws.zeros(132 * 1024, dtype=np.int32)
    params = pack_arguments(k.kernel_name, k.params, (out, src, np.uint32(words - 1), np.int32(16), np.int32(line)))
    times = {kb: predict(k.loaded_module, k.kernel_name, (132,), (1024,), params, kb * 1024, gpu="h100").time_s
             for kb in (4, 200)}
    if line:
        assert times[200] == pytest.approx(times[4], rel=0.01)
    else:
        assert times[200] > 1.08 * times[4]


LOADS = r"""
extern "C" __global__ void sum_k(float* out, const float* __restrict__ x0, const float* __restrict__ x1,
                                 long long n, int k) {
    long long stride = (long long)gridDim.x * blockDim.x, start = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.f;
    if (k == 1) {
#pragma unroll 1
        for (long long i = start; i < n; i += stride) s += x0[i];
    } else {
#pragma unroll 1
        for (long long i = start; i < n; i += stride) s += x0[i] + x1[i];
    }
    out[start] = s;
}
"""


def test_a_warp_waiting_on_loads_of_two_regions_waits_for_the_slower():
    """One warp an SM, one iteration a trip: two loads of two arrays far apart cost an iteration about
    half of hbm_latency_spread more than one (the forty-sixth batch: 763 -> 868 cycles on an H100); two
    loads of one stream's adjacent lines nothing of it."""
    from warpsim.api.raw import pack_arguments
    k = ws.RawModule(code=LOADS).get_function("sum_k")
    n = 132 * 32 * 64
    rng = np.random.default_rng(9)
    data = ws.asarray(rng.random(3 * n, dtype=np.float32))
    out = ws.zeros(132 * 32, dtype=np.float32)
    preset = gpu_preset("h100")

    def cycles_per_trip(k_loads, second):
        params = pack_arguments(k.kernel_name, k.params, (out, data[:n], data[second:second + n], np.int64(n),
                                                          np.int32(k_loads)))
        t = predict(k.loaded_module, k.kernel_name, (132,), (32,), params, 0, gpu="h100")
        return t.time_s * preset.clock_hz / 64
    one, far, near = cycles_per_trip(1, 2 * n), cycles_per_trip(2, 2 * n), cycles_per_trip(2, 32)
    spread = preset.hbm_latency_spread / 2
    assert far - one > 0.8 * spread and near - one < 0.25 * spread


def _hashed_adds(mod, words: int, gpu: str = "h100"):
    from warpsim.api.raw import pack_arguments
    k = mod.get_function("hashed_adds")
    table = ws.zeros(words, dtype=np.uint32)
    params = pack_arguments(k.kernel_name, k.params, (table, np.uint32(words - 1), np.int32(16)))
    return predict(k.loaded_module, k.kernel_name, (132 * 8,), (256,), params, 0, gpu=gpu, max_ctas=8)


def test_atomics_at_random_over_more_than_the_l2_read_and_write_back_their_blocks(mod):
    """The forty-ninth batch (an H100): 4.3M REDs at words a hash picks moved 4.2 MB from HBM over a
    4 MB table and 321 MB over 256 MB (190 read, 131 written back), 5.4x as long: an atomic reads its
    line before it writes it, so lines at random come from HBM as a gather's do, and a sector written
    back alone in its 64-byte block costs HBM time beyond its bytes."""
    small, large = _hashed_adds(mod, 1 << 20), _hashed_adds(mod, 1 << 26)
    assert small.details["dram_bytes"] < 8e6                     # the table once (not the sample scaled up)
    assert large.details["dram_bytes"] == pytest.approx(321e6, rel=0.25)
    assert large.bottleneck == "dram"
    assert large.time_us > 4 * small.time_us


def test_atomics_in_a_loop_start_after_one_pass_of_the_work_before_them(mod):
    """The chip-wide atomics bound waits for the first wave's work before its first atomic: of a loop
    around the atomic only one pass (forty-ninth batch: hashed REDs over 4 MB, 52 us on an H100, the
    bound with the whole loop's hashing before it 80 us)."""
    from warpsim.timing.presets import gpu_preset
    t = _hashed_adds(mod, 1 << 20)
    lanes = 132 * 8 * 256 * 16
    alone = lanes / gpu_preset("h100").atomic_spread_units
    assert alone < t.details["bounds"]["atomics"] < 1.25 * alone


def test_sectors_written_back_alone_fall_as_the_l2_keeps_more_of_the_region():
    from warpsim.timing.model import written_alone
    shares = [written_alone(k) for k in (0.01, 0.1, 0.5, 0.78, 0.95)]
    assert shares == sorted(shares, reverse=True)
    assert shares[1] == pytest.approx(0.95, abs=0.02) and shares[3] < 0.25
    assert written_alone(1.0) == written_alone(3.0) == 0.0


TILES = r"""
template <int LOAD>
__device__ void tiled(float* C, const float* A, const float* B, int N, int K) {
    __shared__ float As[16][16], Bs[16][16];
    int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
    float a0 = A[r * K + threadIdx.x], b0 = B[threadIdx.y * N + c], acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        As[threadIdx.y][threadIdx.x] = LOAD ? A[r * K + k0 + threadIdx.x] : a0 + (float)k0;
        Bs[threadIdx.y][threadIdx.x] = LOAD ? B[(k0 + threadIdx.y) * N + c] : b0 - (float)k0;
        __syncthreads();
        for (int k = 0; k < 16; ++k) acc = fmaf(As[threadIdx.y][k], Bs[k][threadIdx.x], acc);
        __syncthreads();
    }
    C[r * N + c] = acc;
}
extern "C" __global__ void tiles_loaded(float* C, const float* A, const float* B, int N, int K) { tiled<1>(C, A, B, N, K); }
extern "C" __global__ void tiles_from_registers(float* C, const float* A, const float* B, int N, int K) { tiled<0>(C, A, B, N, K); }
"""


def test_a_tiles_global_loads_queue_at_the_l1_data_stage_beside_its_shared_reads():
    """The fifty-first batch (an H100): a 16 x 16 tiled matmul took 1.20x as long as the same loop
    with its tiles' stores fed from registers, the global loads adding 17% to the L1 data stage's
    wavefronts, which its shared reads keep busy; a 16-byte broadcast of a row of A is 2 of them."""
    from warpsim.api.raw import pack_arguments
    mod = ws.RawModule(code=TILES)
    m, n, k = 512, 1024, 256
    rng = np.random.default_rng(51)
    a = ws.asarray(rng.random((m, k), dtype=np.float32))
    b = ws.asarray(rng.random((k, n), dtype=np.float32))
    c = ws.zeros((m, n), dtype=np.float32)
    times = {}
    for name in ("tiles_loaded", "tiles_from_registers"):
        f = mod.get_function(name)
        params = pack_arguments(f.kernel_name, f.params, (c, a, b, np.int32(n), np.int32(k)))
        t = predict(f.loaded_module, f.kernel_name, (n // 16, m // 16), (16, 16), params, 0, gpu="h100")
        assert t.bottleneck == "shared"
        times[name] = t.time_us
    assert times["tiles_loaded"] > 1.08 * times["tiles_from_registers"]
