// Variable-length loops (simt-execution.md, "SIMT efficiency in numbers"):
// each thread walks one token sequence; a warp loops until its longest lane
// is done. `#pragma unroll 1` keeps one loop trip per token, as in the text.
extern "C" __global__ void per_token(const int* lengths, const float* tokens,
                                     float* out, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int length = lengths[i];
    float acc = 0.f;
    #pragma unroll 1
    for (int t = 0; t < length; ++t)
        acc = acc * 0.5f + tokens[t * stride + i];     // the loop body
    out[i] = acc;
}
