// Runtime calls with bad pointers, sizes, kinds and streams: each must return a CUDA error
// code, never crash. argv[1]: a seed for the random calls; argv[2]: how many. Prints
// "call code" for the fixed cases, then one code per random call, then "fuzz done".
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>

#define SAY(name, call) printf("%s %d\n", name, (int)(call))

int main(int argc, char **argv) {
  unsigned seed = argc > 1 ? atoi(argv[1]) : 1;
  int count = argc > 2 ? atoi(argv[2]) : 200;
  char host[256] = {0};
  char *device, *freed;
  cudaMalloc(&device, 256);
  cudaMalloc(&freed, 256);
  cudaFree(freed);
  cudaStream_t stream, destroyed;
  cudaStreamCreate(&stream);
  cudaStreamCreate(&destroyed);
  cudaStreamDestroy(destroyed);
  void *wild = (void *)0x10, *wild_high = (void *)0x7ff000000000ull;

  SAY("memcpy past end", cudaMemcpy(device, host, 512, cudaMemcpyHostToDevice));
  SAY("memcpy wild host", cudaMemcpy(device, wild, 16, cudaMemcpyHostToDevice));
  SAY("memcpy wild host out", cudaMemcpy(wild_high, device, 16, cudaMemcpyDeviceToHost));
  SAY("memcpy freed", cudaMemcpy(host, freed, 16, cudaMemcpyDeviceToHost));
  SAY("memcpy null", cudaMemcpy(nullptr, device, 16, cudaMemcpyDeviceToHost));
  SAY("memcpy kind", cudaMemcpy(host, device, 16, (cudaMemcpyKind)7));
  SAY("memcpy stream", cudaMemcpyAsync(host, device, 16, cudaMemcpyDeviceToHost, destroyed));
  SAY("memset host", cudaMemset(host, 0, 16));
  SAY("memset past end", cudaMemset(device, 0, 4096));
  SAY("free twice", cudaFree(freed));
  SAY("free interior", cudaFree(device + 8));
  SAY("malloc null", cudaMalloc(nullptr, 16));
  SAY("malloc huge", cudaMalloc((void **)&freed, (size_t)1 << 60));
  SAY("set device", cudaSetDevice(5));
  SAY("properties null", cudaGetDeviceProperties(nullptr, 0));
  SAY("stream sync destroyed", cudaStreamSynchronize(destroyed));
  SAY("event record null", cudaEventRecord(nullptr, 0));
  SAY("memcpy2d kind", cudaMemcpy2D(host, 16, device, 16, 16, 4, (cudaMemcpyKind)9));
  SAY("memset2d pitch", cudaMemset2D(device, 8, 0, 16, 2));
  SAY("attributes null", cudaPointerGetAttributes(nullptr, device));
  SAY("host func null", cudaLaunchHostFunc(stream, nullptr, nullptr));
  cudaGetLastError();

  void *pointers[] = {device, device + 200, host, wild, wild_high, freed, nullptr};
  size_t sizes[] = {0, 1, 56, 256, 257, (size_t)1 << 40};
  int kinds[] = {0, 1, 2, 3, 4, 5, -1};
  cudaStream_t streams[] = {0, stream, destroyed, (cudaStream_t)wild};
  srand(seed);
  for (int k = 0; k < count; k++) {
    void *a = pointers[rand() % 7], *b = pointers[rand() % 7];
    size_t n = sizes[rand() % 6];
    cudaMemcpyKind kind = (cudaMemcpyKind)kinds[rand() % 7];
    cudaStream_t s = streams[rand() % 4];
    cudaError_t e;
    switch (rand() % 4) {
      case 0: e = cudaMemcpy(a, b, n, kind); break;
      case 1: e = cudaMemcpyAsync(a, b, n, kind, s); break;
      case 2: e = cudaMemsetAsync(a, rand() & 255, n, s); break;
      default: e = cudaMemcpy2D(a, 64, b, 64, n > 64 ? 64 : n, 2, kind); break;
    }
    printf("%d\n", (int)e);
  }
  printf("fuzz done\n");
  return 0;
}
