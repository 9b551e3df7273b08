"""The fourth validation set: kernels4.cu launched on the H200 (CuPy) or warpsim.

Written after every model change up to its date and predicted once: the kinds of the first two
sets (divergence, switches, trip counts, streaming at 1-64 warps per SM, occupancy by registers
and by shared memory, ILP, pipes, bank strides, atomics, strided access, transposes, block sizes,
reductions, barriers, waves, tiled matmul) with other shapes, and kinds neither set has: 2D
5-point and 1D 7-point stencils, CSR SpMV, a random gather, a shared-memory histogram of bytes,
block scans, a bitonic sort in shared memory, double-precision axpy and dot, half2 axpy and
HFMA2 chains, float2/float4 copies, grid-stride loops and a 2D grid over an image.
`half_of(label)` splits it by a hash of the label into a development and a held-out half.

`build_cases(sms, scale)` as in cases.py; `Case`, `Run` and `check` are cases.py's.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from cases import Case, Run, _affine, _poison, _seed, _u, check, hashed_half, label_rng, scaled_count  # noqa: F401  (check: the drivers' import)

F32 = np.float32
F16 = np.float16


def half_of(label: str) -> str:
    return hashed_half("set4", label)


# t4_data_switch's five loops: fmaf(v, A, B)
SWITCH_AB = [(F32(0.9993), F32(0.25)), (F32(0.9989), F32(0.5)), (F32(0.9995), F32(0.125)),
             (F32(0.9985), F32(0.375)), (F32(0.9997), F32(0.0625))]


def build_cases(sms: int = 132, scale: float = 1.0) -> list:
    S = scale

    n_ = functools.partial(scaled_count, S)

    cases = []
    add = cases.append

    # ------------------------------------------------------------ divergence
    def lane_split(label, grid, block, n, split):
        def make(xp):
            x = _u(label, grid * block)
            out = _poison(xp, grid * block)
            lane = np.arange(grid * block) % 32
            return Run((out, xp.asarray(x), np.int32(n), np.int32(split)), out,
                       lambda: np.where(lane < split, _affine(x, F32(0.9997), F32(0.125), n),
                                        _affine(x, F32(0.9991), F32(0.375), n)), 1e-3)
        return make

    g, n = 4 * sms, n_(4096, 4)
    for split in (0, 1, 16):
        lab = f"lane_split_{split}"
        add(Case(lab, "t4_lane_split", (g,), (256,), lane_split(lab, g, 256, n, split), "lane_split",
                 f"lanes below {split} run one chain of {n} FMAs, the rest another"))

    # ------------------------------------------------------- data-dependent control
    def data_switch(label, grid, block, n, ways):
        def make(xp):
            total = grid * block
            x = _u(label, total)
            key = label_rng(label).integers(0, 1 << 20, size=total).astype(np.int32)
            out = _poison(xp, total)

            def ref():
                c = key % ways
                r = np.empty(total)
                for k in np.unique(c):
                    m = c == k
                    a, b = SWITCH_AB[min(int(k), 4)]
                    r[m] = _affine(x[m], a, b, n)
                return r
            return Run((out, xp.asarray(x), xp.asarray(key), np.int32(n), np.int32(ways)), out, ref, 1e-3)
        return make

    def trip(label, grid, block, mean, ordered):
        def make(xp):
            total = grid * block
            x = _u(label, total)
            lengths = label_rng(label).integers(1, 2 * mean + 1, size=total).astype(np.int32)
            if ordered:
                lengths = np.sort(lengths)
            out = _poison(xp, total)
            return Run((out, xp.asarray(x), xp.asarray(lengths)), out,
                       lambda: _affine(x, F32(0.9995), F32(0.2), lengths), 1e-3)
        return make

    g = 8 * sms
    for ways in (1, 5):
        lab = f"data_switch_{ways}way"
        add(Case(lab, "t4_data_switch", (g,), (256,), data_switch(lab, g, 256, n_(2048, 4), ways), "data_dependent",
                 f"a {ways}-way switch on a random key per thread"))
    for ordered in (False, True):
        lab = "trip_sorted" if ordered else "trip_random"
        add(Case(lab, "t4_trip", (g,), (256,), trip(lab, g, 256, n_(2048), ordered), "data_dependent",
                 "trip counts uniform in 1..2x mean" + (", sorted (warps alike)" if ordered else "")))

    # ------------------------------------------------- grid-stride streaming, warps per SM
    NGS = n_(1 << 22, 1024)

    def grid_stride(label, n):
        def make(xp):
            x = _u(label + "x", n)
            y = _u(label + "y", n)
            z = _poison(xp, n)
            return Run((z, xp.asarray(x), xp.asarray(y), np.int64(n)), z,
                       lambda: x.astype(np.float64) * y + 1.0, 1e-6)
        return make

    for warps in (1, 4, 16, 64):
        bs = min(1024, 32 * warps)
        grid = sms * (32 * warps // bs)
        lab = f"grid_stride_{warps}w_per_sm"
        add(Case(lab, "t4_grid_stride_fma", (grid,), (bs,), grid_stride(lab, NGS), "grid_stride_warps",
                 f"grid-stride z = x y + 1, {warps} warps per SM"))

    # --------------------------------------------------------------- copy widths
    NC = n_(1 << 24, 4096)

    def copy(label, n, width):
        def make(xp):
            x = _u(label, n)
            out = _poison(xp, n)
            return Run((out, xp.asarray(x), np.int32(n // width)), out, lambda: 2.0 * x, 0)
        return make

    for width in (1, 2, 4):
        lab = f"copy_f{width}"
        add(Case(lab, f"t4_copy_f{width}", (NC // width // 256,), (256,), copy(lab, NC, width), "copy_width",
                 f"one float{width if width > 1 else ''} per thread"))

    # ------------------------------------------------------------------ occupancy
    def chase(label, grid, block, steps):
        def make(xp):
            perm = label_rng(label).permutation(1 << 20).astype(np.int32)
            out = _poison(xp, grid * block, np.int32)

            def ref():
                p = np.arange(grid * block) & ((1 << 20) - 1)
                for _ in range(steps):
                    p = perm[p]
                return p.reshape(grid, block)[:, ::-1].ravel()
            return Run((out, xp.asarray(perm), np.int32(steps)), out, ref, 0)
        return make

    g = 16 * sms
    for kb in (1, 40, 100):
        lab = f"chase_smem_{kb}k"
        add(Case(lab, "t4_chase_smem", (g,), (128,), chase(lab, g, 128, n_(64, 4)), "occupancy",
                 f"dependent loads through a 4 MB permutation, {kb} KB shared per 128-thread CTA",
                 shared_mem=kb * 1024))

    def regs(label, grid, block, K, iters):
        def make(xp):
            table = _u(label, 65536, 0.6, 0.95)
            out = _poison(xp, grid * block)

            def ref():
                t = np.arange(grid * block)
                P, Q = np.ones(grid * block), np.zeros(grid * block)
                for k in range(K):            # one iteration as x -> P x + Q
                    r = table[(t + k * 977) & 65535].astype(np.float64)
                    P, Q = P * r, Q * r + 0.125
                c = Q / (1.0 - P)
                return c + (1.0 - c) * P ** iters
            return Run((out, xp.asarray(table), np.int32(iters)), out, ref, 1e-3)
        return make

    g = 8 * sms
    for K in (40, 160):
        lab = f"regs_{K}"
        iters = max(1, n_(3072) // K)
        add(Case(lab, f"t4_regs_{K}", (g,), (256,), regs(lab, g, 256, K, iters), "occupancy",
                 f"{K} values live in registers; a chain of {K * iters} FMAs per thread"))

    # ------------------------------------------------------------------ ILP
    def ilp(label, grid, block, N, steps):
        def make(xp):
            x = _u(label, grid * block)
            out = _poison(xp, grid * block)
            nfma = steps * (12 // N)
            return Run((out, xp.asarray(x), np.int32(steps)), out,
                       lambda: sum(_affine(x.astype(np.float64) + F32(0.5 * k), F32(0.9994), F32(0.3), nfma)
                                   for k in range(N)), 1e-3)
        return make

    for N in (1, 3, 12):
        lab = f"ilp_{N}"
        add(Case(lab, f"t4_ilp_{N}", (sms,), (96,), ilp(lab, sms, 96, N, n_(2048)), "ilp",
                 f"{N} independent FMA chains, 12 FMAs per step; 3 warps per SM"))

    # ------------------------------------------------------------------ pipes
    def pipe(label, kernel, grid, block, steps):
        def make(xp):
            total = grid * block
            if kernel == "t4_pipe_int":
                x = label_rng(label).integers(1, 2**32 - 1, size=total, dtype=np.uint32)
                out = _poison(xp, total, np.uint32)
                return Run((out, xp.asarray(x), np.int32(steps)), out, lambda: _lcg_ref(x, steps), 0)
            if kernel == "t4_pipe_half2":
                x = _u(label, 2 * total).astype(F16)
                out = _poison(xp, 2 * total, F16)
                return Run((out, xp.asarray(x), np.int32(steps)), out, lambda: _hfma2_ref(x, steps), 1e-6)
            if kernel == "t4_pipe_fp64":
                x = _u(label, total).astype(np.float64)
                out = _poison(xp, total, np.float64)
                return Run((out, xp.asarray(x), np.int32(steps)), out,
                           lambda: sum(_affine(x + 0.5 * k, 0.9992, 0.4, steps) for k in range(4)), 1e-9)
            x = _u(label, total)
            out = _poison(xp, total)
            if kernel == "t4_pipe_sfu":
                def ref():
                    v = [x.astype(np.float64) + 0.25 * k for k in range(4)]
                    for _ in range(steps):
                        v = [np.sin(a) + 1.5 for a in v]
                    return sum(v)
                return Run((out, xp.asarray(x), np.int32(steps)), out, ref, 1e-4)
            return Run((out, xp.asarray(x), np.int32(steps)), out,
                       lambda: sum(_affine(x.astype(np.float64) + F32(0.5 * k), F32(0.9992), F32(0.4), steps)
                                   for k in range(4)), 1e-3)
        return make

    g = 8 * sms
    for lab, steps, note in (("pipe_fp32", n_(512, 4), "4 FFMA chains"), ("pipe_fp64", n_(256, 4), "4 DFMA chains"),
                             ("pipe_int", n_(512, 4), "4 LCG + xor-shift chains"),
                             ("pipe_sfu", n_(128, 4), "4 __sinf chains (MUFU.SIN)"),
                             ("pipe_half2", n_(512, 4), "4 HFMA2 chains")):
        add(Case(lab, "t4_" + lab, (g,), (256,), pipe(lab, "t4_" + lab, g, 256, steps), "pipes",
                 note + ", 64 warps per SM"))

    # ------------------------------------------------------------- shared-memory banks
    def bank(label, grid, block, n, stride):
        def make(xp):
            src = _u(label, 8192)
            out = _poison(xp, grid * block)

            def ref():
                t = np.arange(grid * block)
                blk, tid = t // block, t % block
                base = (tid % 32) * stride + tid // 32
                s = src[(np.arange(grid)[:, None] * 13 + np.arange(2048)[None, :]) & 8191].astype(np.float64)
                cols = s.reshape(-1, 64, 32).sum(axis=1)          # per block: sum over s[m + 32 j]
                return (n // 64) * cols[blk, base % 32]
            return Run((out, xp.asarray(src), np.int32(n), np.int32(stride)), out, ref, 1e-4)
        return make

    g = 8 * sms
    for stride in (1, 3, 8, 32):
        lab = f"bank_stride_{stride}"
        add(Case(lab, "t4_bank", (g,), (256,), bank(lab, g, 256, n_(512, 64), stride), "bank_stride",
                 f"shared loads at lane*{stride} words: {math.gcd(stride, 32)}-way"))

    # ------------------------------------------------------------------ atomics
    def atom_global(label, n, mode):
        def make(xp):
            vals = label_rng(label).integers(1, 50, size=n).astype(np.int32)
            slot = (np.zeros(n, np.int64), np.arange(n) >> 5, np.arange(n))[mode]
            size = int(slot.max()) + 1
            acc = xp.asarray(np.zeros(size, np.int32))       # accumulated into: starts at 0
            return Run((acc, xp.asarray(vals), np.int32(n), np.int32(mode)), acc,
                       lambda: np.bincount(slot, weights=vals, minlength=size).astype(np.int32), 0)
        return make

    for mode, what, n in ((0, "one_address", n_(1 << 20, 256)), (1, "per_warp", n_(1 << 23, 256)),
                          (2, "per_thread", n_(1 << 23, 256))):
        lab = f"atom_global_{what}"
        add(Case(lab, "t4_atom_global", (n // 256,), (256,), atom_global(lab, n, mode), "atomics",
                 f"{n} global atomic adds, {what.replace('_', ' ')}"))

    def atom_shared(label, grid, block, n, mode):
        def make(xp):
            vals = label_rng(label).integers(1, 50, size=n).astype(np.int32)
            out = _poison(xp, grid * 32, np.int32)

            def ref():
                i = np.arange(n)
                owner = (i % (grid * block)) // block
                slot = owner * 32 + (0 if mode == 0 else i % 32)
                return np.bincount(slot, weights=vals, minlength=grid * 32).astype(np.int32)
            return Run((out, xp.asarray(vals), np.int32(n), np.int32(mode)), out, ref, 0)
        return make

    g = 2 * sms
    for mode, what in ((0, "one_word"), (1, "per_lane")):
        lab = f"atom_shared_{what}"
        add(Case(lab, "t4_atom_shared", (g,), (256,), atom_shared(lab, g, 256, n_(1 << 23, 256), mode), "atomics",
                 f"shared-memory atomic adds, {what.replace('_', ' ')}, grid-stride"))

    def hist(label, grid, nwords, skewed):
        def make(xp):
            rng = label_rng(label)
            data = rng.integers(0, 256, size=4 * nwords).astype(np.uint8)
            if skewed:
                data[rng.random(4 * nwords) < 0.9] = 0x41
            words = data.view(np.uint32)
            h = xp.asarray(np.zeros(256, np.int32))
            return Run((h, xp.asarray(words), np.int32(nwords)), h,
                       lambda: np.bincount(data, minlength=256).astype(np.int32), 0)
        return make

    for skewed in (False, True):
        lab = "hist256_skewed" if skewed else "hist256_uniform"
        add(Case(lab, "t4_hist256", (4 * sms,), (256,), hist(lab, 4 * sms, n_(1 << 23, 256), skewed), "atomics",
                 "bytes of 32-bit words into 256 shared bins, merged globally" + (" (90% one byte)" if skewed else "")))

    # ------------------------------------------------------------- strided access
    NS = n_(1 << 23, 256)

    def strided(label, n, sin, sout):
        def make(xp):
            x = _u(label, n * sin)
            out = xp.asarray(np.zeros(n * sout, np.float32))

            def ref():
                r = np.zeros(n * sout)
                r[::sout] = x[::sin].astype(np.float64) + 1.0
                return r
            return Run((out, xp.asarray(x), np.int32(n), np.int32(sin), np.int32(sout)), out, ref, 1e-6)
        return make

    for sin, sout in ((1, 1), (3, 1), (1, 3), (6, 1)):
        lab = f"strided_in{sin}_out{sout}"
        add(Case(lab, "t4_strided", (NS // 256,), (256,), strided(lab, NS, sin, sout), "strided",
                 f"load stride {sin}, store stride {sout}"))

    # -------------------------------------------------------------- transposes
    R, C = n_(2048, 32), n_(8192, 32)

    def transpose(label, rows, cols):
        def make(xp):
            x = _u(label, rows * cols)
            out = _poison(xp, rows * cols)
            return Run((out, xp.asarray(x), np.int32(rows), np.int32(cols)), out,
                       lambda: x.reshape(rows, cols).T.ravel().copy(), 0)
        return make

    for kern, note in (("t4_tr_naive", "global only: writes strided by rows"),
                       ("t4_tr_tile", "32 x 32 shared tile, 32-way conflicts on the read"),
                       ("t4_tr_pad", "32 x 33 shared tile")):
        lab = f"transpose_{kern[6:]}"
        add(Case(lab, kern, (C // 32, R // 32), (32, 8), transpose(lab, R, C), "transpose",
                 f"{R} x {C} floats; {note}"))

    # ------------------------------------------------------- a 2D grid over an image
    side = max(64, round(4000 * math.sqrt(S)))

    def image(label, W, H):
        def make(xp):
            x = _u(label, W * H)
            out = _poison(xp, W * H)

            def ref():
                m = x.reshape(H, W).astype(np.float64)
                return (0.75 * m + 0.5 * m[:, ::-1]).ravel()
            return Run((out, xp.asarray(x), np.int32(W), np.int32(H), np.float32(0.75)), out, ref, 1e-6)
        return make

    for bx, by in ((32, 1), (8, 8), (32, 4), (32, 32)):
        lab = f"image_{bx}x{by}"
        add(Case(lab, "t4_image", (-(-side // bx), -(-side // by)), (bx, by), image(lab, side, side), "image_blocks",
                 f"{side} x {side} image, blocks of {bx} x {by}"))

    # ------------------------------------------------------------------ stencils
    side5 = max(64, round(4096 * math.sqrt(S)))

    def stencil5(label, W, H):
        def make(xp):
            x = _u(label, W * H)
            out = _poison(xp, W * H)

            def ref():
                m = x.reshape(H, W).astype(np.float64)
                r = m.copy()
                r[1:-1, 1:-1] = 0.5 * m[1:-1, 1:-1] + 0.125 * (m[1:-1, :-2] + m[1:-1, 2:] + m[:-2, 1:-1] + m[2:, 1:-1])
                return r.ravel()
            return Run((out, xp.asarray(x), np.int32(W), np.int32(H)), out, ref, 1e-6)
        return make

    add(Case("stencil5_2d", "t4_stencil5", (-(-side5 // 32), -(-side5 // 8)), (32, 8),
             stencil5("stencil5_2d", side5, side5), "stencils", f"5-point stencil, {side5}^2, blocks of 32 x 8"))

    N7 = n_(1 << 24) + 37

    def stencil7(label, n):
        def make(xp):
            x = _u(label, n)
            out = _poison(xp, n)

            def ref():
                p = np.pad(x.astype(np.float64), 3, mode="edge")
                def c(d):
                    return p[3 + d: 3 + d + n]
                return 0.4 * c(0) + 0.15 * (c(-1) + c(1)) + 0.1 * (c(-2) + c(2)) + 0.05 * (c(-3) + c(3))
            return Run((out, xp.asarray(x), np.int32(n)), out, ref, 1e-6)
        return make

    for bs in (128, 512):
        lab = f"stencil7_1d_b{bs}"
        add(Case(lab, "t4_stencil7", (-(-N7 // bs),), (bs,), stencil7(lab, N7), "stencils",
                 f"7-point stencil through a shared tile with a halo of 3, {N7} floats, blocks of {bs}",
                 shared_mem=4 * (bs + 6)))

    # ------------------------------------------------------------ irregular access
    ROWS, NCOLS = n_(1 << 18, 256), n_(1 << 20, 256)

    def spmv(label, rows, ncols, kernel):
        def make(xp):
            rng = label_rng("t4_csr")
            lengths = rng.integers(0, 64, size=rows)
            rowptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
            nnz = int(rowptr[-1])
            cols = rng.integers(0, ncols, size=nnz).astype(np.int32)
            vals = _u("t4_csr_vals", nnz)
            x = _u("t4_csr_x", ncols)
            y = _poison(xp, rows)

            def ref():
                prod = vals.astype(np.float64) * x[cols]
                return np.bincount(np.repeat(np.arange(rows), lengths), weights=prod, minlength=rows)
            return Run((y, xp.asarray(rowptr), xp.asarray(cols), xp.asarray(vals), xp.asarray(x), np.int32(rows)),
                       y, ref, 1e-5)
        return make

    add(Case("spmv_thread_per_row", "t4_spmv_thread", (ROWS // 256,), (256,),
             spmv("spmv_thread_per_row", ROWS, NCOLS, "t4_spmv_thread"), "irregular",
             f"CSR SpMV, {ROWS} rows of 0-63 random columns, a thread per row"))
    add(Case("spmv_warp_per_row", "t4_spmv_warp", (ROWS * 32 // 256,), (256,),
             spmv("spmv_warp_per_row", ROWS, NCOLS, "t4_spmv_warp"), "irregular",
             "the same matrix, a warp per row"))

    NG = n_(1 << 23, 256)

    def gather(label, n, near):
        def make(xp):
            rng = label_rng(label)
            idx = (np.arange(n) ^ rng.integers(0, 32, size=n)) if near else rng.permutation(n)
            idx = idx.astype(np.int32)
            src = _u(label, n)
            out = _poison(xp, n)
            return Run((out, xp.asarray(src), xp.asarray(idx), np.int32(n)), out, lambda: 2.0 * src[idx], 0)
        return make

    for near in (False, True):
        lab = "gather_near" if near else "gather_random"
        add(Case(lab, "t4_gather", (NG // 256,), (256,), gather(lab, NG, near), "irregular",
                 "out[i] = 2 src[idx[i]], idx " + ("i xor a random 0..31" if near else "a random permutation")))

    # ------------------------------------------------- reductions, precisions
    def shfl_reduce(label, grid, block, n):
        def make(xp):
            x = _u(label, n)
            out = _poison(xp, grid * block // 32)

            def ref():
                owner = (np.arange(n) % (grid * block)) // 32
                return np.bincount(owner, weights=x.astype(np.float64), minlength=grid * block // 32)
            return Run((out, xp.asarray(x), np.int32(n)), out, ref, 1e-5)
        return make

    g = 4 * sms
    for log2 in (23, 24, 25):
        lab = f"shfl_reduce_2e{log2}"
        add(Case(lab, "t4_shfl_reduce", (g,), (256,), shfl_reduce(lab, g, 256, n_(1 << log2, 256)),
                 "precision_reduce", f"2^{log2} floats, grid-stride, one shuffle-tree partial per warp"))

    ND = n_(1 << 22, 256)

    def daxpy(label, n):
        def make(xp):
            x = _u(label + "x", n).astype(np.float64)
            y0 = _u(label + "y", n).astype(np.float64)
            y = xp.asarray(y0.copy())
            return Run((y, xp.asarray(x), np.float64(0.625), np.int32(n)), y, lambda: 0.625 * x + y0, 1e-12)
        return make

    def ddot(label, n):
        def make(xp):
            x = _u(label + "x", n).astype(np.float64)
            y = _u(label + "y", n).astype(np.float64)
            out = xp.asarray(np.zeros(1, np.float64))       # accumulated into: starts at 0
            return Run((out, xp.asarray(x), xp.asarray(y), np.int32(n)), out, lambda: np.array([x @ y]), 1e-10)
        return make

    def haxpy(label, n2):
        def make(xp):
            x = _u(label + "x", 2 * n2, -1.0, 1.0).astype(F16)
            y0 = _u(label + "y", 2 * n2).astype(F16)
            y = xp.asarray(y0.copy())
            return Run((y, xp.asarray(x), np.float32(0.75), np.int32(n2)), y,
                       lambda: (0.75 * x.astype(np.float64) + y0).astype(F16), 1e-6)
        return make

    add(Case("daxpy", "t4_daxpy", (ND // 256,), (256,), daxpy("daxpy", ND), "precision_reduce",
             f"double y = a x + y, {ND} elements"))
    add(Case("ddot", "t4_ddot", (4 * sms,), (256,), ddot("ddot", ND), "precision_reduce",
             f"double dot of {ND}, shuffles and one atomic per CTA"))
    NH2 = n_(1 << 23, 256)
    add(Case("haxpy_half2", "t4_haxpy", (NH2 // 256,), (256,), haxpy("haxpy_half2", NH2), "precision_reduce",
             f"__half2 y = a x + y, {NH2} pairs"))

    # --------------------------------------------------- block algorithms, tiles, waves
    NSC = n_(1 << 24, 1024)

    def block_scan(label, n, block):
        def make(xp):
            v = label_rng(label).integers(0, 100, size=n).astype(np.int32)
            out = _poison(xp, n, np.int32)

            def ref():
                seg = v.reshape(-1, block)
                return (np.cumsum(seg, axis=1) - seg).ravel().astype(np.int32)
            return Run((out, xp.asarray(v)), out, ref, 0)
        return make

    for bs in (256, 1024):
        lab = f"block_scan_b{bs}"
        add(Case(lab, "t4_block_scan", (NSC // bs,), (bs,), block_scan(lab, NSC, bs), "block_work",
                 f"exclusive scan of each block's {bs} ints (Hillis-Steele)", shared_mem=4 * bs))

    NB = n_(1 << 22, 1024)

    def bitonic(label, n):
        def make(xp):
            keys = _u(label, n, -1.0, 1.0)
            data = xp.asarray(keys.copy())
            return Run((data,), data, lambda: np.sort(keys.reshape(-1, 1024), axis=1).ravel(), 0)
        return make

    add(Case("bitonic_1024", "t4_bitonic", (NB // 1024,), (512,), bitonic("bitonic_1024", NB), "block_work",
             "each CTA sorts 1024 keys: 55 bitonic steps in shared memory, a barrier each", shared_mem=4 * 1024))

    M, N, K = n_(1024, 32), n_(2048, 32), n_(512, 32)

    def matmul(label):
        def make(xp):
            a = _u(label + "a", M * K, -1, 1)
            b = _u(label + "b", K * N, -1, 1)
            out = _poison(xp, M * N)
            return Run((out, xp.asarray(a), xp.asarray(b), np.int32(M), np.int32(N), np.int32(K)), out,
                       lambda: (a.reshape(M, K).astype(np.float64) @ b.reshape(K, N)).ravel(), 1e-5)
        return make

    for tile in (16, 32):
        lab = f"matmul{tile}_{M}x{N}x{K}"
        add(Case(lab, f"t4_matmul{tile}", (N // tile, M // tile), (tile, tile), matmul(lab), "block_work",
                 f"{tile} x {tile} shared tiles"))

    def wave(label, grid, block, steps):
        def make(xp):
            x = _u(label, grid * block)
            out = _poison(xp, grid * block)
            return Run((out, xp.asarray(x), np.int32(steps)), out,
                       lambda: _affine(x, F32(0.9996), F32(0.1), steps) + _affine(x.astype(np.float64) + 2.0,
                                                                                   F32(0.9996), F32(0.1), steps), 1e-3)
        return make

    for ctas, what in ((sms, "1_wave"), (sms * 3 // 2, "1.5_waves")):
        lab = f"wave_{what}"
        add(Case(lab, "t4_wave", (ctas,), (256,), wave(lab, ctas, 256, n_(8192)), "block_work",
                 f"{ctas} CTAs of 120 KB shared: one per SM", shared_mem=120 * 1024))
    return cases


def _lcg_ref(x, steps):
    v = [x.copy(), x ^ np.uint32(0x5BD1E995), x + np.uint32(7), x * np.uint32(5)]
    for _ in range(steps):
        for k in range(4):
            a = v[k] * np.uint32(1664525) + np.uint32(1013904223)
            v[k] = a ^ (a >> np.uint32(16))
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def _hfma2_ref(x, steps):
    """t4_pipe_half2 on each distinct input: a half FMA is one rounding of an exact float64 result."""
    vals, inverse = np.unique(x, return_inverse=True)
    m = np.float32(0.99).astype(F16).astype(np.float64)
    k = np.float32(0.01).astype(F16).astype(np.float64)

    def add(a, b):
        return (a.astype(np.float64) + b).astype(F16)
    v = [vals, add(vals, 0.25), add(vals, 0.5), add(vals, 0.75)]
    for _ in range(steps):
        v = [(a.astype(np.float64) * m + k).astype(F16) for a in v]
    return add(add(v[0], v[1]), add(v[2], v[3]).astype(np.float64))[inverse]
