"""The occupancy calculator: CUDA occupancy calculator figures, and what ncu reported on an H200."""

import json

import pytest

from warpsim.cli.occupancy import main
from warpsim.metrics.occupancy import ARCHS, get_arch, occupancy


@pytest.mark.parametrize("arch, threads, regs, smem, blocks, pct, limiters", [
    # worked by hand from the CUDA occupancy calculator's rules
    ("sm_90", 256, 32, 0, 8, 100.0, ["warps", "registers"]),
    ("sm_80", 256, 64, 0, 4, 50.0, ["registers"]),
    ("sm_80", 128, 40, 0, 12, 75.0, ["registers"]),      # 1280 regs/warp: 12 warps per sub-partition
    ("sm_86", 256, 32, 0, 6, 100.0, ["warps"]),
    ("sm_89", 64, 16, 0, 24, 100.0, ["warps", "blocks"]),
    ("sm_75", 128, 40, 0, 8, 100.0, ["warps"]),
    ("sm_70", 128, 32, 48 * 1024, 2, 12.5, ["shared_mem"]),
    ("sm_80", 128, 32, 48 * 1024, 3, 18.75, ["shared_mem"]),   # 48 KB + 1 KB reserved, 164 KB carveout
    ("sm_90", 1024, 64, 0, 1, 50.0, ["registers"]),
    ("sm_90", 32, 255, 0, 8, 12.5, ["registers"]),
])
def test_calculator_figures(arch, threads, regs, smem, blocks, pct, limiters):
    occ = occupancy(threads, regs, smem, arch, carveout_kb=get_arch(arch).carveouts_kb[-1])
    assert occ.active_blocks == blocks
    assert occ.occupancy_pct == pytest.approx(pct)
    assert occ.limiters == limiters


# (threads, ptxas registers, static shared) -> what Nsight Compute reported on an H200
# (validation/ncu_metrics.csv): limits registers / shared / warps, carveout, occupancy.
H200 = [
    ((128, 8, 0), (32, 32, 16, 32768, 100)),
    ((256, 13, 128), (16, 28, 8, 32768, 100)),
    ((100, 10, 0), (32, 32, 16, 32768, 100)),
    ((256, 10, 0), (16, 32, 8, 32768, 100)),
    ((256, 16, 4096), (16, 20, 8, 102400, 100)),
    ((256, 18, 4224), (10, 19, 8, 102400, 100)),
    ((32, 14, 2048), (128, 33, 64, 102400, 50)),
    ((32, 18, 4096), (84, 32, 64, 167936, 50)),
    ((32, 13, 256), (128, 51, 64, 65536, 50)),
]


@pytest.mark.parametrize("launch, reported", H200)
def test_matches_ncu_on_h200(launch, reported):
    occ = occupancy(*launch, arch="sm_90")
    assert (occ.limit_registers, occ.limit_shared_mem, occ.limit_warps, occ.shared_config,
            round(occ.occupancy_pct)) == reported


def test_sm90_counts_at_least_16_registers():
    assert occupancy(32, 8, 0, "sm_90").registers_allocated_per_warp == 512


def test_arch_names():
    assert get_arch("sm_90a").name == "sm_90"
    assert get_arch("compute_86").name == "sm_86"
    assert get_arch("8.9").name == "sm_89"
    assert set(ARCHS) == {"sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90"}
    with pytest.raises(ValueError, match="no occupancy figures"):
        get_arch("sm_52")


def test_problems_are_reported():
    assert occupancy(2048, 32, 0).problems
    assert occupancy(256, 300, 0).problems
    too_much = occupancy(256, 32, 300 * 1024)
    assert too_much.active_blocks == 0 and too_much.problems


def test_cli_json(capsys):
    assert main(["--block", "256", "--regs", "32", "--smem", "4096", "--arch", "sm_90", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["active_blocks"] == 8 and data["occupancy_pct"] == 100.0
    assert data["limit_shared_mem"] == 12 and data["shared_config"] == 64 * 1024   # driver-like carveout


def test_cli_table(capsys):
    assert main(["--block", "128", "--regs", "64", "--arch", "sm_80"]) == 0
    out = capsys.readouterr().out
    assert "Theoretical occupancy on sm_80" in out and "limited by registers" in out
    assert main(["--block", "128", "--arch", "sm_42"]) == 2
