"""Separate compilation: `warpsim nvcc -rdc=true rdc_a.cu rdc_b.cu` (nvlink's fatbinary, the
units' PTX linked by warpsim) with device functions, `extern __device__` and `extern __constant__`
variables across units, a static function and printf strings both units name, and a weak
template instance both units define."""

from pathlib import Path

import numpy as np
import pytest

from warpsim.frontends.ptx_link import link_ptx

PROGRAMS = Path(__file__).parent / "programs"
pytestmark = pytest.mark.programs


def test_device_code_across_units_matches_numpy(cli, tmp_path):
    app = tmp_path / "rdc_app"
    built = cli("nvcc", "-rdc=true", PROGRAMS / "rdc_a.cu", PROGRAMS / "rdc_b.cu", "-o", app, cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    rng = np.random.default_rng(17)
    n = 250 + int(rng.integers(0, 100))
    x = (rng.standard_normal(n) * 3).astype(np.float32)
    w = rng.random(8).astype(np.float32)
    x.tofile(tmp_path / "x.bin")
    w.tofile(tmp_path / "w.bin")
    result = cli("run", app, "x.bin", "w.bin", "y.bin", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [f"unit a launched {(n + 127) // 128} blocks",
                                          f"unit b sees {n} calls", f"calls {n} {n}"]
    y = np.fromfile(tmp_path / "y.bin", dtype=np.float32)
    i = np.arange(n)
    twist_b = x * np.float32(0.25) - np.float32(1)               # rdc_b.cu's static twist
    weighed = (twist_b.astype(np.float64) * w[i % 8] + np.clip(x, -2, 2)).astype(np.float32)   # one fma
    expected = (weighed + np.float32(100)) + np.clip(x, np.float32(-0.5), np.float32(0.5))
    np.testing.assert_array_equal(y, expected)


UNIT_A = """.version 8.5
.target sm_90
.address_size 64
.extern .func (.param .b32 r) helper(.param .b32 a);
.extern .global .align 4 .u32 shared_count;
.global .align 1 .b8 $str[3] = {104, 105, 0};
.weak .func (.param .b32 r) inline_twice(.param .b32 a)
{
	ret;
}
.visible .entry k(.param .u64 p)
{
	ret;
}
	.file	1 "a.cu"
"""
UNIT_B = """.version 8.5
.target sm_90
.address_size 64
.visible .global .align 4 .u32 shared_count;
.global .align 1 .b8 $str[4] = {121, 111, 117, 0};
.weak .func (.param .b32 r) inline_twice(.param .b32 a)
{
	ret;
}
.visible .func (.param .b32 r) helper(.param .b32 a)
{
	mov.u64 %rd1, $str;
	ret;
}
	.file	1 "b.cu"
"""


def test_linking_resolves_externs_keeps_one_weak_copy_and_renames_clashing_statics():
    linked = link_ptx([UNIT_A, UNIT_B])
    assert ".extern" not in linked
    assert linked.count(".version") == 1 and linked.count(".weak .func") == 1
    assert linked.count(".visible .global .align 4 .u32 shared_count;") == 1
    assert ".global .align 1 .b8 $str[3]" in linked and ".global .align 1 .b8 $str__rdc1[4]" in linked
    assert "mov.u64 %rd1, $str__rdc1;" in linked                     # unit b's use follows its string
    # declared before first use, as ptxas wants: unit a's extern variable is the definition, its
    # extern function a prototype with the defining unit's linkage
    assert linked.index("shared_count;") < linked.index(".visible .entry k")
    assert ".visible .func (.param .b32 r) helper(.param .b32 a);" in linked
    assert '.file	1 "a.cu"' in linked and '.file	2 "b.cu"' in linked


def test_each_units_debug_labels_stay_its_own():
    """-lineinfo gives each unit a .debug_str section of $L__info_stringN labels (the names of inlined
    functions): two units' labels of one name would have ptxas refuse the module, and the kernels
    of a separately compiled program get no predicted time."""
    def with_strings(unit: str, name: str) -> str:
        return unit + (f"\t.section\t.debug_str\n\t{{\n$L__info_string0:\n.b8 {', '.join(str(ord(c)) for c in name)}, 0\n"
                       "\t}\n")
    linked = link_ptx([with_strings(UNIT_A, "twice"), with_strings(UNIT_B, "plus")])
    assert linked.count("$L__info_string0:") == 1 and linked.count("$L__info_string0__rdc1:") == 1


@pytest.mark.slow          # tests/api/test_device_launch.py covers device-side launches quickly
def test_kernels_launched_from_kernels_match_numpy(cli, tmp_path):
    app = tmp_path / "dp_app"
    built = cli("nvcc", "-rdc=true", PROGRAMS / "dynamic_parallelism.cu", "-lcudadevrt", "-o", app, cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    rng = np.random.default_rng(23)
    n = 300 + int(rng.integers(0, 200))
    x = rng.standard_normal(n).astype(np.float32)
    x.tofile(tmp_path / "x.bin")
    result = cli("run", app, "x.bin", "y.bin", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    # parent block b: a child grid over x[100 b : 100 b + 100] scales by 3; each child block k
    # launches a grandchild that adds k; block 0's tail launch sums the finished array
    i = np.arange(n)
    expected = x * np.float32(3) + ((i % 100) // 32).astype(np.float32)
    np.testing.assert_array_equal(np.fromfile(tmp_path / "y.bin", dtype=np.float32), expected)
    total = np.float32(0)
    for value in expected:                  # the tail kernel's sequential float sum
        total = np.float32(total + value)
    # cudaMalloc from a kernel allocates, as on the H200 (validation/programs/h200/native.json)
    assert result.stdout.splitlines() == ["parent cudaSuccess", f"tail {float(total):.9g}",
                                          "allocates cudaSuccess", "sync cudaSuccess"]
