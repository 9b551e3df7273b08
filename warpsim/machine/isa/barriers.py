"""Barriers: CTA barriers (bar/barrier, bar.red); mbarrier objects are machine.isa.mbarrier's.

The engine emits these itself because they stop threads until others arrive.
A CTA barrier ends its block: the emitter records which barrier and how many
threads each thread waits for, and the engine releases the CTA's threads when
they are all there (semantics/barriers.py says when, for SASS's BAR too);
`reduce_barrier` then gives bar.red its result.
"""

from __future__ import annotations

from ...semantics import barriers
from .table import BARRIER, emitted

# ------------------------------------------------------------ bar / barrier


@emitted("bar", "barrier", family="barriers", kind=BARRIER, pipe="sync", cta_barrier=True,
         variant=lambda ins: "warp" not in ins.mods and "cluster" not in ins.mods)
def emit_barrier(c, ins):
    """CTA barriers arrive here; the engine releases them (and reduces bar.red)."""
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


def reduce_barrier(ctx, ins, group, keys):
    """bar.red.{popc,and,or}: each released thread's result over the threads of its CTA's barrier
    (`keys`: their barrier keys); semantics/barriers.py reduces."""
    op = next(m for m in ins.mods if m in ("popc", "and", "or"))
    return barriers.reduce_predicate(op, keys, ctx.barrier_pred[group])
