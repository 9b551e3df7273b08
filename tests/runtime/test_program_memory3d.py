"""3D memory and CUDA-array copies of a whole program (tests/runtime/programs/memory3d.cu) against
NumPy on a random volume: cudaMalloc3D, cudaMemcpy3D[Async] between host, device and CUDA arrays with
sub-boxes, cudaMemset3D[Async], tex3D over a cudaMalloc3DArray, the 2D array copies, the array queries
and the codes of refused calls."""

import numpy as np
import pytest

pytestmark = pytest.mark.programs

W, H, D = 19, 7, 4
MEMSET_BYTE_FLOAT = np.frombuffer(b"\x3f" * 4, dtype=np.float32)[0]


@pytest.fixture(scope="module")
def memory3d(built, cli, tmp_path_factory):
    folder = tmp_path_factory.mktemp("memory3d")
    volume = np.random.default_rng(321).standard_normal((D, H, W), dtype=np.float32)
    volume.tofile(folder / "volume.bin")
    result = cli("run", built("memory3d"), "volume.bin", W, H, D, "out.bin", cwd=folder)
    assert result.returncode == 0, result.stdout + result.stderr
    return volume, np.fromfile(folder / "out.bin", dtype=np.float32), result.stdout


def _pieces(out):
    sizes = {"full": W * H * D, "box": 8 * 4 * 2, "d2d": W * H * D, "memset": W * H * D,
             "fetched": W * H * D, "array_box": 5 * 4 * 2, "plane": W * H, "runs": W * H,
             "peer_box": 5 * 4 * 2}
    pieces, at = {}, 0
    for name, size in sizes.items():
        pieces[name], at = out[at:at + size], at + size
    assert at == len(out)
    return pieces


def test_pitched_volume_copies_and_memsets_match_numpy(memory3d):
    volume, out, stdout = memory3d
    got = _pieces(out)
    scaled = volume * np.float32(2) + np.arange(D, dtype=np.float32)[:, None, None]
    np.testing.assert_array_equal(got["full"].reshape(D, H, W), scaled)
    box = np.full((2, 4, 8), -1, np.float32)
    box[:, :, :5] = scaled[1:3, 2:6, 3:8]                  # the sub-box, in rows of a wider pitch
    np.testing.assert_array_equal(got["box"].reshape(2, 4, 8), box)
    shifted = np.zeros_like(scaled)
    shifted[1:, 1:, 1:] = scaled[:-1, :-1, :-1]            # device to device at dstPos (1, 1, 1)
    np.testing.assert_array_equal(got["d2d"].reshape(D, H, W), shifted)
    memset = scaled.copy()
    memset[1:, 1:3, 2:5] = MEMSET_BYTE_FLOAT
    np.testing.assert_array_equal(got["memset"].reshape(D, H, W), memset)
    assert "malloc3d pitch 512 xsize 76 ysize 7" in stdout


def test_3d_array_copies_and_texture_match_numpy(memory3d):
    volume, out, stdout = memory3d
    got = _pieces(out)
    memset = volume * np.float32(2) + np.arange(D, dtype=np.float32)[:, None, None]
    memset[1:, 1:3, 2:5] = MEMSET_BYTE_FLOAT
    np.testing.assert_array_equal(got["fetched"].reshape(D, H, W), memset)      # tex3D at texel centres
    np.testing.assert_array_equal(got["array_box"].reshape(2, 4, 5), memset[1:3, 2:6, 3:8])
    plane = np.zeros((H, W), np.float32)
    plane[1:, 2:] = volume[0, :-1, :-2]                    # array to array at (2 floats, 1 row)
    np.testing.assert_array_equal(got["plane"].reshape(H, W), plane)
    runs = plane.ravel().copy()
    runs[W + 4:2 * W + 7] = volume[1].ravel()[:W + 3]     # a run from (4, 1) on, past the row's end
    np.testing.assert_array_equal(got["runs"], runs)
    np.testing.assert_array_equal(got["peer_box"].reshape(2, 4, 5), memset[1:3, 2:6, 3:8])   # cudaMemcpy3DPeer
    assert "channel desc 32 0 0 0 2" in stdout             # cudaChannelFormatKindFloat
    assert f"array info {W} {H} {D} flags 2" in stdout     # cudaArraySurfaceLoadStore
    assert f"flat info {W} {H} 0 flags 0" in stdout


def test_refused_3d_calls_give_cuda_codes(memory3d):
    codes = dict(line.rsplit(" ", 1) for line in memory3d[2].splitlines() if line.rsplit(" ", 1)[-1].startswith("cuda"))
    assert codes == {
        "both array and pointer": "cudaErrorInvalidValue",
        "neither array nor pointer": "cudaErrorInvalidValue",
        "wider than pitch": "cudaErrorInvalidPitchValue",
        "past the array": "cudaErrorInvalidValue",
        "bad kind": "cudaErrorInvalidMemcpyDirection",
        "null parms": "cudaErrorInvalidValue",
        "wild parms": "cudaErrorInvalidValue",          # a wild struct pointer: a code, not a crash
        "peer to device 1": "cudaErrorInvalidDevice",
        "peer to pageable memory": "cudaErrorInvalidValue",   # as on the H200 (h200/native.json)
        "malloc3d wild": "cudaErrorInvalidValue",
        "memset3d wider than pitch": "cudaSuccess",          # one row: no pitch to exceed (the H200's answer)
        "memcpy3d zero extent": "cudaSuccess",
        "last error": "cudaErrorInvalidValue",
    }
