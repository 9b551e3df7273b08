// FMUL with a result scale: ptxas folds a contractable mul (no .rn) by a power of two into the
// product's FMUL (FMUL.D2 R, a, b = (a * b) / 2). The pairs are written in PTX so that NVVM does
// not turn a * 2 into an add first; .ftz gives FMUL.FTZ.D2 / FMUL.FTZ.M2.
#define SCALED(name, mul, scale)                                                        \
    __device__ __forceinline__ float name(float a, float b) {                          \
        float p, r;                                                                     \
        asm(mul " %0, %1, %2;" : "=f"(p) : "f"(a), "f"(b));                             \
        asm(mul " %0, %1, " scale ";" : "=f"(r) : "f"(p));                              \
        return r;                                                                       \
    }
SCALED(half_of, "mul.f32", "0f3F000000")
SCALED(twice, "mul.f32", "0f40000000")
SCALED(half_of_ftz, "mul.ftz.f32", "0f3F000000")
SCALED(twice_ftz, "mul.ftz.f32", "0f40000000")

extern "C" __global__ void scaled_products(const float* x, const float* y, float* d2, float* m2,
                                           float* d2_ftz, float* m2_ftz, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = y[i];
    d2[i] = half_of(a, b);          // FMUL.D2
    m2[i] = twice(a, b);            // FMUL.M2
    d2_ftz[i] = half_of_ftz(a, b);  // FMUL.FTZ.D2
    m2_ftz[i] = twice_ftz(a, b);    // FMUL.FTZ.M2
}
