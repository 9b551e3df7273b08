// Fiftieth microbenchmark batch (run_microbench50.py): the shared pipe's passes for loads of 4, 8 and
// 16 bytes a lane, by how many distinct addresses a warp's 32 lanes name: every lane its own element
// (consecutive), or 1 (broadcast), 2, 4 or 8 (lanes in groups of 32 / k naming one element each).
// Each thread runs `iters` rounds of 8 independent loads (ld.shared of one width), each consumed by one
// FFMA a 4 or 8 bytes received, into two chains; 8 CTAs of 256 threads an SM hold 64 warps.
template <int BYTES>
__device__ __forceinline__ void mb50_take(unsigned addr, float& a, float& b) {
    if (BYTES == 4) {
        float x;
        asm volatile("ld.shared.f32 %0, [%1];" : "=f"(x) : "r"(addr));
        a = fmaf(x, 1.0001f, a);
    } else if (BYTES == 8) {
        float x, y;
        asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(x), "=f"(y) : "r"(addr));
        a = fmaf(x, y, a);
    } else {
        float x, y, z, w;
        asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(x), "=f"(y), "=f"(z), "=f"(w) : "r"(addr));
        a = fmaf(x, y, a);
        b = fmaf(z, w, b);
    }
}

template <int BYTES>
__device__ void mb50_body(float* out, int groups, int iters) {
    __shared__ __align__(16) float table[4096];         // 16 KB
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) table[i] = 1.0f + (i & 7) * 0.125f;
    __syncthreads();
    int lane = threadIdx.x & 31;
    // groups == 0: every lane its own element; otherwise `groups` elements, 32 / groups lanes on each
    int element = groups == 0 ? lane : lane / (32 / groups);
    unsigned base = (unsigned)__cvta_generic_to_shared(table);
    float a = 0.f, b = 0.f;
#pragma unroll 1
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            int row = ((it * 8 + j) * 32) & (4096 * 4 / BYTES - 1);      // a new run of 32 elements each load
            mb50_take<BYTES>(base + (unsigned)((row + element) * BYTES), a, b);
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a + b;
}

extern "C" {

__global__ void mb50_lds4(float* out, int groups, int iters) { mb50_body<4>(out, groups, iters); }
__global__ void mb50_lds8(float* out, int groups, int iters) { mb50_body<8>(out, groups, iters); }
__global__ void mb50_lds16(float* out, int groups, int iters) { mb50_body<16>(out, groups, iters); }

}
