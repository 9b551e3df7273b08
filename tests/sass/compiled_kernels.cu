#include <cuda_fp16.h>

// Kernels whose value instructions tests/sass/test_compiled.py runs both ways (NumPy steps, machine code):
// integer forms (64-bit sums and products, carries, shifts, logic, min/max, bit counts), comparisons of
// every kind, fp32 and fp64 arithmetic under several flags, conversions, and uniform loops.

extern "C" __global__ void integers(const long long* a, const unsigned* b, long long* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    long long x = a[i];
    unsigned y = b[i];
    long long acc = x * (long long)y + (x >> 7) - (long long)(y << 3);
    unsigned long long u = (unsigned long long)x;
    acc ^= (long long)(u >> (y & 63)) | (long long)(u << ((y >> 8) & 63));
    acc += __umulhi(y, 0x9e3779b9u) + __mulhi((int)y, -7) + (long long)__umul64hi(u, 0x12345678abcdefull);
    acc += __popc(y) + __clz(y) + __ffs((int)y) + (long long)__brev(y) + __byte_perm(y, (unsigned)x, 0x3210 ^ (y & 0x7777));
    acc += min((int)y, (int)x) + max(y, (unsigned)x) + abs((int)x) + llmin(x, (long long)y) + llmax(x, -(long long)y);
    acc += (y % 7u == 3u) ? (long long)(y / 5u) : (long long)((int)y / -3);
    acc += __funnelshift_l(y, (unsigned)x, y) + __funnelshift_rc(y, (unsigned)(x >> 32), y >> 4);
    acc += __sad((int)y, (int)x, 3u) + __usad(y, (unsigned)x, 9u);
    for (int k = 0; k < n; ++k) acc = acc * 3 + (acc >> 11) + k;
    out[i] = acc;
}

extern "C" __global__ void comparisons(const long long* a, const long long* b, const float* f, const double* d,
                                       int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    long long x = a[i], y = b[i];
    unsigned long long ux = x, uy = y;
    float p = f[2 * i], q = f[2 * i + 1];
    double r = d[2 * i], s = d[2 * i + 1];
    int bits = (x < y) | (x <= y) << 1 | (ux > uy) << 2 | (ux >= uy) << 3 | (x == y) << 4 | ((int)x != (int)y) << 5;
    bits |= (p < q) << 6 | (p <= q) << 7 | (p > q) << 8 | (p >= q) << 9 | (p == q) << 10 | (p != q) << 11;
    bits |= !(p < q) << 12 | !(p >= q) << 13 | (isnan(p)) << 14 | (isinf(q)) << 15;
    bits |= (r < s) << 16 | (r >= s) << 17 | (r != s) << 18 | !(r > s) << 19;
    bits |= ((unsigned)x < (unsigned)y) << 20 | ((short)x > (short)y) << 21 | ((x & 7) > 3 && (y & 7) < 5) << 22;
    out[i] = bits + (p > q ? 7 : 13) + (x > 0 ? (int)y : (int)x);
}

extern "C" __global__ void floats(const float* x, const float* y, float* out, double* dout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = x[i], b = y[i];
    float v = fmaf(a, b, -a) + a * b - b / 3.0f + fabsf(a - b) * -2.5f;
    v += fminf(a, b) + fmaxf(a, -b) + __fadd_rz(a, b) + __fmul_ru(a, b) + __fmaf_rd(a, b, v) + __fsub_rn(b, a);
    v += (float)(int)(a * 100.0f) + (float)(unsigned)fabsf(b * 1000.0f) + __int2float_rz(i) + (float)(i - 77);
    v = copysignf(v, b) + __saturatef(a) + truncf(b) + floorf(a) + ceilf(b) + rintf(a * 3.0f);
    double w = (double)a * (double)b + (double)v;
    w = fma(w, (double)a, -1.0) + w * 0.25 - (double)b;
    for (int k = 0; k < n; ++k) { v = v * 0.5f + a; w = w * 1.5 - (double)k; }
    out[i] = v + (float)w;
    dout[i] = w + (double)(long long)(v * 16.0f);
}

extern "C" __global__ void halves_and_selects(const unsigned* x, const float* y, unsigned* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned h = x[i];
    float f = y[i];
    __half2 a = *reinterpret_cast<__half2*>(&h);
    float lo = __low2float(a), hi = __high2float(a);
    __half2 b = __floats2half2_rn(lo * f, hi + f);
    unsigned packed = *reinterpret_cast<unsigned*>(&b);
    int flags = (lo > hi) + 2 * (f < 0.0f) + 4 * (h & 1);
    out[i] = packed ^ (flags == 3 ? 0xffffu : flags == 5 ? 0xff00u : (unsigned)(f * 8.0f));
}

extern "C" __global__ void uniform_loops(const float* x, float* out, int n, int m) {
    __shared__ float tile[128];
    float acc = 0.0f;
    for (int k = 0; k < n; ++k) {                // the trip count and index in uniform registers
        tile[threadIdx.x] = x[(blockIdx.x * n + k) * 128 + threadIdx.x];
        __syncthreads();
        for (int j = 0; j < m; ++j) acc += tile[(threadIdx.x + j * 5) & 127] * (float)(k + j);
        __syncthreads();
    }
    out[blockIdx.x * 128 + threadIdx.x] = acc;
}

extern "C" __global__ void divergent_steps(const long long* a, const unsigned* b, long long* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = b[i] | 1u;
    long long acc = a[i];
    int steps = 0;
    while (v != 1u && steps < n) {                 // lanes leave the loop at different trips
        v = (v & 1u) ? 3u * v + 1u : v >> 1;
        acc = (acc ^ (long long)v) * 0x100000001b3ll + (acc >> 13);
        ++steps;
    }
    out[i] = acc + steps;
}
