// Copies of 2 GiB and more between host and device (sizes past a C int).
// Usage: large_copy seed. Fills (1 << 31) + 4096 bytes on the host from seed, copies them to the
// device, adds 1 to every byte of the last 8192 in a kernel, copies all back and prints the sums
// of the first and last 8192 bytes before and after, and "match <0|1>" for the untouched middle.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__global__ void bump(unsigned char *p, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    const size_t n = (1ull << 31) + 4096, tail = 8192;
    unsigned char *host = (unsigned char *)malloc(n), *back = (unsigned char *)malloc(n);
    unsigned state = atoi(argv[1]);
    for (size_t i = 0; i < n; i += 4096) {          // a pattern per page, cheap to make
        state = state * 1664525u + 1013904223u;
        memset(host + i, state >> 24, n - i < 4096 ? n - i : 4096);
    }
    for (size_t i = n - tail; i < n; i++) host[i] = (unsigned char)(i % 251);
    unsigned char *device;
    cudaError_t e = cudaMalloc(&device, n);
    if (e != cudaSuccess) { printf("malloc %s\n", cudaGetErrorName(e)); return 1; }
    printf("to device %s\n", cudaGetErrorName(cudaMemcpy(device, host, n, cudaMemcpyHostToDevice)));
    bump<<<tail / 256, 256>>>(device + n - tail, tail);
    printf("to host %s\n", cudaGetErrorName(cudaMemcpy(back, device, n, cudaMemcpyDeviceToHost)));
    unsigned long long head_sum = 0, tail_sum = 0, tail_before = 0;
    for (size_t i = 0; i < tail; i++) head_sum += back[i];
    for (size_t i = n - tail; i < n; i++) { tail_sum += back[i]; tail_before += host[i]; }
    printf("head %llu tail before %llu after %llu\n", head_sum, tail_before, tail_sum);
    printf("match %d\n", memcmp(host, back, n - tail) == 0);
    cudaFree(device);
    free(host);
    free(back);
    return 0;
}
