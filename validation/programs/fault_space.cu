// Where a write far past an allocation faults, and with which code: prints the allocation's address,
// then the codes a synchronize, a later cudaMalloc and two cudaGetLastError calls return after one
// thread writes `offset` bytes past it. Usage: fault_space OFFSET_BYTES (decimal, may be negative)
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
__global__ void poke(char *p, long long offset) { *(int *)(p + offset) = 1; }
int main(int argc, char **argv) {
  long long offset = argc > 1 ? atoll(argv[1]) : 0;
  char *x;
  cudaMalloc(&x, 256);
  poke<<<1, 1>>>(x, offset);
  cudaError_t sync = cudaDeviceSynchronize();
  void *more;
  cudaError_t malloc_after = cudaMalloc(&more, 16);
  cudaError_t last = cudaGetLastError(), again = cudaGetLastError();
  cudaError_t peek = cudaPeekAtLastError();
  printf("base %p target %p offset %lld sync %s malloc %s last %s again %s peek %s\n", x, x + offset, offset,
         cudaGetErrorName(sync), cudaGetErrorName(malloc_after), cudaGetErrorName(last), cudaGetErrorName(again),
         cudaGetErrorName(peek));
  return 0;
}
