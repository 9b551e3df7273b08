// SIMT versus SIMD (simt-execution.md, opening section): the same conditional
// written for one thread; the hardware keeps the per-lane mask.
extern "C" __global__ void conditional(const float* x, float* y, int n, int steps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    if (v > 0.f) {
        for (int k = 0; k < steps; ++k) v = v * 0.999f + 0.25f;
    } else {
        for (int k = 0; k < steps; ++k) v = v * 1.001f - 0.25f;
    }
    y[i] = v;
}
