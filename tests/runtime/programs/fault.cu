// An out-of-bounds write. Usage: fault [elements per thread past the end, default 1000]
// 1000: inside the pages the GPU maps for x (an H200 does not fault; the program's check exits 1).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
__global__ void write_past_end(int *x, int n, long long past) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; x[i + n * past] = i;
}

// Far past (e.g. 1 << 32: 1 TiB) nothing is mapped: a sticky cudaErrorIllegalAddress, as on a GPU, which
// cudaGetLastError returns once. (Some offsets, 4 GiB on an H100, give cudaErrorInvalidAddressSpace.)
int main(int argc, char **argv) {
  long long past = argc > 1 ? atoll(argv[1]) : 1000;
  int *x;
  cudaMalloc(&x, 64 * sizeof(int));
  write_past_end<<<1, 64>>>(x, 64, past);
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
