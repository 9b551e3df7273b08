"""The fifth validation set: kernels5.cu launched on a GPU (CuPy) or warpsim.

Written after the forty-sixth batch's model and measured on an H100 before any prediction of it
was looked at: the kinds of issue 24's hidden kernels with mechanisms the other sets vary less
(kernels5.cu's header lists them). `half_of(label)` splits it by a hash of the label into a
development and a held-out half.

`build_cases(sms, scale)` as in cases.py; `Case`, `Run` and `check` are cases.py's.
"""

from __future__ import annotations

import functools

import numpy as np
from cases import Case, Run, _affine, _poison, _seed, _u, check, hashed_half, label_rng, scaled_count  # noqa: F401  (check: the drivers' import)

F32 = np.float32
U32 = np.uint32


def half_of(label: str) -> str:
    return hashed_half("set5", label)


SWITCH_AB = [(0.9993, 0.25), (0.9989, 0.5), (0.9995, 0.125), (0.9985, 0.375), (0.9997, 0.0625),
             (0.9991, 0.75), (0.9987, 0.875), (0.9999, 0.03125)]


def _lcg(x, n):
    """x -> x * 1664525 + 1013904223 (mod 2^32), n times, in closed form by squaring."""
    a, c, mask = 1664525, 1013904223, 0xFFFFFFFF
    x = x.astype(U32).copy()
    while n:
        if n & 1:
            x = x * U32(a) + U32(c)
        a, c = a * a & mask, (c * a + c) & mask
        n >>= 1
    return x


def build_cases(sms: int = 132, scale: float = 1.0) -> list:
    S = scale

    n_ = functools.partial(scaled_count, S)

    cases = []
    add = cases.append
    full = 8 * sms                      # CTAs of 256 at 64 warps an SM

    # ------------------------------------------------------------ divergence by lane modulus
    def diverge(label, threads, n, m):
        def make(xp):
            x = _u(label, threads)
            out = _poison(xp, threads)
            heavy = (np.arange(threads) % 256) % m == 0
            return Run((out, xp.asarray(x), np.int32(n), np.int32(m)), out,
                       lambda: np.where(heavy, _affine(x, F32(0.9995), F32(0.25), n),
                                        _affine(x, F32(0.999), F32(0.5), n // 4)), 1e-3)
        return make

    for m in (1, 2, 8, 32):
        lab = f"diverge_mod_{m}"
        add(Case(lab, "t5_diverge_mod", (full // 2,), (256,), diverge(lab, full // 2 * 256, n_(1024, 4), m),
                 "divergence5", f"lanes t % {m} == 0 run 1024 FMAs, the others 256"))

    # ------------------------------------------------------------ switches by lane and by warp
    def switch(label, threads, n, ways, by_warp):
        def make(xp):
            x = _u(label, threads)
            out = _poison(xp, threads)

            def ref():
                t = np.arange(threads)
                key = ((t >> 5) if by_warp else t) % ways
                res = np.empty(threads)
                for k in range(8):
                    sel = key == k
                    a, b = SWITCH_AB[k]
                    res[sel] = _affine(x[sel], F32(a), F32(b), n)
                return res
            return Run((out, xp.asarray(x), np.int32(n), np.int32(ways), np.int32(by_warp)), out, ref, 1e-3)
        return make

    for ways, by_warp in ((1, 0), (3, 0), (8, 0), (8, 1)):
        lab = f"switch_{ways}way_{'warp' if by_warp else 'lane'}"
        add(Case(lab, "t5_switch", (full // 4,), (256,), switch(lab, full // 4 * 256, n_(2048, 4), ways, by_warp),
                 "switch5", f"{ways}-way switch by {'warp' if by_warp else 'lane'}, 2048 FMAs a case"))

    # ------------------------------------------------------------ one-line chases at grid-set occupancy
    ROWS = 32768                         # 4 MB of lines: the L2 keeps them

    def line_chase(label, grid, block, steps):
        def make(xp):
            nxt = label_rng(label).permutation(ROWS).astype(np.int32)
            rows = np.repeat(nxt, 32)
            out = _poison(xp, grid * block, np.int32)

            def ref():
                p = (np.arange(grid * block) >> 5) & (ROWS - 1)
                for _ in range(steps):
                    p = nxt[p]
                return p
            return Run((out, xp.asarray(rows), np.int32(steps), np.int32(ROWS - 1)), out, ref, 0)
        return make

    for warps in (2, 8, 32):
        lab = f"line_chase_{warps}w_per_sm"
        g = sms * warps // 2
        add(Case(lab, "t5_line_chase", (g,), (64,), line_chase(lab, g, 64, n_(256, 4)), "latency5",
                 f"a warp follows 256 dependent 128-byte lines of a 4 MB table, {warps} warps an SM"))

    # ------------------------------------------------------------ streaming at shared-memory-limited occupancy
    NSM = n_(1 << 25, 256 * sms)

    def stream(label, n):
        def make(xp):
            x = _u(label, n)
            y = _poison(xp, n)
            return Run((y, xp.asarray(x)), y, lambda: 2.0 * x.astype(np.float64) + 1.0, 1e-6)
        return make

    for kb in (0, 40, 72, 160):
        lab = f"stream_smem_{kb}k"
        add(Case(lab, "t5_stream_smem", (NSM // 256,), (256,), stream(lab, NSM), "occupancy5",
                 f"y = 2x + 1, 32M floats, {kb} KB of shared memory held a 256-thread CTA", shared_mem=kb * 1024))

    # ------------------------------------------------------------ integer ILP
    def ilp_int(label, threads, N, steps):
        def make(xp):
            x = label_rng(label).integers(0, 2**32, size=threads, dtype=np.uint64).astype(U32)
            out = _poison(xp, threads, U32)

            def ref():
                acc = np.zeros(threads, U32)
                for k in range(N):
                    acc ^= _lcg(x + U32(7 * k), steps * (16 // N))
                return acc
            return Run((out, xp.asarray(x), np.int32(steps)), out, ref, 0)
        return make

    for N in (1, 2, 4, 8):
        lab = f"ilp_int_{N}"
        add(Case(lab, f"t5_ilp_int_{N}", (sms,), (128,), ilp_int(lab, sms * 128, N, n_(1024)), "ilp5",
                 f"{N} independent IMAD chains, 16 a step; 4 warps an SM"))

    # ------------------------------------------------------------ pipes
    def pipe(label, kernel, threads, steps):
        def make(xp):
            if kernel == "t5_pipe_dfma":
                x = _u(label, threads).astype(np.float64)
                out = _poison(xp, threads, np.float64)

                def ref():
                    return sum(_affine(x + d, 0.9995, 0.25, steps) for d in (0.0, 0.25, 0.5, 0.75))
                tol = 1e-9
            elif kernel == "t5_pipe_popc":
                x = label_rng(label).integers(0, 2**32, size=threads, dtype=np.uint64).astype(U32)
                out = _poison(xp, threads, U32)

                def ref():
                    a, b = x.copy(), x ^ U32(0x5BD1E995)
                    for _ in range(steps):
                        a = _brev(a) + _popc(b)
                        b = _brev(b) ^ _popc(a)
                    return a ^ b
                tol = 0
            elif kernel == "t5_pipe_cvt":
                x = _u(label, threads, 1.0, 500.0)
                out = _poison(xp, threads)

                def ref():
                    a, b = x.copy(), x + F32(3.0)
                    for _ in range(steps):
                        a = ((np.rint(a * F32(1.5)).astype(np.int64) & 1023).astype(F32) * F32(0.75)).astype(F32)
                        b = ((np.rint(b * F32(1.25)).astype(np.int64) & 2047).astype(F32) * F32(0.625)).astype(F32)
                    return a + b
                tol = 0
            else:                                           # __sinf: the hardware's approximation
                x = _u(label, threads)
                out = _poison(xp, threads)

                def ref():
                    a, b = x.astype(np.float64), x.astype(np.float64) + 0.25
                    for _ in range(steps):
                        a, b = np.sin(a) + 0.5, np.sin(b) + 0.5
                    return a + b
                tol = 1e-3
            return Run((out, xp.asarray(x), np.int32(steps)), out, ref, tol)
        return make

    for name, steps in (("pipe_dfma", 512), ("pipe_sin", 1024), ("pipe_popc", 512), ("pipe_cvt", 512)):
        lab = name
        kernel = "t5_" + name
        add(Case(lab, kernel, (full // 2,), (256,), pipe(lab, kernel, full // 2 * 256, n_(steps, 4)), "pipes5",
                 f"{name[5:]} chains at 32 warps an SM"))

    # ------------------------------------------------------------ shared-memory column reads
    def bank(label, grid, block, W, reps):
        def make(xp):
            src = _u(label, 4096)
            out = _poison(xp, grid * block)

            def ref():
                tiles = src[(np.arange(grid)[:, None] * 7 + np.arange(32 * W)) & 4095]
                lane, warp = np.arange(block) & 31, np.arange(block) >> 5
                acc = np.zeros((grid, block), np.float32)
                for r in range(reps):
                    for c in range(32):
                        acc += tiles[:, lane * W + ((c + warp + r) & 31)]
                return acc.ravel()
            return Run((out, xp.asarray(src), np.int32(reps)), out, ref, 1e-5)
        return make

    for W in (32, 33, 36):
        lab = f"bank_col_w{W}"
        g = 4 * sms
        add(Case(lab, f"t5_bank_w{W}", (g,), (256,), bank(lab, g, 256, W, n_(16, 1)), "bank5",
                 f"column reads of a 32 x {W} shared tile: {32 // np.gcd(W, 32) if W != 33 else 1}-way"))

    # ------------------------------------------------------------ float atomics into bins
    NA = n_(1 << 22, 256)

    def atomic_bins(label, n, nbins):
        def make(xp):
            x = _u(label, n)
            bins = xp.asarray(np.zeros(nbins, np.float32))
            slot = (np.arange(n, dtype=np.int64) * 7919) % nbins
            return Run((bins, xp.asarray(x), np.int32(n), np.int32(nbins)), bins,
                       lambda: np.bincount(slot, weights=x.astype(np.float64), minlength=nbins), 1e-5)
        return make

    for nbins in (64, 4096, 1 << 20):
        lab = f"atomic_bins_{nbins}"
        add(Case(lab, "t5_atomic_bins", (NA // 256,), (256,), atomic_bins(lab, NA, nbins), "atomics5",
                 f"4M float atomic adds spread over {nbins} bins"))

    # ------------------------------------------------------------ block sizes of a mixed kernel
    NM = n_(1 << 24, 1024)

    def mixed(label, n):
        def make(xp):
            x = _u(label, n)
            y = _poison(xp, n)
            return Run((y, xp.asarray(x)), y, lambda: _affine(x, F32(0.9997), F32(0.125), 48), 1e-4)
        return make

    for bs in (64, 128, 512, 1024):
        lab = f"mixed_block_{bs}"
        add(Case(lab, "t5_mixed", (NM // bs,), (bs,), mixed(lab, NM), "blocks5",
                 f"load, 48 FMAs, store; blocks of {bs}"))

    # ------------------------------------------------------------ strided double reads
    NSD = n_(1 << 22, 256)

    def stride_double(label, n, stride):
        def make(xp):
            x = _u(label, n * stride).astype(np.float64)
            out = _poison(xp, n, np.float64)
            return Run((out, xp.asarray(x), np.int32(stride)), out, lambda: 2.0 * x[::stride], 0)
        return make

    for stride in (1, 2, 8):
        lab = f"stride_double_{stride}"
        add(Case(lab, "t5_stride_double", (NSD // 256,), (256,), stride_double(lab, NSD, stride), "stride5",
                 f"4M doubles read at stride {stride}"))

    # ------------------------------------------------------------ double transposes
    NT = n_(2048, 32)

    def transpose(label, n):
        def make(xp):
            a = _u(label, n * n).astype(np.float64)
            out = _poison(xp, n * n, np.float64)
            return Run((out, xp.asarray(a), np.int32(n)), out, lambda: a.reshape(n, n).T.ravel(), 0)
        return make

    for kind in ("naive", "tile"):
        lab = f"transpose_d_{kind}"
        add(Case(lab, f"t5_transpose_d_{kind}", (NT // 32, NT // 32), (32, 8), transpose(lab, NT), "transpose5",
                 f"{NT} x {NT} doubles, {kind}"))

    # ------------------------------------------------------------ matmuls
    MM = n_(1024, 64)

    def matmul(label, n):
        def make(xp):
            a = _u(label + "a", n * n, -1.0, 1.0)
            b = _u(label + "b", n * n, -1.0, 1.0)
            c = _poison(xp, n * n)
            return Run((c, xp.asarray(a), xp.asarray(b), np.int32(n), np.int32(n), np.int32(n)), c,
                       lambda: (a.reshape(n, n).astype(np.float64) @ b.reshape(n, n)).ravel(), 1e-5)
        return make

    add(Case("matmul_naive", "t5_matmul_naive", (MM // 16, MM // 16), (16, 16), matmul("matmul_naive", MM),
             "matmul5", f"{MM}^3, one output a thread, no shared memory"))
    add(Case("matmul_rb", "t5_matmul_rb", (MM // 64, MM // 64), (256,), matmul("matmul_rb", MM),
             "matmul5", f"{MM}^3, 64 x 64 tiles, 4 x 4 outputs a thread"))

    # ------------------------------------------------------------ barriers every k iterations
    def barrier(label, grid, block, n, k):
        def make(xp):
            x = _u(label, grid * block)
            out = _poison(xp, grid * block)

            def ref():
                v = x.astype(np.float64).reshape(grid, block)
                for it in range(n):
                    v = v * 0.9995 + 0.25
                    if it % k == k - 1:
                        v = 0.5 * v + 0.5 * v[:, np.arange(block) ^ 1]
                return v.ravel()
            return Run((out, xp.asarray(x), np.int32(n), np.int32(k)), out, ref, 1e-4)
        return make

    for k in (1, 8, 64):
        lab = f"barrier_every_{k}"
        g = 2 * sms
        add(Case(lab, "t5_barrier_every", (g,), (1024,), barrier(lab, g, 1024, n_(512, 64), k), "barrier5",
                 f"blocks of 1024, a neighbour swap through shared memory every {k} FMAs"))

    # ------------------------------------------------------------ waves
    def waves(label, grid, n):
        def make(xp):
            x = _u(label, grid * 256)
            out = _poison(xp, grid * 256)
            return Run((out, xp.asarray(x), np.int32(n)), out,
                       lambda: _affine(x, F32(0.9996), F32(0.1), n) + _affine(x.astype(np.float64) + 1.0,
                                                                               F32(0.9994), F32(0.2), n), 1e-3)
        return make

    for tenths in (10, 15, 20):
        lab = f"waves_{tenths // 10}.{tenths % 10}"
        g = full * tenths // 10
        add(Case(lab, "t5_waves", (g,), (256,), waves(lab, g, n_(512, 4)), "waves5",
                 f"{g} CTAs of 256 ({tenths / 10} waves at 8 an SM)"))

    # ------------------------------------------------------------ reductions
    NR = n_(1 << 24, 256 * sms)

    def reduce(label, n):
        def make(xp):
            x = _u(label, n)
            total = xp.asarray(np.zeros(1, np.float32))
            return Run((total, xp.asarray(x), np.int64(n)), total,
                       lambda: np.array([x.astype(np.float64).sum()]), 1e-5)
        return make

    for kernel, blocks_per_sm in (("tree", 4), ("tree", 16), ("shfl", 4), ("shfl", 16)):
        lab = f"reduce_{kernel}_{blocks_per_sm}"
        add(Case(lab, f"t5_reduce_{kernel}", (blocks_per_sm * sms,), (256,), reduce(lab, NR), "reduce5",
                 f"16M floats summed, grid-stride, {blocks_per_sm} CTAs of 256 an SM, {kernel}"))
    return cases


def _popc(x):
    x = x.astype(U32)
    return np.array([bin(int(v)).count("1") for v in x], dtype=U32) if x.size < 64 else \
        np.unpackbits(x.view(np.uint8).reshape(-1, 4), axis=1).sum(axis=1).astype(U32)


def _brev(x):
    bits = np.unpackbits(x.astype(U32).view(np.uint8).reshape(-1, 4), axis=1, bitorder="little")
    return np.packbits(bits[:, ::-1], axis=1, bitorder="little").view(U32).ravel()
