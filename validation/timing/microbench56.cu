// Fifty-sixth microbenchmark batch (run_microbench56.py): what an L2 slice takes for a warp's atomic
// request to one line by how many lanes name that line (each its own word), when every request lands on
// the same 512-byte chunk (four lines: one slice), and when requests spread over a few chunks. Each warp
// adds to lines of `chunks` chunks in turn; a request's active lanes are `per_line` to a line, over at
// most four lines (the chunk's), the other lanes idle. RED (nothing returned), f32 or u32. With `rotate`
// a line's lanes move on to the next words of it at every pass (a pass names other words than the last
// pass to that line did), without it every pass to a line names the same words.
template <typename T>
__device__ void reds(T* bins, int per_line, int chunks, int iters, int rotate) {
    int lane = threadIdx.x & 31;
    int lines = 32 / per_line < 4 ? 32 / per_line : 4;
    int line = lane / per_line;
    if (line >= lines) return;
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    for (int it = 0; it < iters; ++it) {
        int chunk = (warp * 7 + it) % chunks;
        int word = chunk * 128 + ((line + it) & 3) * 32 + ((lane % per_line + rotate * it * per_line) & 31);
        atomicAdd(bins + word, (T)1);
    }
}
extern "C" {
__global__ void mb56_f32(float* bins, int per_line, int chunks, int iters, int rotate) { reds<float>(bins, per_line, chunks, iters, rotate); }
__global__ void mb56_u32(unsigned* bins, int per_line, int chunks, int iters, int rotate) { reds<unsigned>(bins, per_line, chunks, iters, rotate); }
}
