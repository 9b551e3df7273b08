// .sync collectives whose lanes meet at different instructions (sm_70: the same kind and mask is
// enough): half-warps that run a loop of a collective 2 and 1 times. Shuffles (HeCBench jaccard's
// pattern), ballots, __syncwarp and __reduce_add_sync; prints each lane's results, one line per kind.
#include <cstdio>
__global__ void sites(unsigned* out, int n0, int n1) {
  int lane = threadIdx.x & 31, n = lane < 16 ? n0 : n1;
  unsigned s = lane, b = 0, r = 0, w = lane;
  for (int i = 0; i < n; i++) {
    s += __shfl_sync(0xffffffffu, s, 15, 16);
    b += __ballot_sync(0xffffffffu, (lane + i) & 1);
    r += __reduce_add_sync(0xffffffffu, lane + i);
    w = w * 3 + 1;
    __syncwarp();
  }
  s = __shfl_sync(0xffffffffu, s, 15, 16);
  b += __ballot_sync(0xffffffffu, lane & 3);
  r += __reduce_add_sync(0xffffffffu, lane);
  __syncwarp();
  out[lane] = s; out[32 + lane] = b; out[64 + lane] = r; out[96 + lane] = w;
}
int main() {
  unsigned *d, h[128];
  cudaMalloc(&d, sizeof h);
  cudaMemset(d, 0, sizeof h);
  sites<<<1, 32>>>(d, 2, 1);
  cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("sync: %s\n", cudaGetErrorName(e));
  const char* kinds[] = {"shfl", "ballot", "reduce_add", "syncwarp"};
  for (int k = 0; k < 4; k++) {
    printf("%s", kinds[k]);
    for (int i = 0; i < 32; i++) printf(" %u", h[32 * k + i]);
    printf("\n");
  }
  return 0;
}
