// cudaProfilerStart/Stop around a launch (cuda_profiler_api.h, as the CUDA samples use them):
// both succeed with no profiler attached, the kernel between them runs and the events around
// it advance. PyPI's CUDA headers have no cuda_profiler_api.h: `warpsim nvcc` gives its own.
// An NVTX range around it too (header-only NVTX 3, PyPI's nvidia-nvtx): no tool attached, a no-op.
#include <cstdio>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>
#include <nvtx3/nvToolsExt.h>

__global__ void add_one(int *data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += 1;
}

int main() {
    const int n = 1 << 12;
    int *d = nullptr, h[n];
    for (int i = 0; i < n; i++) h[i] = 3 * i;
    cudaMalloc(&d, n * sizeof(int));
    cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    int depth = nvtxRangePushA("timed launch");
    printf("start %s\n", cudaGetErrorName(cudaProfilerStart()));
    cudaEventRecord(start, 0);
    add_one<<<n / 128, 128>>>(d, n);
    cudaEventRecord(stop, 0);
    printf("stop %s\n", cudaGetErrorName(cudaProfilerStop()));
    printf("nvtx range depth %d popped %d\n", depth, nvtxRangePop());
    printf("last %s\n", cudaGetErrorName(cudaGetLastError()));
    cudaEventSynchronize(stop);
    float ms = -1;
    cudaEventElapsedTime(&ms, start, stop);
    printf("elapsed positive %d\n", ms > 0);
    cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += h[i] != 3 * i + 1;
    printf("wrong %d\n", wrong);
    return 0;
}
