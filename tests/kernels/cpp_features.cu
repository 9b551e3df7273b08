// C++ at the kernel boundary: a struct passed by value, and templates whose
// instantiations are found through NVRTC name expressions.

struct Params {
    int n;
    float scale;
    double offset;
    const int* source;
    char tag;
    short pair[2];
    long long big;
};

extern "C" __global__ void struct_by_value(Params p, double* out, long long* extra) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.n) return;
    out[i] = p.source[i] * (double)p.scale + p.offset;
    extra[i] = p.big + p.tag * 1000 + p.pair[0] * 10 + p.pair[1] + i;
}

template <typename T, int FACTOR>
__global__ void scale_add(const T* x, T* y, T bias, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * (T)FACTOR + bias;
}

template <typename T>
__device__ T clamp_to(T v, T lo, T hi) { return v < lo ? lo : (v > hi ? hi : v); }

template <typename T>
__global__ void clamp_all(T* data, T lo, T hi, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        data[i] = clamp_to(data[i], lo, hi);
}

namespace corpus {
template <int N>
__global__ void sum_rows(const int* m, int* out, int rows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    int s = 0;
#pragma unroll
    for (int k = 0; k < N; ++k) s += m[r * N + k];
    out[r] = s;
}
}
