"""Which tier runs each block: `engine` = 'numpy', 'compiled' or 'auto'.

- numpy: every block runs its NumPy function (codegen.py).
- compiled: every block the compiled tier covers runs as machine code from
  its first execution (Numba compiles it then, seconds, or loads it from the
  disk cache); the others stay on NumPy.
- auto (the default): a covered block runs compiled once Numba's machine code
  for it is in the disk cache, or once it has run for HOT_LANES threads in
  this process (then it is compiled); until then, and for small launches,
  the NumPy tier runs it, so first launches pay no compile time.

`report(program)` says, per block, which tier ran it and why.
"""

from __future__ import annotations

import numpy as np

from .block import BlockSource, compile_source, is_cached_on_disk

ENGINES = ("numpy", "compiled", "auto")
HOT_LANES = 1 << 22        # threads a block runs on NumPy before auto compiles it


class CompiledBlock:
    """A block's machine code, called with the launch state's arrays."""

    def __init__(self, pblock, dispatcher, source: BlockSource):
        self.block = pblock
        self.dispatcher = dispatcher
        self.arrays = source.arrays
        self.guard_keys = [(pblock.gid, p) for p in source.guarded_positions]

    def __call__(self, ctx, idx):
        counts = np.zeros(len(self.guard_keys), dtype=np.int64)
        arrays = [ctx.reg(key, bits) for key, bits in self.arrays]
        self.dispatcher(idx, ctx.pc, ctx.count_predicates, counts, *arrays)
        if ctx.count_predicates:
            for key, count in zip(self.guard_keys, counts):
                ctx.guard_true[key] = ctx.guard_true.get(key, 0) + int(count)


class BlockTier:
    """Per block of a program: the compiled tier's source, machine code and how much ran."""

    def __init__(self, program, pblock):
        self.source = BlockSource(program, pblock)
        self.block = pblock
        self.compiled: CompiledBlock | None = None
        self.lanes_on_numpy = 0
        self.lanes_compiled = 0
        self.failed: str | None = None
        self.cached = self.source.source is not None and is_cached_on_disk(self.source.source)

    def runner(self, engine: str, lanes: int):
        """The function that runs the block now (compiling it first where the engine says so)."""
        if self.compiled is None and self.source.source is not None and self.failed is None:
            hot = self.lanes_on_numpy + lanes >= HOT_LANES
            if engine == "compiled" or self.cached or hot:
                try:
                    dispatcher, _ = compile_source(self.source.source, self.block.gid)
                    self.compiled = CompiledBlock(self.block, dispatcher, self.source)
                except Exception as exc:              # a Numba failure keeps the block on NumPy
                    self.failed = f"{type(exc).__name__}: {exc}"
        if self.compiled is not None:
            self.lanes_compiled += lanes
            return self.compiled
        self.lanes_on_numpy += lanes
        return self.block.compiled


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
    """Per block that ran: its tier, the threads it ran for on each, and why it is not compiled."""
    rows = []
    for gid, tier in sorted(program.__dict__.get("_block_tiers", {}).items()):
        why = tier.source.why or tier.failed
        if why is None and tier.compiled is None:
            why = "not hot yet (auto)"
        rows.append({"block": gid, "function": tier.block.function.name,
                     "tier": "compiled" if tier.compiled is not None else "numpy",
                     "threads_numpy": tier.lanes_on_numpy, "threads_compiled": tier.lanes_compiled,
                     "why_numpy": why})
    return rows


COMPILED_ROUNDS_FROM = 1 << 16     # thread slots of a batch from which auto compiles the select phase


def compiled_rounds(ctx, model):
    """The compiled select phase for this batch, or None (NumPy's, or a model it does not cover)."""
    from ..scheduling.its import IndependentThreadScheduling
    from ..scheduling.lowest_pc import LowestPc
    if ctx.engine == "numpy" or type(model) not in (IndependentThreadScheduling, LowestPc):
        return None
    if ctx.engine == "auto" and ctx.n < COMPILED_ROUNDS_FROM:
        return None
    from .rounds import select_groups
    independent = type(model) is IndependentThreadScheduling
    patience = getattr(model, "patience", 0)

    def groups(ctx, model):
        blocks, lanes, lane_bounds, warps, warp_bounds = select_groups(
            ctx.pc, ctx.status, ctx.starved, ctx.rotating, ctx.last_pc, patience, independent)
        return [(int(blocks[g]), lanes[lane_bounds[g]:lane_bounds[g + 1]],
                 warps[warp_bounds[g]:warp_bounds[g + 1]]) for g in range(len(blocks))]
    return groups
