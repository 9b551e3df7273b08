// cuRAND's device API (curand_kernel.h, header-only: no libcurand): each thread draws from its
// own Philox4_32_10 and XORWOW subsequence. XORWOW's curand_init skips ahead with the header's
// precomputed matrices (large __device__ tables).
// Usage: curand_device SEED THREADS out.bin. Writes per thread: 5 Philox draws (subsequence =
// thread, offset = thread % 7), then 3 XORWOW draws (subsequence = thread, offset 3), then the
// bits of a curand_uniform from each generator.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <curand_kernel.h>
#include "io.h"

constexpr int PER_THREAD = 10;

__global__ void draw(unsigned long long seed, unsigned int *out, int threads) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    unsigned int *mine = out + t * PER_THREAD;
    curandStatePhilox4_32_10_t philox;
    curand_init(seed, t, t % 7, &philox);
    for (int k = 0; k < 5; k++) mine[k] = curand(&philox);
    curandState xorwow;
    curand_init(seed, t, 3, &xorwow);
    for (int k = 0; k < 3; k++) mine[5 + k] = curand(&xorwow);
    mine[8] = __float_as_uint(curand_uniform(&philox));
    mine[9] = __float_as_uint(curand_uniform(&xorwow));
}

int main(int argc, char **argv) {
    if (argc != 4) return 2;
    unsigned long long seed = strtoull(argv[1], nullptr, 10);
    int threads = atoi(argv[2]);
    std::vector<unsigned int> out(threads * PER_THREAD);
    unsigned int *d_out;
    CHECK(cudaMalloc(&d_out, out.size() * sizeof(unsigned int)));
    draw<<<(threads + 31) / 32, 32>>>(seed, d_out, threads);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_out));
    write_file(argv[3], out.data(), out.size());
    printf("done\n");
    return 0;
}
