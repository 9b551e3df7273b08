"""Exact counts on small kernels (tests/metrics/kernels.cu) through `warpsim.profile()`."""

import csv
import io
import os

import numpy as np
import pytest

import warpsim as cp
from warpsim.metrics.names import METRICS
from warpsim.profiler import CSV_HEADER, format_value

pytestmark = pytest.mark.nvrtc
KERNELS = os.path.join(os.path.dirname(__file__), "kernels.cu")


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(path=KERNELS)


def profiled(module, name, grid, block, args, **kw):
    with cp.profile(**kw) as prof:
        module.get_function(name)(grid, block, args)
    assert len(prof.launches) == 1
    return prof.launches[0]


def floats(n, seed=0):
    return cp.asarray(np.random.default_rng(seed).random(n, dtype=np.float32))


@pytest.mark.parametrize("stride, sectors", [(1, 4), (2, 8), (4, 16), (8, 32), (32, 32)])
def test_strided_load_sectors(module, stride, sectors):
    out = cp.zeros(32, dtype=np.float32)
    m = profiled(module, "copy_strided", (1,), (32,), (floats(32 * stride), out, np.int32(stride))).metrics
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 1
    assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == sectors
    assert m["l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio"] == sectors
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"] == 1
    assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] == 4


def test_vector_loads_count_every_sector(module):
    m = profiled(module, "copy_float4", (2,), (64,), (floats(512), cp.zeros(512, dtype=np.float32))).metrics
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 4
    assert m["l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio"] == 16


def test_transpose_column_read_is_a_32_way_conflict(module):
    out = cp.zeros(1024, dtype=np.float32)
    m = profiled(module, "transpose_tile", (1,), (32, 32), (floats(1024), out)).metrics
    assert m["smsp__inst_executed_op_shared_ld.sum"] == 32                 # one per warp
    assert m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 32 * 32
    assert m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 31 * 32
    assert m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"] == 32  # rows: no conflict
    assert m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"] == 0
    padded = profiled(module, "transpose_tile_padded", (1,), (32, 32), (floats(1024), out)).metrics
    assert padded["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 32
    assert padded["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 0


def test_64_bit_shared_and_broadcast(module):
    m = profiled(module, "shared_float2_stride2", (1,), (32,),
                 (floats(128), cp.zeros(64, dtype=np.float32))).metrics
    assert m["smsp__inst_executed_op_shared_ld.sum"] == 1
    assert m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 4   # 2 half-warps x 2-way
    assert m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 2
    b = profiled(module, "shared_broadcast", (1,), (32,), (floats(32), cp.zeros(32, dtype=np.float32))).metrics
    assert b["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 1


def test_branch_on_lane_runs_16_threads_in_the_divergent_region(module):
    warps, n = 4, 10
    launch = profiled(module, "branch_on_lane", (1,), (32 * warps,), (cp.zeros(128, dtype=np.float32), np.int32(n)),
                      level="ptx")
    m = launch.metrics
    assert m["smsp__sass_branch_targets_threads_divergent.sum"] == warps   # one per warp, as on the H200
    heavy = [r for r in launch.lines if r.line == 55]                       # the loop of heavy()
    assert len(heavy) == 1 and heavy[0].inst > 0
    assert heavy[0].thread_inst == 16 * heavy[0].inst
    assert set(np.flatnonzero(launch.histogram)) == {16, 32}
    ratio = m["smsp__thread_inst_executed_per_inst_executed.ratio"]
    assert 16 < ratio < 32
    assert m["warpsim__simt_efficiency.pct"] == pytest.approx(100 * ratio / 32)


@pytest.mark.parametrize("level", ["ptx", "sass"])
def test_a_kept_trace_holds_what_the_launch_filled(module, level):
    """A profile keeps every launch's lane-activity trace: only its filled part (4 warps, not the
    bound's 64 x 4096 issues), with the same picture."""
    warps = 4
    launch = profiled(module, "branch_on_lane", (1,), (32 * warps,), (cp.zeros(128, dtype=np.float32), np.int32(10)),
                      level=level)
    trace = launch.activity
    issued = int(trace.issued[:warps].max())
    assert trace.active.shape == (warps, issued) and trace.ptx_line.shape == trace.active.shape
    matrix = trace.matrix()
    assert matrix.shape == (warps, issued) and {16, 32} <= set(np.unique(matrix.compressed()))
    if level == "ptx":
        assert trace.lanes_per_instruction() == pytest.approx(
            launch.metrics["smsp__thread_inst_executed_per_inst_executed.ratio"])


@pytest.mark.sass
def test_sass_level_branch_on_lane_runs_16_threads_in_the_divergent_region(module):
    warps, n = 4, 10
    launch = profiled(module, "branch_on_lane", (1,), (32 * warps,), (cp.zeros(128, dtype=np.float32), np.int32(n)),
                      level="sass")
    assert launch.level == "sass", launch.level_note
    m = launch.metrics
    assert m["smsp__sass_branch_targets_threads_divergent.sum"] == warps   # one per warp, as on the H200
    heavy = [r for r in launch.lines if r.line == 55]                       # the loop of heavy()
    assert len(heavy) == 1 and heavy[0].inst > 0
    assert heavy[0].thread_inst == 16 * heavy[0].inst
    assert set(np.flatnonzero(launch.histogram)) == {16, 32}
    assert m["smsp__inst_executed.sum"] == sum(launch.sass_counts.values())   # no BRX: inst = sass inst


def test_branch_on_warp_is_uniform(module):
    m = profiled(module, "branch_on_warp", (1,), (128,), (cp.zeros(128, dtype=np.float32), np.int32(10))).metrics
    assert m["smsp__sass_branch_targets_threads_divergent.sum"] == 0
    assert m["smsp__sass_average_branch_targets_threads_uniform.pct"] == 100
    assert m["smsp__thread_inst_executed_per_inst_executed.ratio"] == 32


def test_block_of_100_threads(module):
    n = 100
    launch = profiled(module, "add_one", (1,), (n,),
                      (cp.asarray(np.arange(n, dtype=np.int32)), cp.zeros(n, dtype=np.int32), np.int32(n)))
    m = launch.metrics
    assert m["smsp__warps_launched.sum"] == 4
    assert m["smsp__thread_inst_executed_per_inst_executed.ratio"] == 25      # 100 threads over 4 warps
    assert launch.histogram[4] == launch.histogram[32] / 3 > 0               # the last warp has 4 lanes
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 4
    assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 4 + 4 + 4 + 1
    assert m["launch__occupancy_limit_warps"] == 16


def test_unused_atomic_result_is_a_reduction(module):
    counter = cp.zeros(1, dtype=np.int32)
    m = profiled(module, "count_into", (2,), (64,), (counter,)).metrics
    assert int(counter.get()[0]) == 128
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"] == 4
    assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"] == 4
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"] == 0


def test_occupancy_and_registers(module):
    m = profiled(module, "transpose_tile", (1,), (32, 32), (floats(1024), cp.zeros(1024, dtype=np.float32))).metrics
    assert m["launch__shared_mem_per_block_static"] == 4096                 # its own tile only
    assert m["launch__shared_mem_per_block_driver"] == 1024
    assert m["launch__occupancy_limit_warps"] == 2
    assert m["launch__registers_per_thread"] >= 16
    assert m["sm__maximum_warps_per_active_cycle_pct"] == 100
    assert m["warpsim__registers_per_thread_source"] in ("ptxas", "estimate")


def test_every_metric_has_a_value_and_unit(module):
    launch = profiled(module, "add_one", (1,), (32,),
                      (cp.zeros(32, dtype=np.int32), cp.zeros(32, dtype=np.int32), np.int32(32)))
    assert set(launch.metrics) == {m.name for m in METRICS}
    assert launch.units["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == "sector"


def test_nested_and_selected_profilers(module):
    k = module.get_function("add_one")
    args = (cp.zeros(32, dtype=np.int32), cp.zeros(32, dtype=np.int32), np.int32(32))
    with cp.profile() as outer:
        k((1,), (32,), args)
        with cp.profile(metrics="smsp__inst_executed.sum") as inner:
            k((1,), (32,), args)
    k((1,), (32,), args)                                                      # not profiled
    assert len(outer.launches) == 2 and len(inner.launches) == 1
    assert [l.id for l in outer.launches] == [0, 1] and inner.launches[0].id == 0
    assert inner.launches[0].csv_rows()[0][-3:] == ["smsp__inst_executed.sum", "inst",
                                                    format_value(outer.launches[1]["smsp__inst_executed.sum"])]
    with pytest.raises(ValueError, match="unknown metric"):
        cp.profile(metrics="no_such_metric")


def test_csv_layout_is_ncus(module):
    with cp.profile() as prof:
        module.get_function("add_one")((1,), (32,), (cp.zeros(32, dtype=np.int32), cp.zeros(32, dtype=np.int32),
                                                     np.int32(32)))
    rows = list(csv.reader(io.StringIO(prof.to_csv())))
    assert rows[0] == CSV_HEADER
    names = [r[12] for r in rows[1:]]
    assert names == sorted(names)
    row = dict(zip(CSV_HEADER, rows[1 + names.index("launch__block_size")]))
    assert row["Kernel Name"] == "add_one" and row["Block Size"] == "(32, 1, 1)" and row["CC"] == "9.0"
    assert row["Metric Value"] == "32"


def test_report_and_source_view(module):
    launch = profiled(module, "transpose_tile", (1,), (32, 32), (floats(1024), cp.zeros(1024, dtype=np.float32)))
    text = launch.render(width=160, source=True)
    assert "transpose_tile" in text and "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum" in text
    assert "out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x]" in text
    assert "bank conflicts" in text                                          # the worst line is named
    line = next(r for r in launch.lines if r.line == 23)
    assert line.bank_conflicts == 31 * 32 and line.shared_requests == 32
    assert "<pre" in launch._repr_html_() or "<div" in launch._repr_html_()


def test_format_value():
    assert format_value(77312) == "77,312"
    assert format_value(17.7592) == "17.76"
    assert format_value(100.0) == "100"
    assert format_value("ptxas") == "ptxas"


def test_display_name():
    from warpsim.profiler import display_name
    assert display_name("_ZN8__main__7stridedB2v1B10abcdefghijE5ArrayIfLi1EE") == "__main__::strided"
    assert display_name("_Z6kernelPfi") == "kernel"
    assert display_name("copy_strided") == "copy_strided"
