// The three numbers to check before touching the algorithm (simt-execution.md,
// "Operational guidance and trade-offs"): one slow kernel and its fixed version.
// Each item has a value and a kind; kind 0 and kind 1 take different paths of
// equal length.
struct Item { float value; int kind; float weight[6]; };   // 32 bytes: an array of structs

__device__ float path(float v, int kind, int steps) {
    if (kind == 0) { for (int s = 0; s < steps; ++s) v = v * 0.999f + 0.25f; }
    else           { for (int s = 0; s < steps; ++s) v = v * 1.001f - 0.25f; }
    return v;
}

// slow: items as structs (a warp's loads land 32 bytes apart), a grid-stride loop
// that works with however few threads it is launched with.
extern "C" __global__ void score_slow(const Item* items, float* out, int n, int steps) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = path(items[i].value, items[i].kind, steps);
}

// fixed: a structure of arrays (adjacent lanes read adjacent floats); launched with a
// thread per item it makes one trip of its loop.
extern "C" __global__ void score_fixed(const float* values, const int* kinds, float* out, int n, int steps) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = path(values[i], kinds[i], steps);
}
