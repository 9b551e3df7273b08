// Sixteenth batch (run_microbench16.py): MUFU beside other work in one sub-partition. Each round a
// warp issues M independent MUFU.EX2 and F independent FFMAs (eight chains each, so no result waits
// on its producer), `iters` rounds; one CTA of `warps` warps per SM. Against the timing model's
// assumption that a sub-partition's issue slot and its pipes work at once (a round costs
// max(M + F, 8 M) cycles a warp), ncu's time and stall reasons say what the H200 does.

__device__ __forceinline__ float ex2_neg(float x) {          // 2^-x: one MUFU.EX2 (the negation folds in)
    float y;
    asm volatile("{\n.reg .f32 t;\nneg.f32 t, %1;\nex2.approx.ftz.f32 %0, t;\n}" : "=f"(y) : "f"(x));
    return y;
}

template <int M, int F>
__device__ __forceinline__ void rounds(float* out, int iters) {
    float m[8], f[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) { m[j] = threadIdx.x * 1e-4f + j * 1e-3f; f[j] = m[j] + 1.0f; }
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < M; ++j) m[j & 7] = ex2_neg(m[j & 7]);
#pragma unroll
        for (int j = 0; j < F; ++j) f[j & 7] = fmaf(f[j & 7], 1.0001f, 0.5f);
    }
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < 8; ++j) s += m[j] + f[j];
    if (s == 12345.f) out[blockIdx.x] = s;
}

#define MIX(M, F) \
    extern "C" __global__ void mb16_m##M##_f##F(float* out, int iters) { rounds<M, F>(out, iters); }
MIX(8, 0)
MIX(0, 32)
MIX(8, 8)
MIX(8, 16)
MIX(8, 32)
MIX(8, 64)
MIX(2, 32)
