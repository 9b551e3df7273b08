"""`warpsim check` on a program that fails reports the failure and exits with the program's status.

compute-sanitizer prints "Target application returned an error" for such a run and does
not count it in the ERROR SUMMARY (an H200 run of a program exiting 3 under memcheck read
"ERROR SUMMARY: 0 errors": validation/programs/h200/native.json, race_fail_memcheck);
warpsim does the same and adds why (the exit status, the exception).
"""

import textwrap

import pytest

from warpsim.cli.check import main

from sanitizer_kernels import HAZARDS

pytestmark = pytest.mark.nvrtc

FAILED = "========= Target application returned an error\n"

LAUNCH = textwrap.dedent("""
    import numpy as np
    import warpsim as cp
    shift = cp.RawKernel(r'''
    extern "C" __global__ void shift(const int* x, int* y, int n, int by) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i + by] = x[i];
    }''', "shift")
    x = cp.asarray(np.arange(64, dtype=np.int32))
    y = cp.zeros(64, dtype=cp.int32)
""")


def program(tmp_path, body: str, name="program.py") -> str:
    path = tmp_path / name
    path.write_text(LAUNCH + textwrap.dedent(body))
    return str(path)


def test_an_exception_after_clean_launches_is_the_failure_and_no_error(tmp_path, capsys):
    path = program(tmp_path, """
        shift((1,), (64,), (x, y, np.int32(64), np.int32(0)))
        assert (y.get() == np.arange(64)).all()
        raise RuntimeError("the result was not what the program wanted")
    """)
    assert main(["python", path]) == 1
    captured = capsys.readouterr()
    assert "RuntimeError: the result was not what the program wanted" in captured.err   # the traceback
    assert FAILED in captured.out
    assert "=========     exit status 1: RuntimeError: the result was not what the program wanted\n" in captured.out
    assert captured.out.endswith("========= ERROR SUMMARY: 0 errors\n")


def test_a_non_zero_exit_keeps_its_status(tmp_path, capsys):
    path = program(tmp_path, """
        shift((1,), (64,), (x, y, np.int32(64), np.int32(0)))
        raise SystemExit(7)
    """)
    assert main(["python", path]) == 7
    out = capsys.readouterr().out
    assert FAILED in out and "exit status 7: sys.exit(7)" in out
    assert out.endswith("ERROR SUMMARY: 0 errors\n")


def test_an_uncaught_kernel_fault_is_the_fault_and_the_failed_target(tmp_path, capsys):
    path = program(tmp_path, """
        shift((1,), (64,), (x, y, np.int32(64), np.int32(1)))    # y[64]: one past the end
        print("not reached")
    """)
    assert main(["python", path]) == 1
    out = capsys.readouterr().out
    assert "not reached" not in out
    assert "Invalid __global__ write of size 4 bytes" in out
    assert FAILED in out and "exit status 1: MemoryFault: global store of 4 bytes" in out
    assert out.index("Invalid __global__ write") < out.index(FAILED)
    assert out.endswith("ERROR SUMMARY: 1 error\n")


def test_a_fault_no_chosen_tool_reports_still_fails_the_check(tmp_path, capsys):
    path = program(tmp_path, """
        shift((1,), (64,), (x, y, np.int32(64), np.int32(1)))
    """)
    assert main(["--tool", "racecheck", "python", path]) == 1
    out = capsys.readouterr().out
    assert "Invalid __global__" not in out                          # memcheck is off
    assert FAILED in out and out.endswith("ERROR SUMMARY: 0 errors\n")


def test_a_fault_the_program_catches_is_memcheck_s_error_only(tmp_path, capsys):
    path = program(tmp_path, """
        try:
            shift((1,), (64,), (x, y, np.int32(64), np.int32(1)))
        except cp.MemoryFault:
            print("caught the failed launch")
    """)
    assert main(["python", path]) == 1
    out = capsys.readouterr().out
    assert "caught the failed launch" in out
    assert FAILED not in out
    assert out.endswith("ERROR SUMMARY: 1 error\n")


def test_the_failure_is_printed_past_the_print_limit(tmp_path, capsys):
    path = program(tmp_path, f"""
        m = cp.RawModule(path={str(HAZARDS)!r})
        m.get_function("neighbour_overwrite")((1,), (64,), (x, y))
        raise ValueError("after two hazards")
    """)
    assert main(["--tool", "racecheck", "--print-limit", "1", "python", path]) == 1
    out = capsys.readouterr().out
    assert out.count("Potential WAR hazard") == 1
    assert FAILED in out and "ValueError: after two hazards" in out
    assert out.endswith("ERROR SUMMARY: 2 errors\n")


def test_a_program_that_cannot_be_opened_is_a_failed_target(tmp_path, capsys):
    assert main(["python", str(tmp_path / "absent.py")]) == 2
    out = capsys.readouterr().out
    assert FAILED in out and "can't open file" in out
    assert out.endswith("ERROR SUMMARY: 0 errors\n")


def test_a_clean_program_has_no_failure_line(tmp_path, capsys):
    path = program(tmp_path, """
        shift((1,), (64,), (x, y, np.int32(63), np.int32(1)))
        assert (y.get()[1:] == np.arange(63)).all()
    """)
    assert main(["python", path]) == 0
    out = capsys.readouterr().out
    assert FAILED not in out and out.endswith("ERROR SUMMARY: 0 errors\n")
