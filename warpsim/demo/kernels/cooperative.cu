// The design trade-off (simt-execution.md, "Operational guidance and
// trade-offs"): row softmax and layer norm written two ways. One thread per
// row is simple; one warp per row has its lanes stride across the row and
// reduces with shuffles, as fused softmax and layer norm do in training code.
__device__ float warp_max(float v) {
    for (int offset = 16; offset > 0; offset >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;                                    // every lane holds the maximum
}

__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;                                    // every lane holds the sum
}

// ---- one thread per row: each thread walks its row alone
extern "C" __global__ void softmax_thread_per_row(const float* x, float* y, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* in = x + (size_t)row * cols;
    float* out = y + (size_t)row * cols;
    float m = __int_as_float(0xff800000);     // -infinity
    for (int j = 0; j < cols; ++j) m = fmaxf(m, in[j]);
    float s = 0.f;
    for (int j = 0; j < cols; ++j) s += __expf(in[j] - m);
    float r = 1.f / s;
    for (int j = 0; j < cols; ++j) out[j] = __expf(in[j] - m) * r;
}

// ---- one warp per row: lanes stride across the row, shuffles reduce
extern "C" __global__ void softmax_warp_per_row(const float* x, float* y, int rows, int cols) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;                     // whole warps leave together
    const float* in = x + (size_t)row * cols;
    float* out = y + (size_t)row * cols;
    float m = __int_as_float(0xff800000);     // -infinity
    for (int j = lane; j < cols; j += 32) m = fmaxf(m, in[j]);
    m = warp_max(m);
    float s = 0.f;
    for (int j = lane; j < cols; j += 32) s += __expf(in[j] - m);
    float r = 1.f / warp_sum(s);
    for (int j = lane; j < cols; j += 32) out[j] = __expf(in[j] - m) * r;
}

extern "C" __global__ void layernorm_thread_per_row(const float* x, const float* w, const float* b,
                                                    float* y, int rows, int cols, float eps) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* in = x + (size_t)row * cols;
    float* out = y + (size_t)row * cols;
    float s = 0.f;
    for (int j = 0; j < cols; ++j) s += in[j];
    float mean = s / cols;
    float q = 0.f;
    for (int j = 0; j < cols; ++j) { float d = in[j] - mean; q += d * d; }
    float rstd = rsqrtf(q / cols + eps);
    for (int j = 0; j < cols; ++j) out[j] = (in[j] - mean) * rstd * w[j] + b[j];
}

extern "C" __global__ void layernorm_warp_per_row(const float* x, const float* w, const float* b,
                                                  float* y, int rows, int cols, float eps) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float* in = x + (size_t)row * cols;
    float* out = y + (size_t)row * cols;
    float s = 0.f;
    for (int j = lane; j < cols; j += 32) s += in[j];
    float mean = warp_sum(s) / cols;
    float q = 0.f;
    for (int j = lane; j < cols; j += 32) { float d = in[j] - mean; q += d * d; }
    float rstd = rsqrtf(warp_sum(q) / cols + eps);
    for (int j = lane; j < cols; j += 32) out[j] = (in[j] - mean) * rstd * w[j] + b[j];
}
