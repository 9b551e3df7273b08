// Sum of ints: a shared-memory tree per block, then one atomicAdd per block; also a
// histogram with atomics on global memory and dynamic shared memory.
#include <cuda_runtime.h>
#include "io.h"

__global__ void block_sum(const int *x, int n, unsigned long long *total) {
  extern __shared__ long long partial[];
  int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
  long long v = 0;
  if (i < n) v += x[i];
  if (i + blockDim.x < n) v += x[i + blockDim.x];
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, (unsigned long long)partial[0]);
}

__global__ void histogram(const int *x, int n, unsigned int *bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[x[i] & 15], 1u);
}

int main(int argc, char **argv) {
  std::vector<int> x = read_file<int>(argv[1]);
  int n = (int)x.size(), threads = 256, blocks = (n + 2 * threads - 1) / (2 * threads);
  int *dx; unsigned long long *dtotal; unsigned int *dbins;
  CHECK(cudaMalloc(&dx, n * sizeof(int)));
  CHECK(cudaMalloc(&dtotal, sizeof(unsigned long long)));
  CHECK(cudaMalloc(&dbins, 16 * sizeof(unsigned int)));
  CHECK(cudaMemset(dtotal, 0, sizeof(unsigned long long)));
  CHECK(cudaMemset(dbins, 0, 16 * sizeof(unsigned int)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  block_sum<<<blocks, threads, threads * sizeof(long long)>>>(dx, n, dtotal);
  histogram<<<4, 128>>>(dx, n, dbins);
  CHECK(cudaDeviceSynchronize());
  unsigned long long total; unsigned int bins[16];
  CHECK(cudaMemcpy(&total, dtotal, sizeof(total), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(bins, dbins, sizeof(bins), cudaMemcpyDeviceToHost));
  printf("sum %lld\n", (long long)total);
  for (int k = 0; k < 16; k++) printf("bin %d %u\n", k, bins[k]);
  return 0;
}
