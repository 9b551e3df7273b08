"""racecheck: shared-memory hazards between threads with no barrier between them.

For every 4-byte word of every CTA's shared memory the tool keeps the last
writer and the last two distinct readers since that write, each with the
instruction, the bytes of the word it touched, the CTA's barrier epoch and the
thread's warp's __syncwarp epoch at the time. The CTA epoch counts released
CTA barriers (__syncthreads, bar.sync); the warp epoch counts the warp's
bar.warp.sync (__syncwarp). Two accesses to the same bytes by different
threads, at least one a write, are ordered when a CTA barrier released between
them, or, for two threads of one warp, when that warp passed __syncwarp between
them. Otherwise they are a hazard:

    RAW  a read of bytes another thread wrote     (the read may see the old value)
    WAR  a write of bytes another thread read     (the read may see the new value)
    WAW  a write of bytes another thread wrote    (which value stays is undefined)

Hazards between lanes of one warp are warp-synchronous code: correct only if the
lanes run in lockstep, which Volta and later do not promise (needs __syncwarp()).
Hazards are folded into one error per pair of instructions and kind, with the
first occurrence's threads, block and address. Atomics never race and are not
tracked. Everything is vectorized over the lanes of an access; the state costs
51 bytes per 4-byte word of shared memory of the CTAs in a batch, allocated when
a batch first touches shared memory.

Limits: named barriers with a thread count (bar.sync 1, 64) and bar.arrive
order the whole CTA as a full barrier would; a word keeps two readers, so a
hazard with an older third reader can go unseen; sub-word accesses are tracked
per byte of the word only against the last recorded accesses of that word.
"""

from __future__ import annotations

import weakref

import numpy as np

from ..machine.cluster import peer_offsets
from ..machine.state import BARRIERS_PER_CTA
from ..semantics.addresses import SHARED_WINDOW, window_offsets
from .report import SanitizerError, coords
from .tool import LaunchTool

RAW, WAR, WAW = 0, 1, 2
KIND_NAMES = {RAW: "RAW", WAR: "WAR", WAW: "WAW"}
ACCESS_NAMES = {RAW: ("Write", "Read"), WAR: ("Read", "Write"), WAW: ("Write", "Write")}


class Records:
    """One access per word: thread slot (-1: none), epochs, instruction, byte mask."""

    def __init__(self, words: int):
        self.slot = np.full(words, -1, dtype=np.int32)
        self.barrier = np.zeros(words, dtype=np.int32)
        self.syncwarp = np.zeros(words, dtype=np.int32)
        self.site = np.zeros(words, dtype=np.int32)
        self.mask = np.zeros(words, dtype=np.uint8)

    def unordered(self, words, access) -> np.ndarray:
        """Per access: the recorded access touches the same bytes, from another thread,
        with no barrier (or, in one warp, no __syncwarp) between the two."""
        slot = self.slot[words]
        same_warp = (slot >> 5) == (access.slot >> 5)
        ordered = (self.barrier[words] < access.barrier) | \
            (same_warp & (self.syncwarp[words] < access.syncwarp))
        return (slot >= 0) & (slot != access.slot) & ((self.mask[words] & access.mask) != 0) & ~ordered

    def set(self, words, access, sel=slice(None)):
        self.slot[words] = access.slot[sel]
        self.barrier[words] = access.barrier[sel]
        self.syncwarp[words] = access.syncwarp[sel]
        self.site[words] = access.site
        self.mask[words] = access.mask[sel]

    def copy_from(self, other: "Records", words):
        for name in ("slot", "barrier", "syncwarp", "site", "mask"):
            getattr(self, name)[words] = getattr(other, name)[words]


class Accesses:
    """The words one shared access touches, one row per (lane, word)."""

    def __init__(self, ctx, tool, site, idx, addrs, size, count):
        off = window_offsets(addrs, SHARED_WINDOW)
        nbytes = size * count
        cta, off = peer_offsets(ctx, idx, off)     # shared::cluster: a word of a neighbour CTA (machine.cluster)
        base = cta * tool.words_per_cta
        if nbytes >= 4:                     # aligned to its size: whole words
            per = nbytes // 4
            self.words = ((base + (off >> 2))[:, None] + np.arange(per)).ravel()
            lanes = np.repeat(idx, per) if per > 1 else idx
            self.mask = np.full(len(self.words), 0xF, dtype=np.uint8)
        else:                               # inside one word
            self.words = base + (off >> 2)
            lanes = idx
            self.mask = (((1 << nbytes) - 1) << (off & 3)).astype(np.uint8)
        self.slot = lanes.astype(np.int32)
        self.barrier = tool.cta_epoch[ctx.cta[lanes]]
        self.syncwarp = tool.warp_epoch[lanes >> 5]
        self.site = tool.site_id(site)


class Racecheck(LaunchTool):
    name = "racecheck"

    def __init__(self, checker, launch, kernel):
        super().__init__(checker, launch, kernel)
        self.sites: list = []
        self.site_ids: dict = {}
        self.found: dict = {}           # (kind, first site, second site, same warp) -> [count, error]

    # ------------------------------------------------------------ epochs

    def batch_started(self, ctx):
        self.words_per_cta = ctx.shared_size // 4
        self.writer = None              # allocated at the batch's first shared access
        self.cta_epoch = np.zeros(ctx.n_ctas, dtype=np.int32)
        self.warp_epoch = np.zeros(ctx.n_warps, dtype=np.int32)
        self.synced_in = np.full(ctx.n_warps, -1, dtype=np.int64)
        self.execution = 0
        self.after_syncwarp = syncwarp_instructions(ctx.program)

    def barrier_released(self, ctx, members, keys):
        self.cta_epoch[np.unique(keys // BARRIERS_PER_CTA)] += 1

    def cluster_barrier_released(self, ctx, ctas):
        """The cluster's CTAs share one epoch past all of theirs, so an access of one CTA's
        shared memory by another is ordered by the barrier between them."""
        self.cta_epoch[ctas] = self.cta_epoch[ctas].max() + 1

    def block_executed(self, ctx, block, idx, warps):
        if id(block.instructions[0]) in self.after_syncwarp:
            self.syncwarp(warps)
        self.execution += 1

    def syncwarp(self, warps):
        """__syncwarp ran for these warps (once per block execution)."""
        fresh = warps[self.synced_in[warps] != self.execution]
        self.warp_epoch[fresh] += 1
        self.synced_in[fresh] = self.execution

    # ------------------------------------------------------------ accesses

    def memory_access(self, ctx, site, space, kind, idx, addrs, size, count):
        if space != "shared" or kind == "atomic" or not len(idx):
            return
        if self.writer is None:
            words = max(1, ctx.n_ctas * self.words_per_cta)
            self.writer, self.reader, self.other_reader = Records(words), Records(words), Records(words)
        if id(site.ins) in self.after_syncwarp:   # the block's __syncwarp ran before this access
            self.syncwarp(np.unique(idx >> 5))
        access = Accesses(ctx, self, site, idx, addrs, size, count)
        if kind == "load":
            self.check(ctx, RAW, self.writer, access)
            self.record_read(access)
        else:
            self.check(ctx, WAW, self.writer, access)
            self.check(ctx, WAR, self.reader, access)
            self.check(ctx, WAR, self.other_reader, access)
            self.writer.set(access.words, access)
            self.reader.slot[access.words] = -1
            self.other_reader.slot[access.words] = -1

    def record_read(self, access):
        """Keep the last reader and a distinct one before it, for each word read."""
        words = access.words
        order = np.argsort(words, kind="stable")
        sorted_words = words[order]
        starts = np.flatnonzero(np.r_[True, sorted_words[1:] != sorted_words[:-1]])
        ends = np.r_[starts[1:], len(order)] - 1
        first, last = order[starts], order[ends]
        unique = sorted_words[starts]
        first_slot, last_slot = access.slot[first], access.slot[last]
        two_here = first_slot != last_slot
        keep_old = ~two_here & (self.reader.slot[unique] != last_slot)
        self.other_reader.copy_from(self.reader, unique[keep_old])
        self.other_reader.set(unique[two_here], access, first[two_here])
        self.reader.set(unique, access, last)

    def check(self, ctx, kind, records, access):
        hazard = records.unordered(access.words, access)
        if not hazard.any():
            return
        rows = np.flatnonzero(hazard)
        words = access.words[rows]
        earlier_slot = records.slot[words]
        earlier_site = records.site[words].astype(np.int64)
        same_warp = (earlier_slot >> 5) == (access.slot[rows] >> 5)
        keys = earlier_site * 2 + same_warp
        uniq, first, counts = np.unique(keys, return_index=True, return_counts=True)
        for key, row, n in zip(uniq.tolist(), first.tolist(), counts.tolist()):
            found_key = (kind, key >> 1, access.site, bool(key & 1))
            entry = self.found.get(found_key)
            if entry is None:
                entry = self.found[found_key] = [0, self.error(
                    ctx, kind, int(key >> 1), int(earlier_slot[row]), access.site,
                    int(access.slot[rows[row]]), int(words[row]), bool(key & 1))]
            entry[0] += n

    # ------------------------------------------------------------ reports

    def site_id(self, site) -> int:
        key = id(site)
        found = self.site_ids.get(key)
        if found is None:
            found = self.site_ids[key] = len(self.sites)
            self.sites.append(site)
        return found

    def error(self, ctx, kind, earlier_site, earlier_slot, later_site, later_slot, word,
              same_warp) -> SanitizerError:
        first_what, second_what = ACCESS_NAMES[kind]
        first = self.access(ctx, self.sites[earlier_site], earlier_slot, first_what)
        second = self.access(ctx, self.sites[later_site], later_slot, second_what)
        offset = (word % self.words_per_cta) * 4
        warp_a, warp_b = int(ctx.warp_in_cta[earlier_slot]), int(ctx.warp_in_cta[later_slot])
        if same_warp:
            detail = (f"Both threads are in warp {warp_a} and no __syncwarp() or __syncthreads() "
                      f"lies between the accesses: warp-synchronous code, correct only in lockstep; "
                      f"needs __syncwarp() on Volta and later")
        else:
            detail = (f"The threads are in warps {warp_a} and {warp_b} and no __syncthreads() lies "
                      f"between the accesses")
        label = f"Potential {KIND_NAMES[kind]} hazard" + (" (warp-synchronous)" if same_warp else "")
        return SanitizerError(
            self.name, f"{KIND_NAMES[kind]} hazard", f"Error: {label} detected at __shared__ "
            f"0x{offset:x} in block {coords(first.block)}",
            self.kernel, [first, second], details=[detail], unit="hazards", address=offset,
            space="shared", warp_synchronous=same_warp)



_SYNCWARP: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def syncwarp_instructions(program) -> set:
    """ids of the instructions of blocks that open with bar.warp.sync (__syncwarp)."""
    found = _SYNCWARP.get(program)
    if found is None:
        found = _SYNCWARP[program] = {
            id(ins) for b in program.blocks
            if b.instructions and b.instructions[0].opcode in ("bar", "barrier")
            and "warp" in b.instructions[0].mods for ins in b.instructions}
    return found
