// Block sizes that are not multiples of 32 (simt-execution.md, "Failure
// modes"): a block of 100 threads is four warps, the last with four live lanes.
extern "C" __global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i];
}

// The same block sizes on arithmetic: every warp issues `steps` multiply-adds per
// element whether its lanes are live or not.
extern "C" __global__ void polish(float* x, int n, int steps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    for (int s = 0; s < steps; ++s) v = v * 0.999f + 0.5f;
    x[i] = v;
}
