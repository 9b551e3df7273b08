"""A sample of numba-cuda's own test suite (numba/cuda/tests/cudapy), run on warpsim.

The test modules are numba-cuda's, unchanged, as installed: they `from numba
import cuda` and launch kernels as on a GPU; warpsim stands in for the GPU
through numba_on_warpsim, the mechanism of `warpsim run python script.py`.
The sample is the modules whose kernels are self-contained (no cffi,
CuPy, IPC, multiple GPUs or processes, NRT allocation, caching to disk) and
that run in seconds (test_complex, 28 more passing tests, is left out only
to keep this under a minute); tests sized for hardware (a 5.6-billion-thread
grid, a 1000-iteration Jacobi solve) are left out by name.

The run happens in a subprocess (the suite changes Numba's global config)
and reports per module how many tests ran, passed, failed and were skipped.
The assertion is a floor measured on this sample: more passing is fine,
fewer is a regression. Known failures are Numba internals warpsim does not
imitate (register counts, launch-config-sensitive recompiles, a
DeviceNDArray.T that copies) and two tests with out-of-bounds writes that a
GPU lets pass and warpsim reports (test_struct_model_type_arr writes 10
elements into a 1-element array; test_dispatcher_cpointer_arguments 16
into 10).
"""

import json
import os
import subprocess
import sys

import pytest

MODULES = (
    "test_alignment", "test_array", "test_array_args", "test_atomics", "test_blackscholes",
    "test_boolean", "test_casting", "test_complex_kernel", "test_const_string",
    "test_constmem", "test_cuda_jit_no_types", "test_debug", "test_device_array_capture",
    "test_dispatcher", "test_enums", "test_exception", "test_fastmath", "test_flow_control",
    "test_forall", "test_freevar", "test_frexp_ldexp", "test_globals", "test_idiv", "test_inline",
    "test_intrinsics", "test_iterators", "test_lang", "test_localmem",
    "test_make_function_to_jit_function", "test_mandel", "test_math", "test_minmax",
    "test_montecarlo", "test_nondet", "test_operator", "test_overload", "test_powi",
    "test_py2_div_issue", "test_random", "test_record_dtype", "test_recursion", "test_reduction",
    "test_retrieve_autoconverted_arrays", "test_slicing", "test_sm", "test_sm_creation",
    "test_ssa", "test_stream_api", "test_sync", "test_userexc", "test_warning", "test_warp_ops",
)
QUICK = ("test_intrinsics", "test_sync", "test_warp_ops")   # the default run's sample
QUICK_MINIMUM_PASSED = 112         # measured: all 112 tests of the three, numba-cuda 0.30.4
LEFT_OUT = ("test_issue_9229",)     # a 22-million-block grid: minutes on any simulator
PER_TEST_SECONDS = 30
MINIMUM_PASSED = 735               # measured: 740 of 756 (52 modules), numba-cuda 0.30.4

pytestmark = pytest.mark.numba


def run_sample(modules=MODULES) -> dict:
    """Run the modules' tests with numba.cuda on warpsim; counts per module."""
    import signal
    import unittest
    import warnings
    from importlib import import_module

    from warpsim.cli.run import numba_on_warpsim

    def too_long(signum, frame):
        raise TimeoutError(f"test ran past {PER_TEST_SECONDS} s")

    def tests_of(suite):
        for test in suite:
            yield from (tests_of(test) if isinstance(test, unittest.TestSuite) else (test,))

    signal.signal(signal.SIGALRM, too_long)
    report = {}
    with numba_on_warpsim():
        warnings.simplefilter("ignore")
        for name in modules:
            counts = {"run": 0, "passed": 0, "failed": 0, "skipped": 0, "failures": []}
            report[name] = counts
            try:
                module = import_module(f"numba.cuda.tests.cudapy.{name}")
            except Exception as error:  # noqa: BLE001 (a module that cannot load counts as failed)
                counts["failures"].append(f"import: {type(error).__name__}: {error}")
                continue
            for test in tests_of(unittest.defaultTestLoader.loadTestsFromModule(module)):
                if any(left_out in test.id() for left_out in LEFT_OUT):
                    continue
                result = unittest.TestResult()
                signal.alarm(PER_TEST_SECONDS)
                try:
                    test.run(result)
                except TimeoutError as error:
                    result.errors.append((test, str(error)))
                finally:
                    signal.alarm(0)
                counts["run"] += 1
                problems = result.failures + result.errors
                if result.skipped and not problems:
                    counts["skipped"] += 1
                elif problems or result.unexpectedSuccesses:
                    counts["failed"] += 1
                    last = (problems[0][1].strip().splitlines()[-1] if problems
                            else "unexpected success")
                    counts["failures"].append(f"{test.id().rsplit('.', 1)[-1]}: {last[:200]}")
                else:
                    counts["passed"] += 1
    return report


def run_in_subprocess(modules) -> dict:
    pytest.importorskip("filecheck", reason="numba.cuda.testing imports filecheck "
                                            "(pip install filecheck)")
    done = subprocess.run([sys.executable, os.path.abspath(__file__), *modules], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-5000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_numba_cuda_suite_quick_sample():
    """Three modules: intrinsics, barriers and warp operations (the whole sample is a slow test)."""
    report = run_in_subprocess(QUICK)
    passed = sum(m["passed"] for m in report.values())
    assert passed >= QUICK_MINIMUM_PASSED, report


@pytest.mark.slow
def test_numba_cuda_suite_sample():
    report = run_in_subprocess(MODULES)
    passed = sum(m["passed"] for m in report.values())
    tried = sum(m["run"] for m in report.values())
    summary = "\n".join(f"{name}: {m['passed']}/{m['run']} passed, {m['skipped']} skipped"
                        + "".join(f"\n    {f}" for f in m["failures"])
                        for name, m in report.items())
    print(f"numba-cuda suite sample on warpsim: {passed} of {tried} tests passed "
          f"in {len(report)} modules\n{summary}")
    assert passed >= MINIMUM_PASSED, summary


if __name__ == "__main__":
    print(json.dumps(run_sample(tuple(sys.argv[1:]) or MODULES)))
