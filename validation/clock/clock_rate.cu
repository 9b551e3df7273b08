// How many iterations a clock64() busy-wait runs, by launch shape: each thread spins until `cycles`
// of its SM's clock have passed, counting its loop's iterations. Usage: clock_rate CYCLES BLOCKS THREADS
// Prints the iterations' min, median and max over the threads, and the kernel's milliseconds.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
__global__ void spin(long long cycles, int *rounds) {
  long long start = clock64(), now = start;
  int n = 0;
  while (now - start < cycles) { now = clock64(); ++n; }
  rounds[blockIdx.x * blockDim.x + threadIdx.x] = n;
}
int main(int argc, char **argv) {
  long long cycles = atoll(argv[1]);
  int blocks = atoi(argv[2]), threads = atoi(argv[3]), total = blocks * threads;
  int *d;
  cudaMalloc(&d, total * sizeof(int));
  spin<<<blocks, threads>>>(cycles, d);             // warm-up
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  cudaEventRecord(a);
  spin<<<blocks, threads>>>(cycles, d);
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  std::vector<int> h(total);
  cudaMemcpy(h.data(), d, total * sizeof(int), cudaMemcpyDeviceToHost);
  std::sort(h.begin(), h.end());
  printf("cycles %lld blocks %d threads %d iterations %d %d %d ms %.4f\n", cycles, blocks, threads, h[0],
         h[total / 2], h[total - 1], ms);
  return 0;
}
