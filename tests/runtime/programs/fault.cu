// An out-of-bounds write: the fault is sticky, as on a GPU.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void write_past_end(int *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  x[i + n * 1000] = i;
}

int main() {
  int *x;
  cudaMalloc(&x, 64 * sizeof(int));
  write_past_end<<<1, 64>>>(x, 64);
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  void *more;
  cudaError_t malloc_after = cudaMalloc(&more, 16);
  cudaError_t last = cudaGetLastError();
  cudaError_t again = cudaGetLastError();
  printf("sync %s\nmalloc %s\nlast %s\nagain %s\n", cudaGetErrorName(sync), cudaGetErrorName(malloc_after),
         cudaGetErrorName(last), cudaGetErrorName(again));
  printf("string %s\n", cudaGetErrorString(sync));
  (void)launch;
  return sync == cudaErrorIllegalAddress ? 0 : 1;
}
