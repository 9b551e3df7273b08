"""Thread-block clusters at SASS level: ranks, cluster barriers and distributed shared memory.

Read from nvdisasm's listings of ptxas 13.5's code for CUDA's cooperative_groups
cluster API, barrier.cluster / mapa / ld.shared::cluster in inline PTX, and
Triton's num_ctas=2 matmul:

- `S2R Rd, SR_CgaCtaId` / `S2UR`: the CTA's rank in its cluster (%cluster_ctarank;
  0 in a launch without clusters). ptxas forms every shared address as
  (SR_CgaCtaId << 24) + 0x400 + offset: on sm_90 a shared address carries the
  rank of the CTA whose memory it names in bits 24 and up (machine.cluster's
  RANK_SHIFT), so `mapa` is a PRMT that swaps those bits, and a neighbour's
  variable is read with a generic `LD` through the shared window (or `LDS`).
  `shared_place` resolves such an address of a shared::cluster access (space
  "cluster" in access.resolve) to the CTA slot of that rank in the lane's
  cluster; a rank the cluster does not have is left as it is, so the bounds
  check faults on it. Shared::cta accesses (LDS, STS, ...) stay in the lane's
  own CTA.
- `UCGABAR_ARV` / `UCGABAR_WAIT`: barrier.cluster.arrive / .wait. Each issuing
  lane arrives in its cluster's current phase; a lane at the wait issues once
  the phase it arrived in has completed, which happens when every lane of the
  cluster that has not exited has arrived (as barrier.cluster in
  machine/isa/clusters.py). The CTAs of a cluster run in one batch (launch.py
  batches whole clusters), so the wait sees all of them.
- The driver's cluster words in constant bank 0 (sm_90), where ptxas reads
  the cluster registers: 0x140 whether the launch has clusters
  (%is_explicit_cluster is `c[0x140] == 1`), 0x144/0x148/0x14c the cluster's
  CTAs per axis (%cluster_nctaid), 0x150/0x154/0x158 their f32 reciprocals
  (ptxas divides %ctaid.y and .z by multiplying, then truncating),
  0x15c/0x160/0x164 the clusters per axis (%nclusterid), 0x188 the CTAs per
  cluster (%cluster_nctarank); %cluster_ctaid and %clusterid are computed
  from %ctaid and these.
- `CGAERRBAR`: a cluster-scope error barrier ptxas puts before the arrive (and
  fence.acq_rel.cluster); memory is coherent at once here, so nothing is left.

The cluster layout (ranks, cluster ids, the slot of every rank) is
machine.cluster's ClusterLayout, so both executors number CTAs the same way.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ...machine.cluster import OFFSET_MASK, RANK_MASK, RANK_SHIFT, ClusterLayout, peer_place
from ...semantics import barriers
from .moves import SPECIALS
from .operands import U32, U64
from .table import Step, Unsupported, semantics

NO_CLUSTER = (1, 1, 1)


def cluster_layout(st) -> ClusterLayout:
    """The batch's clusters (made on first use): ranks, cluster ids and barrier phases per CTA slot."""
    found = st.__dict__.get("_cluster_layout")
    if found is None:
        batch = SimpleNamespace(launch_cluster=tuple(st.cluster_dims), grid=st.grid, cta_ids=st.cta_ids, n=st.n)
        found = st.__dict__["_cluster_layout"] = ClusterLayout(batch)
    return found


def _rank(st, g):
    if tuple(st.cluster_dims) == NO_CLUSTER:
        return U32(0)
    return cluster_layout(st).rank[st.cta[g.idx]].astype(U32)


SPECIALS["SR_CgaCtaId"] = _rank


CLUSTER_WORDS = {"explicit": 0x140, "dims": 0x144, "reciprocals": 0x150, "clusters": 0x15C, "size": 0x188}


def put_cluster_words(bank0: np.ndarray, grid, dims) -> None:
    """Write the driver's cluster words (module docstring) into constant bank 0 of an sm_90 launch."""
    dims = tuple(int(d) for d in dims)

    def put(offset, values, dtype):
        raw = np.asarray(values, dtype=dtype).view(np.uint8)
        bank0[offset:offset + len(raw)] = raw
    put(CLUSTER_WORDS["explicit"], [int(dims != NO_CLUSTER)], np.uint32)
    put(CLUSTER_WORDS["dims"], dims, np.uint32)
    put(CLUSTER_WORDS["reciprocals"], [np.float32(1) / np.float32(d) for d in dims], np.float32)
    put(CLUSTER_WORDS["clusters"], [g // d for g, d in zip(grid, dims)], np.uint32)
    put(CLUSTER_WORDS["size"], [dims[0] * dims[1] * dims[2]], np.uint32)


def shared_place(st, g, addrs: np.ndarray, across_cluster: bool) -> tuple:
    """(CTA slot, address within that CTA's window) per lane of a shared access. In a launch with
    clusters, bits 24 and up of an sm_90 shared address name the rank of a CTA of the lane's
    cluster: a shared::cluster access (across_cluster: generic LD/ST through the shared window,
    UBLKCP's destination and mbarrier) goes to that CTA, a shared::cta one (LDS, STS, ATOMS, LDSM,
    SYNCS) to the lane's own CTA whatever the bits say. Without clusters the bits must be 0."""
    cta = st.cta[g.idx]
    addrs = np.asarray(addrs, dtype=U64)
    if tuple(st.cluster_dims) == NO_CLUSTER:
        return cta, addrs
    if not across_cluster:
        return cta, addrs & U64(OFFSET_MASK)
    rank = (addrs >> U64(RANK_SHIFT)).astype(np.int64)
    return peer_place(cluster_layout(st), cta, addrs, rank, rank <= RANK_MASK)


# ------------------------------------------------------------ barrier.cluster

def _arrive(st, g) -> None:
    clusters = cluster_layout(st)
    keys = clusters.cluster_id[st.cta[g.idx]]
    clusters.waiting[g.idx] = barriers.cluster_arrive(clusters.arrived, clusters.phase, keys)


def _phase_completed(st, g) -> np.ndarray:
    """Per lane at the wait: whether the phase it arrived in has completed (semantics.barriers)."""
    clusters = cluster_layout(st)
    completed, _ = barriers.cluster_wait(clusters.arrived, clusters.phase, clusters.cluster_id[st.cta],
                                         st.pc >= 0, clusters.cluster_id[st.cta[g.idx]],
                                         clusters.waiting[g.idx])
    return completed


@semantics("UCGABAR_ARV", family="cluster", pipe="barrier", mods=(),
           doc="barrier.cluster.arrive: each issuing lane arrives in its cluster's current phase")
def cluster_arrive(ins):
    if ins.operands:
        raise Unsupported("UCGABAR_ARV form")
    return Step(ins, _arrive)


@semantics("UCGABAR_WAIT", family="cluster", pipe="barrier", mods=(),
           doc="barrier.cluster.wait: lanes wait until every live lane of the cluster has arrived in their phase")
def cluster_wait(ins):
    if ins.operands:
        raise Unsupported("UCGABAR_WAIT form")
    return Step(ins, lambda st, g: None, wait=("poll", _phase_completed))


@semantics("CGAERRBAR", family="cluster", pipe="branch", mods=(),
           doc="cluster-scope error barrier before barrier.cluster.arrive: no result")
def cluster_error_barrier(ins):
    return Step(ins, lambda st, g: None)
