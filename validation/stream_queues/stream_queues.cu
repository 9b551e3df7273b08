// How many one-thread kernels of different streams run side by side: N streams, each given a kernel A
// and a kernel B that waits for A (its own stream's order), issued stream by stream as a HyperQ
// program issues them; and N streams of one kernel each. Prints the CUDA-event time over one kernel's.
// Usage: stream_queues CYCLES (run under CUDA_DEVICE_MAX_CONNECTIONS=1..32, the hardware work queues).
#include <cstdio>
#include <cstdlib>

__global__ void spin(long long cycles, long long *out) {
  long long start = clock64(), now = start;
  while (now - start < cycles) now = clock64();
  out[blockIdx.x] = now - start;
}

int main(int argc, char **argv) {
  long long cycles = argc > 1 ? atoll(argv[1]) : 2000000;
  long long *out;
  cudaMalloc(&out, 64 * sizeof(long long));
  cudaStream_t s[32];
  for (auto &stream : s) cudaStreamCreate(&stream);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (auto &stream : s) spin<<<1, 1, 0, stream>>>(1000, out);      // every stream used once first
  cudaDeviceSynchronize();
  cudaEventRecord(a);
  spin<<<1, 1>>>(cycles, out);
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float one = 0, ms = 0;
  cudaEventElapsedTime(&one, a, b);
  for (int n : {1, 2, 4, 7, 8, 9, 12, 16, 24, 32}) {
    for (int pairs = 1; pairs >= 0; pairs--) {
      cudaDeviceSynchronize();
      cudaEventRecord(a);
      for (int i = 0; i < n; i++) {
        spin<<<1, 1, 0, s[i]>>>(cycles, out);
        if (pairs) spin<<<1, 1, 0, s[i]>>>(cycles, out);
      }
      for (int i = 0; i < n; i++) cudaStreamSynchronize(s[i]);
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      cudaEventElapsedTime(&ms, a, b);
      printf("streams %d %s %.2f\n", n, pairs ? "pairs" : "single", ms / one);
    }
  }
  return 0;
}
