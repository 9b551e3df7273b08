// Host threads that each own a stream and launch on it, as programs with a worker per stream do:
// every thread's launches must run, and a profiler or sanitizer of the process sees all of them.
// Usage: host_threads THREADS LAUNCHES [race]   (race: one thread's kernel races in shared memory)
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

__global__ void fill(int* x, int v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v + i;
}

__global__ void racy_sum(const int* x, int* out) {   // reads the tile without a barrier
    __shared__ int tile[128];
    tile[threadIdx.x] = x[threadIdx.x];
    if (threadIdx.x == 0) {
        int s = 0;
        for (int k = 0; k < 128; ++k) s += tile[k];
        *out = s;
    }
}

int main(int argc, char** argv) {
    const int threads = argc > 1 ? atoi(argv[1]) : 3, launches = argc > 2 ? atoi(argv[2]) : 2;
    const bool race = argc > 3;
    const int n = 4096;
    std::vector<int> wrong(threads, 0);
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            cudaStream_t stream;
            cudaStreamCreate(&stream);
            int* x;
            cudaMalloc(&x, n * sizeof(int));
            for (int r = 0; r < launches; ++r) fill<<<n / 256, 256, 0, stream>>>(x, 1000 * t + r, n);
            if (race && t == threads - 1) {
                int* out;
                cudaMalloc(&out, sizeof(int));
                racy_sum<<<1, 128, 0, stream>>>(x, out);
                cudaFree(out);
            }
            std::vector<int> host(n);
            cudaMemcpyAsync(host.data(), x, n * sizeof(int), cudaMemcpyDeviceToHost, stream);
            cudaStreamSynchronize(stream);
            for (int i = 0; i < n; ++i) wrong[t] += host[i] != 1000 * t + launches - 1 + i;
            cudaFree(x);
            cudaStreamDestroy(stream);
        });
    }
    for (auto& worker : workers) worker.join();
    int total = 0;
    for (int t = 0; t < threads; ++t) total += wrong[t];
    printf("threads %d launches %d wrong %d: %s\n", threads, launches, total, cudaGetErrorString(cudaGetLastError()));
    return total != 0;
}
