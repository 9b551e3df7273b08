// "A GPU kernel launched with too few threads is slow even when it does little
// arithmetic" (simt-execution.md, "Latency hiding"): c = a + s * b over n
// elements with a grid-stride loop, correct with any grid it is launched with.
extern "C" __global__ void triad_loop(const float* a, const float* b, float* c, float s, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        c[i] = a[i] + s * b[i];
}

// Blocks of equal arithmetic: the grid runs in waves of as many blocks as the
// SMs hold at once, and a last wave of one block takes as long as a full one.
extern "C" __global__ void block_of_work(float* out, int steps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i;
    for (int s = 0; s < steps; ++s) v = v * 0.999f + 0.5f;
    out[i] = v;
}
