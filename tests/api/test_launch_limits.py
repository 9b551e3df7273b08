"""Limits the GPU enforces at launch, enforced with CUDA's error names."""

import numpy as np
import pytest

import warpsim as cp
from warpsim.errors import LaunchError

HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"

DYNAMIC_SHARED = HEADER + """
.extern .shared .align 16 .b8 smem[];
.visible .entry k(.param .u64 out, .param .u32 at)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [at];
    mov.u32 %r2, smem;
    add.u32 %r2, %r2, %r1;
    st.shared.u32 [%r2], 42;
    ld.shared.u32 %r3, [%r2];
    st.global.u32 [%rd1], %r3;
    ret;
}
"""


def test_dynamic_shared_memory_above_48_kb_needs_the_opt_in():
    kernel = cp.RawModule(ptx=DYNAMIC_SHARED).get_function("k")
    out = cp.zeros(1, dtype=cp.uint32)
    size = 64 * 1024
    with pytest.raises(LaunchError, match="CUDA_ERROR_INVALID_VALUE.*max_dynamic_shared_size_bytes"):
        kernel((1,), (1,), (out, np.uint32(size - 4)), shared_mem=size)
    assert kernel.max_dynamic_shared_size_bytes == 48 * 1024
    kernel.max_dynamic_shared_size_bytes = size
    kernel((1,), (1,), (out, np.uint32(size - 4)), shared_mem=size)
    assert out.get()[0] == 42


def test_the_opt_in_is_bounded_by_the_block_maximum():
    kernel = cp.RawModule(ptx=DYNAMIC_SHARED).get_function("k")
    with pytest.raises(LaunchError, match="CUDA_ERROR_INVALID_VALUE"):
        kernel.max_dynamic_shared_size_bytes = 228 * 1024


def test_negative_shared_memory_is_an_invalid_value():
    module = cp.RawModule(ptx=DYNAMIC_SHARED)
    out = cp.zeros(1, dtype=cp.uint32)
    with pytest.raises(LaunchError, match="CUDA_ERROR_INVALID_VALUE.*negative"):
        module.get_function("k")((1,), (1,), (out, np.uint32(0)), shared_mem=-16)
    loaded = module._loaded_module()[1]
    with pytest.raises(LaunchError, match="CUDA_ERROR_INVALID_VALUE"):
        loaded.launch("k", (1,), (1,), bytes(16), shared_mem=-16)


def _bounded(directive: str) -> str:
    return HEADER + f""".visible .entry k(.param .u64 out) {directive}
{{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    st.global.u32 [%rd1], %r1;
    ret;
}}
"""


def test_more_threads_than_maxntid_is_an_invalid_value():
    kernel = cp.RawModule(ptx=_bounded(".maxntid 64, 1, 1")).get_function("k")
    out = cp.zeros(1, dtype=cp.uint32)
    kernel((1,), (64,), (out,))
    with pytest.raises(LaunchError, match="CUDA_ERROR_INVALID_VALUE.*maxntid"):   # the H200's driver
        kernel((1,), (65,), (out,))


def test_reqntid_demands_that_exact_block():
    kernel = cp.RawModule(ptx=_bounded(".reqntid 32, 2")).get_function("k")
    out = cp.zeros(1, dtype=cp.uint32)
    kernel((1,), (32, 2), (out,))
    with pytest.raises(LaunchError, match="CUDA_ERROR_INVALID_VALUE.*reqntid"):
        kernel((1,), (64,), (out,))


@pytest.mark.nvrtc
def test_launch_bounds_in_cuda_source():
    kernel = cp.RawKernel(r'''extern "C" __global__ void __launch_bounds__(128) k(int* out) {
        out[threadIdx.x] = threadIdx.x; }''', "k")
    out = cp.zeros(256, dtype=cp.int32)
    kernel((1,), (128,), (out,))
    with pytest.raises(LaunchError, match="CUDA_ERROR_INVALID_VALUE.*__launch_bounds__"):
        kernel((1,), (256,), (out,))


def _register_hungry(live: int) -> str:
    """`live` volatile loads all alive at once (a mul-add chain consumes them last first)."""
    loads = "\n".join(f"    ld.volatile.global.u32 %r{k}, [%rd1+{4 * k}];" for k in range(live))
    chain = "\n".join(f"    mad.lo.s32 %a, %a, %r{k}, {k};" for k in reversed(range(live - 1)))
    return HEADER + f""".visible .entry k(.param .u64 data)
{{
    .reg .b32 %r<{live}>;
    .reg .b32 %a;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [data];
{loads}
    mov.u32 %a, %r{live - 1};
{chain}
    st.global.u32 [%rd1], %a;
    ret;
}}
"""


@pytest.mark.sass
def test_a_block_the_register_file_cannot_hold_is_out_of_resources():
    kernel = cp.RawModule(ptx=_register_hungry(200)).get_function("k")
    if kernel._registers().is_estimate:
        pytest.skip("no ptxas to count registers")
    assert kernel.num_regs > 128
    data = cp.ones(256, dtype=cp.uint32)
    kernel((1,), (256,), (data,))
    with pytest.raises(LaunchError, match="CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES.*registers"):
        kernel((1,), (1024,), (data,))
