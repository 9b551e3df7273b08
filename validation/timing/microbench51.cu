// Fifty-first microbenchmark batch (run_microbench51.py): where a shared-memory tiled matmul's time goes.
// C (M x N) = A (M x K) B (K x N), row-major floats, T x T tiles, a CTA of T x T threads, one C element a
// thread. Four forms of the same k-loop (K / T tiles):
//   full:     load A's and B's tiles (LDG, STS), barrier, T FFMAs on shared rows and columns, barrier;
//   no_load:  the same with the tiles' stores fed from registers (no global loads in the loop);
//   no_sync:  the same as full without the two barriers (the results race; the time is what counts);
//   compute:  neither loads nor barriers: the shared reads and FFMAs alone.
template <int T, int FORM>
__device__ void mb51_body(float* C, const float* A, const float* B, int N, int K) {
    __shared__ float As[T][T], Bs[T][T];
    int r = blockIdx.y * T + threadIdx.y, c = blockIdx.x * T + threadIdx.x;
    float acc = 0.f;
    float a0 = A[r * K + threadIdx.x], b0 = B[threadIdx.y * N + c];
    As[threadIdx.y][threadIdx.x] = a0;
    Bs[threadIdx.y][threadIdx.x] = b0;
    __syncthreads();
    for (int k0 = 0; k0 < K; k0 += T) {
        if (FORM == 0 || FORM == 2) {
            As[threadIdx.y][threadIdx.x] = A[r * K + k0 + threadIdx.x];
            Bs[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * N + c];
        } else if (FORM == 1) {
            As[threadIdx.y][threadIdx.x] = a0 + (float)k0;
            Bs[threadIdx.y][threadIdx.x] = b0 - (float)k0;
        }
        if (FORM <= 1) __syncthreads();
#pragma unroll
        for (int k = 0; k < T; ++k) acc = fmaf(As[threadIdx.y][k], Bs[k][threadIdx.x], acc);
        if (FORM <= 1) __syncthreads();
    }
    C[r * N + c] = acc;
}

extern "C" {
__global__ void mb51_t16_full(float* C, const float* A, const float* B, int N, int K) { mb51_body<16, 0>(C, A, B, N, K); }
__global__ void mb51_t16_no_load(float* C, const float* A, const float* B, int N, int K) { mb51_body<16, 1>(C, A, B, N, K); }
__global__ void mb51_t16_no_sync(float* C, const float* A, const float* B, int N, int K) { mb51_body<16, 2>(C, A, B, N, K); }
__global__ void mb51_t16_compute(float* C, const float* A, const float* B, int N, int K) { mb51_body<16, 3>(C, A, B, N, K); }
__global__ void mb51_t32_full(float* C, const float* A, const float* B, int N, int K) { mb51_body<32, 0>(C, A, B, N, K); }
__global__ void mb51_t32_no_load(float* C, const float* A, const float* B, int N, int K) { mb51_body<32, 1>(C, A, B, N, K); }
__global__ void mb51_t32_no_sync(float* C, const float* A, const float* B, int N, int K) { mb51_body<32, 2>(C, A, B, N, K); }
__global__ void mb51_t32_compute(float* C, const float* A, const float* B, int N, int K) { mb51_body<32, 3>(C, A, B, N, K); }
}
