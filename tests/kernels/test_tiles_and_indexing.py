"""Shared-memory tiles and thread indexing: tiled matmul (sizes not a multiple
of the tile), naive/shared/padded transposes, 3-D grids of 3-D blocks, and a
block of 100 threads."""

import numpy as np
import pytest


from kernel_corpus import cp, assert_all_written, kernel, rng, sentinel

pytestmark = pytest.mark.nvrtc
SOURCE = "tiles_and_indexing.cu"
TILE = 16


@pytest.mark.parametrize("M,N,K", [(37, 45, 53), (16, 16, 16), (1, 70, 3)])
def test_matmul_tiled_f32(M, N, K):
    g = rng(M * N)
    # Small integers: every product and partial sum is exact in f32.
    a = g.integers(-8, 9, (M, K)).astype(np.float32)
    b = g.integers(-8, 9, (K, N)).astype(np.float32)
    c = sentinel((M, N), np.float32)
    grid = ((N + TILE - 1) // TILE, (M + TILE - 1) // TILE)
    kernel(SOURCE, "matmul_tiled")(grid, (TILE, TILE),
                                   (cp.asarray(a), cp.asarray(b), c, np.int32(M), np.int32(N), np.int32(K)))
    got = c.get()
    assert_all_written(got)
    np.testing.assert_array_equal(got, a @ b)


def test_matmul_tiled_f64():
    M, N, K = 33, 29, 41
    g = rng(7)
    a, b = g.standard_normal((M, K)), g.standard_normal((K, N))
    c = sentinel((M, N), np.float64)
    grid = ((N + TILE - 1) // TILE, (M + TILE - 1) // TILE)
    kernel(SOURCE, "matmul_tiled_f64")(grid, (TILE, TILE),
                                       (cp.asarray(a), cp.asarray(b), c, np.int32(M), np.int32(N), np.int32(K)))
    got = c.get()
    assert_all_written(got)
    np.testing.assert_allclose(got, a @ b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["transpose_naive", "transpose_shared", "transpose_padded"])
@pytest.mark.parametrize("rows,cols", [(70, 45), (32, 64), (5, 1)])
def test_transpose(name, rows, cols):
    x = rng(rows * cols).integers(-(1 << 31), 1 << 31, (rows, cols)).astype(np.int32)
    out = sentinel((cols, rows), np.int32)
    if name == "transpose_naive":
        grid, block = ((cols + 15) // 16, (rows + 7) // 8), (16, 8)
    else:
        grid, block = ((cols + 31) // 32, (rows + 31) // 32), (32, 8)
    kernel(SOURCE, name)(grid, block, (cp.asarray(x), out, np.int32(rows), np.int32(cols)))
    got = out.get()
    assert_all_written(got)
    np.testing.assert_array_equal(got, x.T)


@pytest.mark.parametrize("block", [(8, 4, 2), (5, 3, 7), (1, 1, 64), (32, 2, 1)])
def test_index_3d(block):
    nx, ny, nz = 19, 11, 9
    grid = tuple((size + b - 1) // b for size, b in zip((nx, ny, nz), block))
    coords = sentinel((nz, ny, nx, 4), np.int32)
    linear = sentinel((nz, ny, nx), np.int32)
    kernel(SOURCE, "index_3d")(grid, block, (coords, linear, np.int32(nx), np.int32(ny), np.int32(nz)))
    got, lin = coords.get(), linear.get()
    assert_all_written(got)
    assert_all_written(lin)
    z, y, x = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    bx, by, bz = block
    block_id = ((z // bz) * grid[1] + (y // by)) * grid[0] + (x // bx)
    thread_id = ((z % bz) * by + (y % by)) * bx + (x % bx)
    np.testing.assert_array_equal(got, np.stack([x, y, z, block_id], axis=-1))
    np.testing.assert_array_equal(lin, thread_id | (bx << 10) | (by << 17) | (bz << 24))


def test_block_of_100():
    blocks, threads = 7, 100
    total = blocks * threads
    x = rng(100).integers(-1000, 1000, total).astype(np.int32)
    out = sentinel(total, np.int32)
    info = sentinel(total, np.uint32)
    kernel(SOURCE, "block_of_100")((blocks,), (threads,), (cp.asarray(x), out, info))
    got, lanes = out.get(), info.get()
    assert_all_written(got)
    assert_all_written(lanes)
    tid = np.arange(total) % threads
    np.testing.assert_array_equal(got, x * 3 + tid // 32)
    np.testing.assert_array_equal(lanes & 0xFF, tid % 32)
    live = np.where(tid // 32 == 3, 4, 32)     # the last warp has four lanes
    np.testing.assert_array_equal((lanes >> 8) & 0xFF, live)
    np.testing.assert_array_equal(lanes >> 16, 100)
