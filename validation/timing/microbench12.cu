// Twelfth batch: an atomic request to one line carrying fewer active lanes, each on its own address.
//
// mb12_line: every warp of the grid, `iters` times, adds to one 128-byte line from its first
// `active` lanes, lane i to word i (the other lanes idle): RED when `keep` is 0 (the result
// unused), ATOM when it is 1 (the results summed and stored, as atomicAggInc's leaders use them).

extern "C" __global__ void mb12_line(int* line, int active, int iters, int keep, int* sink) {
    int lane = threadIdx.x & 31;
    int acc = 0;
    if (lane < active) {
        if (keep) {
            for (int k = 0; k < iters; ++k) acc += atomicAdd(&line[lane], 1);
        } else {
            for (int k = 0; k < iters; ++k) atomicAdd(&line[lane], 1);
        }
    }
    if (keep && acc == -1) sink[0] = acc;          // never true: keeps the ATOM's result
}

// mb12_line64: the same with 8-byte words (lane i on word i of a 256-byte pair of lines when 32 are
// active), RED of unsigned long long.
extern "C" __global__ void mb12_line64(unsigned long long* line, int active, int iters) {
    int lane = threadIdx.x & 31;
    if (lane < active)
        for (int k = 0; k < iters; ++k) atomicAdd(&line[lane], 1ULL);
}
