// Kernels of different streams side by side on the GPU clock: one-thread waits on clock64() on one
// stream or on eight, kernels that fill every SM on four streams, the legacy NULL stream ordering
// blocking streams and not non-blocking ones, and a stream waiting for another's event.
// Usage: stream_overlap CYCLES. Prints each case's CUDA-event time over one wait's, and the cycles
// one iteration of the wait took on the clock the kernel reads.
#include <cstdio>
#include <cstdlib>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("%s failed: %s\n", #call, cudaGetErrorName(e_)); return 1; } } while (0)

__global__ void spin(long long cycles, long long *waited) {
  long long start = clock64(), now = start;
  long long n = 0;
  while (now - start < cycles) { now = clock64(); ++n; }
  if (threadIdx.x == 0) { waited[blockIdx.x] = now - start; waited[512 + blockIdx.x] = n; }
}

static cudaEvent_t a, b;
static float since(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  cudaEventSynchronize(to);
  cudaEventElapsedTime(&ms, from, to);
  return ms;
}

int main(int argc, char **argv) {
  long long cycles = argc > 1 ? atoll(argv[1]) : 40000;
  long long *waited;
  CHECK(cudaMalloc(&waited, 1024 * sizeof(long long)));
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  cudaStream_t s[8], apart;
  for (auto &stream : s) CHECK(cudaStreamCreate(&stream));
  CHECK(cudaStreamCreateWithFlags(&apart, cudaStreamNonBlocking));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  size_t most = 0;                               // a CTA this big leaves room for one an SM
  CHECK(cudaDeviceGetAttribute((int *)&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  CHECK(cudaFuncSetAttribute(spin, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)most));
  spin<<<1, 1>>>(cycles, waited);                // (warm-up, every stream: a GPU sets a stream up at its
  for (auto &stream : s) spin<<<1, 1, 0, stream>>>(cycles, waited);           // first launch)
  spin<<<1, 1, 0, apart>>>(cycles, waited);
  CHECK(cudaDeviceSynchronize());

  CHECK(cudaEventRecord(a));
  spin<<<1, 1>>>(cycles, waited);
  CHECK(cudaEventRecord(b));
  float one = since(a, b);

  CHECK(cudaEventRecord(a));
  for (auto &stream : s) spin<<<1, 1, 0, stream>>>(cycles, waited);
  CHECK(cudaEventRecord(b));                     // the legacy stream waits for all eight
  printf("eight streams %.1f\n", since(a, b) / one);

  CHECK(cudaEventRecord(a));
  for (int k = 0; k < 8; k++) spin<<<1, 1, 0, s[0]>>>(cycles, waited);
  CHECK(cudaEventRecord(b));
  printf("one stream %.1f\n", since(a, b) / one);

  CHECK(cudaEventRecord(a));
  spin<<<sms, 32, most>>>(cycles, waited);
  CHECK(cudaEventRecord(b));
  float full = since(a, b);
  CHECK(cudaEventRecord(a));
  for (int k = 0; k < 4; k++) spin<<<sms, 32, most, s[k]>>>(cycles, waited);
  CHECK(cudaEventRecord(b));
  printf("four full kernels on four streams %.1f\n", since(a, b) / full);

  cudaStream_t more[8];                          // streams 9-16: the 8 work queues' second streams
  for (auto &stream : more) CHECK(cudaStreamCreate(&stream));
  for (auto &stream : more) spin<<<1, 1, 0, stream>>>(cycles, waited);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventRecord(a));
  for (int k = 0; k < 16; k++) {                 // a wait and one after it on each of 16 streams
    cudaStream_t stream = k < 8 ? s[k] : more[k - 8];
    spin<<<1, 1, 0, stream>>>(cycles, waited);
    spin<<<1, 1, 0, stream>>>(cycles, waited);
  }
  CHECK(cudaEventRecord(b));
  printf("sixteen streams of two %.1f\n", since(a, b) / one);

  for (cudaStream_t other : {s[0], apart}) {     // legacy work, then a wait on another stream
    CHECK(cudaEventRecord(a));
    spin<<<1, 1>>>(4 * cycles, waited);
    spin<<<1, 1, 0, other>>>(cycles, waited);
    CHECK(cudaEventRecord(b, other));
    printf("%s stream after the legacy one %.1f\n", other == apart ? "non-blocking" : "blocking",
           since(a, b) / one);
    CHECK(cudaDeviceSynchronize());
  }

  CHECK(cudaEventRecord(a));
  spin<<<1, 1, 0, s[1]>>>(2 * cycles, waited);
  cudaEvent_t done;
  CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  CHECK(cudaEventRecord(done, s[1]));
  CHECK(cudaStreamWaitEvent(s[2], done, 0));
  spin<<<1, 1, 0, s[2]>>>(cycles, waited);
  CHECK(cudaEventRecord(b, s[2]));
  printf("waiting for another stream's event %.1f\n", since(a, b) / one);

  long long first = 0, iterations = 0;
  CHECK(cudaMemcpy(&first, waited, sizeof first, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&iterations, waited + 512, sizeof iterations, cudaMemcpyDeviceToHost));
  printf("waited at least the cycles %d\n", first >= cycles);
  printf("cycles an iteration %.0f\n", (double)first / (iterations ? iterations : 1));
  return 0;
}
