// Which lane's compare-and-swap wins when lanes of one warp (and of several warps) race on one word,
// and how many attempts a CAS-loop maximum takes when the values rise with the thread index.
#include <cstdio>
__global__ void first_winner(unsigned* word, unsigned* winner) {
  unsigned old = atomicCAS(word, 0u, threadIdx.x + 1);
  if (old == 0) *winner = threadIdx.x;
}
__global__ void cas_max(unsigned long long* word, unsigned* attempts) {
  unsigned long long val = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long old = *word, assumed;
  unsigned n = 0;
  do { assumed = old; if (assumed >= val) break; old = atomicCAS(word, assumed, val); ++n; } while (assumed != old);
  attempts[blockIdx.x * blockDim.x + threadIdx.x] = n;
}
int main() {
  unsigned *word, *winner, *attempts; unsigned long long* w64;
  cudaMalloc(&word, 4); cudaMalloc(&winner, 4); cudaMalloc(&w64, 8); cudaMalloc(&attempts, 4 * 8192);
  for (int threads : {32, 64, 256, 1024}) {
    for (int rep = 0; rep < 3; ++rep) {
      cudaMemset(word, 0, 4);
      first_winner<<<1, threads>>>(word, winner);
      unsigned h; cudaMemcpy(&h, winner, 4, cudaMemcpyDeviceToHost);
      printf("first_winner threads=%d rep=%d winner=%u\n", threads, rep, h);
    }
  }
  for (int threads : {2048, 8192}) {
    cudaMemset(w64, 0, 8);
    cas_max<<<threads / 256, 256>>>(w64, attempts);
    unsigned* h = new unsigned[threads];
    cudaMemcpy(h, attempts, 4 * threads, cudaMemcpyDeviceToHost);
    unsigned long long total = 0; unsigned most = 0;
    for (int i = 0; i < threads; ++i) { total += h[i]; if (h[i] > most) most = h[i]; }
    unsigned long long m; cudaMemcpy(&m, w64, 8, cudaMemcpyDeviceToHost);
    printf("cas_max threads=%d max=%llu attempts total=%llu most=%u\n", threads, m, total, most);
    delete[] h;
  }
  return 0;
}
