// Runtime API groups beyond the basics: __managed__ variables, pitched copies and memsets,
// pointer attributes, stream ordering with events, host functions and callbacks, the >48 KB
// dynamic shared memory opt-in, occupancy and cooperative launches. Prints one line per check.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>

__managed__ int managed_counter = 5;

__global__ void bump(int times) {
  if (threadIdx.x < times) atomicAdd(&managed_counter, 1);
}

__global__ void add_rows(float *m, size_t pitch, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < width && y < height) {
    float *row = (float *)((char *)m + y * pitch);
    row[x] += (float)(y * 100 + x);
  }
}

__global__ void big_shared(float *out, int n) {
  extern __shared__ float buffer[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) buffer[i] = (float)i;
  __syncthreads();
  if (threadIdx.x == 0) out[0] = buffer[n - 1];
}

static int host_calls = 0;
static void CUDART_CB host_function(void *data) { host_calls += *(int *)data; }
static void CUDART_CB stream_callback(cudaStream_t, cudaError_t status, void *data) {
  host_calls += 100 * *(int *)data + (status == cudaSuccess ? 0 : 1000);
}

#define SAY(name, call) printf("%s %s\n", name, cudaGetErrorName(call))

int main() {
  // __managed__: the host reads and writes it directly, kernels update it
  printf("managed initial %d\n", managed_counter);
  managed_counter = 10;
  bump<<<1, 32>>>(7);
  cudaDeviceSynchronize();
  printf("managed after %d\n", managed_counter);

  // pitched memory: 2D copies and memsets
  const int width = 37, height = 5;
  float host[height][width], back[height][width];
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) host[y][x] = (float)(y * 1000 + x);
  float *m; size_t pitch;
  SAY("mallocpitch", cudaMallocPitch((void **)&m, &pitch, width * sizeof(float), height));
  printf("pitch %zu\n", pitch);
  SAY("memcpy2d", cudaMemcpy2D(m, pitch, host, width * sizeof(float), width * sizeof(float), height,
                               cudaMemcpyHostToDevice));
  add_rows<<<dim3(1, height), 64>>>(m, pitch, width, height);
  SAY("memset2d", cudaMemset2D((char *)m + 2 * pitch, pitch, 0, 4 * sizeof(float), 2));
  SAY("memcpy2d back", cudaMemcpy2DAsync(back, width * sizeof(float), m, pitch, width * sizeof(float),
                                         height, cudaMemcpyDeviceToHost, 0));
  cudaStreamSynchronize(0);
  double sum = 0;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) sum += back[y][x];
  printf("pitched sum %.0f zeroed %g %g %g\n", sum, back[2][0], back[3][3], back[4][0]);
  SAY("bad pitch", cudaMemcpy2D(m, 8, host, width * sizeof(float), width * sizeof(float), height,
                                cudaMemcpyHostToDevice));
  cudaGetLastError();

  // pointer attributes
  void *pinned, *managed; int stack_value = 0;
  cudaMallocHost(&pinned, 64);
  cudaMallocManaged(&managed, 64);
  cudaPointerAttributes a;
  const char *names[] = {"device", "pinned", "managed", "stack"};
  void *pointers[] = {m, pinned, managed, &stack_value};
  for (int k = 0; k < 4; k++) {
    cudaError_t e = cudaPointerGetAttributes(&a, pointers[k]);
    printf("attributes %s %s type %d device %d dev %d host %d\n", names[k], cudaGetErrorName(e), (int)a.type,
           a.device, a.devicePointer == pointers[k], a.hostPointer == pointers[k]);
  }

  // streams, events, host functions and callbacks
  cudaStream_t s1, s2; cudaEvent_t e;
  cudaStreamCreate(&s1); cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  cudaEventCreate(&e);
  int one = 1;
  bump<<<1, 32, 0, s1>>>(1);
  SAY("record", cudaEventRecord(e, s1));
  SAY("wait", cudaStreamWaitEvent(s2, e, 0));
  SAY("hostfunc", cudaLaunchHostFunc(s2, host_function, &one));
  SAY("callback", cudaStreamAddCallback(s2, stream_callback, &one, 0));
  cudaStreamSynchronize(s2);
  printf("host calls %d managed %d\n", host_calls, managed_counter);
  SAY("wait bad flags", cudaStreamWaitEvent(s2, e, 7));
  cudaGetLastError();

  // dynamic shared memory beyond 48 KB: refused until opted in
  float *out; cudaMalloc(&out, sizeof(float));
  const int big = 64 * 1024, n = big / sizeof(float);
  big_shared<<<1, 128, big>>>(out, n);
  SAY("big without opt-in", cudaGetLastError());
  cudaFuncAttributes attributes;
  cudaFuncGetAttributes(&attributes, big_shared);
  printf("max dynamic before %d\n", attributes.maxDynamicSharedSizeBytes);
  SAY("opt-in", cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, big));
  cudaFuncGetAttributes(&attributes, big_shared);
  printf("max dynamic after %d\n", attributes.maxDynamicSharedSizeBytes);
  big_shared<<<1, 128, big>>>(out, n);
  SAY("big with opt-in", cudaGetLastError());
  float last = 0;
  cudaMemcpy(&last, out, sizeof(float), cudaMemcpyDeviceToHost);
  printf("big last %g\n", last);
  SAY("opt-in too much", cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              1 << 20));
  cudaGetLastError();

  // occupancy and cooperative launches
  int blocks = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, add_rows, 256, 0);
  printf("occupancy blocks %d\n", blocks);
  int count = 3;
  void *args[] = {&count};
  SAY("cooperative", cudaLaunchCooperativeKernel((void *)bump, dim3(2), dim3(32), args, 0, 0));
  cudaDeviceSynchronize();
  printf("managed final %d\n", managed_counter);
  SAY("cooperative too large", cudaLaunchCooperativeKernel((void *)bump, dim3(1 << 20), dim3(1024), args, 0, 0));
  cudaGetLastError();
  return 0;
}
