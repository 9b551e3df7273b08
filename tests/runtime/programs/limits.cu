// Device limits, cache and shared-memory configurations, and the occupancy helpers of cuda_runtime.h.
// Usage: limits depth out.bin   (out.bin: the recursive kernel's sums, one per thread, int32)
// Prints one 'name value' line per query, for comparison with a GPU's output.
#include <cstdio>
#include "io.h"

#define SAY(name, call) printf("%s %s\n", name, cudaGetErrorName(call))

__global__ void small(int *p) { p[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x; }

__global__ void with_shared(int *p) {
  __shared__ int tile[5000];                           // 20000 bytes of static shared memory
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  p[threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}

__global__ void many_registers(float *p, int n) {
  float acc[48];
#pragma unroll
  for (int k = 0; k < 48; k++) acc[k] = p[k * n + threadIdx.x];
  for (int r = 0; r < n; r++) {
#pragma unroll
    for (int k = 0; k < 48; k++) acc[k] = acc[k] * acc[(k + 1) % 48] + acc[(k + 7) % 48];
  }
  float s = 0;
#pragma unroll
  for (int k = 0; k < 48; k++) s += acc[k];
  p[threadIdx.x] = s;
}

__global__ void __launch_bounds__(192) bounded(int *p) { p[threadIdx.x] = 2 * threadIdx.x; }

// Recursion whose frames hold a local array: depth x frame bytes is past the default 1 KB stack.
__device__ __noinline__ int frames(int n, int seed) {
  volatile int local[24];
  for (int k = 0; k < 24; k++) local[k] = seed * k + n;
  if (n == 0) return local[seed % 24];
  return local[(n * 7) % 24] + frames(n - 1, seed + 1);
}

__global__ void recurse(int *out, int depth) {
  out[threadIdx.x] = frames(depth, threadIdx.x);
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  int depth = atoi(argv[1]);
  size_t value;
  for (int limit = 0; limit <= 10; limit++) {
    cudaError_t e = cudaDeviceGetLimit(&value, (cudaLimit)limit);
    printf("limit %d %s %zu\n", limit, cudaGetErrorName(e), e ? (size_t)0 : value);
  }
  cudaGetLastError();
  struct { cudaLimit limit; size_t value; const char *name; } sets[] = {
    {cudaLimitStackSize, 5000, "stack"}, {cudaLimitPrintfFifoSize, 3 << 20, "printf"},
    {cudaLimitMallocHeapSize, 3 << 20, "heap"}, {cudaLimitMaxL2FetchGranularity, 32, "l2fetch"},
    {cudaLimitMaxL2FetchGranularity, 200, "l2fetch200"}, {cudaLimitPersistingL2CacheSize, 1 << 20, "persisting"},
    {cudaLimitPersistingL2CacheSize, (size_t)1 << 40, "persistinghuge"},
    {cudaLimitDevRuntimePendingLaunchCount, 4096, "pending"}, {(cudaLimit)7, 1, "limit7"},
    {(cudaLimit)99, 1, "limit99"},
  };
  for (auto &s : sets) {
    cudaError_t e = cudaDeviceSetLimit(s.limit, s.value);
    cudaError_t g = cudaDeviceGetLimit(&value, s.limit);
    printf("set %s %s get %s %zu\n", s.name, cudaGetErrorName(e), cudaGetErrorName(g), g ? (size_t)0 : value);
  }
  cudaGetLastError();

  // the stack limit is what lets the recursion run
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 16384));
  int *sums;
  CHECK(cudaMalloc(&sums, 64 * sizeof(int)));
  recurse<<<1, 64>>>(sums, depth);
  CHECK(cudaDeviceSynchronize());
  int host[64];
  CHECK(cudaMemcpy(host, sums, sizeof(host), cudaMemcpyDeviceToHost));
  write_file(argv[2], host, 64);

  cudaFuncCache cache;
  CHECK(cudaDeviceGetCacheConfig(&cache));
  printf("cache default %d\n", (int)cache);
  SAY("cache set shared", cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
  CHECK(cudaDeviceGetCacheConfig(&cache));
  printf("cache now %d\n", (int)cache);
  SAY("cache set 7", cudaDeviceSetCacheConfig((cudaFuncCache)7));
  SAY("func cache", cudaFuncSetCacheConfig(small, cudaFuncCachePreferL1));
  SAY("func cache 9", cudaFuncSetCacheConfig(small, (cudaFuncCache)9));
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  cudaSharedMemConfig bank;
  SAY("bank get", cudaDeviceGetSharedMemConfig(&bank));
  printf("bank default %d\n", (int)bank);
  SAY("bank set eight", cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte));
  cudaDeviceGetSharedMemConfig(&bank);
  printf("bank now %d\n", (int)bank);
  SAY("bank set 5", cudaDeviceSetSharedMemConfig((cudaSharedMemConfig)5));
  SAY("func bank", cudaFuncSetSharedMemConfig(small, cudaSharedMemBankSizeFourByte));
  cudaGetLastError();

  // occupancy: cuda_runtime.h's templates over the attribute and occupancy calls
  const void *kernels[] = {(const void *)small, (const void *)with_shared, (const void *)many_registers,
                           (const void *)bounded};
  const char *names[] = {"small", "with_shared", "many_registers", "bounded"};
  for (int k = 0; k < 4; k++) {
    cudaFuncAttributes attr;
    CHECK(cudaFuncGetAttributes(&attr, kernels[k]));
    int grid = 0, block = 0;
    cudaError_t e = k == 0 ? cudaOccupancyMaxPotentialBlockSize(&grid, &block, small)
                  : k == 1 ? cudaOccupancyMaxPotentialBlockSize(&grid, &block, with_shared)
                  : k == 2 ? cudaOccupancyMaxPotentialBlockSize(&grid, &block, many_registers)
                           : cudaOccupancyMaxPotentialBlockSize(&grid, &block, bounded);
    printf("potential %s %s regs %d static %zu max threads %d grid %d block %d\n", names[k], cudaGetErrorName(e),
           attr.numRegs, attr.sharedSizeBytes, attr.maxThreadsPerBlock, grid, block);
    for (int threads : {64, 128, 192, 256, 1024}) {
      int blocks = -1;
      cudaError_t a = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernels[k], threads, 0);
      printf("active %s %d %s %d\n", names[k], threads, cudaGetErrorName(a), blocks);
    }
    for (int blocks : {1, 2, 3, 5, 7, 16, 32}) {
      size_t bytes = 12345;
      cudaError_t a = cudaOccupancyAvailableDynamicSMemPerBlock(&bytes, kernels[k], blocks, 128);
      printf("available %s %d %s %zu\n", names[k], blocks, cudaGetErrorName(a), bytes);
    }
  }
  CHECK(cudaFuncSetAttribute(small, cudaFuncAttributeMaxDynamicSharedMemorySize, 200000));
  for (int blocks : {1, 2, 3}) {
    size_t bytes = 12345;
    cudaError_t a = cudaOccupancyAvailableDynamicSMemPerBlock(&bytes, small, blocks, 128);
    printf("available opted-in %d %s %zu\n", blocks, cudaGetErrorName(a), bytes);
  }
  int grid = 0, block = 0;
  SAY("potential dynamic", cudaOccupancyMaxPotentialBlockSize(&grid, &block, small, 40000));
  printf("potential small dynamic 40000 grid %d block %d\n", grid, block);
  SAY("potential limit", cudaOccupancyMaxPotentialBlockSize(&grid, &block, small, 0, 96));
  printf("potential small limit 96 grid %d block %d\n", grid, block);
  size_t bytes = 0;
  SAY("get limit wild", cudaDeviceGetLimit((size_t *)0x10, cudaLimitStackSize));
  SAY("available block 0", cudaOccupancyAvailableDynamicSMemPerBlock(&bytes, small, 1, 0));
  SAY("available blocks 0", cudaOccupancyAvailableDynamicSMemPerBlock(&bytes, small, 0, 128));
  SAY("available block 2048", cudaOccupancyAvailableDynamicSMemPerBlock(&bytes, small, 1, 2048));
  cudaGetLastError();
  printf("limits done\n");
  return 0;
}
