// Collectives of different kinds, or whole-warp shuffles, met at different instructions (sm_70:
// a .sync collective waits for its named lanes at *a* collective of its kind and mask). Half-warps
// run a loop 2 and 1 times; prints each lane's results, one line per case.
//   mixed: the loop holds a ballot, the code after it a __reduce_add_sync (different kinds)
//   xor:   a butterfly shuffle over all 32 lanes in the loop and after it (values cross halves)
//   any:   __any_sync in the loop, __all_sync after it (one kind, VOTE, other modes)
#include <cstdio>
__global__ void mixed(unsigned* out, int n0, int n1) {
  int lane = threadIdx.x & 31, n = lane < 16 ? n0 : n1;
  unsigned b = 0;
  for (int i = 0; i < n; i++) b = b * 3 + __ballot_sync(0xffffffffu, (lane + i) & 1);
  b = b * 3 + __reduce_add_sync(0xffffffffu, lane + 100);
  out[lane] = b;
}
__global__ void xor_shfl(unsigned* out, int n0, int n1) {
  int lane = threadIdx.x & 31, n = lane < 16 ? n0 : n1;
  unsigned v = lane * 7 + 1;
  for (int i = 0; i < n; i++) v = v * 3 + __shfl_xor_sync(0xffffffffu, v, 16 >> i);
  v = v * 5 + __shfl_xor_sync(0xffffffffu, v, 1);
  out[lane] = v;
}
__global__ void any_all(unsigned* out, int n0, int n1) {
  int lane = threadIdx.x & 31, n = lane < 16 ? n0 : n1;
  unsigned r = 0;
  for (int i = 0; i < n; i++) r = r * 3 + __any_sync(0xffffffffu, lane == 20 + i);
  r = r * 3 + __all_sync(0xffffffffu, lane != 3);
  out[lane] = r;
}
int main(int argc, char** argv) {      // argv[1]: the case (0, 1 or 2); an H100 never finishes case 0
  unsigned *d, h[32];
  cudaMalloc(&d, sizeof h);
  const char* names[] = {"mixed", "xor", "any_all"};
  int k = argc > 1 ? argv[1][0] - '0' : 1;
  {
    cudaMemset(d, 0, sizeof h);
    if (k == 0) mixed<<<1, 32>>>(d, 2, 1);
    if (k == 1) xor_shfl<<<1, 32>>>(d, 2, 1);
    if (k == 2) any_all<<<1, 32>>>(d, 2, 1);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%s %s:", names[k], cudaGetErrorName(e));
    for (int i = 0; i < 32; i++) printf(" %u", h[i]);
    printf("\n");
    if (e != cudaSuccess) return 1;
  }
  return 0;
}
