"""Cooperative launches (cudaLaunchCooperativeKernel): the whole grid runs together, with a grid workspace.

A grid-wide sync (cooperative_groups::this_grid().sync()) is no instruction of
its own: CUDA's headers read the address of a workspace the driver hands every
cooperative launch from %envreg1 (high half) and %envreg2 (low half), trap when
it is null (a launch that was not cooperative), and count arrivals on its
`barrier` word with atom.add.release.gpu while each CTA's first thread spins on
ld.acquire.gpu until the top bit flips. warpsim gives the same: a workspace in
device memory whose address the envregs read, and one batch holding every CTA,
so the CTAs that spin and the CTAs they wait for are scheduled in the same
rounds. Any other way a kernel might wait for another CTA of the grid works by
the same token. The co-residency limit (blocks per SM times SMs, which makes a
GPU refuse a grid too large for this) is the runtime's and the API's to check:
it depends on the GPU preset, a layer above the machine.
"""

from __future__ import annotations

import numpy as np

from ..errors import LaunchError

WORKSPACE_BYTES = 16      # struct grid_workspace { unsigned wsSize; unsigned barrier; }, padded
BARRIER_OFFSET = 4


def workspace(device) -> int:
    """The device's grid workspace (made on first use), its barrier word cleared for a new launch."""
    address = device.__dict__.get("_grid_workspace")
    if address is None:
        address = device.memory.allocate(WORKSPACE_BYTES, initialized=True)
        device.__dict__["_grid_workspace"] = address
    device.memory.write_bytes(address, np.array([8, 0, 0, 0], dtype=np.uint32).tobytes(),
                              operation="cooperative launch setup")
    return address


def whole_grid(kernel: str, n_ctas: int, cta_range) -> int:
    """CTAs per batch of a cooperative launch: all of them, never a shard of the grid."""
    if cta_range is not None and tuple(cta_range) != (0, n_ctas):
        raise LaunchError(f"a cooperative launch cannot run in shards (CTA range {tuple(cta_range)}): "
                          f"its blocks may wait for each other at a grid-wide sync", kernel=kernel)
    return n_ctas


def envreg(ctx, idx, name: str) -> np.ndarray:
    """%envreg1 / %envreg2: the high / low half of the grid workspace address (0: no cooperative launch)."""
    address = ctx.grid_workspace
    half = address >> 32 if name.split(".")[0] == "%envreg1" else address & 0xFFFFFFFF
    return np.full(len(idx), half, dtype=np.uint32)
