// Sixty-seventh microbenchmark batch (run_microbench67.py): the sixty-sixth batch's pipelined cp.async ring
// streaming its tiles once, from a cold L2, as set 3's attention launches stream a head's keys and values:
// when 32 CTAs ask for a tile at about the same time, do the later ones wait out the first one's HBM read?
#include "microbench66.cu"

#define MB67(S, C) \
extern "C" __global__ void __launch_bounds__(128) mb67_s##S##_c##C(const int4* base, int region_tiles, int sharers, \
                                                                   int iters, int work, float* sink) { \
    ring<S, C>(base, region_tiles, sharers, iters, work, sink); \
}
MB67(2, 4)
MB67(2, 8)
MB67(3, 8)
