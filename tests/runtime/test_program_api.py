"""More of the runtime API, each with CUDA's semantics and error codes (tests/runtime/programs/api.cu),
and fuzzed calls: bad pointers, sizes, kinds and streams give error codes, never a crash."""

import numpy as np
import pytest

pytestmark = pytest.mark.programs


@pytest.fixture(scope="module")
def api_output(cli, built, tmp_path_factory):
    result = cli("run", built("api"), cwd=tmp_path_factory.mktemp("api"))
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def lines(result) -> dict:
    """'name value' lines of the program's output as {name: value} (the value is the last word)."""
    return dict(line.rsplit(" ", 1) for line in result.stdout.splitlines() if line.startswith(KEYED))


KEYED = ("mallocpitch", "memcpy2d", "memset2d", "bad pitch", "record", "wait", "hostfunc", "callback",
         "big ", "opt-in", "cooperative", "max dynamic", "managed", "pitch ", "occupancy")


def test_managed_variables_are_shared_by_host_and_kernels(api_output):
    got = lines(api_output)
    assert got["managed initial"] == "5"              # the PTX initializer, read by the host
    assert got["managed after"] == "17"               # host wrote 10, a kernel added 7
    assert got["managed final"] == "24"               # + a stream's 1 and a cooperative 2 x 3


def test_pitched_copies_and_memsets(api_output):
    width, height = 37, 5
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    m = (y * 1000 + x) + (y * 100 + x)
    m[2:4, 0:4] = 0
    got = lines(api_output)
    assert got["pitch"] == "512"
    assert f"pitched sum {m.sum():.0f} zeroed 0 0 {m[4, 0]:g}" in api_output.stdout
    for name in ("mallocpitch", "memcpy2d", "memset2d", "memcpy2d back"):
        assert got[name] == "cudaSuccess"
    assert got["bad pitch"] == "cudaErrorInvalidPitchValue"


def test_pointer_attributes(api_output):
    out = api_output.stdout
    assert "attributes device cudaSuccess type 2 device 0 dev 1 host 0" in out
    assert "attributes pinned cudaSuccess type 1 device 0 dev 1 host 1" in out
    assert "attributes managed cudaSuccess type 3 device 0 dev 1 host 1" in out
    assert "attributes stack cudaSuccess type 0 device -2 dev 0 host 1" in out


def test_stream_waits_host_functions_and_callbacks(api_output):
    got = lines(api_output)
    for name in ("record", "wait", "hostfunc", "callback"):
        assert got[name] == "cudaSuccess"
    assert "host calls 101 managed 18" in api_output.stdout    # both ran, in stream order
    assert got["wait bad flags"] == "cudaErrorInvalidValue"


def test_dynamic_shared_memory_opt_in(api_output):
    got = lines(api_output)
    assert got["big without opt-in"] == "cudaErrorInvalidValue"
    assert got["max dynamic before"] == str(48 * 1024)
    assert got["opt-in"] == "cudaSuccess" and got["max dynamic after"] == str(64 * 1024)
    assert got["big with opt-in"] == "cudaSuccess" and got["big last"] == str(64 * 1024 // 4 - 1)
    assert got["opt-in too much"] == "cudaErrorInvalidValue"
    assert "without cudaFuncSetAttribute" in api_output.stderr


def test_occupancy_and_cooperative_launches(api_output):
    got = lines(api_output)
    assert got["occupancy blocks"] == "8"              # 256 threads: 2048 / 256 per SM
    assert got["cooperative"] == "cudaSuccess"
    assert got["cooperative too large"] == "cudaErrorCooperativeLaunchTooLarge"


FIXED_CASES = {
    "memcpy past end": 1, "memcpy wild host": 1, "memcpy wild host out": 1, "memcpy freed": 1,
    "memcpy null": 1, "memcpy kind": 21, "memcpy stream": 400, "memset host": 1, "memset past end": 1,
    "free twice": 1, "free interior": 1, "malloc null": 1, "malloc huge": 2, "set device": 101,
    "properties null": 1, "stream sync destroyed": 400, "event record null": 400, "memcpy2d kind": 21,
    "memset2d pitch": 12, "attributes null": 1, "host func null": 1,
}


@pytest.mark.parametrize("seed", [1, 2])
def test_fuzzed_calls_return_error_codes_and_never_crash(cli, built, tmp_path, seed):
    result = cli("run", built("fuzz"), seed, 300, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    out = result.stdout.splitlines()
    assert out[-1] == "fuzz done"
    fixed = dict(line.rsplit(" ", 1) for line in out if not line.isdigit() and line != "fuzz done")
    assert {name: int(code) for name, code in fixed.items()} == FIXED_CASES
    codes = [int(line) for line in out if line.isdigit()]
    assert len(codes) == 300
    assert set(codes) <= {0, 1, 12, 21, 400}             # success, or the error CUDA names for it
    assert 0 in codes and 1 in codes and 400 in codes and 21 in codes
    assert "internal error" not in result.stderr
