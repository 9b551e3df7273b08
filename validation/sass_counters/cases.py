"""The launches of the SASS-counter validation: geometry, inputs and a NumPy reference.

Each Case builds its host arguments from its own fixed seed (random inputs,
never zeros; outputs poisoned with NaN or a sentinel so unwritten elements
show), and says which arguments are outputs and what they must hold. The
same table drives the H200 run (run_on_device.py, CuPy) and a check on
warpsim (`python validation/sass_counters/run_on_device.py --backend warpsim`).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np

F32 = np.float32
POISON_I32 = np.int32(-0x2152411)   # 0xdeadbeef as int32 is awkward to read; any sentinel will do


@dataclass
class Case:
    label: str
    kernel: str
    grid: tuple
    block: tuple
    build: object                       # rng -> (args list, {arg index: expected array}, rtol, atol)
    note: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def seed(self) -> int:
        return zlib.crc32(self.label.encode())

    def make(self):
        return self.build(np.random.default_rng(self.seed))

    @property
    def threads(self) -> int:
        g = int(np.prod(self.grid)); b = int(np.prod(self.block))
        return g * b


def rand(rng, n, lo=0.05, hi=1.0):
    return rng.uniform(lo, hi, n).astype(F32)


def nan(n, width=1):
    return np.full(n * width, np.nan, dtype=F32)


# ---------------------------------------------------------------- references

def ref_poly(x, trips):
    acc = np.ones_like(x, dtype=np.float64)
    for k in range(trips):
        acc = acc * x + k
    return acc


def ref_heavy(v, n):
    v = v.astype(np.float64)
    for _ in range(n):
        v = v * 1.000001 + 0.5
    return v


def warp_sums(x):
    return x.astype(np.float64).reshape(-1, 32).sum(axis=1)


# ---------------------------------------------------------------- the table

def _cases() -> list:
    cases = []
    add = cases.append
    G, B = (4,), (128,)
    N = 512

    def fixed(trips):
        def build(rng):
            x = rand(rng, N, 0.1, 0.9)
            return [x, nan(N)], {1: ref_poly(x, trips)}, 1e-4, 1e-5
        return build

    add(Case("fixed_loop", "sc_fixed_loop", G, B, fixed(16), "16 trips kept a loop (pragma unroll 1)"))
    add(Case("fixed_loop_unrolled", "sc_fixed_loop_unrolled", G, B, fixed(16), "16 trips, unrolled by NVVM"))
    add(Case("fixed_loop_by4", "sc_fixed_loop_by4", G, B, fixed(64), "64 trips unrolled by 4"))

    def variable_loop(rng):
        length = rng.integers(1, 41, N).astype(np.int32)
        x = rand(rng, N)
        acc = x.astype(np.float64)
        for k in range(40):
            acc = np.where(k < length, acc * 0.5 + k, acc)
        return [length, x, nan(N)], {2: acc}, 1e-5, 1e-5
    add(Case("variable_loop", "sc_variable_loop", G, B, variable_loop, "trip count random 1..40 per lane"))

    def select(rng):
        x = rand(rng, N)
        r = np.where(x > 0.5, x.astype(np.float64) * 2, x.astype(np.float64) + 1)
        k = np.where(np.arange(N) % 2 == 1, 3.0, 7.0)
        return [x, nan(N)], {1: r * k}, 1e-6, 0
    add(Case("select", "sc_select", G, B, select, "ternaries -> FSEL / predicated FADD"))

    def long_ifelse(rng):
        x = rand(rng, N)
        v = x.astype(np.float64)
        hi, lo = v.copy(), v.copy()
        for _ in range(12):
            hi = hi * np.float64(F32(1.0001)) + 0.25
            lo = lo * np.float64(F32(0.9999)) - 0.125
        lo = np.sqrt(np.abs(lo))
        take = x > 0.5
        side = np.where(take, hi, np.nan)
        return [x, nan(N), nan(N)], {1: np.where(take, hi, lo), 2: side}, 1e-5, 1e-6
    add(Case("long_ifelse", "sc_long_ifelse", G, B, long_ifelse, "data-dependent if/else, BSSY/BSYNC"))

    def early_return(n):
        def build(rng):
            x = rand(rng, 1024)
            out = nan(1024)
            ref = out.astype(np.float64).copy()
            ref[:n] = x[:n].astype(np.float64) * 2 + 1
            return [x, out, np.int32(n)], {1: ref}, 1e-6, 0
        return build
    add(Case("early_return_900", "sc_early_return", (4,), (256,), early_return(900),
             "n=900 of 1024: warp 28 has 4 live lanes, warps 29-31 exit whole"))
    add(Case("early_return_1024", "sc_early_return", (4,), (256,), early_return(1024), "n=1024: nobody exits early"))

    def switch(rng):
        sel = rng.integers(0, 6, N).astype(np.int32)
        x = rand(rng, N)
        v = x.astype(np.float64)
        r = np.select([sel == 0, sel == 1, sel == 2, sel == 3, sel == 4],
                      [v * 2, np.sin(v), v * v + 3, np.sqrt(v), np.exp(v)], -v)
        return [sel, x, nan(N)], {2: r}, 1e-5, 1e-6
    add(Case("switch", "sc_switch", G, B, switch, "switch on random 0..5 (BRX jump tables)"))

    # The same kernel with chosen selectors (all > 1, so only the second BRX diverges):
    # how a BRX with k targets counts in inst_executed, thread_inst and branch_targets.
    def switch_fixed(groups):
        def build(rng):
            pattern = np.concatenate([np.full(n, value) for value, n in groups]).astype(np.int32)
            sel = np.tile(pattern, N // 32)
            x = rand(rng, N)
            v = x.astype(np.float64)
            r = np.select([sel == 2, sel == 3, sel == 4], [v * v + 3, np.sqrt(v), np.exp(v)], -v)
            return [sel, x, nan(N)], {2: r}, 1e-5, 1e-6
        return build
    for name, groups in (("uniform", ((3, 32),)), ("2way_16_16", ((2, 16), (3, 16))),
                         ("2way_4_28", ((2, 4), (3, 28))), ("2way_28_4", ((2, 28), (3, 4))),
                         ("3way_10_10_12", ((2, 10), (3, 10), (5, 12)))):
        add(Case(f"switch_{name}", "sc_switch", G, B, switch_fixed(groups),
                 "every warp: " + ", ".join(f"{n} lanes sel={v}" for v, n in groups)))

    def branch(on_lane):
        def build(rng):
            x = rand(rng, N)
            t = np.arange(N) % 128
            first = (t % 2 == 0) if on_lane else ((t // 32) % 2 == 0)
            ref = np.where(first, ref_heavy(x, 32), ref_heavy(x + np.float64(1), 32))
            return [x, nan(N), np.int32(32)], {1: ref}, 1e-5, 1e-5
        return build
    add(Case("branch_on_lane", "sc_branch_on_lane", G, B, branch(True), "document: even/odd lanes diverge, n=32"))
    add(Case("branch_on_warp", "sc_branch_on_warp", G, B, branch(False), "document: warp-uniform branch, n=32"))

    def warp_sum(rng):
        x = rand(rng, N)
        return [x, nan(N // 32)], {1: warp_sums(x)}, 1e-5, 1e-5
    add(Case("warp_sum", "sc_warp_sum", G, B, warp_sum, "document: 5 shuffles, lane 0 stores"))

    def block_sum(rng):
        x = rand(rng, 1024)
        out0 = rand(rng, 1)
        return [x, out0.copy(), np.int32(1000)], {1: out0.astype(np.float64) + x[:1000].astype(np.float64).sum()}, 1e-5, 1e-4
    add(Case("block_sum", "sc_block_sum", (4,), (256,), block_sum,
             "document: shuffles + shared + __syncthreads + one atomicAdd per block, n=1000"))

    def cub(rng):
        x = rand(rng, N)
        return [x, nan(4)], {1: x.astype(np.float64).reshape(4, 128).sum(axis=1)}, 1e-5, 1e-5
    add(Case("cub_block_reduce", "sc_cub_block_reduce", G, B, cub, "cub::BlockReduce<float,128>::Sum"))

    # ---- atomics
    def atomic_count(grid, block):
        def build(rng):
            start = rng.integers(1, 1000, 1).astype(np.int32)
            n = int(np.prod(grid)) * int(np.prod(block))
            return [start.copy()], {0: start.astype(np.int64) + n}, 0, 0
        return build
    add(Case("atomic_count", "sc_atomic_count", G, B, atomic_count(G, B), "atomicAdd(counter, 1) from 512 threads"))
    add(Case("atomic_count_block100", "sc_atomic_count", (2,), (100,), atomic_count((2,), (100,)),
             "same, blocks of 100: each block's last warp has 4 lanes"))

    def atomic_sum_int(rng):
        x = rng.integers(1, 100, N).astype(np.int32)
        start = rng.integers(1, 1000, 1).astype(np.int32)
        return [x, start.copy()], {1: start.astype(np.int64) + x.astype(np.int64).sum()}, 0, 0
    add(Case("atomic_sum_int", "sc_atomic_sum_int", G, B, atomic_sum_int, "atomicAdd(counter, x[i]): REDUX.SUM + one RED"))

    def atomic_distinct(rng):
        x = rand(rng, N); acc = rand(rng, N)
        return [x, acc.copy()], {1: acc.astype(np.float64) + x}, 1e-6, 0
    add(Case("atomic_distinct", "sc_atomic_distinct", G, B, atomic_distinct, "atomicAdd(&acc[i], x[i]), result unused: RED"))

    def atomic_distinct_ret(rng):
        x = rand(rng, N); acc = rand(rng, N)
        return [x, acc.copy(), nan(N)], {1: acc.astype(np.float64) + x, 2: acc}, 1e-6, 0
    add(Case("atomic_distinct_ret", "sc_atomic_distinct_ret", G, B, atomic_distinct_ret, "old = atomicAdd(&acc[i], x[i]): ATOM"))

    # ---- shared memory
    def shared_vec(rng):
        x = rand(rng, 2048)
        xb = x.astype(np.float64).reshape(2, 1024)
        t = np.arange(256)
        a = xb[:, 4 * t] + xb[:, 4 * t + 1] + xb[:, 4 * t + 2] + xb[:, 4 * t + 3]
        b = xb[:, 2 * t] * xb[:, 2 * t + 1]
        return [x, nan(512)], {1: (a + b).reshape(-1)}, 1e-5, 1e-6
    add(Case("shared_vec", "sc_shared_vec", (2,), (256,), shared_vec, "4 STS; LDS.128 contiguous + LDS.64 pairs"))

    for width, kernel in ((1, "sc_shared32_stride"), (2, "sc_shared64_stride"), (4, "sc_shared128_stride")):
        for stride in (1, 2, 4, 8, 16, 32):
            def build(rng, width=width, stride=stride):   # bind both (run 1 had every case at stride 32)
                x = rand(rng, 64 * width)
                xr = x.reshape(2, 32, width)
                ref = xr[:, np.arange(32) ^ 1, :].reshape(-1)
                return [x, nan(64, width), np.int32(stride)], {1: ref}, 0, 0
            add(Case(f"shared{32 * width}_stride_{stride}", kernel, (2,), (32,), build,
                     f"{4 * width}-byte elements: STS at t*{stride}, LDS at (t^1)*{stride}", {"stride": stride}))

    lane = np.arange(32)
    patterns = {
        "contiguous": lane,
        "same": np.zeros(32, dtype=int),
        "mod4": lane % 4,
        "mod8": lane % 8,
        "mod16": lane % 16,
        # lanes 0-7 (and every quarter) hit bank groups pairwise: 0,8,1,9,...,3,11 (+4 per quarter, +16 per half)
        "quarter_pairs": np.array([(q % 2) * 4 + (j // 2) + 8 * (j % 2) + 16 * (q // 2)
                                   for q in range(4) for j in range(8)]),
        # 64-bit: lanes 0-15 hit 0,16,1,17,...,7,23; lanes 16-31 8,24,...,15,31
        "half_pairs": np.array([(h * 8) + (j // 2) + 16 * (j % 2) for h in range(2) for j in range(16)]),
        "reversed": 31 - lane,
        "halves": lane // 16,                                   # one address per half-warp
        "quarters": lane // 8,                                  # one address per quarter-warp
        "pairs": lane // 2,
        "alt2": lane % 2,
        "same_but_one": np.where(lane == 31, 1, 0),             # lane 31 elsewhere, other banks
        "same_but_one_conflict": None,                          # lane 31 on element 0's banks: set per width below
        "random": None,
    }
    # the element that shares element 0's banks: 32 words, 16 double-words, 8 quad-words on
    conflict_with_0 = {1: 32, 2: 16, 4: 8}
    use = {1: ("same", "mod16", "random", "same_but_one", "same_but_one_conflict"),
           2: ("contiguous", "same", "mod8", "mod16", "half_pairs", "random",
               "halves", "quarters", "same_but_one", "same_but_one_conflict"),
           4: ("contiguous", "same", "mod4", "mod8", "mod16", "quarter_pairs", "half_pairs", "random",
               "halves", "quarters", "pairs", "alt2", "same_but_one", "same_but_one_conflict")}
    for width, kernel in ((1, "sc_shared32_indexed"), (2, "sc_shared64_indexed"), (4, "sc_shared128_indexed")):
        for name in use[width]:
            def build(rng, width=width, name=name):
                if name == "same_but_one_conflict":
                    idx = np.where(lane == 31, conflict_with_0[width], 0)
                else:
                    idx = patterns[name]
                    idx = rng.integers(0, 64, 32) if idx is None else idx
                idx = np.asarray(idx, dtype=np.int32)
                x = rand(rng, 2 * 64 * width)
                xr = x.reshape(2, 64, width)
                ref = xr[:, idx, :].reshape(-1)
                return [idx, x, nan(64, width)], {2: ref}, 0, 0
            add(Case(f"shared{32 * width}_idx_{name}", kernel, (2,), (32,), build,
                     f"{4 * width}-byte LDS at element idx[lane], pattern {name}", {"pattern": name}))

    # ---- global memory
    for stride in (1, 2, 4, 8, 32):
        def build(rng, stride=stride):
            x = rand(rng, 1024 * stride)
            return [x, nan(1024), np.int32(stride)], {1: x[::stride][:1024]}, 0, 0
        add(Case(f"global_stride_{stride}", "sc_global_stride", (8,), (128,), build,
                 f"LDG stride {stride} floats, STG coalesced", {"stride": stride}))

    def transpose(rng):
        n = 256
        x = rand(rng, n * n)
        return [x, nan(n * n), np.int32(n)], {1: x.reshape(n, n).T.reshape(-1)}, 0, 0
    add(Case("transpose_read", "sc_transpose_read", (8, 32), (32, 8), transpose,
             "256x256: lanes read down a column (stride 1 KiB), store rows"))
    return cases


CASES = _cases()


def check(case: Case, outputs: dict, expected: dict, rtol: float, atol: float) -> tuple:
    """(ok, message) comparing the device outputs with the reference."""
    worst = []
    ok = True
    for index, want in expected.items():
        got = np.asarray(outputs[index]).astype(np.float64).reshape(-1)
        want = np.asarray(want, dtype=np.float64).reshape(-1)
        if got.shape != want.shape:
            return False, f"arg {index}: shape {got.shape} != {want.shape}"
        good = np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
        if not good.all():
            ok = False
            bad = int(np.flatnonzero(~good)[0])
            worst.append(f"arg {index}: {int((~good).sum())} wrong, first [{bad}] {got[bad]!r} != {want[bad]!r}")
    return ok, "; ".join(worst) or "ok"
