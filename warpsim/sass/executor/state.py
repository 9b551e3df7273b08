"""The state of one batch of CTAs while its SASS runs: registers, barriers, memory windows.

Thread slots are laid out as in the PTX machine (machine/state.py): slot =
(cta_slot * warps_per_cta + warp) * 32 + lane, so per-warp questions are
reshapes to (warps, 32). Registers are rows of 2-D arrays, one column per
thread: R (32-bit, R0..R254; RZ reads 0), P (P0..P6, row 7 is PT), and the
uniform files UR / UP. Uniform registers hold one value per warp; they are
stored per lane, and every write sets all 32 lanes of the warp, so lanes that
were not active when a uniform instruction ran still see its result, as on
the hardware. B holds the convergence barriers BSSY sets: B[k][slot] is true
for the lanes of a warp that BSSY Bk named.
"""

from __future__ import annotations

import numpy as np

from ...machine.codegen import span
from ...machine.malloc_threshold import raise_mmap_threshold

PT_ROW = 7                      # P/UP row that reads as true
CONVERGENCE_BARRIERS = 16       # B0..B15
SHARED_RESERVED = 0x400         # sm_90 reserves the first 1 KB of every CTA's shared window
EXITED = -1


class Group:
    """The lanes (thread slots, sorted) that run one block or one guarded instruction.

    `sel` indexes the per-thread arrays: a slice when the lanes are one
    contiguous run (a view, no gather), the index array otherwise.
    """

    __slots__ = ("idx", "sel", "n", "_warp_lanes", "_runs", "branched")

    def __init__(self, idx: np.ndarray, runs: tuple | None = None):
        self.idx = idx
        self.n = len(idx)
        self.sel = span(idx)
        self._warp_lanes = None
        self._runs = runs
        self.branched = None    # (jump, fall, lanes that jumped, per warp: some jumped, some fell through)
                                # where the engine ran the block's branch in machine code

    def subset(self, mask) -> "Group":
        return Group(self.idx[mask])

    def warp_runs(self) -> tuple:
        """(warp slots, index into idx of each warp's first lane, lanes of each): what every observer of
        an issued block asks, worked out once per group (or handed over by the machine-code select,
        which knows it); whole warps first..last, the common group, need no pass over the lanes."""
        if self._runs is None:
            first, last = int(self.idx[0]) >> 5, int(self.idx[-1]) >> 5
            if self.n == 32 * (last - first + 1):
                self._runs = (np.arange(first, last + 1), np.arange(0, self.n, 32), np.full(last - first + 1, 32))
            else:
                warp = self.idx >> 5
                starts = np.flatnonzero(np.concatenate(([True], warp[1:] != warp[:-1])))
                self._runs = (warp[starts], starts, np.diff(np.append(starts, self.n)))
        return self._runs

    def warp_lanes(self) -> tuple:
        """(all 32 slots of each warp in the group as (warps, 32), index into idx of each warp's first lane)."""
        if self._warp_lanes is None:
            warps, first, _ = self.warp_runs()
            self._warp_lanes = (warps[:, None] * 32 + np.arange(32), first)
        return self._warp_lanes


GEOMETRIES_KEPT = 4


def _make_room(kept: dict, key) -> None:
    """Before `key` goes into one of a program's caches (batch geometries, start PCs, files), drop
    the oldest entry where the cache holds GEOMETRIES_KEPT others."""
    if len(kept) >= GEOMETRIES_KEPT and key not in kept:
        kept.pop(next(iter(kept)))


def batch_geometry(program, grid: tuple, block: tuple, cta_ids) -> tuple:
    """(cta slot, exists, tid, lane, ctaid) per thread slot of a batch, read-only.

    They depend only on the launch's shape and the batch's CTAs, so a kernel's program keeps
    the last few: a launch repeated with the same shape (a benchmark, a training loop, the
    batches of one grid but its last) builds them once, not per batch."""
    ids = np.asarray(cta_ids, dtype=np.int64)
    key = (tuple(grid), tuple(block), len(ids), int(ids[0]) if len(ids) else 0,
           bool(len(ids) < 2 or (np.diff(ids) == 1).all()) or ids.tobytes())
    kept = program.__dict__.setdefault("_batch_geometries", {})
    found = kept.get(key)
    if found is not None:
        return found
    threads = block[0] * block[1] * block[2]
    per_cta = (threads + 31) // 32 * 32
    slot = np.arange(len(ids) * per_cta, dtype=np.int64)
    cta = slot // per_cta
    linear = slot % per_cta
    exists = linear < threads
    bx, by, _ = block
    tid = np.stack([linear % bx, (linear // bx) % by, linear // (bx * by)]).astype(np.uint32)
    lane = (slot & 31).astype(np.uint32)
    gx, gy, _ = grid
    ctaid = np.stack([ids % gx, (ids // gx) % gy, ids // (gx * gy)]).astype(np.uint32)[:, cta]
    found = (cta, exists, tid, lane, ctaid)
    for array in found:
        array.flags.writeable = False
    _make_room(kept, key)
    kept[key] = found
    return found


def batch_start_pc(program, exists: np.ndarray) -> np.ndarray:
    """Every thread slot's first PC (0, or EXITED for slots past the block's threads), read-only:
    kept beside the batch geometry whose `exists` it is made from."""
    kept = program.__dict__.setdefault("_batch_start_pcs", {})
    found = kept.get(id(exists))
    if found is None or found[0] is not exists:
        _make_room(kept, id(exists))
        pc = np.where(exists, 0, EXITED).astype(np.int64)
        pc.flags.writeable = False
        found = kept[id(exists)] = (exists, pc)
    return found[1]


def _taken_files(program, shapes: tuple) -> tuple:
    """Zeroed arrays of `shapes`: those a released batch of the program gave back (SassState.release),
    else new ones. A batch's files are several MB (65,536 lanes: 0.5-2.9 MB each): new ones cost the
    kernel a page fault per 4 KB page at their first write, about 1,500 a launch of 65,536 threads and a
    third of a small kernel's SASS run; zeroing pages already mapped costs a tenth of that. Taken arrays
    leave the pool, so two batches alive at once (another thread's launch) never share them. Kept files
    are freed only when the shapes of GEOMETRIES_KEPT others push them out, and glibc's malloc thresholds
    follow the blocks freed, so the first files of a shape free one block as large as the largest
    (machine/malloc_threshold.py)."""
    kept = program.__dict__.get("_sass_files")
    spare = kept.get(shapes) if kept else None
    if spare:
        try:
            arrays = spare.pop()
        except IndexError:              # another thread took the last one
            arrays = None
        if arrays is not None:
            for array in arrays:
                array.fill(0)
            return arrays
    raise_mmap_threshold(max(int(np.prod(shape)) * np.dtype(dtype).itemsize for shape, dtype in shapes))
    return tuple(np.zeros(shape, dtype=dtype) for shape, dtype in shapes)


class SassState:
    """One batch: CTAs `cta_ids` of the launch, `n` thread slots."""

    def __init__(self, program, grid: tuple, block: tuple, cta_ids: np.ndarray, banks: dict,
                 shared_size: int, local_size: int, memory):
        self.program = program
        self.grid, self.block = grid, block
        self.cta_ids = cta_ids
        self.memory = memory
        self.banks = banks                      # bank number -> uint8 array (bank 0 built per launch)
        threads = block[0] * block[1] * block[2]
        self.threads_per_cta = threads
        self.warps_per_cta = (threads + 31) // 32
        self.n_ctas = len(cta_ids)
        self.n = self.n_ctas * self.warps_per_cta * 32
        self.n_warps = self.n // 32
        self.cta, self.exists, self.tid, self.lane, self.ctaid = batch_geometry(program, grid, block, cta_ids)
        shapes = self._file_shapes(program, shared_size, local_size)
        files = _taken_files(program, shapes)
        self.R, self.UR, self.P, self.UP, self.B, self.exclusive, self.shared, self.local, self.pc = files
        self._files = (shapes, files)
        self.P[PT_ROW] = self.UP[PT_ROW] = True
        self.pc[:] = batch_start_pc(program, self.exists)
        self.starved = np.zeros(self.n_warps, dtype=np.int64)    # rounds a warp kept lanes waiting
        self.rotating = np.zeros(self.n_warps, dtype=bool)       # warps issuing round-robin
        self.last_pc = np.zeros(self.n_warps, dtype=np.int64)
        self.cluster_dims = (1, 1, 1)           # the launch's cluster shape (cluster.py)
        self.shared_size = shared_size
        self.shared_reserved = SHARED_RESERVED  # where shared byte 0 is (the launch sets its arch's)
        self.local_size = local_size
        self.arrivals: dict = {}                # (cta slot, barrier id) -> threads that BAR.ARV'd
        self.printf_output = None               # where device printf writes (launch.run_launch sets stdout)
        self.clock = 0                          # its groups' blocks' issue cycles so far (SR_CLOCKLO: semantics/clock.py)
        self.rounds = 0
        self.issued = 0
        self.writes = 0                         # stores and atomics so far
        self.block_observers: list = []
        self.memory_observers: list = []
        self.counting = False                   # observers want per-instruction guard counts
        self.segments: dict = {}                # block index -> {position: Segment} the compiled tier runs
        self.fused = None                       # the program's generated segments, or None (sass/compiled/fused.py)
        self.select = None                      # the compiled ready and select phases (sass/compiled/rounds.py)
        self.round_loop = None                  # whole rounds of covered blocks (sass/compiled/round_loop.py)
        self.compiled_memory = False            # LDG and STG of one register pair as machine code (compiled/global_access.py)

    def _file_shapes(self, program, shared_size: int, local_size: int) -> tuple:
        """The (shape, dtype) of R, UR, P, UP, B, exclusive, shared, local and pc, in that order."""
        n = self.n
        return (((program.registers, n), np.uint32), ((program.uniform_registers, n), np.uint32),
                ((8, n), np.bool_), ((8, n), np.bool_), ((CONVERGENCE_BARRIERS, n), np.bool_), ((n,), np.uint64),
                ((max(1, self.n_ctas * shared_size),), np.uint8), ((max(1, n * local_size),), np.uint8),
                ((n,), np.int64))

    def release(self) -> None:
        """Give the batch's register files, barriers, shared and local memory back for the program's next
        batch of this shape, which zeroes them (SassState must not be used after; see _taken_files)."""
        files, self._files = self._files, None
        if files is not None:
            shapes, arrays = files
            kept = self.program.__dict__.setdefault("_sass_files", {})
            _make_room(kept, shapes)
            kept.setdefault(shapes, []).append(arrays)

    def const_scalar(self, bank: int, offset: int, nbytes: int) -> int:
        data = self.banks.get(bank)
        if data is None or offset + nbytes > len(data):
            return 0
        return int.from_bytes(data[offset:offset + nbytes].tobytes(), "little")

    def const_gather(self, bank: int, offsets: np.ndarray, nbytes: int) -> np.ndarray:
        data = self.banks.get(bank)
        offsets = offsets.astype(np.int64)
        if data is None:
            return np.zeros(len(offsets), dtype=np.uint64)
        padded = np.concatenate((data, np.zeros(16, dtype=np.uint8)))
        ok = (offsets >= 0) & (offsets + nbytes <= len(data))
        safe = np.where(ok, offsets, 0)
        value = np.zeros(len(offsets), dtype=np.uint64)
        for k in range(nbytes):
            value |= padded[safe + k].astype(np.uint64) << np.uint64(8 * k)
        return np.where(ok, value, 0)
