"""mbarrier: the split arrive/wait barrier objects in shared memory (sm_80+).

libcu++'s cuda::barrier and cuda::memcpy_async are built on them. An mbarrier
is a 64-bit word; warpsim keeps its state in that word: pending arrivals in
bits 0-30, the expected count in bits 32-62 and the phase in bit 63. Arrive
returns a state token (the phase before the arrival, in bit 63); a wait asks
whether that phase has completed. Asynchronous copies complete at once here,
so transaction counts (expect_tx, complete_tx) never hold a phase back and
cp.async.mbarrier.arrive is an ordinary arrival (.noinc) or none at all.
"""

from __future__ import annotations

import numpy as np

from . import access

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
