"""GPU presets for the timing model: one frozen dataclass instance per GPU, every figure with its source.

    >>> from warpsim.timing import gpu_preset
    >>> h200 = gpu_preset("h200")
    >>> h200.sms, h200.kernel_clock_mhz, h200.source("l2_hit_latency_far")

Fields hold plain numbers (what the model computes with); `sources` maps every
field name to where the figure comes from: a document, a paper, or
"validation/timing/<file>: measured on H200" for the microbenchmarks run on
this workplace's H200 (validation/timing/README.md has the command and the
figures). A figure marked [recalled] was taken from memory of its source, not
re-read; [derived] is computed from others; [assumed] is carried over from
another GPU of the same architecture. Throughputs are per SM per clock, in
lanes (thread-operations) unless the name says otherwise; latencies are
dependent-issue latencies in SM cycles.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Mapping

from warpsim.errors import WarpsimError

from ..semantics.clock import TAKEN_BRANCH_CYCLES
from .reuse import L1_RESERVED_BYTES

MEASURED = "validation/timing/h200/microbench.json: measured on H200"
MEASURED2 = "validation/timing/h200/microbench2.json: measured on H200"
MEASURED3 = "validation/timing/h200/microbench3_ncu.csv: measured on H200"
MEASURED_CASES = "validation/timing/h200/summary.csv: measured on H200"
MEASURED_SET2_DEV = "validation/timing/h200/set2/summary.csv: measured on H200 (set 2, its development half)"
MEASURED6 = "validation/timing/h200/microbench6_ncu.csv: measured on H200"
MEASURED7 = "validation/timing/h200/microbench7_ncu.csv: measured on H200"
MEASURED8 = "validation/timing/h200/microbench8.json: measured on H200"
MEASURED13 = "validation/timing/h200/microbench13_ncu.csv: measured on H200"
MEASURED14 = "validation/timing/h200/microbench14_ncu.csv: measured on H200"
MEASURED21 = "validation/timing/h200/microbench21.json: measured on H200"
MEASURED27 = "validation/timing/h200/microbench27_ncu.csv: measured on H200"
MEASURED30 = "validation/timing/h200/microbench30_ncu.csv: measured on H200"
MEASURED31 = "validation/timing/h200/microbench31_ncu.csv: measured on H200"
MEASURED35 = "validation/timing/h200/microbench35_ncu.csv: measured on H200"
MEASURED37 = "validation/timing/h200/microbench37_ncu.csv: measured on H200"
MEASURED42 = "validation/timing/h100/microbench42_ncu.csv: measured on an H100 SXM"
MEASURED48 = "validation/timing/h100/microbench48.json: measured on an H100 SXM"
MEASURED68 = "validation/timing/h100/microbench68.json: measured on an H100 SXM"
# cycles of a cp.async round trip's loop (microbench8's mb8_cpasync_lat, microbench68's mb68_chase) that are
# not the copy: the next address's 64-bit modulo after the wait, as the model's walk gives it for ptxas
# 13.0's SASS (mb68_chase: 657 cycles a round with a 479-cycle copy, 910 with 732), so the copy latencies
# below are the measured rounds less this
COPY_CHASE_CHAIN = 178.0
MEASURED53 = "validation/timing/h100/microbench53_ncu.csv: measured on an H100 SXM"
MEASURED54 = "validation/timing/h100/microbench54_ncu.csv: measured on an H100 SXM"
MEASURED57 = "validation/timing/h100/microbench57_ncu.csv: measured on an H100 SXM"
MEASURED59 = "validation/timing/h100/microbench59_ncu.csv: measured on an H100 SXM"
MEASURED61 = "validation/timing/h100/microbench61_ncu.csv: measured on an H100 SXM"
MEASURED63 = "validation/timing/h100/microbench63_ncu.csv: measured on an H100 SXM"
MEASURED_NCU = "validation/timing/h200/ncu_raw_0.csv (device__attribute_*): reported by the H200"
CUDA_PG = "CUDA C++ Programming Guide, compute capability table and 'Arithmetic Instructions' throughput table"
HOPPER_WP = "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022)"
HOPPER_TG = "NVIDIA Hopper Tuning Guide (docs.nvidia.com/cuda/hopper-tuning-guide)"
AMPERE_WP = "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020)"
AMPERE_TG = "NVIDIA Ampere Tuning Guide (docs.nvidia.com/cuda/ampere-tuning-guide)"
ADA_TG = "NVIDIA Ada Tuning Guide (docs.nvidia.com/cuda/ada-tuning-guide)"
L4_DS = "NVIDIA L4 Tensor Core GPU datasheet"
ABDELKHALIK = "Abdelkhalik et al., 'Demystifying the Nvidia Ampere Architecture through Microbenchmarking', arXiv 2208.11174"
NOTES = "community H100 microbenchmarks and Accel-Sim/GPGPU-Sim's tuned H100 configuration"


class UnknownGPU(WarpsimError, KeyError):
    """gpu_preset() was given a name it does not know."""

    def __str__(self) -> str:  # KeyError would print the repr
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class GPUPreset:
    """One GPU's figures for the timing model. `sources[field]` says where each comes from."""

    name: str
    full_name: str
    compute_capability: tuple
    # --- organisation and clocks
    sms: int
    sub_partitions_per_sm: int           # warp schedulers (SMSPs)
    warp_size: int
    boost_clock_mhz: float               # the datasheet's maximum boost clock
    kernel_clock_mhz: float              # the SM clock kernels actually run at
    tensor_clock_mhz: float              # ... kernels that keep the tensor cores busy (TENSOR_CLOCK_BUSY) run at
    issue_width: int                     # warp-instructions issued per clock per sub-partition
    # --- pipe throughputs, lanes per clock per SM (tensor: dense FLOPs per clock per SM)
    fp32_lanes_per_clk: float
    fp64_lanes_per_clk: float
    int32_lanes_per_clk: float           # IADD3 / LOP3 / SHF (the integer ALU)
    imad_lanes_per_clk: float            # IMAD (issued on the FMA pipe at half rate on sm_80+)
    fp16_lanes_per_clk: float            # HADD2 / HMUL2 / HFMA2 without .MMA (packed 16-bit floats)
    sfu_lanes_per_clk: float             # MUFU (ex2, rsqrt, lg2, sin, cos, rcp)
    tensor_fp16_flops_per_clk: float     # mma.sync m16n8k16 f16 -> f32, the path warpsim simulates
    tensor_fp16_peak_flops_per_clk: float  # the datasheet's dense f16 peak (wgmma on Hopper)
    hgmma_interval_cycles: Mapping       # wgmma m64nNk back to back on one accumulator: cycles each, by (type, N)
    hgmma_latency_cycles: Mapping        # a wgmma's issue to its wait_group 0's return, cycles, by (type, N)
    hmma_latency: float                  # mma.sync m16n8k16 (HMMA.16816) issue to result, cycles
    shared_wavefronts_per_clk: float     # shared-memory wavefronts (32 banks x 4 B) per clock per SM
    # --- dependent-issue latencies, cycles
    alu_latency: float                   # FADD / IADD-class
    fma_latency: float                   # FFMA / IMAD
    fp64_latency: float                  # DFMA
    sfu_latency: float                   # MUFU.EX2 / MUFU.RSQ
    shared_latency: float                # LDS, no conflict
    l1_hit_latency: float                # LDG hitting L1
    l2_hit_latency_near: float           # LDG missing L1, hitting the near L2 partition
    l2_hit_latency_far: float            # ... the far partition
    hbm_latency: float                   # LDG missing L2 (unloaded)
    hbm_latency_spread: float            # cycles: a warp waiting on loads of k regions at once waits this (1 - 1/k) more
    atomic_spread_units: float           # lone atomic lanes (each its own line of the request) the L2 serves a clock
    atomic_writeback_hbm_bytes: float    # HBM time, in bytes of copy, of an atomic's sector written back alone in its 64 bytes
    hbm_latency_under_writes: tuple      # ((TB/s of HBM writes, ...), (ns a read waits beyond unloaded, ...))
    hbm_latency_under_reads: tuple       # ((TB/s of HBM reads, ...), (ns a read waits beyond unloaded, ...))
    # --- memory system
    l1_shared_kib: int                   # unified L1 / shared-memory pool per SM
    shared_carveouts_kib: tuple          # the shared-memory capacities the carve-out can pick, per SM
    shared_banks: int
    shared_bank_bytes: int
    l2_bytes: int
    l2_partitions: int
    l2_line_bytes: int
    l2_sector_bytes: int
    l2_bandwidth_gbps: float             # measured read bandwidth of L2-resident data (GB/s)
    l2_scattered_lines_per_clk: float    # lines a clock the L2 serves to requests of lines picked at random
    l2_store_byte_cost: float            # the L2's time for a byte a store writes, in a read byte's time
    l2_dirty_share: float                # of the L2's bytes, the written ones it still holds at the end of a launch that only writes
    l2_dirty_read_weight: float          # how much of that room a byte read from HBM takes, against a byte written
    hbm_bytes: int
    hbm_bandwidth_gbps: float            # datasheet
    hbm_copy_gbps: float                 # measured device-to-device copy, bytes read + written
    hbm_read_over_copy: float            # HBM's rate of reads alone over its copy rate (streams that only read)
    l1_lines_per_clk: float              # 128-byte lines the L1 data path serves per clock per SM (global hits)
    cp_async_latency_l2: float           # cp.async 16-byte copy to its wait_group's return, data in L2, cycles
    cp_async_latency_hbm: float          # ... data in HBM only
    cp_async_l2_bytes_per_clk: Mapping   # L2-resident bytes per clock cp.async draws chip-wide, by active SMs
    l2_merged_floor_load: float          # share of many SMs' reads of one sector at once that reach the L2 (LDG)
    l2_merged_floor_copy: float          # ... of async copies' reads (LDGSTS, UBLKCP, UTMALDG)
    atomic_lane_cycles_int: float        # L2 slice cycles per lane of a warp's 32-bit integer atomic on one address
    atomic_lane_cycles_float: float      # ... of an f32 atomic add (serialised lane by lane)
    atomic_pass_cycles_int: tuple        # L2 unit cycles of a (warp request, line) pass of integer atomics by the
    #                                      sectors it names, 1-4, and for the whole line (execution.PASS_KINDS)
    atomic_pass_cycles_float: tuple      # ... of float adds
    atomic_latency: float                # one thread's ATOM round trip, cycles
    atomic_units: float                  # L2 units that serve atomics at once (execution.atomic_unit_of_line)
    atomic_pass_units: float             # ... that serve several-address line passes at once
    partial_line_hbm_bytes: float        # HBM time of a line whose sector a kernel writes only part of, in bytes of copy
    hbm_read_spread_cost: float          # HBM time of a read added per doubling of the gap between its 64-byte chunks
    partial_write_spread: tuple          # a partly written line's HBM time by those doublings: ((doublings, factor), ...)
    partial_line_sectors: tuple          # ... by how many of its sectors are written in part: ((sectors, factor), ...)
    branch_taken_cycles: float           # a taken branch beyond its stall count (target resolution, refetch)
    branch_taken_issue_cycles: float     # issue cycles of the sub-partition a taken branch's refetch holds
    bsync_cycles: float                  # branch_resolving of each group of lanes arriving at a BSYNC
    bsync_cycles_jump_table: float       # ... at a BSYNC whose region holds an indirect branch (a BRX jump table)
    branch_split_cycles: float           # branch_resolving of a BRA that splits its warp (lanes both to its label and on)
    slow_resume_cycles: float            # ... more where it splits the half an earlier split ran first (resumes.py)
    wave_drain_span: float               # share of a busy last wave over which its warps finish
    cta_drain_span: float                # ... over which its CTAs finish, one after another, where warps wait to issue
    cta_drain_span_pipe: float           # ... where they wait for a math pipe busier than the issue slot
    barrier_cycles: float                # bar.sync of a CTA whose warps arrive together: fixed part
    barrier_cycles_per_warp: float       # ... and per warp of the CTA
    barrier_arrival_cycles: float        # the SM's barrier unit per warp arriving at a BAR, whatever its CTA
    # --- launch
    launch_overhead_us: float            # CUDA-event time of one launch minus ncu's gpu__time_duration
    empty_kernel_event_us: float         # an empty kernel between two CUDA events
    cta_launch_ns_per_sm: float          # extra time per CTA per SM for grids of many CTAs (empty kernel)
    cta_turnaround_cycles: float         # a CTA slot from one CTA's end to the next CTA's start: fixed part
    cta_turnaround_cycles_per_warp: float  # ... and per warp of the CTA
    # --- copies (cudaMemcpy on the CUDA-event clock)
    pcie_gbps: float                     # host <-> device copy bandwidth, pinned host memory (GB/s)
    copy_overhead_us: float              # event time of a small cudaMemcpy beyond its bytes
    # --- occupancy limits
    max_warps_per_sm: int
    max_ctas_per_sm: int
    max_threads_per_block: int
    registers_per_sm: int                # 32-bit registers
    max_registers_per_thread: int
    register_alloc_unit: int             # registers, allocated per warp in units of this many
    max_shared_per_sm: int               # bytes
    max_shared_per_block: int            # bytes (opt-in, above the 48 KB default)
    shared_reserved_per_block: int       # bytes the system reserves per CTA
    sources: Mapping = field(default_factory=dict, compare=False, repr=False)

    def source(self, name: str) -> str:
        """Where the figure `name` comes from."""
        return self.sources[name]

    @classmethod
    def figure_names(cls) -> tuple:
        """Every field that carries a figure (all but `sources`)."""
        return tuple(f.name for f in fields(cls) if f.name != "sources")

    @property
    def clock_hz(self) -> float:
        return self.kernel_clock_mhz * 1e6

    def occupancy(self, threads_per_block: int, registers_per_thread: int, shared_per_block: int = 0) -> dict:
        """CTAs per SM by each limit (warps, CTAs, registers, shared memory) and the smallest."""
        warps = -(-threads_per_block // self.warp_size)
        regs_per_warp = -(-max(registers_per_thread, 1) * self.warp_size // self.register_alloc_unit) * self.register_alloc_unit
        by_warps = self.max_warps_per_sm // warps
        by_regs = self.registers_per_sm // (regs_per_warp * warps) if registers_per_thread else by_warps
        smem = shared_per_block + self.shared_reserved_per_block
        by_smem = self.max_shared_per_sm // smem if shared_per_block else self.max_ctas_per_sm
        limits = {"warps": by_warps, "ctas": self.max_ctas_per_sm, "registers": by_regs, "shared_memory": by_smem}
        ctas = min(limits.values())
        return {"ctas_per_sm": ctas, "warps_per_sm": ctas * warps, "limits": limits,
                "limited_by": min(limits, key=limits.get),
                "l1_bytes": self.l1_bytes(threads_per_block, ctas * smem if shared_per_block else 0)}

    def l1_bytes(self, threads_per_block: int, shared_bytes: int) -> int:
        """What the unified pool leaves L1 beside the carve-out for `shared_bytes` of an SM's CTAs. The
        carve-out is the smallest holding them, and at least 8 KB x 1,024 / threads per block up to 32 KB:
        blocks without shared memory ran at 32 KB up to 256 threads, 16 KB at 512 and 8 KB at 1,024
        (launch__shared_mem_config_size of 174 H200 launches in validation/). Of the rest, reuse's
        L1_RESERVED_BYTES never held loads' lines (nineteenth batch)."""
        floor = min(32, 8 * 1024 // max(1, threads_per_block)) * 1024
        need = max(floor, shared_bytes)
        carveout = next((kb * 1024 for kb in self.shared_carveouts_kib if kb * 1024 >= need),
                        self.shared_carveouts_kib[-1] * 1024)
        return self.l1_shared_kib * 1024 - carveout - L1_RESERVED_BYTES


def _make(figures: dict) -> GPUPreset:
    values = {k: v[0] for k, v in figures.items()}
    sources = {k: v[1] for k, v in figures.items()}
    return GPUPreset(**values, sources=MappingProxyType(sources))


# ----------------------------------------------------------------------------- H200 SXM
_H200 = {
    "name": ("h200", "warpsim"),
    "full_name": ("NVIDIA H200 SXM 141GB", "NVIDIA H200 product page; nvidia-smi on the device names it 'NVIDIA H200'"),
    "compute_capability": ((9, 0), MEASURED_NCU),
    "sms": (132, MEASURED_NCU + " (device__attribute_multiprocessor_count)"),
    "sub_partitions_per_sm": (4, HOPPER_WP + "; GPGPU-Sim H100 config -gpgpu_num_sched_per_core 4"),
    "warp_size": (32, CUDA_PG),
    "boost_clock_mhz": (1980.0, MEASURED_NCU + " (device__attribute_clock_rate 1,980,000 kHz)"),
    "kernel_clock_mhz": (1980.0, MEASURED + " (clock64 over %globaltimer 1979-1980 MHz in light and full-load kernels, "
                                            "before and after the validation set; ncu sm__cycles_elapsed.avg.per_second "
                                            "median 1974 MHz, min 1917, in validation/timing/h200/summary.csv)"),
    "issue_width": (1, HOPPER_WP + "; GPGPU-Sim H100 config max_insn_issue_per_warp 1"),
    "fp32_lanes_per_clk": (128.0, MEASURED + " (FFMA at ILP 8, 64 warps/SM: 3.76 warp-inst/clk/SM = 120 lanes, "
                                             "64 FFMA of 67 instructions per loop; 128 per " + CUDA_PG + ")"),
    "fp64_lanes_per_clk": (64.0, MEASURED + " (DFMA: 1.97 warp-inst/clk/SM = 63 lanes)"),
    "int32_lanes_per_clk": (64.0, MEASURED + " (SHF + LOP3 chains: 1.94 warp-inst/clk/SM = 62 lanes)"),
    "imad_lanes_per_clk": (64.0, MEASURED + " (IMAD: 1.97 warp-inst/clk/SM = 63 lanes)"),
    "fp16_lanes_per_clk": (64.0, MEASURED42 + " (HFMA2 and HADD2 without .MMA, eight chains: 2.06-2.10 cycles a "
                                              "warp instruction a sub-partition = 61-62 lanes; ncu's fma pipe, type "
                                              "fp16, 97-99% busy; the H200's SM is the H100's)"),
    "sfu_lanes_per_clk": (16.0, MEASURED + " (MUFU.EX2 and MUFU.RSQ: 0.49 warp-inst/clk/SM = 15.7 lanes)"),
    "tensor_fp16_flops_per_clk": (2671.0, MEASURED8 + " (mb8_mma_sync_thr, HMMA.16816.F32 on 8 accumulators per warp: "
                                                      "0.577 / 0.643 / 0.652 warp-inst/clk/SM at 4 / 8 / 16 warps; "
                                                      "0.652 x 4096 flops = 2671 flops/clk/SM; the first batch's 0.48 "
                                                      "(1969) in microbench.json, mb_tp_hmma, had 4 per warp)"),
    "tensor_fp16_peak_flops_per_clk": (4096.0, "[derived] H200/H100 SXM datasheet dense FP16 989.4 TFLOPS / "
                                               "(132 SMs x 1.83 GHz); " + HOPPER_WP),
    "shared_wavefronts_per_clk": (1.0, MEASURED_CASES + " (bank_stride_32: 16384 warp loads x 32 wavefronts per SM in "
                                       "268 us = 1.0 wavefront/clk; conflict-free LDS.32 issue measured at 2.55 "
                                       "warp-inst/clk/SM in microbench.json 'lds32', not explained, not used)"),
    "alu_latency": (4.0, MEASURED + " (FADD chain 4.07 cycles; IMAD.IADD + LOP3 pair 10.06 cycles)"),
    "fma_latency": (4.0, MEASURED + " (FFMA 4.07, IMAD 4.07 cycles)"),
    "fp64_latency": (8.0, MEASURED + " (DFMA 8.02 cycles)"),
    "sfu_latency": (17.0, MEASURED + " (MUFU.EX2 17.00, MUFU.RSQ 17.00 cycles)"),
    "shared_latency": (23.0, MEASURED + " (LDS pointer chase 23.00 cycles)"),
    "l1_hit_latency": (32.0, MEASURED + " (ld.global.ca chase over 8 KB: 31.98 cycles)"),
    "l2_hit_latency_near": (258.0, MEASURED + " (ld.global.cg self-chase of 512 addresses from SM 124: two groups, "
                                              "42% at mean 258.3 cycles, 58% at 284.1; range 247-301)"),
    "l2_hit_latency_far": (284.0, MEASURED + " (see l2_hit_latency_near; a random chase over 4 or 16 MB: 273.7 cycles)"),
    "hbm_latency": (672.0, MEASURED + " (ld.global.cg chase of 4200 random lines, L2 flushed: 671.7 cycles over 64 MB, "
                                      "684.1 over 1 GB)"),
    "hbm_latency_under_writes": (((0.0, 0.47, 0.85, 1.45, 3.29, 4.08), (0.0, 54.0, 96.0, 183.0, 319.0, 649.0)),
                                 MEASURED21 + " (a lone chase of lines missing L2, 353 ns a hop alone, beside 4-16 "
                                 "copying or 4-8 writing warps an SM; reads alone up to 1.9 TB/s: within 8 ns; "
                                 "a line a warp written to rows 128 B to 64 KB apart: alike; the first run, "
                                 "microbench21_first.json, within 10%)"),
    "atomic_spread_units": (43.0, "[assumed] as the H100's, measured there (validation/timing/h100/microbench47*: "
                                  "4.3M REDs, every lane on a line of its own of a 4 MB array, f32 or u32, in "
                                  "52.4 / 51.8 us: 43 lanes a clock less 2 us of launch)"),
    "atomic_pass_cycles_int": ((1.5, 2.36, 4.1, 5.86, 4.81),
                               "[assumed] as the H100's, measured there (validation/timing/h100/microbench5[67]*); "
                               "the H200's REDs of 8 / 16 / 32 lanes on their own words of a line, one, two sectors "
                               "and the whole line, took 1.23 / 2.42 / 5.0 cycles a request (microbench12.json)"),
    "atomic_pass_cycles_float": ((2.54, 2.89, 4.38, 5.87, 4.77),
                                 "[assumed] as the H100's, measured there (validation/timing/h100/microbench5[67]*)"),
    "bsync_cycles": (6.0, "[assumed] as the H100's, measured there (validation/timing/h100/microbench59*)"),
    "branch_split_cycles": (8.0, "[assumed] as the H100's, measured there (validation/timing/h100/microbench59*, "
                                 "microbench61*)"),
    "slow_resume_cycles": (35.0, "[assumed] as the H100's, measured there (validation/timing/h100/microbench63*, "
                                 "microbench64*)"),
    "cta_drain_span_pipe": (1.04, "[assumed] as the H100's (validation/timing/h100/microbench52*); not measured"),
    "l2_store_byte_cost": (1.87, "[assumed] as the H100's (validation/timing/h100/microbench54*); not measured"),
    "atomic_writeback_hbm_bytes": (58.0, "[assumed] as the H100's (validation/timing/h100/microbench49*); not measured"),
    "hbm_latency_spread": (182.0, "[assumed] as the H100's, measured there (validation/timing/h100/microbench46*: "
                                  "one loop iteration a trip, its loads from k arrays at once, 763 cycles at k = 1, "
                                  "868 / 893 / 913 at k = 2 / 3 / 4: 182 (1 - 1/k) more)"),
    "hbm_latency_under_reads": (((0.0, 1.01, 1.94, 2.79, 3.40, 4.29, 4.50), (0.0, 0.0, 8.0, 24.6, 47.0, 147.7, 300.6)),
                                MEASURED21 + " (the same lone chase beside 4-16 warps an SM streaming float4 reads, "
                                "1-4 loads in flight a lane: 352.7 / 348.0 / 361.5 / 378.1 / 400.5 / 501.2 / 654.1 ns "
                                "a hop at 0.13-4.50 TB/s)"),
    "l1_shared_kib": (256, HOPPER_TG + " (256 KB combined L1/shared per SM)"),
    "shared_carveouts_kib": ((0, 8, 16, 32, 64, 100, 132, 164, 196, 228), CUDA_PG + " (cudaFuncAttributePreferredSharedMemoryCarveout, cc 9.0) [recalled]"),
    "shared_banks": (32, CUDA_PG + " (shared memory has 32 banks of 4 bytes)"),
    "shared_bank_bytes": (4, CUDA_PG),
    "l2_bytes": (62914560, MEASURED_NCU + " (device__attribute_l2_cache_size 62,914,560; the whitepaper says 50 MB "
                                          "for H100 SXM5)"),
    "l2_partitions": (2, HOPPER_WP + "; chipsandcheese.com/2023/07/02/nvidias-h100-funny-l2-and-tons-of-bandwidth; "
                                     "the two latency groups in " + MEASURED),
    "l2_line_bytes": (128, HOPPER_WP),
    "l2_sector_bytes": (32, HOPPER_WP),
    "l2_bandwidth_gbps": (7550.0, MEASURED + " (ld.cg float4 reads of 8/24/40 MB resident in L2, 8 CTAs of 256 per SM: "
                                             "7290 / 7553 / 7264 GB/s)"),
    "l2_dirty_share": (0.498, MEASURED7 + " [derived] (mb7_write of 67 and 268 MB: ncu's dram__bytes_write 37.7-38.6 and "
                                       "239.1-239.8 MB, less the 2.4 MB a launch that writes nothing shows: 30.9-31.8 MB, "
                                       "mean 31.35, of the L2's 62.9 held at the end)"),
    "l2_dirty_read_weight": (0.27, MEASURED7 + " [derived] (mb7_copy of 67 and 268 MB held 24.2-24.7 MB of what they wrote, "
                                            "the third batch's mb_stream (microbench3_ncu.csv), reading two bytes a byte written, 20.6-21.0: "
                                            "31.35 / (1 + w) and 31.35 / (1 + 2 w) give w 0.285 and 0.254)"),
    "l2_scattered_lines_per_clk": (78.6, MEASURED35 + " (mb35_scatter: one word of each of 32 lines picked at "
                                   "random a request, 2/8/32 MB resident in L2, ld.global and .cg: lts__t_requests "
                                   "77.0-79.8 a clock under ncu; lines 256 B apart reach 27.5 (fifth batch), a "
                                   "whole line's four sectors take l2_bandwidth_gbps, 29.8 lines a clock)"),
    "hbm_bytes": (141 * 10**9, "NVIDIA H200 product page (141 GB HBM3e)"),
    "hbm_bandwidth_gbps": (4800.0, "NVIDIA H200 product page (4.8 TB/s)"),
    "hbm_copy_gbps": (3919.0, MEASURED + " (grid-stride float4 copy of 1 GiB, 32 CTAs/SM: 3919 GB/s read+write; "
                                         "8 CTAs/SM 3873; CuPy's copy 4090)"),
    "hbm_read_over_copy": (4500.0 / 3988.0, MEASURED21 + " (the streams' best rates: reads alone 4500 GB/s, "
                                                      "a copy 3988 GB/s read and written)"),
    "l1_lines_per_clk": (1.0, MEASURED2 + " (mb_l1_load, 64 warps/SM, L1 hits: 0.98 requests/clk/SM of 1 line "
                                          "whatever its sectors (1, 2 or 4), 0.49 of 2 lines, 0.125 of 8, 0.031 of 32)"),
    "atomic_lane_cycles_int": (1.47, MEASURED2 + " (REDG.E.ADD on one address: 47.2 cycles per 32-lane warp request, "
                                                 "11.7 per 8 lanes, 1.42 per lane-0-only request)"),
    "atomic_lane_cycles_float": (3.46, MEASURED2 + " (REDG.E.ADD.F32 on one address: 110.9 cycles per 32-lane request, "
                                                   "3.50 per one-lane request)"),
    "atomic_latency": (296.0, MEASURED2 + " (one thread's loop of ATOMG.E.ADD whose results are summed: 295.8 cycles each)"),
    "atomic_units": (24.0, MEASURED_SET2_DEV + " [derived] (t2_red_int one address per warp: 2.1M lanes in 93.9K "
                                             "cycles when a wave's CTAs touch 67 chunks, 22.5 slices at a lane per "
                                             "cycle; 1 - exp(-67 / U) of U busy gives U = 24; the same at a lane per "
                                             "cycle for f32, and one CTA per address (8 chunks per wave) 7.4 busy)"),
    "atomic_pass_units": (57.0, MEASURED37 + " [derived] (mb37_red_*, an address a thread, 16 REDs a thread: 135K "
                                             "line passes (u32, f32) or 270K (u64, f64) in 6.5 / 6.4 / 12.3 / 14.6 us "
                                             "of the launches' 8.5 / 8.4 / 14.3 / 16.6 less 2 us: 58, 59, 61, 52 "
                                             "passes of 4.9 cycles at once at 1,755 MHz)"),
    "partial_line_hbm_bytes": (100.0, MEASURED31 + " [derived] (mb31_store, 1M floats written 16 to 256 floats apart: "
                                                 "ncu dram__bytes_read grows by 32 B per partly written sector; 100 B of "
                                                 "copy time a line, with partial_write_spread, puts the rows 8 to 256 "
                                                 "floats apart at -11% to +16%, mean -1%; set 2's development half had "
                                                 "given 128)"),
    "branch_taken_cycles": (float(TAKEN_BRANCH_CYCLES), MEASURED2 + " [derived] (mb_bar's inner loop VIADD, IMAD.MOV, ISETP, FFMA, BRA: 28.0 "
                                             "cycles per iteration from one warp (skew 32 against skew 8, 1 and 4 warps); "
                                             "its control codes' stall counts add to 23)"),
    "branch_taken_issue_cycles": (0.4, MEASURED3 + " [derived] (mb_cta_chain, a 4-instruction loop, 64 warps/SM: issue "
                                                   "active 78% in one wave, 88% in four; (1 - L) 4 / (4 + k) and "
                                                   "(1 - L / 4) 4 / (4 + k) give k = 0.4, L = 0.14)"),
    "bsync_cycles_jump_table": (40.0, MEASURED_SET2_DEV + " [derived] (t2_switch_in_loop, a switch compiled to "
                                                          "BRX jump tables in one BSSY/BSYNC per round: ncu's "
                                                          "branch_resolving beyond the taken branches' 41, 86 and 312 "
                                                          "cycles per warp and round for 1, 2 and 8 arriving groups: "
                                                          "43, 43 and 39 per group)"),
    "wave_drain_span": (0.51, MEASURED3 + " [derived] (ncu achieved occupancy of one-wave busy kernels: mb_cta_chain "
                                          "128 / 1024 / 256 threads 68.3 / 80.4 / 69.9%, mb_l1_load 74.6%, mb_bar 79.7%; "
                                          "finishing spread evenly over the last p of the wave gives 1 - p/2: p 0.63, "
                                          "0.39, 0.60, 0.51, 0.41, mean 0.51)"),
    "cta_drain_span": (0.80, MEASURED3 + " [derived] (ncu achieved occupancy of one-wave kernels whose warps wait to "
                                         "issue: mb_cta_chain at 16 / 2 / 8 CTAs an SM 68.3 / 80.4 / 69.9%, mb_bar at 8 "
                                         "and 2 79.7 / 83.9%; k CTAs finishing evenly over the last p of the wave, their "
                                         "warps waiting c of the time (the model's: 0.90, 0.90, 0.90, 0.65, 0.70), "
                                         "give 1 - c p (k - 1) / 2k: p 0.75, 0.87, 0.76, 0.72, 0.91, mean 0.80)"),
    "barrier_cycles": (12.0, MEASURED27 + " [derived] (mb27_bar, one CTA an SM of 2, 4, 8, 16 and 32 warps, one FFMA "
                                          "and a __syncthreads a round: 29.9, 31.9, 39.9, 56.0 and 88.0 cycles; the "
                                          "model's rounds with the warp issuing on past its BAR.SYNC.DEFER_BLOCKING "
                                          "(walk.py), least squares over a grid of fixed parts and slopes: 12 + 1.8 a "
                                          "warp, the rows +1.6, -1.1, +1.6, +2.3, +3.2%; the second batch's 0.94 + "
                                          "2.36, fitted to mb_bar with the wait charged at the BAR, gave them +2..+29%)"),
    "barrier_cycles_per_warp": (1.8, MEASURED27 + " [derived] (as barrier_cycles: the slope)"),
    "barrier_arrival_cycles": (2.18, MEASURED27 + " [derived] (mb27_bar, 64 warps an SM as 4 to 16 CTAs: 135.5-141.0 "
                                                  "cycles a round of one FFMA and a __syncthreads whatever the CTAs, "
                                                  "over 64 arrivals)"),
    "partial_write_spread": (((1.0, 1.0), (2.0, 1.369), (3.0, 1.463), (4.0, 1.511)),
                             MEASURED31 + " (mb31_store, 1M floats written 32 to 256 floats apart, one partly written "
                                          "line each: 39.3, 53.8, 57.5, 59.4 us at chunk gaps of 2, 4, 8, 16; 64 bytes "
                                          "apart, two sectors a line, half the lines in 19.5 us)"),
    "partial_line_sectors": (((2.0, 1.0), (4.0, 1.25)),
                             MEASURED31 + " [derived] (mb31_store: 64 and 128 bytes apart, lines of 2 and 1 partly "
                                          "written sectors, cost alike a line; 32 bytes apart, 4 a line, the factor "
                                          "that puts that row's time on the H200's)"),
    "hbm_read_spread_cost": (0.156, MEASURED31 + " [derived] (mb31_load, 1M floats read 16 to 256 floats apart, 67.1 MB "
                                                 "from HBM each: 18.9, 21.0, 25.1, 27.3, 30.7 us at chunk gaps of 1, 2, 4, "
                                                 "8, 16; a least-squares line in the doublings, 2.95 us a doubling over "
                                                 "18.9)"),
    "launch_overhead_us": (1.41, MEASURED_CASES + " (CUDA-event median minus ncu gpu__time_duration, median over the "
                                                  "compute-bound cases; range 0.3-2.0 us)"),
    "empty_kernel_event_us": (7.86, MEASURED + " (one empty <<<1,32>>> launch between two events, median of 200; "
                                               "an event pair alone 1.89 us; back-to-back CuPy launches 5.9 us each)"),
    "cta_launch_ns_per_sm": (79.0, MEASURED + " [derived] (empty kernels: 132 CTAs 8.2 us, 132000 CTAs 87.1 us, "
                                              "with 256 or 32 threads: (87.1 - 8.2) us / 1000 CTAs per SM)"),
    "cta_turnaround_cycles": (270.0, MEASURED6 + " [derived] (mb6_empty, 52,800 empty CTAs, dynamic shared memory "
                                                 "holding one CTA per SM: ncu 66.6 / 71.4 / 91.3 us for 2 / 8 / 32 warps "
                                                 "per CTA, 320 / 344 / 442 cycles per CTA beyond the launch's 2 us; "
                                                 "a line 312 + 4.1 per warp, less the 40 cycles the model gives an "
                                                 "empty CTA's own run)"),
    "cta_turnaround_cycles_per_warp": (4.1, MEASURED6 + " [derived] (as cta_turnaround_cycles: the slope)"),
    "pcie_gbps": (55.0, "[assumed] PCIe Gen5 x16 (64 GB/s per direction) at the usual 85% of it for pinned copies; "
                        "not measured"),
    "copy_overhead_us": (2.0, "[assumed] a few microseconds per cudaMemcpy call as seen between CUDA events; not measured"),
    "max_warps_per_sm": (64, MEASURED_NCU + " (2048 threads per multiprocessor); " + CUDA_PG),
    "max_ctas_per_sm": (32, MEASURED_NCU + " (device__attribute_max_blocks_per_multiprocessor)"),
    "max_threads_per_block": (1024, CUDA_PG),
    "registers_per_sm": (65536, MEASURED_NCU + " (device__attribute_max_registers_per_multiprocessor)"),
    "max_registers_per_thread": (255, CUDA_PG),
    "register_alloc_unit": (256, "CUDA Occupancy Calculator (register allocation unit size 256, per warp) [recalled]"),
    "max_shared_per_sm": (233472, MEASURED_NCU + " (device__attribute_max_shared_memory_per_multiprocessor 233,472 = 228 KB)"),
    "max_shared_per_block": (232448, MEASURED_NCU + " (device__attribute_max_shared_memory_per_block_optin 232,448 = 227 KB)"),
    "shared_reserved_per_block": (1024, MEASURED_NCU + " (device__attribute_reserved_shared_memory_per_block)"),
}

# ----- tensor cores and async copies: the eighth microbenchmark batch (validation/timing/microbench8.cu)
_WGMMA_TYPES = ("f16", "bf16", "tf32", "e4m3")
_H200.update({
    # m64nNk at each type's K (16, 16, 8, 32): the same cycles per instruction in every type, N / 2, the
    # dense peak (4096 flops/clk/SM in 16-bit inputs, 2048 tf32, 8192 e4m3)
    "hgmma_interval_cycles": (MappingProxyType({(t, n): c for t in _WGMMA_TYPES
                                                for n, c in ((64, 32.1), (128, 64.1), (256, 128.1))}),
                              MEASURED8 + " (mb8_wgmma_*_ss_n*, one warpgroup per SM, groups of four wgmmas on one "
                                          "accumulator, one group pending: 32.1 / 64.1 / 128.1 cycles each at N 64 / "
                                          "128 / 256 in f16, bf16, tf32 and e4m3; two warpgroups per SM the same; A in "
                                          "registers 34.9 at N 64 with one warpgroup)"),
    "hgmma_latency_cycles": (MappingProxyType({(t, n): c for t in _WGMMA_TYPES
                                               for n, c in ((64, 84.2), (128, 121.5), (256, 197.3))}),
                             MEASURED8 + " (one wgmma, commit, wait_group 0, per loop round: 84.2 / 121.5 / 197.3 "
                                         "cycles at N 64 / 128 / 256 in every type; A in registers 71.6 / 110.2 / 189.3)"),
    "hmma_latency": (24.8, MEASURED8 + " (mb8_mma_sync_lat: HMMA.16816.F32 on one accumulator, 24.8 cycles each)"),
    "cp_async_latency_l2": (462.0 - COPY_CHASE_CHAIN, MEASURED8 + " (mb8_cpasync_lat: one thread's cp.async.cg 16 "
                                                                "bytes, commit, wait_group 0, over 1 MB resident in L2: "
                                                                "462 cycles a round, less the round's own 64-bit modulo "
                                                                "(COPY_CHASE_CHAIN))"),
    "cp_async_latency_hbm": (834.0 - COPY_CHASE_CHAIN, MEASURED8 + " (as cp_async_latency_l2, lines 64 KB apart after "
                                                                 "the L2 was flushed: 834 cycles a round, less "
                                                                 "COPY_CHASE_CHAIN)"),
    "cp_async_l2_bytes_per_clk": (MappingProxyType({1: 124.0, 66: 3311.0, 132: 5093.0}),
                                  MEASURED8 + " (microbench8_second.json, mb8_cpasync_p8_w3: 128 threads copying 4 KB "
                                              "each per round, four rounds in flight, from 24 MB resident in L2: one "
                                              "CTA 123.9 B/clk; one CTA on each of 66 SMs 50.2 B/clk/SM (32 KB in "
                                              "flight 49.8: the chip's share); 132 SMs 38.6 B/clk/SM with 256 threads "
                                              "or two CTAs per SM, 32.0 with one of 128 threads)"),
})

# ----- the SM clock of tensor-core kernels: the fourteenth batch (validation/timing/microbench14.cu)
_H200.update({
    "tensor_clock_mhz": (1683.0, MEASURED14 + " (sm__cycles_elapsed.avg.per_second of mb14_tensor, wgmma.m64n256k16 "
                                              "on random f16 tiles keeping the tensor cores 29-92% busy: 1,669 / 1,658 "
                                              "/ 1,742 / 1,663 MHz; on zero tiles 1,681-1,804; FFMA alone 1,964; the "
                                              "kernels' own clock64 over %globaltimer 1,550-1,757 on random tiles, "
                                              "microbench14.json)"),
})

# ----- the L2's request coalescer: the thirteenth batch (validation/timing/microbench13.cu)
# ncu's lrc__lrc2xbar_sectors_op_read (sectors the coalescer passes on to the L2) against
# lrc__xbar2gpc_sectors_op_read (sectors it delivers to the SMs), 1,056 CTAs of 8 warps streaming 1 MB
# each out of regions that 8, 33, 132 or 1,056 of them share, in step or each from its own chunk; a
# share f of r readers' requests gives the floor c of f = c + (1 - c) / r
_H200.update({
    "l2_merged_floor_load": (0.58, MEASURED13 + " (mb13_ldcg: f 0.47-0.69, c 0.46-0.64, mean 0.58)"),
    "l2_merged_floor_copy": (0.47, MEASURED13 + " (mb13_cpasync, cp.async.cg: f 0.41-0.66, c 0.41-0.61, mean 0.47); "
                                   "TMA boxes the same, " + MEASURED30 + " (mb30_tma_shared: lts__t_sectors against the "
                                   "sectors asked for, 0.48-0.52 with 8 to 33 CTAs loading the same boxes in step, 0.54 "
                                   "with 2, 0.40 and 0.32 with 132 and 528)"),
})


def _no_wgmma(arch: str, figures: dict) -> dict:
    """The eighth batch's figures for a GPU without wgmma: no tables, and async copies at the latencies
    of loads, without a limit of their own."""
    l2 = (figures["l2_hit_latency_near"][0] + figures["l2_hit_latency_far"][0]) / 2
    return {"hgmma_interval_cycles": (MappingProxyType({}), f"no wgmma on {arch}"),
            "hgmma_latency_cycles": (MappingProxyType({}), f"no wgmma on {arch}"),
            "hmma_latency": (2 * figures["fp64_latency"][0] + 16, "[assumed] the tensor pipe's latency warpsim "
                             "gave before it was measured on the H200 (2 x fp64_latency + 16); not measured"),
            "cp_async_latency_l2": (l2, "[assumed] a load's mean L2 hit latency (l2_hit_latency_near, _far)"),
            "cp_async_latency_hbm": (figures["hbm_latency"][0], "[assumed] a load's HBM latency (hbm_latency)"),
            "l2_merged_floor_load": (1.0, "[assumed] not measured: every L1 miss reaches the L2"),
            "l2_merged_floor_copy": (1.0, "[assumed] not measured: every async copy's read reaches the L2"),
            "cp_async_l2_bytes_per_clk": (MappingProxyType({}), "[assumed] not measured: cp.async draws the L2 "
                                          "as the H200's microbench5 gave, 1.125x ld.global.cg (model.ASYNC_COPY_L2_RATE)")}

# The figures only the H200's microbenchmarks measured (batches 2, 3, 6, 21, 27 and 31, set 2's development half);
# the other presets take them as the H200's, saying so.
_MICROBENCHMARKED = {
    name: MEASURED3 if name in ("branch_taken_issue_cycles", "wave_drain_span", "cta_drain_span") else
    MEASURED_SET2_DEV if name in ("bsync_cycles_jump_table", "atomic_units") else
    MEASURED6 if name.startswith("cta_turnaround") else
    MEASURED21 if name in ("hbm_latency_under_writes", "hbm_latency_under_reads", "hbm_read_over_copy") else
    MEASURED27 if name in ("barrier_arrival_cycles", "barrier_cycles", "barrier_cycles_per_warp") else
    MEASURED31 if name in ("hbm_read_spread_cost", "partial_write_spread", "partial_line_hbm_bytes",
                           "partial_line_sectors") else
    MEASURED35 if name == "l2_scattered_lines_per_clk" else
    MEASURED7 if name.startswith("l2_dirty") else
    MEASURED37 if name == "atomic_pass_units" else MEASURED2
    for name in ("l1_lines_per_clk", "atomic_lane_cycles_int", "atomic_lane_cycles_float",
                 "atomic_latency", "branch_taken_cycles",
                 "branch_taken_issue_cycles", "wave_drain_span", "cta_drain_span", "barrier_cycles",
                 "barrier_cycles_per_warp", "barrier_arrival_cycles", "bsync_cycles_jump_table",
                 "partial_line_hbm_bytes", "atomic_units", "cta_turnaround_cycles",
                 "cta_turnaround_cycles_per_warp", "hbm_latency_under_writes", "hbm_latency_under_reads",
                 "hbm_read_spread_cost", "hbm_read_over_copy",
                 "partial_write_spread", "partial_line_sectors", "l2_scattered_lines_per_clk", "atomic_pass_units",
                 "l2_dirty_share", "l2_dirty_read_weight")}


def _microbenchmarked_as_h200(why: str) -> dict:
    return {name: (_H200[name][0], f"{why} ({source})") for name, source in _MICROBENCHMARKED.items()}


# ----------------------------------------------------------------------------- H100 SXM5

_SAME_SM = " [assumed] same GH100 SM as the H200, whose figure was " + MEASURED
_H100 = dict(_H200)
_H100.update({
    "name": ("h100", "warpsim"),
    "full_name": ("NVIDIA H100 SXM5 80GB", HOPPER_WP),
    "compute_capability": ((9, 0), CUDA_PG),
    "sms": (132, HOPPER_WP + " (132 of the full GH100's 144)"),
    "boost_clock_mhz": (1980.0, "glennklockwood.com/garden/processors/h100; " + NOTES),
    "kernel_clock_mhz": (1980.0, MEASURED48 + " (clock64 over %globaltimer 1979.8-1980.0 MHz in a light and a "
                                              "full-load kernel, as on the H200)"),
    "tensor_clock_mhz": (1683.0, "[assumed] as measured on the H200 (same GH100 at the same 700 W); the H100's fortieth "
                                 "and seventy-first batches ran at 1,720-1,834 MHz with the tensor pipe 16-94% busy, the "
                                 "H200's batches at the same activity alike (validation/timing/README.md, the SM clock "
                                 "by tensor-pipe activity: why one figure stays)"),
    "fp32_lanes_per_clk": (128.0, CUDA_PG + ";" + _SAME_SM),
    "fp64_lanes_per_clk": (64.0, CUDA_PG + ";" + _SAME_SM),
    "int32_lanes_per_clk": (64.0, CUDA_PG + ";" + _SAME_SM),
    "imad_lanes_per_clk": (64.0, _SAME_SM),
    "fp16_lanes_per_clk": (64.0, MEASURED42 + ";" + _SAME_SM),
    "sfu_lanes_per_clk": (16.0, CUDA_PG + ";" + _SAME_SM),
    "tensor_fp16_flops_per_clk": (2671.0, _SAME_SM),
    "tensor_fp16_peak_flops_per_clk": (4096.0, "[derived] H100 SXM datasheet dense FP16 989.4 TFLOPS / (132 x 1.83 GHz)"),
    "shared_wavefronts_per_clk": (1.0, _SAME_SM),
    "alu_latency": (4.0, _SAME_SM + "; GPGPU-Sim tuned H100 config ptx_opcode_latency_fp 4 (" + NOTES + ")"),
    "fma_latency": (4.0, _SAME_SM),
    "fp64_latency": (8.0, _SAME_SM + "; GPGPU-Sim tuned H100 config dp 8"),
    "sfu_latency": (17.0, _SAME_SM + " (the tuned GPGPU-Sim config says 23)"),
    "shared_latency": (23.0, _SAME_SM + " (a community H100 chase says 28.6, with its loop overhead)"),
    "l1_hit_latency": (32.0, _SAME_SM + " (a community H100 chase says 40.2)"),
    "l2_hit_latency_near": (264.0, MEASURED48 + " (ld.global.cg self-chase of 512 addresses from SM 124: 302 "
                                                "at mean 263.7 cycles, the rest 294.0; the H200 258 / 284)"),
    "l2_hit_latency_far": (294.0, MEASURED48 + " (see l2_hit_latency_near; a random chase over 4 or 16 MB: "
                                               "275.4 / 276.3 cycles)"),
    "hbm_latency": (700.0, "measured on an H100 SXM (validation/timing/h100/microbench38*): warps each loading "
                           "1,024 lines of their own from HBM one after another took 753-776 cycles a load, of "
                           "which the model's loop is 57 (a community pointer chase said 570.5 over 256 MB)"),
    "atomic_spread_units": (43.0, "measured on an H100 SXM (validation/timing/h100/microbench47*): 4.3M REDs, "
                                  "every lane on a line of its own of a 4 MB array, f32 or u32, in 52.4 / 51.8 us "
                                  "at 1,975 MHz: 43 lanes a clock less 2 us of launch (atomic_units' 24 are lanes "
                                  "queued on one address a warp)"),
    "bsync_cycles": (6.0, MEASURED59 + " [derived] (one warp an SM, 4,096 rounds of an FFMA beside an inner loop "
                                        "of 0, 1, 2 or lane & 1 trips or a four-way switch of compares, each in "
                                        "BSSY / BSYNC: of 0, 3, 6 and 9 cycles a group of lanes arriving, 6 "
                                        "puts the fourteen rows at 4.1% mean error, -10..+12%; 40, charged "
                                        "before, 38.6%, +27..+64%)"),
    "branch_split_cycles": (8.0, MEASURED61 + " and microbench59 [derived] (one warp an SM, 2,048 rounds of an FFMA "
                                              "beside a branch some of the warp's lanes take: an eight-way chain "
                                              "of compares, a loop the lanes leave one by one, odd lanes in a "
                                              "region, a four-way switch of compares; ncu's branch_resolving a "
                                              "round 0.8-1.5 beyond the model's BSYNC and taken-branch cycles per "
                                              "split. Of 0, 4, 6, 8 and 10 cycles a warp a BRA splits, 8 puts "
                                              "the 32 rows at 4.1% mean error (6.5% with none); odd lanes of 1 "
                                              "or 3 trips stay -18%. The sixty-second batch, predicted with it "
                                              "before it ran: 3.2%, 5.6% without)"),
    "slow_resume_cycles": (35.0, MEASURED63 + " and microbench64 [derived] (one warp an SM, 2,048 rounds of an FFMA "
                                             "beside a loop inside one or two branches or after another: a split "
                                             "inside the half an earlier split ran first took 34-40 cycles a round "
                                             "beyond the split and BSYNC cycles, whichever lanes left or went on, "
                                             "5-8 where the earlier split's lone lane ran first and blocked. Of 30, "
                                             "35 and 40 cycles, 35 puts the 31 rows at 1.5% mean error (2.1%, "
                                             "2.5%; 10.1% without)"),
    "atomic_pass_cycles_int": ((1.5, 2.36, 4.1, 5.86, 4.81),
                               MEASURED57 + " and microbench56 [derived] (REDs on every request's own words of lines "
                               "of one 512-byte chunk, L2 cycles a (request, line) pass at its atomic unit, times "
                               "1980 / 1709 MHz: one sector 1.25 / 1.46 / 1.18 (one line; four lines of 1-4 and 8 "
                               "lanes), two 2.01 / 2.00 / 2.10, the whole line 4.17 / 4.14; four sectors in part, a "
                               "histogram's 16 words of each of two lines, 5.06; three sectors interpolated)"),
    "atomic_pass_cycles_float": ((2.54, 2.89, 4.38, 5.87, 4.77),
                                 MEASURED57 + " and microbench56 [derived] (f32 as atomic_pass_cycles_int: one sector "
                                 "2.18-2.20, two 2.29-2.66 (five rows, mean 2.49), the whole line 4.00-4.17 (mean "
                                 "4.12), four in part 5.07 (histograms of 64 and 128 bins); passes to one line alone "
                                 "wait out atomic_lane_cycles_float each, 3.0 L2 cycles)"),
    "cta_drain_span_pipe": (1.04, "measured on an H100 SXM (validation/timing/h100/microbench52*) [derived]: "
                                  "ncu achieved occupancy of one-wave DFMA, MUFU.EX2, IMAD and HFMA2 chains at "
                                  "16 / 8 / 2 CTAs an SM, 55.5-58.6 / 57.1-60.5 / 73.9-74.6%; k CTAs finishing "
                                  "evenly over the last p of the wave, their warps waiting c = 0.93 of the time, "
                                  "give 1 - c p (k - 1) / 2k: p 0.95-1.12, mean 1.04 (set 4's pipe kernels on "
                                  "the H200, 57.4-60.6% at 8 CTAs, are the check)"),
    "atomic_writeback_hbm_bytes": (58.0, "measured on an H100 SXM (validation/timing/h100/microbench49*) "
                                   "[derived]: 4.3M REDs on words picked by a hash over 256 MB, 190 MB read and 131 MB "
                                   "written back in 282.5 us, where loads of the same words read 258 MB in 130 us; "
                                   "the time the model leaves unexplained there over its 3.4M sectors written back "
                                   "alone; the 1 GB, f32, CAS and 32 MB rows are the check"),
    "hbm_latency_spread": (182.0, "measured on an H100 SXM (validation/timing/h100/microbench46*): one loop "
                                  "iteration a trip, its loads from k arrays at once, 763 cycles at k = 1, 868 / 893 / "
                                  "913 at k = 2 / 3 / 4; from one stream's adjacent lines 763-786"),
    "l2_bytes": (52428800, HOPPER_WP + " (50 MB; the driver may report 60 MB as on the H200)"),
    "l2_bandwidth_gbps": (7150.0, MEASURED48 + " (ld.cg float4 reads of 8/24/40 MB resident in L2, 8 CTAs of 256 "
                                               "per SM: 7165 / 7152 / 6956 GB/s; the H200 7550)"),
    "hbm_bytes": (80 * 10**9, "NVIDIA H100 datasheet (80 GB HBM3)"),
    "hbm_bandwidth_gbps": (3350.0, "NVIDIA H100 datasheet (3.35 TB/s)"),
    "hbm_copy_gbps": (2870.0, MEASURED48 + " (grid-stride float4 copy of 1 GiB, 32 CTAs/SM: 2870 GB/s read+write; "
                                           "8 CTAs/SM 2831; CuPy's copy 2995)"),
    "launch_overhead_us": (1.41, "[assumed] as " + MEASURED_CASES),
    "empty_kernel_event_us": (8.51, MEASURED48 + " (one empty <<<1,32>>> launch between two events, median; an "
                                                 "event pair alone 1.31 us; back-to-back CuPy launches 5.5-5.9 us each)"),
    "cta_launch_ns_per_sm": (79.0, MEASURED48 + " [derived] (empty kernels: 132 CTAs 7.7 us, 132000 CTAs 86.7 us "
                                                "with 256 or 32 threads: (86.7 - 7.7) us / 1000 CTAs per SM; the H200's 79)"),
    **_microbenchmarked_as_h200("[assumed] same GH100 SM and L2 as the H200"),
    "l2_store_byte_cost": (1.87, MEASURED54 + " [derived] (mb54_write, one float a thread at 64 warps an SM: 2^21 "
                                                "and 2^22 elements, held in the L2, 5.1 and 7.3 us under ncu: 8.4 MB "
                                                "more in 2.2 us, 3.82 TB/s where the L2 reads 7.15)"),
    "l2_dirty_share": (0.427, MEASURED54 + " [derived] (mb54_write of 32, 64 and 256 MB: ncu's dram__bytes_write "
                                           "10.9, 44.8 and 246.0 MB, so 22.7, 22.3 and 22.4 MB held at the end, mean "
                                           "22.4 of the L2's 52.4)"),
    "l2_dirty_read_weight": (0.29, MEASURED54 + " [derived] (mb54_copy of 64 and 256 MB held 18.1 and 17.3 MB, "
                                               "mb54_fma, two bytes read a byte written, 14.5 and 12.8: 22.4 / (1 + w) "
                                               "and 22.4 / (1 + 2 w) give w 0.266 and 0.32; the H200 0.27)"),
    "hbm_read_over_copy": (1.05, MEASURED53 + " [derived] (grid-stride float4 reads of 64 MB, 16 to 64 warps an SM, "
                                              "one or two loads in flight a thread: 25.9-26.6 us under ncu; less the "
                                              "model's own time beyond the transfer, reads alone at 2942-3088 GB/s, "
                                              "median 3030, 1.05x the copy; the H200 1.13x)"),
    "max_warps_per_sm": (64, CUDA_PG + " (cc 9.0)"),
    "max_ctas_per_sm": (32, CUDA_PG + " (cc 9.0)"),
    "registers_per_sm": (65536, CUDA_PG + " (cc 9.0)"),
    "max_shared_per_sm": (233472, CUDA_PG + " (cc 9.0: 228 KB per SM)"),
    "max_shared_per_block": (232448, CUDA_PG + " (cc 9.0: 227 KB per block, opt-in)"),
    "shared_reserved_per_block": (1024, CUDA_PG + " (1 KB reserved per block on cc 8.0+)"),
})

# The figures only the H100's microbenchmarks measured, by batch; the presets of other chips take them as the
# H100's, saying so (the H200 names them in its own table, where it says more of each).
_MEASURED_ON_H100 = {"hbm_latency_spread": 46, "atomic_spread_units": 47, "cta_drain_span_pipe": 52,
                     "l2_store_byte_cost": 54, "atomic_writeback_hbm_bytes": 49, "atomic_pass_cycles_int": 57,
                     "atomic_pass_cycles_float": 57, "bsync_cycles": 59, "branch_split_cycles": 61,
                     "slow_resume_cycles": 63}


def _microbenchmarked_as_h100() -> dict:
    return {name: (_H100[name][0], f"[assumed] as the H100's (validation/timing/h100/microbench{batch}*); not measured")
            for name, batch in _MEASURED_ON_H100.items()}


# ----------------------------------------------------------------------------- A100 SXM4 80GB
_A100 = {
    "name": ("a100", "warpsim"),
    "full_name": ("NVIDIA A100 SXM4 80GB", AMPERE_WP + "; the 80 GB SXM part is chosen (the 40 GB differs in HBM size and bandwidth)"),
    "compute_capability": ((8, 0), CUDA_PG),
    "sms": (108, AMPERE_WP),
    "sub_partitions_per_sm": (4, AMPERE_WP),
    "warp_size": (32, CUDA_PG),
    "boost_clock_mhz": (1410.0, AMPERE_WP),
    "kernel_clock_mhz": (1410.0, "[assumed] the boost clock; not measured"),
    "tensor_clock_mhz": (1410.0, "[assumed] the kernel clock; not measured"),
    "issue_width": (1, AMPERE_WP),
    "fp32_lanes_per_clk": (64.0, CUDA_PG + " (cc 8.0: 64); [derived] 108 x 64 x 2 x 1.41 GHz = 19.5 TFLOPS, the datasheet's"),
    "fp64_lanes_per_clk": (32.0, CUDA_PG + " (cc 8.0: 32); 9.7 TFLOPS in the datasheet"),
    "int32_lanes_per_clk": (64.0, CUDA_PG + " (cc 8.0: 64)"),
    "imad_lanes_per_clk": (64.0, CUDA_PG + " (cc 8.0 32-bit multiply-add: 64) [recalled]"),
    "fp16_lanes_per_clk": (128.0, CUDA_PG + " (cc 8.0 16-bit add, multiply, multiply-add: 256 results, two a lane)"),
    "sfu_lanes_per_clk": (16.0, CUDA_PG + " (cc 8.0: 16)"),
    "tensor_fp16_flops_per_clk": (2048.0, "[derived] A100 datasheet dense FP16 312 TFLOPS / (108 x 1.41 GHz); mma.sync is the "
                                          "peak path on Ampere"),
    "tensor_fp16_peak_flops_per_clk": (2048.0, "[derived] A100 datasheet dense FP16 312 TFLOPS / (108 x 1.41 GHz)"),
    "shared_wavefronts_per_clk": (1.0, AMPERE_WP + " (128 B/clk/SM shared-memory bandwidth)"),
    "alu_latency": (4.0, ABDELKHALIK + " (add.f32 4 cycles dependent)"),
    "fma_latency": (4.0, ABDELKHALIK + " (fma 4 cycles) [recalled]"),
    "fp64_latency": (8.0, ABDELKHALIK + " [recalled]"),
    "sfu_latency": (18.0, ABDELKHALIK + " [recalled]"),
    "shared_latency": (23.0, ABDELKHALIK + " (about 23-29 cycles) [recalled]"),
    "l1_hit_latency": (33.0, ABDELKHALIK + " (about 33-38 cycles) [recalled]"),
    "l2_hit_latency_near": (200.0, "chipsandcheese A100 measurements, near L2 about 200 cycles [recalled]"),
    "l2_hit_latency_far": (260.0, "chipsandcheese A100 measurements, far L2 partition [recalled]"),
    **_microbenchmarked_as_h100(),
    "hbm_latency": (480.0, ABDELKHALIK + " (global memory about 290 ns at 1.41 GHz, roughly 400-500 cycles) [recalled]"),
    "l1_shared_kib": (192, AMPERE_TG + " (192 KB combined L1/shared per SM)"),
    "shared_carveouts_kib": ((0, 8, 16, 32, 64, 100, 132, 164), AMPERE_TG + " (carve-outs of cc 8.0) [recalled]"),
    "shared_banks": (32, CUDA_PG),
    "shared_bank_bytes": (4, CUDA_PG),
    "l2_bytes": (41943040, AMPERE_WP + " (40 MB, two partitions)"),
    "l2_partitions": (2, AMPERE_WP),
    "l2_line_bytes": (128, AMPERE_WP),
    "l2_sector_bytes": (32, AMPERE_WP),
    "l2_bandwidth_gbps": (5100.0, AMPERE_WP + " (2.3x V100's L2 read bandwidth; about 5 TB/s) [recalled]"),
    "hbm_bytes": (80 * 10**9, "NVIDIA A100 80GB datasheet"),
    "hbm_bandwidth_gbps": (2039.0, "NVIDIA A100 80GB SXM datasheet (2,039 GB/s)"),
    "hbm_copy_gbps": (1670.0, "[derived] the H200's measured copy efficiency (0.82) times 2039; not measured"),
    "launch_overhead_us": (1.41, "[assumed] as the H200 (" + MEASURED_CASES + ")"),
    "empty_kernel_event_us": (7.86, "[assumed] as the H200 (" + MEASURED + ")"),
    "cta_launch_ns_per_sm": (79.0, "[assumed] as the H200 (" + MEASURED + ")"),
    "pcie_gbps": (25.0, "[assumed] PCIe Gen4 x16 (32 GB/s per direction) at about 80% for pinned copies; not measured"),
    "copy_overhead_us": (2.0, "[assumed] as the H200; not measured"),
    **_microbenchmarked_as_h200("[assumed] as the H200"),
    "max_warps_per_sm": (64, CUDA_PG + " (cc 8.0)"),
    "max_ctas_per_sm": (32, CUDA_PG + " (cc 8.0)"),
    "max_threads_per_block": (1024, CUDA_PG),
    "registers_per_sm": (65536, CUDA_PG + " (cc 8.0)"),
    "max_registers_per_thread": (255, CUDA_PG),
    "register_alloc_unit": (256, "CUDA Occupancy Calculator [recalled]"),
    "max_shared_per_sm": (167936, CUDA_PG + " (cc 8.0: 164 KB per SM)"),
    "max_shared_per_block": (166912, CUDA_PG + " (cc 8.0: 163 KB per block, opt-in)"),
    "shared_reserved_per_block": (1024, CUDA_PG + " (1 KB reserved per block on cc 8.0+)"),
}

_A100.update(_no_wgmma("sm_80", _A100))
# the H100's SM is the H200's; its HBM is not (570 cycles against 672: the copy's extra time kept)
_H100.update({name: (_H200[name][0], "[assumed] same GH100 SM and L2 as the H200, whose figure was " +
                     _H200[name][1]) for name in ("hgmma_interval_cycles", "hgmma_latency_cycles", "hmma_latency",
                                                  "cp_async_l2_bytes_per_clk", "l2_merged_floor_load",
                                                  "l2_merged_floor_copy")})
# the sixty-eighth batch's mb68_chase (mb8_cpasync_lat's loop): 489.9 cycles a round over 256 lines
# resident in L2 (4,096 rounds, the first 256 from HBM), 869.1 over lines 64 KB apart from HBM
_H100["cp_async_latency_hbm"] = (869.1 - COPY_CHASE_CHAIN, MEASURED68 + " (mb68_chase: one thread's cp.async.cg "
                                 "16 bytes, commit, wait_group 0, each line from HBM: 869.1 cycles a round, less "
                                 "COPY_CHASE_CHAIN)")
_H100["cp_async_latency_l2"] = ((489.9 - COPY_CHASE_CHAIN - 256 / 4096 * _H100["cp_async_latency_hbm"][0])
                                / (1 - 256 / 4096), MEASURED68 + " (mb68_chase over 256 lines 4 KB apart: 489.9 "
                                "cycles a round, the first 256 of 4,096 from HBM, less COPY_CHASE_CHAIN)")

# ----------------------------------------------------------------------------- L4 (AD104)
_L4 = {
    "name": ("l4", "warpsim"),
    "full_name": ("NVIDIA L4 24GB", L4_DS),
    "compute_capability": ((8, 9), CUDA_PG),
    "sms": (58, "NVIDIA Ada Lovelace architecture whitepaper / " + L4_DS + " (7424 CUDA cores / 128) [derived]"),
    "sub_partitions_per_sm": (4, ADA_TG),
    "warp_size": (32, CUDA_PG),
    "boost_clock_mhz": (2040.0, L4_DS + " (max boost 2040 MHz) [recalled]"),
    "kernel_clock_mhz": (2040.0, "[assumed] the boost clock; a 72 W card is likely to run lower under load; not measured"),
    "tensor_clock_mhz": (2040.0, "[assumed] the kernel clock; not measured"),
    "issue_width": (1, ADA_TG),
    "fp32_lanes_per_clk": (128.0, CUDA_PG + " (cc 8.9: 128); [derived] 58 x 128 x 2 x 2.04 GHz = 30.3 TFLOPS, the datasheet's"),
    "fp64_lanes_per_clk": (2.0, CUDA_PG + " (cc 8.9: 2)"),
    "int32_lanes_per_clk": (64.0, CUDA_PG + " (cc 8.9: 64)"),
    "imad_lanes_per_clk": (64.0, CUDA_PG + " (cc 8.9) [recalled]"),
    "fp16_lanes_per_clk": (64.0, CUDA_PG + " (cc 8.9 16-bit add, multiply, multiply-add: 128 results, two a lane)"),
    "sfu_lanes_per_clk": (16.0, CUDA_PG + " (cc 8.9: 16)"),
    "tensor_fp16_flops_per_clk": (1024.0, "[derived] " + L4_DS + " FP16 tensor 242 TFLOPS with sparsity = 121 dense / (58 x 2.04 GHz)"),
    "tensor_fp16_peak_flops_per_clk": (1024.0, "[derived] as tensor_fp16_flops_per_clk"),
    "shared_wavefronts_per_clk": (1.0, ADA_TG + " (128 B/clk/SM) [recalled]"),
    "alu_latency": (4.0, "[assumed] as Ampere: " + ABDELKHALIK),
    "fma_latency": (4.0, "[assumed] as Ampere: " + ABDELKHALIK),
    "fp64_latency": (48.0, "[assumed] FP64 at 1/64 rate issues over many cycles; not measured [recalled]"),
    "sfu_latency": (18.0, "[assumed] as Ampere: " + ABDELKHALIK),
    "shared_latency": (23.0, "[assumed] as Ampere: " + ABDELKHALIK),
    "l1_hit_latency": (33.0, "[assumed] as Ampere: " + ABDELKHALIK),
    "l2_hit_latency_near": (220.0, "arXiv 2606.22588 (L40, same AD10x family: L2 hits 222-339 cycles by SM) (" + NOTES + ")"),
    "l2_hit_latency_far": (300.0, "arXiv 2606.22588 (L40: L2 hits 222-339 cycles by SM) (" + NOTES + ")"),
    **_microbenchmarked_as_h100(),
    "hbm_latency": (600.0, "[assumed] GDDR6 DRAM latency, about 300 ns; not measured [recalled]"),
    "l1_shared_kib": (128, ADA_TG + " (128 KB combined L1/shared per SM)"),
    "shared_carveouts_kib": ((0, 8, 16, 32, 64, 100), ADA_TG + " (cc 8.9) [recalled]"),
    "shared_banks": (32, CUDA_PG),
    "shared_bank_bytes": (4, CUDA_PG),
    "l2_bytes": (50331648, L4_DS + " (48 MB L2) [recalled]"),
    "l2_partitions": (1, "[assumed] one partition; AD104 is not documented as split"),
    "l2_line_bytes": (128, ADA_TG),
    "l2_sector_bytes": (32, ADA_TG),
    "l2_bandwidth_gbps": (2000.0, "[assumed] not published; about 1 KB/clk at 2 GHz; not measured"),
    "hbm_bytes": (24 * 10**9, L4_DS + " (24 GB GDDR6)"),
    "hbm_bandwidth_gbps": (300.0, L4_DS + " (300 GB/s)"),
    "hbm_copy_gbps": (250.0, "[derived] about 0.82 of 300 GB/s, the H200's measured efficiency; not measured"),
    "launch_overhead_us": (1.41, "[assumed] as the H200 (" + MEASURED_CASES + ")"),
    "empty_kernel_event_us": (7.86, "[assumed] as the H200 (" + MEASURED + ")"),
    "cta_launch_ns_per_sm": (79.0, "[assumed] as the H200 (" + MEASURED + ")"),
    "pcie_gbps": (25.0, "[assumed] PCIe Gen4 x16 (32 GB/s per direction) at about 80% for pinned copies; not measured"),
    "copy_overhead_us": (2.0, "[assumed] as the H200; not measured"),
    **_microbenchmarked_as_h200("[assumed] as the H200"),
    "max_warps_per_sm": (48, CUDA_PG + " (cc 8.9: 1536 threads per SM)"),
    "max_ctas_per_sm": (24, CUDA_PG + " (cc 8.9)"),
    "max_threads_per_block": (1024, CUDA_PG),
    "registers_per_sm": (65536, CUDA_PG + " (cc 8.9)"),
    "max_registers_per_thread": (255, CUDA_PG),
    "register_alloc_unit": (256, "CUDA Occupancy Calculator [recalled]"),
    "max_shared_per_sm": (102400, CUDA_PG + " (cc 8.9: 100 KB per SM)"),
    "max_shared_per_block": (101376, CUDA_PG + " (cc 8.9: 99 KB per block, opt-in)"),
    "shared_reserved_per_block": (1024, CUDA_PG + " (1 KB reserved per block on cc 8.0+)"),
}

# the eighth microbenchmark batch's figures (tensor cores, async copies) where the GPU lacks wgmma
_L4.update(_no_wgmma("sm_89", _L4))

H200 = _make(_H200)
H100 = _make(_H100)
A100 = _make(_A100)
L4 = _make(_L4)

PRESETS = MappingProxyType({"h200": H200, "h100": H100, "a100": A100, "l4": L4})
ALIASES = MappingProxyType({
    "h200": "h200", "h200-sxm": "h200", "h200sxm": "h200", "nvidia h200": "h200",
    "h100": "h100", "h100-sxm": "h100", "h100sxm": "h100", "h100-sxm5": "h100", "nvidia h100": "h100",
    "a100": "a100", "a100-sxm": "a100", "a100-80gb": "a100", "a100-sxm4-80gb": "a100", "nvidia a100": "a100",
    "l4": "l4", "nvidia l4": "l4",
})


def gpu_names() -> tuple:
    """The preset names gpu_preset() accepts (aliases aside)."""
    return tuple(PRESETS)


def gpu_preset(name) -> GPUPreset:
    """The preset for `name` ("h200", "h100", "a100", "l4"; case-insensitive, a few aliases); a GPUPreset passes through."""
    if isinstance(name, GPUPreset):
        return name
    key = str(name).strip().lower().replace("_", "-")
    if key in ALIASES:
        return PRESETS[ALIASES[key]]
    raise UnknownGPU(f"unknown GPU {name!r}: the presets are {', '.join(PRESETS)}")
