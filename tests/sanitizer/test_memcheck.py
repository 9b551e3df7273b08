"""memcheck: out-of-bounds and misaligned accesses and traps, in the sanitizer's format."""

import pytest

import warpsim as cp
from warpsim.cli.check import main as check_main

from sanitizer_kernels import HAZARDS, line_of

pytestmark = pytest.mark.nvrtc


def test_out_of_bounds_store_is_an_error_and_still_fails_the_launch(hazards):
    y = cp.zeros(100, dtype=cp.int32)
    with cp.check("memcheck") as chk:
        with pytest.raises(cp.MemoryFault):
            hazards.get_function("fill")((2,), (64,), (y,))
    error, = chk.errors
    assert error.tool == "memcheck" and error.kind == "invalid write"
    assert error.space == "global" and error.address == y.data.ptr + 400
    place = error.accesses[0]
    assert place.thread == (36, 0, 0) and place.block == (1, 0, 0)
    assert place.source_line.endswith(line_of("y[blockIdx.x * blockDim.x + threadIdx.x] = 7;"))
    text = error.text()
    assert "Invalid __global__ write of size 4 bytes" in text
    assert "by thread (36,0,0) in block (1,0,0)" in text
    assert f"Address 0x{y.data.ptr + 400:x} is out of bounds: 0 bytes past the end of the 400-byte" in text


def test_memcheck_off_reports_nothing_but_the_fault_still_raises(hazards):
    with cp.check("racecheck") as chk:
        with pytest.raises(cp.MemoryFault):
            hazards.get_function("fill")((2,), (64,), (cp.zeros(100, dtype=cp.int32),))
    assert chk.ok


def test_warpsim_check_reports_an_out_of_bounds_store(tmp_path, capsys):
    script = tmp_path / "oob.py"
    script.write_text(
        "import os\nimport warpsim as cp\n"
        f"m = cp.RawModule(path={HAZARDS!r})\n"
        "m.get_function('fill')((2,), (64,), (cp.zeros(100, dtype=cp.int32),))\n")
    assert check_main(["--tool", "memcheck", "python", str(script)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("========= COMPUTE-SANITIZER (warpsim check: memcheck)\n")
    assert "========= Invalid __global__ write of size 4 bytes\n" in out
    assert f"{line_of('y[blockIdx.x * blockDim.x + threadIdx.x] = 7;')}:fill" in out
    # the fault also ended the script: the failed target, not counted (as compute-sanitizer)
    assert "========= Target application returned an error\n" in out
    assert out.endswith("========= ERROR SUMMARY: 1 error\n")
