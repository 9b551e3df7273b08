"""Global loads, stores and atomics in compiled blocks against the NumPy tier.

A compiled block with a global access checks every lane's addresses first and does
its one write lane by lane (compiled/global_memory.py). Both tiers must give the
same bytes, old values of racing atomics, counters, faults (and the memory a fault
leaves), livelock verdicts and profiler counts; values are checked against NumPy
references on random inputs.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import warpsim as cp
from warpsim.errors import DeadlockError, MemoryFault
from warpsim.machine.compiled import report
from warpsim.ptx.ir import Sym

from ptx_kernels import HEADER

ATOMICS = r"""
extern "C" __global__ void atomics(const unsigned* key, const unsigned* val, unsigned* u, int* s,
                                   float* f, unsigned long long* w, unsigned* old, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned k = key[i] & 7, v = val[i], o = 0;
    switch (key[i] >> 28) {
        case 0: o = atomicAdd(&u[k], v); break;
        case 1: o = atomicMin(&u[k], v); break;
        case 2: o = atomicMax(&u[k], v); break;
        case 3: o = atomicCAS(&u[k], v & 3u, v); break;
        case 4: o = atomicExch(&u[k], v); break;
        case 5: o = atomicAnd(&u[k], v | 0xffff0000u); break;
        case 6: o = atomicOr(&u[k], v & 0x0f0f0f0fu); break;
        case 7: o = atomicXor(&u[k], v); break;
        case 8: o = atomicInc(&u[k], v); break;
        case 9: o = atomicDec(&u[k], v); break;
        case 10: o = atomicMin(&s[k], (int)v); break;
        case 11: o = atomicMax(&s[k], (int)v); break;
        case 12: o = __float_as_uint(atomicAdd(&f[k], __uint_as_float(v))); break;
        case 13: o = (unsigned)(atomicAdd(&w[k], (unsigned long long)v << 20) >> 12); break;
        case 14: atomicAdd(&u[k], 1u); break;
        default: u[k] = v;
    }
    old[i] = o;
}
"""

HISTOGRAM = r"""
extern "C" __global__ void histogram(const unsigned* x, unsigned* bins, unsigned long long* wide,
                                     int* low, int* high, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned b = x[i] & 255u;
        atomicAdd(&bins[b], 1u);
        atomicAdd(&wide[b & 15u], (unsigned long long)x[i] << 16);
        atomicMin(&low[b & 31u], (int)x[i]);
        atomicMax(&high[b & 31u], (int)x[i]);
        out[x[i] & 1023u] = i;
    }
}
"""

SPIN = r"""
extern "C" __global__ void spin(unsigned* flag) {
    while (atomicAdd(flag, 0u) == 0u) {}
}
"""


def arrays_after(engine, function, grid, block, make_args, **settings):
    """(every argument array's bytes, counters) after one launch on `engine`."""
    args = make_args()
    with cp.settings(engine=engine, **settings):
        function(grid, block, args)
    last = function.last_launch
    return ([a.get().tobytes() for a in args if hasattr(a, "get")],
            (last.warp_instructions, last.thread_instructions, last.rounds))


def compiled_rows(function):
    return [r for r in report(function.loaded_module.program) if r["threads_compiled"]]


@pytest.fixture(scope="module")
def atomics():
    return cp.RawModule(code=ATOMICS).get_function("atomics")


@pytest.fixture(scope="module")
def histogram():
    return cp.RawModule(code=HISTOGRAM).get_function("histogram")


@pytest.mark.parametrize("seed", [0, 1])
def test_racing_atomics_of_every_kind_give_the_numpy_tiers_bytes_and_old_values(atomics, seed):
    rng = np.random.default_rng(seed)
    n = 4096 - 37
    key = rng.integers(0, 2**32, n, dtype=np.uint32)
    val = rng.integers(0, 2**32, n, dtype=np.uint32)

    def make_args():
        return (cp.asarray(key), cp.asarray(val), cp.asarray(rng_state(seed, np.uint32)),
                cp.asarray(rng_state(seed, np.int32)), cp.asarray(rng_state(seed, np.float32)),
                cp.asarray(rng_state(seed, np.uint64)), cp.zeros(n, cp.uint32), np.int32(n))
    numpy_tier = arrays_after("numpy", atomics, (16,), (256,), make_args)
    compiled = arrays_after("compiled", atomics, (16,), (256,), make_args)
    assert numpy_tier == compiled
    program = atomics.loaded_module.program
    atomic_blocks = {r["block"] for r in compiled_rows(atomics)
                     if any(i.opcode == "atom" for i in program.blocks[r["block"]].instructions)}
    assert len(atomic_blocks) >= 12, "the compiled tier ran too few of the atomics"


def rng_state(seed: int, dtype) -> np.ndarray:
    """Eight starting words per array (floats: finite values of mixed signs and sizes)."""
    rng = np.random.default_rng(seed + 100)
    if dtype == np.float32:
        return (rng.standard_normal(8) * 10.0 ** rng.integers(-3, 4, 8)).astype(np.float32)
    return rng.integers(np.iinfo(dtype).min // 2, np.iinfo(dtype).max // 2, 8, dtype=dtype)


def test_a_histogram_gives_numpys_counts_on_both_tiers(histogram):
    rng = np.random.default_rng(7)
    n = 8192 - 5
    x = rng.integers(0, 2**32, n, dtype=np.uint32)
    signed = x.view(np.int32)
    bins = np.bincount(x & 255, minlength=256).astype(np.uint32)
    wide = np.zeros(16, dtype=np.uint64)
    np.add.at(wide, (x & 255) & 15, x.astype(np.uint64) << np.uint64(16))
    low = np.full(32, np.iinfo(np.int32).max, dtype=np.int32)
    np.minimum.at(low, (x & 255) & 31, signed)
    high = np.full(32, np.iinfo(np.int32).min, dtype=np.int32)
    np.maximum.at(high, (x & 255) & 31, signed)
    out = np.full(1024, 0xFFFFFFFF, dtype=np.uint32)
    out[x & 1023] = np.arange(n, dtype=np.uint32)       # the last thread writing a word wins

    def make_args():
        return (cp.asarray(x), cp.zeros(256, cp.uint32), cp.zeros(16, cp.uint64),
                cp.full(32, np.iinfo(np.int32).max, dtype=cp.int32),
                cp.full(32, np.iinfo(np.int32).min, dtype=cp.int32),
                cp.full(1024, 0xFFFFFFFF, dtype=cp.uint32), np.int32(n))
    results = {engine: arrays_after(engine, histogram, (32,), (256,), make_args)
               for engine in ("numpy", "compiled")}
    assert results["numpy"] == results["compiled"]
    expected = [x.tobytes(), bins.tobytes(), wide.tobytes(), low.tobytes(), high.tobytes(), out.tobytes()]
    assert results["compiled"][0] == expected
    assert any(i.opcode == "atom" for r in compiled_rows(histogram)
               for i in histogram.loaded_module.program.blocks[r["block"]].instructions)


@pytest.mark.parametrize("bad", ["store", "atomic", "load"])
def test_a_bad_address_in_a_compiled_block_is_the_same_fault_and_leaves_the_same_memory(histogram, bad):
    """One lane's address is past the end: the NumPy tier reports it, and no lane of that
    instruction has written anything on either tier."""
    n = 2048
    x = np.random.default_rng(3).integers(0, 2**32, n, dtype=np.uint32)
    results = {}
    for engine in ("numpy", "compiled"):
        arrays = [cp.asarray(x), cp.zeros(256, cp.uint32), cp.zeros(16, cp.uint64),
                  cp.zeros(32, cp.int32), cp.zeros(32, cp.int32), cp.zeros(1024, cp.uint32)]
        short = {"store": 5, "atomic": 1, "load": 0}[bad]
        arrays[short] = arrays[short][: {5: 1000, 1: 200, 0: n - 40}[short]].copy()
        with cp.settings(engine=engine), pytest.raises(MemoryFault) as caught:
            histogram((n // 256,), (256,), (*arrays, np.int32(n)))
        message = re.sub(r"0x[0-9a-f]+", "0x...", str(caught.value))   # the arrays' own addresses
        results[engine] = (message, [a.get().tobytes() for a in arrays])
    assert results["numpy"] == results["compiled"]
    assert "out of bounds" in results["numpy"][0]


def test_a_spin_on_an_atomic_that_changes_nothing_is_the_same_livelock():
    spin = cp.RawModule(code=SPIN).get_function("spin")
    messages = {}
    for engine in ("numpy", "compiled"):
        with cp.settings(engine=engine), pytest.raises(DeadlockError) as caught:
            spin((2,), (64,), (cp.zeros(1, cp.uint32),))
        messages[engine] = str(caught.value)
    assert messages["numpy"] == messages["compiled"]
    assert "livelock" in messages["numpy"]


def test_profiled_and_sanitized_launches_count_the_same(atomics):
    """Watched memory keeps global accesses on the NumPy tier: every counter the same."""
    rng = np.random.default_rng(11)
    n = 2048
    key, val = rng.integers(0, 2**32, (2, n), dtype=np.uint32)
    launches = {}
    for engine in ("numpy", "compiled"):
        args = (cp.asarray(key), cp.asarray(val), cp.zeros(8, cp.uint32), cp.zeros(8, cp.int32),
                cp.zeros(8, cp.float32), cp.zeros(8, cp.uint64), cp.zeros(n, cp.uint32), np.int32(n))
        with cp.settings(engine=engine), cp.profile(level="ptx") as prof:
            atomics((8,), (256,), args)
        launches[engine] = (prof.launches[0], args[6].get())
    (a, old_a), (b, old_b) = launches["numpy"], launches["compiled"]
    assert a.metrics == b.metrics
    assert str(a.lines) == str(b.lines)
    np.testing.assert_array_equal(old_a, old_b)


SHARED = r"""
extern "C" __global__ void shared_sums(const unsigned* x, unsigned* sums, unsigned* bins,
                                       unsigned* olds, int n) {
    __shared__ unsigned partial[256];
    __shared__ unsigned local_bins[64];
    extern __shared__ unsigned scratch[];
    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    unsigned v = i < n ? x[i] : 0u;
    if (t < 64) local_bins[t] = 0;
    partial[t] = v;
    scratch[t ^ 1] = v >> 3;                    // a neighbour's slot: read back after the barrier
    __syncthreads();
    olds[i] = atomicAdd(&local_bins[v & 63u], 1u) + scratch[t];
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t < 64) atomicAdd(&bins[t], local_bins[t]);
    if (t == 0) sums[blockIdx.x] = partial[0];
}
"""


def test_shared_memory_reductions_and_shared_atomics_match_numpy_on_both_tiers():
    shared_sums = cp.RawModule(code=SHARED).get_function("shared_sums")
    rng = np.random.default_rng(13)
    n, blocks = 4096 - 100, 16
    x = rng.integers(0, 2**32, n, dtype=np.uint32)
    padded = np.zeros(blocks * 256, dtype=np.uint32)
    padded[:n] = x
    results = {}
    for engine in ("numpy", "compiled"):
        args = (cp.asarray(x), cp.zeros(blocks, cp.uint32), cp.zeros(64, cp.uint32),
                cp.zeros(blocks * 256, cp.uint32), np.int32(n))
        with cp.settings(engine=engine):
            shared_sums((blocks,), (256,), args, shared_mem=256 * 4)
        last = shared_sums.last_launch
        results[engine] = ([a.get().tobytes() for a in args[1:4]],
                           (last.warp_instructions, last.thread_instructions, last.rounds))
    assert results["numpy"] == results["compiled"]
    sums, bins, olds = (np.frombuffer(b, dtype=np.uint32) for b in results["compiled"][0])
    np.testing.assert_array_equal(sums, padded.reshape(blocks, 256).sum(axis=1, dtype=np.uint32))
    np.testing.assert_array_equal(bins, np.bincount(padded & 63, minlength=64).astype(np.uint32))
    rows = padded.reshape(blocks, 256)
    earlier = np.array([[np.count_nonzero((row[:t] & 63) == (row[t] & 63)) for t in range(256)] for row in rows])
    neighbour = (rows >> 3)[:, np.arange(256) ^ 1]
    np.testing.assert_array_equal(olds, (earlier + neighbour).astype(np.uint32).ravel())
    program = shared_sums.loaded_module.program
    ran = {r["block"] for r in compiled_rows(shared_sums)}
    assert any(any("shared" in i.mods for i in program.blocks[b].instructions) for b in ran)


def test_a_shared_store_past_the_dynamic_shared_memory_is_the_same_fault():
    shared_sums = cp.RawModule(code=SHARED).get_function("shared_sums")
    x = np.random.default_rng(17).integers(0, 2**32, 1024, dtype=np.uint32)
    results = {}
    for engine in ("numpy", "compiled"):
        args = (cp.asarray(x), cp.zeros(4, cp.uint32), cp.zeros(64, cp.uint32), cp.zeros(1024, cp.uint32),
                np.int32(1024))
        with cp.settings(engine=engine), pytest.raises(MemoryFault) as caught:
            shared_sums((4,), (256,), args, shared_mem=100 * 4)
        results[engine] = (str(caught.value), [a.get().tobytes() for a in args[1:4]])
    assert results["numpy"] == results["compiled"]
    assert "shared" in results["numpy"][0]


def test_a_store_from_a_wider_register_runs_compiled_and_keeps_the_low_bits():
    """Numba passes integer scalars as 64-bit: `out[i] = v + i` into an int32 array is
    st.global.u32 of a 64-bit register, whose low 32 bits PTX stores. The compiled tier takes
    that block and writes the NumPy tier's bytes."""
    from warpsim import cuda

    @cuda.jit
    def store_low(out, v):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = v + i

    n, v = 1000 + int(np.random.default_rng(3).integers(0, 24)), (7 << 33) + 0x7FFFFFF0
    results = {}
    for engine in ("numpy", "compiled"):
        out = cuda.device_array(n, dtype=np.int32)
        with cp.settings(engine=engine), warnings.catch_warnings():
            warnings.simplefilter("ignore")          # Numba's low-occupancy warning for 8 blocks
            store_low[(n + 127) // 128, 128](out, v)
        results[engine] = out.copy_to_host()
    expected = ((v + np.arange(n, dtype=np.int64)) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(results["numpy"], expected)
    np.testing.assert_array_equal(results["compiled"], expected)
    program = next(iter(store_low.overloads.values())).loaded().program
    storing = {r["block"]: r for r in report(program)
               if any(i.opcode == "st" for i in program.blocks[r["block"]].instructions)}
    assert storing and all(r["why_numpy"] is None and r["threads_compiled"] for r in storing.values()), storing


def test_shared_loads_at_a_variables_own_address_run_compiled():
    """A Numba shared array read at a constant index is ld.shared [_cudapy_smem_N+offset] (the
    variable's address, no register): the compiled tier takes it, with the NumPy tier's values."""
    from numba import float32

    from warpsim import cuda

    @cuda.jit
    def first_and_last(x, out):
        tile = cuda.shared.array(128, dtype=float32)
        t = cuda.threadIdx.x
        tile[t] = x[cuda.grid(1)]
        cuda.syncthreads()
        if t == 0:
            out[cuda.blockIdx.x] = tile[0] - tile[127]

    blocks = 12
    x = np.random.default_rng(5).standard_normal(blocks * 128).astype(np.float32)
    results = {}
    for engine in ("numpy", "compiled"):
        out = cuda.device_array(blocks, dtype=np.float32)
        with cp.settings(engine=engine), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            first_and_last[blocks, 128](cuda.to_device(x), out)
        results[engine] = out.copy_to_host()
    rows = x.reshape(blocks, 128)
    expected = rows[:, 0] - rows[:, 127]
    np.testing.assert_array_equal(results["numpy"], expected)
    np.testing.assert_array_equal(results["compiled"], expected)
    program = next(iter(first_and_last.overloads.values())).loaded().program
    reading = [r for r in report(program)
               if any(i.opcode == "ld" and "shared" in i.flags and isinstance(i.srcs[0].base, Sym)
                      for i in program.blocks[r["block"]].instructions)]
    assert reading and all(r["why_numpy"] is None and r["threads_compiled"] for r in reading), \
        [r["why_numpy"] for r in reading]


VECTORS = r"""
extern "C" __global__ void vectors(const uint4* a, const double2* b, const float4* c, uint4* out_a,
                                   double2* out_b, float2* out_c, int n) {
    __shared__ uint4 tile[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint4 u = a[i];
    double2 d = b[i];
    float4 f = c[i];                              // only two of its four lanes used: ld.v4 with sinks
    tile[threadIdx.x] = make_uint4(u.w, u.z ^ 5u, u.y + u.x, u.x);
    uint4 t = tile[threadIdx.x];                  // a shared vector store and load back
    out_a[i] = make_uint4(t.x * 3u, t.y, t.z, t.w - 1u);
    out_b[i] = make_double2(d.y, d.x);
    out_c[i] = make_float2(f.x, f.z);
}
"""


def test_vector_loads_and_stores_run_compiled_with_the_numpy_tiers_bytes():
    """.v2/.v4 loads and stores of 32- and 64-bit elements, global and shared, a load with unused
    elements: the compiled tier moves each lane's vector as the NumPy tier does (and faults alike)."""
    function = cp.RawModule(code=VECTORS).get_function("vectors")
    n = 1000
    rng = np.random.default_rng(21)
    a = rng.integers(0, 2**32, (n, 4), dtype=np.uint32)
    b = rng.standard_normal((n, 2))
    c = rng.standard_normal((n, 4)).astype(np.float32)

    def make():
        return (cp.asarray(a), cp.asarray(b), cp.asarray(c), cp.zeros((n, 4), cp.uint32),
                cp.zeros((n, 2), cp.float64), cp.zeros((n, 2), cp.float32), np.int32(n))
    grid, block = ((n + 127) // 128,), (128,)
    numpy_tier = arrays_after("numpy", function, grid, block, make)
    compiled_tier = arrays_after("compiled", function, grid, block, make)
    assert numpy_tier == compiled_tier
    out_a = np.frombuffer(compiled_tier[0][3], np.uint32).reshape(n, 4)
    want = np.stack([a[:, 3] * np.uint32(3), a[:, 2] ^ np.uint32(5), a[:, 1] + a[:, 0], a[:, 0] - np.uint32(1)], axis=1)
    np.testing.assert_array_equal(out_a, want)
    np.testing.assert_array_equal(np.frombuffer(compiled_tier[0][4], np.float64).reshape(n, 2), b[:, ::-1])
    np.testing.assert_array_equal(np.frombuffer(compiled_tier[0][5], np.float32).reshape(n, 2), c[:, [0, 2]])
    vector_blocks = [r for r in compiled_rows(function) if any(
        "v4" in i.mods or "v2" in i.mods for i in function.loaded_module.program.blocks[r["block"]].instructions)]
    assert vector_blocks and all(r["tier"] == "compiled" for r in vector_blocks)
    short = {}
    for engine in ("numpy", "compiled"):                     # the last lanes' vectors past the end
        args = list(make())
        args[0] = args[0][: n - 3].copy()
        with cp.settings(engine=engine), pytest.raises(MemoryFault) as caught:
            function(grid, block, tuple(args))
        short[engine] = (re.sub(r"0x[0-9a-f]+", "0x...", str(caught.value)), [x.get().tobytes() for x in args[3:6]])
    assert short["numpy"] == short["compiled"]


SINK_LOADS = HEADER + r"""
.visible .entry pick(.param .u64 in, .param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    .reg .pred %p1;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 16;
    add.s64 %rd4, %rd1, %rd3;
    mul.wide.u32 %rd5, %r1, 8;
    add.s64 %rd6, %rd2, %rd5;
    and.b32 %r7, %r1, 1;
    setp.eq.u32 %p1, %r7, 0;
    ld.global.v4.u32 {%r2, _, %r3, _}, [%rd4];
    add.u32 %r4, %r2, %r3;
    @%p1 st.global.v2.u32 [%rd6], {%r4, %r2};
    ret;
}
"""


def test_a_vector_load_with_unused_elements_and_a_guarded_vector_store_run_compiled():
    """`{%r2, _, %r3, _}`: the elements a load leaves unused are read and dropped; a guarded .v2
    store writes only for its lanes; the bytes are the NumPy tier's."""
    function = cp.RawModule(ptx=SINK_LOADS).get_function("pick")
    words = np.random.default_rng(8).integers(0, 2**32, (64, 4), dtype=np.uint32)

    def make():
        return cp.asarray(words), cp.full((64, 2), 7, cp.uint32)
    numpy_tier = arrays_after("numpy", function, (1,), (64,), make)
    compiled_tier = arrays_after("compiled", function, (1,), (64,), make)
    assert numpy_tier == compiled_tier
    out = np.frombuffer(compiled_tier[0][1], np.uint32).reshape(64, 2)
    even = np.arange(64) % 2 == 0
    np.testing.assert_array_equal(out[even], np.stack([words[even, 0] + words[even, 2], words[even, 0]], axis=1))
    np.testing.assert_array_equal(out[~even], 7)
    rows = report(function.loaded_module.program)
    assert rows and all(r["tier"] == "compiled" and r["why_numpy"] is None for r in rows), rows


SCALE_THEN_ADD = r"""
extern "C" __global__ void scale_then_add(int* data, const int* other, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    data[i] = data[i] * 3;
    out[i] = other[i] + data[i];      // other may alias data: loaded after the store
}
"""


@pytest.mark.parametrize("host", ["none", "unused", "other", "data"])
def test_registered_host_memory_gives_the_numpy_tiers_bytes_on_the_compiled_tier(host):
    """A block that loads after its store. Its accesses of registered host memory (other: read
    after the block's write; data: written) are served as the NumPy tier serves them: the compiled
    block puts back what it wrote and the batch runs on NumPy. A host range the kernel does not
    touch leaves the block compiled."""
    function = cp.RawModule(code=SCALE_THEN_ADD).get_function("scale_then_add")
    n = 4096 + 17
    rng = np.random.default_rng(11)
    data, other = rng.integers(-1000, 1000, (2, n), dtype=np.int32)
    expected = (data * 3, other + data * 3)
    for engine in ("numpy", "compiled"):
        d, o, unrelated = data.copy(), other.copy(), np.zeros(64, np.int32)
        registered = {"unused": unrelated, "other": o, "data": d}.get(host, np.zeros(0, np.int32))
        with cp.host_registered(registered) as on_host:
            dd = on_host if host == "data" else cp.asarray(d)
            do = on_host if host == "other" else cp.asarray(o)
            out = cp.zeros(n, cp.int32)
            with cp.settings(engine=engine):
                function(((n + 255) // 256,), (256,), (dd, do, out, np.int32(n)))
            got = (d.copy() if host == "data" else dd.get(), out.get())
        np.testing.assert_array_equal(got[0], expected[0], err_msg=engine)
        np.testing.assert_array_equal(got[1], expected[1], err_msg=engine)
    rows = report(function.loaded_module.program)
    stores = [r for r in rows if any(i.opcode == "st" for i in function.loaded_module.program.blocks[r["block"]].instructions)]
    assert stores and all((r["threads_compiled"] > 0) == (host in ("none", "unused")) for r in stores), rows


ORDERED = r"""
extern "C" __global__ void ordered(const unsigned* x, unsigned* sums, unsigned* flags, unsigned* out, int n) {
    __shared__ volatile unsigned partial[256];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? x[i] : 0u;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) partial[t] = partial[t] + partial[t + s];
        __syncthreads();
    }
    if (t == 0) {
        asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(sums + blockIdx.x), "r"(partial[0]) : "memory");
        asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" :: "l"(flags + blockIdx.x), "r"(1u) : "memory");
    }
    unsigned seen;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(sums + blockIdx.x) : "memory");
    if (i < n) out[i] = seen * 3u + x[i];
}
"""


def test_volatile_and_ordered_accesses_run_compiled_with_the_numpy_tiers_bytes():
    """A reduction over a volatile shared array, a release store and an acquire load: the same words
    on both tiers, NumPy's sums, and the blocks holding them run compiled."""
    function = cp.RawModule(code=ORDERED).get_function("ordered")
    n, blocks = 64 * 256 - 9, 64
    x = np.random.default_rng(5).integers(0, 1 << 20, n, dtype=np.uint32)
    padded = np.zeros(blocks * 256, np.uint32)
    padded[:n] = x
    sums = padded.reshape(blocks, 256).sum(axis=1, dtype=np.uint32)
    results = {}
    for engine in ("numpy", "compiled"):
        args = (cp.asarray(x), cp.zeros(blocks, cp.uint32), cp.zeros(blocks, cp.uint32), cp.zeros(n, cp.uint32),
                np.int32(n))
        with cp.settings(engine=engine):
            function((blocks,), (256,), args)
        results[engine] = [a.get() for a in args[1:4]]
    for got in results.values():
        np.testing.assert_array_equal(got[0], sums)
        np.testing.assert_array_equal(got[1], np.ones(blocks, np.uint32))
        np.testing.assert_array_equal(got[2], np.repeat(sums, 256)[:n] * np.uint32(3) + x)
    program = function.loaded_module.program
    ordered = [r for r in report(program) if any({"volatile", "acquire", "release"} & i.flags
                                                 for i in program.blocks[r["block"]].instructions)]
    assert ordered and all(r["threads_compiled"] for r in ordered), ordered


BRACED = HEADER + r"""
.visible .entry braced(.param .u64 x, .param .u64 out, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    setp.lt.s32 %p1, %r2, %r1;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    mov.u32 %r3, 7;
    @%p1 ld.global.b32 { %r3 }, [ %rd4 + 0 ];
    add.s32 %r4, %r3, %r3;
    @%p1 st.global.b32 [ %rd5 + 0 ], { %r4 };
    ret;
}
"""


def test_a_load_into_one_braced_register_runs_compiled():
    """`ld.global.b32 { %r3 }` and `st.global.b32 [...], { %r4 }` (Triton writes every scalar load and
    store so) under a guard: NumPy's values on both tiers, and the block runs compiled."""
    function = cp.RawModule(ptx=BRACED).get_function("braced")
    x = np.random.default_rng(4).integers(0, 2**31, 64, dtype=np.uint32)

    def make():
        return cp.asarray(x), cp.full(64, 5, cp.uint32), np.uint32(50)
    numpy_tier = arrays_after("numpy", function, (1,), (64,), make)
    compiled_tier = arrays_after("compiled", function, (1,), (64,), make)
    assert numpy_tier == compiled_tier
    out = np.frombuffer(compiled_tier[0][1], np.uint32)
    np.testing.assert_array_equal(out[:50], x[:50] * np.uint32(2))
    np.testing.assert_array_equal(out[50:], 5)
    rows = report(function.loaded_module.program)
    assert rows and all(r["tier"] == "compiled" for r in rows), rows
