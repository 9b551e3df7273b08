"""The driver API's launches, 2D/3D copies, CUDA arrays, texture objects and host memory in a whole program
(tests/runtime/programs/driver_arrays.cu, built with -lcuda; its kernels a fatbinary built here): a
cooperative launch and cuLaunchKernelEx with a cluster shape and with the cooperative attribute, pitched
copies and a 2D memset, an array read back and fetched through a point-filtered texture; outputs equal
NumPy's, bad calls get CUDA's codes. The codes are CUDA's documented behaviour; the program has not been
run on a GPU yet."""

import shutil
import struct
import subprocess

import numpy as np
import pytest

from warpsim.runtime import driver_arrays as d
from warpsim.runtime.driver_modules import LAUNCH_CONFIG
from warpsim.runtime.native import cuda_include_dir

pytestmark = pytest.mark.programs

W, H = 96, 40

EXPECTED = """function name fetch
name of a bogus function CUDA_ERROR_INVALID_HANDLE
cooperative sum 32640
cooperative grid too large CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE
cooperative attribute sum 32640
cluster ranks 4 104 204 304 4 104 204 304
cluster of 32 CUDA_ERROR_INVALID_CLUSTER_SIZE
launch without a config CUDA_ERROR_INVALID_VALUE
pitch covers a row 1, aligned 1
row wider than the pitch CUDA_ERROR_INVALID_VALUE
unknown memory type CUDA_ERROR_INVALID_VALUE
element size 3 CUDA_ERROR_INVALID_VALUE
array 96 x 40 format 0x20 channels 1
width not whole texels CUDA_ERROR_INVALID_VALUE
texture without a descriptor CUDA_ERROR_INVALID_VALUE
texture of a bogus array CUDA_ERROR_INVALID_VALUE
destroyed twice CUDA_ERROR_INVALID_HANDLE
unknown format CUDA_ERROR_INVALID_VALUE
3D array 8 x 4 x 2 format 0x1 channels 4 flags 2
host alloc flags has devicemap 1, device pointer set 1
registered twice CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
unregistered twice CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED
managed memory read 42
managed of 0 bytes CUDA_ERROR_INVALID_VALUE
driver arrays done""".splitlines()

KERNELS = """#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void grid_sum(int *scratch, int *sum) {
  cg::grid_group grid = cg::this_grid();
  unsigned rank = grid.thread_rank();
  scratch[rank] = (int)rank;
  grid.sync();
  if (rank == 0) {
    int total = 0;
    for (unsigned k = 0; k < grid.size(); k++) total += scratch[k];
    *sum = total;
  }
}

extern "C" __global__ void cluster_rank(unsigned *out) {
  unsigned rank, size;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
  if (threadIdx.x == 0) out[blockIdx.x] = rank * 100 + size;
}

extern "C" __global__ void fetch(float *out, cudaTextureObject_t texture, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) out[y * width + x] = tex2D<float>(texture, x + 0.5f, y + 0.5f);
}
"""


def test_driver_launches_copies_arrays_and_textures(built, cli, run, tmp_path):
    (tmp_path / "kernels.cu").write_text(KERNELS)
    made = cli("nvcc", "-fatbin", "-arch=sm_90", "kernels.cu", "-o", "kernels.fatbin", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    image = np.random.default_rng(5).standard_normal((H, W)).astype(np.float32)
    image.tofile(tmp_path / "in.bin")
    result = run(built("driver_arrays", "-arch=sm_90", "-lcuda"), "kernels.fatbin", "in.bin", "pitched.bin",
                 "texture.bin")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == EXPECTED, result.stdout + result.stderr

    pitched = np.fromfile(tmp_path / "pitched.bin", dtype=np.float32)
    round_trip, box, filled = pitched[:W * H], pitched[W * H:W * H + 32 * 20], pitched[W * H + 32 * 20:]
    np.testing.assert_array_equal(round_trip.reshape(H, W), image)
    expected_box = np.full((20, 32), -1, np.float32)
    expected_box[1:18, 2:27] = image[3:20, 7:32]
    np.testing.assert_array_equal(box.reshape(20, 32), expected_box)
    expected_filled = image.copy()
    expected_filled[5:8, 4:14] = 1.0
    np.testing.assert_array_equal(filled.reshape(H, W), expected_filled)

    texture = np.fromfile(tmp_path / "texture.bin", dtype=np.float32).reshape(2, H, W)
    np.testing.assert_array_equal(texture[0], image)          # cuMemcpy2D to the array, cuMemcpy3D back
    np.testing.assert_array_equal(texture[1], image)          # tex2D at texel centres, point filtering


LAYOUT_PROBE = """#include <cuda.h>
#include <stddef.h>
#include <stdio.h>
#define AT(type, field) printf("%zu ", offsetof(type, field))
int main(void) {
  printf("%zu %zu %zu %zu %zu %zu %zu\\n", sizeof(CUDA_MEMCPY2D), sizeof(CUDA_MEMCPY3D), sizeof(CUDA_ARRAY_DESCRIPTOR),
         sizeof(CUDA_ARRAY3D_DESCRIPTOR), sizeof(CUlaunchConfig), sizeof(CUlaunchAttribute), sizeof(CUDA_TEXTURE_DESC));
  AT(CUDA_MEMCPY2D, dstXInBytes); AT(CUDA_MEMCPY2D, WidthInBytes); AT(CUDA_MEMCPY3D, srcHeight);
  AT(CUDA_MEMCPY3D, dstXInBytes); AT(CUDA_MEMCPY3D, WidthInBytes); AT(CUDA_ARRAY3D_DESCRIPTOR, Flags);
  AT(CUDA_RESOURCE_DESC, res); AT(CUDA_RESOURCE_DESC, res.pitch2D.pitchInBytes);
  AT(CUDA_RESOURCE_DESC, res.linear.sizeInBytes); AT(CUDA_TEXTURE_DESC, flags); AT(CUDA_TEXTURE_DESC, borderColor);
  AT(CUlaunchConfig, numAttrs);
  printf("\\n");
  return 0;
}
"""


def test_driver_struct_formats_are_cuda_h_layouts(tmp_path):
    """driver_arrays.py and cuLaunchKernelEx read the driver's structs with struct formats written from
    cuda.h (libcuda.so.1 is built without it): a C compiler's sizes and offsets agree with them."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler")
    (tmp_path / "probe.c").write_text(LAYOUT_PROBE)
    subprocess.run([compiler, "-I", str(cuda_include_dir()), "probe.c", "-o", "probe"], cwd=tmp_path, check=True)
    sizes, at = (list(map(int, line.split())) for line in
                 subprocess.run(["./probe"], cwd=tmp_path, capture_output=True, text=True, check=True)
                 .stdout.splitlines())
    def size(fmt):
        return struct.calcsize("<" + fmt)
    assert sizes == [size(d.MEMCPY2D_SIDE * 2 + "QQ"), size(d.MEMCPY3D_SIDE * 2 + "QQQ"), size(d.ARRAY_DESCRIPTOR),
                     size(d.ARRAY3D_DESCRIPTOR), size(LAUNCH_CONFIG), 72, 104]
    assert at == [size(d.MEMCPY2D_SIDE), size(d.MEMCPY2D_SIDE * 2), size(d.MEMCPY3D_SIDE) - 8,
                  size(d.MEMCPY3D_SIDE), size(d.MEMCPY3D_SIDE * 2), size("QQQiI"),
                  d.RESOURCE_UNION, d.RESOURCE_UNION + size(d.PITCH2D) - 8, d.RESOURCE_UNION + size(d.LINEAR) - 8,
                  size("3ii"), size("3iiI20x"), size("7I4xQQ")]
