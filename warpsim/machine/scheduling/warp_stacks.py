"""Every warp's reconvergence stack, held as (warps, depth) arrays.

Entry k of warp w is (pc[w, k], active_mask[w, k], reconvergence_pc[w, k] at
call depth reconvergence_depth[w, k]); top[w] is the index of the top entry,
-1 once the warp has none left. Arrays, not Python lists, so that moving,
pushing and popping the entries of many warps at once are whole-array steps.
"""

from __future__ import annotations

import numpy as np

EXIT = -1        # reconvergence pc of a kernel's exit: reached by exiting


class WarpStacks:
    def __init__(self, n_warps: int, entry_pc: int, lanes: np.ndarray):
        capacity = 4
        self.pc = np.zeros((n_warps, capacity), dtype=np.int64)
        self.active_mask = np.zeros((n_warps, capacity), dtype=np.uint32)
        self.reconvergence_pc = np.full((n_warps, capacity), EXIT, dtype=np.int64)
        self.reconvergence_depth = np.zeros((n_warps, capacity), dtype=np.int32)
        self.pc[:, 0] = entry_pc
        self.active_mask[:, 0] = lanes
        self.top = np.where(lanes != 0, 0, -1).astype(np.int64)
        self.pending = np.zeros(n_warps, dtype=bool)   # issued; not yet looked at since

    def push(self, warps, pc, active_mask, reconvergence_pc, reconvergence_depth):
        """Push one entry on each of `warps` (distinct warps; the other arguments per warp)."""
        if not len(warps):
            return
        slots = self.top[warps] + 1
        while slots.max() >= self.pc.shape[1]:
            self._grow()
        self.pc[warps, slots] = pc
        self.active_mask[warps, slots] = active_mask
        self.reconvergence_pc[warps, slots] = reconvergence_pc
        self.reconvergence_depth[warps, slots] = reconvergence_depth
        self.top[warps] = slots

    def tobytes(self) -> bytes:
        """Every warp's entries, as bytes (what the livelock check compares)."""
        depth = np.arange(self.pc.shape[1]) <= self.top[:, None]
        parts = (self.pc, self.active_mask, self.reconvergence_pc, self.reconvergence_depth)
        return b"".join(np.where(depth, part, 0).tobytes() for part in parts) + self.top.tobytes()

    def entry(self, warp: int, slot: int) -> tuple:
        """(pc, active mask, (reconvergence pc, its call depth)) of one entry."""
        return (int(self.pc[warp, slot]), int(self.active_mask[warp, slot]),
                (int(self.reconvergence_pc[warp, slot]), int(self.reconvergence_depth[warp, slot])))

    def entries(self, warp: int) -> list:
        """The warp's stack, bottom first (for tests, errors and debugging)."""
        return [self.entry(warp, s) for s in range(int(self.top[warp]) + 1)]

    def _grow(self):
        for name in ("pc", "active_mask", "reconvergence_pc", "reconvergence_depth"):
            old = getattr(self, name)
            setattr(self, name, np.concatenate([old, np.zeros_like(old)], axis=1))
