// Fifty-eighth microbenchmark batch (run_microbench58.py): the fifty-seventh batch's `reds` over more
// lines, adjacent (both 256-byte halves of each 512-byte chunk) or 256 or 512 bytes apart: whether a
// chunk's two halves serve atomics at once when many chunks are busy, as when one is.
#include "microbench57.cu"

extern "C" {
__global__ void mb58_reds_f32(float* bins, int per_line, int nlines, int line_words, int iters, int rotate) {
    reds<float>(bins, per_line, nlines, line_words, iters, rotate);
}
__global__ void mb58_reds_u32(unsigned* bins, int per_line, int nlines, int line_words, int iters, int rotate) {
    reds<unsigned>(bins, per_line, nlines, line_words, iters, rotate);
}
}
