// Twenty-second batch (run_microbench22.py): do warps that load in step wait for each other's
// lines? Every warp of a grid of one or two CTAs an SM walks its own region of HBM, one coalesced
// 128-byte line an iteration, each load's address depending on the line before (the loaded words
// are zeros), `iters` iterations timed by clock64. `spread` 0: every warp starts at once, so the
// grid's loads leave together each iteration; spread > 0: warp w of the SM first waits
// (w * spread) % 1024 cycles, so their loads leave spread over a thousand cycles. With `out`, each
// iteration also stores the line it read to `out` at the same word index masked by `out_mask`: a
// small mask keeps the written lines in L2, an all-ones mask sends them on to HBM.
// Build: nvcc -arch=sm_90 -cubin -o microbench22.cubin microbench22.cu
extern "C" __global__ void __launch_bounds__(1024, 2) mb22_step(const int* __restrict__ data, long long region_words, int iters, int spread,
                                     int sms, long long* cycles, int* out, long long out_mask) {
    const int lane = threadIdx.x & 31;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    // the warp's place on its SM: CTAs sms..2 sms - 1 are each SM's second
    const int sm_warp = (threadIdx.x >> 5) + ((int)blockIdx.x >= sms ? blockDim.x / 32 : 0);
    long long at = warp * region_words + lane;
    if (spread) {
        long long until = clock64() + (long long)((sm_warp * spread) % 1024);
        while (clock64() < until) { }
    }
    long long t0 = clock64();
    if (out == nullptr) {
        for (int k = 0; k < iters; ++k) at += 32 + data[at];
    } else {                            // and store the line it read, at the same place of `out` (masked)
        for (int k = 0; k < iters; ++k) {
            int v = data[at];
            out[at & out_mask] = v + 1;
            at += 32 + v;
        }
    }
    long long t1 = clock64();
    if (lane == 0) cycles[warp] = t1 - t0;
    if (at == -1) cycles[0] = 0;
}
