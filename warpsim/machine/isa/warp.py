"""Warp-level exchange: shfl, vote, match, redux, elect, activemask, bar.warp.sync.

The table entries, emitters and runtime of the instructions where a lane's
result depends on the other lanes of its warp. Each `.sync` form names its
lanes in a member mask; the table says where that operand is, the CFG starts
a block at the instruction and the scheduler holds the group there until the
named lanes have arrived.

The runtime functions run on one converged group per warp (the scheduler only issues them
once every lane named in the member mask has arrived), so the lanes taking
part are exactly `idx`; what they compute is semantics/warp.py's, which the
SASS executor's VOTE/MATCH/REDUX/SHFL call too. Only shfl's register read
(the source lane's value, or its register where it is not taking part) and
its report of such lanes are the PTX machine's own.
"""

from __future__ import annotations

import numpy as np

from ...ptx.ir import Imm, Not, Reg, Sink
from ...ptx.types import TYPES
from ...semantics import warp as lanes
from .evaluate import typed_immediate
from .table import (
    WARP,
    constant_mask,
    emitted,
    mask_is_first_source,
    mask_is_last_source,
    mask_operand,
)


def _grid(ctx, idx, values, dtype, fill_from=None):
    """A (n_warps, 32) grid: this group's values, other lanes from the register file."""
    grid = np.zeros(ctx.n, dtype=dtype) if fill_from is None else fill_from.astype(dtype, copy=True)
    grid[idx] = values
    return grid.reshape(-1, 32)


def activemask(ctx, idx) -> np.ndarray:
    return lanes.ballot(idx, True)


# ------------------------------------------------------------ collectives met across sites
#
# From sm_70 a `.sync` collective waits for its named lanes at *a* collective of its kind and mask
# (scheduling/warp_sync.py, meet_across_sites), and then runs once for all of them: each lane gives
# its own operands, from its own instruction, and gets the result of the whole meeting. An H100 runs
# `validation/warp_sync_masks/sites.cu` so: half-warps whose loops of a ballot and a
# `__reduce_add_sync` run two and one times meet the one after the loop, and each half's ballot word
# holds the other's votes. The group issuing takes the partners' operands from their registers
# (ctx.joint_meeting, left by the meeting) and leaves the partners their results
# (ctx.joint_results), which they take when they issue their own instruction.

def source_values(ctx, block, op, type_name: str, slots) -> np.ndarray | None:
    """A source operand of the block's first instruction, as `type_name`, for lanes `slots` from the
    register file (None where it is not a register, immediate or negated predicate)."""
    fn, t = block.function, TYPES[type_name]
    if isinstance(op, Not):
        got = source_values(ctx, block, op.reg, "pred", slots)
        return None if got is None else ~got
    if isinstance(op, Imm):
        value = typed_immediate(op, type_name)
        return np.full(len(slots), value, dtype=bool if t.kind == "pred" else t.dtype)
    if not isinstance(op, Reg) or op.name not in fn.regs:
        return None
    bits = TYPES[fn.regs[op.name]].bits
    raw = ctx.reg(f"{fn.name}::{op.name}", bits)[slots]
    if t.kind == "pred":
        return raw != 0
    if raw.dtype.itemsize != t.dtype.itemsize:
        raw = raw.astype(t.storage)
    return raw.view(t.dtype)


def _partners(ctx, idx, sources: tuple):
    """(partner lanes, their source operands k as types t for (k, t) in sources, their member masks) of
    a meeting across sites that idx's group issues now; None if there is none."""
    meeting = getattr(ctx, "joint_meeting", None)
    if meeting is None:
        return None
    ctx.joint_meeting = None
    partners, gids = meeting
    if not np.isin(partners >> 5, idx >> 5).all():
        return None
    values, order = [[] for _ in sources] + [[]], []
    for gid in np.unique(gids):
        at = partners[gids == gid]
        order.append(at)
        block = ctx.program.blocks[int(gid)]
        ins = block.instructions[0]
        operands = [(ins.srcs[pos], type_name) for pos, type_name in sources] + [(mask_operand(ins), "b32")]
        for k, (op, type_name) in enumerate(operands):
            got = source_values(ctx, block, op, type_name, at)
            if got is None:
                return None
            values[k].append(got)
    return np.concatenate(order), [np.concatenate(v) for v in values]


def _components(result) -> tuple:
    return result if isinstance(result, tuple) else (result,)


def _shaped(parts: list, like):
    return tuple(parts) if isinstance(like, tuple) else parts[0]


def _held(ctx, idx):
    """(which lanes of idx have results waiting from a collective met across sites, those results in
    idx's order), the results taken; None if no lane has."""
    held = getattr(ctx, "joint_results", None)
    if not held:
        return None
    hit = np.zeros(len(idx), dtype=bool)
    parts, kept = None, []
    for slots, results in held:
        inside = np.isin(slots, idx)
        if inside.any():
            at = np.searchsorted(idx, slots[inside])
            hit[at] = True
            comps = _components(results)
            if parts is None:
                parts = [np.zeros(len(idx), dtype=c.dtype) for c in comps]
            for part, c in zip(parts, comps):
                part[at] = c[inside]
        if not inside.all():
            kept.append((slots[~inside], _shaped([c[~inside] for c in _components(results)], results)))
    if parts is None:
        return None
    ctx.joint_results = kept
    return hit, _shaped(parts, results)


def _joint(ctx, idx, own: tuple, sources: tuple, compute):
    """compute(slots, *operands) for idx's group (operands `own`, the member mask last), and for the
    lanes it meets at other sites, whose results wait for them; lanes with results waiting take
    those."""
    if not getattr(ctx, "joint_results", None) and getattr(ctx, "joint_meeting", None) is None:
        return compute(idx, *own)                   # no meeting across sites: the common case
    waiting = _held(ctx, idx)
    if waiting is None:
        return _meet(ctx, idx, own, sources, compute)
    hit, got = waiting
    if hit.all():
        return got
    rest = _meet(ctx, idx[~hit], tuple(np.broadcast_to(np.asarray(o), idx.shape)[~hit] for o in own),
                 sources, compute)
    parts = []
    for g, r in zip(_components(got), _components(rest)):
        g = g.copy()
        g[~hit] = r
        parts.append(g)
    return _shaped(parts, got)


def _meet(ctx, idx, own: tuple, sources: tuple, compute):
    met = _partners(ctx, idx, sources)
    if met is None:
        return compute(idx, *own)
    partners, values = met
    slots = np.concatenate([idx, partners])
    order = np.argsort(slots, kind="stable")
    operands = [np.concatenate([np.broadcast_to(np.asarray(o), idx.shape).astype(v.dtype), v])[order]
                for o, v in zip(own, values)]
    result = compute(slots[order], *operands)
    back = np.empty_like(order)
    back[order] = np.arange(len(order))
    mine, theirs = back[:len(idx)], back[len(idx):]
    keep = np.argsort(partners)
    comps = _components(result)
    ctx.joint_results = (getattr(ctx, "joint_results", None) or []) + \
        [(partners[keep], _shaped([c[theirs[keep]] for c in comps], result))]
    return _shaped([c[mine] for c in comps], result)


def vote(ctx, idx, mode: str, pred: np.ndarray, member_mask: np.ndarray):
    """vote.sync.{all,any,uni,ballot} over the lanes of idx that the mask names."""
    return _joint(ctx, idx, (pred, member_mask), ((0, "pred"),),
                  lambda slots, p, m: lanes.vote(mode, slots, p, m))


def shfl(ctx, idx, mode: str, value: np.ndarray, b: np.ndarray, c: np.ndarray, reg_file=None,
         member_mask=None, site=None):
    """shfl.sync: (result, in-range predicate) per PTX's lane arithmetic.

    A lane that reads from a lane which is not taking part (not in the
    executing group, or not named in its member mask) gets an undefined value
    on the hardware; warpsim returns that lane's register and reports it.
    """
    def compute(slots, value, b, c, masks):
        j, ok = lanes.shuffle_sources(slots & 31, mode, b, c)
        grid = _grid(ctx, slots, value, value.dtype, reg_file)
        if site is not None:
            _report_absent_sources(ctx, slots, j, masks, site)
        return grid[slots >> 5, j], ok
    masks = np.uint32(0xFFFFFFFF) if member_mask is None else member_mask
    return _joint(ctx, idx, (value, b, c, masks), ((0, "b32"), (1, "b32"), (2, "b32")), compute)


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
    return _joint(ctx, idx, (value, member_mask), ((0, _match_type(value)),),
                  lambda slots, v, m: lanes.match(mode, slots, v, m))


def _match_type(value) -> str:
    return "b64" if np.asarray(value).dtype.itemsize == 8 else "b32"


def redux(ctx, idx, op: str, value: np.ndarray, member_mask: np.ndarray):
    """redux.sync.{add,min,max,and,or,xor} over the named lanes of each warp (s32: signed min/max)."""
    type_name = {np.dtype(np.int32): "s32", np.dtype(np.uint32): "u32"}.get(np.asarray(value).dtype, "b32")
    return _joint(ctx, idx, (value, member_mask), ((0, type_name),),
                  lambda slots, v, m: lanes.redux(op, slots, v, m))


def issued(ctx, idx, masks: np.ndarray, constant: bool) -> np.ndarray:
    """The lanes each lane's collective runs with: semantics.warp.issued_masks on sm_70 and later,
    the masks themselves under a pre-Volta model (no WARPSYNC there)."""
    if not getattr(ctx.model, "stops_unnamed_lanes", True):
        return masks
    return lanes.issued_masks(idx, masks, constant)


def elect(ctx, idx, member_mask: np.ndarray):
    """elect.sync: (leader lane, is-leader predicate) per lane of idx."""
    return _joint(ctx, idx, (member_mask,), (), lambda slots, m: lanes.elect(slots, m))


# ------------------------------------------------------------ emitters

def member_mask(c, ins):
    """Code for each lane's member mask, as the lanes it runs with (issued)."""
    operand = mask_operand(ins)
    return f"warp.issued(ctx, idx, fit({c.typed(operand, 'b32')}, n), {constant_mask(c.fn, ins)})"


def write_value_and_predicate(c, dsts, result: str):
    """`d|p` destinations of shfl, match.all and elect: the value unless it is the sink `_`,
    and the predicate if named."""
    if not isinstance(dsts[0], Sink):
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
    mask = member_mask(c, ins) if "sync" in ins.mods and len(ins.srcs) > 3 else "None"
    c.emit(f"{res} = warp.shfl(ctx, idx, {mode!r}, {value}, {c.typed(b, 'b32')}, "
           f"{c.typed(cc, 'b32')}, {reg_file}, {mask}, {c.site(ins)})")
    write_value_and_predicate(c, ins.dsts, res)
    return False


@emitted("vote", family="warp", kind=WARP, pipe="alu", warp_sync=True, member_mask=mask_is_last_source)
def emit_vote(c, ins):
    mode = next(m for m in ins.mods if m in ("all", "any", "uni", "ballot"))
    pred = f"fit({c.typed(ins.srcs[0], 'pred')}, n)"
    mask = member_mask(c, ins) if "sync" in ins.mods else "warp.activemask(ctx, idx)"
    out_type = "b32" if mode == "ballot" else "pred"
    c.write(ins.dsts[0], out_type, f"warp.vote(ctx, idx, {mode!r}, {pred}, {mask})")
    return False


@emitted("match", family="warp", kind=WARP, pipe="alu", warp_sync=True, member_mask=mask_is_last_source)
def emit_match(c, ins):
    mode = "any" if "any" in ins.mods else "all"
    value = f"fit({c.typed(ins.srcs[0], ins.type)}, n)"
    res = c.fresh("match")
    c.emit(f"{res} = warp.match(ctx, idx, {mode!r}, {value}, {member_mask(c, ins)})")
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
    c.write(ins.dsts[0], t, f"warp.redux(ctx, idx, {op!r}, {value}, {member_mask(c, ins)})")
    return False


@emitted("elect", family="warp", kind=WARP, pipe="alu", warp_sync=True, member_mask=mask_is_last_source)
def emit_elect(c, ins):
    """elect.sync d|p, membermask: the lowest named lane taking part is the leader."""
    res = c.fresh("elect")
    c.emit(f"{res} = warp.elect(ctx, idx, {member_mask(c, ins)})")
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

