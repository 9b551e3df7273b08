"""Choosing the CUDA toolchain (`cuda` setting): which NVRTC, headers, ptxas and nvcc compile.

The selection rules, the errors and the installer's unpacking run without a download. The
tests that compile with CUDA 13.0 need it in the tool cache (`warpsim toolchain --install
13.0`) and are skipped where it is not; nothing here downloads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile

import pytest

import warpsim
from warpsim import toolchains
from warpsim.cli import UsageError, take_global_options
from warpsim.errors import CompileError
from warpsim.frontends.nvrtc import compile_cuda, include_dirs, nvrtc_library_path, nvrtc_version
from warpsim.sass import sass_for_ptx
from warpsim.sass.toolchain import ptxas_path, requested_ptxas_version, tool_version

pytestmark = [pytest.mark.nvrtc, pytest.mark.sass]

KERNEL = r"""
extern "C" __global__ void scale(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}
"""

# validation/sass_counters' sc_shared_vec: NVRTC 13.0 and 13.5 give it different PTX.
SHARED_VEC = r"""
extern "C" __global__ void sc_shared_vec(const float* x, float* out) {
    __shared__ float s[1024];
    int t = threadIdx.x;
    const float* xb = x + blockIdx.x * 1024;
#pragma unroll
    for (int k = 0; k < 4; ++k) s[t + 256 * k] = xb[t + 256 * k];
    __syncthreads();
    float4 a = reinterpret_cast<const float4*>(s)[t];
    float b0 = s[2 * t], b1 = s[2 * t + 1];
    out[blockIdx.x * 256 + t] = (a.x + a.y) + (a.z + a.w) + b0 * b1;
}
"""


def installed_130():
    return any(toolchains.version_matches(v, "13.0") for v in toolchains.installed_toolchains())


needs_130 = pytest.mark.skipif(not installed_130(),
                               reason="CUDA 13.0 not in the tool cache (warpsim toolchain --install 13.0)")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSIM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("WARPSIM_CUDA", raising=False)
    monkeypatch.delenv("WARPSIM_PTXAS_VERSION", raising=False)
    monkeypatch.delenv("WARPSIM_NVRTC_LIBRARY", raising=False)


def installed_release() -> str:
    """'13.5' for the installed wheels' CUDA."""
    return ".".join(tool_version(ptxas_path()).split(".")[:2])


# --- the setting --------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", ["13", "thirteen", "13.0.x", "v13.0"])
def test_a_malformed_version_is_refused_where_it_is_given(bad):
    with pytest.raises(ValueError, match="CUDA version such as '13.0'"):
        with warpsim.settings(cuda=bad):
            pass


def test_the_environment_variable_is_the_setting(monkeypatch):
    assert toolchains.requested_cuda() is None
    monkeypatch.setenv("WARPSIM_CUDA", "12.8")
    assert toolchains.requested_cuda() == "12.8"
    with warpsim.settings(cuda="13.0"):
        assert toolchains.requested_cuda() == "13.0"
    monkeypatch.setenv("WARPSIM_CUDA", "bad")
    with pytest.raises(ValueError, match="bad"):
        toolchains.requested_cuda()


def test_ptxas_version_wins_over_cuda_for_ptxas(monkeypatch):
    with warpsim.settings(cuda="13.0"):
        assert requested_ptxas_version(None) == "13.0"
        assert requested_ptxas_version("12.8") == "12.8"
        monkeypatch.setenv("WARPSIM_PTXAS_VERSION", "12.9")
        assert requested_ptxas_version(None) == "12.9"
    assert requested_ptxas_version(None) == "12.9"


def test_a_toolchain_not_installed_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSIM_TOOLS_DIR", str(tmp_path / "tools"))
    with warpsim.settings(cuda="9.9"):
        with pytest.raises(CompileError, match=r"CUDA toolchain 9\.9 is not installed.*"
                                               r"warpsim toolchain --install 9\.9"):
            compile_cuda(KERNEL)
        with pytest.raises(CompileError, match=r"warpsim toolchain --install 9\.9"):
            sass_for_ptx(".version 8.0\n.target sm_90\n")
    with pytest.raises(CompileError, match=r"warpsim sass --install-ptxas 9\.9"):
        ptxas_path("9.9")


def test_a_lone_ptxas_in_the_tool_cache_is_not_a_toolchain(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSIM_TOOLS_DIR", str(tmp_path))
    (tmp_path / "cuda-9.9" / "bin").mkdir(parents=True)
    (tmp_path / "cuda-9.9" / "bin" / "ptxas").write_bytes(b"")
    (tmp_path / "cuda-9.8").mkdir()
    (tmp_path / "cuda-9.8" / "toolchain.json").write_text(json.dumps({"version": "9.8.17"}))
    assert toolchains.installed_toolchains() == {"9.8.17": tmp_path / "cuda-9.8"}
    assert toolchains.find_toolchain("9.8") == tmp_path / "cuda-9.8"
    assert toolchains.find_toolchain("9.8.17") == tmp_path / "cuda-9.8"
    with pytest.raises(CompileError, match=r"have: 9\.8\.17"):
        toolchains.find_toolchain("9.9")


def test_the_installed_release_needs_no_tool_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSIM_TOOLS_DIR", str(tmp_path / "empty"))
    release = installed_release()
    with warpsim.settings(cuda=release):
        assert nvrtc_version() == tuple(int(x) for x in release.split("."))
        assert f"release {release}," in compile_cuda(KERNEL).ptx
        assert tool_version(ptxas_path()).startswith(release + ".")
    assert nvrtc_library_path() == nvrtc_library_path(None)


# --- the installer's unpacking (a wheel made here, as PyPI lays them out) -----------------------------

def make_wheel(path, files: dict) -> str:
    with zipfile.ZipFile(path, "w") as archive:
        for name, (data, mode) in files.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            archive.writestr(info, data)
    return str(path)


def test_unpacking_strips_the_wheel_folder_and_keeps_executables(tmp_path):
    wheel = make_wheel(tmp_path / "nvidia_cuda_nvrtc-13.0.88-py3-none-x.whl", {
        "nvidia/cu13/lib/libnvrtc.so.13": (b"lib", 0o644),
        "nvidia/cu13/lib/libnvrtc.alt.so.13": (b"alt", 0o644),
        "nvidia/cu13/bin/ptxas": (b"exe", 0o644),            # no mode in the wheel: bin/ is executable
        "nvidia/cu13/nvvm/bin/cicc": (b"exe", 0o755),
        "nvidia/cu13/.metadata/provenance.txt": (b"x", 0o644),
        "nvidia_cuda_nvrtc-13.0.88.dist-info/METADATA": (b"x", 0o644),
    })
    written = toolchains.unpack_wheel(wheel, tmp_path / "out")
    assert sorted(written) == ["bin/ptxas", "lib/libnvrtc.so.13", "nvvm/bin/cicc"]
    assert (tmp_path / "out" / "lib" / "libnvrtc.so.13").read_bytes() == b"lib"
    assert os.access(tmp_path / "out" / "bin" / "ptxas", os.X_OK)
    assert os.access(tmp_path / "out" / "nvvm" / "bin" / "cicc", os.X_OK)
    assert not os.access(tmp_path / "out" / "lib" / "libnvrtc.so.13", os.X_OK)


def test_cuda_12_wheels_have_their_own_names_and_layout(tmp_path):
    assert toolchains.wheel_name("nvidia-cuda-nvrtc", "12.8") == "nvidia-cuda-nvrtc-cu12"
    assert toolchains.wheel_name("nvidia-cuda-nvrtc", "13.0") == "nvidia-cuda-nvrtc"
    assert toolchains.wheel_spec("nvidia-cuda-nvcc", "12.8") == "nvidia-cuda-nvcc-cu12==12.8.*"
    assert toolchains.wheel_spec("nvidia-cuda-nvcc", "13.0.88") == "nvidia-cuda-nvcc==13.0.88"
    wheel = make_wheel(tmp_path / "w.whl", {"nvidia/cuda_nvcc/bin/ptxas": (b"exe", 0o755)})
    assert toolchains.unpack_wheel(wheel, tmp_path / "out", keep=lambda r: r == "bin/ptxas") == ["bin/ptxas"]


# --- what made the code --------------------------------------------------------------------------

def test_the_ptx_header_names_its_compiler():
    ptx = compile_cuda(KERNEL).ptx
    release = installed_release()
    assert toolchains.ptx_producer(ptx).startswith(f"NVRTC/NVVM {release}.")
    assert toolchains.ptx_producer("//\n// Generated by LLVM NVPTX Back-End\n//\n.version 8.4") == "LLVM NVPTX"
    assert toolchains.ptx_producer(".version 8.0\n.target sm_90") == ""
    assert toolchains.describe_toolchain(ptx, "13.0.88").endswith(" -> ptxas 13.0.88")


# --- the command line ----------------------------------------------------------------------------

def test_cuda_on_the_command_line_becomes_the_setting(monkeypatch):
    assert take_global_options(["run", "--cuda", "13.0", "python", "x.py"]) == ["run", "python", "x.py"]
    assert os.environ["WARPSIM_CUDA"] == "13.0"
    assert take_global_options(["sass", "--cuda=12.8", "k.cu"]) == ["sass", "k.cu"]
    assert os.environ["WARPSIM_CUDA"] == "12.8"
    with pytest.raises(UsageError, match="--cuda needs a CUDA version"):
        take_global_options(["run", "--cuda", "latest", "python", "x.py"])


def test_nvccs_own_cuda_flag_passes_through(monkeypatch):
    assert take_global_options(["nvcc", "--cuda", "app.cu"]) == ["nvcc", "--cuda", "app.cu"]
    assert "WARPSIM_CUDA" not in os.environ


# --- with CUDA 13.0 in the tool cache ---------------------------------------------------------------

@needs_130
def test_cuda_130_compiles_with_nvrtc_headers_and_ptxas_of_130():
    with warpsim.settings(cuda="13.0"):
        result = compile_cuda(KERNEL)
        assert nvrtc_version() == (13, 0)
        assert "release 13.0, V13.0." in result.ptx and ".version 9.0" in result.ptx
        assert all(str(toolchains.find_toolchain("13.0")) in d for d in include_dirs())
        module = sass_for_ptx(result.ptx)
        assert module.ptxas_version.startswith("13.0.") and module.notes == []
    default = compile_cuda(KERNEL)
    assert "release 13.0," not in default.ptx and not default.cache_hit     # another PTX cache entry


@needs_130
def test_a_launch_under_cuda_130_counts_the_sass_of_130_and_says_so():
    """NVRTC 13.0 addresses this kernel's shared memory with 64-bit registers, and ptxas then
    keeps s[2t] and s[2t+1] as two LDS where NVRTC 13.5's PTX gives one LDS.64: three shared
    loads per warp, as CuPy on a CUDA 13.0 machine compiles it."""
    import numpy as np
    rng = np.random.default_rng(5)
    x = rng.standard_normal(2 * 1024).astype(np.float32)
    s = x.reshape(2, 1024)
    t = np.arange(256)
    a = s[:, 4 * t] + s[:, 4 * t + 1] + (s[:, 4 * t + 2] + s[:, 4 * t + 3])
    expected = (a + s[:, 2 * t] * s[:, 2 * t + 1]).ravel()
    with warpsim.settings(cuda="13.0"):
        module = warpsim.RawModule(code=SHARED_VEC, options=("-arch=sm_90",))
        out = warpsim.zeros(512, dtype=np.float32)
        with warpsim.profile(level="sass") as prof:
            module.get_function("sc_shared_vec")((2,), (256,), (warpsim.asarray(x), out))
    np.testing.assert_allclose(out.get(), expected, rtol=1e-5)
    (launch,) = prof.launches
    assert launch.level == "sass"
    assert launch.toolchain.startswith("NVRTC/NVVM 13.0.") and launch.toolchain.endswith("ptxas 13.0.88")
    assert launch.metrics["smsp__inst_executed_op_shared_ld.sum"] == 3 * 16
    assert str(toolchains.find_toolchain("13.0")) in launch.registers.detail     # registers of ptxas 13.0


@needs_130
def test_two_nvrtc_libraries_in_one_process_in_either_order():
    """The installed NVRTC loaded globally (as a library that loads it for itself would) and
    13.0's by path: each compiles with its own version, whichever came first."""
    script = r"""
import ctypes, sys, warpsim
from warpsim.frontends.nvrtc import compile_cuda, nvrtc_library_path
src = 'extern "C" __global__ void k(float* x) { x[threadIdx.x] += 1.0f; }'
def release(cuda):
    with warpsim.settings(cuda=cuda):
        return compile_cuda(src, name=f"k{cuda}.cu").ptx.split("release ")[1].split(",")[0]
if sys.argv[1] == "global-first":
    ctypes.CDLL(nvrtc_library_path(None), mode=ctypes.RTLD_GLOBAL)
    print(release(""), release("13.0"), release(""))
else:
    print(release("13.0"), release(""), release("13.0"))
"""
    installed = installed_release()
    for order, expected in (("global-first", f"{installed} 13.0 {installed}"),
                            ("130-first", f"13.0 {installed} 13.0")):
        done = subprocess.run([sys.executable, "-c", script, order], capture_output=True, text=True,
                              timeout=300, env={**os.environ})
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == expected.split(), order


@needs_130
def test_registers_from_an_older_ptxas_of_a_newer_ptx_isa(monkeypatch):
    """ptxas 13.0 refuses `.version 9.5` (NVRTC 13.5's): the register count lowers the line and
    asks it, as the SASS listing does, instead of falling back to an estimate."""
    from warpsim.metrics.registers import registers_per_thread
    from warpsim.ptx.parser import parse_ptx
    ptx = compile_cuda(SHARED_VEC, ("-arch=sm_90",)).ptx
    ptx = ptx.replace(ptx.split(".version ")[1].split("\n")[0], "9.5", 1)
    monkeypatch.setenv("WARPSIM_PTXAS_VERSION", "13.0")
    count = registers_per_thread(parse_ptx(ptx), "sc_shared_vec")
    assert count.source == "ptxas" and str(toolchains.find_toolchain("13.0")) in count.detail
    from warpsim.timing.registers import cubin_registers
    assert count.registers == cubin_registers(sass_for_ptx(ptx).cubin, "sc_shared_vec")


@needs_130
def test_one_loaded_module_has_the_sass_of_each_ptxas_asked_for():
    from warpsim.machine.device import Device
    from warpsim.sass import sass_of
    loaded = Device().load_module(compile_cuda(SHARED_VEC, ("-arch=sm_90",)).ptx, "vec.ptx")
    with warpsim.settings(cuda="13.0"):
        old = sass_of(loaded)
    new = sass_of(loaded)
    assert old.ptxas_version.startswith("13.0.") and not new.ptxas_version.startswith("13.0.")
    assert sass_of(loaded) is new


@pytest.mark.slow
@pytest.mark.programs
@needs_130
def test_warpsim_nvcc_builds_with_the_nvcc_of_130(tmp_path):
    """`warpsim --cuda 13.0 nvcc` builds with CUDA 13.0's nvcc, cicc and headers, and the program
    runs on warpsim (its embedded PTX says release 13.0)."""
    import shutil
    if not shutil.which("g++"):
        pytest.skip("nvcc compiles host code with g++")
    source = tmp_path / "app.cu"
    source.write_text(r"""
#include <cstdio>
__global__ void twice(float* x) { x[threadIdx.x] *= 2.0f; }
int main() {
    float h[4] = {1, 2, 3, 4}, *d;
    cudaMalloc(&d, sizeof h);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    twice<<<1, 4>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%g %g %g %g\n", h[0], h[1], h[2], h[3]);
    return 0;
}
""")
    app = tmp_path / "app"
    warpsim_cli = [sys.executable, "-m", "warpsim"]
    subprocess.run(warpsim_cli + ["--cuda", "13.0", "nvcc", str(source), "-o", str(app)], check=True, timeout=600)
    assert b"release 13.0, V13.0." in app.read_bytes()
    done = subprocess.run(warpsim_cli + ["run", str(app)], capture_output=True, text=True, timeout=600)
    assert done.stdout.split() == ["2", "4", "6", "8"], done.stderr


def test_the_toolchain_command_names_what_compiles(capsys, tmp_path, monkeypatch):
    from warpsim.cli.toolchain import main
    assert main([]) == 0
    shown = capsys.readouterr().out
    release = installed_release()
    assert "CUDA toolchain: the installed wheels" in shown
    assert f"NVRTC     {release} " in shown and f"ptxas     {release}." in shown
    monkeypatch.setenv("WARPSIM_TOOLS_DIR", str(tmp_path))
    monkeypatch.setenv("WARPSIM_CUDA", "9.9")
    assert main([]) == 1
    assert "warpsim toolchain --install 9.9" in capsys.readouterr().err


@pytest.mark.slow
def test_install_toolchain_from_pypi(tmp_path, monkeypatch):
    """Downloads CUDA 13.0's wheels (about 190 MB) into an empty tool cache."""
    monkeypatch.setenv("WARPSIM_TOOLS_DIR", str(tmp_path))
    folder = toolchains.install_toolchain("13.0")
    info = toolchains.toolchain_info(folder)
    assert info["version"].startswith("13.0.") and "nvidia-cuda-nvdisasm" in info["missing"]
    assert toolchains.install_toolchain("13.0") == folder          # there already: nothing fetched
    with warpsim.settings(cuda="13.0"):
        assert nvrtc_version() == (13, 0)
        assert tool_version(ptxas_path()).startswith("13.0.")
        assert "release 13.0," in compile_cuda(KERNEL).ptx
