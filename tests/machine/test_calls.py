"""Non-inlined calls: recursion where every activation has its own local frame."""

import numpy as np
import pytest

import warpsim as cp

from ptx_kernels import HEADER

pytestmark = pytest.mark.nvrtc

SOURCE = r"""
__device__ __noinline__ int walk(const int* x, int depth, int seed) {
    int buf[8];                                   // local memory, one per activation
    for (int k = 0; k < 8; ++k) buf[k] = seed * (k + 1) + depth;
    int r = 0;
    if (depth > 0) r = walk(x, depth - 1, seed + 1);
    int j = x[depth % 4] & 7;                     // read after the recursive call returns
    return r + buf[j] * (depth + 1);
}
extern "C" __global__ void k(const int* x, int* out) {
    int t = threadIdx.x;
    out[t] = walk(x, t % 6, t);
}
"""


def walk(x, depth, seed):
    buf = [seed * (k + 1) + depth for k in range(8)]
    r = walk(x, depth - 1, seed + 1) if depth > 0 else 0
    return r + buf[x[depth % 4] & 7] * (depth + 1)


def test_recursive_activations_keep_their_own_local_arrays():
    x = np.random.default_rng(7).integers(0, 100, 4).astype(np.int32)
    out = cp.full(64, -1, dtype=cp.int32)
    module = cp.RawModule(code=SOURCE)
    assert "__local_depot" in module.ptx and "call" in module.ptx
    module.get_function("k")((1,), (64,), (cp.asarray(x), out))
    assert out.get().tolist() == [walk(x, t % 6, t) for t in range(64)]


FUNCTION_TABLE = HEADER + r"""
.func (.param .b32 r) twice(.param .b32 x) { .reg .b32 %a; ld.param.b32 %a, [x]; add.s32 %a, %a, %a; st.param.b32 [r], %a; ret; }
.func (.param .b32 r) square(.param .b32 x) { .reg .b32 %a; ld.param.b32 %a, [x]; mul.lo.s32 %a, %a, %a; st.param.b32 [r], %a; ret; }
.global .align 8 .u64 table[3] = {0, twice, square};
.visible .entry k(.param .u64 out) {
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    ld.global.u64 %rd2, [table+8];
    ld.global.u64 %rd3, [table+16];
    mov.u64 %rd4, twice;
    mov.u64 %rd5, square;
    st.global.u64 [%rd1], %rd2;
    st.global.u64 [%rd1+8], %rd3;
    st.global.u64 [%rd1+16], %rd4;
    st.global.u64 [%rd1+24], %rd5;
    ret;
}
"""


def test_a_global_initialized_with_functions_holds_their_addresses():
    """A vtable or a table of function pointers: its words are the functions' addresses, as `mov` of
    the function's name gives them."""
    out = cp.zeros(4, dtype=np.uint64)
    cp.RawModule(ptx=FUNCTION_TABLE).get_function("k")((1,), (1,), (out,))
    table_twice, table_square, moved_twice, moved_square = (int(v) for v in out.get())
    assert table_twice == moved_twice and table_square == moved_square and table_twice != table_square


VIRTUAL = r"""
struct Shape { __device__ virtual float area(float s) const = 0; __device__ virtual int sides() const { return 0; } };
struct Square : Shape { __device__ float area(float s) const override { return s * s; }
                        __device__ int sides() const override { return 4; } };
struct Triangle : Shape { __device__ float area(float s) const override { return 0.5f * s * s; }
                          __device__ int sides() const override { return 3; } };
struct Circle : Shape { __device__ float area(float s) const override { return 3.0f * s * s; } };

extern "C" __global__ void areas(const float* size, const int* kind, float* area, int* sides) {
    int t = threadIdx.x;
    Square sq; Triangle tr; Circle ci;
    const Shape* shapes[3] = {&sq, &tr, &ci};
    const Shape* s = shapes[kind[t]];            // each lane its own object: the calls diverge
    area[t] = s->area(size[t]);
    sides[t] = s->sides();
}
"""


def test_virtual_calls_reach_each_lanes_function():
    rng = np.random.default_rng(12)
    size = rng.random(64, dtype=np.float32) * 4
    kind = rng.integers(0, 3, 64).astype(np.int32)
    area, sides = cp.zeros(64, cp.float32), cp.zeros(64, cp.int32)
    cp.RawModule(code=VIRTUAL, options=("-rdc=true",)).get_function("areas")(
        (1,), (64,), (cp.asarray(size), cp.asarray(kind), area, sides))
    square, half = size * size, np.float32(0.5) * size * size
    expected = np.where(kind == 0, square, np.where(kind == 1, half, np.float32(3) * size * size))
    np.testing.assert_allclose(area.get(), expected, rtol=1e-6)
    np.testing.assert_array_equal(sides.get(), np.array([4, 3, 0])[kind])


def test_a_pointer_to_no_function_stops_the_launch():
    from warpsim.errors import IllegalInstruction
    call = ("    add.u64 %rd2, %rd2, 1000;\n"
            "    { .param .b32 a; .param .b32 r; st.param.b32 [a], 3;\n"
            "      call (r), %rd2, (a), proto; }\n")
    ptx = FUNCTION_TABLE.replace("    ld.global.u64 %rd3, [table+16];\n", "    ld.global.u64 %rd3, [table+16];\n" + call)
    ptx = ptx.replace("    .reg .b64 %rd<6>;", "    .reg .b64 %rd<6>;\n    proto: .callprototype (.param .b32 _) _ (.param .b32 _);")
    with pytest.raises(IllegalInstruction, match="no function of this module"):
        cp.RawModule(ptx=ptx).get_function("k")((1,), (1,), (cp.zeros(4, dtype=np.uint64),))
