"""mbarrier objects in shared memory: arrivals, transaction counts, phases (sm_80, sm_90).

libcu++'s cuda::barrier, cooperative groups' memcpy_async and every TMA
pipeline (Triton's, CUTLASS's) are built on these. An mbarrier is a 64-bit
word of shared memory in warpsim's encoding (semantics.mbarrier, shared with the
SASS executor's SYNCS.*).

- `init [bar], count`; `inval [bar]`;
- `arrive{.expect_tx}{.release.cta|.cluster}{.shared{::cta|::cluster}}.b64 state, [bar]{, count|tx}`:
  arrive (count times), after raising the transaction count by tx with .expect_tx;
  the state token is the phase before the arrival (bit 63); `_` discards it, as
  an arrive on another CTA's barrier (shared::cluster) must;
- `arrive_drop`: arrive and expect one arrival fewer from the next phase on;
- `expect_tx [bar], tx` and `complete_tx [bar], tx` change the transaction count alone;
- `test_wait` and `try_wait{.parity}`: whether the phase the token (or parity) names is over.
Asynchronous copies (cp.async.bulk*, machine.isa.bulk_copy) complete when issued,
so their complete_tx comes right after the expect_tx that announced them.
"""

from __future__ import annotations

import numpy as np

from ...errors import UnsupportedInstruction
from ...semantics import mbarrier as words
from .. import access
from .table import MEMORY, emitted

OPERATIONS = ("init", "inval", "arrive", "arrive_drop", "test_wait", "try_wait", "expect_tx", "complete_tx")


def check_mbarrier(ins):
    if not ins.mods or ins.mods[0] not in OPERATIONS:
        return f"mbarrier.{ins.mods[0] if ins.mods else ''} is not supported"
    if "noComplete" in ins.mods:
        return "mbarrier.arrive.noComplete is not supported"
    return None


@emitted("mbarrier", family="mbarrier", kind=MEMORY, pipe="sync", check=check_mbarrier)
def emit_mbarrier(c, ins):
    """One call into the runtime below per operation, for the guard-selected threads."""
    operation = ins.mods[0]
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
        c.emit(f"mbarrier.init(ctx, {site}, {sel_idx}, {addr_of(operands[0])}, {value_of(operands[1], 'u32')})")
    elif operation == "inval":
        c.emit(f"mbarrier.invalidate(ctx, {site}, {sel_idx}, {addr_of(operands[0])})")
    elif operation in ("expect_tx", "complete_tx"):
        sign = 1 if operation == "expect_tx" else -1
        c.emit(f"mbarrier.transact(ctx, {site}, {sel_idx}, {addr_of(operands[0])}, "
               f"{sign} * {value_of(operands[1], 'u32')}.astype(np.int64))")
    elif operation in ("arrive", "arrive_drop"):
        count, tx = "1", "0"
        if len(operands) > 2:
            if "expect_tx" in ins.mods:
                tx = value_of(operands[2], "u32")
            else:
                count = value_of(operands[2], "u32")
        token = c.fresh("token")
        c.emit(f"{token} = mbarrier.arrive(ctx, {site}, {sel_idx}, {addr_of(operands[1])}, {count}, "
               f"{operation == 'arrive_drop'}, {tx})")
        c.write_selected(operands[0], "b64", token, sel)
    elif operation in ("test_wait", "try_wait"):
        done = c.fresh("done")
        parity = "parity" in ins.mods                 # a 32-bit phase parity, else a 64-bit state token
        c.emit(f"{done} = mbarrier.test_wait(ctx, {site}, {sel_idx}, {addr_of(operands[1])}, "
               f"{value_of(operands[2], 'b32' if parity else 'b64')}, {parity})")
        c.write_selected(operands[0], "pred", done, sel)
    else:
        raise UnsupportedInstruction(ins, f"mbarrier.{operation}")
    return False


# ------------------------------------------------------------ runtime (semantics.mbarrier's words)

def _words(ctx, site, idx, addrs):
    buf, off = access.resolve(ctx, site, idx, "shared", np.asarray(addrs, dtype=np.uint64), 8, True)
    return buf.view(np.uint64), off // 8


def init(ctx, site, idx, addrs, count):
    words.init(*_words(ctx, site, idx, addrs), count)


def arrive(ctx, site, idx, addrs, count, drop: bool = False, tx=0):
    """Each thread raises the transaction count by tx, then arrives `count` times; returns the tokens."""
    return words.arrive(*_words(ctx, site, idx, addrs), count, drop, tx)


def transact(ctx, site, idx, addrs, delta):
    """expect_tx (+bytes) or complete_tx (-bytes): the phase completes when the count reaches 0."""
    words.transact(*_words(ctx, site, idx, addrs), delta)


def test_wait(ctx, site, idx, addrs, token, parity: bool):
    """True where the phase named by the token (or the parity) has completed."""
    return words.phase_done(*_words(ctx, site, idx, addrs), token, parity)


def invalidate(ctx, site, idx, addrs):
    words.invalidate(*_words(ctx, site, idx, addrs))
