// A whole program that launches a one-store kernel in a loop: bench/launch_rate.py's
// runtime row builds it with `warpsim nvcc` and runs it under `warpsim run`.
// It times its own loop (after 20 warm-up launches) and prints the figures.
#include <cstdio>
#include <cstdlib>
#include <ctime>

__global__ void store(int* out, int v) { out[threadIdx.x] = v; }

static double seconds(clockid_t clock) {
    timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char** argv) {
    int count = argc > 1 ? atoi(argv[1]) : 2000;
    int* out;
    cudaMalloc(&out, 32 * sizeof(int));
    for (int i = 0; i < 20; i++) store<<<1, 32>>>(out, 7);
    cudaDeviceSynchronize();
    double cpu = seconds(CLOCK_PROCESS_CPUTIME_ID), wall = seconds(CLOCK_MONOTONIC);
    for (int i = 0; i < count; i++) store<<<1, 32>>>(out, i);
    cudaDeviceSynchronize();
    cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;
    wall = seconds(CLOCK_MONOTONIC) - wall;
    int host[32];
    cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 32; i++) {
        if (host[i] != count - 1) {
            printf("wrong: out[%d] = %d, not %d\n", i, host[i], count - 1);
            return 1;
        }
    }
    printf("launches %d wall_s %.6f cpu_s %.6f\n", count, wall, cpu);
    return 0;
}
