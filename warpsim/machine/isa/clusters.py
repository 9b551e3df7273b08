"""Thread-block clusters (sm_90): the %cluster_* registers, mapa and barrier.cluster.

The cluster layout of a batch (which CTAs form a cluster, their ranks) and the
shared::cluster address form are machine.cluster's; this module gives PTX its
view of them:
- %cluster_ctarank, %cluster_nctarank, %cluster_ctaid, %cluster_nctaid,
  %clusterid, %nclusterid, %is_explicit_cluster, as the H200 reports them
  (validation/hopper/h200.json; a kernel without clusters is a cluster of one);
- `mapa{.shared::cluster}.u32/.u64 d, a, rank`: the address of the same
  shared variable in the CTA of that rank (a generic address stays generic);
- `barrier.cluster.arrive` and `barrier.cluster.wait`: every thread of every
  CTA of the cluster arrives before any leaves the wait. A waiting thread
  stays at the wait, which starts its block, until its cluster's phase
  completes (it issues again each round, as a try_wait loop does on the GPU).
"""

from __future__ import annotations

import numpy as np

from ...errors import LaunchError
from ...semantics import barriers
from ..cluster import CLUSTER_ADDRESS, OFFSET_MASK, RANK_SHIFT, layout
from ..memory import SHARED_WINDOW, WINDOW_SIZE
from ..state import EXITED
from .moves import SPECIAL_REGISTERS, _axis
from .table import SPECIAL, WARP, emitted, whole_warp


# ------------------------------------------------------------ special registers

def _per_cta(values_of):
    """A special register read from the batch's cluster layout, per thread's CTA slot."""
    def read(ctx, idx, name):
        return values_of(layout(ctx), ctx, name)[ctx.cta[idx]].astype(np.uint32)
    return read


def _everywhere(value_of):
    def read(ctx, idx, name):
        return np.full(len(idx), value_of(layout(ctx), ctx, name), dtype=np.uint32)
    return read


SPECIAL_REGISTERS.update({
    "%cluster_ctarank": _per_cta(lambda cl, ctx, name: cl.rank),
    "%cluster_ctaid": _per_cta(lambda cl, ctx, name: cl.cta_in_cluster[_axis(name)]),
    "%clusterid": _per_cta(lambda cl, ctx, name: cl.cluster_xyz[_axis(name)]),
    "%cluster_nctarank": _everywhere(lambda cl, ctx, name: cl.size),
    "%cluster_nctaid": _everywhere(lambda cl, ctx, name: cl.dims[_axis(name)]),
    "%nclusterid": _everywhere(lambda cl, ctx, name: cl.clusters_in_grid[_axis(name)]),
    "%is_explicit_cluster": lambda ctx, idx, name: np.full(len(idx), is_explicit(ctx), dtype=bool),
})


def is_explicit(ctx) -> bool:
    directives = ctx.program.module.functions[ctx.kernel].directives
    return ctx.launch_cluster is not None or "reqnctapercluster" in directives or "explicitcluster" in directives


# ------------------------------------------------------------ mapa

def map_address(ctx, idx, addresses, ranks, generic: bool):
    """mapa: the shared::cluster (or generic) address of the same variable in CTA `rank`."""
    addresses = np.asarray(addresses, dtype=np.uint64)
    ranks = np.asarray(ranks, dtype=np.uint64)
    offsets = addresses - np.uint64(SHARED_WINDOW) if generic else addresses
    if generic and ((addresses < SHARED_WINDOW) | (addresses >= SHARED_WINDOW + WINDOW_SIZE)).any():
        bad = int(np.flatnonzero((addresses < SHARED_WINDOW) | (addresses >= SHARED_WINDOW + WINDOW_SIZE))[0])
        where = ctx.where(int(idx[bad]))
        raise LaunchError(f"mapa of 0x{int(addresses[bad]):x}, which is not a shared-memory address",
                          kernel=ctx.kernel, block=where["block"], thread=where["thread"])
    mapped = (np.uint64(CLUSTER_ADDRESS) | (ranks << np.uint64(RANK_SHIFT))
              | (offsets & np.uint64(OFFSET_MASK)))
    return mapped + np.uint64(SHARED_WINDOW) if generic else mapped


@emitted("mapa", family="clusters", kind=SPECIAL, pipe="alu")
def emit_mapa(c, ins):
    t = ins.type
    generic = not any(m.startswith("shared") for m in ins.mods)
    width = "u64" if t in ("u64", "b64", "s64") else "u32"
    value = (f"clusters.map_address(ctx, idx, fit({c.typed(ins.srcs[0], width)}, n), "
             f"fit({c.typed(ins.srcs[1], 'u32')}, n), {generic})")
    c.write(ins.dsts[0], width, value)
    return False


# ------------------------------------------------------------ barrier.cluster

def arrive(ctx, idx):
    """Count the threads' arrivals in their clusters' current phase (semantics.barriers)."""
    cl = layout(ctx)
    cl.waiting[idx] = barriers.cluster_arrive(cl.arrived, cl.phase, cl.cluster_id[ctx.cta[idx]])


def wait(ctx, idx) -> np.ndarray:
    """Per thread of idx: whether its cluster's phase (the one it arrived in) has completed."""
    cl = layout(ctx)
    completed, released = barriers.cluster_wait(cl.arrived, cl.phase, cl.cluster_id[ctx.cta],
                                                ctx.status != EXITED, cl.cluster_id[ctx.cta[idx]],
                                                cl.waiting[idx])
    for key in released:
        for obs in ctx.cluster_barrier_observers:
            obs.cluster_barrier_released(ctx, np.flatnonzero(cl.cluster_id == key))
    return completed


def check_barrier_cluster(ins):
    if not ins.mods or ins.mods[1:2] not in (("arrive",), ("wait",)):
        return "barrier.cluster.arrive and barrier.cluster.wait are supported"
    return None


def _aligned_warp(ins):
    return whole_warp(ins) if "aligned" in ins.mods else None


@emitted("barrier", family="clusters", kind=WARP, pipe="sync", check=check_barrier_cluster,
         warp_sync=True, member_mask=_aligned_warp, variant=lambda ins: "cluster" in ins.mods)
def emit_barrier_cluster(c, ins):
    """arrive counts and goes on; wait (first in its block) lets through the threads whose phase completed."""
    if ins.mods[1] == "arrive":
        c.emit("clusters.arrive(ctx, idx)")
        return False
    done = c.fresh("done")
    c.emit(f"{done} = clusters.wait(ctx, idx)")
    c.emit(f"idx = idx[{done}]")                      # the others stay at this block and wait
    c.emit("n = len(idx)")
    c.emit("if n == 0:")
    c.emit("    return")
    return False
