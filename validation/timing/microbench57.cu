// Fifty-seventh microbenchmark batch (run_microbench57.py): what an L2 slice takes for a warp's atomic
// request to one line when the launch's requests name only 1, 2 or 4 lines in all (the fifty-sixth
// batch's four lines of one 512-byte chunk took 1.1-2.1 L2 cycles a (request, line) pass; set 5's 64
// f32 bins, two lines, about 5.2). `reds`: each warp adds to `nlines` lines in turn, `per_line` lanes a
// line (each its own word), a request naming min(32 / per_line, nlines) lines, the other lanes idle;
// lines `line_words` words apart (32: one chunk; 128: a chunk each); with `rotate` a line's lanes move on
// to the next words at every pass. `bins`: one add a thread to bins[(t * 7919) % nbins] (a histogram
// whose lanes name every bin of a line once at most), of x[t] or of 1.
template <typename T>
__device__ void reds(T* bins, int per_line, int nlines, int line_words, int iters, int rotate) {
    int lane = threadIdx.x & 31;
    int lines = 32 / per_line < nlines ? 32 / per_line : nlines;
    int line = lane / per_line;
    if (line >= lines) return;
    for (int it = 0; it < iters; ++it) {
        int word = ((line + it) & (nlines - 1)) * line_words + ((lane % per_line + rotate * it * per_line) & 31);
        atomicAdd(bins + word, (T)1);
    }
}

template <typename T>
__device__ void bins_add(T* bins, const float* x, int n, int nbins, int load) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) atomicAdd(&bins[(int)(((long long)t * 7919) % nbins)], load ? (T)x[t] : (T)1);
}

extern "C" {
__global__ void mb57_reds_f32(float* bins, int per_line, int nlines, int line_words, int iters, int rotate) {
    reds<float>(bins, per_line, nlines, line_words, iters, rotate);
}
__global__ void mb57_reds_u32(unsigned* bins, int per_line, int nlines, int line_words, int iters, int rotate) {
    reds<unsigned>(bins, per_line, nlines, line_words, iters, rotate);
}
__global__ void mb57_bins_f32(float* bins, const float* x, int n, int nbins, int load) {
    bins_add<float>(bins, x, n, nbins, load);
}
__global__ void mb57_bins_u32(unsigned* bins, const float* x, int n, int nbins, int load) {
    bins_add<unsigned>(bins, x, n, nbins, load);
}
}
