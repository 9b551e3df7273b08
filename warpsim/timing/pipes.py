"""Which pipe of an SM sub-partition a SASS opcode issues to, and what its result costs.

The timing model needs three facts per SASS instruction: the pipe whose
throughput it consumes (so that a DFMA-heavy kernel queues on the FP64 pipe
and an FFMA-heavy one only on the issue slot), whether its result is
delivered through a scoreboard (variable latency: memory, MUFU, S2R) and
which stall reason waiting for it is counted under (Nsight Compute's
long_scoreboard for global/local memory, short_scoreboard for shared memory,
MUFU and the other MIO-served units).

Issue costs are cycles of one sub-partition per warp instruction, from the
preset's lanes per clock per SM: a pipe of 64 lanes/SM is 16 lanes per
sub-partition, so a 32-lane warp instruction holds it 2 cycles.
"""

from __future__ import annotations

from ..sass.executor import pipe_by_opcode, pipes_by_modifier
from ..sass.stall_reasons import reason_of_scoreboard_wait
from ..semantics.clock import SPECIAL_REGISTER_LATENCY
from .tensor_core import hgmma_interval

# Every SASS opcode's pipe is declared with its opcode (sass/executor: the family module of an
# executed opcode, pipe_only.py for the others); the table refuses an opcode without one at import.
PIPE_OF_OPCODE = pipe_by_opcode()
PIPE_OF_MODIFIER = pipes_by_modifier()

# Instances a modifier makes take their pipe for several issues: the forty-second batch's IMAD.HI
# chains held the FMA pipe 4.46 cycles an instruction where IMAD's took 2.06, the forty-third's
# IMAD.WIDE chains 4.89 beside 16 VIADDs a loop of 40 (an H100).
PIPE_PASSES = {("IMAD", "HI"): 2.0, ("IMAD", "WIDE"): 2.0}
# Opcodes that take the SM's shared-memory pipe (the MIO) like a shared load's wavefront: the
# forty-third batch's SHFL chains, 4.08 SM cycles a shuffle in each sub-partition at 99% of ncu's LSU
# pipe, one shuffle a cycle an SM (32 lanes a clock, as CUDA's programming guide gives cc 9.0).
MIO_WAVEFRONTS = {"SHFL": 1.0}


QUEUE_PIPES = ("fma", "fp16", "alu", "fp64", "mufu", "tensor")     # the pipes a warp queues for (the model's stations)


def pipe_of(opcode: str, mods: tuple = ()) -> str:
    """'fp32', 'fma', 'fp16', 'alu', 'fp64', 'mufu', 'tensor', 'shared', 'global', 'local', 'constant',
    'special', 'warp', 'barrier', 'branch' or 'uniform' (uniform datapath: an issue slot only), of an
    instance with modifiers `mods`."""
    by_mod = PIPE_OF_MODIFIER.get(opcode)
    if by_mod:
        for mod in mods:
            if mod in by_mod:
                return by_mod[mod]
    pipe = PIPE_OF_OPCODE.get(opcode)
    return pipe if pipe is not None else _unlisted_pipe(opcode)


def _unlisted_pipe(opcode: str) -> str:
    """The pipe of an opcode no table entry names (the executor cannot run it either): a guess
    from its name, so a listing with a newer instruction is still timed."""
    if opcode.startswith(("LDG", "STG", "RED", "ATOM")):
        return "global"
    if opcode.startswith("U"):
        return "uniform"
    return "branch"


def pipe_cycles(preset) -> dict:
    """Cycles one warp instruction holds its pipe in one sub-partition, by pipe."""
    per_smsp = preset.sub_partitions_per_sm
    warp = preset.warp_size

    def hold(lanes_per_sm):
        return warp / (lanes_per_sm / per_smsp)

    return {"fp32": hold(preset.fp32_lanes_per_clk), "fma": hold(preset.imad_lanes_per_clk),
            "fp16": hold(preset.fp16_lanes_per_clk),
            "alu": hold(preset.int32_lanes_per_clk), "fp64": hold(preset.fp64_lanes_per_clk),
            "mufu": hold(preset.sfu_lanes_per_clk),
            "tensor": 4096.0 / (preset.tensor_fp16_flops_per_clk / per_smsp)}


EIGHT_BIT = ("E4M3", "E5M2", "S8", "U8")
WGMMA_OPCODES = ("HGMMA", "QGMMA", "IGMMA")     # wgmma of 16-bit and tf32, fp8, and 8-bit integer inputs


def tensor_cycles(opcode: str, mods: tuple, preset) -> float:
    """Cycles one warp's tensor instruction holds its sub-partition's tensor core, by its shape: a
    warpgroup's HGMMA.MxNxK is issued by each of its four warps, each doing M/4 rows; HMMA/IMMA are
    one warp's m16n8k. Work is counted in 16-bit-input FLOPs (TF32 runs at half that rate, 8-bit
    inputs at twice): wgmma at the interval the preset measured for its type and N (tensor_core.py),
    or the datasheet's dense peak without one; mma.sync at the rate measured for HMMA.16816 (half of
    it on Hopper). A shape it cannot read keeps the HMMA.16816 figure."""
    per_smsp = preset.sub_partitions_per_sm
    shape = next((m for m in mods if "x" in m and all(p.isdigit() for p in m.split("x"))), None)
    scale = 2.0 if "TF32" in mods else 0.5 if any(t in mods for t in EIGHT_BIT) else 1.0
    if opcode in WGMMA_OPCODES and shape:
        measured = hgmma_interval(mods, preset)
        if measured is not None:
            return measured
        m, n, k = (int(v) for v in shape.split("x"))
        return (m / 4) * n * k * 2 * scale / (preset.tensor_fp16_peak_flops_per_clk / per_smsp)
    digits = next((m for m in mods if m.isdigit() and m.startswith("168")), None)
    if opcode in ("HMMA", "IMMA") and digits:
        k = int(digits[3:])
        return 16 * 8 * k * 2 * scale / (preset.tensor_fp16_flops_per_clk / per_smsp)
    return 4096.0 / (preset.tensor_fp16_flops_per_clk / per_smsp)


def pipe_passes(opcode: str, mods: tuple) -> float:
    """How many times an instance holds its pipe's issue cost (PIPE_PASSES; 1 for most)."""
    return max((PIPE_PASSES.get((opcode, m), 1.0) for m in mods), default=1.0)


def result_latency(opcode: str, pipe: str, preset) -> float:
    """Cycles from issue until a scoreboard-released result is ready (memory: set by the caller)."""
    if pipe == "mufu":
        return preset.sfu_latency
    if pipe == "shared" or pipe == "warp":
        return preset.shared_latency
    if pipe == "constant":
        return preset.l1_hit_latency
    if pipe == "special":
        return float(SPECIAL_REGISTER_LATENCY)
    if pipe == "fp64":
        return preset.fp64_latency
    if pipe == "tensor":
        return preset.hmma_latency
    if pipe == "barrier":
        return preset.shared_latency
    return preset.alu_latency


def stall_reason_of_wait(pipe: str) -> str:
    """The Nsight Compute stall reason a warp waiting on this producer's scoreboard is counted under
    (long_scoreboard for global and local memory; sass/stall_reasons.py says which)."""
    return reason_of_scoreboard_wait(pipe)
