"""The second validation set: kernels2.cu launched on the H200 (CuPy) or warpsim.

The same kinds of kernel as cases.py (divergence, switches, variable loops, streaming at low
occupancy, atomics, strided access, transposes, block sizes, reductions, barriers, matmul), with
other shapes and sizes, written after the model was fitted. It is split once, by a hash of each
label, into a development half and a held-out half (`HALF[label]`): model changes look at the
development half only; the held-out figures are reported beside them at the end.

`build_cases(sms, scale)` as in cases.py; `Case`, `Run` and `check` are cases.py's.
"""

from __future__ import annotations

import functools

import numpy as np

from cases import Case, Run, _affine, _poison, _seed, _u, check, hashed_half, label_rng, scaled_count  # noqa: F401  (check: the drivers' import)

F32 = np.float32


def half_of(label: str) -> str:
    return hashed_half("half", label)


def _chain(x, n, a, b):
    return _affine(x, F32(a), F32(b), n)


def build_cases(sms: int = 132, scale: float = 1.0) -> list:
    S = scale

    n_ = functools.partial(scaled_count, S)

    cases = []
    add = cases.append

    # ------------------------------------------------------------ divergence
    def branch(label, grid, block, n, mask):
        def make(xp):
            x = _u(label, grid * block)
            out = _poison(xp, grid * block)
            t = np.arange(grid * block) % block

            def ref():
                a = _chain(x, n, 0.9995, 0.25)
                b = _affine(x, F32(0.9985), F32(0.125) * F32(0.9985), n)
                return np.where((t & mask) == 0, a, b)
            return Run((out, xp.asarray(x), np.int32(n), np.int32(mask)), out, ref, 1e-3)
        return make

    g, n = 3 * sms, n_(2048, 4)
    for mask, bs in ((0, 128), (1, 128), (4, 128), (16, 128), (32, 128), (1, 512), (8, 512)):
        lab = f"branch_mask{mask}_b{bs}"
        add(Case(lab, "t2_branch_mask", (g * 128 // bs,), (bs,), branch(lab, g * 128 // bs, bs, n, mask),
                 f"branch_mask_b{bs}", f"(lane & {mask}) picks one of two loops of {n}"))

    def switch_loop(label, grid, block, rounds, ways, by_warp):
        def make(xp):
            x = _u(label, grid * block)
            out = _poison(xp, grid * block)
            t = np.arange(grid * block) % block
            key = (t >> 5) if by_warp else t

            def ref():
                v = x.astype(np.float32).copy()
                for r in range(rounds):
                    c = (key + r) % ways
                    v = _switch_step(v, c)
                return v
            return Run((out, xp.asarray(x), np.int32(rounds), np.int32(ways), np.int32(by_warp)), out, ref, 1e-3)
        return make

    rounds = n_(512)
    for ways, by_warp in ((1, 0), (2, 0), (3, 0), (5, 0), (8, 0), (8, 1)):
        lab = f"switch_loop_{ways}way" + ("_by_warp" if by_warp else "")
        add(Case(lab, "t2_switch_in_loop", (2 * sms,), (256,), switch_loop(lab, 2 * sms, 256, rounds, ways, by_warp),
                 "switch_in_loop", f"{rounds} rounds of a {ways}-way switch" + (" per warp" if by_warp else " per lane")))

    def var_trip(label, grid, block, lengths_of):
        def make(xp):
            total = grid * block
            rng = label_rng(label)
            lengths = lengths_of(rng, total).astype(np.int32)
            x = _u(label, total)
            out = _poison(xp, total)

            def ref():
                v = x.astype(np.float64)
                r = np.empty(total)
                for L in np.unique(lengths):
                    m = lengths == L
                    r[m] = _affine(v[m], 0.9993 * 0.9999, 0.5 * 0.9999, int(L))
                return r
            return Run((out, xp.asarray(x), xp.asarray(lengths), np.int32(total)), out, ref, 1e-3)
        return make

    mean = n_(1000)
    for lab, fn in (("var_trip_geometric", lambda r, k: np.minimum(r.geometric(1.0 / mean, k), 20 * mean)),
                    ("var_trip_one_long", lambda r, k: np.where(np.arange(k) % 32 == 7, 8 * mean, mean // 8)),
                    ("var_trip_by_warp", lambda r, k: np.repeat(r.integers(1, 2 * mean, k // 32), 32))):
        add(Case(lab, "t2_var_trip", (2 * sms,), (256,), var_trip(lab, 2 * sms, 256, fn), "var_trip",
                 "per-thread trip counts"))

    # ------------------------------------------------- streaming at low occupancy
    NST = n_(1 << 22, 1024)

    def stream(label, n, vec=False):
        def make(xp):
            x = _u(label, n)
            out = _poison(xp, n)
            count = np.int64(n // 4 if vec else n)
            return Run((out, xp.asarray(x), count), out, lambda: 2.0 * x.astype(np.float64) + 1.0, 1e-6)
        return make

    for warps in (1, 2, 4, 8, 16, 32, 64):
        bs = min(1024, 32 * warps)
        grid = sms * max(1, (32 * warps) // bs)
        lab = f"stream_{warps}w_per_sm"
        add(Case(lab, "t2_stream", (grid,), (bs,), stream(lab, NST), "stream_occupancy",
                 f"grid-stride copy, {warps} warps per SM"))
    for warps in (1, 4, 16):
        bs = 32 * warps
        lab = f"stream_ilp4_{warps}w_per_sm"
        add(Case(lab, "t2_stream_ilp4", (sms,), (bs,), stream(lab, NST), "stream_ilp4",
                 f"four loads in flight per thread, {warps} warps per SM"))
        lab = f"stream_vec4_{warps}w_per_sm"
        add(Case(lab, "t2_stream_vec4", (sms,), (bs,), stream(lab, NST, True), "stream_vec4",
                 f"float4 copy, {warps} warps per SM"))

    NT = n_(1 << 24, 1024)

    def triad(label, n):
        def make(xp):
            a = _u(label + "a", n)
            b = _u(label + "b", n)
            c = _poison(xp, n)
            return Run((c, xp.asarray(a), xp.asarray(b), np.float32(0.75), np.int32(n)), c,
                       lambda: a.astype(np.float64) + 0.75 * b, 1e-6)
        return make

    for bs in (64, 128, 512, 768, 1024):
        lab = f"triad_block_{bs}"
        add(Case(lab, "t2_triad", (-(-NT // bs),), (bs,), triad(lab, NT), "triad_block", f"blocks of {bs}"))

    # ------------------------------------------------------------------ atomics
    NA = n_(1 << 21, 256)

    def atomics(label, kernel, n, mode, spread, dtype):
        def make(xp):
            rng = label_rng(label)
            vals = (rng.integers(1, 8, size=n).astype(np.int32) if dtype == np.int32
                    else rng.integers(1, 8, size=n).astype(np.float32))
            blocks = -(-n // 256)
            slot = {0: np.zeros(n, np.int64), 1: np.arange(n) >> 5,
                    2: np.arange(n) // 256, 3: np.arange(n) % max(1, spread)}[mode]
            size = int(slot.max()) + 1 if mode != 2 else blocks
            acc = xp.asarray(np.zeros(size, dtype))

            def ref():
                r = np.zeros(size, np.float64)
                np.add.at(r, slot, vals.astype(np.float64))
                return r.astype(dtype)
            args = (acc,)
            keep = []
            if kernel == "t2_atom_ret":
                old = xp.asarray(np.zeros(n, np.int32))
                args, keep = (acc, old), [old]
            return Run(args + (xp.asarray(vals), np.int32(n), np.int32(mode), np.int32(spread)), acc, ref,
                       0 if dtype == np.int32 else 1e-6, keep)
        return make

    for kernel, dt in (("t2_red_int", np.int32), ("t2_red_float", np.float32), ("t2_atom_ret", np.int32)):
        for mode, spread, what in ((0, 1, "one_address"), (1, 1, "per_warp"), (2, 1, "per_cta"),
                                   (3, 1024, "spread_1024")):
            if kernel == "t2_atom_ret" and mode == 2:
                continue
            lab = f"{kernel[3:]}_{what}"
            add(Case(lab, kernel, (NA // 256,), (256,), atomics(lab, kernel, NA, mode, spread, dt),
                     f"atomics_{kernel[3:]}", f"{NA} atomic adds, {what.replace('_', ' ')}"))

    NH = n_(1 << 24, 256)

    def histogram(label, n, grid, skewed):
        def make(xp):
            rng = label_rng(label)
            data = (rng.integers(0, 4, size=n) if skewed else rng.integers(0, 256, size=n)).astype(np.uint8)
            hist = xp.asarray(np.zeros(256, np.int32))
            return Run((hist, xp.asarray(data), np.int32(n)), hist,
                       lambda: np.bincount(data, minlength=256).astype(np.int32), 0)
        return make

    for lab, skewed in (("histogram_uniform", False), ("histogram_4_bins", True)):
        add(Case(lab, "t2_histogram_smem", (2 * sms,), (512,), histogram(lab, NH, 2 * sms, skewed), "histogram",
                 "shared-memory atomics per CTA"))

    # ------------------------------------------------------------- strided access
    NSS = n_(1 << 21, 256)

    def strided(label, kernel, n, stride):
        def make(xp):
            if kernel == "t2_strided_store":
                x = _u(label, n)
                out = xp.asarray(np.zeros(n * stride, np.float32))
                return Run((out, xp.asarray(x), np.int32(n), np.int32(stride)), out,
                           lambda: _scatter(x, n, stride), 1e-6)
            x = _u("t2_strided_source", n * 64)[: n * stride]
            out = _poison(xp, n)
            return Run((out, xp.asarray(x), np.int32(n), np.int32(stride)), out,
                       lambda: 3.0 * x[::stride][:n].astype(np.float64), 1e-6)
        return make

    for kernel in ("t2_strided_store", "t2_strided_load"):
        for stride in (1, 2, 4, 8, 16, 32, 64):
            lab = f"{kernel[3:]}_{stride}"
            add(Case(lab, kernel, (NSS // 256,), (256,), strided(lab, kernel, NSS, stride), kernel[3:],
                     f"stride {stride}"))

    R, C = n_(2048, 32), 8192

    def rowcol(label, kernel, rows, cols):
        def make(xp):
            m = _u(label, rows * cols)
            if kernel == "t2_column_sum":
                out = _poison(xp, cols)
                return Run((out, xp.asarray(m), np.int32(rows), np.int32(cols)), out,
                           lambda: m.reshape(rows, cols).astype(np.float64).sum(axis=0), 1e-5)
            out = _poison(xp, rows)
            return Run((out, xp.asarray(m), np.int32(rows), np.int32(cols)), out,
                       lambda: m.reshape(rows, cols).astype(np.float64).sum(axis=1), 1e-5)
        return make

    add(Case("column_sum", "t2_column_sum", (C // 128,), (128,), rowcol("column_sum", "t2_column_sum", R, C),
             "row_vs_column", "thread per column: coalesced"))
    add(Case("row_sum", "t2_row_sum", (max(1, R // 128),), (128,), rowcol("row_sum", "t2_row_sum", R, C),
             "row_vs_column", "thread per row: 32 lines per request"))

    # -------------------------------------------------------------- transposes
    def transpose(label, kernel, N, rows):
        def make(xp):
            x = _u(label, N * N)
            out = _poison(xp, N * N)
            return Run((out, xp.asarray(x), np.int32(N)), out, lambda: x.reshape(N, N).T.ravel().copy(), 0)
        return make

    NTR = n_(4096, 32)
    for kernel in ("t2_transpose_conflicts", "t2_transpose_pad", "t2_transpose_global"):
        for rows in (8, 32):
            lab = f"{kernel[3:]}_{rows}rows"
            add(Case(lab, kernel, (NTR // 32, NTR // 32), (32, rows), transpose(lab, kernel, NTR, rows),
                     f"transpose_{rows}rows", f"{NTR}^2 floats, 32 x {rows} threads per 32 x 32 tile"))

    # ----------------------------------------------------- reductions and barriers
    NR = n_(1 << 24, 1024)

    def reduce_tree(label, n, grid, block):
        def make(xp):
            x = _u(label, n)
            out = _poison(xp, grid)

            def ref():
                idx = np.arange(n)
                owner = (idx % (grid * block)) // block
                return np.bincount(owner, weights=x.astype(np.float64), minlength=grid)
            return Run((out, xp.asarray(x), np.int32(n)), out, ref, 1e-5)
        return make

    for bs in (128, 256, 512, 1024):
        grid = 4 * sms * 256 // bs
        lab = f"reduce_tree_b{bs}"
        add(Case(lab, "t2_reduce_tree", (grid,), (bs,), reduce_tree(lab, NR, grid, bs), "reduce_tree",
                 f"tree in shared memory, blocks of {bs}", shared_mem=4 * bs))

    def reduce_atomic(label, n, grid, block):
        def make(xp):
            x = _u(label, n)
            out = xp.asarray(np.zeros(1, np.float32))
            return Run((out, xp.asarray(x), np.int32(n)), out, lambda: np.array([x.astype(np.float64).sum()]), 1e-4)
        return make

    for grid_mult in (1, 8):
        lab = f"reduce_shfl_atomic_g{grid_mult}"
        add(Case(lab, "t2_reduce_shfl_atomic", (grid_mult * sms,), (256,),
                 reduce_atomic(lab, NR, grid_mult * sms, 256), "reduce_shfl_atomic",
                 f"shuffles, one atomic per warp, {grid_mult} CTAs per SM"))

    def stencil(label, grid, block, rounds):
        def make(xp):
            x = _u(label, grid * block)
            out = _poison(xp, grid * block)

            def ref():
                v = x.astype(np.float64).reshape(grid, block)
                for _ in range(rounds):
                    v = 0.25 * np.roll(v, 1, axis=1) + 0.5 * v + 0.25 * np.roll(v, -1, axis=1)
                return v.ravel()
            return Run((out, xp.asarray(x), np.int32(rounds)), out, ref, 1e-4)
        return make

    for bs in (64, 256, 1024):
        grid = 8 * sms * 64 // bs
        lab = f"stencil_rounds_b{bs}"
        add(Case(lab, "t2_stencil_rounds", (grid,), (bs,), stencil(lab, grid, bs, n_(200)), "stencil_rounds",
                 f"two barriers per round, blocks of {bs}", shared_mem=4 * bs))

    # ------------------------------------------------------ compute at any block size
    def fma(label, grid, block, steps):
        def make(xp):
            x = _u(label, grid * block)
            out = _poison(xp, grid * block)

            def ref():
                v = x.astype(np.float64)
                return sum(_affine(v + k, F32(1.0 - 1e-4 * (k + 1)), F32(0.01 * (k + 1)), steps) for k in range(4))
            return Run((out, xp.asarray(x), np.int32(steps)), out, ref, 1e-3)
        return make

    threads = 4 * sms * 512
    for bs in (96, 256, 512, 1024):
        lab = f"fma_chains_b{bs}"
        add(Case(lab, "t2_fma_chains", (threads // bs,), (bs,), fma(lab, threads // bs, bs, n_(1024, 4)),
                 "fma_block", f"four FMA chains per thread, blocks of {bs}"))

    NM = n_(1024, 32)

    def matmul(label, N):
        def make(xp):
            a = _u(label + "a", N * N, -1, 1)
            b = _u(label + "b", N * N, -1, 1)
            out = _poison(xp, N * N)
            return Run((out, xp.asarray(a), xp.asarray(b), np.int32(N)), out,
                       lambda: (a.reshape(N, N).astype(np.float64) @ b.reshape(N, N)).ravel(), 1e-5)
        return make

    for N in (NM, 2 * NM):
        lab = f"matmul32_{N}"
        add(Case(lab, "t2_matmul32", (N // 32, N // 32), (32, 32), matmul(lab, N), "matmul32",
                 "32 x 32 shared tiles"))
    return cases


def _scatter(x, n, stride):
    r = np.zeros(n * stride, np.float64)
    r[::stride] = 3.0 * x.astype(np.float64)
    return r


_SWITCH = [
    lambda v: _f(_f(v * F32(0.999) + F32(0.5)) * F32(0.999) + F32(0.5)),
    lambda v: _f(_f((v + F32(0.25)) * F32(0.998)) + F32(0.25)) * F32(0.998),
    lambda v: _f(_f(v * F32(0.997) + F32(0.75)) * F32(0.999)) + F32(0.125),
    lambda v: _f(_f(_f(v - F32(0.5)) * F32(0.996)) + F32(1.0)) * F32(0.9991) + F32(0.3),
    lambda v: _f(_f(v * F32(0.9993) + F32(0.6)) + F32(0.1)) * F32(0.9992),
    lambda v: _f(_f(v + F32(0.2)) * F32(0.9994)) * F32(0.9989) + F32(0.4),
    lambda v: _f(_f(v * F32(0.9987) + F32(0.9)) * F32(0.9996)) + F32(0.2),
    lambda v: _f(_f(v + F32(0.3)) * F32(0.9982)) * F32(0.9997) + F32(0.05),
]


def _f(v):
    return np.asarray(v, np.float32)


def _switch_step(v, c):
    """One round of t2_switch_in_loop for every lane, case by case (float32; the tolerance covers FMA)."""
    out = v.copy()
    for k in np.unique(c):
        m = c == k
        out[m] = _SWITCH[min(int(k), 7)](v[m].astype(np.float32))
    return out.astype(np.float32)
