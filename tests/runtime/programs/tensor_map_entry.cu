// A Hopper TMA program in CUDA C++ that does not link libcuda: cuTensorMapEncodeTiled comes from
// cudaGetDriverEntryPointByVersion, encodes a 2D map of a float matrix, and a kernel loads one box of it
// into shared memory with cp.async.bulk.tensor (inline PTX, completing on an mbarrier) and writes it out;
// one box lies inside the matrix, one runs past its last rows (filled with zeros). Also: the deprecated
// cudaGetDriverEntryPoint, a map the driver refuses, a symbol that does not exist, a version too old.
// Usage: tensor_map_entry matrix.bin rows cols out.bin   (out.bin: the two boxes, BOX_ROWS x BOX_COLS each)
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "io.h"

constexpr int BOX_COLS = 32, BOX_ROWS = 16, BOX = BOX_COLS * BOX_ROWS;

__global__ void load_box(const __grid_constant__ CUtensorMap map, float *out, int x0, int y0) {
  __shared__ alignas(128) float tile[BOX];
  __shared__ alignas(8) unsigned long long barrier;
  unsigned bar = (unsigned)__cvta_generic_to_shared(&barrier);
  unsigned dst = (unsigned)__cvta_generic_to_shared(tile);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"((unsigned)sizeof(tile))
                 : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(dst), "l"(&map), "r"(x0), "r"(y0), "r"(bar) : "memory");
  }
  unsigned done = 0;
  while (!done)
    asm volatile("{\n .reg .pred ready;\n mbarrier.try_wait.parity.shared::cta.b64 ready, [%1], %2;\n"
                 " selp.u32 %0, 1, 0, ready;\n}" : "=r"(done) : "r"(bar), "r"(0u) : "memory");
  for (int i = threadIdx.x; i < BOX; i += blockDim.x) out[i] = tile[i];
}

static CUresult encode_map(PFN_cuTensorMapEncodeTiled_v12000 encode, CUtensorMap *map, float *matrix, int rows,
                           int cols, cuuint64_t row_bytes) {
  cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
  cuuint64_t strides[1] = {row_bytes};
  cuuint32_t box[2] = {BOX_COLS, BOX_ROWS}, element_strides[2] = {1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, matrix, dims, strides, box, element_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

int main(int argc, char **argv) {
  if (argc != 5) return 2;
  std::vector<float> matrix = read_file<float>(argv[1]);
  int rows = atoi(argv[2]), cols = atoi(argv[3]);
  float *d_matrix, *d_out;
  CHECK(cudaMalloc(&d_matrix, matrix.size() * sizeof(float)));
  CHECK(cudaMemcpy(d_matrix, matrix.data(), matrix.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&d_out, 2 * BOX * sizeof(float)));

  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000, cudaEnableDefault,
                                         &status));
  printf("entry point found %d status %d\n", encode != nullptr, (int)status);
  if (!encode) return 1;

  CUtensorMap map;
  printf("encode %d\n", (int)encode_map(encode, &map, d_matrix, rows, cols, cols * sizeof(float)));
  load_box<<<1, 128>>>(map, d_out, 8, 4);
  load_box<<<1, 128>>>(map, d_out + BOX, 40, rows - 6);
  CHECK(cudaGetLastError());
  std::vector<float> boxes(2 * BOX);
  CHECK(cudaMemcpy(boxes.data(), d_out, boxes.size() * sizeof(float), cudaMemcpyDeviceToHost));
  write_file(argv[4], boxes.data(), boxes.size());

  CUtensorMap refused;
  printf("row stride not a multiple of 16: %d\n",
         (int)encode_map(encode, &refused, d_matrix, rows, cols, cols * sizeof(float) + 4));

  void *again = nullptr;
  CHECK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &again, cudaEnableDefault, &status));
  printf("deprecated entry point is the same function %d\n", again == (void *)encode);

  PFN_cuTensorMapEncodeIm2col_v12000 im2col = nullptr;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeIm2col", (void **)&im2col, 12000, cudaEnableDefault,
                                         &status));
  cuuint64_t dims[3] = {8, 8, 8}, strides[2] = {32, 256};
  cuuint32_t element_strides[3] = {1, 1, 1};
  int lower[1] = {0}, upper[1] = {0};
  printf("im2col found %d, encoding %d\n", im2col != nullptr,
         im2col ? (int)im2col(&refused, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, d_matrix, dims, strides, lower, upper, 8,
                              8, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                              CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) : -1);

  void *missing = (void *)&status;
  CHECK(cudaGetDriverEntryPointByVersion("cuNoSuchFunction", &missing, 12000, cudaEnableDefault, &status));
  printf("missing symbol: pointer %s, status %d\n", missing ? "set" : "NULL", (int)status);
  missing = (void *)&status;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &missing, 11080, cudaEnableDefault, &status));
  printf("before CUDA 12: pointer %s, status %d\n", missing ? "set" : "NULL", (int)status);
  printf("tensor map entry done\n");
  return 0;
}
