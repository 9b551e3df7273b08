// A __constant__ table set with cudaMemcpyToSymbol, a __device__ counter read back with
// cudaMemcpyFromSymbol and through cudaGetSymbolAddress, and printf from a kernel.
#include <cuda_runtime.h>
#include "io.h"

__constant__ float table[16];
__device__ unsigned int hits;

__global__ void lookup(const int *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { y[i] = table[x[i] & 15] * x[i]; atomicAdd(&hits, 1u); }
  if (i == 0) printf("kernel says %d %.2f\n", n, table[1]);
}

int main(int argc, char **argv) {
  std::vector<int> x = read_file<int>(argv[1]);
  std::vector<float> t = read_file<float>(argv[2]);
  int n = (int)x.size();
  int *dx; float *dy;
  CHECK(cudaMemcpyToSymbol(table, t.data(), 16 * sizeof(float)));
  unsigned int zero = 0;
  CHECK(cudaMemcpyToSymbol(hits, &zero, sizeof(zero)));
  CHECK(cudaMalloc(&dx, n * sizeof(int)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  printf("before launch\n");
  lookup<<<(n + 63) / 64, 64>>>(dx, dy, n);
  CHECK(cudaDeviceSynchronize());
  printf("after launch\n");
  std::vector<float> y(n);
  CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  write_file(argv[3], y.data(), n);
  unsigned int counted = 0, through_address = 0;
  CHECK(cudaMemcpyFromSymbol(&counted, hits, sizeof(counted)));
  unsigned int *address;
  CHECK(cudaGetSymbolAddress((void **)&address, hits));
  CHECK(cudaMemcpy(&through_address, address, sizeof(unsigned int), cudaMemcpyDeviceToHost));
  printf("hits %u %u\n", counted, through_address);
  cudaError_t past_end = cudaMemcpyToSymbol(table, t.data(), 16 * sizeof(float), 4);
  printf("past end: %s\n", cudaGetErrorName(past_end));
  return 0;
}
