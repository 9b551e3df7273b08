"""Stream, event and device queries in a whole program (tests/runtime/programs/stream_queries.cu):
cudaStreamGetFlags/GetPriority (the priority clamped to the device's range)/GetDevice/GetId,
cudaEventRecordWithFlags around a kernel whose output matches NumPy on random inputs,
cudaThreadExchangeStreamCaptureMode, cudaChooseDevice, cudaInitDevice, the PCI bus id round trip,
stream attributes (an access policy window set, copied to another stream and read back; the priority),
cudaFuncGetName (the mangled name),
and the codes of refused calls."""

import numpy as np
import pytest

pytestmark = pytest.mark.programs


@pytest.fixture(scope="module")
def queries(built, cli, tmp_path_factory):
    folder = tmp_path_factory.mktemp("stream_queries")
    rng = np.random.default_rng(29)
    x = rng.standard_normal(700 + int(rng.integers(0, 100)), dtype=np.float32)
    x.tofile(folder / "x.bin")
    result = cli("run", built("stream_queries"), "x.bin", "y.bin", cwd=folder)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "not supported" not in result.stderr, result.stderr
    return x, np.fromfile(folder / "y.bin", dtype=np.float32), result.stdout


def test_kernel_on_a_prioritized_stream_matches_numpy(queries):
    x, y, _ = queries
    np.testing.assert_array_equal(y, (2.0 * x.astype(np.float64) + 1.0).astype(np.float32))   # one fma


def test_streams_read_back_their_flags_and_priorities(queries):
    lines = set(queries[2].splitlines())
    assert {"high flags 1 priority is greatest 1", "low flags 0 priority is least 1", "plain priority 0",
            "device 0", "ids differ 1", "elapsed positive 1", "previous mode 0", "restored from 2",
            "chosen 0", "bus id round trip 0", "window copied 1 ratio 0.75", "priority attribute is greatest 1",
            "kernel name _Z14twice_plus_onePKfPfi",
            "done"} <= lines


def test_refused_queries_give_cuda_codes(queries):
    codes = dict(line.rsplit(" ", 1) for line in queries[2].splitlines()
                 if line.rsplit(" ", 1)[-1].startswith("cuda"))
    assert codes == {
        "reset persisting lines": "cudaSuccess",
        "stream attribute 2": "cudaErrorInvalidValue",
        "record with flags 4": "cudaErrorInvalidValue",
        "external record outside a capture": "cudaErrorIllegalState",
        "stream with flags 8": "cudaErrorInvalidValue",
        "init device 1": "cudaErrorInvalidDevice",
        "bus id of device 1": "cudaErrorInvalidDevice",
        "device on another bus": "cudaErrorInvalidDevice",
    }
