// Built with -gencode arch=compute_90,code=sm_90 (SASS only, no PTX): a __constant__ table
// set with cudaMemcpyToSymbol, a __device__ counter, a block reduction in dynamic shared
// memory with atomics, timed with CUDA events; then an out-of-bounds read (a sticky fault).
#include <cuda_runtime.h>
#include "io.h"

__constant__ float weights[8];
__device__ unsigned int visits;

__global__ void weighted_sum(const float *x, float *total, int n) {
  extern __shared__ float part[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? x[i] * weights[i & 7] : 0.0f;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) { atomicAdd(total, part[0]); atomicAdd(&visits, 1u); }
}

__global__ void read_past(const float *x, float *y, int n) {
  y[threadIdx.x] = x[threadIdx.x + n];
}

int main(int argc, char **argv) {
  std::vector<float> x = read_file<float>(argv[1]), w = read_file<float>(argv[2]);
  int n = (int)x.size(), block = 128, grid = (n + block - 1) / block;
  float *dx, *dtotal, total = 0;
  CHECK(cudaMemcpyToSymbol(weights, w.data(), 8 * sizeof(float)));
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dtotal, sizeof(float)));
  CHECK(cudaMemset(dtotal, 0, sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  weighted_sum<<<grid, block, block * sizeof(float)>>>(dx, dtotal, n);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  CHECK(cudaMemcpy(&total, dtotal, sizeof(float), cudaMemcpyDeviceToHost));
  unsigned int counted = 0;
  CHECK(cudaMemcpyFromSymbol(&counted, visits, sizeof(counted)));
  printf("total %.6e\nvisits %u\ntimed %d\n", total, counted, ms >= 0);
  read_past<<<1, 32>>>(dx, dtotal, 1 << 28);
  printf("fault %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
