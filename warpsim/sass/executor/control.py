"""Control flow and convergence: BRA EXIT CALL RET BRX, BSSY BSYNC BREAK BMOV, WARPSYNC, BAR, B2R.

Branches decide, per lane, the next instruction; a divergent branch leaves
the warp's lanes at several places, and the engine issues the group at the
lowest address first (independent thread scheduling, as warpsim's `its`
model does for PTX). ptxas brackets divergent regions with convergence
barriers: `BSSY Bk, L` names the warp's active lanes as members of Bk, and
`BSYNC Bk` at L lets no lane past until every member that has not exited or
left with `BREAK Bk` has arrived. `WARPSYNC mask` waits for the lanes of the
mask; `BAR.SYNC id[, count]` for the CTA's threads (or `count` of them),
`BAR.ARV` arrives without waiting, `BAR.RED.{POPC,AND,OR}` also reduces a
predicate over the CTA, which `B2R.RESULT` reads.

Calls are ptxas's own linkage: `MOV R4, ret` then `CALL.REL.NOINC f` jumps,
and `RET.REL.NODEC R4 (kernel)` returns to the function offset in R4. An absolute
call through a register or by name (`CALL.ABS.NOINC R10`, `CALL.ABS.NOINC
`(cudaGraphSetConditional)`) reaches the device runtime: device_calls.py.
`BRA Pn, L` (a predicate operand) branches only where Pn also holds.

Cooperative groups and cub guard their warp collectives with a diverged-warp
path: `BRA.DIV URm, L` branches (the whole group) when the lanes issuing it
are not every live lane of the warp in mask m; at L each collective runs
between `WARPSYNC.COLLECTIVE Rm, end` (wait for the live lanes of Rm, as
WARPSYNC) and `ENDCOLLECTIVE` (nothing more to do once they issue together).
`WARPSYNC.EXCLUSIVE Rm` waits as WARPSYNC does; on the hardware the lanes of
each mask then run alone until the region's BSYNC (ptxas puts it before a
REDUX over a partial mask: cub's 16-lane logical warps, and before a VOTE on a
mask read at run time). Here the lanes keep their mask (`SassState.exclusive`,
cleared at BSYNC) and REDUX and VOTE run per mask. A WARPSYNC of any form
whose mask leaves out a lane running it stops the launch with an illegal
instruction, as the H200 does.
"""

from __future__ import annotations

import numpy as np

from ...semantics import barriers
from . import device_calls, warp_meeting
from .operands import U32, dest, pred_dest, predicate, source
from .state import EXITED as EXITED_PC
from .table import WAIT_WARPSYNC, Step, Unsupported, semantics
from .warp import ballot, warp_bits

EXIT = -1


def _label_index(ins, program):
    label = ins.branch_target
    if label is None or label not in program.labels:
        raise Unsupported(f"branch target {label}")
    return program.labels[label]


def _extra_condition(ins):
    preds = [op for op in ins.operands if op.kind in ("pred", "upred")]
    return predicate(preds[0]) if preds else None


def branch(ins, program):
    if set(ins.mods) - {"U", "CONV", "DIV", "ANY"}:
        raise Unsupported("modifier " + ", ".join("." + m for m in ins.mods))
    if "DIV" in ins.mods:
        return diverged_branch(ins, program)
    if "ANY" in ins.mods:
        return any_lane_branch(ins, program)
    if any(op.kind in ("reg", "ureg") for op in ins.operands):
        raise Unsupported("BRA with a register operand")
    index = _label_index(ins, program)
    condition = _extra_condition(ins)
    fall = program.index_of(ins) + 1

    def target(st, g):
        if condition is None:
            return np.full(g.n, index, dtype=np.int64)
        return np.where(condition(st, g), index, fall).astype(np.int64)
    return Step(ins, lambda st, g: None, target=target, jump=index if condition is None else None)


def any_lane_branch(ins, program):
    """@P BRA.U.ANY L: every issuing lane of a warp to L when P holds for any of them (ptxas closes
    its ELECT loop over the lanes that asked for a uniform operation, UBLKCP, with it)."""
    if "U" not in ins.mods or _extra_condition(ins) is not None or not ins.is_guarded:
        raise Unsupported("BRA.ANY form")
    guard = predicate(ins.guard)
    index = _label_index(ins, program)
    fall = program.index_of(ins) + 1

    def target(st, g):
        on = np.broadcast_to(np.asarray(guard(st, g), dtype=bool), (g.n,))
        warps = g.idx >> 5
        return np.where(np.isin(warps, warps[on]), index, fall).astype(np.int64)
    return Step(ins, lambda st, g: None, target=target, reads_guard=True)


def diverged_branch(ins, program):
    """BRA.DIV URm, L: every lane of the group to L when the warp is diverged, else on."""
    masks = [op for op in ins.operands if op.kind in ("reg", "ureg", "imm")]
    read_mask = source(masks[0]) if masks else (lambda st, g: U32(0xFFFFFFFF))
    index = _label_index(ins, program)
    fall = program.index_of(ins) + 1

    def target(st, g):
        live = warp_bits(st.pc != EXITED_PC)[g.idx >> 5]
        mask = np.broadcast_to(np.asarray(read_mask(st, g), dtype=np.uint64), (g.n,))
        issuing = np.asarray(ballot(g, True), dtype=np.uint64)
        return np.where((live & mask) != issuing, index, fall).astype(np.int64)
    return Step(ins, lambda st, g: None, target=target)


@semantics("BRA", "JMP", family="control", pipe="branch", mods=("U", "CONV", "DIV", "ANY"),
           doc="branch to a label (guarded: per lane); a predicate operand is a further condition; "
               ".DIV URm: the group branches when the warp's live lanes in m are not all issuing; "
               "@P .U.ANY: the warp's issuing lanes branch when P holds for any of them")
def bra(ins):
    return ins      # resolved against the program's labels by program.py (needs the label indices)


@semantics("EXIT", family="control", pipe="branch", mods=("KEEPREFCOUNT", "NO_ATEXIT"),
           doc="the lanes end; a predicate operand is a further condition (`@!P0 EXIT P1`: the lanes "
               "where P1 is false go on)")
def exit_(ins):
    if _extra_condition(ins) is not None:
        return ins      # its fall-through is the next instruction's index (exit_where, by program.py)
    return Step(ins, lambda st, g: None, target=lambda st, g: np.full(g.n, EXIT, dtype=np.int64))


def exit_where(ins, program):
    """EXIT with a predicate operand: the lanes where it holds end, the others go to the next instruction."""
    condition = _extra_condition(ins)
    fall = program.index_of(ins) + 1
    return Step(ins, lambda st, g: None,
                target=lambda st, g: np.where(condition(st, g), EXIT, fall).astype(np.int64))


def _trap(ins):
    from .errors import SassTrap, lane_place, source_line, where

    def run(st, g):
        cta, thread = lane_place(st, g, 0)
        raise SassTrap(f"trap by block {cta} thread {thread} ({g.n} lane(s)): {where(ins)}", block=cta,
                       thread=thread, instruction=ins.text, source_line=source_line(ins))
    return Step(ins, run)


@semantics("BPT", family="control", pipe="branch", mods=("TRAP",),
           doc=".TRAP: the lanes trap (PTX trap): the launch fails, as on a GPU")
def bpt(ins):
    if set(ins.mods) != {"TRAP"}:
        raise Unsupported("BPT without .TRAP (a debugger breakpoint)")
    return _trap(ins)


@semantics("KILL", family="control", pipe="branch", mods=(), doc="the lanes end (as EXIT)")
def kill(ins):
    return exit_(ins)


def call(ins, program):
    if set(ins.mods) - {"REL", "NOINC", "ABS"}:
        raise Unsupported("modifier " + ", ".join("." + m for m in ins.mods))
    if device_calls.calls_device_function(ins):
        return device_calls.call_device_function(ins, program)
    index = _label_index(ins, program)
    return Step(ins, lambda st, g: None, target=lambda st, g: np.full(g.n, index, dtype=np.int64))


@semantics("CALL", family="control", pipe="branch", mods=("REL", "NOINC", "ABS"),
           doc="jump to a function of the same section (ptxas stores the return offset in a register first), "
               "or to a device-runtime function, by name or through a register (device_calls.py)")
def call_(ins):
    return ins


def ret(ins, program):
    registers = [op for op in ins.operands if op.kind == "reg"]
    if not registers:
        raise Unsupported("RET without a register")
    read = source(registers[0])
    base = program.function_start

    def target(st, g):
        offsets = np.broadcast_to(np.asarray(read(st, g), dtype=np.int64), (g.n,))
        return program.index_of_offsets(base, offsets)
    return Step(ins, lambda st, g: None, target=target)


@semantics("RET", family="control", pipe="branch", mods=("REL", "NODEC", "ABS"),
           doc="return to the function offset held in a register")
def ret_(ins):
    return ins


def brx(ins, program):
    registers = [op for op in ins.operands if op.kind == "reg"]
    imms = [op for op in ins.operands if op.kind == "imm"]
    if len(registers) != 1:
        raise Unsupported("BRX operand form")
    read = source(registers[0])
    displacement = int(imms[0].value) if imms else 0
    after = ins.offset + 16

    def target(st, g):
        offsets = np.asarray(read(st, g), dtype=np.int64).astype(np.int32).astype(np.int64)
        return program.index_of_offsets(0, after + displacement + offsets)
    return Step(ins, lambda st, g: None, target=target)


@semantics("BRX", family="control", pipe="branch", mods=(), doc="indirect branch: a register (plus a displacement) "
                                                 "relative to the next instruction")
def brx_(ins):
    return ins


LINKED = {"BRA": branch, "JMP": branch, "CALL": call, "RET": ret, "BRX": brx, "EXIT": exit_where,
          "KILL": exit_where, "LEPC": device_calls.lepc}


# ------------------------------------------------------------------ convergence

def _barrier_number(ins) -> int:
    barriers = [op for op in ins.operands if op.kind == "barrier"]
    if len(barriers) != 1:
        raise Unsupported("convergence barrier operand")
    return barriers[0].number


@semantics("BSSY", family="control", pipe="branch", mods=("RECONVERGENT",),
           doc="start a convergence region: the warp's active lanes become the members of Bk")
def bssy(ins):
    k = _barrier_number(ins)

    def run(st, g):
        st.B[k].reshape(-1, 32)[g.warp_runs()[0]] = False
        st.B[k][g.sel] = True
    return Step(ins, run)


@semantics("BSYNC", family="control", pipe="branch", mods=("RECONVERGENT",),
           doc="wait until every live member of Bk is here, then go on together")
def bsync(ins):
    def run(st, g):
        st.exclusive[g.sel] = 0                 # the end of a WARPSYNC.EXCLUSIVE region
    return Step(ins, run, wait=("bsync", _barrier_number(ins)))


@semantics("BREAK", family="control", pipe="branch",
           mods=(), doc="the lanes leave Bk (a BSYNC no longer waits for them)")
def break_(ins):
    k = _barrier_number(ins)

    def run(st, g):
        st.B[k][g.idx] = False
    return Step(ins, run)


@semantics("BMOV", family="control", pipe="branch", mods=("32", "CLEAR"),
           doc="move a convergence barrier's members as a warp lane mask: `BMOV.32.CLEAR Rd, Bk` reads "
               "and empties Bk, `BMOV.32 Bk, Ra` sets it (ptxas saves and restores Bk so around calls)")
def bmov(ins):
    if len(ins.operands) != 2 or "32" not in ins.mods:
        raise Unsupported("operand form")
    to, frm = ins.operands
    if frm.kind == "barrier":
        k, write, clear = frm.number, dest(to), "CLEAR" in ins.mods

        def run(st, g):
            write(st, g, warp_bits(st.B[k])[g.idx >> 5].astype(U32))
            if clear:
                st.B[k].reshape(-1, 32)[g.warp_runs()[0]] = False
        return Step(ins, run)
    if to.kind != "barrier" or "CLEAR" in ins.mods:
        raise Unsupported("operand form")
    k, read = to.number, source(frm)

    def restore(st, g):
        warps, first, _ = g.warp_runs()
        mask = np.broadcast_to(np.asarray(read(st, g), dtype=U32), g.idx.shape)[first]  # a warp-wide value
        st.B[k].reshape(-1, 32)[warps] = ((mask[:, None] >> np.arange(32, dtype=U32)) & U32(1)) != 0
    return Step(ins, restore)


@semantics("WARPSYNC", family="control", pipe="branch", mods=("ALL", "EXCLUSIVE", "COLLECTIVE"),
           doc="wait for the live lanes of the mask (all 32 under .ALL); .COLLECTIVE Rm, end opens a "
               "diverged-warp collective (waits the same), .EXCLUSIVE waits the same and, until BSYNC, "
               "a REDUX reduces per mask")
def warpsync(ins):
    if "ALL" in ins.mods or not ins.operands or ins.operands[0].kind == "label":
        full = U32(0xFFFFFFFF)
        mask = lambda st, g: full
    else:
        mask = source(ins.operands[0])

    def check(st, g):
        """A lane the mask leaves out stops the launch, as on the H200 (validation/warp_sync_masks)."""
        masks = np.broadcast_to(np.asarray(mask(st, g), dtype=U32), (g.n,))
        own = (masks >> (g.idx & 31).astype(U32)) & U32(1)
        if own.all():
            return masks
        from .errors import SassIllegalInstruction, lane_place, source_line, where
        bad = int(np.flatnonzero(own == 0)[0])
        cta, thread = lane_place(st, g, bad)
        raise SassIllegalInstruction(
            f"illegal instruction: WARPSYNC with mask 0x{int(masks[bad]):08x} by block {cta} thread "
            f"{thread}, a lane the mask leaves out: {where(ins)}", block=cta, thread=thread,
            instruction=ins.text, source_line=source_line(ins))
    def meet(st, g):
        masks = check(st, g)
        release_partners(st, g, masks)
        return masks
    if "EXCLUSIVE" in ins.mods:
        def run(st, g):
            st.exclusive[g.sel] = meet(st, g).astype(np.uint64)
        return Step(ins, run, wait=("warpsync", mask))
    return Step(ins, meet, wait=("warpsync", mask))


def release_partners(st, g, masks) -> None:
    """A WARPSYNC waits for its named lanes at *a* WARPSYNC, not this one (sm_70 and later: the
    PTX ISA asks for the same instruction only of sm_6x; the half-warps of a shuffle loop with
    different trip counts meet at the one after the loop, as on an H100): the named lanes waiting
    at another WARPSYNC go on there without waiting again (st.sync_passes, which the engine's
    ready_lanes reads), and the issuing lanes' own passes are spent."""
    passes = getattr(st, "sync_passes", None)
    if passes is not None:
        passes[g.idx] = False
    warps, first, _ = g.warp_runs()
    lanes = (warps[:, None] * 32 + np.arange(32)).ravel()
    pc = st.pc[lanes]
    elsewhere = (pc >= 0) & (st.program.wait_kind[pc] == WAIT_WARPSYNC)
    elsewhere[np.searchsorted(lanes, g.idx)] = False
    if not elsewhere.any():
        return
    named = ((masks[first][:, None] >> np.arange(32, dtype=U32)) & U32(1)).astype(bool).ravel()
    partners = lanes[elsewhere & named]
    if len(partners):
        if passes is None:
            passes = st.sync_passes = np.zeros(len(st.pc), dtype=bool)
        passes[partners] = True


@semantics("ENDCOLLECTIVE", family="control", pipe="branch", mods=(),
           doc="end of a WARPSYNC.COLLECTIVE region: lanes pulled in from another such region go back "
               "to its end, the others on")
def end_collective(ins):
    return ins      # its fall-through is the next instruction's index (by program.py)


def end_collective_where(ins, program):
    fall = program.index_of(ins) + 1
    return Step(ins, lambda st, g: None, target=lambda st, g: warp_meeting.returns(st, g, fall))


LINKED["ENDCOLLECTIVE"] = end_collective_where


BAR_REDUCTIONS = ("POPC", "AND", "OR")


@semantics("BAR", family="control", pipe="barrier",
           mods=("SYNC", "ARV", "RED", "DEFER_BLOCKING", "ALIGNED") + BAR_REDUCTIONS,
           doc="CTA barrier: SYNC waits for the CTA's threads (or a count), ARV arrives, RED also reduces "
               "a predicate (POPC, AND, OR) that B2R.RESULT reads")
def bar(ins):
    ops = list(ins.operands)
    reduction = next((m for m in ins.mods if m in BAR_REDUCTIONS), None)
    pred = predicate(ops.pop()) if reduction and ops and ops[-1].kind == "pred" else None
    if reduction and pred is None:
        raise Unsupported("BAR.RED without a predicate")
    if not ops:
        raise Unsupported("operand form")
    barrier_id = source(ops[0])
    count = source(ops[1]) if len(ops) > 1 else None
    if "ARV" in ins.mods:
        def arrive(st, g):
            ids = np.broadcast_to(np.asarray(barrier_id(st, g), dtype=np.int64), (g.n,))
            barriers.count_arrivals(st.arrivals, st.cta[g.idx] * barriers.BARRIERS_PER_CTA + ids)
        return Step(ins, arrive)

    def run(st, g):
        if reduction is None:
            return
        flags = np.broadcast_to(np.asarray(pred(st, g), dtype=bool), (g.n,))
        result = barriers.reduce_predicate(reduction.lower(), st.cta[g.idx], flags).astype(np.uint32)
        st.__dict__.setdefault("bar_result", np.zeros(st.n, dtype=np.uint32))[g.idx] = result
    return Step(ins, run, wait=("bar", barrier_id, count))


@semantics("B2R", family="control", pipe="branch",
           mods=("RESULT",), doc="read the last BAR.RED result (count, or predicate)")
def b2r(ins):
    if "RESULT" not in ins.mods:
        raise Unsupported("B2R without .RESULT")
    ops = ins.operands
    write = dest(ops[0])
    write_pred = pred_dest(ops[1]) if len(ops) > 1 and ops[1].kind == "pred" else None

    def run(st, g):
        value = st.__dict__.get("bar_result", np.zeros(st.n, dtype=np.uint32))[g.sel]
        write(st, g, value)
        if write_pred is not None:
            write_pred(st, g, value != 0)
    return Step(ins, run)
