"""Sweeps on the 2-worker cluster: one row per point, failures as rows, CSV, Parquet and a plot."""

from __future__ import annotations

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
