"""`warpsim sass` on a .cu file and on a cubin."""

from __future__ import annotations

import pathlib

import pytest

from warpsim.cli import main as warpsim_main
from warpsim.cli.sass import main

pytestmark = [pytest.mark.sass, pytest.mark.nvrtc]

KERNELS = pathlib.Path(__file__).with_name("kernels.cu")


def test_listing_of_one_kernel_of_a_cu_file(capsys):
    assert warpsim_main(["sass", str(KERNELS), "--kernel", "early_return"]) == 0
    out = capsys.readouterr().out
    assert "// kernel early_return:" in out and "// kernel ternary" not in out
    assert "kernels.cu:" in out and "if (i >= n) return;" in out      # the source line's text
    assert "//   PTX " in out and "setp.ge.s32" in out                 # the PTX line's text
    assert "@P0 EXIT" in out and "c[0x0][0x210]" in out
    assert "[B" in out and ":S" in out                                 # control codes
    assert "NOP" not in out                                            # padding after EXIT left out


def test_listing_of_a_cubin(tmp_path, capsys, kernels_ptx):
    from warpsim.sass import cubin_for
    cubin = tmp_path / "kernels.cubin"
    cubin.write_bytes(cubin_for(kernels_ptx))
    assert main([str(cubin), "--kernel", "shfl_reduce", "--no-control"]) == 0
    out = capsys.readouterr().out
    assert "SHFL.BFLY" in out and "shfl.sync.bfly" in out and "[B" not in out


def test_every_kernel_without_kernel_option(capsys):
    assert main([str(KERNELS)]) == 0
    out = capsys.readouterr().out
    assert out.count("// kernel ") == 8


def test_missing_kernel_lists_the_kernels(capsys):
    assert main([str(KERNELS), "--kernel", "nope"]) == 1
    err = capsys.readouterr().err
    assert "no kernel 'nope'" in err and "early_return" in err


def test_counts_column(kernels_sass):
    from warpsim.sass import format_listing
    fn = kernels_sass.kernel("early_return")
    counts = {ins.offset: 100 + k for k, ins in enumerate(fn.instructions)}
    out = format_listing(kernels_sass, "early_return", counts=counts)
    first = fn.instructions[0]
    assert f"/*{first.offset:04x}*/         100" in out


def test_listing_of_a_programs_kernels(tmp_path, capsys):
    """A program built with `warpsim nvcc`: its kernels' SASS from the executable's fatbinary."""
    import shutil
    if not shutil.which("g++"):
        pytest.skip("nvcc needs g++ for host code")
    (tmp_path / "app.cu").write_text(
        '__global__ void twice(float *x) { x[threadIdx.x] *= 2.0f; }\n'
        '__global__ void shift(int *x, int s) { x[threadIdx.x] <<= s; }\n'
        'int main() { return 0; }\n')
    assert warpsim_main(["nvcc", str(tmp_path / "app.cu"), "-o", str(tmp_path / "app"), "-arch=sm_90"]) == 0
    capsys.readouterr()
    assert main([str(tmp_path / "app")]) == 0
    out = capsys.readouterr().out
    assert "// kernel _Z5twicePf" in out and "// kernel _Z5shiftPii" in out and out.count("STG.E") == 2


def test_a_binary_that_is_no_cuda_is_named(tmp_path, capsys):
    (tmp_path / "noise.bin").write_bytes(bytes(range(256)) * 4)
    assert main([str(tmp_path / "noise.bin")]) == 1
    assert "noise.bin is neither CUDA C++ nor PTX" in capsys.readouterr().err
    host = tmp_path / "host"
    host.write_bytes(pathlib.Path("/bin/true").read_bytes())
    assert main([str(host)]) == 1
    assert "holds no CUDA kernels" in capsys.readouterr().err


def test_ptx_for_sm_90a_is_assembled_for_its_target(tmp_path, capsys):
    """A .ptx file names its own target (Triton's Hopper kernels say sm_90a, which ptxas refuses to assemble
    for sm_90): without --arch, `warpsim sass` assembles it for that target."""
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "machine" / "isa"))
    from hopper_ptx import wgmma_probe
    ptx, _ = wgmma_probe(16, "f32", "f16")
    assert ".target sm_90a" in ptx
    path = tmp_path / "probe.ptx"
    path.write_text(ptx)
    assert main([str(path)]) == 0
    assert "HGMMA.64x16x16.F32" in capsys.readouterr().out
