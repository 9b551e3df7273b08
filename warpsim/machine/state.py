"""The state of one batch of CTAs while it runs: the explicit context object.

Threads are laid out warp by warp: thread slot = (cta_slot * warps_per_cta +
warp) * 32 + lane, so any per-thread array reshapes to (warps, 32) for per-warp
questions. Slots past the end of a block that is not a multiple of 32 exist in
the layout but are marked as never having lived (status EXITED, exists False).
"""

from __future__ import annotations

import operator
import time

import numpy as np

from ..ptx.types import storage_dtype
from ..semantics import barriers
from .malloc_threshold import keep_heap_for_threads

# Thread status values.
RUNNING = 0
EXITED = 1
AT_BARRIER = 2
AT_WARP_SYNC = 3

# A CTA has 16 named barriers (bar.sync 0..15). One integer names a barrier of
# a CTA of the batch: cta_slot * BARRIERS_PER_CTA + barrier id.
BARRIERS_PER_CTA = barriers.BARRIERS_PER_CTA


class LaunchState:
    def __init__(self, program, kernel: str, grid: tuple, block: tuple, cta_ids: np.ndarray,
                 params: np.ndarray, shared_bytes: int, dynamic_shared: int, memory, settings):
        # threads_per_cta, warps_per_cta, n_ctas, n (thread slots), n_warps, the slots' coordinates
        # (cta, exists, tid, lane, warp_in_cta, ctaid), the counters and flags, and where the slots
        # start: one lookup per batch shape, whose attributes this object starts from (a copy of
        # a dict that has every name set below costs less than setting each name in a new one)
        n_ctas = len(cta_ids)
        starts = program.__dict__.setdefault("_batch_starts", {})
        start_key = (kernel, block, grid, int(cta_ids[0]) if n_ctas else 0, n_ctas)
        start = starts.get(start_key)
        if start is None:
            self.program, self.kernel, self.grid, self.block, self.cta_ids = program, kernel, grid, block, cta_ids
            start = self._batch_start(n_ctas)
            if len(starts) > GEOMETRY_CACHE_SIZE:
                starts.clear()
            starts[start_key] = start
        attributes, pc, status = start
        self.__dict__ = attributes.copy()
        self.program = program
        self.kernel = kernel
        self.grid = grid
        self.block = block
        self.memory = memory                 # GlobalMemory
        self.settings = settings
        self.cta_ids = cta_ids               # linear ids of the CTAs in this batch
        self.params = params                  # kernel parameter buffer (uint8)
        self.shared_used = shared_bytes            # static + dynamic bytes the kernel may touch
        self.shared_size = _round16(shared_bytes)
        self.dynamic_shared = dynamic_shared
        # shared (the batch's shared memory) and local (per-thread local memory, grown by
        # ensure_local): made on first use (LAZY_BATCH_ARRAYS), as most small launches touch neither
        self.regs: dict[str, np.ndarray] = {}
        self.pc, self.status = pc.copy(), status.copy()
        # barrier_id, barrier_count (expected threads, 0: all), barrier_pred (bar.red's predicate),
        # call_stack, call_depth and stack_used (bytes of recursive frames): made on first use
        # (LAZY_ARRAYS), as most launches have no barrier and no call.
        self.arrivals: dict[int, int] = {}                      # barrier key -> bar.arrive count
        self.param_vars: dict[str, np.ndarray] = {}
        self.saved: dict[str, np.ndarray] = {}                  # recursive frames, per depth
        # starved (rounds a warp kept groups waiting), rotating (warps in its' round-robin) and
        # last_pc, per warp: made on first use (LAZY_WARP_ARRAYS); a one-block launch never selects.
        self.diagnostics: list = []
        self.seen_states: dict = {}           # livelock watch: state fingerprint -> round
        # Observers (machine.events) of each event, picked once per launch: none until then
        # (block_observers, memory_observers, ... are () in _STARTING_VALUES).
        self.guard_true: dict = {}            # profiling (count_predicates): (block, position) -> threads

    def _batch_start(self, n_ctas: int) -> tuple:
        """(the batch shape's sizes and slot coordinates by attribute name, with the starting counters
        and flags of _STARTING_VALUES and a placeholder for each name of _SET_PER_BATCH; starting
        pc, status), all read-only: what __init__ keeps per batch shape."""
        threads = self.block[0] * self.block[1] * self.block[2]
        self.threads_per_cta = threads
        self.warps_per_cta = (threads + 31) // 32
        self.n_ctas = n_ctas
        self.n = n_ctas * self.warps_per_cta * 32
        self.n_warps = self.n // 32
        self._geometry(n_ctas, threads)
        keep_heap_for_threads(self.n)
        names = ("threads_per_cta", "warps_per_cta", "n_ctas", "n", "n_warps",
                 "cta", "exists", "tid", "lane", "warp_in_cta", "ctaid")
        attributes = {**dict.fromkeys(_SET_PER_BATCH), **{name: self.__dict__[name] for name in names},
                      **_STARTING_VALUES}
        return attributes, *self._starting_point()

    def _geometry(self, n_ctas: int, threads: int):
        """Per-slot coordinates, shared read-only by launches of the same shape (cached on the program)."""
        cache = self.program.__dict__.setdefault("_geometry_cache", {})
        key = (self.block, self.grid, int(self.cta_ids[0]) if n_ctas else 0, n_ctas)
        cached = cache.get(key)
        if cached is None:
            cached = _slot_geometry(self.block, self.grid, self.cta_ids, self.n, self.warps_per_cta,
                                    threads, cache.get((self.block, n_ctas)))
            if len(cache) > GEOMETRY_CACHE_SIZE:
                cache.clear()
            cache[key] = cached
            cache[(self.block, n_ctas)] = cached[:5]
        self.cta, self.exists, self.tid, self.lane, self.warp_in_cta, self.ctaid = cached

    # ------------------------------------------------------------ the watchdog's clock

    def start_clock(self) -> None:
        self.started, self.wall_started = None, time.perf_counter()

    def cpu_seconds(self) -> float:
        """CPU seconds the batch has used. The process's CPU clock is a system call (microseconds,
        far more in a sandbox), so a batch reads it only when the watchdog first looks, and counts
        the time before that look as its wall-clock time (which a one-threaded batch cannot
        exceed): a launch of a few rounds reads no clock but perf_counter."""
        now = time.process_time()
        if self.started is None:
            self.started = now - (time.perf_counter() - self.wall_started)
        return now - self.started

    def exclude_from_clock(self, cpu: float, wall: float) -> None:
        """Seconds (a Numba compile) that do not count against the watchdog."""
        if self.started is None:
            self.wall_started += wall
        else:
            self.started += cpu

    def _starting_point(self) -> tuple:
        """(pc, status) of every slot before the first round (read-only; __init__ keeps them per
        batch shape on the program)."""
        pc = np.full(self.n, self.program.entry_block(self.kernel), dtype=np.int64)
        status = np.where(self.exists, RUNNING, EXITED).astype(np.uint8)
        pc[~self.exists] = -1
        pc.setflags(write=False)
        status.setflags(write=False)
        return pc, status

    # ------------------------------------------------------------ registers

    def reg(self, name: str, bits: int) -> np.ndarray:
        """The storage array of a register, created zeroed on first use."""
        arr = self.regs.get(name)
        if arr is None:
            arr = np.zeros(self.n, dtype=storage_dtype(bits))
            self.regs[name] = arr
        return arr

    def register_block(self, names: tuple) -> np.ndarray:
        """32-bit registers `names` as the rows of one (len(names), n) array, which holds them from
        now on, their values kept: an instruction that reads and writes them all (wgmma's
        accumulators) moves them as one array, not register by register. Made again where one of
        them has been given other storage since."""
        blocks = self.__dict__.setdefault("_register_blocks", {})
        found = blocks.get(names)
        if found is not None:
            block, rows = found
            if all(map(operator.is_, map(self.regs.get, names), rows)):
                return block
        block = np.zeros((len(names), self.n), dtype=storage_dtype(32))
        rows = []
        for k, name in enumerate(names):
            old = self.regs.get(name)
            if old is not None:
                block[k] = old
            rows.append(block[k])
            self.regs[name] = rows[-1]
        blocks[names] = (block, rows)
        return block

    def store_register_block(self, names: tuple, rows, values: np.ndarray) -> None:
        """Write `values` (len(names), threads at rows) into the registers of register_block(names). An
        instruction's result for every thread, C-ordered uint32 and sharing no memory with them, becomes
        their storage instead of being copied in (a wgmma's 64 accumulators: 2 MB a CTA batch of 64)."""
        block = self.register_block(names)
        if (rows.__class__ is slice and rows == slice(0, self.n) and values.shape == block.shape
                and values.dtype == block.dtype and values.flags.c_contiguous
                and not np.may_share_memory(values, block)):
            rows_of = [values[k] for k in range(len(names))]
            for name, row in zip(names, rows_of):
                self.regs[name] = row
            self.__dict__["_register_blocks"][names] = (values, rows_of)
        else:
            block[:, rows] = values

    def param_var(self, name: str) -> np.ndarray:
        """Per-thread bytes of a .param variable of a call (created on first use)."""
        arr = self.param_vars.get(name)
        if arr is None:
            size = self.program.param_var_sizes.get(name, 16)
            arr = np.zeros((self.n, _round16(size)), dtype=np.uint8)
            self.param_vars[name] = arr
        return arr

    def barrier_keys(self, slots) -> np.ndarray:
        """The barrier key (CTA slot and barrier id, see BARRIERS_PER_CTA) each thread waits at."""
        return self.cta[slots] * BARRIERS_PER_CTA + self.barrier_id[slots]

    def barrier_arrivals(self, idx):
        """bar.arrive: count the arrival without waiting; the thread goes on."""
        barriers.count_arrivals(self.arrivals, self.barrier_keys(idx))

    def ensure_local(self, size: int):
        """Grow per-thread local memory to `size` bytes per thread."""
        size = _round16(size)
        if size <= self.local_size:
            return
        grown = np.zeros(self.n * size, dtype=np.uint8)
        if self.local_size:
            grown.reshape(self.n, size)[:, :self.local_size] = self.local.reshape(self.n, self.local_size)
        self.local, self.local_size = grown, size

    # ------------------------------------------------------------ locating threads

    def where(self, slot: int) -> dict:
        """Block and thread coordinates of a thread slot, for error messages."""
        return {"block": tuple(int(v) for v in self.ctaid[:, slot]),
                "thread": tuple(int(v) for v in self.tid[:, slot])}


# A batch's counters and flags before it starts (immutable values; set on each LaunchState at once).
_STARTING_VALUES = {
    "launch_cluster": None,       # a cluster shape the launch gave (machine.cluster), if any
    "grid_workspace": 0,          # a cooperative launch's workspace address (machine.cooperative)
    "local_size": 0,              # bytes of local memory per thread (ensure_local grows it)
    "writes": 0,                  # memory stores and atomics so far (progress)
    "changes_only": False,        # livelock watch: count only writes that change memory
    "started": None,              # process_time when the batch started, once the watchdog asks
    "wall_started": 0.0,          # perf_counter when the batch started
    "issued": 0,                  # warp instructions issued (for the budget)
    "clocked": 0.0,               # their issue cycles (block_cycles per block issued: the clock's count)
    "round_clocked": 0.0,         # ... before the round running now (the clock it reads: isa/moves.py)
    "block_cycles": None,         # per block, the issue cycles of one warp's issue (engine.block_cycles)
    "thread_instructions": 0,     # instructions times the lanes that executed them
    "rounds": 0,
    "next_converged_look": 0,     # the round a large batch next looks for one converged group (engine)
    "model": None,                # the SchedulingModel running this batch
    "engine": "numpy",            # which tier runs blocks (settings.engine)
    "count_predicates": False,    # profiling: generated code counts guard-true threads (into guard_true)
    "block_observers": (), "memory_observers": (), "barrier_observers": (),
    "cluster_barrier_observers": (), "warp_sync_observers": (),
}

# What __init__ sets on each batch itself (its arguments and its own dicts and arrays).
_SET_PER_BATCH = ("program", "kernel", "grid", "block", "memory", "settings", "cta_ids", "params",
                  "shared_used", "shared_size", "dynamic_shared", "regs", "pc", "status", "arrivals",
                  "param_vars", "saved", "diagnostics", "seen_states", "guard_true")

GEOMETRY_CACHE_SIZE = 16     # launch shapes whose slot coordinates a program keeps

# Per-thread arrays of barriers and calls, zeroed, made when a launch first uses them.
LAZY_ARRAYS = {
    "barrier_id": lambda n: np.zeros(n, dtype=np.int32),
    "barrier_count": lambda n: np.zeros(n, dtype=np.int32),
    "barrier_pred": lambda n: np.zeros(n, dtype=bool),
    "call_stack": lambda n: np.zeros((0, n), dtype=np.int64),
    "call_depth": lambda n: np.zeros(n, dtype=np.int32),
    "stack_used": lambda n: np.zeros(n, dtype=np.int64),
}


# The batch's shared memory and a placeholder for local memory (ensure_local replaces it), zeroed,
# made when first asked for.
LAZY_BATCH_ARRAYS = {
    "shared": lambda ctx: np.zeros(max(1, ctx.n_ctas * ctx.shared_size), dtype=np.uint8),
    "local": lambda ctx: np.zeros(16, dtype=np.uint8),
}


# Per-warp scheduling state, zeroed, made when a model first selects (or the compiled loop runs).
LAZY_WARP_ARRAYS = {
    "starved": lambda n_warps: np.zeros(n_warps, dtype=np.int64),
    "rotating": lambda n_warps: np.zeros(n_warps, dtype=bool),
    "last_pc": lambda n_warps: np.zeros(n_warps, dtype=np.int64),
}


class _MadeOnFirstUse:
    """A LaunchState array made when first read, then kept as the object's own attribute, which
    Python finds before this (a non-data descriptor). A class __getattr__ would do the same but
    slows every other attribute read of the launch state."""

    def __init__(self, name: str, make):
        self.name, self.make = name, make

    def __get__(self, ctx, owner=None):
        if ctx is None:
            return self
        value = ctx.__dict__[self.name] = self.make(ctx)
        return value


for _name, _make in LAZY_BATCH_ARRAYS.items():
    setattr(LaunchState, _name, _MadeOnFirstUse(_name, _make))
for _name, _make in LAZY_ARRAYS.items():
    setattr(LaunchState, _name, _MadeOnFirstUse(_name, lambda ctx, make=_make: make(ctx.n)))
for _name, _make in LAZY_WARP_ARRAYS.items():
    setattr(LaunchState, _name, _MadeOnFirstUse(_name, lambda ctx, make=_make: make(ctx.n_warps)))


def _slot_geometry(block, grid, cta_ids, n, warps_per_cta, threads, within_cta=None) -> tuple:
    """(cta slot, exists, tid, lane, warp in CTA, ctaid) of every thread slot, read-only."""
    if within_cta is None:
        bx, by, _ = block
        slot = np.arange(n, dtype=np.int64)
        per_cta = warps_per_cta * 32
        cta = slot // per_cta                        # CTA slot in the batch
        linear = slot % per_cta                      # linear thread id in the CTA
        exists = linear < threads
        tid = np.stack([linear % bx, (linear // bx) % by, linear // (bx * by)]).astype(np.uint32)
        lane = (slot & 31).astype(np.uint32)
        warp_in_cta = (linear // 32).astype(np.uint32)
        within_cta = (cta, exists, tid, lane, warp_in_cta)
    gx, gy, _ = grid
    ids = cta_ids
    cta_xyz = np.stack([ids % gx, (ids // gx) % gy, ids // (gx * gy)]).astype(np.uint32)
    ctaid = cta_xyz[:, within_cta[0]]
    for arr in (*within_cta, ctaid):
        arr.setflags(write=False)
    return (*within_cta, ctaid)


def _round16(x: int) -> int:
    return (int(x) + 15) // 16 * 16
