"""Sweeps on the 2-worker cluster: one row per point, failures as rows, CSV, Parquet and a plot."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

import warpsim as cp
from warpsim.cli import main as cli_main
from warpsim.distributed.plot import plot_sweep

pytestmark = pytest.mark.nvrtc

SCALE = r"""
extern "C" __global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = (i % 3) ? x[i] * a : x[i] + a;
}
"""
SPIN = r"""
extern "C" __global__ void scale(float* x, float a, int n) {
    __shared__ int flag;
    if (threadIdx.x == 0) while (flag == 0) { }
    __syncthreads();
}
"""


def test_sweep_gives_a_row_per_point_with_failures_as_rows(client, tmp_path):
    kernels = {"good": (SCALE, "scale"), "broken": ("not CUDA at all", "scale")}
    table = cp.sweep(kernels, {"block": [32, 128], "n": [1000, 3000]},
                     args=lambda p: (np.ones(p["n"], np.float32), np.float32(2), np.int32(p["n"])),
                     scheduler=client, csv=tmp_path / "t.csv", parquet=tmp_path / "t.parquet")
    assert len(table) == 8 and list(table.columns[:3]) == ["block", "n", "variant"]
    good, broken = table[table.variant == "good"], table[table.variant == "broken"]
    assert good.ok.all() and (good.error == "").all()
    assert (good.simt_efficiency_pct > 0).all() and (good.seconds > 0).all()
    assert not broken.ok.any() and broken.error.str.startswith("CompileError").all()
    assert pd.read_csv(tmp_path / "t.csv").shape == table.shape
    assert pd.read_parquet(tmp_path / "t.parquet").equals(table)
    figure = plot_sweep(table, "warp_instructions", "block", path=tmp_path / "t.png")
    assert (tmp_path / "t.png").stat().st_size > 1000 and figure.axes[0].get_legend() is not None


def test_a_deadlocked_point_and_a_python_error_are_rows(client):
    def launch(block, fail):
        if fail:
            raise ValueError("bad point")
        cp.RawKernel(SPIN, "scale")((1,), (block,), (cp.zeros(4, np.float32), np.float32(1), np.int32(4)))

    with cp.settings(max_rounds=2000):
        table = cp.sweep(launch, {"block": [32], "fail": [False, True]}, scheduler=client)
    assert not table.ok.any()
    assert table.error[1] == "ValueError: bad point"
    assert "Error" in table.error[0]


def test_cli_sweep_writes_the_table(client, tmp_path, capsys):
    source = tmp_path / "k.cu"
    source.write_text(SCALE)
    status = cli_main(["sweep", str(source), "--name", "scale", "-p", "block=64,(32,2)", "-p", "n=500",
                       "--scheduler", client.scheduler.address, "--csv", str(tmp_path / "o.csv"),
                       "--plot", str(tmp_path / "o.png"), "--no-progress"])
    assert status == 0
    table = pd.read_csv(tmp_path / "o.csv")
    assert list(table.block) == ["64", "(32, 2)"] and table.ok.all()
    assert "simt_efficiency_pct" in capsys.readouterr().out


def predicted_here(block: int, n: int, gpu: str) -> float:
    """The predicted time of the point's launch, profiled in this process (microseconds)."""
    x = cp.zeros(n * 2, dtype=np.float32)
    with cp.settings(gpu=gpu), cp.profile() as prof:
        cp.RawKernel(SCALE, "scale")((-(-n // block),), (block,), (x, np.float32(1), np.int32(n)))
    return prof.launches[0].timing.time_s * 1e6


def test_cli_sweep_with_a_gpu_has_the_predicted_time(client, tmp_path, capsys):
    """-p gpu=h200 adds predicted_time_us (the time this process predicts for the same launch);
    a variant named with square brackets is printed as named."""
    source = tmp_path / "k.cu"
    source.write_text(SCALE)
    status = cli_main(["sweep", str(source), "--name", "scale", "-p", "block=64,256", "-p", "n=4096",
                       "-p", "gpu=h200", "--variant", f"x[i]={source}", "--scheduler", client.scheduler.address,
                       "--csv", str(tmp_path / "o.csv"), "--no-progress"])
    assert status == 0
    out = capsys.readouterr().out
    table = pd.read_csv(tmp_path / "o.csv")
    assert len(table) == 4 and table.ok.all() and set(table.variant) == {"default", "x[i]"}
    assert "predicted_time_us" in out.splitlines()[0] and "x[i]" in out
    for block in (64, 256):
        here = predicted_here(block, 4096, "h200")
        assert np.allclose(table[table.block == block].predicted_time_us, here, rtol=1e-9)


@pytest.mark.skipif(bool(os.environ.get("WARPSIM_GPU")), reason="WARPSIM_GPU chooses a GPU for every point")
def test_sweep_without_a_gpu_has_no_predicted_time(client):
    table = cp.sweep((SCALE, "scale"), {"block": [64], "n": [256]}, scheduler=client)
    assert table.ok.all() and "predicted_time_us" not in table.columns
    with_gpu = cp.sweep((SCALE, "scale"), {"block": [64], "n": [256], "gpu": ["h200", "l4"]}, scheduler=client)
    h200, l4 = with_gpu.predicted_time_us
    assert 0 < h200 and 0 < l4 and h200 != l4
