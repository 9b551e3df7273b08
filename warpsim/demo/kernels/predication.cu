// Predication (simt-execution.md, "Predication: when the compiler avoids the
// branch"): a short ternary becomes a compare and a select; a long body stays
// a branch, and a lane-dependent condition makes the warp run both sides.
extern "C" __global__ void leaky_relu(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    y[i] = (v > 0.f) ? v : 0.1f * v;                  // short: select
}

extern "C" __global__ void long_branch(const float* x, float* y, int n, int steps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    if (v > 0.f) {                                    // long: a real branch
        for (int k = 0; k < steps; ++k) v = v * 0.999f + 0.25f;
    } else {
        for (int k = 0; k < steps; ++k) v = v * 1.001f - 0.25f;
    }
    y[i] = v;
}
