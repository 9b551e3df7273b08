"""cp.async with src-size below cp-size: only src-size bytes are read, the rest zero-filled.

Hand-written PTX, the form Triton emits for masked loads: a lane whose src-size
is 0 reads nothing, so its source address may point outside every allocation
(Triton passes the unmasked pointer); a lane that reads past an allocation
faults, and the fault names the global address it read.
"""

import numpy as np
import pytest

import warpsim as cp
from warpsim.errors import MemoryFault

HEADER = ".version 8.0\n.target sm_80\n.address_size 64\n"


def copy_kernel(cp_size: int, operand: str) -> str:
    """Each thread copies cp_size bytes from src + cp_size*t (src-size from sizes[t]) through shared memory."""
    last = {"src-size": ", %r3", "ignore-src": ", %p1", "none": ""}[operand]
    return HEADER + f"""
.visible .entry copy(.param .u64 src, .param .u64 out, .param .u64 sizes)
{{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<12>;
    .shared .align 16 .b8 buf[{32 * cp_size}];
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [out];
    ld.param.u64 %rd3, [sizes];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd3, %rd4;
    ld.global.u32 %r3, [%rd5];
    setp.eq.u32 %p1, %r3, 0;
    mul.wide.u32 %rd6, %r1, {cp_size};
    add.s64 %rd7, %rd1, %rd6;
    mov.u32 %r4, buf;
    cvt.u32.u64 %r5, %rd6;
    add.u32 %r6, %r4, %r5;
    cp.async.ca.shared.global [%r6], [%rd7], {cp_size}{last};
    cp.async.commit_group;
    cp.async.wait_group 0;
    bar.sync 0;
    add.s64 %rd8, %rd2, %rd6;
    ld.shared.u32 %r7, [%r6];
    st.global.u32 [%rd8], %r7;
    ld.shared.u32 %r7, [%r6+{cp_size - 4}];
    st.global.u32 [%rd8+{cp_size - 4}], %r7;
    ret;
}}
"""


def run(cp_size, operand, sizes, source_bytes):
    kernel = cp.RawModule(ptx=copy_kernel(cp_size, operand)).get_function("copy")
    src = cp.asarray(source_bytes)
    out = cp.full(32 * cp_size, 0xAB, dtype=cp.uint8)
    kernel((1,), (32,), (src, out, cp.asarray(np.asarray(sizes, dtype=np.uint32))))
    return out.get().reshape(32, cp_size)


def reference(source_bytes, cp_size, sizes):
    """Rows of cp_size bytes, each keeping its first `size` bytes; only the first and last words are checked."""
    rows = source_bytes[:32 * cp_size].reshape(32, cp_size).copy()
    for row, size in zip(rows, sizes):
        row[size:] = 0
    return rows


def checked(rows, cp_size):
    return np.concatenate([rows[:, :4], rows[:, cp_size - 4:]], axis=1)


@pytest.mark.parametrize("cp_size", [4, 8, 16])
def test_src_size_reads_only_src_size_bytes(cp_size):
    rng = np.random.default_rng(cp_size)
    source = rng.integers(1, 256, 32 * cp_size, dtype=np.uint8)
    sizes = rng.integers(0, cp_size + 1, 32)
    sizes[:3] = (0, cp_size, 1)
    got = run(cp_size, "src-size", sizes, source)
    np.testing.assert_array_equal(checked(got, cp_size), checked(reference(source, cp_size, sizes), cp_size))


def test_src_size_zero_reads_nothing_even_past_the_allocation():
    """Only the first 8 threads' sources exist; the other 24 copy 0 bytes from past its end."""
    rng = np.random.default_rng(1)
    source = rng.integers(1, 256, 8 * 16, dtype=np.uint8)
    sizes = np.array([16] * 8 + [0] * 24)
    got = run(16, "src-size", sizes, source)
    assert np.array_equal(checked(got[:8], 16), checked(source.reshape(8, 16), 16))
    assert not checked(got[8:], 16).any()


def test_ignore_src_predicate_zero_fills():
    rng = np.random.default_rng(2)
    source = rng.integers(1, 256, 4 * 16, dtype=np.uint8)
    sizes = np.array([16] * 4 + [0] * 28)                 # %p1 (size == 0) is ignore-src
    got = run(16, "ignore-src", sizes, source)
    assert np.array_equal(checked(got[:4], 16), checked(source.reshape(4, 16), 16))
    assert not checked(got[4:], 16).any()


def test_a_partial_read_past_the_allocation_faults_at_the_global_address():
    source = np.arange(1, 16 * 2 + 1, dtype=np.uint8)      # threads 0 and 1 have 16 bytes each
    sizes = np.array([16, 16, 4] + [0] * 29)              # thread 2 reads 4 bytes past the end
    with pytest.raises(MemoryFault) as caught:
        run(16, "src-size", sizes, source)
    message = str(caught.value)
    assert "global load" in message and "0x7f" in message
    assert "past the end" in message and "shared offset" not in message
    assert "thread: (2, 0, 0)" in message
