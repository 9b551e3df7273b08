// Kernels whose tiled segments tests/sass/test_fused.py runs as generated code and on the tile: integer
// sums and products with carries, 64-bit address arithmetic, logic and shifts, guarded updates in
// divergent loops, integer and float comparisons, and f32 arithmetic in every rounding mode (compiled
// once as written and once with -use_fast_math, whose FADD/FMUL/FFMA carry .FTZ).

extern "C" __global__ void guarded_integers(const unsigned* a, unsigned* out, unsigned long long* wide, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = a[i], h = x ^ 0x9e3779b9u;
    unsigned long long acc = (unsigned long long)x * 0x100000001ull;
    for (int k = 0; k < (int)(x & 15) + n; ++k) {
        if (h & 1) h = h * 3 + 1; else h >>= 1;
        acc += (unsigned long long)h * (unsigned)(k + 7) + (acc >> 13);
        h ^= __funnelshift_l(h, x, k) + (h < x ? 5u : 11u);
        x = (x & 0xffff0000u) | ((x + h) & 0xffffu);
    }
    out[i] = h;
    wide[(unsigned long long)i * 3 % (unsigned long long)(blockDim.x * gridDim.x)] = acc;
}

extern "C" __global__ void float_rounding(const float* f, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float p = f[2 * i], q = f[2 * i + 1];
    float acc = p;
    for (int k = 0; k < n + (i & 3); ++k) {
        acc = __fmaf_rn(acc, q, p) * 0.5f;
        if (acc > q) acc = __fadd_rz(acc, -q) + __fmul_rd(p, 1.5f);
        else acc = __fmaf_ru(acc, 0.75f, __fmul_rn(q, 1e-30f));
        acc = __fsub_rn(acc, __fmul_rz(acc, 1e-38f));
    }
    out[i] = acc;
}
