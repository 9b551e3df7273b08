"""Vector loads and stores (.v2/.v4 of 32- and 64-bit elements) move each lane's whole vector at once
(access._wide_view): every element lands where the element-at-a-time form put it, through a
permutation, into shared memory and back, with lanes that store to one address (the last in
lane order keeps it, element by element as before)."""

import numpy as np
import pytest

import warpsim as cp

from ptx_kernels import HEADER

PERMUTE = HEADER + r"""
.visible .entry permute(.param .u64 src, .param .u64 dst, .param .u64 where, .param .u64 out64)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<16>;
    .shared .align 16 .b8 tile[2048];
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [dst];
    ld.param.u64 %rd3, [where];
    ld.param.u64 %rd12, [out64];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd3, %rd4;
    ld.global.u32 %r2, [%rd5];                   // this lane's source vector
    mul.wide.u32 %rd6, %r2, 16;
    add.s64 %rd7, %rd1, %rd6;
    ld.global.v4.u32 {%r3, %r4, %r5, %r6}, [%rd7];
    mov.u32 %r7, tile;
    shl.b32 %r8, %r1, 3;
    add.u32 %r9, %r7, %r8;
    st.shared.v2.u32 [%r9], {%r6, %r3};          // through shared memory, two elements swapped
    bar.sync 0;
    ld.shared.v2.u32 {%r10, %r11}, [%r9];
    mul.wide.u32 %rd8, %r1, 16;
    add.s64 %rd9, %rd2, %rd8;
    st.global.v4.u32 [%rd9], {%r10, %r4, %r5, %r11};
    shr.u32 %r2, %r1, 2;                         // lanes 4 g .. 4 g + 3 store to one place
    mul.wide.u32 %rd10, %r2, 16;
    add.s64 %rd11, %rd12, %rd10;
    cvt.u64.u32 %rd13, %r1;
    cvt.u64.u32 %rd14, %r4;
    st.global.v2.u64 [%rd11], {%rd13, %rd14};
    ret;
}
"""


def test_vector_loads_and_stores_move_every_element_to_its_place():
    rng = np.random.default_rng(7)
    threads = 256
    src = rng.integers(0, 1 << 32, (threads, 4), dtype=np.uint64).astype(np.uint32)
    where = rng.permutation(threads).astype(np.uint32)
    dst = cp.zeros((threads, 4), dtype=cp.uint32)
    out64 = cp.full((threads // 4, 2), 7, dtype=cp.uint64)
    kernel = cp.RawModule(ptx=PERMUTE).get_function("permute")
    kernel((1,), (threads,), (cp.asarray(src), dst, cp.asarray(where), out64))
    picked = src[where]
    want = np.stack([picked[:, 3], picked[:, 1], picked[:, 2], picked[:, 0]], axis=1)
    np.testing.assert_array_equal(dst.get(), want)
    last = np.arange(3, threads, 4)                  # the last lane of each four keeps both elements
    np.testing.assert_array_equal(out64.get(), np.stack([last, picked[last, 1]], axis=1).astype(np.uint64))


@pytest.mark.parametrize("nbytes", [1, 2, 4, 8, 16, 32, 12])
def test_initialized_flags_of_a_store_cover_its_bytes_only(nbytes):
    """initcheck's flags after a store of nbytes a lane (a .v4.b32 store: 16; .v4.b64: 32)."""
    from warpsim.machine.access import mark_initialized
    rng = np.random.default_rng(nbytes)
    slots = 4096
    offsets = (rng.choice(slots, 300, replace=False) * nbytes).astype(np.int64)
    flags = np.zeros(slots * nbytes + 64, bool)
    mark_initialized(flags, offsets, nbytes)
    expected = np.zeros_like(flags)
    expected[offsets[:, None] + np.arange(nbytes)] = True
    np.testing.assert_array_equal(flags, expected)
