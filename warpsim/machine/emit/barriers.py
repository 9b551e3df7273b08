"""Barriers: CTA barriers (bar/barrier) and mbarrier objects in shared memory.

The engine emits these itself because they stop threads until others arrive:
bar ends the block and the engine releases the CTA; mbarrier keeps its state
in shared memory (machine.mbarrier).
"""

from __future__ import annotations

from ...errors import UnsupportedInstruction
from ..codegen import Site
from .common import address_expr, emitter, space_of, write_selected


@emitter("bar", "barrier")
def emit_barrier(c, ins):
    """CTA barriers arrive here; the engine releases them (and reduces bar.red)."""
    if "warp" in ins.mods:                          # bar.warp.sync: the scheduler already met the lanes
        return False
    arrive = "arrive" in ins.mods
    red = "red" in ins.mods
    srcs = list(ins.srcs)
    barrier = c.typed(srcs[0], "u32")
    count = "0"
    if red:
        pred = srcs[-1]
        middle = srcs[1:-1]
        c.emit(f"ctx.barrier_pred[idx] = fit({c.typed(pred, 'pred')}, n)")
    else:
        middle = srcs[1:]
    if middle:
        count = c.typed(middle[0], "u32")
    c.emit(f"ctx.barrier_id[idx] = fit({barrier}, n)")
    c.emit(f"ctx.barrier_count[idx] = fit({count}, n)")
    if arrive:
        c.emit("ctx.barrier_arrivals(idx)")
        return False
    c.emit("ctx.status[idx] = AT_BARRIER")
    return True


@emitter("mbarrier")
def emit_mbarrier(c, ins):
    """mbarrier.init/arrive/arrive_drop/test_wait/try_wait/inval/expect_tx (see machine.mbarrier)."""
    operation = ins.mods[0]
    operands = list(ins.dsts) + list(ins.srcs)
    site = c.const(Site(c.program, c.fn, ins), "site")
    sel_idx, sel = c.selected()
    pick = (lambda e: f"{e}[{sel}]") if sel else (lambda e: e)

    def addr_of(op):
        expr, _ = address_expr(c, op, space_of(ins) if space_of(ins) != "generic" else "shared")
        return pick(expr)

    if operation in ("expect_tx", "complete_tx"):
        return False                                   # copies complete at once: nothing pending
    def value_of(op, type_name):
        return pick("fit(" + c.typed(op, type_name) + ", n)")

    if operation == "init":
        c.emit(f"mbarrier.init(ctx, {site}, {sel_idx}, {addr_of(operands[0])}, "
               f"{value_of(operands[1], 'u32')})")
    elif operation == "inval":
        c.emit(f"mbarrier.invalidate(ctx, {site}, {sel_idx}, {addr_of(operands[0])})")
    elif operation in ("arrive", "arrive_drop"):
        count = value_of(operands[2], "u32") if len(operands) > 2 and "expect_tx" not in ins.mods else "1"
        token = c.fresh("token")
        c.emit(f"{token} = mbarrier.arrive(ctx, {site}, {sel_idx}, {addr_of(operands[1])}, {count}, "
               f"{operation == 'arrive_drop'})")
        write_selected(c, operands[0], "b64", token, sel)
    elif operation in ("test_wait", "try_wait"):
        done = c.fresh("done")
        c.emit(f"{done} = mbarrier.test_wait(ctx, {site}, {sel_idx}, {addr_of(operands[1])}, "
               f"{value_of(operands[2], 'b64')}, {'parity' in ins.mods})")
        write_selected(c, operands[0], "pred", done, sel)
    else:
        raise UnsupportedInstruction(ins, f"mbarrier.{operation}")
    return False
