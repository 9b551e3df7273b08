// Sixth batch (run_microbench6.py): how fast an SM turns a CTA slot over. Grids of many short CTAs,
// with dynamic shared memory capping the CTAs an SM holds at once (1 to 32): an empty CTA, a CTA
// whose threads store one float each, one whose threads read one float and store it, and one whose
// threads only read. Time per CTA per slot = measured time * slots / (CTAs per SM).

extern "C" {

__global__ void mb6_empty(float* out) {
    if (threadIdx.x == 1023 && blockIdx.x == 0x7fffffff) out[0] = 1.f;
}

__global__ void mb6_store(float* out) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = (float)i;
}

__global__ void mb6_copy(float* out, const float* in) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i] * 2.f;
}

__global__ void mb6_read(float* out, const float* in) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    if (v == 12345.f) out[0] = v;
}

}
