"""NVRTC frontend: CUDA C++ -> PTX from the PyPI wheels, with a disk cache."""

import os
import stat

import pytest

from warpsim.errors import CompileError
from warpsim.frontends.nvrtc import (CompiledCuda, compile_cuda, include_dirs, normalize_options,
                                     nvrtc_version)

pytestmark = pytest.mark.nvrtc

SAXPY = r"""
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Every test gets its own empty cache; PTX goes in its ptx/ folder."""
    monkeypatch.setenv("WARPSIM_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "ptx"


def test_small_kernel_gives_ptx_with_line_info():
    result = compile_cuda(SAXPY)
    assert isinstance(result, CompiledCuda)
    assert ".visible .entry saxpy(" in result.ptx
    assert ".loc" in result.ptx
    assert "-lineinfo" in result.options
    assert "-std=c++17" in result.options
    assert result.arch == "sm_90"
    assert ".target sm_90" in result.ptx
    assert not result.cache_hit


def test_version_is_a_pair_of_ints():
    major, minor = nvrtc_version()
    assert major >= 12 and minor >= 0


def test_fp16_header_compiles():
    source = r"""
    #include <cuda_fp16.h>
    extern "C" __global__ void twice(__half* a) {
        a[threadIdx.x] = __hadd(a[threadIdx.x], a[threadIdx.x]);
    }"""
    assert ".visible .entry twice(" in compile_cuda(source).ptx


def test_cub_block_reduce_compiles():
    source = r"""
    #include <cub/block/block_reduce.cuh>
    extern "C" __global__ void block_sum(const int* in, int* out) {
        using Reduce = cub::BlockReduce<int, 128>;
        __shared__ typename Reduce::TempStorage storage;
        int total = Reduce(storage).Sum(in[threadIdx.x]);
        if (threadIdx.x == 0) *out = total;
    }"""
    assert ".visible .entry block_sum(" in compile_cuda(source).ptx


def test_include_dirs_found():
    names = [os.listdir(directory) for directory in include_dirs()]
    assert any("cuda_fp16.h" in listing for listing in names)
    assert any("cub" in listing for listing in names)


def test_name_expressions_give_mangled_names():
    source = r"""
    template <typename T> __global__ void scale(T* x, T factor) { x[threadIdx.x] *= factor; }
    """
    result = compile_cuda(source, name_expressions=("scale<float>", "scale<double>"))
    assert result.lowered_names["scale<float>"] == "_Z5scaleIfEvPT_S0_"
    assert result.lowered_names["scale<double>"] == "_Z5scaleIdEvPT_S0_"
    for mangled in result.lowered_names.values():
        assert f".entry {mangled}(" in result.ptx


def test_syntax_error_raises_compile_error_with_log():
    source = "extern \"C\" __global__ void broken() {\n    int x = ;\n}\n"
    with pytest.raises(CompileError) as info:
        compile_cuda(source, name="broken.cu")
    message = str(info.value)
    assert message.startswith("NVRTC compilation of broken.cu failed")
    assert "broken.cu(2)" in message
    assert "expected an expression" in message
    assert "expected an expression" in info.value.log


def test_second_compile_is_served_from_cache(private_cache):
    first = compile_cuda(SAXPY, name_expressions=("saxpy",))
    files = list(private_cache.glob("*.json"))
    assert len(files) == 1
    second = compile_cuda(SAXPY, name_expressions=("saxpy",))
    assert not first.cache_hit and second.cache_hit
    assert second.ptx == first.ptx
    assert second.lowered_names == first.lowered_names == {"saxpy": "saxpy"}
    assert not list(private_cache.glob(".tmp-*"))


def test_different_options_miss_the_cache():
    compile_cuda(SAXPY)
    assert not compile_cuda(SAXPY, options=("-DUNUSED=1",)).cache_hit


def test_corrupt_cache_entry_is_recompiled(private_cache):
    compile_cuda(SAXPY)
    (entry,) = private_cache.glob("*.json")
    entry.write_text("{not json")
    result = compile_cuda(SAXPY)
    assert not result.cache_hit and ".entry saxpy" in result.ptx


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root ignores permissions")
def test_read_only_cache_dir_does_not_break_compilation(tmp_path, monkeypatch):
    read_only = tmp_path / "ro"
    read_only.mkdir()
    read_only.chmod(stat.S_IRUSR | stat.S_IXUSR)
    monkeypatch.setenv("WARPSIM_CACHE_DIR", str(read_only / "sub"))
    try:
        assert ".entry saxpy" in compile_cuda(SAXPY).ptx
    finally:
        read_only.chmod(stat.S_IRWXU)


def test_unwritable_cache_path_does_not_break_compilation(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("WARPSIM_CACHE_DIR", str(blocker / "cache"))
    assert ".entry saxpy" in compile_cuda(SAXPY).ptx


def test_define_macro():
    source = r"""
    extern "C" __global__ void fill(int* out) { out[threadIdx.x] = VALUE; }
    """
    with pytest.raises(CompileError, match="VALUE"):
        compile_cuda(source)
    ptx = compile_cuda(source, options=("-DVALUE=12345",)).ptx
    assert "12345" in ptx


@pytest.mark.parametrize("option", ["-arch=sm_80", "--gpu-architecture=sm_80", "-arch=compute_80",
                                    b"-arch=sm_80"])
def test_arch_option_respected(option):
    result = compile_cuda(SAXPY, options=(option,))
    assert ".target sm_80" in result.ptx
    assert result.arch == "sm_80"
    assert "-arch=compute_80" in result.options


def test_options_normalized():
    options, arch = normalize_options([b"-std=c++20", "-arch", "sm_75", "-lineinfo"])
    assert arch == "sm_75"
    assert options.count("-lineinfo") == 1
    assert "-std=c++20" in options and "-std=c++17" not in options
    assert "-arch=compute_75" in options


def test_bad_option_types_and_arch_rejected():
    with pytest.raises(TypeError, match="str or bytes"):
        normalize_options([3])
    with pytest.raises(ValueError, match="architecture"):
        normalize_options(["-arch=volta"])


def test_an_edited_header_is_compiled_again(private_cache, tmp_path):
    """The cache key covers the headers of -I directories: an edit is not served stale PTX."""
    include = tmp_path / "include"
    include.mkdir()
    header = include / "scale.h"
    source = '#include "scale.h"\nextern "C" __global__ void k(float* x) { x[0] *= SCALE; }\n'
    header.write_text("#define SCALE 3.0f\n")
    first = compile_cuda(source, (f"-I{include}",))
    header.write_text("#define SCALE 5.0f\n")
    second = compile_cuda(source, (f"-I{include}",))
    assert not second.cache_hit
    assert "0f40400000" in first.ptx and "0f40A00000" in second.ptx      # 3.0f, then 5.0f
    assert compile_cuda(source, (f"-I{include}",)).cache_hit
