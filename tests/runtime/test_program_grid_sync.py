"""Cooperative launches of a whole program: grid-wide sync through CUDA's own cooperative_groups code.

tests/runtime/programs/grid_sync.cu syncs the grid between writing and reading other blocks'
results (cudaLaunchCooperativeKernel, and cudaLaunchKernelEx's cooperative attribute), asks for
a grid too large to be co-resident, and syncs in a plain launch, which runs where the grid fits on
the GPU at once, as on the H200 (validation/programs/h200/native.json).
"""

from pathlib import Path

import numpy as np
import pytest

from warpsim.timing.presets import gpu_preset

PROGRAMS = Path(__file__).parent / "programs"

pytestmark = pytest.mark.programs


@pytest.mark.slow          # about 10 s; tests/api/test_cooperative_launch.py covers grid sync quickly
def test_grid_sync_orders_blocks_and_refuses_too_large_grids(built, run, tmp_path):
    rng = np.random.default_rng(21)
    n = 900 + int(rng.integers(0, 200))            # 8 or 9 blocks of 128, the last one partial
    x = rng.standard_normal(n).astype(np.float32)
    x.tofile(tmp_path / "x.bin")
    result = run(built("grid_sync"), "x.bin", "y.bin", "1.5")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    y = np.fromfile(tmp_path / "y.bin", dtype=np.float32)
    np.testing.assert_array_equal(y, x * np.float32(1.5))
    blocks = (n + 127) // 128
    # every block summed the next block's y (written before the first sync), block 0 all the sums
    # (after the second): any block reading early would miss values
    total = float(lines[1].split()[3])
    assert lines[0] == "cooperative 1"
    assert lines[1].startswith(f"blocks {blocks} total ")
    np.testing.assert_allclose(total, y.astype(np.float64).sum(), rtol=1e-5, atol=1e-4)
    assert lines[2] == "seen " + " ".join(["21"] * 6)          # flags 1..6 all set before the sync
    assert lines[3:5] == ["too large cudaErrorCooperativeLaunchTooLarge", "after cudaErrorCooperativeLaunchTooLarge"]
    assert lines[5] == "plain launch cudaSuccess"
    assert f"at once on {gpu_preset('h200').sms} SMs" in result.stderr


@pytest.mark.slow
def test_cooperative_and_plain_grid_syncs_of_sass_only_code_run_on_the_sass_executor(cli, run, tmp_path):
    """The SASS executor finds the grid workspace where ptxas reads %envreg1/2 and runs the whole
    grid as one batch: the lines the H200 printed (validation/programs/h200/native.json)."""
    app = tmp_path / "grid_sync_sass"
    built = cli("nvcc", "-gencode", "arch=compute_90,code=sm_90", PROGRAMS / "grid_sync.cu", "-o", app,
                cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    np.ones(100, dtype=np.float32).tofile(tmp_path / "x.bin")
    result = run(app, "x.bin", "y.bin", "1.5")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == ["cooperative 1", "blocks 1 total 1.500000e+02", "seen " + " ".join(["21"] * 6),
                                          "too large cudaErrorCooperativeLaunchTooLarge",
                                          "after cudaErrorCooperativeLaunchTooLarge", "plain launch cudaSuccess"]
    np.testing.assert_array_equal(np.fromfile(tmp_path / "y.bin", dtype=np.float32), np.full(100, 1.5, np.float32))
