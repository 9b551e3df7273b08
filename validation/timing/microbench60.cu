// Sixtieth microbenchmark batch (run_microbench60.py): the fifty-seventh batch's histograms and REDs with
// their array placed 0, 128, 256, 512 or 768 bytes past a 1 KB boundary: whether the 256-byte blocks of a
// 1 KB region alternate between two atomic units, so that where an array starts decides how many of them
// its atomics reach.
#include "microbench57.cu"

extern "C" {
__global__ void mb60_bins_f32(float* bins, const float* x, int n, int nbins, int load) {
    bins_add<float>(bins, x, n, nbins, load);
}
__global__ void mb60_reds_f32(float* bins, int per_line, int nlines, int line_words, int iters, int rotate) {
    reds<float>(bins, per_line, nlines, line_words, iters, rotate);
}
}
