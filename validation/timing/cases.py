"""The timing-model validation set: kernels.cu launched on the H200 (CuPy) or warpsim.

`build_cases(sms=132, scale=1.0)` returns the table. Each Case names its kernel,
grid, block, dynamic shared memory and a `make(xp)` that builds the arguments
from random inputs (fixed seed per case, never zeros; outputs poisoned with NaN
or a sentinel unless the kernel accumulates into them) and returns a Run:
the argument tuple, the output array to check and a function giving the NumPy
reference. `check(run, xp)` compares after the first launch only (atomics and
axpy accumulate over the timed repeats).

`sms` and `scale` shrink the launches (grids built from SM counts, sizes and
loop counts multiplied by scale) so the same table can run on warpsim here:
    python validation/timing/run_on_device.py --check-here
On the device the defaults (132 SMs, scale 1) give kernels of 5 us and more.
"""

from __future__ import annotations

import functools
import zlib
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Run:
    args: tuple
    out: object                      # device array compared with ref()
    ref: object                      # () -> numpy array
    tol: float = 1e-4                # relative L2 error; 0: exact
    keep: list = field(default_factory=list)


@dataclass
class Case:
    label: str
    kernel: str
    grid: tuple
    block: tuple
    make: object                     # (xp) -> Run
    sweep: str                       # the family of versions it is compared within
    note: str = ""
    shared_mem: int = 0              # dynamic shared memory per block, bytes


def _seed(label: str) -> int:
    return zlib.crc32(label.encode())


def hashed_half(salt: str, label: str) -> str:
    """A set's split: 'dev' or 'held-out' by a hash of the label with the set's salt, fixed by the
    label alone (no figure decides it)."""
    return "dev" if zlib.crc32((salt + ":" + label).encode()) % 2 == 0 else "held-out"


def scaled_count(scale: float, v: float, mult: int = 1, lo: int = 1) -> int:
    """`v` scaled by `scale` (check_here shrinks every case), a multiple of `mult`, at least lo * mult."""
    return max(lo, int(round(v * scale / mult))) * mult


def label_rng(label: str):
    """A generator seeded by the label: each case's random inputs, the same on every machine."""
    return np.random.default_rng(_seed(label))


@functools.lru_cache(maxsize=8)
def _host_uniform(n: int, seed: int, lo: float, hi: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (lo + (hi - lo) * rng.random(n, dtype=np.float32)).astype(np.float32)


def _u(label, n, lo=0.5, hi=1.5):
    return _host_uniform(int(n), _seed(label), float(lo), float(hi))


def _poison(xp, n, dtype=np.float32):
    if np.dtype(dtype).kind == "f":
        return xp.asarray(np.full(n, np.nan, dtype=dtype))
    return xp.asarray(np.full(n, 0xDEADBEEF if np.dtype(dtype).kind == "u" else -12345, dtype=dtype))


def _affine(x0, a, b, n):
    """x_{k+1} = a x_k + b, n times, in float64 (closed form)."""
    x0 = np.asarray(x0, np.float64)
    a = np.float64(a)
    b = np.float64(b)
    if a == 1.0:
        return x0 + b * n
    c = b / (1.0 - a)
    return c + (x0 - c) * a ** np.asarray(n, np.float64)


def check(run: Run, xp) -> tuple:
    """(passed, error) of the run's output against its reference."""
    got = np.asarray(xp.asnumpy(run.out) if hasattr(xp, "asnumpy") else run.out)
    ref = np.asarray(run.ref())
    got = got.reshape(ref.shape)
    if run.tol == 0:
        bad = int(np.count_nonzero(got != ref))
        return bad == 0, float(bad)
    if not np.all(np.isfinite(got)):
        return False, float("nan")
    g = got.astype(np.float64)
    r = ref.astype(np.float64)
    err = float(np.linalg.norm(g - r) / max(np.linalg.norm(r), 1e-300))
    return err <= run.tol, err


F32 = np.float32
A_LOOP, B_LOOP = F32(0.999), F32(0.5)          # loop_a: fmaf(x, 0.999, 0.5)
A2_LOOP, B2_LOOP = F32(0.998), F32(0.25) * F32(0.998)   # loop_b: (x + 0.25) * 0.998


def build_cases(sms: int = 132, scale: float = 1.0) -> list:
    S = scale

    n_ = functools.partial(scaled_count, S)

    cases = []
    add = cases.append

    # ------------------------------------------------------------ divergence
    def branch(label, kernel, grid, block, n):
        def make(xp):
            x = _u(label, grid * block)
            out = _poison(xp, grid * block)
            lane = np.arange(grid * block) % block

            def ref():
                cond = (lane % 2 == 0) if kernel == "tv_branch_on_lane" else ((lane // 32) % 2 == 0)
                return np.where(cond, _affine(x, A_LOOP, B_LOOP, n), _affine(x, A2_LOOP, B2_LOOP, n))
            return Run((out, xp.asarray(x), np.int32(n)), out, ref, 1e-3)
        return make

    g, b, n = 2 * sms, 256, n_(1024)
    add(Case("branch_on_lane", "tv_branch_on_lane", (g,), (b,), branch("branch_on_lane", "tv_branch_on_lane", g, b, n),
             "divergence", "even/odd lanes take different loops: both run"))
    add(Case("branch_on_warp", "tv_branch_on_warp", (g,), (b,), branch("branch_on_warp", "tv_branch_on_warp", g, b, n),
             "divergence", "whole warps take one loop"))

    def switch(label, grid, block, n, ways):
        def make(xp):
            x = _u(label, grid * block)
            out = _poison(xp, grid * block)
            k = (np.arange(grid * block) % block % 32) % ways

            def ref():
                r = np.empty(grid * block)
                for c in range(ways):
                    a = F32(0.999) - F32(c) * F32(1e-4)
                    bb = F32(0.5) + F32(c) * F32(0.01)
                    m = k == c
                    r[m] = _affine(x[m], a, bb, n)
                return r
            return Run((out, xp.asarray(x), np.int32(n), np.int32(ways)), out, ref, 1e-3)
        return make

    for ways in (1, 2, 4, 8, 16, 32):
        lab = f"switch_{ways}way"
        add(Case(lab, "tv_switch", (g,), (b,), switch(lab, g, b, n_(1024), ways), "switch_ways",
                 f"switch on lane % {ways}: {ways} paths per warp"))

    def var_loop(label, grid, block, mode, mean):
        def make(xp):
            rng = np.random.default_rng(_seed(label))
            total = grid * block
            lengths = rng.integers(1, 2 * mean, size=total).astype(np.int32)
            if mode == "sorted":
                lengths = np.sort(lengths)
            elif mode == "uniform":
                lengths = np.full(total, int(lengths.mean()), np.int32)
            x = _u(label, total)
            out = _poison(xp, total)
            return Run((out, xp.asarray(x), xp.asarray(lengths)), out,
                       lambda: _affine(x, A_LOOP, B_LOOP, lengths), 1e-3)
        return make

    for mode in ("unsorted", "sorted", "uniform"):
        lab = f"var_loop_{mode}"
        add(Case(lab, "tv_var_loop", (g,), (b,), var_loop(lab, g, b, mode, n_(1024)), "var_loop",
                 f"loop lengths uniform in [1, 2047], {mode}" if mode != "uniform" else "every lane the mean length"))

    # ------------------------------------------ latency hiding by resident warps
    per64 = n_(32)

    def gather(label, grid, block, per_thread, kernel="tv_gather_sum"):
        def make(xp):
            total = grid * block * per_thread
            x = _u(label, total)
            out = _poison(xp, grid * block)
            return Run((out, xp.asarray(x), np.int32(per_thread)), out,
                       lambda: x.astype(np.float64).reshape(per_thread, grid * block).sum(0), 1e-5)
        return make

    for w in (1, 2, 4, 8, 16, 32, 64):
        grid, block = (sms, 32 * w) if w <= 32 else (2 * sms, 1024)
        per = per64 * 64 // w
        lab = f"latency_hiding_{w}warps"
        add(Case(lab, "tv_gather_sum", (grid,), (block,), gather(lab, grid, block, per), "warps_per_sm",
                 f"{w} warps per SM, one load in flight per warp; same total loads"))

    # ----------------------------------------- occupancy limited by shared memory
    for kb in (0, 20, 40, 72, 110, 200):
        grid, block = 16 * sms, 128
        smem = max(512, kb * 1024)
        lab = f"occupancy_smem_{kb}k"
        add(Case(lab, "tv_gather_sum_smem", (grid,), (block,), gather(lab, grid, block, n_(32), "tv_gather_sum_smem"),
                 "occupancy_smem", f"{kb} KB dynamic shared memory per 128-thread block", shared_mem=smem))

    # ---------------------------------------------- occupancy limited by registers
    def occ_regs(label, grid, block, K, iters):
        def make(xp):
            table = _u(label, 65536, 0.5, 1.0)
            out = _poison(xp, grid * block)

            def ref():
                t = np.arange(grid * block)
                r = np.stack([table[(t + k * 4099) & 65535] for k in range(K)]).astype(np.float64)
                x = np.full(grid * block, 0.5)
                for _ in range(iters):
                    for k in range(K):
                        x = x * r[k] + 0.25
                return x
            return Run((out, xp.asarray(table), np.int32(iters)), out, ref, 1e-3)
        return make

    for K in (16, 64, 128, 192):
        lab = f"occupancy_regs_{K}"
        iters = max(1, n_(1536) // K)
        add(Case(lab, f"tv_occ_regs_{K}", (16 * sms,), (128,), occ_regs(lab, 16 * sms, 128, K, iters), "occupancy_regs",
                 f"{K} values live in registers; one FMA chain of {K * iters} per thread"))

    # ------------------------------------------------------------------ ILP
    def ilp(label, grid, block, N, steps):
        def make(xp):
            x = _u(label, grid * block)
            out = _poison(xp, grid * block)
            nfma = steps * (8 // N)
            return Run((out, xp.asarray(x), np.int32(steps)), out,
                       lambda: sum(_affine(x.astype(np.float64) + k, A_LOOP, B_LOOP, nfma) for k in range(N)), 1e-3)
        return make

    for N in (1, 2, 4, 8):
        lab = f"ilp_{N}"
        add(Case(lab, f"tv_ilp_{N}", (sms,), (128,), ilp(lab, sms, 128, N, n_(3072)), "ilp",
                 f"{N} independent FMA chains, same FMAs per thread; 4 warps per SM"))

    # ------------------------------------------------------------------ pipes
    def pipe(label, kernel, grid, block, steps, dtype=np.float32):
        def make(xp):
            total = grid * block
            if dtype == np.uint32:
                x = np.random.default_rng(_seed(label)).integers(1, 2**32 - 1, size=total, dtype=np.uint32)
                out = _poison(xp, total, np.uint32)
            else:
                x = _u(label, total).astype(dtype)
                out = _poison(xp, total, dtype)

            def ref():
                if kernel in ("tv_fp32_bound", "tv_fp64_bound"):
                    xs = x.astype(np.float64)
                    return sum(_affine(xs + k, 0.999, 0.5, steps) if dtype == np.float64 else
                               _affine(xs + k, A_LOOP, B_LOOP, steps) for k in range(4))
                if kernel == "tv_sfu_bound":
                    v = [x.astype(np.float64) + 1 + k for k in range(4)]
                    for _ in range(steps):
                        v = [1 / np.sqrt(a) + 1 for a in v]
                    return sum(v)
                if kernel == "tv_sfu_exp_bound":
                    v = [x.astype(np.float64) * f for f in (1, 0.5, 0.25, 0.125)]
                    for _ in range(steps):
                        v = [np.exp(-a) for a in v]
                    return sum(v)
                if kernel == "tv_int_bound":
                    a = x.copy()
                    bb = a ^ np.uint32(0x9E3779B9)
                    c = a + np.uint32(12345)
                    d = a * np.uint32(3)
                    for _ in range(steps):
                        a = (a ^ (a << np.uint32(5))) + bb
                        bb = (bb ^ (bb >> np.uint32(3))) + c
                        c = (c ^ (c << np.uint32(7))) + d
                        d = (d ^ (d >> np.uint32(11))) + a
                    return a ^ bb ^ c ^ d
                raise KeyError(kernel)
            return Run((out, xp.asarray(x), np.int32(steps)), out, ref,
                       0 if dtype == np.uint32 else (1e-9 if dtype == np.float64 else 1e-3))
        return make

    G = 16 * sms
    for lab, kern, steps, dt, note in (
            ("fp32_bound", "tv_fp32_bound", n_(256, 4), np.float32, "4 FFMA chains, 64 warps/SM"),
            ("fp64_bound", "tv_fp64_bound", n_(128, 4), np.float64, "4 DFMA chains, 64 warps/SM"),
            ("sfu_rsqrt_bound", "tv_sfu_bound", n_(64, 4), np.float32, "4 MUFU.RSQ chains (+FADD), 64 warps/SM"),
            ("sfu_exp_bound", "tv_sfu_exp_bound", n_(64, 4), np.float32, "4 __expf chains (FMUL+MUFU.EX2)"),
            ("int_bound", "tv_int_bound", n_(128, 4), np.uint32, "4 xor-shift-add chains")):
        add(Case(lab, kern, (G,), (128,), pipe(lab, kern, G, 128, steps, dt), "pipes", note))

    # ------------------------------------------------------------- bank conflicts
    def bank(label, grid, block, n, stride):
        def make(xp):
            src = _u(label, 4096)
            out = _poison(xp, grid * block)

            def ref():
                t = np.arange(grid * block)
                blk, tid = t // block, t % block
                idx = (tid % 32 * stride) % 1024 + tid // 32
                v = src[(blk * 7 + idx) % 4096].astype(np.float64)
                return v * n
            return Run((out, xp.asarray(src), np.int32(n), np.int32(stride)), out, ref, 1e-4)
        return make

    for stride in (1, 2, 4, 8, 16, 32, 33):
        lab = f"bank_stride_{stride}"
        add(Case(lab, "tv_bank_stride", (8 * sms,), (256,), bank(lab, 8 * sms, 256, n_(256, 4), stride), "bank_stride",
                 f"shared loads at lane*{stride} words"))

    # ------------------------------------------------------------------ transposes
    NT = n_(2048, 32)

    def transpose(label, N):
        def make(xp):
            x = _u(label, N * N)
            out = _poison(xp, N * N)
            return Run((out, xp.asarray(x), np.int32(N)), out, lambda: x.reshape(N, N).T.copy(), 0)
        return make

    for kern, note in (("tv_transpose_naive", "global only: strided writes"),
                       ("tv_transpose_smem", "32x32 shared tile: 32-way conflicts on the read"),
                       ("tv_transpose_padded", "32x33 shared tile: conflict-free")):
        lab = kern[3:] + f"_{NT}"
        add(Case(lab, kern, (NT // 32, NT // 32), (32, 8), transpose(lab, NT), "transpose", note))

    # ------------------------------------------------------------------ atomics
    NA = n_(1 << 22, 256)

    def atomic(label, n, mask):
        def make(xp):
            vals = np.random.default_rng(_seed(label)).integers(1, 100, size=n).astype(np.int32)
            size = n if mask == -1 else mask + 1
            out = xp.asarray(np.zeros(size, np.int32))     # accumulated into: starts at 0

            def ref():
                idx = np.arange(n) & mask
                r = np.zeros(size, np.int64)
                np.add.at(r, idx, vals)
                return r.astype(np.int32)
            return Run((out, xp.asarray(vals), np.int32(n), np.int32(mask)), out, ref, 0)
        return make

    for lab, mask, note in (("atomic_1_address", 0, "every thread adds to one int"),
                            ("atomic_32_addresses", 31, "lane i adds to int i"),
                            ("atomic_distinct", -1, "every thread its own int")):
        add(Case(lab, "tv_atomic_add", (NA // 256,), (256,), atomic(lab, NA, mask), "atomics", note))

    # ------------------------------------------------------- block-size sweep
    NX = n_(1 << 23, 1024)

    def axpy(label, n):
        def make(xp):
            x = _u(label, n)
            y = _u(label + "y", n)
            yd = xp.asarray(y)
            return Run((yd, xp.asarray(x), np.float32(1.5), np.int32(n)), yd,
                       lambda: 1.5 * x.astype(np.float64) + y, 1e-6)
        return make

    for bs in (32, 64, 128, 256, 512, 1024):
        lab = f"axpy_block_{bs}"
        add(Case(lab, "tv_axpy", (NX // bs,), (bs,), axpy(lab, NX), "block_size",
                 f"y = a x + y over {NX} floats, blocks of {bs}"))

    # ------------------------------------------------------------ strided copies
    NS = n_(1 << 22, 256)

    def strided(label, n, stride):
        def make(xp):
            x = _u("strided_source", n * 32)[: n * stride]
            out = _poison(xp, n)
            return Run((out, xp.asarray(x), np.int32(n), np.int32(stride)), out, lambda: x[::stride][:n].copy(), 0)
        return make

    for stride in (1, 2, 4, 8, 16, 32):
        lab = f"strided_copy_{stride}"
        add(Case(lab, "tv_strided_copy", (NS // 256,), (256,), strided(lab, NS, stride), "stride",
                 f"out[i] = in[{stride} i]"))

    # ------------------------------------------------------------------ matmul
    NM = n_(512, 16)

    def matmul(label, N):
        def make(xp):
            a = _u(label + "a", N * N, -1, 1)
            bm = _u(label + "b", N * N, -1, 1)
            out = _poison(xp, N * N)
            return Run((out, xp.asarray(a), xp.asarray(bm), np.int32(N)), out,
                       lambda: (a.reshape(N, N).astype(np.float64) @ bm.reshape(N, N)).ravel(), 1e-5)
        return make

    for kern, note in (("tv_matmul_naive", "one output per thread, operands from global"),
                       ("tv_matmul_tiled", "16x16 shared tiles")):
        lab = kern[3:] + f"_{NM}"
        add(Case(lab, kern, (NM // 16, NM // 16), (16, 16), matmul(lab, NM), "matmul", note))

    # ------------------------------------------------------------------ barriers
    def barrier(label, grid, block, n):
        def make(xp):
            x = _u(label, grid * block)
            out = _poison(xp, grid * block)

            def ref():
                v = x.astype(np.float64).reshape(grid, block)
                for _ in range(n):
                    v = 0.5 * v + 0.25 * np.roll(v, -1, axis=1)
                return v.ravel()
            return Run((out, xp.asarray(x), np.int32(n)), out, ref, 1e-4)
        return make

    for bs, grid in ((256, 8 * sms), (1024, 2 * sms)):
        lab = f"barrier_loop_block_{bs}"
        add(Case(lab, "tv_barrier_loop", (grid,), (bs,), barrier(lab, grid, bs, n_(256)), "barriers",
                 f"2 __syncthreads per round, blocks of {bs}"))

    # ------------------------------------------------------------ waves and tails
    def wave(label, grid, block, steps):
        def make(xp):
            x = _u(label, grid * block)
            out = _poison(xp, grid * block)
            return Run((out, xp.asarray(x), np.int32(steps)), out,
                       lambda: sum(_affine(x.astype(np.float64) + k, A_LOOP, B_LOOP, steps) for k in range(4)), 1e-3)
        return make

    for ctas in (max(1, sms // 2), sms, sms + 1, 2 * sms, 2 * sms + 1):
        lab = f"waves_{ctas}_ctas"
        add(Case(lab, "tv_wave", (ctas,), (256,), wave(lab, ctas, 256, n_(4096)), "waves",
                 "one CTA per SM (120 KB shared each)", shared_mem=120 * 1024))

    # ------------------------------------------------------------------ reductions
    NR = n_(62 * 8 * sms * 256, 8 * sms * 256)

    def reduce_(label, kernel, grid, n):
        def make(xp):
            x = _u(label, n)
            if kernel == "tv_cub_block_reduce":
                out = _poison(xp, grid)
                ref = lambda: x.astype(np.float64).reshape(-1, grid, 256).sum(axis=(0, 2))
            else:
                out = xp.asarray(np.zeros(1, np.float32))    # accumulated into
                ref = lambda: np.array([x.astype(np.float64).sum()])
            return Run((out, xp.asarray(x), np.int32(n)), out, ref, 1e-5)
        return make

    for kern, note in (("tv_reduce_warp", "grid-stride sums, shuffle tree, one atomic per warp"),
                       ("tv_reduce_block", "grid-stride sums, shared tree, one atomic per block"),
                       ("tv_cub_block_reduce", "grid-stride sums, cub::BlockReduce")):
        lab = kern[3:]
        add(Case(lab, kern, (8 * sms,), (256,), reduce_(lab, kern, 8 * sms, NR), "reductions", note))

    NB = n_(16384)

    def scan(label, tiles):
        def make(xp):
            vals = np.random.default_rng(_seed(label)).integers(0, 100, size=tiles * 1024).astype(np.int32)
            out = _poison(xp, tiles * 1024, np.int32)
            return Run((out, xp.asarray(vals)), out, lambda: vals.reshape(tiles, 1024).cumsum(1).astype(np.int32).ravel(), 0)
        return make

    add(Case("cub_block_scan", "tv_cub_block_scan", (NB,), (256,), scan("cub_block_scan", NB), "reductions",
             "cub::BlockScan inclusive sum, 1024 ints per tile"))
    return cases


CASES = build_cases()
