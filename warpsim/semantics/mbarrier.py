"""mbarrier words: arrivals, transaction counts and phases, on 64-bit words (PTX machine and SASS executor).

An mbarrier is a 64-bit word of shared memory whose encoding the GPU keeps
to itself; warpsim's is: pending arrivals in bits 0-19, the expected arrival
count in bits 20-39, the transaction count (bytes still to arrive, 22-bit
two's complement) in bits 40-61 and the phase in bit 63. The current phase
completes when no arrival is pending and the transaction count is 0; then the
phase flips and the pending count starts again from the expected one.

Both executors keep their barriers in this encoding (shared memory is not
compared between their runs), so mbarrier.arrive and SYNCS.ARRIVE.TRANS64,
try_wait and SYNCS.PHASECHK complete the same phases. Functions take the
words as a uint64 array and the word index of each thread (`slot`).
"""

from __future__ import annotations

import numpy as np

FIELD = (1 << 20) - 1
TX_BITS = 22
TX_MASK = (1 << TX_BITS) - 1
PHASE_SHIFT = 63


def unpack(word: int) -> tuple[int, int, int, int]:
    """(pending, expected, transaction count, phase) of one mbarrier word."""
    tx = (word >> 40) & TX_MASK
    tx = tx - (1 << TX_BITS) if tx >> (TX_BITS - 1) else tx
    return word & FIELD, (word >> 20) & FIELD, tx, word >> PHASE_SHIFT


def pack(pending: int, expected: int, tx: int, phase: int) -> np.uint64:
    return np.uint64((phase << PHASE_SHIFT) | ((tx & TX_MASK) << 40) | ((expected & FIELD) << 20)
                     | (pending & FIELD))


def settle(pending: int, expected: int, tx: int, phase: int):
    """Complete phases while nothing is pending (extra arrivals carry into the next phase)."""
    while pending <= 0 and tx == 0 and expected > 0:
        phase ^= 1
        pending += expected
    return max(pending, 0), expected, tx, phase


def init(words: np.ndarray, slot: np.ndarray, count) -> None:
    """mbarrier.init: `count` arrivals expected, phase 0, no transaction pending."""
    count = np.asarray(count, dtype=np.uint64) & np.uint64(FIELD)
    words[slot] = (count << np.uint64(20)) | count


def arrive(words: np.ndarray, slot: np.ndarray, count, drop: bool = False, tx=0) -> np.ndarray:
    """Each thread raises the transaction count by tx, then arrives `count` times; returns the tokens
    (the phase before the arrival, in bit 63)."""
    count = np.broadcast_to(np.asarray(count, dtype=np.int64), slot.shape)
    tx = np.broadcast_to(np.asarray(tx, dtype=np.int64), slot.shape)
    tokens = np.empty(len(slot), dtype=np.uint64)
    for s in np.unique(slot):                       # one update per barrier object in the group
        at = slot == s
        pending, expected, pending_tx, phase = unpack(int(words[s]))
        tokens[at] = np.uint64(phase << PHASE_SHIFT)
        arrivals = int(count[at].sum())
        if drop:
            expected = max(0, expected - arrivals)
        words[s] = pack(*settle(pending - arrivals, expected, pending_tx + int(tx[at].sum()), phase))
    return tokens


def transact(words: np.ndarray, slot: np.ndarray, delta) -> None:
    """expect_tx (+bytes) or complete_tx (-bytes): the phase completes when the count reaches 0."""
    delta = np.broadcast_to(np.asarray(delta, dtype=np.int64), slot.shape)
    for s in np.unique(slot):
        pending, expected, tx, phase = unpack(int(words[s]))
        words[s] = pack(*settle(pending, expected, tx + int(delta[slot == s].sum()), phase))


def phase_done(words: np.ndarray, slot: np.ndarray, token, parity: bool) -> np.ndarray:
    """True where the phase named by the token (or the parity) has completed."""
    phase = words[slot] >> np.uint64(PHASE_SHIFT)
    token = np.asarray(token, dtype=np.uint64)
    wanted = (token & np.uint64(1)) if parity else (token >> np.uint64(PHASE_SHIFT))
    return phase != wanted


def invalidate(words: np.ndarray, slot: np.ndarray) -> None:
    words[slot] = 0
