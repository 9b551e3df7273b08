// Grid-wide sync in cooperative launches: each block scales its part of x, the grid syncs, then
// every thread reads a neighbour block's results (written before the sync) and sums per block;
// a second sync, then block 0 adds the block sums. Launched with cudaLaunchCooperativeKernel and
// with cudaLaunchKernelEx's cooperative attribute; a grid too large to be co-resident is refused,
// and a grid sync in a plain <<<>>> launch traps (the grid handle is invalid there).
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include "io.h"
namespace cg = cooperative_groups;

__global__ void two_phase(const float *x, float *y, float *block_sums, float *total, int n, float scale) {
  cg::grid_group grid = cg::this_grid();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * scale;
  grid.sync();
  // read the next block's values: only right after a grid-wide sync
  int j = ((blockIdx.x + 1) % gridDim.x) * blockDim.x + threadIdx.x;
  if (j < n) atomicAdd(&block_sums[blockIdx.x], y[j]);
  grid.sync();
  if (grid.thread_rank() == 0) {
    float t = 0.0f;
    for (unsigned b = 0; b < gridDim.x; b++) t += block_sums[b];
    *total = t;
  }
}

__global__ void one_sync(int *flags, int *seen) {
  cg::grid_group grid = cg::this_grid();
  if (threadIdx.x == 0) flags[blockIdx.x] = blockIdx.x + 1;
  grid.sync();
  if (threadIdx.x == 0) {
    int s = 0;
    for (unsigned b = 0; b < gridDim.x; b++) s += flags[b];
    seen[blockIdx.x] = s;
  }
}

int main(int argc, char **argv) {
  std::vector<float> x = read_file<float>(argv[1]);
  int n = (int)x.size(), block = 128, blocks = (n + block - 1) / block;
  float scale = (float)atof(argv[3]);
  int supported = 0, sms = 0, per_sm = 0;
  CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, one_sync, 1024, 0));
  printf("cooperative %d\n", supported);
  float *dx, *dy, *dsums, *dtotal;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMalloc(&dsums, blocks * sizeof(float)));
  CHECK(cudaMalloc(&dtotal, sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dsums, 0, blocks * sizeof(float)));
  void *args[] = {&dx, &dy, &dsums, &dtotal, &n, &scale};
  CHECK(cudaLaunchCooperativeKernel((void *)two_phase, dim3(blocks), dim3(block), args, 0, 0));
  CHECK(cudaDeviceSynchronize());
  std::vector<float> y(n), sums(blocks);
  float total;
  CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(sums.data(), dsums, blocks * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&total, dtotal, sizeof(float), cudaMemcpyDeviceToHost));
  write_file(argv[2], y.data(), n);
  printf("blocks %d total %.6e\n", blocks, total);

  // cudaLaunchKernelEx with the cooperative attribute
  int *flags, *seen, grid2 = 6;
  CHECK(cudaMalloc(&flags, grid2 * sizeof(int)));
  CHECK(cudaMalloc(&seen, grid2 * sizeof(int)));
  CHECK(cudaMemset(flags, 0, grid2 * sizeof(int)));
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(grid2);
  config.blockDim = dim3(64);
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeCooperative;
  attribute[0].val.cooperative = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&config, one_sync, flags, seen));
  CHECK(cudaDeviceSynchronize());
  std::vector<int> seen_host(grid2);
  CHECK(cudaMemcpy(seen_host.data(), seen, grid2 * sizeof(int), cudaMemcpyDeviceToHost));
  printf("seen");
  for (int v : seen_host) printf(" %d", v);
  printf("\n");

  // more blocks than can be resident at once: refused before it runs
  void *args2[] = {&flags, &seen};
  cudaError_t big = cudaLaunchCooperativeKernel((void *)one_sync, dim3(per_sm * sms + 1), dim3(1024),
                                                args2, 0, 0);
  printf("too large %s\n", cudaGetErrorName(big));
  printf("after %s\n", cudaGetErrorName(cudaGetLastError()));

  // a grid sync without a cooperative launch traps, as on a GPU
  one_sync<<<2, 32>>>(flags, seen);
  printf("plain launch %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
