"""Coalescing: the warp is the unit of memory access."""

from __future__ import annotations

import numpy as np

from . import common

NAME = "coalescing"
TITLE = "Coalescing: the warp is the unit of memory access"
CLAIM = """
Coalescing is a SIMT effect too: the warp is the unit of memory access, so map
adjacent lanes to adjacent addresses. Global load efficiency, or sectors per
request, reveals poor coalescing.
"""
KERNELS = "coalescing.cu"
N = 8192                          # elements copied per launch
STRIDES = (1, 2, 4, 8, 32)
ROWS, COLS = 256, 256             # the transposed matrix
BIG_N, BIG_SIDE = 1 << 18, 2048   # the launches whose times are predicted (a sample of their blocks runs)
LD_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
LD_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
ST_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
ST_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"


def sectors_per_request(run, sectors: str, requests: str) -> float:
    count = run.metric(requests) or 0
    return (run.metric(sectors) or 0) / count if count else 0.0


def strided_copy(stride: int, rng):
    from .. import api
    source = rng.standard_normal(N * stride).astype(np.float32)
    out = api.full(N, np.nan, dtype=np.float32)
    run = common.launch(KERNELS, "copy_strided", N // 256, 256,
                        (api.asarray(source), out, np.int32(stride), np.int32(N)),
                        label=f"copy_strided, stride {stride}")
    assert np.array_equal(out.get(), source[::stride][:N])
    return run


def transpose(kernel: str, matrix):
    from .. import api
    out = api.full(ROWS * COLS, np.nan, dtype=np.float32)
    run = common.launch(KERNELS, kernel, (COLS // 32, ROWS // 32), (32, 32),
                        (api.asarray(matrix), out, np.int32(ROWS), np.int32(COLS)), label=kernel)
    assert np.array_equal(out.get().reshape(COLS, ROWS), matrix.T)
    return run


def run(console=None) -> common.DemoResult:
    result = common.DemoResult(NAME, TITLE)
    rng = np.random.default_rng(5)
    per_request, bytes_moved = {}, {}
    for stride in STRIDES:
        launched = strided_copy(stride, rng)
        per_request[stride] = sectors_per_request(launched, LD_SECTORS, LD_REQUESTS)
        bytes_moved[stride] = int(launched.metric(LD_SECTORS) or 0) * 32
        if stride in (1, 32):
            result.runs.append(launched)
    matrix = rng.standard_normal((ROWS, COLS)).astype(np.float32)
    naive, tiled = transpose("transpose_naive", matrix), transpose("transpose_tiled", matrix)
    naive_store = sectors_per_request(naive, ST_SECTORS, ST_REQUESTS)
    tiled_load = sectors_per_request(tiled, LD_SECTORS, LD_REQUESTS)
    tiled_store = sectors_per_request(tiled, ST_SECTORS, ST_REQUESTS)
    naive_bytes = int((naive.metric(ST_SECTORS) or 0) * 32)
    tiled_bytes = int((tiled.metric(ST_SECTORS) or 0) * 32)
    result.figures.update(sectors_per_request=per_request, load_bytes=bytes_moved,
                          naive_store_sectors_per_request=naive_store,
                          tiled_load_sectors_per_request=tiled_load,
                          tiled_store_sectors_per_request=tiled_store,
                          naive_store_bytes=naive_bytes, tiled_store_bytes=tiled_bytes)
    useful = N * 4
    for stride in STRIDES:
        want = min(32, 4 * stride)        # 32 lanes x 4 B x stride, in 32-byte sectors
        result.add(f"copy, stride {stride}: sectors per request (bytes read for {useful:,} useful)",
                   f"{per_request[stride]:.1f} ({bytes_moved[stride]:,} B)",
                   "4: coalesced" if stride == 1 else f"more: {want} sectors", per_request[stride] == want)
    result.add("transpose, naive: sectors per request of its strided writes", f"{naive_store:.1f}",
               "32 (one per lane)", naive_store == 32)
    result.add("transpose through a shared-memory tile: loads, stores",
               f"{tiled_load:.1f}, {tiled_store:.1f}", "4, 4 (adjacent lanes, adjacent addresses)",
               tiled_load == 4 and tiled_store == 4)
    result.add("bytes written by the transpose: naive vs tiled", f"{naive_bytes:,} vs {tiled_bytes:,}",
               "8x fewer with the tile", naive_bytes == 8 * tiled_bytes)
    times = predicted_times()
    result.figures["predicted_s"] = {k: None if t is None else t.time_s for k, t in times.items()}
    common.add_predicted(result, f"copy of {BIG_N:,} floats, stride 32 vs 1", times[32], times[1],
                         "poor coalescing: slower", lambda r: r > 2, figure="predicted_stride_ratio")
    common.add_predicted(result, f"transpose {BIG_SIDE}x{BIG_SIDE}, naive vs tiled", times["transpose_naive"],
                         times["transpose_tiled"], "the tile's fix: faster", lambda r: r > 1,
                         figure="predicted_transpose_speedup")
    if console is not None:
        common.header(console, result, CLAIM)
        common.say(console, f"  copy_strided: out[i] = in[i * stride] for {N} floats, one request per warp "
                            "load; a request reads every 32-byte sector its lanes touch:")
        for stride in STRIDES:
            bar = "#" * int(per_request[stride])
            t = times[stride]
            common.say(console, f"    stride {stride:>2}: {bar:<32} {per_request[stride]:4.1f} sectors per "
                                f"request;  {BIG_N:,} floats predicted in {common.us(t)}")
        console.print(common.figures_table(result))
    return result


def predicted_times() -> dict:
    """Predicted times of the copy at each stride on BIG_N floats, and of both transposes of a
    BIG_SIDE square (stride or kernel name -> Timing)."""
    from .. import api
    times = {}
    out = api.zeros(BIG_N, dtype=np.float32)
    source = api.zeros(BIG_N * max(STRIDES), dtype=np.float32)
    for stride in STRIDES:
        times[stride] = common.predict(KERNELS, "copy_strided", BIG_N // 256, 256,
                                       (source, out, np.int32(stride), np.int32(BIG_N)))
    matrix, transposed = (api.zeros(BIG_SIDE * BIG_SIDE, dtype=np.float32) for _ in range(2))
    for kernel in ("transpose_naive", "transpose_tiled"):
        times[kernel] = common.predict(KERNELS, kernel, (BIG_SIDE // 32, BIG_SIDE // 32), (32, 32),
                                       (matrix, transposed, np.int32(BIG_SIDE), np.int32(BIG_SIDE)))
    return times
