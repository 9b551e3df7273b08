"""cuRAND's device API in a whole program (tests/runtime/programs/curand_device.cu): `warpsim nvcc`
finds curand_kernel.h (PyPI's nvidia-curand, a dependency; the API is header-only, no libcurand
is linked), and each thread's Philox4_32_10 and XORWOW draws match NumPy models of the two
generators: Philox's counter blocks, and XORWOW's skip-ahead by 2^67 steps per subsequence as
a power of its GF(2) step matrix (the header does it with its precomputed __device__ tables)."""

import numpy as np
import pytest

pytestmark = pytest.mark.programs

PER_THREAD = 10
MASK = 0xFFFFFFFF


def philox4x32_10(counter: int, key: int) -> list[int]:
    """The four words of Philox4x32-10 for a 128-bit counter (x lowest) and a 64-bit key."""
    c = [(counter >> (32 * k)) & MASK for k in range(4)]
    k0, k1 = key & MASK, key >> 32
    for round_ in range(10):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & MASK, (p0 >> 32) ^ c[3] ^ k1, p0 & MASK]
        k0, k1 = (k0 + 0x9E3779B9) & MASK, (k1 + 0xBB67AE85) & MASK
    return c


def philox_draws(seed: int, subsequence: int, offset: int, count: int) -> list[int]:
    """curand_init(seed, subsequence, offset) then `count` curand() calls."""
    draws = []
    for position in range(offset, offset + count):
        draws.append(philox4x32_10((subsequence << 64) + position // 4, seed)[position % 4])
    return draws


def _xorwow_step(v):
    t = v[0] ^ (v[0] >> 2)
    return [v[1], v[2], v[3], v[4], ((v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1))) & MASK]


def _bits(v):
    return np.array([(v[i] >> b) & 1 for i in range(5) for b in range(32)], dtype=np.int64)


def _words(bits):
    return [int(sum(int(bits[32 * i + b]) << b for b in range(32))) for i in range(5)]


def _step_matrix():
    columns = []
    for k in range(160):
        unit = [0] * 5
        unit[k // 32] = 1 << (k % 32)
        columns.append(_bits(_xorwow_step(unit)))
    return np.stack(columns, axis=1)


def _matrix_power(matrix, exponent):
    result = np.eye(160, dtype=np.int64)
    while exponent:
        if exponent & 1:
            result = result @ matrix % 2
        matrix = matrix @ matrix % 2
        exponent >>= 1
    return result


def xorwow_draws(seed: int, subsequence: int, offset: int, count: int, sequence_jump) -> list[int]:
    """curand_init(seed, subsequence, offset) on a curandState, then `count` curand() calls."""
    t0 = (1099087573 * ((seed & MASK) ^ 0xAAD26B49)) & MASK
    t1 = (2591861531 * ((seed >> 32) ^ 0xF7DCEFDD)) & MASK
    d = (6615241 + t1 + t0) & MASK
    v = [(123456789 + t0) & MASK, 362436069 ^ t0, (521288629 + t1) & MASK, 88675123 ^ t1, (5783321 + t0) & MASK]
    v = _words(_matrix_power(sequence_jump, subsequence) @ _bits(v) % 2)
    for _ in range(offset):
        v = _xorwow_step(v)
    d = (d + 362437 * offset) & MASK
    draws = []
    for _ in range(count):
        v = _xorwow_step(v)
        d = (d + 362437) & MASK
        draws.append((v[4] + d) & MASK)
    return draws


def uniform_bits(draw: int) -> int:
    """_curand_uniform: float(x) * 2^-32 + 2^-33 in float32 (x rounded to float, the product
    exact, the sum rounded once)."""
    value = np.float32(np.float64(np.float32(draw)) * 2.0 ** -32 + 2.0 ** -33)
    return int(value.view(np.uint32))


@pytest.fixture(scope="module")
def draws(built, cli, tmp_path_factory):
    folder = tmp_path_factory.mktemp("curand_device")
    rng = np.random.default_rng(43)
    seed, threads = int(rng.integers(1, 2 ** 63)), 33 + int(rng.integers(0, 8))
    result = cli("run", built("curand_device"), seed, threads, "out.bin", cwd=folder)
    assert result.returncode == 0, result.stdout + result.stderr
    return seed, np.fromfile(folder / "out.bin", dtype=np.uint32).reshape(threads, PER_THREAD)


def test_philox_draws_match_numpy(draws):
    seed, out = draws
    for t, row in enumerate(out):
        expected = philox_draws(seed, t, t % 7, 6)
        assert row[:5].tolist() == expected[:5], t
        assert int(row[8]) == uniform_bits(expected[5]), t


def test_xorwow_subsequences_match_numpy(draws):
    seed, out = draws
    jump = _matrix_power(_step_matrix(), 2 ** 67)
    for t, row in enumerate(out):
        expected = xorwow_draws(seed, t, 3, 4, jump)
        assert row[5:8].tolist() == expected[:3], t
        assert int(row[9]) == uniform_bits(expected[3]), t
