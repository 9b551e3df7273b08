// Math library calls in double and single precision. Compiled twice by the
// tests: with default flags and with -use_fast_math (single precision only
// changes). Rows of `out` are functions, columns are inputs.

extern "C" __global__ void math_f64(const double* x, const double* y, const double* z,
                                    double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double a = x[i], b = y[i], c = z[i];
    out[0 * n + i] = sqrt(fabs(a));
    out[1 * n + i] = a / b;
    out[2 * n + i] = fma(a, b, c);
    out[3 * n + i] = exp(a * 0.01);
    out[4 * n + i] = log(fabs(a));
    out[5 * n + i] = sin(a);
    out[6 * n + i] = cos(b);
    out[7 * n + i] = pow(fabs(a) * 0.01 + 0.5, b * 0.1);
    out[8 * n + i] = __dadd_rn(a, c) * __dmul_rn(b, 3.0);
    out[9 * n + i] = rsqrt(fabs(a) + 1.0);
}

extern "C" __global__ void math_f32(const float* x, const float* y, const float* z,
                                    float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = y[i], c = z[i];
    out[0 * n + i] = sqrtf(fabsf(a));
    out[1 * n + i] = a / b;
    out[2 * n + i] = fmaf(a, b, c);
    out[3 * n + i] = expf(a * 0.01f);
    out[4 * n + i] = logf(fabsf(a));
    out[5 * n + i] = sinf(a);
    out[6 * n + i] = cosf(b);
    out[7 * n + i] = powf(fabsf(a) * 0.01f + 0.5f, b * 0.1f);
    out[8 * n + i] = __fadd_rn(a, c) * __fmul_rn(b, 3.0f);
    out[9 * n + i] = rsqrtf(fabsf(a) + 1.0f);
    out[10 * n + i] = __expf(a * 0.01f);
    out[11 * n + i] = __logf(fabsf(a));
    out[12 * n + i] = __sinf(b);
    out[13 * n + i] = __fdividef(a, b);
}
