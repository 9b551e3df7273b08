"""Which blocks the compiled round loop runs, as flat tables its machine code reads.

The round loop (round_loop.py) runs a round only when every group of it stands
at a block this table covers: a block whose steps are, in order, runs of value
instructions that run on a tile (tiled.plan), unguarded BSSY and BSYNC, and at
most a closing control step that is a BRA to one label (plain or guarded by a
predicate, no predicate operand) or an EXIT (plain or guarded, no predicate
operand). Such a block reads and writes only its own lanes' registers and
predicates, its warps' convergence barriers and its lanes' PCs: no memory, no
other warp. Every other block (a load, a store, a wait for operands, a BRX)
hands the round back to the engine.

The tables are one program's, built once: per block its items (ITEM_SEGMENT with
the segment's plan, ITEM_BSSY or ITEM_BSYNC with the barrier) and its control
(CTL_FALL, CTL_JUMP, CTL_GUARDED with the guard's file, row and inversion); the
tile plans of all its segments concatenated, each segment's rows at its offsets.
"""

from __future__ import annotations

import numpy as np

from ..executor.state import EXITED, PT_ROW
from .layout import WIDTH

ITEM_SEGMENT, ITEM_BSSY, ITEM_BSYNC = 0, 1, 2
CTL_FALL, CTL_JUMP, CTL_GUARDED = 0, 1, 2
NOT_COVERED = -1
# per segment, where its rows start in the concatenated plans (SEG_* columns of LoopTable.segment)
SEG_CODE, SEG_CODE_END, SEG_R, SEG_R_END, SEG_P, SEG_P_END, SEG_C, SEG_C_END, SEG_F, SEG_F_END, SEG_FIRST, \
    SEG_NUMBER = range(12)      # SEG_NUMBER: the segment's number in the program (fused.py's functions take it)
SEG_COLUMNS = 12


class LoopTable:
    """The covered blocks of a program (see the module docstring); `why` names, per block it does not
    cover, the first reason."""

    def __init__(self, program, segments: dict):
        n_pcs = len(program.instructions) + 1
        self.block_at_pc = np.full(n_pcs, NOT_COVERED, dtype=np.int64)    # a covered block's index at its start
        n_blocks = len(program.blocks)
        self.item_start = np.zeros(n_blocks + 1, dtype=np.int64)
        self.control = np.zeros((n_blocks, 6), dtype=np.int64)   # kind, jump, fall, guard file (0 P, 1 UP), row, invert
        self.n_steps = np.array([len(b.steps) for b in program.blocks], dtype=np.int64)
        self.issue_cycles = np.array([b.issue_cycles for b in program.blocks], dtype=np.int64)   # (st.clock's)
        self.block_start = np.array([b.start for b in program.blocks], dtype=np.int64)
        self.why: dict = {}
        # the program's value specs (one list, shared by all its segments): the batch's value table
        self.specs = next((seg.specs for runs in segments.values() for seg in runs.values()), [])
        items: list = []
        plans: list = []
        for block in program.blocks:
            self.item_start[block.index] = len(items)
            block_items = self._items(block, segments.get(block.index, {}), plans, len(items))
            control = self._control(block) if block_items is not None else None
            if block_items is None or control is None:
                continue
            items += block_items
            self.control[block.index] = control
            self.block_at_pc[block.start] = block.index
        self.item_start[n_blocks] = len(items)
        # the item ranges of blocks not covered are empty: an item_start per block, filled backwards
        for index in range(n_blocks - 1, -1, -1):
            if self.block_at_pc[program.blocks[index].start] == NOT_COVERED:
                self.item_start[index] = self.item_start[index + 1]
        self.items = np.array(items, dtype=np.int64).reshape(-1, 2)     # (kind, segment number or barrier)
        self._concatenate(plans)
        self.covered = int((self.block_at_pc != NOT_COVERED).sum())

    def _items(self, block, segments: dict, plans: list, first_item: int):
        """The block's items, or None (and why) where a step is none the loop runs."""
        steps = block.steps if block.control is None else block.steps[:-1]
        out = []
        position = 0
        while position < len(steps):
            segment = segments.get(position)
            step = steps[position]
            if segment is not None:
                if segment.tiled is None:
                    self.why[block.index] = f"{step.ins.text}: a segment that does not run on a tile"
                    return None
                out.append((ITEM_SEGMENT, len(plans)))
                plans.append((segment, block.start + segment.start))
                position = segment.stop
                continue
            opcode = step.ins.opcode
            if opcode in ("BSSY", "BSYNC") and block.guards[position] is None and not step.reads_guard:
                barriers = [op for op in step.ins.operands if op.kind == "barrier"]
                out.append((ITEM_BSSY if opcode == "BSSY" else ITEM_BSYNC, barriers[0].number))
                position += 1
                continue
            self.why[block.index] = f"{step.ins.text}: not a value instruction, BSSY or BSYNC"
            return None
        return out

    def _control(self, block):
        """(kind, jump, fall, guard file, guard row, invert) of the block's end, or None (and why)."""
        control = block.control
        if control is None:
            return (CTL_FALL, block.end, block.end, 0, 0, 0)
        ins = control.ins
        extra = any(op.kind in ("pred", "upred") for op in ins.operands)
        if ins.opcode in ("BRA", "JMP") and control.jump is not None:
            jump = control.jump
        elif ins.opcode == "EXIT" and not extra and not ins.mods:
            jump = EXITED
        else:
            self.why[block.index] = f"{ins.text}: not a BRA to one label or a plain EXIT"
            return None
        guard = block.guards[-1]
        if guard is None:
            if ins.is_guarded and not control.reads_guard:
                self.why[block.index] = f"{ins.text}: a guard without its reader"
                return None
            return (CTL_JUMP, jump, block.end, 0, 0, 0)
        g = ins.guard
        if g.kind not in ("pred", "upred"):
            self.why[block.index] = f"{ins.text}: guard of kind {g.kind}"
            return None
        return (CTL_GUARDED, jump, block.end, int(g.kind == "upred"), PT_ROW if g.number is None else g.number,
                int(bool(g.invert)))

    def _concatenate(self, plans: list) -> None:
        """Every segment's tile plan in one array per field, and per segment where its rows are."""
        self.segment = np.zeros((max(1, len(plans)), SEG_COLUMNS), dtype=np.int64)
        fields = {name: [] for name in ("code", "local", "r_rows", "r_uniform", "r_read", "r_written", "p_rows",
                                        "p_uniform", "p_read", "p_written", "constants", "fixed")}
        at = dict.fromkeys(("code", "r", "p", "c", "f"), 0)
        self.tile_rows, self.tile_p_rows = 1, 1
        for number, (segment, first) in enumerate(plans):
            plan = segment.tiled
            sizes = {"code": len(segment.code), "r": len(plan.r_rows), "p": len(plan.p_rows),
                     "c": len(plan.constants), "f": len(plan.fixed)}
            row = []
            for key in ("code", "r", "p", "c", "f"):
                row += [at[key], at[key] + sizes[key]]
                at[key] += sizes[key]
            self.segment[number] = row + [first, segment.number]
            fields["code"].append(segment.code)
            for name in fields:
                if name != "code":
                    fields[name].append(getattr(plan, name))
            self.tile_rows = max(self.tile_rows, sizes["r"] + sizes["c"])
            self.tile_p_rows = max(self.tile_p_rows, sizes["p"] + sizes["f"])
        empty = {"code": (0, WIDTH), "local": (0, WIDTH), "constants": (0, 4), "fixed": (0, 2)}
        for name, parts in fields.items():
            dtype = np.bool_ if name.endswith(("uniform", "read", "written")) else np.int64
            if parts:
                value = np.concatenate(parts).astype(dtype)
            else:
                value = np.zeros(empty.get(name, (0,)), dtype=dtype)
            setattr(self, name, value)


def loop_table(program, segments: dict) -> LoopTable:
    """The program's LoopTable for `segments` (its segments, or none where machine code is not allowed)."""
    key = id(segments)
    found = program.__dict__.get("_loop_table")
    if found is None or found[0] != key:
        found = program.__dict__["_loop_table"] = (key, LoopTable(program, segments))
    return found[1]
