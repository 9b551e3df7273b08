"""sm_90's mbarrier phases, bulk copies and clusters at SASS level, on kernels NVRTC and ptxas compile.

Each launch runs with a SASS run beside its PTX run: the replay compares the
SASS run's heap with the PTX run's byte for byte (its level must be 'sass'),
the kernel's SASS must hold the instruction under test, and the results are
checked against NumPy on random inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

import warpsim as cp
from warpsim.profiler import Profiler
from warpsim.sass import sass_for_ptx
from warpsim.sass.replay import ReplayRequest

pytestmark = [pytest.mark.sass, pytest.mark.nvrtc]

SOURCE = r"""
extern "C" __global__ void mbarrier_phases(const int* in, int* out, int rounds) {
    __shared__ alignas(8) unsigned long long bar;
    __shared__ int values[2][128];
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
    int t = threadIdx.x, n = blockDim.x, acc = 0;
    if (t == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(b), "r"(n));
    __syncthreads();
    for (int r = 0; r < rounds; ++r) {
        values[r & 1][t] = in[blockIdx.x * n + t] * (r + 1) + r;
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(b) : "memory");
        asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W; }"
                     :: "r"(b), "r"(r & 1) : "memory");
        acc = acc * 3 + values[r & 1][(t + r + 1) % n];
    }
    out[blockIdx.x * n + t] = acc;
}
extern "C" __global__ void mbarrier_tokens(const int* in, int* out, int rounds) {
    __shared__ alignas(8) unsigned long long bar;
    __shared__ int values[2][128];
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
    int t = threadIdx.x, n = blockDim.x, acc = 0;
    if (t == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(b), "r"(n));
    __syncthreads();
    for (int r = 0; r < rounds; ++r) {
        values[r & 1][t] = in[blockIdx.x * n + t] * (r + 1) + r;
        unsigned long long state;
        asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(b) : "memory");
        asm volatile("{ .reg .pred p; W: mbarrier.try_wait.shared::cta.b64 p, [%0], %1; @!p bra W; }"
                     :: "r"(b), "l"(state) : "memory");
        acc = acc * 3 + values[r & 1][(t + r + 1) % n];
    }
    out[blockIdx.x * n + t] = acc;
}
extern "C" __global__ void lane_producer(const int* in, int* out) {
    __shared__ alignas(8) unsigned long long bar;
    __shared__ int value[32];
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
    int t = threadIdx.x, lane = t & 31;
    if (t == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(b), "r"(blockDim.x / 32));
    __syncthreads();
    if (lane != 0) {
        asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0; @!p bra W; }" :: "r"(b) : "memory");
        out[blockIdx.x * blockDim.x + t] = value[t >> 5] + lane;
    } else {
        int s = 0;
        for (int k = 0; k < 8; ++k) s += in[(blockIdx.x * blockDim.x + t + k) % 256] * (k + 1);
        value[t >> 5] = s;
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(b) : "memory");
        out[blockIdx.x * blockDim.x + t] = s;
    }
}
extern "C" __global__ void mbarrier_forms(const int* in, int* out) {
    __shared__ alignas(8) unsigned long long bar, bar2;
    __shared__ int values[128], more[128];
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar), b2 = (unsigned)__cvta_generic_to_shared(&bar2);
    int t = threadIdx.x, n = blockDim.x;
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(b), "r"(n));
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(b2), "r"(n / 32));
    }
    __syncthreads();
    values[t] = in[blockIdx.x * n + t] * 2;
    if (t >= n - 32) asm volatile("mbarrier.arrive_drop.shared::cta.b64 _, [%0];" :: "r"(b) : "memory");
    else asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(b) : "memory");
    unsigned ok = 0;
    while (!ok) asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }" : "+r"(ok) : "r"(b) : "memory");
    int v = values[(t + 5) % n];
    if (t < n - 32) {       // a second phase: only the threads that did not drop out are expected
        more[t] = values[t] + 1;
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(b) : "memory");
        asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 1; @!p bra W; }" :: "r"(b) : "memory");
        v += more[(t + 7) % (n - 32)];
    }
    if ((t & 31) == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0], 1;" :: "r"(b2) : "memory");
    asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0, 1000; @!p bra W; }" :: "r"(b2) : "memory");
    __syncthreads();
    if (t == 0) { asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(b)); asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(b2)); }
    out[blockIdx.x * n + t] = v;
}
extern "C" __global__ void cp_async_arrive_noinc(const int* in, int* out) {
    __shared__ alignas(8) unsigned long long bar;
    __shared__ alignas(16) int tile[128];
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
    int t = threadIdx.x, n = blockDim.x;
    if (t == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(b), "r"(n));
    __syncthreads();
    unsigned dst = (unsigned)__cvta_generic_to_shared(&tile[t]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(dst), "l"(in + blockIdx.x * n + t) : "memory");
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" :: "r"(b) : "memory");
    asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0; @!p bra W; }" :: "r"(b) : "memory");
    out[blockIdx.x * n + t] = tile[(t + 3) % n] * 5;
}
extern "C" __global__ void cp_async_arrive(const int* in, int* out) {
    __shared__ alignas(8) unsigned long long bar;
    __shared__ alignas(16) int tile[128];
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
    int t = threadIdx.x, n = blockDim.x;
    if (t == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(b), "r"(n));
    __syncthreads();
    unsigned dst = (unsigned)__cvta_generic_to_shared(&tile[t]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(dst), "l"(in + blockIdx.x * n + t) : "memory");
    asm volatile("cp.async.mbarrier.arrive.shared::cta.b64 [%0];" :: "r"(b) : "memory");
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(b) : "memory");   // the arrival itself
    asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0; @!p bra W; }" :: "r"(b) : "memory");
    out[blockIdx.x * n + t] = tile[(t + 3) % n] * 5;
}
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_neighbour(const int* in, int* out) {
    __shared__ int values[128];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    values[threadIdx.x] = in[i] * 3 + (int)rank;
    cluster.sync();
    int* theirs = cluster.map_shared_rank(values, rank ^ 1);
    out[i] = theirs[(threadIdx.x * 5) % blockDim.x] - values[threadIdx.x];
    cluster.sync();
}
extern "C" __global__ void __cluster_dims__(4, 1, 1) dsmem_ring(const int* in, int* out) {
    __shared__ int values[128];
    unsigned rank, size;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
    values[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
    unsigned local = (unsigned)__cvta_generic_to_shared(&values[(threadIdx.x + 1) % blockDim.x]), remote, v;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"((rank + 1) % size));
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(remote));
    asm volatile("barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;" ::: "memory");
    asm volatile("st.shared::cluster.u32 [%0], %1;" :: "r"(remote), "r"(v + 1000 * rank));
    asm volatile("barrier.cluster.arrive; barrier.cluster.wait;" ::: "memory");
    out[blockIdx.x * blockDim.x + threadIdx.x] = values[threadIdx.x];
}
extern "C" __global__ void bulk_copy(const float* in, float* out, unsigned bytes) {
    __shared__ alignas(128) float tile[256];
    __shared__ alignas(8) unsigned long long bar;
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar), t = (unsigned)__cvta_generic_to_shared(tile);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b));
        asm volatile("fence.proxy.async.shared::cta;");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(b), "r"(bytes));
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     :: "r"(t), "l"(in + blockIdx.x * 256), "r"(bytes), "r"(b) : "memory");
    }
    asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0; @!p bra W; }" :: "r"(b));
    if (threadIdx.x < bytes / 4) tile[threadIdx.x] = tile[threadIdx.x] * 2.0f + 1.0f;
    asm volatile("fence.proxy.async.shared::cta;");
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                     :: "l"(out + blockIdx.x * 256), "r"(t), "r"(bytes) : "memory");
        asm volatile("cp.async.bulk.commit_group;");
        asm volatile("cp.async.bulk.wait_group.read 0;");
    }
}
extern "C" __global__ void __cluster_dims__(2, 1, 1) bulk_to_neighbour(const float* in, float* out) {
    __shared__ alignas(128) float mine[128], theirs[128];
    __shared__ alignas(8) unsigned long long bar;
    unsigned rank, t = threadIdx.x;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar), src = (unsigned)__cvta_generic_to_shared(mine),
             dst = (unsigned)__cvta_generic_to_shared(theirs), remote_dst, remote_bar;
    mine[t] = in[blockIdx.x * 128 + t] * 2.0f + rank;
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b));
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 512;" :: "r"(b));
    }
    asm volatile("fence.proxy.async.shared::cta;");
    asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
    if (t == 0) {
        asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_dst) : "r"(dst), "r"(rank ^ 1));
        asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_bar) : "r"(b), "r"(rank ^ 1));
        asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], 512, [%2];"
                     :: "r"(remote_dst), "r"(src), "r"(remote_bar) : "memory");
    }
    asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0; @!p bra W; }" :: "r"(b));
    out[blockIdx.x * 128 + t] = theirs[(t * 7) % 128] - mine[t];
    asm volatile("barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;" ::: "memory");
}
extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_mix(const int* in, int* out) {
    __shared__ alignas(8) unsigned long long bar;
    __shared__ int values[128];
    __shared__ int counter;
    unsigned rank, t = threadIdx.x;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar), c = (unsigned)__cvta_generic_to_shared(&counter);
    unsigned v = (unsigned)__cvta_generic_to_shared(&values[t]);
    if (t == 0) { asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(b), "r"(blockDim.x)); counter = 0; }
    asm volatile("fence.mbarrier_init.release.cluster;");
    asm volatile("barrier.cluster.arrive.relaxed.aligned; barrier.cluster.wait.aligned;" ::: "memory");
    unsigned rb, rc, rv;
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rb) : "r"(b), "r"(rank ^ 1));
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rc) : "r"(c), "r"(rank ^ 1));
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rv) : "r"(v), "r"(rank ^ 1));
    int x = in[blockIdx.x * blockDim.x + t];
    asm volatile("st.shared::cluster.u32 [%0], %1;" :: "r"(rv), "r"(x) : "memory");
    asm volatile("atom.shared::cluster.add.u32 _, [%0], 1;" :: "r"(rc) : "memory");
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], 4;" :: "r"(b) : "memory");
    asm volatile("mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64 [%0], 4;" :: "r"(rb) : "memory");
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" :: "r"(rb) : "memory");
    asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], 0; @!p bra W; }" :: "r"(b) : "memory");
    asm volatile("fence.acq_rel.cluster;");
    asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
    out[blockIdx.x * blockDim.x + t] = values[t] + 1000 * counter;
}
extern "C" __global__ void prefetched(const float* in, float* out) {
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], 256;" :: "l"(in) : "memory");
    out[threadIdx.x] = in[threadIdx.x] * 3.0f + 1.0f;
}
extern "C" __global__ void __cluster_dims__(2, 3, 1) cluster_registers(unsigned* out) {
    unsigned v[12], explicit_cluster;
    asm("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(v[0]));
    asm("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(v[1]));
    asm("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(v[2]));
    asm("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(v[3]));
    asm("mov.u32 %0, %%clusterid.x;" : "=r"(v[4]));
    asm("mov.u32 %0, %%clusterid.y;" : "=r"(v[5]));
    asm("mov.u32 %0, %%nclusterid.x;" : "=r"(v[6]));
    asm("mov.u32 %0, %%nclusterid.y;" : "=r"(v[7]));
    asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(v[8]));
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(v[9]));
    asm("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }" : "=r"(explicit_cluster));
    v[10] = explicit_cluster;
    v[11] = blockIdx.y;
    unsigned block = blockIdx.y * gridDim.x + blockIdx.x;
    for (int k = 0; k < 12; ++k) out[(block * blockDim.x + threadIdx.x) * 12 + k] = v[k];
}
"""

RNG = np.random.default_rng(20261202)


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(code=SOURCE, options=("-arch=sm_90",))


def opcodes_of(module, kernel) -> set:
    return {".".join((i.opcode,) + i.mods) for i in sass_for_ptx(module.ptx).kernel(kernel).instructions}


def run_beside(module, name, grid, block, args):
    """Launch with a SASS run beside the PTX run, under a SASS-level profile; both must agree."""
    with ReplayRequest() as request, Profiler(level="sass") as profiler:
        module.get_function(name)(grid, block, args)
        (_, replay), = request._replays.values()
    outcome = replay.outcome()
    assert outcome.level == "sass", outcome.note
    assert profiler[0].level == "sass", profiler[0].level_note


@pytest.mark.parametrize("kernel", ["mbarrier_phases", "mbarrier_tokens"])
def test_mbarrier_phases_alternate_parity(module, kernel):
    """Waits on phases 0, 1, 0, ...: SYNCS.PHASECHK reads the parity from bit 31 of its operand
    (try_wait.parity: ptxas shifts it there), so a wait for an odd phase waits until that phase
    completes; with mbarrier.arrive's state (try_wait with a token) SYNCS.ARRIVE writes the token to a
    register pair and PHASECHK reads its high word."""
    assert {"SYNCS.PHASECHK.TRANS64.TRYWAIT", "SYNCS.ARRIVE.TRANS64.A1T0"} <= opcodes_of(module, kernel)
    blocks, threads, rounds = 2, 96, 5
    x = RNG.integers(-1000, 1000, blocks * threads).astype(np.int32)
    out = cp.asarray(np.full(blocks * threads, 0x5A5A, np.int32))
    run_beside(module, kernel, (blocks,), (threads,), (cp.asarray(x), out, np.int32(rounds)))
    rows = x.reshape(blocks, threads).astype(np.int64)
    acc = np.zeros_like(rows)
    for r in range(rounds):
        acc = acc * 3 + np.roll(rows * (r + 1) + r, -(r + 1), axis=1)
    np.testing.assert_array_equal(out.get(), acc.astype(np.int32).ravel())


def test_cluster_sync_and_a_neighbours_shared_memory(module):
    """cooperative_groups' cluster.sync() (UCGABAR_ARV / UCGABAR_WAIT after CGAERRBAR) and
    map_shared_rank: the neighbour's variable is a generic LD through the shared window whose
    address carries the neighbour's rank (SR_CgaCtaId) in bits 24 and up."""
    assert {"UCGABAR_ARV", "UCGABAR_WAIT", "CGAERRBAR", "LD.E"} <= opcodes_of(module, "cluster_neighbour")
    blocks, threads = 6, 128
    x = RNG.integers(-1000, 1000, blocks * threads).astype(np.int32)
    out = cp.asarray(np.full(blocks * threads, 0x5A5A, np.int32))
    run_beside(module, "cluster_neighbour", (blocks,), (threads,), (cp.asarray(x), out))
    rows = x.reshape(blocks, threads) * 3 + (np.arange(blocks) % 2)[:, None]
    theirs = rows[np.arange(blocks) ^ 1][:, (np.arange(threads) * 5) % threads]
    np.testing.assert_array_equal(out.get(), (theirs - rows).ravel())


def test_dsmem_ring_with_mapa_and_shared_cluster_loads_and_stores(module):
    """mapa.shared::cluster, ld/st.shared::cluster to the next rank of a 4-CTA cluster, between cluster
    barriers (aligned and not): each CTA ends with its neighbour's rotated values."""
    assert {"UCGABAR_ARV", "UCGABAR_WAIT", "ST.E", "LD.E"} <= opcodes_of(module, "dsmem_ring")
    blocks, threads = 8, 96
    x = RNG.integers(-1000, 1000, blocks * threads).astype(np.int32)
    out = cp.asarray(np.full(blocks * threads, 0x5A5A, np.int32))
    run_beside(module, "dsmem_ring", (blocks,), (threads,), (cp.asarray(x), out))
    rows = x.reshape(blocks, threads)
    rank = np.arange(blocks) % 4
    writer = (np.arange(blocks) // 4) * 4 + (rank + 3) % 4      # the CTA whose next rank is this one
    want = np.empty_like(rows)
    # writer w stores, for its thread t, at slot (t + 1) % n of CTA next(w), the value it read there plus 1000 * rank(w)
    slots = (np.arange(threads) + 1) % threads
    want[:, slots] = rows[:, slots] + 1000 * rank[writer][:, None]
    np.testing.assert_array_equal(out.get(), want.ravel())


def test_cluster_registers_from_the_driver_words_of_constant_bank_0(module):
    """%cluster_nctaid, %cluster_ctaid, %clusterid, %nclusterid, %cluster_nctarank, %cluster_ctarank and
    %is_explicit_cluster of a 2 x 3 cluster: ptxas reads constant bank 0 (0x140-0x188) and SR_CgaCtaId."""
    texts = [i.text for i in sass_for_ptx(module.ptx).kernel("cluster_registers").instructions]
    assert any("SR_CgaCtaId" in t for t in texts) and any("c[0x0][0x188]" in t for t in texts)
    grid, threads = (4, 6), 32
    out = cp.asarray(np.full(grid[0] * grid[1] * threads * 12, 0x5A5A, np.uint32))
    run_beside(module, "cluster_registers", grid, (threads,), (out,))
    got = out.get().reshape(grid[1], grid[0], threads, 12)
    y, x = np.meshgrid(np.arange(grid[1]), np.arange(grid[0]), indexing="ij")
    want = [np.full_like(x, 2), np.full_like(x, 3), x % 2, y % 3, x // 2, y // 3, np.full_like(x, grid[0] // 2),
            np.full_like(x, grid[1] // 3), np.full_like(x, 6), x % 2 + 2 * (y % 3), np.ones_like(x), y]
    for k, values in enumerate(want):
        np.testing.assert_array_equal(got[..., k], np.broadcast_to(values[..., None], got.shape[:3]), err_msg=str(k))


@pytest.mark.parametrize("nbytes", [1024, 48])
def test_bulk_copies_between_global_and_shared(module, nbytes):
    """cp.async.bulk into shared memory completing on an mbarrier (UBLKCP.S.G, issued in ptxas's ELECT loop
    closed by BRA.U.ANY) and back out to global memory (UBLKCP.G.S); the bytes past `nbytes` stay as they were."""
    assert {"UBLKCP.S.G", "UBLKCP.G.S", "BRA.U.ANY"} <= opcodes_of(module, "bulk_copy")
    blocks = 3
    x = RNG.standard_normal(blocks * 256).astype(np.float32)
    before = RNG.standard_normal(blocks * 256).astype(np.float32)
    out = cp.asarray(before)
    run_beside(module, "bulk_copy", (blocks,), (256,), (cp.asarray(x), out, np.uint32(nbytes)))
    want = before.reshape(blocks, 256).copy()
    words = nbytes // 4
    want[:, :words] = x.reshape(blocks, 256)[:, :words] * np.float32(2) + np.float32(1)
    np.testing.assert_array_equal(out.get(), want.ravel())


def test_bulk_copy_into_a_neighbours_shared_memory(module):
    """cp.async.bulk.shared::cluster.shared::cta (UBLKCP.S.S) into the other CTA of the cluster, completing
    on that CTA's mbarrier (mapa'd addresses: the neighbour's rank in bits 24 and up)."""
    assert "UBLKCP.S.S" in opcodes_of(module, "bulk_to_neighbour")
    blocks = 4
    x = RNG.standard_normal(blocks * 128).astype(np.float32)
    out = cp.asarray(np.full(blocks * 128, np.nan, np.float32))
    run_beside(module, "bulk_to_neighbour", (blocks,), (128,), (cp.asarray(x), out))
    mine = x.reshape(blocks, 128) * np.float32(2) + (np.arange(blocks) % 2).astype(np.float32)[:, None]
    theirs = mine[np.arange(blocks) ^ 1][:, (np.arange(128) * 7) % 128]
    np.testing.assert_array_equal(out.get(), (theirs - mine).ravel())


SM80_SOURCE = r"""
extern "C" __global__ void shared_gather(const int* in, const int* index, int* out) {
    __shared__ int values[256];
    int t = threadIdx.x;
    values[t] = in[blockIdx.x * 256 + t];
    __syncthreads();
    out[blockIdx.x * 256 + t] = values[index[t] & 255] + values[(t * 3) & 255];
}
"""


def test_a_scaled_register_index_in_a_shared_address():
    """sm_80's shared window starts at 0, so ptxas indexes a shared array with a scaled register,
    `STS [R11.X4]` (R11 times 4)."""
    module = cp.RawModule(code=SM80_SOURCE, options=("-arch=sm_80",))
    stores = [i for i in sass_for_ptx(module.ptx, arch="sm_80").kernel("shared_gather").instructions
              if i.opcode in ("STS", "LDS")]
    assert any(".X4" in i.text for i in stores), [i.text for i in stores]
    blocks = 2
    x = RNG.integers(-1 << 20, 1 << 20, blocks * 256).astype(np.int32)
    index = RNG.integers(0, 1 << 16, 256).astype(np.int32)
    out = cp.asarray(np.full(blocks * 256, 0x5A5A, np.int32))
    run_beside(module, "shared_gather", (blocks,), (256,), (cp.asarray(x), cp.asarray(index), out))
    rows = x.reshape(blocks, 256)
    want = rows[:, index & 255] + rows[:, (np.arange(256) * 3) & 255]
    np.testing.assert_array_equal(out.get(), want.ravel())


SHARED_ATOMICS_SOURCE = r"""
extern "C" __global__ void shared_counts(const unsigned char* data, const unsigned* x, int n, unsigned* bins,
                                         unsigned long long* sums) {
    __shared__ unsigned local_bins[64];
    __shared__ unsigned long long local_sums[4];
    for (int b = threadIdx.x; b < 64; b += blockDim.x) local_bins[b] = 0;
    if (threadIdx.x < 4) local_sums[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&local_bins[data[i] & 63], 1u);
        atomicAdd(&local_sums[data[i] & 3], (unsigned long long)x[i] << 20);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < 64; b += blockDim.x) bins[blockIdx.x * 64 + b] = local_bins[b];
    if (threadIdx.x < 4) sums[blockIdx.x * 4 + threadIdx.x] = local_sums[threadIdx.x];
}
"""


def test_shared_increments_and_64_bit_adds():
    """atomicAdd(&shared, 1u) is ATOMS.POPC.INC.32 (one per issuing lane); a 64-bit shared atomicAdd is a
    loop on ATOMS.CAST.SPIN.64, which stores where the word still holds what the lane read and says
    whether it did (lanes on one word retry until each has stored)."""
    module = cp.RawModule(code=SHARED_ATOMICS_SOURCE)
    assert {"ATOMS.POPC.INC.32", "ATOMS.CAST.SPIN.64"} <= opcodes_of(module, "shared_counts")
    blocks, threads, n = 3, 128, 1000
    data = RNG.integers(0, 256, n).astype(np.uint8)
    data[:200] = 5                                            # one contended bin and sum
    x = RNG.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    bins, sums = cp.zeros(blocks * 64, dtype=np.uint32), cp.zeros(blocks * 4, dtype=np.uint64)
    run_beside(module, "shared_counts", (blocks,), (threads,),
               (cp.asarray(data), cp.asarray(x), np.int32(n), bins, sums))
    owner = (np.arange(n) // threads) % blocks                # the block whose grid-stride loop reads i
    want_bins = np.zeros((blocks, 64), np.uint32)
    want_sums = np.zeros((blocks, 4), np.uint64)
    np.add.at(want_bins, (owner, data & 63), 1)
    np.add.at(want_sums, (owner, data & 3), x.astype(np.uint64) << np.uint64(20))
    np.testing.assert_array_equal(bins.get(), want_bins.ravel())
    np.testing.assert_array_equal(sums.get(), want_sums.ravel())


def test_remote_mbarrier_arrivals_transactions_and_atomics(module):
    """Each thread stores into the neighbour CTA (st.shared::cluster), adds to its counter
    (atom.shared::cluster: a generic ATOM at [RZ.U32+UR4]), completes 4 transaction bytes on its
    mbarrier (SYNCS.ARRIVE.TRANS64.RED.A0TX) and arrives there (.RED.A1T0), after expecting 4 bytes
    on its own (.RED.A0TR); each CTA waits on its own mbarrier for its neighbour's threads."""
    assert {"SYNCS.ARRIVE.TRANS64.RED.A0TR", "SYNCS.ARRIVE.TRANS64.RED.A0TX", "SYNCS.ARRIVE.TRANS64.RED.A1T0",
            "ATOM.E.ADD.STRONG.GPU"} <= opcodes_of(module, "cluster_mix")
    blocks, threads = 4, 64
    x = RNG.integers(-1000, 1000, blocks * threads).astype(np.int32)
    out = cp.asarray(np.full(blocks * threads, 0x5A5A, np.int32))
    run_beside(module, "cluster_mix", (blocks,), (threads,), (cp.asarray(x), out))
    rows = x.reshape(blocks, threads)
    np.testing.assert_array_equal(out.get(), (rows[np.arange(blocks) ^ 1] + 1000 * threads).ravel())


def test_a_bulk_l2_prefetch_changes_nothing(module):
    """cp.async.bulk.prefetch.L2 (UBLKPF.L2) only warms a cache the executor does not model."""
    assert "UBLKPF.L2" in opcodes_of(module, "prefetched")
    x = RNG.integers(-1000, 1000, 64).astype(np.float32)       # exact in f32 whether or not ptxas fuses
    out = cp.asarray(np.full(64, np.nan, np.float32))
    run_beside(module, "prefetched", (1,), (64,), (cp.asarray(x), out))
    np.testing.assert_array_equal(out.get(), x * np.float32(3) + np.float32(1))


WMMA_INT8_SOURCE = r"""
#include <mma.h>
using namespace nvcuda;
template <typename T>
__device__ void int8_product(const T* a, const T* b, const int* c, int* d) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
    wmma::load_matrix_sync(fa, a + 256 * blockIdx.x, 16);
    wmma::load_matrix_sync(fb, b + 256 * blockIdx.x, 16);
    wmma::load_matrix_sync(fc, c + 256 * blockIdx.x, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d + 256 * blockIdx.x, fc, 16, wmma::mem_row_major);
}
extern "C" __global__ void wmma_s8(const signed char* a, const signed char* b, const int* c, int* d) {
    int8_product(a, b, c, d);
}
extern "C" __global__ void wmma_u8(const unsigned char* a, const unsigned char* b, const int* c, int* d) {
    int8_product(a, b, c, d);
}
"""


@pytest.mark.parametrize("kernel, dtype", [("wmma_s8", np.int8), ("wmma_u8", np.uint8)])
def test_int8_mma_of_wmma_fragments(kernel, dtype):
    """sm_80's 8-bit integer wmma is IMMA.16816.S8.S8 / .U8.U8 (mma.m16n8k16's integer fragments): the
    products of random bytes and s32 sums that wrap, as the PTX run's wmma computes them."""
    module = cp.RawModule(code=WMMA_INT8_SOURCE, options=("-arch=sm_80",))
    sign = "S" if dtype == np.int8 else "U"
    mma = [i.text for i in sass_for_ptx(module.ptx, arch="sm_80").kernel(kernel).instructions if i.opcode == "IMMA"]
    assert mma and all(t.startswith(f"IMMA.16816.{sign}8.{sign}8") for t in mma), mma
    blocks = 3
    info = np.iinfo(dtype)
    a = RNG.integers(info.min, info.max + 1, (blocks, 16, 16)).astype(dtype)
    b = RNG.integers(info.min, info.max + 1, (blocks, 16, 16)).astype(dtype)
    c = RNG.integers(-(1 << 31), 1 << 31, (blocks, 16, 16), dtype=np.int64).astype(np.int32)   # sums wrap
    d = cp.asarray(np.full((blocks, 16, 16), 0x5A5A, np.int32))
    run_beside(module, kernel, (blocks,), (32,),
               (cp.asarray(a), cp.asarray(np.ascontiguousarray(b.transpose(0, 2, 1))), cp.asarray(c), d))
    want = np.einsum("wik,wkj->wij", a.astype(np.int64), b.astype(np.int64)) + c
    np.testing.assert_array_equal(d.get(), want.astype(np.int32))


MMA_INT8_SOURCE = r"""
#define MMA_K32(NAME, FORM)                                                                              \
extern "C" __global__ void NAME(const unsigned* a, const unsigned* b, const int* c, int* d) {           \
    int l = threadIdx.x;                                                                                 \
    int d0, d1, d2, d3;                                                                                  \
    asm volatile("mma.sync.aligned.m16n8k32.row.col" FORM " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "     \
                 "{%10,%11,%12,%13};" : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)                            \
                 : "r"(a[4 * l]), "r"(a[4 * l + 1]), "r"(a[4 * l + 2]), "r"(a[4 * l + 3]),                \
                   "r"(b[2 * l]), "r"(b[2 * l + 1]), "r"(c[4 * l]), "r"(c[4 * l + 1]), "r"(c[4 * l + 2]),  \
                   "r"(c[4 * l + 3]));                                                                   \
    d[4 * l] = d0; d[4 * l + 1] = d1; d[4 * l + 2] = d2; d[4 * l + 3] = d3;                              \
}
MMA_K32(k32_s8_u8, ".s32.s8.u8.s32")
MMA_K32(k32_u8_s8_sat, ".satfinite.s32.u8.s8.s32")
extern "C" __global__ void k16_s8_s8(const unsigned* a, const unsigned* b, const int* c, int* d) {
    int l = threadIdx.x;
    int d0, d1, d2, d3;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)
                 : "r"(a[4 * l]), "r"(a[4 * l + 1]), "r"(b[2 * l]), "r"(c[4 * l]), "r"(c[4 * l + 1]),
                   "r"(c[4 * l + 2]), "r"(c[4 * l + 3]));
    d[4 * l] = d0; d[4 * l + 1] = d1; d[4 * l + 2] = d2; d[4 * l + 3] = d3;
}
"""


def _int8_fragments(a, b, c, k):
    """Per lane the words of mma.m16n8k{16,32}'s 8-bit A (4 bytes a register) and B, and the s32 C, as the
    PTX manual lays them out (group g = lane / 4, t = lane % 4): A element i at row g + 8 (i / 4 % 2)
    (k 16: g + 8 (i >= 4)), column 4 t + i % 4 + 16 (i >= 8); B element i at row 4 t + i % 4 + 16 (i >= 4),
    column g; C element i at row g + 8 (i >= 2), column 2 t + i % 2. Padded to 4, 2 and 4 words a lane."""
    af, bf, cf = np.zeros((32, 16), np.uint8), np.zeros((32, 8), np.uint8), np.zeros((32, 4), np.int32)
    for lane in range(32):
        g, t = divmod(lane, 4)
        for i in range(k // 2):
            row = g + 8 * ((i // 4) % 2) if k == 32 else g + 8 * (i >= 4)
            af[lane, i] = a[row, 4 * t + i % 4 + 16 * (i >= 8)]
        for i in range(k // 4):
            bf[lane, i] = b[4 * t + i % 4 + 16 * (i >= 4), g]
        for i in range(4):
            cf[lane, i] = c[g + 8 * (i >= 2), 2 * t + i % 2]
    return af.view(np.uint32), bf.view(np.uint32), cf


@pytest.mark.parametrize("kernel, k, atype, btype, satfinite", [
    ("k32_s8_u8", 32, np.int8, np.uint8, False), ("k32_u8_s8_sat", 32, np.uint8, np.int8, True),
    ("k16_s8_s8", 16, np.int8, np.int8, False)])
def test_int8_mma_sync_forms(kernel, k, atype, btype, satfinite):
    """mma.sync m16n8k32 and m16n8k16 of 8-bit integers (IMMA.16832 / .16816 at SASS level), A and B signed
    or not each: both runs write A @ B + C of random bytes, the s32 sums wrapping, or clamped with
    .satfinite (C at the limits in some rows makes both happen)."""
    module = cp.RawModule(code=MMA_INT8_SOURCE, options=("-arch=sm_80",))
    mma = [i.text for i in sass_for_ptx(module.ptx, arch="sm_80").kernel(kernel).instructions if i.opcode == "IMMA"]
    assert mma and all(t.startswith(f"IMMA.168{k}.") for t in mma), mma
    a = RNG.integers(np.iinfo(atype).min, np.iinfo(atype).max + 1, (16, k)).astype(atype)
    b = RNG.integers(np.iinfo(btype).min, np.iinfo(btype).max + 1, (k, 8)).astype(btype)
    c = RNG.integers(-(1 << 31), 1 << 31, (16, 8), dtype=np.int64)
    c[::3] = np.where(c[::3] < 0, -(1 << 31), (1 << 31) - 1)
    exact = a.astype(np.int64) @ b.astype(np.int64) + c
    want = np.clip(exact, -(1 << 31), (1 << 31) - 1) if satfinite else (exact + (1 << 31)) % (1 << 32) - (1 << 31)
    assert (want != exact).any()
    af, bf, cf = _int8_fragments(a.view(np.uint8), b.view(np.uint8), c.astype(np.int32), k)
    d = cp.asarray(np.full((32, 4), 0x5A5A, np.int32))
    run_beside(module, kernel, (1,), (32,), (cp.asarray(af), cp.asarray(bf), cp.asarray(cf), d))
    got = np.zeros((16, 8), np.int64)
    for lane in range(32):
        g, t = divmod(lane, 4)
        for i in range(4):
            got[g + 8 * (i >= 2), 2 * t + i % 2] = d.get()[lane, i]
    np.testing.assert_array_equal(got, want)


def test_lanes_spinning_on_an_mbarrier_that_a_lane_of_their_warp_completes(module):
    """Lanes 1-31 of each warp spin in a try_wait loop while lane 0 computes and arrives: ptxas puts a
    YIELD in the retry loop, where the executor's rotation lets the warp's other path run (as the
    `its` model), so the spin ends."""
    texts = [i.text for i in sass_for_ptx(module.ptx).kernel("lane_producer").instructions]
    assert "YIELD" in texts and any(t.startswith("SYNCS.PHASECHK") for t in texts)
    x = RNG.integers(-1000, 1000, 256).astype(np.int32)
    blocks, threads = 2, 64
    out = cp.asarray(np.full(blocks * threads, 0x5A5A, np.int32))
    run_beside(module, "lane_producer", (blocks,), (threads,), (cp.asarray(x), out))
    t = np.arange(blocks * threads)
    leader = t - t % 32
    sums = sum(x[(leader + k) % 256].astype(np.int64) * (k + 1) for k in range(8))
    np.testing.assert_array_equal(out.get(), np.where(t % 32 == 0, sums, sums + t % 32).astype(np.int32))


def test_mbarrier_arrive_drop_test_wait_and_a_suspend_hint(module):
    """mbarrier.arrive_drop (SYNCS.ARRIVE.TRANS64.OPTOUT.A1T0: the last warp leaves the barrier, so the
    second phase completes with the other threads), test_wait (SYNCS.PHASECHK without TRYWAIT), a
    try_wait with a suspend-time hint (NANOSLEEP.SYNCS) and inval (SYNCS.CCTL.IV)."""
    assert {"SYNCS.ARRIVE.TRANS64.OPTOUT.A1T0", "SYNCS.PHASECHK.TRANS64", "SYNCS.CCTL.IV",
            "NANOSLEEP.SYNCS"} <= opcodes_of(module, "mbarrier_forms")
    blocks, n = 2, 128
    x = RNG.integers(-1000, 1000, blocks * n).astype(np.int32)
    out = cp.asarray(np.full(blocks * n, 0x5A5A, np.int32))
    run_beside(module, "mbarrier_forms", (blocks,), (n,), (cp.asarray(x), out))
    rows = 2 * x.reshape(blocks, n).astype(np.int64)
    t = np.arange(n)
    want = rows[:, (t + 5) % n]
    want[:, :n - 32] += rows[:, (t[:n - 32] + 7) % (n - 32)] + 1
    np.testing.assert_array_equal(out.get(), want.astype(np.int32).ravel())


@pytest.mark.parametrize("kernel, arrival", [("cp_async_arrive_noinc", "ARRIVES.LDGSTSBAR.64.ARVCNT"),
                                             ("cp_async_arrive", "ARRIVES.LDGSTSBAR.64.TRANSCNT")])
def test_cp_async_arrivals_on_an_mbarrier(module, kernel, arrival):
    """cp.async.mbarrier.arrive.noinc is an arrival (ARRIVES...ARVCNT); without .noinc ptxas raises the
    transaction count by one (SYNCS.ARRIVE.TRANS64.RED.A0T1) that ARRIVES...TRANSCNT completes, no net
    arrival, so the thread arrives itself."""
    assert {arrival, "LDGSTS.E"} <= opcodes_of(module, kernel)
    blocks, n = 2, 128
    x = RNG.integers(-1000, 1000, blocks * n).astype(np.int32)
    out = cp.asarray(np.full(blocks * n, 0x5A5A, np.int32))
    run_beside(module, kernel, (blocks,), (n,), (cp.asarray(x), out))
    rows = x.reshape(blocks, n)
    np.testing.assert_array_equal(out.get(), (rows[:, (np.arange(n) + 3) % n] * 5).ravel())


LIBCUDACXX_SOURCE = r"""
#include <cuda/barrier>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void barrier_copy(const int* in, int* out) {
    __shared__ alignas(16) int tile[256];
    #pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, tile, in + blockIdx.x * 256, sizeof(int) * 256, bar);
    bar.arrive_and_wait();
    out[blockIdx.x * 256 + threadIdx.x] = tile[(threadIdx.x * 7 + 1) % 256] + 1;
}
"""


def test_libcudacxx_barrier_and_memcpy_async():
    """cuda::memcpy_async into shared memory completing on a cuda::barrier, as CUDA's own headers write it
    for sm_90: LDGSTS copies, their ARRIVES transactions and the barrier's SYNCS arrivals and waits."""
    module = cp.RawModule(code=LIBCUDACXX_SOURCE, options=("-arch=sm_90", "-std=c++17"))
    assert {"LDGSTS.E", "ARRIVES.LDGSTSBAR.64.TRANSCNT", "SYNCS.PHASECHK.TRANS64.TRYWAIT"} <= \
        opcodes_of(module, "barrier_copy")
    blocks = 3
    x = RNG.integers(-1000, 1000, blocks * 256).astype(np.int32)
    out = cp.asarray(np.full(blocks * 256, 0x5A5A, np.int32))
    run_beside(module, "barrier_copy", (blocks,), (256,), (cp.asarray(x), out))
    rows = x.reshape(blocks, 256)
    np.testing.assert_array_equal(out.get(), (rows[:, (np.arange(256) * 7 + 1) % 256] + 1).ravel())


BULK_SOURCE = r"""
#include <cuda/barrier>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void bulk_copy(const int* in, int* out) {
    __shared__ alignas(128) int tile[256];
    #pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, tile, in + blockIdx.x * 256, cuda::aligned_size_t<16>(sizeof(int) * 256), bar);
    bar.arrive_and_wait();
    out[blockIdx.x * 256 + threadIdx.x] = tile[(threadIdx.x * 7 + 1) % 256] + 1;
}
"""


def test_libcudacxx_bulk_memcpy_async_elects_one_lane():
    """With an aligned size, cuda::memcpy_async takes the bulk path on sm_90: one lane chosen by
    `elect.sync _|p, mask` (the value's sink and the predicate) issues cp.async.bulk (ELECT and UBLKCP in SASS)."""
    module = cp.RawModule(code=BULK_SOURCE, options=("-arch=sm_90", "-std=c++17"))
    assert "elect.sync _|" in module.ptx
    assert {"ELECT", "UBLKCP.S.G"} <= opcodes_of(module, "bulk_copy")
    blocks = 3
    x = RNG.integers(-1000, 1000, blocks * 256).astype(np.int32)
    out = cp.asarray(np.full(blocks * 256, 0x5A5A, np.int32))
    run_beside(module, "bulk_copy", (blocks,), (256,), (cp.asarray(x), out))
    rows = x.reshape(blocks, 256)
    np.testing.assert_array_equal(out.get(), (rows[:, (np.arange(256) * 7 + 1) % 256] + 1).ravel())


PER_LANE_BARRIERS = r"""
extern "C" __global__ void per_lane_barriers(unsigned long long* out) {
    __shared__ __align__(8) unsigned long long bars[32];
    unsigned at = (unsigned)__cvta_generic_to_shared(&bars[threadIdx.x]);
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(at), "r"(threadIdx.x + 1) : "memory");
    __syncthreads();
    out[blockIdx.x * 32 + threadIdx.x] = bars[threadIdx.x];
}
"""


def test_a_waterfall_over_lanes_with_their_own_mbarriers():
    """SYNCS takes its address from a uniform register: each lane's own mbarrier is initialised in a
    loop of `R2UR P0, URa, Ra` (P0: the lanes whose address is not the one taken) and `BRA.U.ANY`."""
    module = cp.RawModule(code=PER_LANE_BARRIERS, options=("-arch=sm_90",))
    assert any(ins.opcode == "R2UR" and ins.operands[0].kind == "pred"
               for ins in sass_for_ptx(module.ptx).kernel("per_lane_barriers").instructions)
    out = cp.zeros(64, dtype=cp.uint64)
    run_beside(module, "per_lane_barriers", (2,), (32,), (out,))     # the SASS run's bytes are the PTX run's
    assert len(set(out.get()[:32].tolist())) == 32                   # 32 barriers, 32 expected counts
