"""wgmma.mma_async from hand-written PTX: every layout, swizzle and operand form against NumPy.

The probe kernel and its inputs are in hopper_ptx.py and wgmma_cases.py; the
same cases ran on an H200 (validation/hopper/), whose raw accumulator words
are kept in validation/hopper/h200.npz and compared here too when present.
"""

import os

import numpy as np
import pytest

import warpsim as cp
from warpsim.errors import MemoryFault, UnsupportedInstruction
from warpsim.machine.isa.wgmma import descriptor_fields, swizzle

from hopper_ptx import HEADER, accumulator_matrix
from wgmma_cases import CASES, build

H200 = os.path.join(os.path.dirname(__file__), "..", "..", "..", "validation", "hopper", "h200.npz")


def run_case(name):
    case = build(name)
    module = cp.RawModule(ptx=case["ptx"])
    out = cp.asarray(np.full((128, case["regs"]), 0x7FC00000 if case["dtype"] == "f32" else 0x7E007E00,
                             np.uint32))
    module.get_function("wgmma_probe")(
        (1,), (128,), (cp.asarray(case["image"]), np.uint32(case["image"].size), np.uint64(case["a_desc"]),
                       np.uint64(case["b_desc"]), cp.asarray(case["c_in"]), out, cp.asarray(case["afrag"]),
                       np.uint32(case["accumulate"])), shared_mem=case["shared"])
    return case, out.get()


@pytest.mark.parametrize("name", sorted(CASES))
def test_wgmma_case_against_numpy(name):
    case, words = run_case(name)
    got = accumulator_matrix(words, case["n"], case["dtype"])
    assert not np.isnan(got).any()                           # every element written
    np.testing.assert_array_equal(got.astype(np.float64), case["want"])


@pytest.mark.skipif(not os.path.exists(H200), reason="no H200 recording")
@pytest.mark.parametrize("name", sorted(CASES))
def test_wgmma_case_matches_the_h200_bit_for_bit(name):
    recorded = np.load(H200)
    if f"wgmma_{name}" not in recorded:
        pytest.skip("case not recorded")
    _, words = run_case(name)
    np.testing.assert_array_equal(words, recorded[f"wgmma_{name}"])


def test_descriptor_fields_and_swizzles():
    desc = (0x1234 >> 4) | (0x40 >> 4) << 16 | (1024 >> 4) << 32 | 1 << 62
    fields = descriptor_fields(np.array([desc], np.uint64))
    assert (int(fields["start"][0]), int(fields["leading"][0]), int(fields["stride"][0]),
            int(fields["swizzle"][0])) == (0x1230, 0x40, 1024, 1)
    rows = np.arange(8, dtype=np.int64) * 128
    assert list(swizzle(rows, 1)) == [r * 128 + 16 * r for r in range(8)]
    assert list(swizzle(rows + 16, 1)) == [r * 128 + 16 * (1 ^ r) for r in range(8)]   # chunk ^= row
    assert list(swizzle(rows + 16, 3)) == [r * 128 + 16 * (1 ^ (r & 1)) for r in range(8)]
    assert list(swizzle(rows + 16, 0)) == list(rows + 16)


def test_sparse_wgmma_is_refused_naming_it():
    ptx = HEADER + """
.visible .entry k() {
    .reg .b32 %d<4>; .reg .b64 %rd<3>; .reg .pred %p<2>;
    wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%d0,%d1,%d2,%d3}, %rd1, %rd2, %d0, 0, %p1, 1, 1, 0, 0;
    ret;
}"""
    with pytest.raises(UnsupportedInstruction, match="sparse"):
        cp.RawModule(ptx=ptx).get_function("k")


def test_a_descriptor_past_shared_memory_faults_naming_the_first_thread():
    """B is read once per warpgroup; a bad descriptor still names warp 0's thread, as a warp-by-warp read does."""
    case = build(sorted(CASES)[0])
    module = cp.RawModule(ptx=case["ptx"])
    out = cp.zeros((128, case["regs"]), np.uint32)
    bad = (case["b_desc"] & ~0x3FFF) | 0x3FF0              # start near 256 KB, past the block's shared memory
    with pytest.raises(MemoryFault, match=r"shared load .* outside the block's") as fault:
        module.get_function("wgmma_probe")(
            (2,), (128,), (cp.asarray(case["image"]), np.uint32(case["image"].size), np.uint64(case["a_desc"]),
                           np.uint64(bad), cp.asarray(case["c_in"]), out, cp.asarray(case["afrag"]),
                           np.uint32(case["accumulate"])), shared_mem=case["shared"])
    assert "block: (0, 0, 0)  thread: (0, 0, 0)" in str(fault.value)
