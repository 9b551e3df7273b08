// Stream capture into a CUDA graph: a memset, two kernels (their arguments as at capture) and a copy
// back, captured, instantiated and launched twice; what capture refuses; empty graphs.
// Usage: graph out.bin   (out.bin: the host buffer after each graph launch, float32)
#include <cstdio>
#include <vector>
#include "io.h"
#define SAY(name, call) printf("%s %s\n", name, cudaGetErrorName(call))

__global__ void axpb(float *x, int n, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * a + b + i;
}

static void CUDART_CB count(void *calls) { ++*(int *)calls; }

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  const int n = 1000;
  float *x;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  std::vector<float> host(n, -1.0f), out;
  int calls = 0;
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaStreamCaptureStatus status;
  CHECK(cudaStreamIsCapturing(s, &status));
  printf("before %d\n", (int)status);
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaStreamIsCapturing(s, &status));
  printf("capturing %d\n", (int)status);
  CHECK(cudaMemsetAsync(x, 0, n * sizeof(float), s));
  float a = 2.0f;
  axpb<<<(n + 127) / 128, 128, 0, s>>>(x, n, a, 1.0f);
  a = 100.0f;                                               // the node keeps the value at capture: 2
  axpb<<<(n + 255) / 256, 256, 0, s>>>(x, n, 0.5f, 0.25f);
  CHECK(cudaMemcpyAsync(host.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  CHECK(cudaLaunchHostFunc(s, count, &calls));
  cudaGraph_t graph;
  CHECK(cudaStreamEndCapture(s, &graph));
  printf("captured ran %g calls %d\n", host[5], calls);    // nothing ran while capturing
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  printf("nodes %zu\n", nodes);
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int k = 0; k < 2; k++) {
    host.assign(n, -1.0f);
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    out.insert(out.end(), host.begin(), host.end());
    printf("launch %d x[5] %g calls %d\n", k, host[5], calls);
  }
  write_file(argv[1], out.data(), out.size());

  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  SAY("begin twice", cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  SAY("sync while capturing", cudaStreamSynchronize(s));
  CHECK(cudaStreamIsCapturing(s, &status));
  printf("after sync %d\n", (int)status);
  cudaGraph_t broken = (cudaGraph_t)0x1;
  SAY("end invalidated", cudaStreamEndCapture(s, &broken));
  printf("broken null %d\n", broken == nullptr);
  SAY("end not capturing", cudaStreamEndCapture(s, &broken));
  SAY("capture legacy stream", cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal));
  cudaGetLastError();
  cudaGraph_t empty;
  CHECK(cudaGraphCreate(&empty, 0));
  cudaGraphExec_t emptyExec;
  CHECK(cudaGraphInstantiate(&emptyExec, empty, 0));
  SAY("launch empty", cudaGraphLaunch(emptyExec, s));
  SAY("sync", cudaStreamSynchronize(s));
  CHECK(cudaGraphExecDestroy(emptyExec));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(empty));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaFree(x));
  printf("graph done\n");
  return 0;
}
