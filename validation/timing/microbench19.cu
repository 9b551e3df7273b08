// Nineteenth batch (run_microbench19.py): how much an SM's L1 holds of what its CTAs read again, and
// what local-memory counters cost.
//
// mb19_sweep: each warp chases a chain through a region of its own, `lines` 128-byte lines, `passes`
// times over, one coalesced 4-byte load per lane a line. The regions hold zeros and each load's
// address adds the value the last one read, so every load waits for the one before: a pass costs
// lines x the latency where the region's lines are served from (L1 while the SM's regions fit it,
// L2 once they do not). `store_mode` 1 also stores the running sum each line to 32 lines (one per
// lane, 4 KB apart), 2 to one line, as kernels that write a result inside their loop do. Dynamic
// shared memory (`shared` bytes, untouched) sets the carve-out the driver picks and so what is left
// for L1. clock64 at the start of the second pass and at the end (clocks[2 * cta], [2 * cta + 1]).
//
// mb19_hist: `iters` byte loads per thread, each counted into a 16-entry array indexed by the value
// (a histogram in local memory, as windowed-entropy kernels keep one): chars (mb19_hist_char) or ints
// (mb19_hist_int).
// Build: nvcc -arch=sm_90 -cubin -o microbench19.cubin microbench19.cu

extern "C" __global__ void mb19_sweep(const int* data, long long* clocks, int* scratch, int lines, int passes,
                                      int store_mode) {
    extern __shared__ int unused[];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const long long owner = (long long)blockIdx.x * (blockDim.x >> 5) + warp;
    const int* region = data + owner * lines * 32;
    int* column = scratch + lane * 1024 + (owner & 1023);
    int* row = scratch + (owner & 1023) * 32 + lane;
    int acc = 0, off = lane;
    long long start = 0;
    for (int p = 0; p < passes; ++p) {
        if (p == 1) start = clock64();
        for (int l = 0; l < lines; ++l) {
            int v = region[off];
            acc += v + l;
            off += 32 + v;
            if (store_mode == 1) *column = acc;
            else if (store_mode == 2) *row = acc;
        }
        off = lane + (acc & 0x40000000);
    }
    long long end = clock64();
    if (threadIdx.x == 0) {
        clocks[2 * blockIdx.x] = start;
        clocks[2 * blockIdx.x + 1] = end;
    }
    if (acc == 0x7fffffff) scratch[0] = off;
}

template <typename Count>
__device__ void hist(const unsigned char* vals, float* out, int iters, int stride) {
    Count count[16];
    for (int i = 0; i < 16; ++i) count[i] = 0;
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < iters; ++k) count[vals[x + k * stride] & 15]++;
    float e = 0.0f;
    for (int i = 0; i < 16; ++i) e += (float)count[i] * (float)(i + 1);
    out[x] = e;
}

extern "C" __global__ void mb19_hist_char(const unsigned char* vals, float* out, int iters, int stride) {
    hist<char>(vals, out, iters, stride);
}

extern "C" __global__ void mb19_hist_int(const unsigned char* vals, float* out, int iters, int stride) {
    hist<int>(vals, out, iters, stride);
}

// mb19_scatter: each warp stores to (mode 0) or loads from (mode 1, L1 hits after the first round)
// lines of its own, its 32 lanes spread over `lines` of them (lane l: line l % lines, word l / lines),
// four requests an iteration to four groups of lines, `iters` iterations: the L1's cost of a request
// by the lines it names, with no other SM touching them. `zero` is 0. clock64 per CTA as mb19_sweep.
extern "C" __global__ void mb19_scatter(int* buf, long long* clocks, int lines, int iters, int mode, int zero) {
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const long long owner = (long long)blockIdx.x * (blockDim.x >> 5) + warp;
    int* region = buf + owner * 4 * 32 * 32 + (lane % lines) * 32 + lane / lines;
    int acc = lane;
    long long start = clock64();
    for (int k = 0; k < iters; ++k) {
        int* r = region + k * zero;     // `zero` (0) keeps the compiler from one access for all iterations
        if (mode == 0) {
            r[0] = acc + k;
            r[32 * 32] = acc + k + 1;
            r[2 * 32 * 32] = acc + k + 2;
            r[3 * 32 * 32] = acc + k + 3;
        } else {
            acc += r[0] + r[32 * 32] + r[2 * 32 * 32] + r[3 * 32 * 32];
        }
    }
    long long end = clock64();
    if (threadIdx.x == 0) {
        clocks[2 * blockIdx.x] = start;
        clocks[2 * blockIdx.x + 1] = end;
    }
    if (acc == 0x7fffffff) buf[0] = acc;
}
