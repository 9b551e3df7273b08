// A program built with `--default-stream per-thread`: its runtime calls are the _ptds/_ptsz
// names (cudaMemcpy_ptds, cudaMemcpyAsync_ptsz, cudaStreamBeginCapture_ptsz, ...), and the NULL
// stream is the thread's own default stream, which can be captured into a graph.
// Usage: per_thread_stream x.bin y.bin z.bin. Writes y = scale * x + shift (plain launches on
// stream 0) and z = y * y (a graph captured from stream 0, launched twice); prints checks.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include "io.h"

__constant__ float scale;

__global__ void affine(const float *x, float *y, float shift, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = scale * x[i] + shift;
}

__global__ void square(const float *y, float *z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = y[i] * y[i];
}

int main(int argc, char **argv) {
    if (argc != 4) return 2;
    std::vector<float> x = read_file<float>(argv[1]);
    int n = (int)x.size();
    size_t bytes = n * sizeof(float);
    std::vector<float> y(n), z(n);
    float *dx, *dy, *dz, s = 1.5f;
    CHECK(cudaMalloc(&dx, bytes));
    CHECK(cudaMalloc(&dy, bytes));
    CHECK(cudaMalloc(&dz, bytes));
    CHECK(cudaMemcpy(dx, x.data(), bytes, cudaMemcpyHostToDevice));            // _ptds
    CHECK(cudaMemcpyToSymbol(scale, &s, sizeof(float)));                       // _ptds
    CHECK(cudaMemsetAsync(dy, 0, bytes, 0));                                   // _ptsz

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start, 0));                                          // _ptsz
    affine<<<(n + 127) / 128, 128>>>(dx, dy, -0.25f, n);                       // __cudaLaunchKernel_ptsz
    CHECK(cudaEventRecord(stop, 0));
    CHECK(cudaEventSynchronize(stop));
    float ms = -1.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    printf("elapsed positive %d\n", ms > 0.0f);
    CHECK(cudaMemcpyAsync(y.data(), dy, bytes, cudaMemcpyDeviceToHost, 0));    // _ptsz
    CHECK(cudaStreamSynchronize(0));                                           // _ptsz
    printf("query %s\n", cudaGetErrorName(cudaStreamQuery(0)));                // _ptsz

    // The per-thread default stream captures (the legacy one cannot).
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(0, cudaStreamCaptureModeThreadLocal));       // _ptsz
    cudaStreamCaptureStatus status;
    CHECK(cudaStreamIsCapturing(0, &status));                                  // _ptsz
    printf("capturing %d\n", status == cudaStreamCaptureStatusActive);
    CHECK(cudaMemsetAsync(dz, 0xff, bytes, 0));
    square<<<(n + 127) / 128, 128>>>(dy, dz, n);
    CHECK(cudaStreamEndCapture(0, &graph));                                    // _ptsz
    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    printf("graph nodes %zu\n", nodes);
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int k = 0; k < 2; k++) CHECK(cudaGraphLaunch(exec, 0));               // _ptsz
    CHECK(cudaMemcpy(z.data(), dz, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaGetLastError());

    write_file(argv[2], y.data(), n);
    write_file(argv[3], z.data(), n);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    CHECK(cudaFree(dz));
    printf("done\n");
    return 0;
}
