// Sixty-ninth microbenchmark batch (run_microbench69.py): the issue of an attention loop's softmax, apart
// from its copies and its wgmmas. Set 3's attention launches at 4 heads (one CTA an SM) run 15-34% longer
// than the model's walk of their warps, ncu's samples showing `wait` at MUFU, FADD and FMNMX,
// `short_scoreboard` after SHFL and MUFU and `dispatch_stall` at IMAD. Each thread keeps N scores in
// registers; a round takes their row maximum (an FMNMX chain, then across the four lanes of a row with
// SHFL.BFLY as Triton's MMA layout does, or across the warp), exponentiates (FFMA then MUFU.EX2, as Triton's ex2.approx), sums
// (an FADD chain and the same shuffles), and rescales the scores for the next round.
#include <cstdint>

__device__ __forceinline__ float ex2(float x) {    // what Triton's exp2 and exp lower to: one MUFU.EX2
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

template <int N, int SHUFFLES>
__device__ __forceinline__ void softmax_rounds(const float* __restrict__ in, float* __restrict__ out, int rounds) {
    float s[N];
#pragma unroll
    for (int j = 0; j < N; ++j) s[j] = in[(blockIdx.x * blockDim.x + threadIdx.x) * N + j];
    float acc = 0.f, m_prev = -1e30f, l = 0.f;
#pragma unroll 1
    for (int r = 0; r < rounds; ++r) {
        float m = s[0];
#pragma unroll
        for (int j = 1; j < N; ++j) m = fmaxf(m, s[j]);
#pragma unroll
        for (int k = 0; k < SHUFFLES; ++k) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1 << k));
        m = fmaxf(m, m_prev);
        float alpha = ex2((m_prev - m) * 1.4426950408889634f);
        float sum = 0.f;
#pragma unroll
        for (int j = 0; j < N; ++j) {
            float p = ex2(fmaf(s[j], 1.4426950408889634f, -m * 1.4426950408889634f));
            sum += p;
            s[j] = fmaf(p, 0.75f, s[j] * 0.25f);
        }
#pragma unroll
        for (int k = 0; k < SHUFFLES; ++k) sum += __shfl_xor_sync(0xffffffffu, sum, 1 << k);
        l = l * alpha + sum;
        acc = acc * alpha + s[N - 1];
        m_prev = m;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc + l;
}

#define MB69(N, SH) \
extern "C" __global__ void mb69_n##N##_sh##SH(const float* in, float* out, int rounds) { \
    softmax_rounds<N, SH>(in, out, rounds); \
}
MB69(16, 2)
MB69(32, 2)
MB69(64, 2)
MB69(32, 0)
MB69(32, 5)
