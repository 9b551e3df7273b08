"""Register banks: which reads each instruction asks of the even and odd banks, and what the model
makes of a kernel whose FFMAs read more from one bank than they issue."""

import numpy as np
import pytest

import warpsim as ws
import warpsim.timing.facts as timing_facts
from warpsim.api.raw import pack_arguments
from warpsim.sass import sass_of
from warpsim.sass.disasm import parse_instruction
from warpsim.timing import predict
from warpsim.timing.pipes import pipe_of
from warpsim.timing.register_banks import BANKS, bank_reads


def _reads(lines):
    instructions = [parse_instruction(text) for text in lines]
    return bank_reads(instructions, [pipe_of(i.opcode) for i in instructions])


def test_each_source_register_is_read_from_its_bank():
    reads = _reads(["FFMA R35, R67, R35, 0.25",       # two odd sources
                    "FFMA R35, R66, R35, 0.25",       # one of each
                    "FFMA R37, R17, R37, R20",        # odd, odd, even
                    "IADD3 R2, P0, R4, R6, RZ",       # the carry-out predicate and RZ read nothing
                    "LDG.E R5, desc[UR6][R2.64]",     # memory: no bank reads counted
                    "MOV R3, c[0x0][0x160]"])         # a constant: none either
    np.testing.assert_array_equal(reads, [[0, 2], [1, 1], [1, 2], [2, 0], [0, 0], [0, 0]])


def test_the_reuse_cache_serves_a_marked_source_to_the_next_instruction_in_the_same_slot():
    reads = _reads(["FFMA R8, R3.reuse, R5, R8",
                    "FFMA R9, R3, R7, R9",            # R3 in slot a again: cached
                    "FFMA R10, R5, R3, R10",          # R3 now in slot b, and not marked again: read
                    "FFMA R11, R3, R1, R11"])
    np.testing.assert_array_equal(reads, [[1, 2], [0, 2], [1, 2], [0, 3]])


CHAIN = r"""
template <int K>
__device__ __forceinline__ void pair(float* out, const float* in, int iters) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float r[K];
#pragma unroll
    for (int k = 0; k < K; ++k) r[k] = in[(t + k * 4099) & 65535];
    float x = 0.5f, y = 0.75f;
#pragma unroll 1
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int k = 0; k < K; ++k) { x = fmaf(x, r[k], 0.25f); y = fmaf(r[k], y, x); }
    }
    out[t] = x + y;
}
extern "C" __global__ void pair32(float* out, const float* in, int iters) { pair<32>(out, in, iters); }
"""


def test_a_sub_partition_full_of_warps_goes_at_its_busiest_banks_pace(monkeypatch):
    """FFMA pairs whose second FFMA reads three registers: two of them share a bank. With 16 CTAs of
    4 warps an SM asked for, the sub-partitions issue back to back, so the banks set the time; a
    lone warp a sub-partition waits out its FFMAs' latency and loses nothing to them."""
    mod = ws.RawModule(code=CHAIN)
    k = mod.get_function("pair32")
    fn = sass_of(k.loaded_module).functions["pair32"]
    reads = bank_reads(fn.instructions, [pipe_of(i.opcode) for i in fn.instructions])
    ffma = np.array([i.opcode == "FFMA" for i in fn.instructions])
    per_ffma = reads[ffma].max(axis=1).mean()
    assert per_ffma > 1.0                     # three sources in two banks read 2 from one of them
    x = ws.asarray(np.random.default_rng(5).random(65536, dtype=np.float32) * 0.5 + 0.5)
    out = ws.zeros(132 * 16 * 128, dtype=np.float32)
    args = pack_arguments(k.kernel_name, k.params, (out, x, np.int32(64)))

    def timed(grid):
        return predict(k.loaded_module, k.kernel_name, (grid,), (128,), args, 0, gpu="h200", max_ctas=4)

    full, lone = timed(132 * 16), timed(132)
    monkeypatch.setattr(timing_facts, "bank_reads", lambda instructions, pipes: np.zeros((len(instructions), BANKS)))
    monkeypatch.delattr(fn, "_timing_facts")      # the kernel's tables made again, without bank reads
    full_free, lone_free = timed(132 * 16), timed(132)
    assert full.time_s > 1.2 * full_free.time_s
    assert full.stalls["dispatch_stall"] > 0.1 and full_free.stalls.get("dispatch_stall", 0.0) == 0.0
    assert lone.time_s == pytest.approx(lone_free.time_s, rel=0.02)
