// Forty-seventh microbenchmark batch (run_microbench47.py): where a global RED's lanes go at the L2.
// Each thread issues `reps` REDs (atomicAdd with the result unused). Lane l of a warp:
//   l < hot_lanes: the hot region, line (l / per_line) of `lines` lines 128 bytes apart, word l % per_line
//                  (every warp of the grid names the same words: a same-address chain per word);
//   otherwise:     its own word of a cold array, a line of its own per lane and rep (spread over `cold_words`).
// hot_lanes = 0 sends every lane to the cold array (lanes spread over lines, one address each).
extern "C" {

__global__ void mb47_red_f32(float* hot, float* cold, int hot_lanes, int per_line, long long cold_words, int reps) {
    int lane = threadIdx.x & 31;
    long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    long long threads = (long long)gridDim.x * blockDim.x;
    for (int r = 0; r < reps; ++r) {
        if (lane < hot_lanes) {
            atomicAdd(&hot[(lane / per_line) * 32 + lane % per_line], 1.0f);
        } else {
            atomicAdd(&cold[((t + r * threads) * 7919) % cold_words], 1.0f);
        }
    }
}

__global__ void mb47_red_u32(unsigned* hot, unsigned* cold, int hot_lanes, int per_line, long long cold_words, int reps) {
    int lane = threadIdx.x & 31;
    long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    long long threads = (long long)gridDim.x * blockDim.x;
    for (int r = 0; r < reps; ++r) {
        if (lane < hot_lanes) {
            atomicAdd(&hot[(lane / per_line) * 32 + lane % per_line], 1u);
        } else {
            atomicAdd(&cold[((t + r * threads) * 7919) % cold_words], 1u);
        }
    }
}

}
