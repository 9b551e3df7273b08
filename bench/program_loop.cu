// A whole program whose kernel reads and writes a large array in a loop (each iteration a load, an
// add and a store): bench/program_speed.py builds it with `warpsim nvcc` and runs it under `warpsim
// run`, beside the same kernel launched through warpsim's Python API. It times its own launches
// (after one warm-up launch) and checks its output.
#include <cstdio>
#include <cstdlib>
#include <ctime>

__global__ void accumulate(int* data, const int* factor, int iterations) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < iterations; k++) data[i] += *factor;
}

static double seconds(clockid_t clock) {
    timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1 << 22;
    int launches = argc > 2 ? atoi(argv[2]) : 3;
    int iterations = 5, three = 3;
    int *data, *factor, *host = (int*)malloc(n * sizeof(int));
    cudaMalloc(&data, n * sizeof(int));
    cudaMalloc(&factor, sizeof(int));
    cudaMemset(data, 0, n * sizeof(int));
    cudaMemcpy(factor, &three, sizeof(int), cudaMemcpyHostToDevice);
    accumulate<<<n / 256, 256>>>(data, factor, iterations);
    cudaDeviceSynchronize();
    double cpu = seconds(CLOCK_PROCESS_CPUTIME_ID), wall = seconds(CLOCK_MONOTONIC);
    for (int i = 0; i < launches; i++) accumulate<<<n / 256, 256>>>(data, factor, iterations);
    cudaDeviceSynchronize();
    cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;
    wall = seconds(CLOCK_MONOTONIC) - wall;
    cudaMemcpy(host, data, n * sizeof(int), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) {
        if (host[i] != 3 * iterations * (launches + 1)) {
            printf("wrong: data[%d] = %d\n", i, host[i]);
            return 1;
        }
    }
    printf("threads %d launches %d wall_s %.6f cpu_s %.6f\n", n, launches, wall, cpu);
    return 0;
}
