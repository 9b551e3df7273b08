// Thirty-first batch (run_microbench31.py): what HBM and the L2 do with one float a lane read or
// written `stride` floats apart (set 2's strided copies: the H200 takes 1.24x as long at 64 floats as
// at 32 for reads and 1.37x for writes, where the sectors and lines a warp asks for are the same).
// Thread i reads in[i * stride] and writes out[i] (mb31_load), or reads in[i] and writes
// out[i * stride] (mb31_store). Build: nvcc -arch=sm_90 -cubin -o microbench31.cubin microbench31.cu

extern "C" __global__ void mb31_load(float* out, const float* in, int n, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[(long long)i * stride] * 3.0f;
}

extern "C" __global__ void mb31_store(float* out, const float* in, int n, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[(long long)i * stride] = in[i] * 3.0f;
}
