// Dynamic parallelism (nvcc -rdc=true -lcudadevrt): each block of `parent` launches a child grid
// over its part of the array, and each child block launches a grandchild that adds its block
// index; block 0's tail launch runs after the whole parent grid and its children, so its sum
// sees every block's results. A device-side cudaMalloc is not simulated: that
// kernel's launch is refused with cudaErrorNotSupported (named on stderr), not sticky.
#include <cstdio>
#include <cuda_runtime.h>
#include "io.h"

__global__ void grandchild(float *x, int first, int count, int tag) {
  int i = first + threadIdx.x;
  if (threadIdx.x < count) x[i] += tag;
}

__global__ void child(float *x, int first, int count, float scale) {
  int i = first + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < first + count) x[i] *= scale;
  __syncthreads();
  int start = first + blockIdx.x * blockDim.x, left = first + count - start;
  if (threadIdx.x == 0 && left > 0)
    grandchild<<<1, blockDim.x>>>(x, start, left < (int)blockDim.x ? left : blockDim.x, blockIdx.x);
}

__global__ void total(float *sum, const float *x, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++) s += x[i];
  *sum = s;
}

__global__ void parent(float *x, int n, int part, float scale, float *sum) {
  int first = blockIdx.x * part, count = n - first < part ? n - first : part;
  if (threadIdx.x == 0 && count > 0) child<<<(count + 31) / 32, 32>>>(x, first, count, scale);
  if (threadIdx.x == 0 && blockIdx.x == 0) total<<<1, 1, 0, cudaStreamTailLaunch>>>(sum, x, n);
}

__global__ void allocates(int **out) { cudaMalloc((void **)out, 16); }

int main(int argc, char **argv) {
  std::vector<float> x = read_file<float>(argv[1]);
  int n = (int)x.size(), part = 100;
  float *dx, *sum, host_sum = 0.0f;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&sum, sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  parent<<<(n + part - 1) / part, 64>>>(dx, n, part, 3.0f, sum);
  printf("parent %s\n", cudaGetErrorName(cudaGetLastError()));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(x.data(), dx, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&host_sum, sum, sizeof(float), cudaMemcpyDeviceToHost));
  write_file(argv[2], x.data(), n);
  printf("tail %.9g\n", host_sum);
  int **out;
  CHECK(cudaMalloc(&out, sizeof(int *)));
  allocates<<<1, 1>>>(out);
  printf("allocates %s\n", cudaGetErrorName(cudaGetLastError()));
  printf("sync %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
