// Copies between pinned host memory (cudaMallocHost, cudaHostAlloc), pageable host memory and
// the device, each between two events: prints "name ms checksum" for each. Pinned memory is
// host memory whatever address it has, so its copies are timed as host <-> device ones.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static float timed_copy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind) {
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start, 0);
    cudaMemcpyAsync(dst, src, bytes, kind, 0);
    cudaEventRecord(stop, 0);
    cudaEventSynchronize(stop);
    float ms = -1;
    cudaEventElapsedTime(&ms, start, stop);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return ms;
}

static unsigned long long checksum(const unsigned *p, size_t n) {
    unsigned long long s = 0;
    for (size_t i = 0; i < n; i++) s += (unsigned long long)p[i] * (i % 7 + 1);
    return s;
}

int main(int argc, char **argv) {
    const size_t n = argc > 1 ? strtoull(argv[1], 0, 10) : (1u << 21);
    const size_t bytes = n * sizeof(unsigned);
    unsigned *pinned, *mapped, *pageable = (unsigned *)malloc(bytes), *d_a, *d_b;
    cudaMallocHost(&pinned, bytes);
    cudaHostAlloc(&mapped, bytes, cudaHostAllocDefault);
    cudaMalloc(&d_a, bytes);
    cudaMalloc(&d_b, bytes);
    for (size_t i = 0; i < n; i++) pinned[i] = (unsigned)(i * 2654435761u);
    printf("source %llu\n", checksum(pinned, n));
    printf("HtoD-pinned %.6f\n", timed_copy(d_a, pinned, bytes, cudaMemcpyHostToDevice));
    printf("DtoD %.6f\n", timed_copy(d_b, d_a, bytes, cudaMemcpyDeviceToDevice));
    printf("DtoH-hostalloc %.6f\n", timed_copy(mapped, d_b, bytes, cudaMemcpyDeviceToHost));
    printf("DtoH-pageable %.6f\n", timed_copy(pageable, d_b, bytes, cudaMemcpyDeviceToHost));
    printf("HtoH-pinned %.6f\n", timed_copy(pinned, mapped, bytes, cudaMemcpyHostToHost));
    printf("hostalloc %llu pageable %llu\n", checksum(mapped, n), checksum(pageable, n));
    printf("last %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
