"""Thread-block clusters (sm_90): which CTAs of a batch form a cluster, and their shared memory.

A kernel declares its cluster shape with `.reqnctapercluster X, Y, Z` (CUDA's
`__cluster_dims__`), or the launch gives it (cudaLaunchKernelEx's cluster
attribute, `launch_cluster_dims`); CTA (x, y, z) belongs to cluster (x // X, y // Y, z // Z)
and has rank (x % X) + X ((y % Y) + Y (z % Z)) in it. The CTAs of a cluster
are scheduled together: the launch puts whole clusters in each batch
(`batch_size`), so a CTA can read and write its neighbours' shared memory
(distributed shared memory) and wait at barrier.cluster with them.

Shared::cluster addresses: on the H200 every shared address carries the CTA's
rank in bits 24 and up (CTA rank 1's first variable is at 0x1000400), so
`mapa` only swaps the rank bits. warpsim's shared::cta addresses are plain
offsets, so `mapa` marks the addresses it makes with bit 31 above the rank
(CLUSTER_ADDRESS | rank << 24 | offset); an address without the mark is the
CTA's own. Accesses resolve either through `peer_offsets`.
"""

from __future__ import annotations

import numpy as np

from ..errors import ClusterSizeMismatch

CLUSTER_ADDRESS = 1 << 31          # marks a shared::cluster address made by mapa
RANK_SHIFT = 24
OFFSET_MASK = (1 << RANK_SHIFT) - 1
RANK_MASK = 0x7F


def cluster_dims(program, kernel: str) -> tuple[int, int, int]:
    """The kernel's cluster shape ((1, 1, 1): no clusters)."""
    dims = program.module.functions[kernel].directives.get("reqnctapercluster", ())
    dims = tuple(int(d) for d in dims) + (1,) * (3 - len(dims))
    return dims[:3] if dims else (1, 1, 1)


def launch_cluster_dims(program, kernel: str, dims) -> tuple[int, int, int]:
    """A cluster shape given at launch (cudaLaunchKernelEx's cluster attribute), checked:
    positive, and the kernel's own if its PTX declares one (a launch cannot change it)."""
    dims = tuple(int(d) for d in dims)
    if len(dims) != 3 or min(dims) < 1:
        raise ClusterSizeMismatch(f"cluster dimensions {dims} must be three positive sizes", kernel=kernel)
    declared = program.module.functions[kernel].directives.get("reqnctapercluster")
    if declared and tuple(int(d) for d in declared) + (1,) * (3 - len(declared)) != dims:
        raise ClusterSizeMismatch(f"the kernel declares its cluster shape ({', '.join(map(str, declared))}, "
                                  "__cluster_dims__) and the launch gives another", kernel=kernel)
    return dims


def batch_size(per_batch: int, grid, dims) -> int:
    """CTAs per batch rounded so that every batch holds whole clusters.

    CTAs are numbered x fastest; a cluster spanning y (or z) takes whole rows
    (or planes) of the grid, so a batch is a multiple of that span.
    """
    if dims == (1, 1, 1):
        return per_batch
    span = dims[0]
    if dims[1] > 1:
        span = grid[0] * dims[1]
    if dims[2] > 1:
        span = grid[0] * grid[1] * dims[2]
    return max(span, per_batch // span * span)


def check_grid(grid, dims) -> str | None:
    """Why a grid cannot be launched with this cluster shape (None: it can)."""
    if any(g % d for g, d in zip(grid, dims)):
        return f"grid {tuple(grid)} is not a whole number of clusters of {tuple(dims)} CTAs"
    if dims[0] * dims[1] * dims[2] > 16:
        return f"a cluster of {dims[0] * dims[1] * dims[2]} CTAs exceeds the 16 an H100/H200 allows"
    return None


class ClusterLayout:
    """Per CTA slot of a batch: its cluster, its rank, and the slot of every rank of its cluster."""

    def __init__(self, ctx):
        self.dims = ctx.launch_cluster or cluster_dims(ctx.program, ctx.kernel)
        self.size = self.dims[0] * self.dims[1] * self.dims[2]
        gx, gy, _ = ctx.grid
        ids = np.asarray(ctx.cta_ids, dtype=np.int64)
        xyz = np.stack([ids % gx, (ids // gx) % gy, ids // (gx * gy)])
        d = np.asarray(self.dims, dtype=np.int64)[:, None]
        self.cta_in_cluster = xyz % d                                  # %cluster_ctaid per CTA slot
        self.cluster_xyz = xyz // d                                    # %clusterid per CTA slot
        self.rank = (self.cta_in_cluster[0] + self.dims[0] * (self.cta_in_cluster[1]
                     + self.dims[1] * self.cta_in_cluster[2]))
        ncl = np.asarray(ctx.grid, dtype=np.int64) // np.asarray(self.dims)
        self.cluster_id = (self.cluster_xyz[0] + ncl[0] * (self.cluster_xyz[1] + ncl[1] * self.cluster_xyz[2]))
        self.clusters_in_grid = tuple(int(v) for v in ncl)
        slot_of = {(int(c), int(r)): s for s, (c, r) in enumerate(zip(self.cluster_id, self.rank))}
        self.slots = np.array([[slot_of.get((int(c), r), -1) for r in range(self.size)]
                               for c in self.cluster_id], dtype=np.int64).reshape(len(ids), self.size)
        # barrier.cluster: arrivals in the current phase and the phase, per cluster of the batch
        self.arrived = {}
        self.phase = {}
        self.waiting = np.zeros(ctx.n, dtype=np.int64)     # per thread: the phase it arrived in


def layout(ctx) -> ClusterLayout:
    """The batch's cluster layout (made on first use)."""
    found = ctx.__dict__.get("_cluster_layout")
    if found is None:
        found = ctx.__dict__["_cluster_layout"] = ClusterLayout(ctx)
    return found


def peer_offsets(ctx, idx, offsets: np.ndarray):
    """(CTA slot, offset in its shared memory) per lane, for shared::cta or shared::cluster addresses."""
    cta = ctx.cta[idx]
    marked = offsets >= CLUSTER_ADDRESS
    if not marked.any():
        return cta, offsets
    # an address of a rank the cluster does not have keeps its mark, so the bounds check faults
    return peer_place(layout(ctx), cta, offsets, (offsets >> RANK_SHIFT) & RANK_MASK, marked)


def peer_place(clusters: ClusterLayout, cta, addresses, rank, valid) -> tuple:
    """(CTA slot, offset within it) per lane of addresses naming a rank of the lane's cluster in
    bits 24 and up (where `valid`): that rank's CTA, or the lane's own CTA and the address as it is
    where the rank is not valid or not in the cluster. PTX's shared::cluster and SASS's share it."""
    valid = valid & (rank < clusters.size)
    peer = clusters.slots[cta, np.where(valid, rank, 0)]
    valid &= peer >= 0
    return np.where(valid, peer, cta), np.where(valid, addresses & addresses.dtype.type(OFFSET_MASK), addresses)
