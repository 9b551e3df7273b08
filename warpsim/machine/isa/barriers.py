"""Barriers: CTA barriers (bar/barrier, bar.red) and mbarrier objects in shared memory.

The engine emits these itself because they stop threads until others arrive.
A CTA barrier ends its block: the emitter records which barrier and how many
threads each thread waits for, and the engine releases the CTA's threads when
they are all there; `reduce_barrier` then gives bar.red its result. An
mbarrier keeps its state in a 64-bit word of shared memory (the runtime at
the end of this module).
"""

from __future__ import annotations

import numpy as np

from ...errors import UnsupportedInstruction
from .. import access
from .table import BARRIER, MEMORY, emitted

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


# ------------------------------------------------------------ mbarrier

MBARRIER_OPERATIONS = ("init", "inval", "arrive", "arrive_drop", "test_wait", "try_wait",
                       "expect_tx", "complete_tx")


def check_mbarrier(ins):
    if not ins.mods or ins.mods[0] not in MBARRIER_OPERATIONS:
        return f"mbarrier.{ins.mods[0] if ins.mods else ''} is not supported"
    if "shared::cluster" in ins.mods:
        return "mbarriers of other CTAs in a cluster are not supported"
    return None


@emitted("mbarrier", family="barriers", kind=MEMORY, pipe="sync", check=check_mbarrier)
def emit_mbarrier(c, ins):
    """mbarrier.init/arrive/arrive_drop/test_wait/try_wait/inval/expect_tx (runtime below)."""
    operation = ins.mods[0]
    if operation in ("expect_tx", "complete_tx"):
        return False                                   # copies complete at once: nothing pending
    operands = list(ins.dsts) + list(ins.srcs)
    site = c.site(ins)
    sel_idx, sel = c.selected()
    pick = (lambda e: f"{e}[{sel}]") if sel else (lambda e: e)
    space = access.space_of(ins)

    def addr_of(op):
        expr, _ = c.address(op, space if space != "generic" else "shared")
        return pick(expr)

    def value_of(op, type_name):
        return pick("fit(" + c.typed(op, type_name) + ", n)")

    if operation == "init":
        c.emit(f"barriers.init(ctx, {site}, {sel_idx}, {addr_of(operands[0])}, "
               f"{value_of(operands[1], 'u32')})")
    elif operation == "inval":
        c.emit(f"barriers.invalidate(ctx, {site}, {sel_idx}, {addr_of(operands[0])})")
    elif operation in ("arrive", "arrive_drop"):
        count = value_of(operands[2], "u32") if len(operands) > 2 and "expect_tx" not in ins.mods else "1"
        token = c.fresh("token")
        c.emit(f"{token} = barriers.arrive(ctx, {site}, {sel_idx}, {addr_of(operands[1])}, {count}, "
               f"{operation == 'arrive_drop'})")
        c.write_selected(operands[0], "b64", token, sel)
    elif operation in ("test_wait", "try_wait"):
        done = c.fresh("done")
        c.emit(f"{done} = barriers.test_wait(ctx, {site}, {sel_idx}, {addr_of(operands[1])}, "
               f"{value_of(operands[2], 'b64')}, {'parity' in ins.mods})")
        c.write_selected(operands[0], "pred", done, sel)
    else:
        raise UnsupportedInstruction(ins, f"mbarrier.{operation}")
    return False


# mbarrier runtime (sm_80+): libcu++'s cuda::barrier and cuda::memcpy_async
# are built on these objects. The 64-bit word holds pending arrivals in bits
# 0-30, the expected count in bits 32-62 and the phase in bit 63. Arrive
# returns a state token (the phase before the arrival, in bit 63); a wait asks
# whether that phase has completed. Asynchronous copies complete at once here,
# so transaction counts (expect_tx, complete_tx) never hold a phase back and
# cp.async.mbarrier.arrive is an ordinary arrival (.noinc) or none at all.

PENDING = np.uint64(0x7FFF_FFFF)
PHASE_BIT = np.uint64(1) << np.uint64(63)


def _words(ctx, site, idx, addrs):
    buf, off = access.resolve(ctx, site, idx, "shared", np.asarray(addrs, dtype=np.uint64), 8, True)
    return buf.view(np.uint64), off // 8


def _expected(word):
    return (word >> np.uint64(32)) & PENDING


def init(ctx, site, idx, addrs, count):
    view, slot = _words(ctx, site, idx, addrs)
    count = np.asarray(count, dtype=np.uint64) & PENDING
    view[slot] = (count << np.uint64(32)) | count


def arrive(ctx, site, idx, addrs, count, drop: bool = False):
    """Each thread arrives `count` times; the arrival that empties the count completes the phase."""
    view, slot = _words(ctx, site, idx, addrs)
    count = np.broadcast_to(np.asarray(count, dtype=np.uint64), slot.shape)
    tokens = np.empty(len(slot), dtype=np.uint64)
    for s in np.unique(slot):                       # one update per barrier object in the group
        at = slot == s
        word = view[s]
        tokens[at] = (word & PHASE_BIT) | (word & PENDING)
        arrivals = int(count[at].sum())
        expected = int(_expected(word))
        if drop:
            expected = max(0, expected - arrivals)
        pending = int(word & PENDING) - arrivals
        phase = int(word >> np.uint64(63))
        while pending <= 0 and expected > 0:       # phases complete; extra arrivals carry over
            phase ^= 1
            pending += expected
        pending = max(pending, 0)
        view[s] = np.uint64((phase << 63) | (expected << 32) | pending)
    return tokens


def test_wait(ctx, site, idx, addrs, token, parity: bool):
    """True where the phase named by the token (or the parity) has completed."""
    view, slot = _words(ctx, site, idx, addrs)
    phase = (view[slot] >> np.uint64(63)).astype(np.uint64)
    token = np.asarray(token, dtype=np.uint64)
    wanted = (token & np.uint64(1)) if parity else (token >> np.uint64(63))
    return phase != wanted


def invalidate(ctx, site, idx, addrs):
    view, slot = _words(ctx, site, idx, addrs)
    view[slot] = 0
