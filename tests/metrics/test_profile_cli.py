"""`warpsim profile`: run a script in-process and report its launches like ncu."""

import csv
import io
import os
import textwrap

import pytest

from warpsim.cli.profile import list_metrics, main
from warpsim.profiler import CSV_HEADER

pytestmark = pytest.mark.nvrtc
KERNELS = os.path.join(os.path.dirname(__file__), "kernels.cu")


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "strided.py"
    path.write_text(textwrap.dedent(f"""
        import sys
        import numpy as np
        import warpsim as cp
        stride = int(sys.argv[1])
        m = cp.RawModule(path={KERNELS!r})
        x = cp.asarray(np.arange(32 * stride, dtype=np.float32))
        y = cp.zeros(32, dtype=np.float32)
        m.get_function("copy_strided")((1,), (32,), (x, y, np.int32(stride)))
        assert (y.get() == np.arange(0, 32 * stride, stride)).all()
        print("script done")
        sys.exit(int(sys.argv[2]) if len(sys.argv) > 2 else 0)
    """))
    return str(path)


def test_csv_is_ncus_layout(script, capsys):
    metrics = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed.sum"
    assert main(["--csv", "--metrics", metrics, "python", script, "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("script done\n")
    rows = list(csv.reader(io.StringIO(out.split("\n", 1)[1])))
    assert rows[0] == CSV_HEADER
    values = {r[12]: r[14] for r in rows[1:]}
    assert set(values) == set(metrics.split(","))
    assert values["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == "8"
    assert all(r[4] == "copy_strided" for r in rows[1:])


def test_report_and_source(script, capsys):
    assert main(["--source", "--width", "170", script, "4"]) == 0
    out = capsys.readouterr().out
    assert "copy_strided" in out and "sectors per request  load 16.00" in out
    assert "out[i] = in[i * stride];" in out               # the source view


def test_exit_status_is_the_scripts(script, capsys):
    assert main(["--csv", script, "1", "3"]) == 3


def test_unknown_metric_and_usage(script, capsys):
    assert main(["--metrics", "nope", script, "1"]) == 2
    assert "unknown metric" in capsys.readouterr().err
    assert main([]) == 2


def test_list_metrics():
    text = list_metrics()
    assert "smsp__thread_inst_executed_per_inst_executed.ratio" in text
    assert "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum" in text


def test_sass_listing_with_executions(script, capsys):
    assert main(["--sass", "--width", "200", script, "2"]) == 0
    out = capsys.readouterr().out
    listing = [line for line in out.splitlines() if "LDG.E" in line]
    assert listing and all(line.split()[1] == "1" for line in listing)     # one warp, once each
    assert "// PTX" in listing[0] and "ld.global" in listing[0]
    assert "//## kernels.cu:" in out


def test_predicted_timing_under_ncu_names_in_the_csv(script, capsys):
    metrics = "gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active"
    assert main(["--csv", "--gpu", "h200", "--metrics", metrics, "python", script, "2"]) == 0
    rows = [r for r in csv.reader(io.StringIO(capsys.readouterr().out)) if len(r) == len(CSV_HEADER)][1:]
    values = {r[CSV_HEADER.index("Metric Name")]: r for r in rows}
    duration = values["gpu__time_duration.sum"]
    assert duration[CSV_HEADER.index("Metric Unit")] == "ns"
    assert 1000 < float(duration[CSV_HEADER.index("Metric Value")].replace(",", "")) < 1e6
    occupancy = float(values["sm__warps_active.avg.pct_of_peak_sustained_active"][CSV_HEADER.index("Metric Value")])
    assert 0 < occupancy <= 100
