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

FP32 = {"FFMA", "FADD", "FMUL", "FMNMX", "FSEL", "FSET", "FSWZADD", "HFMA2", "HADD2", "HMUL2", "FCHK"}
FMA_INT = {"IMAD", "IMUL", "IDP", "IMADSP"}
ALU = {"IADD3", "IADD", "LOP3", "LOP", "SHF", "SHL", "SHR", "ISETP", "FSETP", "DSETP", "LEA", "LEA_HI",
       "SEL", "PRMT", "IMNMX", "IABS", "MOV", "PLOP3", "P2R", "R2P", "FLO", "BMSK", "BREV", "SGXT",
       "VIADD", "VIMNMX", "IADD32I", "LOP32I", "ISCADD", "CS2R", "HSETP2"}
FP64 = {"DFMA", "DADD", "DMUL", "DMNMX"}
MUFU = {"MUFU"}
CONVERT = {"I2F", "F2I", "F2F", "I2I", "FRND", "F2FP", "I2FP", "F2IP"}
POPC = {"POPC"}
TENSOR = {"HMMA", "IMMA", "DMMA", "HGMMA", "BMMA"}
SHARED = {"LDS", "STS", "ATOMS", "LDSM", "STSM"}
GLOBAL = {"LDG", "STG", "ATOMG", "ATOM", "RED", "LD", "ST", "LDGSTS", "LDGDEPBAR"}
LOCAL = {"LDL", "STL"}
CONSTANT = {"LDC", "ULDC"}
SPECIAL = {"S2R", "S2UR", "CS2R_SR"}
WARP = {"SHFL", "VOTE", "VOTEU", "MATCH", "REDUX"}
BARRIER = {"BAR"}
BRANCH = {"BRA", "BRX", "JMP", "EXIT", "RET", "CALL", "BSSY", "BSYNC", "WARPSYNC", "BREAK", "KILL", "NOP",
          "YIELD", "BPT", "DEPBAR", "MEMBAR", "ERRBAR", "CCTL", "FENCE"}


def pipe_of(opcode: str) -> str:
    """'fp32', 'fma', 'alu', 'fp64', 'mufu', 'tensor', 'shared', 'global', 'local', 'constant',
    'special', 'warp', 'barrier', 'branch' or 'uniform' (uniform datapath: an issue slot only)."""
    if opcode in FP32:
        return "fp32"
    if opcode in FMA_INT:
        return "fma"
    if opcode in ALU:
        return "alu"
    if opcode in FP64:
        return "fp64"
    if opcode in MUFU or opcode in CONVERT or opcode in POPC:
        return "mufu"
    if opcode in TENSOR:
        return "tensor"
    if opcode in SHARED:
        return "shared"
    if opcode in GLOBAL or opcode.startswith(("LDG", "STG", "RED", "ATOM")):
        return "global"
    if opcode in LOCAL:
        return "local"
    if opcode in CONSTANT:
        return "constant"
    if opcode in SPECIAL:
        return "special"
    if opcode in WARP:
        return "warp"
    if opcode in BARRIER:
        return "barrier"
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
            "alu": hold(preset.int32_lanes_per_clk), "fp64": hold(preset.fp64_lanes_per_clk),
            "mufu": hold(preset.sfu_lanes_per_clk),
            "tensor": 4096.0 / (preset.tensor_fp16_flops_per_clk / per_smsp)}


def result_latency(opcode: str, pipe: str, preset) -> float:
    """Cycles from issue until a scoreboard-released result is ready (memory: set by the caller)."""
    if pipe == "mufu":
        return preset.sfu_latency
    if pipe == "shared" or pipe == "warp":
        return preset.shared_latency
    if pipe == "constant":
        return preset.l1_hit_latency
    if pipe == "special":
        return 20.0
    if pipe == "fp64":
        return preset.fp64_latency
    if pipe == "tensor":
        return 2 * preset.fp64_latency + 16
    if pipe == "barrier":
        return preset.shared_latency
    return preset.alu_latency


def stall_reason_of_wait(pipe: str) -> str:
    """The Nsight Compute stall reason a warp waiting on this producer's scoreboard is counted under."""
    if pipe in ("global", "local"):
        return "long_scoreboard"
    return "short_scoreboard"
