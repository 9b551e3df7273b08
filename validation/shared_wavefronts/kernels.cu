// One warp-wide shared-memory load per launch, at an element index per lane: the wavefronts it
// takes (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld) are what patterns.py's table varies.
// The tile is filled by contiguous stores (op_st), so the only shared load is the one measured.
#define SW_LOAD(name, T)                                                                   \
    extern "C" __global__ void name(const int* idx, const T* src, T* out) {                \
        __shared__ T tile[64];                                                             \
        int t = threadIdx.x;                                                               \
        tile[t] = src[t];                                                                  \
        tile[t + 32] = src[t + 32];                                                        \
        __syncthreads();                                                                   \
        out[blockIdx.x * 32 + t] = tile[idx[blockIdx.x * 32 + t]];                         \
    }
SW_LOAD(sw_load32, float)
SW_LOAD(sw_load64, float2)
SW_LOAD(sw_load128, float4)
