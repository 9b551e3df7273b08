"""Which tier runs each block: `engine` = 'numpy', 'compiled' or 'auto'.

- numpy: every block runs its NumPy function (codegen.py).
- compiled: every block the compiled tier covers runs as machine code from
  its first execution (Numba compiles it then, seconds, or loads it from the
  disk cache); the others stay on NumPy.
- auto (the default): a covered block runs compiled once Numba's machine code
  for it is in the disk cache, or once the NumPy tier has spent on it in this
  process what compiling it would cost (compile_seconds, estimated from its
  generated source: a second for a short block, minutes for a long one with
  many memory accesses), so no block costs more than twice the better of the
  two tiers. A block cheap to compile (EAGER_COMPILE_SECONDS) is compiled
  sooner, once it has run for HOT_LANES threads or in HOT_BATCHES batches of
  CTAs (a loop of small launches pays the NumPy tier's fixed cost a call, about
  35 µs, which adds up to a compile's second or two). Until then, and for small
  launches, the NumPy tier runs it, so first launches pay no compile time.

`report(program)` says, per block, which tier ran it and why.
"""

from __future__ import annotations

import os
import time
import weakref

import numpy as np

from ..events import observers_of
from ..isa.control import exit_threads
from .block import BlockSource, compile_seconds, compile_source, compile_time_excluded, is_cached_on_disk
from .global_memory import launch_arguments

ENGINES = ("numpy", "compiled", "auto")
HOT_LANES = 1 << 22        # threads a block runs on NumPy before auto compiles it
HOT_BATCHES = 20_000       # ... or batches it runs in there (its fixed cost a call adds up to about a compile)
EAGER_COMPILE_SECONDS = 3.0    # the compile estimate up to which those two rules apply
HOT_LOOP_LANES = 1 << 27   # threads times blocks a program runs before auto compiles its round loop
LONG_BATCH_ROUNDS = 20_000   # rounds of one batch after which (and every as many) auto weighs compiling its round loop


class CompiledBlock:
    """A block's machine code, called with the launch state's arrays.

    A block with global accesses (compiled/global_memory.py) runs on the NumPy tier
    instead while memory is watched (its observers must see every access). A bad
    address, as the compiled tier sees it, sends the batch to the NumPy tier too:
    found in the first pass, nothing has changed; found after the block's first
    write, the block puts back what it wrote first. The NumPy tier then reports the
    fault where the block stops, or serves the address (a registered host range, the
    rest of a mapped page), as it always does. A block that ends the thread exits its
    lanes here."""

    def __init__(self, tier, dispatcher, source: BlockSource):
        self.tier = tier
        self.block = tier.block
        self.dispatcher = dispatcher
        self.arrays = source.arrays
        self.guard_keys = [(self.block.gid, p) for p in source.guarded_positions]
        memory = source.memory
        self.memory = memory
        self.writes = len(memory.writes) if memory is not None else 0
        self.exits = source.exits
        self.uses_shared = memory is not None and memory.uses_shared

    def on_numpy(self, ctx) -> bool:
        return self.memory is not None and (bool(ctx.memory_observers) or len(ctx.memory.buffer) % 8 != 0)

    def __call__(self, ctx, idx):
        if self.on_numpy(ctx):
            return self.numpy(ctx, idx)
        counts = np.zeros(len(self.guard_keys), dtype=np.int64)
        outcome = np.array([-1, -1, 0], dtype=np.int64)
        arrays = [ctx.reg(key, bits) for key, bits in self.arrays]
        with compile_time_excluded(ctx, self.dispatcher):
            self.dispatcher(idx, ctx.pc, ctx.count_predicates, counts, *launch_arguments(ctx, self.uses_shared),
                            bool(ctx.changes_only), outcome, *arrays)
        if outcome[0] >= 0:                     # memory as before the block: the NumPy tier says what it is
            return self.numpy(ctx, idx)
        if ctx.count_predicates:
            for key, count in zip(self.guard_keys, counts):
                ctx.guard_true[key] = ctx.guard_true.get(key, 0) + int(count)
        if self.writes:
            ctx.writes += int(outcome[2]) if ctx.changes_only else self.writes
        if self.exits:
            exit_threads(ctx, idx)

    def numpy(self, ctx, idx):
        self.tier.lanes_compiled -= len(idx)
        self.tier.lanes_on_numpy += len(idx)
        return self.block.compiled(ctx, idx)


def _NO_BATCH():
    return None


class BlockTier:
    """Per block of a program: the compiled tier's source, machine code and how much ran."""

    def __init__(self, program, pblock):
        self.source = BlockSource(program, pblock)
        self.block = pblock
        self.compiled: CompiledBlock | None = None
        self.lanes_on_numpy = 0
        self.batches_on_numpy = 0
        self.numpy_seconds = 0.0       # the NumPy tier's time on it in this process
        self.compile_cost = compile_seconds(self.source.source) if self.source.source is not None else 0.0
        self.last_batch = _NO_BATCH    # a weak reference to the launch state it last ran in (it may be large)
        self.lanes_compiled = 0
        self.failed: str | None = None
        self.cached = self.source.source is not None and is_cached_on_disk(self.source.source)

    def runner(self, ctx, lanes: int):
        """The function that runs the block now in batch `ctx` (compiling it first where the engine
        says so)."""
        if self.compiled is None and self.source.source is not None and self.failed is None:
            eager = self.compile_cost <= EAGER_COMPILE_SECONDS and (
                self.lanes_on_numpy + lanes >= HOT_LANES or self.batches_on_numpy >= HOT_BATCHES)
            hot = eager or self.numpy_seconds >= self.compile_cost
            if ctx.engine == "compiled" or self.cached or hot:
                try:
                    dispatcher, _ = compile_source(self.source.source, f"block_{self.block.gid}")
                    self.compiled = CompiledBlock(self, dispatcher, self.source)
                except Exception as exc:              # a Numba failure keeps the block on NumPy
                    self.failed = f"{type(exc).__name__}: {exc}"
        if self.compiled is not None:
            self.lanes_compiled += lanes
            return self.compiled
        self.lanes_on_numpy += lanes
        if self.last_batch() is not ctx:
            self.batches_on_numpy += 1
            self.last_batch = weakref.ref(ctx)
        return self.block.compiled

    def run(self, ctx, idx) -> None:
        """Run the block for threads idx on the tier `runner` picks; the NumPy tier's time counts."""
        run = self.runner(ctx, len(idx))
        if run is not self.block.compiled:
            run(ctx, idx)
            return
        start = time.perf_counter()
        run(ctx, idx)
        self.numpy_seconds += time.perf_counter() - start


def block_tier(program, pblock) -> BlockTier:
    tiers = program.__dict__.setdefault("_block_tiers", {})
    tier = tiers.get(pblock.gid)
    if tier is None:
        tier = tiers[pblock.gid] = BlockTier(program, pblock)
    return tier


def check_engine(name: str) -> str:
    if name not in ENGINES:
        raise ValueError(f"unknown engine '{name}' (choose from {', '.join(ENGINES)})")
    return name


def report(program) -> list[dict]:
    """Per block that ran: its tier, the threads it ran for on each (and in the round loop), and
    why the block-by-block compiled tier does not cover it."""
    loop = program.__dict__.get("_round_loop")
    in_loop = loop.lanes_by_block if loop is not None else {}
    for gid in in_loop:                      # blocks only the round loop ever ran
        block_tier(program, program.blocks[gid])
    rows = []
    for gid, tier in sorted(program.__dict__.get("_block_tiers", {}).items()):
        compiled = tier.lanes_compiled + in_loop.get(gid, 0)
        why = tier.source.why or tier.failed
        if why is None and tier.compiled is None and not compiled:
            why = "not hot yet (auto)"
        rows.append({"block": gid, "function": tier.block.function.name,
                     "tier": "compiled" if tier.compiled is not None or compiled else "numpy",
                     "threads_numpy": tier.lanes_on_numpy, "threads_compiled": compiled,
                     "in_round_loop": in_loop.get(gid, 0), "why_numpy": why})
    return rows


COMPILED_ROUNDS_FROM = 1 << 16     # thread slots of a batch from which auto runs the compiled select phase
COMPILE_ROUNDS_FROM = 1 << 21      # ... and compiles it when its machine code is not cached yet (seconds)


def machine_code_ready(dispatcher) -> bool:
    """Whether a Numba function (cache=True) runs without compiling: compiled in this process, or
    its machine code in Numba's disk cache."""
    if dispatcher.signatures:
        return True
    index = getattr(getattr(getattr(dispatcher, "_cache", None), "_cache_file", None), "_index_path", None)
    return bool(index) and os.path.exists(index)


def _stackless_models() -> tuple:
    """The scheduling models whose select the compiled tier runs (imported when first asked)."""
    global _STACKLESS
    if _STACKLESS is None:
        from ..scheduling.its import IndependentThreadScheduling
        from ..scheduling.lowest_pc import LowestPc
        _STACKLESS = (IndependentThreadScheduling, LowestPc)
    return _STACKLESS


_STACKLESS = None


def compiled_rounds(ctx, model):
    """The compiled select phase for this batch, or None (NumPy's, or a model it does not cover)."""
    if ctx.engine == "numpy" or type(model) not in _stackless_models():
        return None
    if ctx.engine == "auto" and ctx.n < COMPILED_ROUNDS_FROM:
        return None
    from .rounds import select_groups
    if ctx.engine == "auto" and ctx.n < COMPILE_ROUNDS_FROM and not machine_code_ready(select_groups):
        return None                          # a first compile costs more than NumPy's select here
    independent = type(model) is _stackless_models()[0]
    patience = getattr(model, "patience", 0)

    def groups(ctx, model):
        with compile_time_excluded(ctx, select_groups):
            blocks, lanes, lane_bounds, warps, warp_bounds = select_groups(
                ctx.pc, ctx.status, ctx.starved, ctx.rotating, ctx.last_pc, patience, independent)
        return [(int(blocks[g]), lanes[lane_bounds[g]:lane_bounds[g + 1]],
                 warps[warp_bounds[g]:warp_bounds[g + 1]]) for g in range(len(blocks))]
    return groups


def compiled_loop(ctx, model, long_running: bool = False):
    """The compiled round loop for this batch (a function(ctx, limit) -> groups | None), or None.

    'compiled' compiles it at once; auto uses it once its machine code is in the disk
    cache, or, in a batch of COMPILED_ROUNDS_FROM slots, once the program's blocks have run
    for HOT_LOOP_LANES threads in this process where it is cheap to compile (its compile
    takes seconds to minutes: Numba types a function of every covered block), or once a
    batch of LONG_BATCH_ROUNDS rounds or more (long_running: a small batch that loops long, a
    warp spinning on clock64()) has spent what compiling it would cost (compile_seconds).
    Observers of blocks must take the loop's counts
    (`compiled_rounds(ctx, record)`, compiled/loop.py's LoopRecord); some may ask for a log of
    some warps' issues (`logged_warps(ctx)`: batch warp -> row, -1 for none), one log they share
    (shared_log.py)."""
    program = ctx.program
    loop = program.__dict__.get("_round_loop")     # made once per program by round_loop
    if loop is not None and loop.source is None:    # no block of the program is covered
        return None
    if ctx.engine == "numpy" or type(model) not in _stackless_models() or len(ctx.memory.buffer) % 8:
        return None
    if len(observers_of(ctx.block_observers, "compiled_rounds")) != len(ctx.block_observers):
        return None                          # an observer that must see every block execution
    asked = {id(obs): obs.logged_warps(ctx) for obs in observers_of(ctx.block_observers, "logged_warps")}
    if loop is None:
        from .loop import round_loop
        loop = round_loop(program)
    if loop.source is None:
        return None
    cost = loop.compile_cost
    compile_now = ctx.engine == "compiled" or (long_running and ctx.cpu_seconds() >= cost)
    if not compile_now and ctx.n >= COMPILED_ROUNDS_FROM and cost <= EAGER_COMPILE_SECONDS:
        tiers = program.__dict__.get("_block_tiers", {}).values()
        compile_now = sum(t.lanes_on_numpy + t.lanes_compiled for t in tiers) >= HOT_LOOP_LANES
    if not loop.ready(compile_now):
        return None
    independent = type(model) is _stackless_models()[0]
    patience = getattr(model, "patience", 0)
    return lambda ctx, limit: loop.run(ctx, patience, independent, limit, asked)
