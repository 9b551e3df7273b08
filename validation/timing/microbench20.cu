// Twentieth batch (run_microbench20.py): what the L2 receives when a warp's stores write parts of the
// same sectors one after another. Each thread writes `fields` 4-byte values, one store each, to a
// record of `stride` bytes of its own (records back to back: thread t's at t * stride), so a warp's
// k-th store writes field k of 32 records and the warp's stores together fill every sector:
// stride 16 with 4 fields (four adjacent ints a thread, as a block scan's items), stride 20 with 5
// (an array of 5-float structs), stride 4 with 1 (one coalesced int a thread), and `vector` 1 writes
// a 16-byte record with one 128-bit store instead. No loads: the values come from the thread index.
// Build: nvcc -arch=sm_90 -cubin -o microbench20.cubin microbench20.cu
extern "C" __global__ void mb20_fields(float* out, int stride, int fields, int vector, long long n) {
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    float v = (float)(t & 1023);
    char* record = (char*)out + t * stride;
    if (vector) {
        *(float4*)record = make_float4(v, v + 1.0f, v + 2.0f, v + 3.0f);
        return;
    }
    for (int k = 0; k < fields; ++k) ((float*)record)[k] = v + (float)k;
}
