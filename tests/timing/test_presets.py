"""GPU presets: sane values, a source for every figure, lookup by name."""

from __future__ import annotations

import dataclasses
import json
import pathlib
import re

import pytest

from warpsim.errors import WarpsimError
from warpsim.timing import H100, H200, PRESETS, GPUPreset, UnknownGPU, gpu_names, gpu_preset

ROOT = pathlib.Path(__file__).parents[2]
ALL = list(PRESETS.values())


def test_names_and_aliases():
    assert gpu_names() == ("h200", "h100", "a100", "l4")
    assert gpu_preset("h200") is H200
    assert gpu_preset("H100") is H100
    assert gpu_preset(" H200-SXM ") is H200
    assert gpu_preset("a100").sms == 108
    assert gpu_preset("l4").compute_capability == (8, 9)
    assert gpu_preset(H200) is H200


@pytest.mark.parametrize("bad", ["rtx4090", "v100", "", "h300"])
def test_unknown_name_lists_the_presets(bad):
    with pytest.raises(UnknownGPU) as info:
        gpu_preset(bad)
    text = str(info.value)
    assert repr(bad) in text
    for name in gpu_names():
        assert name in text
    assert isinstance(info.value, WarpsimError) and isinstance(info.value, KeyError)


@pytest.mark.parametrize("gpu", ALL, ids=lambda g: g.name)
def test_every_figure_has_a_source(gpu):
    names = GPUPreset.figure_names()
    assert set(gpu.sources) == set(names)
    for name in names:
        src = gpu.source(name)
        assert isinstance(src, str) and len(src) >= 5, (gpu.name, name)


@pytest.mark.parametrize("gpu", ALL, ids=lambda g: g.name)
def test_frozen(gpu):
    with pytest.raises(dataclasses.FrozenInstanceError):
        gpu.sms = 1
    with pytest.raises(TypeError):
        gpu.sources["sms"] = "x"


@pytest.mark.parametrize("gpu", ALL, ids=lambda g: g.name)
def test_values_are_sane(gpu):
    assert 40 <= gpu.sms <= 144
    assert gpu.sub_partitions_per_sm == 4 and gpu.warp_size == 32 and gpu.issue_width == 1
    assert 1000 <= gpu.kernel_clock_mhz <= gpu.boost_clock_mhz <= 2600
    # pipes: at most one warp-instruction per sub-partition per clock
    for pipe in ("fp32", "fp64", "int32", "imad", "sfu"):
        lanes = getattr(gpu, f"{pipe}_lanes_per_clk")
        assert 0 < lanes <= gpu.sub_partitions_per_sm * gpu.warp_size
    assert gpu.sfu_lanes_per_clk < gpu.fp32_lanes_per_clk
    assert 0 < gpu.tensor_fp16_flops_per_clk <= gpu.tensor_fp16_peak_flops_per_clk
    # latencies ordered as the memory hierarchy
    assert 2 <= gpu.alu_latency <= gpu.fma_latency <= gpu.fp64_latency
    assert gpu.fma_latency < gpu.sfu_latency < 40
    assert gpu.alu_latency < gpu.shared_latency < gpu.l1_hit_latency
    assert gpu.l1_hit_latency < gpu.l2_hit_latency_near <= gpu.l2_hit_latency_far < gpu.hbm_latency < 2000
    # memory
    assert gpu.shared_banks == 32 and gpu.shared_bank_bytes == 4
    assert gpu.l2_line_bytes == 128 and gpu.l2_sector_bytes == 32
    assert 10 * 2**20 <= gpu.l2_bytes <= 128 * 2**20
    assert gpu.hbm_copy_gbps < gpu.hbm_bandwidth_gbps
    assert max(gpu.shared_carveouts_kib) * 1024 == gpu.max_shared_per_sm <= gpu.l1_shared_kib * 1024
    assert gpu.max_shared_per_block == gpu.max_shared_per_sm - gpu.shared_reserved_per_block
    # occupancy
    assert gpu.max_warps_per_sm * gpu.warp_size >= gpu.max_threads_per_block == 1024
    assert gpu.registers_per_sm == 65536 and gpu.max_registers_per_thread == 255
    assert 0 < gpu.launch_overhead_us < gpu.empty_kernel_event_us < 20


def test_h200_measured_figures_point_at_the_validation_files():
    measured = [n for n in GPUPreset.figure_names() if "measured on H200" in H200.source(n)]
    assert {"kernel_clock_mhz", "fma_latency", "sfu_latency", "shared_latency", "l1_hit_latency",
            "l2_hit_latency_near", "l2_hit_latency_far", "hbm_latency", "hbm_copy_gbps",
            "l2_bandwidth_gbps", "fp32_lanes_per_clk", "sfu_lanes_per_clk"} <= set(measured)
    for name in measured:
        paths = re.findall(r"(validation/timing/[\w./-]+?): measured on H200", H200.source(name))
        assert paths, name
        for path in paths:
            assert (ROOT / path).is_file(), (name, path)


def test_h200_figures_match_the_raw_microbenchmarks():
    mb = json.loads((ROOT / "validation/timing/h200/microbench.json").read_text())
    lat = mb["alu_latency"]
    assert H200.fma_latency == pytest.approx(lat["ffma"]["cycles_per_op"], abs=0.5)
    assert H200.fp64_latency == pytest.approx(lat["dfma"]["cycles_per_op"], abs=0.5)
    assert H200.sfu_latency == pytest.approx(lat["mufu_ex2"]["cycles_per_op"], abs=0.5)
    mem = mb["memory_latency"]
    assert H200.shared_latency == pytest.approx(mem["shared"]["cycles_per_hop"], abs=0.5)
    assert H200.l1_hit_latency == pytest.approx(mem["l1_hit_8KB"]["cycles_per_hop"], abs=0.5)
    assert H200.l2_hit_latency_near == pytest.approx(mem["l2_per_address"]["near_mean"], abs=1)
    assert H200.l2_hit_latency_far == pytest.approx(mem["l2_per_address"]["far_mean"], abs=1)
    assert H200.hbm_latency == pytest.approx(mem["hbm_64MB_cold"]["cycles_per_hop"], abs=1)
    assert H200.kernel_clock_mhz == pytest.approx(mb["clock_heavy_start"]["mhz_clock64_over_globaltimer_median"], abs=2)


def test_occupancy_helper_matches_the_h200_cases():
    # occupancy_regs_192: 208 registers, 128 threads -> 2 CTAs (8 warps), limited by registers
    occ = H200.occupancy(128, 208)
    assert occ["ctas_per_sm"] == 2 and occ["limited_by"] == "registers"
    assert H200.occupancy(128, 144)["warps_per_sm"] == 12
    assert H200.occupancy(128, 72)["warps_per_sm"] == 28
    assert H200.occupancy(128, 29)["warps_per_sm"] == 64
    # 120 KB of shared memory per CTA: one CTA per SM (the waves cases)
    assert H200.occupancy(256, 12, 120 * 1024)["ctas_per_sm"] == 1
    assert H200.occupancy(128, 12, 200 * 1024)["limited_by"] == "shared_memory"
    assert H200.occupancy(32, 10)["ctas_per_sm"] == 32 and H200.occupancy(32, 10)["limited_by"] == "ctas"
