"""Warp-level exchange: shfl, vote, match, redux, elect, activemask, bar.warp.sync.

The table entries, emitters and runtime of the instructions where a lane's
result depends on the other lanes of its warp. Each `.sync` form names its
lanes in a member mask; the table says where that operand is, the CFG starts
a block at the instruction and the scheduler holds the group there until the
named lanes have arrived.

The runtime functions run on one converged group per warp (the scheduler only issues them
once every lane named in the member mask has arrived), so the lanes taking
part are exactly `idx`. Values are scattered into a (warps, 32) grid, the
operation reads across each row, and results are gathered back per lane.
"""

from __future__ import annotations

import numpy as np

from ...ptx.ir import Reg
from .table import WARP, emitted, mask_is_first_source, mask_is_last_source


def _grid(ctx, idx, values, dtype, fill_from=None):
    """A (n_warps, 32) grid: this group's values, other lanes from the register file."""
    grid = np.zeros(ctx.n, dtype=dtype) if fill_from is None else fill_from.astype(dtype, copy=True)
    grid[idx] = values
    return grid.reshape(-1, 32)


def group_ballot(ctx, idx, pred) -> np.ndarray:
    """Per lane of idx: the 32-bit word of lanes in its warp (within idx) with pred true."""
    bits = np.zeros(ctx.n, dtype=np.uint64)
    bits[idx] = np.where(pred, np.uint64(1) << ctx.lane[idx].astype(np.uint64), np.uint64(0))
    words = np.bitwise_or.reduce(bits.reshape(-1, 32), axis=1).astype(np.uint32)
    return words[idx >> 5]


def activemask(ctx, idx) -> np.ndarray:
    return group_ballot(ctx, idx, np.ones(len(idx), dtype=bool))


def vote(ctx, idx, mode: str, pred: np.ndarray, member_mask: np.ndarray):
    """vote.sync.{all,any,uni,ballot} over the lanes of idx that the mask names."""
    lanebit = np.uint32(1) << ctx.lane[idx]
    named = (member_mask & lanebit) != 0
    # Lanes of one warp may vote in separate groups (e.g. two 16-lane halves,
    # each naming only itself): each lane sees the lanes its own mask names.
    taking_part = group_ballot(ctx, idx, named) & member_mask
    ballot = group_ballot(ctx, idx, pred & named) & member_mask
    if mode == "ballot":
        return ballot
    if mode == "all":
        return ballot == taking_part
    if mode == "any":
        return ballot != 0
    if mode == "uni":
        return (ballot == 0) | (ballot == taking_part)
    raise AssertionError(mode)


def shuffle_sources(lane, mode: str, b, c) -> tuple:
    """(source lane, in range) per lane for a shuffle ('up', 'down', 'bfly' or 'idx'): b is the lane
    or offset, c packs the clamp (bits 0-4) and the segment mask (bits 8-12), as PTX's shfl.sync
    and SASS's SHFL both define them; a lane whose source is out of range reads itself."""
    lane = np.asarray(lane).astype(np.int64)
    bval = np.asarray(b).astype(np.int64) & 31
    cval = np.asarray(c).astype(np.int64)
    clamp, segment = cval & 31, (cval >> 8) & 31
    max_lane = (lane & segment) | (clamp & ~segment)
    if mode == "up":
        j = lane - bval
        ok = j >= max_lane
    elif mode == "down":
        j = lane + bval
        ok = j <= max_lane
    elif mode == "bfly":
        j = lane ^ bval
        ok = j <= max_lane
    else:  # idx
        j = (lane & segment) | (bval & ~segment)
        ok = j <= max_lane
    return np.where(ok, j, lane), ok


def shfl(ctx, idx, mode: str, value: np.ndarray, b: np.ndarray, c: np.ndarray, reg_file=None,
         member_mask=None, site=None):
    """shfl.sync: (result, in-range predicate) per PTX's lane arithmetic.

    A lane that reads from a lane which is not taking part (not in the
    executing group, or not named in its member mask) gets an undefined value
    on the hardware; warpsim returns that lane's register and reports it.
    """
    j, ok = shuffle_sources(ctx.lane[idx], mode, b, c)
    grid = _grid(ctx, idx, value, value.dtype, reg_file)
    if site is not None:
        _report_absent_sources(ctx, idx, j, member_mask, site)
    return grid[idx >> 5, j], ok


def _report_absent_sources(ctx, idx, source_lane, member_mask, site):
    taking_part = np.zeros(ctx.n, dtype=bool)
    taking_part[idx] = True
    present = taking_part[(idx & ~31) + source_lane]
    if member_mask is not None:
        present &= ((np.asarray(member_mask, dtype=np.uint64) >> source_lane.astype(np.uint64)) & 1) == 1
    if present.all():
        return
    first = int(np.flatnonzero(~present)[0])
    ins = site.ins
    ctx.diagnostics.append({
        "kind": "shfl_absent_source", "ptx_line": ins.line, "instruction": str(ins),
        "message": (f"shfl.sync: lane {int(ctx.lane[idx[first]])} reads lane {int(source_lane[first])}, "
                    f"which is not taking part (not active here or not in the member mask): "
                    f"the value is undefined on the hardware"),
        "source_line": site.source_line, **ctx.where(int(idx[first])),
    })


def match(ctx, idx, mode: str, value: np.ndarray, member_mask: np.ndarray):
    """match.sync.any: lanes with an equal value; .all: mask if all equal (and the predicate)."""
    lanebit = np.uint32(1) << ctx.lane[idx]
    named = (member_mask & lanebit) != 0
    warp = idx >> 5
    order = np.lexsort((value, warp))
    w_sorted, v_sorted = warp[order], value[order]
    key_change = np.ones(len(idx), dtype=bool)
    key_change[1:] = (w_sorted[1:] != w_sorted[:-1]) | (v_sorted[1:] != v_sorted[:-1])
    group = np.cumsum(key_change) - 1
    bits = np.where(named[order], lanebit[order], np.uint32(0)).astype(np.uint64)
    per_group = np.zeros(group[-1] + 1 if len(group) else 0, dtype=np.uint64)
    np.bitwise_or.at(per_group, group, bits)
    same = np.empty(len(idx), dtype=np.uint32)
    same[order] = per_group[group].astype(np.uint32)
    same &= member_mask                     # only the lanes this lane's mask names
    if mode == "any":
        return same
    taking_part = group_ballot(ctx, idx, named) & member_mask
    all_equal = same == taking_part
    return np.where(all_equal, taking_part, np.uint32(0)), all_equal


def redux(ctx, idx, op: str, value: np.ndarray, member_mask: np.ndarray):
    """redux.sync.{add,min,max,and,or,xor} over the named lanes of each warp."""
    lanebit = np.uint32(1) << ctx.lane[idx]
    named = (member_mask & lanebit) != 0
    identity = {"add": 0, "and": ~np.array(0, dtype=value.dtype), "or": 0, "xor": 0,
                "min": np.iinfo(value.dtype).max, "max": np.iinfo(value.dtype).min}[op]
    grid = np.full(ctx.n, identity, dtype=value.dtype)
    grid[idx] = np.where(named, value, identity)
    # Each lane reduces over the lanes its own mask names: a warp may hold
    # several groups (CUB's 16-lane logical warps each name their half).
    rows = grid.reshape(-1, 32)[idx >> 5]
    in_mask = ((np.asarray(member_mask, dtype=np.uint32)[:, None] >> np.arange(32, dtype=np.uint32)) & 1) != 0
    reduce = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
              "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    return reduce.reduce(np.where(in_mask, rows, np.asarray(identity, dtype=value.dtype)), axis=1).astype(value.dtype)


def elect(ctx, idx, member_mask: np.ndarray):
    """elect.sync: (leader lane, is-leader predicate) per lane of idx."""
    lanebit = np.uint32(1) << ctx.lane[idx]
    named = (member_mask & lanebit) != 0
    taking_part = group_ballot(ctx, idx, named).astype(np.uint64)
    lowest = taking_part & (~taking_part + np.uint64(1))          # isolate the lowest set bit
    leader = np.where(lowest == 0, 0, np.log2(np.maximum(lowest, 1).astype(np.float64))).astype(np.uint32)
    return leader, leader == ctx.lane[idx]


# ------------------------------------------------------------ emitters

def member_mask(c, operand):
    return f"fit({c.typed(operand, 'b32')}, n)"


def write_value_and_predicate(c, dsts, result: str):
    """`d|p` destinations of shfl, match.all and elect: the value, and the predicate if named."""
    c.write(dsts[0], "b32", f"{result}[0]")
    if len(dsts) > 1:
        c.write(dsts[1], "pred", f"{result}[1]")


@emitted("shfl", family="warp", kind=WARP, pipe="alu", warp_sync=True, member_mask=mask_is_last_source)
def emit_shfl(c, ins):
    mode = next(m for m in ins.mods if m in ("up", "down", "bfly", "idx"))
    a, b, cc = ins.srcs[0], ins.srcs[1], ins.srcs[2]
    value = f"fit({c.typed(a, 'b32')}, n)"
    reg_file = f"ctx.reg({c.key(a.name)!r}, 32)" if isinstance(a, Reg) and a.name in c.fn.regs else "None"
    res = c.fresh("shfl")
    mask = member_mask(c, ins.srcs[3]) if "sync" in ins.mods and len(ins.srcs) > 3 else "None"
    c.emit(f"{res} = warp.shfl(ctx, idx, {mode!r}, {value}, {c.typed(b, 'b32')}, "
           f"{c.typed(cc, 'b32')}, {reg_file}, {mask}, {c.site(ins)})")
    write_value_and_predicate(c, ins.dsts, res)
    return False


@emitted("vote", family="warp", kind=WARP, pipe="alu", warp_sync=True, member_mask=mask_is_last_source)
def emit_vote(c, ins):
    mode = next(m for m in ins.mods if m in ("all", "any", "uni", "ballot"))
    pred = f"fit({c.typed(ins.srcs[0], 'pred')}, n)"
    mask = member_mask(c, ins.srcs[1]) if "sync" in ins.mods else "warp.activemask(ctx, idx)"
    out_type = "b32" if mode == "ballot" else "pred"
    c.write(ins.dsts[0], out_type, f"warp.vote(ctx, idx, {mode!r}, {pred}, {mask})")
    return False


@emitted("match", family="warp", kind=WARP, pipe="alu", warp_sync=True, member_mask=mask_is_last_source)
def emit_match(c, ins):
    mode = "any" if "any" in ins.mods else "all"
    value = f"fit({c.typed(ins.srcs[0], ins.type)}, n)"
    res = c.fresh("match")
    c.emit(f"{res} = warp.match(ctx, idx, {mode!r}, {value}, {member_mask(c, ins.srcs[1])})")
    if mode == "any":
        c.write(ins.dsts[0], "b32", res)
    else:
        write_value_and_predicate(c, ins.dsts, res)
    return False


def check_redux(ins):
    return None if ins.type in ("u32", "s32", "b32") else f"redux.sync.{ins.type} is not supported"


@emitted("redux", family="warp", kind=WARP, pipe="alu", check=check_redux, warp_sync=True,
         member_mask=mask_is_last_source)
def emit_redux(c, ins):
    op = next(m for m in ins.mods if m in ("add", "min", "max", "and", "or", "xor"))
    t = ins.type
    value = f"fit({c.typed(ins.srcs[0], t)}, n)"
    c.write(ins.dsts[0], t, f"warp.redux(ctx, idx, {op!r}, {value}, {member_mask(c, ins.srcs[1])})")
    return False


@emitted("elect", family="warp", kind=WARP, pipe="alu", warp_sync=True, member_mask=mask_is_last_source)
def emit_elect(c, ins):
    """elect.sync d|p, membermask: the lowest named lane taking part is the leader."""
    res = c.fresh("elect")
    c.emit(f"{res} = warp.elect(ctx, idx, {member_mask(c, ins.srcs[0])})")
    write_value_and_predicate(c, ins.dsts, res)
    return False


@emitted("activemask", family="warp", kind=WARP, pipe="alu", warp_sync=True)
def emit_activemask(c, ins):
    """activemask has no member mask: it reports the lanes issuing together here."""
    c.write(ins.dsts[0], "b32", "warp.activemask(ctx, idx)")
    return False


@emitted("bar", "barrier", family="warp", kind=WARP, pipe="sync", warp_sync=True,
         member_mask=mask_is_first_source, variant=lambda ins: "warp" in ins.mods)
def emit_warp_barrier(c, ins):
    """bar.warp.sync: the scheduler has already met the named lanes; nothing is left to do."""
    return False

