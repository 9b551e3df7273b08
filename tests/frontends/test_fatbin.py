"""The fatbinary parser on fatbinaries PyPI's nvcc makes, in every compression mode."""

import subprocess

import pytest

from warpsim.machine.device import Device
from warpsim.frontends.fatbin import (KIND_ELF, FatbinError, best_ptx, lz4_block_decompress,
                                      parse_fatbin)

KERNEL = r"""
__constant__ float scale[4];
extern "C" __global__ void saxpy(const float *x, float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] * scale[i & 3] + y[i];
}
"""


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    path = tmp_path_factory.mktemp("fatbin") / "saxpy.cu"
    path.write_text(KERNEL)
    return path


def nvcc(*args):
    from warpsim.cli.nvcc import nvcc_path
    subprocess.run([str(nvcc_path()), *map(str, args)], check=True, capture_output=True)


@pytest.mark.sass
@pytest.mark.parametrize("mode", ["none", "speed", "size", "default"])   # none, LZ4, Zstandard, Zstandard
def test_entries_and_ptx_in_every_compression_mode(source, mode):
    fatbin = source.with_suffix(f".{mode}.fatbin")
    nvcc("-fatbin", source, "-o", fatbin, f"-compress-mode={mode}",
         "-gencode", "arch=compute_90,code=[sm_90,compute_90]", "-gencode", "arch=compute_75,code=compute_75")
    entries = parse_fatbin(fatbin.read_bytes())
    assert sorted((e.kind, e.arch) for e in entries) == [(1, 75), (1, 90), (2, 90)]
    cubin = next(e for e in entries if e.kind == KIND_ELF)
    assert cubin.payload[:4] == b"\x7fELF"
    ptx = best_ptx(entries, 90).text              # nvcc stores it without comments or indentation
    assert ".target sm_90" in ptx and ".entry saxpy(" in ptx
    loaded = Device().load_module(ptx, name="saxpy.fatbin")
    assert loaded.kernel_names == ["saxpy"] and loaded.global_address("scale")
    assert best_ptx(entries, 80).arch == 75          # the best one not above the GPU
    assert best_ptx(entries, 70).arch == 75          # none fits: the lowest


def test_lz4_block_with_literals_and_an_overlapping_match():
    # token 0x24: 2 literals, match length 4+4; 'ab' then 8 bytes copied from 2 back; then 'z'
    block = bytes([0x24]) + b"ab" + bytes([2, 0]) + bytes([0x10]) + b"z"
    assert lz4_block_decompress(block, 11) == b"ababababab" + b"z"


def test_not_a_fatbinary_is_named():
    with pytest.raises(FatbinError, match="not a fatbinary: magic 0x464c457f"):
        parse_fatbin(b"\x7fELF" + bytes(60))
