"""Barriers: CTA barriers (bar/barrier, bar.red); mbarrier objects are machine.isa.mbarrier's.

The engine emits these itself because they stop threads until others arrive.
A CTA barrier ends its block: the emitter records which barrier and how many
threads each thread waits for, and the engine releases the CTA's threads when
they are all there; `reduce_barrier` then gives bar.red its result.
"""

from __future__ import annotations

import numpy as np

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
    """bar.red.{popc,and,or}: each thread's result over the threads of its CTA's barrier.

    `group` are the released threads at this bar.red, `keys` their (CTA,
    barrier) keys; every thread with the same key gets the same value: the
    count of true predicates (.popc), whether all were true (.and) or any (.or).
    """
    uniq, inverse = np.unique(keys, return_inverse=True)
    pred = ctx.barrier_pred[group]
    counts = np.bincount(inverse, weights=pred, minlength=len(uniq))
    sizes = np.bincount(inverse, minlength=len(uniq))
    if "popc" in ins.mods:
        return counts[inverse].astype(np.uint32)
    if "and" in ins.mods:
        return (counts == sizes)[inverse]
    return (counts > 0)[inverse]
