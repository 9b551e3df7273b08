"""The timing model: what ran (an Execution) on a GPU preset -> a Timing.

1. Memory: per global load site, the share of its sectors served by L1 (a CTA
   re-reading sectors it already fetched), by L2, and by HBM (the launch's
   distinct 64-byte blocks: Nsight Compute runs with cold caches), giving the
   site's expected latency; stores reach HBM only beyond what L2 holds.
2. A warp alone (walk.py): per SASS instruction, the cycles before it issues
   and why, from the control codes and scoreboards.
3. Per sampled CTA and warp: demands on the sub-partition's issue slot and
   pipes, the SM's MIO and L1, its share of L2 and HBM bandwidth, and a delay.
4. Per SM: its CTAs in waves of the occupancy limit; each wave's resident
   warps as a closed queueing network (queueing.py); the last wave with fewer
   CTAs runs faster. A grid of at most two waves is scheduled CTA by CTA
   (round robin over the SMs, each CTA costed as its nearest sampled one);
   a longer one as full waves of the mean CTA plus its tail.
5. Chip-wide bounds: atomics serialised at their hottest L2 line, and CTA
   dispatch (one CTA per SM every cta_launch_ns).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .async_groups import add_group_waits, copy_group_latency, cp_async_l2_share
from .facts import function_facts
from .presets import gpu_preset
from .queueing import Station, mva
from .lines import line_stalls
from .register_banks import BANKS
from .reuse import HBM_BLOCK_BYTES, L2_RANDOM_SHARE, kept_share, random_blocks, random_reread_misses
from .execution import PASS_KINDS, as_grid
from .pipes import MIO_WAVEFRONTS, QUEUE_PIPES
from .result import Timing
from ..sass.executor.async_copy import TMA_UNIT
from ..sass.stall_reasons import STALL_REASONS, TAKEN_BRANCHES, WALK
from .walk import DELAYS_OF_WALK, REASONS, walk_function

# Global figures of the model (per GPU architecture, not per kernel).
KERNEL_OVERHEAD_US = 2.0          # fixed start and drain of a launch inside gpu__time_duration [assumed]
# what holds a sub-partition: its issue slot, each pipe, and the tensor core with the FP32 issues that
# cannot run beside it (KernelCosts.hold_tensor); each works beside the others
BANK_UNITS = tuple(f"bank{b}" for b in range(BANKS))    # the register file's banks (register_banks.py)
SMSP_UNITS = ("issue",) + BANK_UNITS + QUEUE_PIPES + ("tensor_fp32",)
IDLE_WARP_SHARE = 0.05     # a warp with at most this share of its SM's busiest warp's work does not queue
TAIL_SPREAD = (0.85, 1.5)  # a random tail: standard deviation over mean of the longest sampled lifetimes' excesses
# the share of the L2 whose worth of a launch's footprint it keeps for re-reads the L1 lost: the
# nineteenth batch's sweeps past L1, 43 MB of them at 293 cycles a load (L1 kept 42%, the model
# 19-25%, its misses then cost 348 on average) and 67 MB at 689 (HBM latency, nothing kept)
L2_REREAD_SHARE = 0.6
# the least busy share of a launch's cycles its tensor pipes are held that runs it at the preset's
# tensor_clock_mhz: the fourteenth batch's least busy configuration (29%) ran there [assumed below it]
TENSOR_CLOCK_BUSY = 0.2


# HBM's rate depends on the mix of reads and writes: reads alone run at the preset's hbm_read_over_copy times
# its copy rate; the twenty-first batch's streams (h200/microbench21.json, their best rates) wrote at 4076 GB/s
# where they copied at 3988 (bytes read and written).
HBM_WRITES_OVER_COPY = 4076.0 / 3988.0


def hbm_gbps(preset, write_fraction: float) -> float:
    """HBM's bytes a second where `write_fraction` of them are written: a byte takes the read or the write
    rate's time by its share, and a mix of the two turns the bus around, 4 f (1 - f) of the time an even
    mix takes beyond those, so an even mix runs at the preset's measured copy."""
    copy = preset.hbm_copy_gbps
    read, write = 1.0 / (preset.hbm_read_over_copy * copy), 1.0 / (HBM_WRITES_OVER_COPY * copy)
    f = min(1.0, max(0.0, write_fraction))
    return 1.0 / ((1 - f) * read + f * write + 4 * f * (1 - f) * (1.0 / copy - (read + write) / 2))


def _sm_share(preset, gbps: float, active_sms: int) -> float:
    """Bytes per SM cycle an SM gets of a chip-wide bandwidth when active_sms share it."""
    return gbps * 1e9 / max(1, active_sms) / preset.clock_hz


# cp.async (LDGSTS) draws L2-resident data 1.11-1.17x as fast as ld.global.cg of the same lines
# (validation/timing/h200/microbench5.json, rows 256 B apart, 16 to 128 bytes of each): the copy
# goes to shared memory without the register write-back
ASYNC_COPY_L2_RATE = 1.125
ASYNC_COPIES = ("LDGSTS", "UBLKCP", "UTMALDG")   # global-to-shared copies a warp starts and does not wait on
COPY_LINE_BYTES = 64.0     # the least L2 throughput an async copy's access to one line costs
HBM_PROBE_CYCLES = 100.0   # the step in HBM's latency by which the walk's sensitivity to it is found


def l2_site_bytes(m, line_bytes: float = 128.0, misses: float | None = None,
                  scattered_line_bytes: float = 128.0, store_byte_cost: float = 1.0) -> float:
    """Bytes of L2 throughput a global memory instruction's requests use. A plain load's line costs
    `scattered_line_bytes` (the preset's l2_scattered_lines_per_clk) or its sectors, whichever is
    more: the L2 serves 77-80 requests of one line a clock whether the lines lie at random (thirty-fifth
    batch), at any spacing from random bases (thirty-sixth), or side by side from neighbouring warps
    (thirty-seventh's walks), and loads count only what missed L1 (`misses` sectors, the CTAs' first
    touches unless given). A store's line costs a whole 128-byte line (scattered 4-byte stores run at
    the line rate, L2 bandwidth / 128 B) unless its request's lines lie at random
    (execution.scattered_lines), and so does an atomic's but for lanes alone on their line. An async
    copy's line costs COPY_LINE_BYTES (`line_bytes`): the tutorial matmul's half-line tile rows, copied
    by LDGSTS, ran on the H200 at 8.6 TB/s of sectors, where a whole line per access would need 17.
    A store's bytes take the L2 `store_byte_cost` times a read's (the fifty-fourth batch: writes the
    L2 holds ran at 3.8 TB/s on the H100, where reads run at 7.15), its sectors and lines at least their
    rate: lanes that write part of a sector each (a CTA scan's four words a thread) cost their sectors."""
    if m.kind == "load" and m.space == "global":
        lines = m.lines * min(line_bytes, scattered_line_bytes) if line_bytes >= 128.0 else m.lines * line_bytes
        misses = m.cta_unique_sectors if misses is None else misses
        hit = misses / m.sectors if m.sectors else 1.0
        return max(misses * 32.0, lines * hit)
    # an atomic lane alone on its line of the request is one sector's request: the rate of lines at random
    # (forty-seventh batch: a line a lane, 43 a clock, where whole lines would cost 1.4x the time)
    scattered = min(m.lines, m.atomic_lanes_lone) if m.kind == "atomic" else m.scattered_lines
    lines = (m.lines - scattered) * line_bytes + scattered * min(line_bytes, scattered_line_bytes)
    written = m.data_bytes * store_byte_cost if m.kind == "store" else 0.0
    return max(m.sectors * 32.0, written, lines)


def written_alone(kept: float) -> float:
    """The share of the sectors atomics at random dirty that the L2 writes back alone in their 64-byte
    HBM block, where it keeps `kept` of their region (a share; 1 or more: nothing is written back). A
    block fetched stays while the L2 takes in `kept` of the region's blocks anew, during which its
    other sector is named kept / (1 - kept) / 2 times on average (a request names one sector of the
    two); alone when never: exp(-that). Forty-ninth batch, an H100: 256 MB hashed REDs wrote back 131
    MB (alone: 0.95), 32 MB ones 81 MB in whole lines' time (0.17)."""
    if kept >= 1.0:
        return 0.0
    return float(np.exp(-0.5 * kept / (1.0 - kept)))


def merged_share(floor: float, readers: float) -> float:
    """Share of the L1 misses of a sector `readers` CTAs of a wave read that the L2 serves: the L2's
    request coalescer hands one fetch to every SM that asked for the sector while it was in flight
    (thirteenth batch: 8 to 1,056 CTAs streaming a region they share pass 0.41-0.69 of their requests
    on to the L2). `floor` is what is left with many readers; one reader passes everything on."""
    return floor + (1.0 - floor) / max(1.0, readers)


def capacity_misses(m, l1_lines: float) -> float:
    """Sectors of a load's re-reads the L1 no longer holds: those whose CTA read more distinct lines
    since than its share of the L1 (l1_lines) keeps (reuse.kept_share)."""
    if not m.rereads:
        return 0.0
    lines, n = np.array(m.rereads, dtype=float).T
    return float(n @ (1.0 - kept_share(lines / max(1.0, l1_lines))))


def _is_strong(ins) -> bool:
    return any(mod.startswith("STRONG") for mod in ins.mods)


def keeps_in_l1(ins) -> bool:
    """Whether a load's sectors stay in L1 for its CTA's next reads (a plain LDG; not LDG.STRONG,
    ld.global.cg or volatile, nor the async copies)."""
    return ins.opcode == "LDG" and not _is_strong(ins)


def l1_misses(ex, i: int, m, ctas_per_sm: float, overflow: float = 0.0) -> float:
    """Sectors of load `i` that miss L1: its CTAs' first touches, less those of sectors other CTAs read
    too that an SM's L1 already holds. An SM fetches a sector every CTA reads once, for its first CTA
    reading it, and keeps it for the others (eleventh batch: a table each of 8,448 CTAs reads, up to
    160 KB beside 64 KB of data each CTA streams, reaches L2 0.00-0.03 times a CTA). A sector k of the
    S sampled CTAs read is read by k / S of the ctas_per_sm an SM runs. LDGSTS (cp.async.ca) keeps its
    first touches. The TMA unit's copies, cp.async.cg (LDGSTS.BYPASS) and strong loads (LDG.STRONG:
    ld.global.cg, volatile, relaxed) never look in L1: every sector they read is one the L2 serves
    (eighteenth batch: CTAs loading the same four TMA boxes over and over drew 8.1 TB/s from the L2;
    thirty-seventh: ld.global.cg walks whose CTAs read each line twice, 32 iterations apart, made an L2
    request of every line they read, 19.6M for 17.3M lines).
    A plain LDG's re-reads miss too where the lines its CTA read in between overflow its share of the
    L1: `overflow` sectors (capacity_misses)."""
    ins = ex.function.instructions[i]
    if ins.opcode in TMA_UNIT or (ins.opcode == "LDGSTS" and "BYPASS" in ins.mods) or _is_strong(ins):
        return float(m.sectors)
    if not keeps_in_l1(ins):
        return float(m.cta_unique_sectors)
    if not m.shared_first:
        return m.cta_unique_sectors + overflow
    sampled = max(1, len(ex.sampled_ctas))
    kept = sum(n * (1.0 - min(1.0, sampled / (k * ctas_per_sm))) for k, n in enumerate(m.shared_first) if n)
    return m.cta_unique_sectors - kept + overflow


def overlapping(ranges: dict) -> list:
    """(low, high, keys) of the regions that address ranges {key: (low, high)} make: those that
    overlap read one region (a loop's unrolled loads from one array)."""
    regions = []
    for key in sorted(ranges, key=lambda k: ranges[k][0]):
        low, high = ranges[key]
        if regions and low <= regions[-1][1]:
            regions[-1][1] = max(regions[-1][1], high)
            regions[-1][2].append(key)
        else:
            regions.append([low, high, [key]])
    return [tuple(r) for r in regions]


def random_regions(scattered: dict, fetched: dict) -> list:
    """(bytes spanned, bytes fetched, the sites) of each region that load sites read lines of at
    random in (overlapping)."""
    return [(high - low, sum(fetched[i] for i in sites), sites)
            for low, high, sites in overlapping({i: (m.low, m.high) for i, m in scattered.items()})]


class KernelCosts:
    """Per-sampled-CTA, per-warp demands of one launch (cycles), and the memory figures behind them."""

    def __init__(self, ex, preset, active_sms: int, barrier_cycles: float, waves: int = 1,
                 l2_since: float | None = None, l1_lines: float = np.inf, sm_l1_lines: float = np.inf,
                 resident_ctas: int = 1):
        fn = ex.function
        n = len(fn.instructions)
        facts = self.facts = function_facts(fn)
        self.pipes, self.branches, self.guarded = facts.pipes, facts.branches, facts.guarded
        self.is_barrier, self.is_wgmma_wait = facts.is_barrier, facts.is_wgmma_wait
        total_exec = np.zeros(n)
        for c in ex.counts:
            total_exec += c.sum(axis=0)
        self.total_exec = total_exec
        scale = ex.scale
        # ---- memory traffic (whole launch)
        load_sectors = sum(m.sectors for m in ex.memory.values() if m.space == "global" and m.kind == "load")
        ctas_per_sm = ex.n_ctas / max(1, active_sms)
        loads = {i: m for i, m in ex.memory.items() if m.space == "global" and m.kind == "load"}
        self.overflow = {i: capacity_misses(m, l1_lines) if keeps_in_l1(fn.instructions[i]) else 0.0
                         for i, m in loads.items()}
        self.misses = {i: l1_misses(ex, i, m, ctas_per_sm, self.overflow[i]) for i, m in loads.items()}
        l1_miss = sum(self.misses.values())
        store_sectors = sum(m.sectors for m in ex.memory.values() if m.space == "global" and m.kind != "load")
        l2_read_bytes = l1_miss * 32 * scale
        # lines read at random (execution.scattered_lines), by loads or by atomics (which read a line
        # before they write it), come from HBM once a block, and again as often as the L2 lost them
        # (reuse.random_reread_misses); the other reads as below
        scattered = {i: m for i, m in ex.memory.items()
                     if m.space == "global" and m.kind != "store" and m.scattered_lines}
        fetched = {i: m.scattered_lines * scale * min(128.0, max(HBM_BLOCK_BYTES, 32.0 * m.sectors / m.lines))
                   for i, m in scattered.items()}
        footprint_rest = max(0, ex.footprint_read - sum(fetched.values()) / scale)
        l2_rest = l2_read_bytes - sum(self.misses.get(i, 0.0) * m.scattered_lines / m.lines
                                      for i, m in scattered.items()) * 32 * scale
        dram_read = min(footprint_rest * scale, max(2 * l2_rest, footprint_rest))
        regions = random_regions(scattered, fetched)
        # an atomic site's sectors written back alone in their 64-byte block (the rest share it with a
        # neighbour dirtied while the block sat in L2), by how much of its region the L2 keeps
        random_capacity = preset.l2_bytes * L2_RANDOM_SHARE
        self.written_alone = {i: written_alone(random_capacity / span)
                              for span, _, sites in regions for i in sites if ex.memory[i].kind == "atomic"}
        blocks = [random_blocks(span, asked) for span, asked, _ in regions]
        if ex.allocation_bytes:
            dram_read = min(dram_read, max(footprint_rest, ex.allocation_bytes - sum(blocks)))
        written = ex.footprint_written * scale
        if ex.allocation_bytes:         # (CTAs' atomics name the same words: the sample's scaled count overstates)
            written = min(written, ex.allocation_bytes)
        lost = [(asked - b) * random_reread_misses(span, asked, dram_read + written + sum(blocks) - b,
                                                   random_capacity)
                for (span, asked, _), b in zip(regions, blocks)]
        rereads = sum(lost)
        dram_read += sum(blocks)
        total_fp = dram_read + written
        # the L2 writes back what it cannot keep: at the end it holds a share of its bytes of written lines,
        # less where lines read from HBM take their room (a read byte takes l2_dirty_read_weight of a
        # written one's); the seventh batch's writes of 67 and 268 MB left 31 MB behind on the H200. Partly
        # written sectors are not counted: their line's whole HBM time is partial_line_hbm_bytes
        whole = max(0.0, written - sum(m.partial_sectors for m in ex.memory.values()) * 32 * scale)
        kept = preset.l2_dirty_share * preset.l2_bytes * whole / (whole + preset.l2_dirty_read_weight * dram_read) \
            if whole > 0 else 0.0
        dram_write = max(0.0, whole - kept)
        self.footprint = total_fp
        # the same launch ran before, and `l2_since` bytes of other launches' data since: its data is
        # still in L2 if the L2 holds all of that (a footprint beyond it, scanned again in the same
        # order, evicts each line before its next use: LRU keeps none of it)
        cold = 1.0 if l2_since is None or total_fp + l2_since > preset.l2_bytes else 0.0
        dram_read *= cold
        # the share of a random site's reads that HBM serves: its region's first touches and lost
        # re-reads over what its sites ask (their readers come at random times, not in step)
        random_from_hbm = {i: min(1.0, (b * cold + r) / asked) if asked > 0 else 0.0
                           for (_, asked, sites), b, r in zip(regions, blocks, lost) for i in sites}
        dram_read += rereads        # (lost warm too: the L2 holds too little of the region)
        # lines with partly written sectors: the L2 reads each such sector from HBM to merge the write
        self.partial_fill = preset.partial_line_hbm_bytes * cold
        merged = sum(m.partial_lines for m in ex.memory.values()) * scale * 32 * cold
        dram_read += merged
        self.dram_bytes = dram_read + dram_write
        # a merge's read is the first half of a write to its line: it turns the bus around as writes do
        self.dram_write_fraction = (dram_write + merged) / self.dram_bytes if self.dram_bytes > 0 else 0.5
        write_share = dram_write / (store_sectors * 32 * scale) if store_sectors else 0.0
        # how many CTAs of a wave read a sector: k / S of a wave's CTAs for one k of the S sampled CTAs
        # read; for the rest, the bytes each CTA reads from L2 at least once, summed over CTAs, over the
        # distinct bytes the launch reads (at most its allocations' bytes), spread over its waves. A CTA
        # reading its own sectors again (an L1 miss again, a copy past the L1) is no other reader: its
        # passes come apart in time, where the coalescer merges requests in flight together (the eighth
        # batch's cp.async rings, each CTA re-reading its own 64-128 KB 8-16 times, drew 31-38 bytes a
        # clock an SM at one to four CTAs an SM, the L2's copy rate, not twice that)
        distinct = ex.footprint_read * scale
        if ex.allocation_bytes:
            distinct = min(distinct, ex.allocation_bytes)
        wave_ctas = ex.n_ctas / max(1, waves)
        cta_read = sum(min(self.misses[i], m.cta_unique_sectors) for i, m in loads.items()) * 32 * scale
        readers = cta_read / distinct / max(1, waves) if distinct > 0 else 1.0
        sampled = max(1, len(ex.sampled_ctas))

        scattered_line = preset.l2_bandwidth_gbps * 1e9 / preset.clock_hz / preset.l2_scattered_lines_per_clk

        def l2_demand(i, m, line=128.0):
            """Bytes of L2 throughput site i's requests use, less its loads' reads the L2's request
            coalescer merges (merged_share)."""
            bytes_ = l2_site_bytes(m, line, self.misses.get(i), scattered_line, preset.l2_store_byte_cost)
            if m.kind != "load" or not m.cta_unique_sectors:
                return bytes_
            # lines picked at random are rarely asked for twice at once: nothing to merge (the
            # thirty-fifth batch's 32 MB gathers read each line 8 times and ran at the scattered rate)
            scattered = m.scattered_lines / m.lines if m.lines else 0.0
            copy = fn.instructions[i].opcode in ASYNC_COPIES
            floor = preset.l2_merged_floor_copy if copy else preset.l2_merged_floor_load
            # a plain load's sectors that sampled CTAs read in step (execution: at about the same pass
            # of the site) are asked for at once; where the sample's shared sectors were read at other
            # passes, the rest is not merged either (the thirty-sixth and thirty-seventh batches: lines
            # from random bases, each read by several CTAs over the launch, ran at the L2's rate for
            # lines at random). Async copies keep every shared sector (not measured apart).
            first = m.shared_first if copy else m.in_step_first
            shared = sum(first)
            share = sum(n * merged_share(floor, k / sampled * wave_ctas) for k, n in enumerate(first))
            in_step = 1.0 if copy else m.in_step_share
            rest = in_step * merged_share(floor, readers) + (1.0 - in_step)
            share += (m.cta_unique_sectors - shared) * rest
            return bytes_ * (scattered + (1.0 - scattered) * share / m.cta_unique_sectors)

        self.l2_bytes = sum(l2_demand(i, m) for i, m in ex.memory.items() if m.space == "global") * scale
        self.dram_read_fraction = min(1.0, dram_read / l2_read_bytes) if l2_read_bytes > 0 else 0.0
        # ---- per load site latency
        # A sector several CTAs read is fetched from HBM once, but the CTAs resident with its first
        # reader reach it at about the same time, so they wait on that fetch too (the L2 holds their
        # requests until it lands): an L2 hit needs a reader of a later wave. Readers spread over the
        # grid's waves, a cold L2 sends 1 / waves of the L1 misses to HBM's latency at least.
        # Tenth microbenchmark batch: 132-528 CTAs chasing one chain in step wait 625-634 cycles a
        # line (one CTA: 692 from HBM, 286 from L2); CTAs at other places of it 286-293 (L2 hits).
        waited = max(self.dram_read_fraction, cold / max(1, waves)) if dram_read > 0 else 0.0
        self.dram_wait_fraction = waited
        l2_lat = (preset.l2_hit_latency_near + preset.l2_hit_latency_far) / 2
        # re-reads the L1 lost were fetched before: the L2 has them, unless the launch's footprint
        # overflows it too, by the L1's curve (reuse.kept_share) over L2_REREAD_SHARE of the L2
        again = 1.0 - float(kept_share(self.footprint / (L2_REREAD_SHARE * preset.l2_bytes)))
        # A load that never looks in L1 (ld.global.cg, volatile, TMA) makes its CTA's re-reads of a
        # sector L1 misses too, but the L2 has that sector from the CTA's own first read, unless the
        # footprint overflows the L2 (`again`): only first touches wait on a cold L2 (thirty-eighth
        # batch: warps cycling ld.global.cg over 64 lines of their own 16 times waited 187-200 us
        # where the same loads from HBM took 394-427, on an H100).
        latency, from_hbm = {}, {}
        for i, m in ex.memory.items():
            if m.space in ("global", "local") and m.kind == "load" and m.sectors:
                over = self.overflow[i] / m.sectors if m.space == "global" else 0.0
                h1 = 1.0 - (self.misses[i] + m.in_step_sectors) / m.sectors if m.space == "global" else 0.5
                rereads = max(0.0, self.misses[i] - self.overflow[i] - m.cta_unique_sectors) / m.sectors \
                    if m.space == "global" else 0.0
                first = max(0.0, 1 - h1 - over - rereads)
                f = random_from_hbm.get(i, waited)
                from_hbm[i] = first * f + (over + rereads) * again
                latency[i] = (h1 * preset.l1_hit_latency + from_hbm[i] * preset.hbm_latency
                              + first * (1 - f) * l2_lat + (over + rereads) * (1 - again) * l2_lat)
        self.latency = latency
        # the region each load reads (sites whose address ranges overlap read one) and its share from HBM:
        # a consumer of loads from several regions waits for the slowest (walk.spread_wait)
        spans = {i: (m.span_low, m.span_high) for i, m in ex.memory.items()
                 if i in latency and m.space == "global" and m.span_high >= m.span_low}
        regions = {i: (k, from_hbm.get(i, 0.0)) for k, (_, _, sites) in enumerate(overlapping(spans)) for i in sites}
        self.regions = regions

        # cp.async's draw on L2 against the SM's share of it: measured by active SMs (eighth batch), or
        # the fifth batch's 1.125x ld.global.cg where the preset has no such table
        share = cp_async_l2_share(preset, active_sms)
        cp_async_rate = share / _sm_share(preset, preset.l2_bandwidth_gbps, active_sms) if share else ASYNC_COPY_L2_RATE
        l2_bw = _sm_share(preset, preset.l2_bandwidth_gbps, active_sms)
        # the cp.async and wgmma groups a loop waits for (async_groups.py): a copy group's share from HBM
        # is its copies', as a load's (first touches of a cold L2 wait on HBM, the CTAs in step with
        # the first reader too: the sixty-seventh batch's 32 CTAs streaming one head's tiles)
        copies = [i for i in from_hbm if fn.instructions[i].opcode == "LDGSTS"]
        copy_sectors = sum(ex.memory[i].sectors for i in copies)
        copy_dram = sum(from_hbm[i] * ex.memory[i].sectors for i in copies) / copy_sectors if copy_sectors \
            else self.dram_read_fraction
        # a group's bytes reach the SM at its share of the L2's copy rate, as the L2 draws them (once
        # for reads of CTAs in step: l2_demand): the sixty-eighth batch's 16 KB stages that 8-32 CTAs
        # read at once from HBM took 1,250-1,400 cycles from commit to landing, one line 690; the
        # sixty-sixth's 32 CTAs on one resident tile 412 cycles a stage, a CTA on its own tile 543
        copy_bytes = np.zeros(n)
        for i in copies:
            if total_exec[i]:
                copy_bytes[i] = l2_demand(i, ex.memory[i], COPY_LINE_BYTES) / total_exec[i]
        copy_rate = cp_async_rate * l2_bw / max(1, resident_ctas * ex.warps_per_cta)
        # the warps of the SM's CTAs whose HGMMAs take turns on each sub-partition's tensor core
        tensor_sharers = max(1.0, resident_ctas * ex.warps_per_cta / preset.sub_partitions_per_sm)

        def walk_with(latencies, hbm_step: float = 0.0):
            """The function's walk at these load latencies with its loops' group waits (the model's, or
            the HBM probe's, whose copy groups wait hbm_step cycles longer for their share from HBM), and
            its gaps before those waits."""
            walked = walk_function(fn, preset, latencies, barrier_cycles, total_exec, regions, ex.split_share,
                                   ex.slow_resume_share)
            before_groups = walked.gap()
            add_group_waits(fn, walked, preset, copy_group_latency(preset, copy_dram) + hbm_step * copy_dram,
                            total_exec, copy_bytes, copy_rate, tensor_sharers)
            return walked, before_groups
        walk, before_groups = walk_with(latency)
        self.walk = walk
        # how many HBM latencies each execution waits out: the walk's growth when they grow (group_time
        # adds each the wait HBM's load causes: the chip's writes, or its reads near HBM's bandwidth)
        self.hbm_waits = np.zeros(n)
        if self.dram_bytes > 0 and any(from_hbm.values()):
            probe = {i: lat + HBM_PROBE_CYCLES * from_hbm.get(i, 0.0) for i, lat in latency.items()}
            probed, _ = walk_with(probe, HBM_PROBE_CYCLES)
            self.hbm_waits = np.maximum(0.0, probed.gap() - walk.gap()) / HBM_PROBE_CYCLES
        self.drain_span = preset.wave_drain_span
        gaps = before_groups[total_exec > 0]
        self.longest_wait = float(gaps.max()) if len(gaps) else 0.0
        # ---- per-execution averages of memory work, per instruction
        per_exec = {k: np.zeros(n) for k in ("wavefronts", "tags", "staged", "l2", "dram", "l2_async", "dram_async",
                                             "hbm_write", "hbm_read", "fill", "fill_lines", "fill_loads")}
        all_sectors = sum(m.sectors for m in ex.memory.values() if m.space == "global") * scale
        dram_per_sector = self.dram_bytes / (all_sectors * 32) if all_sectors > 0 else 0.0
        for i, ins in enumerate(fn.instructions):
            per_exec["wavefronts"][i] = MIO_WAVEFRONTS.get(ins.opcode, 0.0)
        for i, m in ex.memory.items():
            e = total_exec[i]
            if e <= 0:
                continue
            if m.space == "shared":
                per_exec["wavefronts"][i] = m.wavefronts / e
            else:
                opcode = fn.instructions[i].opcode
                # a load's lines pass the L1's data stage (`l1_lines_per_clk`), the stage shared
                # accesses' wavefronts pass (fifty-first batch, an H100: a 16 x 16 tiled matmul's global
                # loads add 17% to the stage's wavefronts and 20% to the time of its loop without them):
                # they queue there beside those, and the LSU keeps what a request costs beyond them
                staged = (i in latency and m.space == "global" and opcode not in ASYNC_COPIES
                          and opcode not in TMA_UNIT)
                lines = m.lines / preset.l1_lines_per_clk
                if opcode not in TMA_UNIT:          # the TMA unit's copies are no LSU requests
                    per_exec["tags"][i] = (max(0.0, m.requests - lines) if staged else
                                           max(m.requests, lines, m.store_cycles)) / e
                if staged:
                    per_exec["staged"][i] = lines / e
                    per_exec["wavefronts"][i] += lines / e
                    # each line a load misses holds a line of the L1 until its sectors come (below)
                    missed = m.lines * min(1.0, self.misses[i] / m.sectors) if m.space == "global" else 0.0
                    hit = max(0.0, 1.0 - (self.misses[i] + m.in_step_sectors) / m.sectors) \
                        if m.space == "global" else 0.0
                    waits = (latency[i] - hit * preset.l1_hit_latency) / max(1e-9, 1.0 - hit)
                    per_exec["fill"][i] = missed * waits / e
                    per_exec["fill_lines"][i] = missed / e
                    per_exec["fill_loads"][i] = 1.0 if missed else 0.0
                if m.space == "local":              # a thread's local words stay in its SM's L1 [assumed]
                    continue
                copy = opcode in ASYNC_COPIES
                rate = cp_async_rate if opcode == "LDGSTS" else 1.0
                line = COPY_LINE_BYTES if copy else 128.0
                per_exec["l2_async" if copy else "l2"][i] = l2_demand(i, m, line) / rate / e
                # HBM serves reads and partly written lines slower the farther apart their chunks lie
                # (thirty-first batch)
                doublings = m.gap_doublings / m.chunk_gaps if m.chunk_gaps else 0.0
                spread = 1.0 + preset.hbm_read_spread_cost * doublings if m.kind != "store" else 1.0
                partial = m.partial_lines * self.partial_fill * _on_table(preset.partial_write_spread, doublings) * \
                    _on_table(preset.partial_line_sectors, m.partial_sectors / m.partial_lines) if m.partial_lines else 0.0
                if m.kind == "atomic":
                    alone = m.sectors * write_share * self.written_alone.get(i, 0.0)
                    partial += alone * preset.atomic_writeback_hbm_bytes * cold
                per_exec["dram_async" if copy else "dram"][i] = (m.sectors * 32 * dram_per_sector * spread +
                                                               partial) / e
                if m.kind != "load":
                    per_exec["hbm_write"][i] = m.sectors * 32 * write_share / e
                else:
                    per_exec["hbm_read"][i] = m.sectors * 32 * dram_per_sector / e
        # the function's tables on this GPU (facts.py): each unit's hold per instruction, the bank reads,
        # the stretches between CTA barriers (_between_barriers) and whether one is still ahead
        # (held_before_barriers)
        on_gpu = facts.on(preset)
        pipe_hold = on_gpu.pipe_hold
        self.per_exec, self.pipe_hold = per_exec, pipe_hold
        self.bank_reads, self.in_stretch, self.before_barrier = facts.bank_reads, facts.in_stretch, facts.before_barrier
        self.unit_holds, self.hold, self.hold_tensor = on_gpu.unit_holds, on_gpu.hold, on_gpu.hold_tensor
        dram_bw = _sm_share(preset, hbm_gbps(preset, self.dram_write_fraction), active_sms)
        self.gap = walk.gap()
        self.reason_cost = {r: walk.cost[r] for r in REASONS}
        # ---- per sampled CTA: per-warp demand vectors (warps x stations), each CTA's also as one matrix
        # (demand x warp, its rows in demand_names' order) that group_time stacks in one step
        self.ctas, self.demands, self.demand_names = [], [], ()
        self.cta_counts = []               # per sampled CTA: its live warps' issues (warps x instructions)
        off_chip = [i for i, m in ex.memory.items() if m.space in ("global", "local")]
        for cta, counts in zip(ex.sampled_ctas, ex.counts):
            live = counts.sum(axis=1) > 0
            c = counts[live]
            self.cta_counts.append(c)
            d = {"issue": c.sum(axis=1)}
            for unit, reads in zip(BANK_UNITS, self.bank_reads.T):
                d[unit] = c @ reads
            d["dispatch"] = np.maximum(0.0, np.maximum.reduce([d[u] for u in BANK_UNITS]) - d["issue"])
            for p in QUEUE_PIPES:
                d[p] = c @ pipe_hold[p]
            d["mio"] = c @ per_exec["wavefronts"]
            d["lsu"] = c @ per_exec["tags"]
            # The lines an SM waits for sit in its L1 until they come: no more at once than the L1 not
            # carved out for shared memory holds (forty-fourth and forty-fifth batches, on an H100:
            # random loads 11-24% slower under the 228 KB carve-out, which leaves L1 224 lines, where
            # 8-32 warps ask for 256-1,024 at once; no slower under 196 KB or less, 480 lines and
            # more): the SM's time is at least the line-cycles its warps' misses hold over those lines.
            d["l1_fill"] = c @ per_exec["fill"] / sm_l1_lines
            d["fill_lines"] = c @ per_exec["fill_lines"] / sm_l1_lines
            d["fill_loads"] = c @ per_exec["fill_loads"]
            d["staged"] = c @ per_exec["staged"]
            d["l2"] = c @ per_exec["l2"] / l2_bw
            d["dram"] = c @ per_exec["dram"] / dram_bw
            d["l2_async"] = c @ per_exec["l2_async"] / l2_bw
            d["dram_async"] = c @ per_exec["dram_async"] / dram_bw
            d["hbm_waits"] = c @ self.hbm_waits
            # trips a warp makes through the memory system: its most executed global or local access
            d["memory_passes"] = c[:, off_chip].max(axis=1) if off_chip else np.zeros(len(c))
            d["hbm_write"] = c @ per_exec["hbm_write"]
            d["hbm_read"] = c @ per_exec["hbm_read"]
            for r in DELAYS_OF_WALK:
                d["delay:" + r] = c @ walk.cost[r]
            # the issue slot and the pipes work at once: the sub-partition is held by the larger demand,
            # and a warp's fixed stalls already wait out its own pipe time (ptxas sized them for it)
            d["tensor_fp32"] = c @ self.hold_tensor if d["tensor"].any() else d["tensor"]
            d["smsp"] = np.maximum.reduce([d[u] for u in SMSP_UNITS])
            own_pipe = d["smsp"] - d["issue"]
            absorbed = np.minimum(own_pipe, d["delay:wait"])
            d["delay:wait"] = d["delay:wait"] - absorbed
            # a wgmma group's wait (async_groups.py, charged as barrier) counts its own HGMMAs' time on the
            # tensor core too
            wgmma_wait = c @ (walk.cost["barrier"] * self.is_wgmma_wait)
            d["wgmma_overlap"] = np.minimum(wgmma_wait, own_pipe - absorbed)
            d["delay:barrier"] = d["delay:barrier"] - d["wgmma_overlap"]
            d["bars"] = c @ self.is_barrier
            d["barrier_unit"] = d["bars"] * preset.barrier_arrival_cycles     # the SM's, for every CTA (group_time)
            branches_taken = self._taken(c)
            d["fetch"] = branches_taken * preset.branch_taken_issue_cycles
            d["smsp"] = d["smsp"] + d["fetch"]
            taken = branches_taken * (preset.branch_taken_cycles / 2)
            d["delay:branch_resolving"] = d["delay:branch_resolving"] + taken
            d["delay:no_instruction"] = taken
            self.demand_names = tuple(d)
            self.demands.append(np.stack(list(d.values())))
            self.ctas.append(dict(zip(self.demand_names, self.demands[-1])))
        self.between_barriers = [_between_barriers(self, c) for c in self.cta_counts]
        self.warps_per_cta = ex.warps_per_cta
        self.waves = waves              # CTA rounds per slot: more than one makes a CTA's end a barrier
        # what a read from HBM waits beyond hbm_latency, in cycles, by the chip's HBM writes and by its
        # reads, each in bytes a cycle of one SM (group_time): the two added (a copy's reads, at its
        # write rate, wait next to nothing by the reads' table, so its write rows stand as measured)
        to_tbps, to_cycles = active_sms * preset.clock_hz / 1e12, preset.clock_hz / 1e9
        under_writes, under_reads = preset.hbm_latency_under_writes, preset.hbm_latency_under_reads
        self.hbm_read_wait = lambda written, read: (float(np.interp(written * to_tbps, *under_writes)) +
                                                    float(np.interp(read * to_tbps, *under_reads))) * to_cycles
        # where slots are reused, each CTA's slot sits empty between its end and the next CTA's start
        self.turnaround = (preset.cta_turnaround_cycles + preset.cta_turnaround_cycles_per_warp * ex.warps_per_cta
                           if waves > 1 else 0.0)

    def held_before_barriers(self, cta_indices: list) -> float:
        """The share of the CTAs' sub-partition time (each instruction's hold: its issue, pipe or tensor
        core) spent where a CTA barrier still lies ahead (before_barrier); the rest runs from the last
        barrier a warp passes to its exit."""
        hold = np.maximum(self.hold, self.hold_tensor)
        held = np.concatenate([self.cta_counts[k] for k in cta_indices]).sum(axis=0) * hold
        total = float(held.sum())
        return float(held @ self.before_barrier) / total if total > 0 else 0.0

    def _taken(self, counts: np.ndarray) -> np.ndarray:
        """Per warp, how many branches it took: every execution of an unguarded BRA, and of a guarded one
        the executions its fall-through did not follow."""
        taken = np.zeros(len(counts))
        for i in self.branches:
            if i + 1 < counts.shape[1] and self.guarded[i]:
                taken += np.maximum(0.0, counts[:, i] - counts[:, i + 1])
            else:
                taken += counts[:, i]
        return taken


def _on_table(points: tuple, x: float) -> float:
    """A preset table's factor at x: ((x, factor), ...) interpolated, its end factors beyond its ends
    (partial_write_spread by the doublings of a site's chunk gaps, partial_line_sectors by a line's
    partly written sectors)."""
    at, factor = zip(*points)
    return float(np.interp(x, at, factor))


SERVERS_SMSP = ("issue",) + QUEUE_PIPES
ALIGNED_BARRIERS = 1               # barriers a warp passes where its SM's CTAs are taken as in step
TURNAROUND = "slot:turnaround"     # the delay station of a reused CTA slot (KernelCosts.turnaround)
SM_STATIONS = ("mio", "lsu", "l2", "dram")
# the units a warp reaches through its scheduler's choice, the oldest CTA's warps first (the rest serve requests
# in the order they come)
SCHEDULED_STATIONS = ("smsp", "mio")
PIPE_BOUND_MARGIN = 1.05    # a pipe this much busier than the issue slot sets a sub-partition's pace
# the share of warps queued behind a busy MUFU that Nsight Compute counts as mio_throttle, the rest
# not_selected (fifty-second batch, an H100: MUFU.EX2 chains at 2-16 CTAs an SM, 0.82-0.85; set 1's and
# set 4's MUFU-bound kernels on the H200 0.78-0.88), whatever the MUFU's excess over the issue slot
MUFU_MIO_SHARE = 0.84
ASYNC_UNITS = ("l2", "dram")       # the stations async copies use without their warp
MEMORY_STATIONS = ("l2", "dram")   # the units beyond the SM, which serve its warps' requests as they come
# how a wave's finishing spread over the memory queues narrows with a warp's trips n through them, as
# n ** -exponent (fifty-second batch, an H100: grid-stride loops at 64 warps an SM lose 9.6 / 5.6 / 3.6
# points of occupancy at 15.5 / 62 / 248 trips, where one element a thread loses about 25: a slope of
# 0.35 in log-log; independent trips would give 0.5)
MEMORY_SPREAD_EXPONENT = 0.35
# An SM of C CTAs whose warps wait while the L2 serializes their atomics holds 1 - s / sqrt(C) of its warps
# (fifty-second batch, an H100, one atomicAdd a thread: REDs queued on one address or one a warp, their
# warps draining at EXIT, 79.1 / 80.3% at 8 CTAs of 256 and 55.7% at 2 of 1,024, s 0.56-0.63; ATOMGs
# keeping their value and REDs naming 32 words of a line, 85.0-88.8% at 8 CTAs and 71.8% at 2, s
# 0.32-0.42). The keys are _atomic_wait's reasons.
ATOMIC_SLOT_SPREAD = {"drain": 0.6, "long_scoreboard": 0.37}
# a warp's delay stations: the walk's waits and the refetch after taken branches (no queueing there)
DELAYS = tuple(r.name for r in STALL_REASONS
               if r.name != "selected" and (WALK in r.produced_by or TAKEN_BRANCHES in r.produced_by))


def group_time(costs: KernelCosts, cta_indices: list) -> dict:
    """Time and station residences of the CTAs `cta_indices` (of the sample) resident together on one SM."""
    matrix = np.concatenate([costs.demands[k] for k in cta_indices], axis=1)     # demand x warp
    stacked = dict(zip(costs.demand_names, matrix))
    warps = matrix.shape[1]
    if warps == 0:
        return {"cycles": 0.0, "warps": 0, "residence": {}, "issued": 0.0, "fill": 0.0, "tail": 0.0}
    # the warps that compete: a warp with a twentieth of the busiest one's work or less (a warpgroup
    # left idle, a producer warp) takes no share of the queues (seventeenth batch: one warpgroup's
    # wgmma loop beside an idle one was 1.23x its H200 time while those idle warps queued)
    load = stacked["smsp"] + sum(stacked[name] for name in SM_STATIONS)
    competing = load > IDLE_WARP_SHARE * load.max()
    queued = int(competing.sum())
    # (compress keeps the rows contiguous: each row's sum is then the one its own array's would be)
    mean = dict(zip(costs.demand_names, (matrix.compress(competing, axis=1).sum(axis=1) / queued).tolist()))
    units = matrix[[costs.demand_names.index(u) for u in SMSP_UNITS]]
    mean["smsp"] = sub_partition_held(units, stacked["fetch"], competing) / queued
    m = min(4, queued)
    # up to four warps have a sub-partition each (a CTA's warps go round robin over the four): none
    # waits for another's issue or pipe, so the sub-partition is a delay for them, not a queue
    # (Seidmann's m-server queue would make four lone tensor-core warps wait for each other)
    stations = [Station("smsp", mean["smsp"], m if queued > 4 else 0)]
    stations += [Station(name, mean[name], 1) for name in SM_STATIONS]
    stations += [Station("delay:" + r, mean["delay:" + r], 0) for r in DELAYS]
    if costs.turnaround:
        stations.append(Station(TURNAROUND, costs.turnaround, 0))
    cycle, residence, _ = mva(stations, queued)
    cycle, residence, memory_queue = _with_hbm_load(stations, queued, mean, float(stacked["hbm_write"].sum()),
                                                    float(stacked["hbm_read"].sum()), costs.hbm_read_wait, cycle,
                                                    residence)
    # a CTA's slot frees when its last warp is done, so with CTAs waiting for the slot its end is a
    # barrier too (the queueing its warps saw sets the spread of their ends)
    exited = 0.0          # of a warp's cycle, the time it has exited while its CTA's slot waits
    per_cta = max(1, round(costs.warps_per_cta * queued / warps))
    if per_cta > 1 and (mean["bars"] > 0 or costs.waves > 1):
        at_barriers = costs.held_before_barriers(cta_indices)
        cycle, residence, exited = _with_barrier_skew(stations, queued, per_cta, cycle, residence, at_barriers,
                                                      slot_waits=costs.waves > 1, memory_queue=memory_queue)
    # the slot's empty time between CTAs: no warp of it is resident, so none stalls
    turnaround = residence.pop(TURNAROUND, 0.0)
    exited += turnaround
    # an async copy's bytes hold the SM's share of L2 and HBM without holding its warp (the warp
    # waits only where it asks for them): the wave lasts at least as long as the unit serves them all,
    # and its warps wait that out where they wait for the copies (DEPBAR, a BAR.SYNC behind it, an
    # mbarrier's try-wait), which Nsight Compute counts as long_scoreboard
    served = max(float(stacked[unit].sum() + stacked[unit + "_async"].sum()) for unit in ASYNC_UNITS)
    if served > cycle:
        residence["delay:long_scoreboard"] += served - cycle
        cycle = served
    # and as long as the SM's barrier unit takes for every warp's arrivals at a BAR, one after another
    # whatever CTA they come from (the twenty-seventh batch: 64 warps an SM as 4, 8 or 16 CTAs or 2 take
    # 136-141 cycles a round of a __syncthreads; 16 warps 38-56)
    cycle = max(cycle, float(stacked["barrier_unit"].sum()))
    # and as long as the lines its loads miss hold the SM's L1 (KernelCosts: d["l1_fill"]), each for its
    # load's latency and the service its request takes at the LSU, the L2 and HBM
    if mean["fill_loads"] > 0:
        per_load = sum(mean[n] for n in ("lsu", "staged", "l2", "dram")) / mean["fill_loads"]
        cycle = max(cycle, float(stacked["l1_fill"].sum() + stacked["fill_lines"].sum() * per_load))
    # a CTA's warps meet at its barriers: it takes at least the sum of its stretches between them
    cycle = max([cycle] + [costs.between_barriers[k] for k in cta_indices])
    # and so do the CTAs of an SM that share a busy shared pipe: slots that free together refill together,
    # and the pipe serving their warps alike keeps them in step (the twenty-third batch: 32-way conflicted
    # tiles start 0.04-0.14 tiles apart wave after wave, where latency-bound padded ones drift 0.4-2.1
    # apart). Where a stretch of theirs takes the pipe longer than its longest warp's walk and its busiest
    # sub-partition, each stretch holds the SM's units for all of them, and the last warp's loads wait
    # beside writes as at a barrier (the H200 adds the conflicted reads to the loads' latency, where the
    # queueing network overlaps them). Past one barrier the rule stays out: set 2's shared-memory matmul
    # (64 barriers, conflict-free reads faster than the one wavefront a clock the model gives them) would
    # be 8 points slower. One wave's common start is the fill's.
    aligned = costs.in_stretch is not None and len(cta_indices) > 1 and costs.waves > 1
    if aligned and mean["bars"] <= ALIGNED_BARRIERS:
        chain, smsp, shared = _stretch_bounds(costs, np.concatenate([costs.cta_counts[k] for k in cta_indices]))
        if (shared > np.maximum(chain, smsp)).any():
            in_step = float(np.maximum.reduce([chain, smsp, shared]).sum())
            cycle = max(cycle, in_step + memory_queue * _harmonic(per_cta))
    # the longest warp cannot finish before it would alone
    lifetimes = sum(stacked[s.name] for s in stations if s.name in stacked)      # per warp, at every station
    longest = int(np.argmax(lifetimes))
    alone = [Station(s.name, float(stacked[s.name][longest]) if s.name in stacked else s.demand, s.servers)
             for s in stations]
    alone_cycle, _, _ = mva(alone, 1)
    # the busiest scheduler must issue all of its warps' work (warps placed as the H200 places them)
    alone_cycle = max(alone_cycle, _busiest_smsp(costs, cta_indices, units, stacked["fetch"], m))
    # A wave's warps start together, so the longest single wait of a warp (the first load's latency,
    # say) is spent by all at once before the busiest unit has work: the MVA's steady state hides it
    # behind other warps, the wave's start does not. Charged in the measure the unit is busy.
    busiest = max([mean["smsp"] / m] + [mean[n] for n in SM_STATIONS])
    utilisation = min(1.0, queued * busiest / cycle) if cycle > 0 else 0.0
    lifetime = float(sum(s.demand for s in stations))
    # The last wave's warps finish spread over its last wave_drain_span (busy units favour some warps);
    # once fewer remain than keep the busiest unit busy (lifetime / its demand), the SM slows: about
    # half that share of the spread is lost.
    saturating = lifetime / busiest if busiest > 0 else 0.0
    competition = _competition(stations, residence)
    tail = competition * costs.drain_span * cycle * min(1.0, saturating / queued) / 2
    # `mean` is a competing warp's; the others (a twentieth of the work or less) are resident for their own
    # lifetime at most: warps that exit at once (a warpgroup with nothing to do) hold no slot of the wave.
    # Where the longest warp outlasts the mean one's cycle, a competing warp is resident for its own
    # work's share of that cycle (set 2's development half, trips drawn per warp: 13.9% of the SM's
    # warps active where 25% are resident at the start)
    cycles = max(cycle, alone_cycle)
    own_lifetime = lifetimes[~competing]
    mine = lifetimes[competing]
    stretched = mine * (cycle / mine.mean()) if len(mine) and mine.mean() > 0 else np.full(len(mine), cycle)
    resident = float(np.minimum(1.0, stretched / cycles).sum() + np.minimum(1.0, own_lifetime / cycles).sum()) \
        if cycles > 0 else float(warps)
    return {"cycles": cycles, "warps": warps, "queued": queued, "resident": resident, "alone": alone_cycle,
            "residence": residence, "mean": mean,
            "issued": float(stacked["issue"].sum()), "fill": costs.longest_wait * utilisation,
            "utilisation": utilisation, "lifetime": lifetime, "tail": tail, "exited": exited, "turnaround": turnaround,
            "competition": competition,
            "competition_scheduled": _competition(stations, residence, SCHEDULED_STATIONS),
            "memory_waiting_share": _waiting(stations, residence, MEMORY_STATIONS) /
            max(1e-12, _waiting(stations, residence) - _waiting(stations, residence, SCHEDULED_STATIONS)),
            "pipe_bound": _pipe_bound(mean)}


def _with_hbm_load(stations: list, warps: int, mean: dict, written: float, read: float, read_wait,
                   cycle: float, residence: dict):
    """A read from HBM waits longer while the chip writes to HBM (twenty-first batch: a lone chase
    beside copying or writing warps, 354 ns a hop alone, 536 beside 1.45 TB/s of writes), and while it
    reads near HBM's bandwidth (the same chase beside reads: +8 ns at 1.9 TB/s, +148 at 4.3), far
    longer than the dram station's queue. Each HBM latency a warp waits out (mean["hbm_waits"]) takes
    the measured waits, added, at the rates the SM's warps write and read (`written` and `read` bytes a wave,
    over the wave's cycles, as every SM), less the queueing the station already gave it; the rates
    and the waits are solved together (a few damped fixed-point steps). Also returns that added wait
    per warp: queueing in the memory system, which spreads the warps' arrivals at a barrier."""
    if not (written or read) or not mean.get("hbm_waits"):
        return cycle, residence, 0.0
    at = next(k for k, s in enumerate(stations) if s.name == "delay:long_scoreboard")
    base = stations[at].demand
    extra = 0.0
    for _ in range(12):
        wait = mean["hbm_waits"] * read_wait(written / cycle, read / cycle) if cycle > 0 else 0.0
        new = 0.5 * (extra + max(0.0, wait - (residence["dram"] - mean["dram"])))
        if abs(new - extra) < 1e-3 * max(1.0, cycle):
            break
        extra = new
        stations[at] = Station(stations[at].name, base + extra, 0)
        cycle, residence, _ = mva(stations, warps)
    return cycle, residence, extra


def _between_barriers(costs: KernelCosts, counts: np.ndarray) -> float:
    """Cycles a sampled CTA (its live warps' issues, `counts`) needs at least, stretch by stretch
    between its barriers (BAR.SYNC): all its warps leave a stretch together, so a stretch lasts as long
    as its longest warp alone (the walk's gaps and group waits), as long as the SM's shared-memory pipe
    serves its warps' wavefronts, and as long as its busiest sub-partition
    is held by the warps placed on it (warp w on w mod 4): the busiest of its units, the issue slot,
    each register bank and each pipe on its own (an IADD3 on the ALU and an IMAD.IADD on the FMA
    pipe issue a cycle apart: the twenty-ninth batch's adds beside wgmmas, 1.41 cycles an issue on
    the H200, where the sum of each instruction's busiest unit gave 2), or their wgmmas'
    tensor-core time and FP32 issues where those are longer (the tensor core works while its
    warps issue other instructions on, as in the queueing network). The queueing network overlaps one warp's tensor-core work with another's
    arithmetic at any phase; warps that meet at every barrier of a loop, as a two-warpgroup
    attention's do, run each stretch's wgmmas and each stretch's softmax together."""
    if costs.in_stretch is None or not len(counts):
        return 0.0
    return float(np.maximum.reduce(_stretch_bounds(costs, counts)).sum())


def _stretch_bounds(costs: KernelCosts, counts: np.ndarray) -> tuple:
    """Per stretch between barriers, for the warps of `counts`: (the longest warp's walk, the busiest
    sub-partition's time, the SM's shared pipe's time for all their wavefronts)."""
    chain = (counts * costs.gap) @ costs.in_stretch          # warps x stretches
    placed = np.arange(len(counts)) % 4
    smsp = 0.0
    for hold in costs.unit_holds + [costs.hold_tensor]:       # each unit on its own, as sub_partition_held
        held = (counts * hold) @ costs.in_stretch
        smsp = np.maximum(smsp, np.stack([held[placed == q].sum(axis=0) for q in range(4)]))
    shared = (counts * costs.per_exec["wavefronts"]).sum(axis=0) @ costs.in_stretch   # the SM's one shared pipe
    return chain.max(axis=0), smsp.max(axis=0), shared


def sub_partition_held(units: np.ndarray, fetch: np.ndarray, warps: np.ndarray) -> float:
    """Cycles a sub-partition is held by the warps `warps` (a mask over the group's) placed on it: the
    busiest of its units over all of them (the issue slot, each pipe, the tensor core with the FP32
    issues beside it: `units`, SMSP_UNITS x warps), and the refetches of taken branches (`fetch`). Warps
    whose busiest units differ overlap: one warpgroup's wgmmas run while the other's MUFU and ALU work
    issues (seventeenth batch: a wgmma loop beside a MUFU loop keeps its pace), where the sum of each
    warp's busiest unit would add them."""
    if not warps.any():
        return 0.0
    return float(units.compress(warps, axis=1).sum(axis=1).max()) + float(fetch[warps].sum())


def _busiest_smsp(costs: KernelCosts, cta_indices: list, units: np.ndarray, fetch: np.ndarray, m: int) -> float:
    """Cycles the busiest sub-partition is held by the warps placed on it, as the H200 places them
    (mb_slots: a warp's %warpid mod 4 is its scheduler): a CTA's warps go round robin over the four
    schedulers, so warps w, w + 4, ... of a CTA share one, and the k-th CTA of an SM starts one
    scheduler further on (mb_smsp_skew: the heavy warp 0 of 4-warp CTAs spreads over all four; the
    heavy warps 0, 4, 8, ... of two 32-warp CTAs load two schedulers, not one). The queueing network
    spreads the work evenly; where it follows the warp index mod 4 this bound sets the time."""
    if m < 4 or units.shape[1] < 4:
        return 0.0
    place = np.concatenate([(k + np.arange(costs.demands[c].shape[1])) % 4 for k, c in enumerate(cta_indices)])
    return max(sub_partition_held(units, fetch, place == q) for q in range(4))


def _pipe_bound(mean: dict) -> bool:
    """Whether a math pipe (not the tensor core) holds a competing warp's sub-partition longer than its
    issue slot does: warps queued for such a pipe take it oldest CTA first, and the wave's CTAs finish
    one after another (`cta_drain_span_pipe`); warps queued for the issue slot itself are served more
    evenly (`cta_drain_span`)."""
    return max(mean[p] for p in QUEUE_PIPES if p != "tensor") > PIPE_BOUND_MARGIN * mean["issue"]


def _waiting(stations: list, residence: dict, at=None) -> float:
    """Cycles a warp spends behind other warps at the units it queues for (those `at` names, or all)."""
    return sum(max(0.0, residence[s.name] - s.demand) for s in stations
               if s.servers > 0 and s.demand > 0 and (at is None or s.name in at))


def _competition(stations: list, residence: dict, at=None) -> float:
    """The share of a warp's time at the units it queues for that it spends behind other warps (0: it
    never waits for one; near 1: the units are saturated): what makes warps finish apart. `at` names
    the units whose waiting counts (all of them by default)."""
    waiting = _waiting(stations, residence, at)
    served = sum(s.demand for s in stations if s.servers > 0 and s.demand > 0)
    return waiting / (waiting + served) if waiting + served > 0 else 0.0


def _harmonic(n: int) -> float:
    """H_n: the mean of the largest of n exponential waits, in their mean (the last of n warps to arrive)."""
    return sum(1.0 / k for k in range(1, n + 1))


def _with_barrier_skew(stations: list, warps: int, warps_per_cta: int, cycle: float, residence: dict,
                       at_barriers: float, slot_waits: bool, memory_queue: float = 0.0):
    """Resident warps queue for the sub-partition and the SM's units; at a CTA barrier every warp waits
    for the last of its CTA to arrive. Taking each warp's queueing before a barrier as exponential, the
    last of n arrives (H_n - 1) mean queueing delays after the average one (H_n the harmonic number);
    `memory_queue`, a read's wait for HBM beyond its latency alone (_with_hbm_load), counts as such a
    delay too. The warps meet again at each barrier, so only the queueing of the stretches that end at
    one spreads them there: `at_barriers`, the share of the warps' sub-partition time in those stretches
    (KernelCosts.held_before_barriers; the twenty-eighth batch's wgmma loops, one __syncthreads before
    them, were 8-36% slow with two CTAs an SM when all their queueing counted).
    That wait is a delay of every warp; it lowers the queueing it comes from, so the two are solved
    together (a few fixed-point steps). Where CTAs wait for slots (`slot_waits`) a CTA's end waits so too
    for its last warp after the last barrier, but the warps that finished first have exited, so that
    wait is no warp's stall reason (returned as `exited`), and it lasts no longer than its warps' service
    at the busiest queue: warps that issued alike leave it one after another (set 1's strided copies had
    42-53% achieved occupancy with the exponential wait, ncu 74-85%). There only the waits for memory
    spread them: the scheduler serves a CTA's warps alike (the third batch's four waves of 32-warp FMA
    chains hold 90.7% of the SM's warps; counting their waits to issue, 69.9%)."""
    spread = _harmonic(warps_per_cta) - 1.0
    queued = [s for s in stations if s.servers > 0]
    # the mean warp of a CTA exits at most half its warps' service at the busiest queue before the last
    fifo = (warps_per_cta - 1) / 2 * max((s.demand / s.servers for s in queued), default=0.0)
    skew = {"delay:barrier_skew": 0.0, "delay:end_skew": 0.0}
    for _ in range(8):
        queue = sum(max(0.0, residence[s.name] - s.demand) for s in queued) + memory_queue
        unscheduled = sum(max(0.0, residence[s.name] - s.demand) for s in queued
                          if s.name not in SCHEDULED_STATIONS) + memory_queue
        target = {"delay:barrier_skew": spread * queue * at_barriers,
                  "delay:end_skew": min(fifo, spread * unscheduled * (1.0 - at_barriers)) if slot_waits else 0.0}
        new = {k: 0.5 * (skew[k] + target[k]) for k in skew}
        if all(abs(new[k] - skew[k]) < 1e-3 * max(1.0, cycle) for k in skew):
            break
        skew = new
        cycle, residence, _ = mva(stations + [Station(k, v, 0) for k, v in skew.items()], warps)
    if "delay:barrier_skew" in residence:
        residence["delay:barrier"] = residence.get("delay:barrier", 0.0) + residence.pop("delay:barrier_skew")
    return cycle, residence, residence.pop("delay:end_skew", 0.0)


def _stalls(groups: list, preset) -> dict:
    """Nsight Compute stall reasons (warps per issue cycle) from the waves' residences."""
    total_issue = sum(g["issued"] * g["repeat"] for g in groups) or 1.0
    acc = {}

    def add(name, v):
        acc[name] = acc.get(name, 0.0) + v

    for g in groups:
        if not g["warps"]:
            continue
        w = g["queued"] * g["repeat"]          # the competing warps, whose mean `mean` is
        mean, res = g["mean"], g["residence"]
        add("selected", w * mean["issue"])
        # queueing for the sub-partition: behind other warps' issue (not_selected), or for a pipe
        # busier than the issue slot (math_pipe_throttle; mio_throttle for MUFU)
        queue = max(0.0, res["smsp"] - mean["smsp"])
        # a pipe's own time, and the register banks' reads beyond the issues (dispatch_stall); the
        # tensor core's time a warpgroup waits out at WARPGROUP.DEPBAR is `barrier` to Nsight Compute
        # (fortieth batch, on an H100: one-warpgroup wgmma loops stalled on `barrier` 8.7-27 warps an
        # issue and on `wait` 2.4-2.6, whatever their accumulators, groups pending or CTAs an SM)
        own = max(0.0, mean["smsp"] - mean["fetch"] - mean["issue"] - mean["dispatch"])
        at_depbar = min(own, mean.get("wgmma_overlap", 0.0))
        add("wait", w * (own - at_depbar))
        add("barrier", w * at_depbar)
        add("dispatch_stall", w * mean["dispatch"])
        add("no_instruction", w * mean["fetch"])             # refetching after taken branches
        pipe = max(QUEUE_PIPES, key=lambda p: mean[p])
        excess = max(0.0, mean[pipe] - mean["issue"]) / mean["smsp"] if mean["smsp"] > 0 else 0.0
        if pipe == "mufu" and excess > 0:
            excess = max(excess, MUFU_MIO_SHARE)
        add("not_selected", w * queue * (1.0 - excess))
        # queueing for the tensor core: a warpgroup's HGMMAs issue and wait in the tensor core's
        # queue while the warps sit at WARPGROUP.DEPBAR (fortieth batch, 2 CTAs an SM: `barrier`)
        by_depbar = pipe == "tensor" and mean.get("wgmma_overlap", 0.0) > 0
        add("barrier" if by_depbar else "mio_throttle" if pipe == "mufu" else "math_pipe_throttle",
            w * queue * excess)
        add("mio_throttle", w * res["mio"])
        add("lg_throttle", w * max(0.0, res["lsu"] - mean["lsu"]))
        add("long_scoreboard", w * (res["l2"] + res["dram"]))
        for r in DELAYS:
            add(r, w * res["delay:" + r])
    return {k: v / total_issue for k, v in sorted(acc.items())}


def longest_warp_beyond_sample(costs, grid_warps: int) -> float:
    """How much longer than the sample's longest warp the grid's longest is expected to be, where the
    sampled warps' lifetimes (their demands at every station) spread as a random tail does: the
    largest quarter's excesses over the next value spread about their mean as an exponential tail's
    do (TAIL_SPREAD: a uniform spread's excesses give 0.58, set 2's by-warp trips 0.71, its
    geometric ones 1.03), the tail then extended from the sample's warps to the grid's (the expected
    maximum of N draws grows by the tail's scale times log N). A grid of loops whose trip counts are
    drawn per thread (set 2's geometric trips: the sample's longest warp 9,130 iterations, the grid's
    11,610, the H200 20% slower than the sample said; 10% faster with this) ends with its longest
    warp; lifetimes that take a few values (a tile's edge, a branch by warp) are no tail and leave it
    at 1."""
    names = [n for n in costs.demand_names if n == "smsp" or n in SM_STATIONS or n.startswith("delay:")]
    rows = [costs.demand_names.index(n) for n in names]
    lifetimes = np.concatenate([d[rows].sum(axis=0) for d in costs.demands]) if costs.demands else np.zeros(0)
    lifetimes = np.sort(lifetimes[lifetimes > IDLE_WARP_SHARE * lifetimes.max(initial=0.0)])[::-1]
    n = len(lifetimes)
    k = n // 4
    if k < 8 or grid_warps <= n:
        return 1.0
    excess = lifetimes[:k] - lifetimes[k]
    scale = float(excess.mean())
    spread = float(excess.std()) / scale if scale > 0 else 0.0
    if not TAIL_SPREAD[0] <= spread <= TAIL_SPREAD[1] or len(np.unique(lifetimes[:k])) < k // 2:
        return 1.0
    # past the threshold a share k / n of warps, exponentially: the largest of N is Gumbel about
    # threshold + scale log(N k / n), its mean EULER_GAMMA scales further
    expected = lifetimes[k] + scale * (np.log(grid_warps * k / n) + np.euler_gamma)
    return max(1.0, float(expected / lifetimes[0]))


def _nearest(sampled: list, n_ctas: int, work=None) -> np.ndarray:
    """The sampled CTA (its index in `sampled`) that stands for each of the grid's CTAs: the one whose
    work is closest to its own where every CTA's work is known (ex.cta_work), ties to the closest by
    id (the first of equals), else the closest by id (of two equally close, the higher; `sampled`
    ascends)."""
    ids = np.asarray(sampled, dtype=np.int64)
    ctas = np.arange(n_ctas)
    by_id = np.abs(ids[None, :] - ctas[:, None]).astype(float)       # (CTAs, sampled)
    if work is not None:
        gap = np.abs(work[ids][None, :] - work[:, None])
        by_id[gap != gap.min(axis=1, keepdims=True)] = np.inf
    else:
        by_id -= 0.25 * (ids[None, :] > ctas[:, None])               # (distances are whole numbers)
    return np.argmin(by_id, axis=1)


def predict_execution(ex, gpu="h200", registers: int = 32, shared_per_block: int = 0,
                      l2_since: float | None = None) -> Timing:
    """Timing of the launch `ex` (an Execution) on `gpu` (preset name or GPUPreset).

    By default the L2 starts cold, as Nsight Compute and do_bench's flush leave it. l2_since: the
    same launch ran before, and other launches touched this many bytes since (0 for a launch that
    follows itself: a CUDA graph's replays, a loop timed by events); its data is then still in L2
    if the L2 holds its footprint and those bytes (events on the H200: set 1 7.0%, set 2 10.5% mean
    error this way, 19.9% and 21.4% from a cold L2). details['footprint_bytes'] is the footprint.

    A launch that keeps the tensor cores busy (TENSOR_CLOCK_BUSY of its cycles or more) runs at the
    preset's tensor_clock_mhz: it is costed again at that clock (fourteenth batch: wgmma on random
    tiles 1,658-1,742 MHz, FFMA alone 1,964)."""
    preset = gpu_preset(gpu)
    timing = _predict_at_clock(ex, preset, registers, shared_per_block, l2_since)
    busy = timing.details["tensor_busy"]
    if busy < TENSOR_CLOCK_BUSY or preset.tensor_clock_mhz == preset.kernel_clock_mhz:
        return timing
    timing = _predict_at_clock(ex, replace(preset, kernel_clock_mhz=preset.tensor_clock_mhz), registers,
                               shared_per_block, l2_since)
    timing.notes.append(f"tensor cores busy {100 * busy:.0f}% of the cycles: SM clock {preset.tensor_clock_mhz:.0f} MHz")
    return timing


def _predict_at_clock(ex, preset, registers, shared_per_block, l2_since) -> Timing:
    threads = ex.threads_per_cta
    occ = preset.occupancy(threads, registers, shared_per_block)
    per_sm = max(1, occ["ctas_per_sm"])
    n_ctas = ex.n_ctas
    sms = preset.sms
    active = min(sms, n_ctas)
    per_sm_ctas = -(-n_ctas // sms)
    waves = -(-per_sm_ctas // per_sm)
    by_cta = waves <= 2 and n_ctas <= 4096      # each CTA costed as a sampled one, else the mean CTA's waves
    if not by_cta:
        ex = as_grid(ex)
    # a CTA's share of its SM's L1: the lines it reads are one of `resident` CTAs' alike
    resident = min(per_sm, per_sm_ctas)
    costs = KernelCosts(ex, preset, active, preset.barrier_cycles + preset.barrier_cycles_per_warp * ex.warps_per_cta,
                        waves, l2_since, occ["l1_bytes"] / 128 / resident, occ["l1_bytes"] / 128, resident)
    sampled = list(ex.sampled_ctas)
    cache = {}

    def timed(indices):
        key = tuple(sorted(indices))
        if key not in cache:
            cache[key] = group_time(costs, list(key))
        return cache[key]

    groups = []
    notes = []
    alone_tail = 0.0          # cycles at the end in which the grid's longest warp runs alone
    if by_cta:
        stands_for = _nearest(sampled, n_ctas, ex.cta_work)
        worst, worst_groups = -1.0, []
        for s in range(active):
            mine = stands_for[s::sms].tolist()
            t, gs = 0.0, []
            for w0 in range(0, len(mine), per_sm):
                g = timed(mine[w0:w0 + per_sm])
                t += g["cycles"] + g["fill"] * (1.0 if w0 == 0 else 1.0 / per_sm)
                gs.append(g)
            t += gs[-1]["tail"] if gs else 0.0
            if t > worst:
                worst, worst_groups = t, gs
        sm_cycles, groups = worst, [dict(g, repeat=1) for g in worst_groups]
        # the grid's longest warp, where warps' lifetimes vary at random, outlasts the sample's
        beyond = longest_warp_beyond_sample(costs, n_ctas * ex.warps_per_cta)
        if beyond > 1.0:
            longer = max(g["alone"] * beyond - g["cycles"] for g in worst_groups)
            if longer > 0:
                sm_cycles += longer
                alone_tail = longer
                notes.append(f"the grid's longest warp taken as {beyond:.2f}x the sample's (lifetimes at random)")
    else:
        mean_cta = list(range(len(sampled)))
        full, rest = divmod(per_sm_ctas, per_sm)
        sm_cycles = 0.0
        # a wave of `per_sm` CTAs costed as the sample's CTAs cycled to that count
        if full:
            g = timed(_spread(mean_cta, per_sm)) if per_sm <= len(mean_cta) else \
                _scaled_group(costs, mean_cta, per_sm)
            # the first wave's start is exposed; later CTAs start while the SM's others run
            sm_cycles += full * g["cycles"] + g["fill"] * (1.0 + (full - 1) / per_sm)
            groups.append(dict(g, repeat=full))
        if rest:
            g = _scaled_group(costs, mean_cta, rest)
            sm_cycles += g["cycles"] + g["fill"] * (1.0 if not full else 1.0 / per_sm)
            groups.append(dict(g, repeat=1))
        sm_cycles += groups[-1]["tail"] if groups else 0.0
        notes.append(f"{n_ctas} CTAs in {waves} waves of {per_sm} per SM; each wave costed from "
                     f"{len(sampled)} sampled CTAs")
    # chip-wide bounds
    interval = preset.cta_launch_ns_per_sm * 1e-9 * preset.clock_hz
    dispatch = per_sm_ctas * interval
    # an SM receives its CTAs one dispatch interval apart: the first wave's slots start staggered, and
    # each slot's chain of CTAs keeps its lag to the end, so the last slot finishes (slots - 1) later
    sm_cycles += (min(per_sm, per_sm_ctas) - 1) * interval
    atomic_cycles, atomic_site = hot_line_cycles(ex, preset)
    if atomic_cycles:
        # a slice hotter than the rest serves its share of the lone lanes too, beside its chain's lanes
        # (which hold it as integer adds do; an f32 chain's longer wait on its own adds lets others in)
        held, _ = hot_line_cycles(ex, preset, lane_cycles=preset.atomic_lane_cycles_int)
        lone = lone_lane_cycles(ex, preset)
        if held > lone:
            atomic_cycles = max(atomic_cycles, held + lone)
    slices = atomic_slice_cycles(ex, preset, min(n_ctas, active * per_sm))
    if slices > atomic_cycles:
        atomic_cycles, atomic_site = slices, min(i for i, m in ex.memory.items() if m.kind == "atomic")
    if atomic_cycles:
        # a CTA's atomics start only after the work before them: the first wave's share of it comes first
        atomic_cycles += _share_before(costs, ex.function, atomic_site) * sm_cycles / max(1, waves)
    bounds = {"execution": sm_cycles, "cta_launch": dispatch, "atomics": atomic_cycles}
    cycles = max(bounds.values())
    stalls = _stalls(groups, preset)
    issued_sampled = float(costs.total_exec.sum())
    # occupancy and issue activity of the busiest SM
    busy = sum(g["cycles"] * g["repeat"] for g in groups) or 1.0
    warps_time = sum(g["queued"] * g["cycles"] * g["repeat"] for g in groups if g["warps"])
    atomic_wait = _atomic_wait(ex, atomic_site) if atomic_site is not None else None
    achieved = _achieved_occupancy(groups, preset, costs, bounds, cycles, atomic_wait, alone_tail)
    issued = sum(g["issued"] * g["repeat"] for g in groups)
    # ncu's issue active is over the sub-partitions' active cycles: one that never holds a warp (an SM
    # of fewer warps than sub-partitions) has none, nor do the others while the longest warp runs alone
    holding = min(preset.sub_partitions_per_sm, max([g["warps"] for g in groups] + [1]))
    issue_active = 100.0 * issued / (holding * (cycles - alone_tail) + alone_tail)
    if cycles > sm_cycles > 0:          # the SM waits on a chip-wide bound: the waiting shows as its reason
        extra = (cycles - sm_cycles) / sm_cycles
        reason = atomic_wait if bounds["atomics"] == cycles else "long_scoreboard"
        if bounds["atomics"] == cycles or bounds["cta_launch"] == cycles:
            stalls = {k: v * (1 if k == "selected" else 1) for k, v in stalls.items()}
            per_issue = warps_time / max(issued, 1.0) * extra
            stalls[reason] = stalls.get(reason, 0.0) + per_issue
    bottleneck = _bottleneck(bounds, groups, cycles)
    per_line = line_stalls(ex.function, costs, stalls, issued_sampled, preset.branch_taken_cycles)
    time_s = cycles / preset.clock_hz + KERNEL_OVERHEAD_US * 1e-6
    # the busiest SM's share of cycles its tensor pipes are held (the sampled CTAs' mean, its CTAs)
    tensor_per_cta = float(costs.total_exec @ costs.pipe_hold["tensor"]) / max(1, len(ex.counts))
    tensor_busy = tensor_per_cta * per_sm_ctas / preset.sub_partitions_per_sm / cycles if cycles else 0.0
    if ex.scale > 1:
        notes.append(f"sampled {len(sampled)} of {n_ctas} CTAs")
    notes.extend(ex.notes)
    return Timing(time_s=time_s, cycles=cycles, achieved_occupancy=achieved, issue_active=min(100.0, issue_active),
                  stalls=stalls, bottleneck=bottleneck, source=ex.source, gpu=preset.name, notes=notes,
                  lines=per_line,
                  details={"bounds": bounds, "ctas_per_sm": per_sm, "limited_by": occ["limited_by"],
                           "waves": waves, "instructions": float(ex.grid_counts.sum()) if ex.grid_counts is not None else
                           float(costs.total_exec.sum() * ex.scale * ex.work_scale), "dram_bytes": costs.dram_bytes, "l2_bytes": costs.l2_bytes,
                           "footprint_bytes": costs.footprint, "tensor_busy": tensor_busy})


def _achieved_occupancy(groups, preset, costs, bounds, cycles, atomic_wait=None, alone_tail=0.0) -> float:
    """sm__warps_active as a percent of the SM's warps, over the busiest SM's active cycles.

    Each wave holds its warps, but the warps of a busy wave do not finish together: the scheduler
    favours some, which finish early and leave, over the last `wave_drain_span` of the kernel's last
    wave (in the measure the wave's busiest unit is busy), and the warps of a CTA whose slot waits
    for its last warp have exited meanwhile. Where CTA dispatch sets the time, the SM holds, by
    Little's law, a CTA's lifetime over the dispatch interval of CTAs. The grid's longest warp, where
    it outlasts the sample's (longest_warp_beyond_sample), runs its `alone_tail` cycles alone."""
    busy = sum(g["cycles"] * g["repeat"] for g in groups) + alone_tail
    if busy <= 0:
        return 0.0
    warps_time = alone_tail          # the grid's longest warp, alone at the end
    for k, g in enumerate(groups):
        if not g["warps"]:
            continue
        drain = _drain_share(g, preset, costs.warps_per_cta) if k == len(groups) - 1 else 0.0
        active = 1.0 - min(1.0, g.get("exited", 0.0) / g["cycles"]) if g["cycles"] > 0 else 1.0
        warps_time += g["resident"] * g["cycles"] * (g["repeat"] - drain) * active
        # an SM whose every slot is turning over holds no warp: those cycles are not active ones
        empty = min(1.0, g.get("turnaround", 0.0) / g["cycles"]) ** (g["warps"] / costs.warps_per_cta) \
            if g["cycles"] > 0 else 0.0
        busy -= g["cycles"] * g["repeat"] * empty
    if busy <= 0:
        return 0.0
    achieved = 100.0 * warps_time / busy / preset.max_warps_per_sm
    if bounds["cta_launch"] == cycles and cycles > bounds["execution"]:
        interval = preset.cta_launch_ns_per_sm * 1e-9 * preset.clock_hz
        lifetime = max(g.get("lifetime", 0.0) for g in groups)
        resident = lifetime / interval * costs.warps_per_cta
        achieved = min(achieved, 100.0 * resident / preset.max_warps_per_sm)
    if bounds["atomics"] == cycles and cycles > bounds["execution"]:
        # while the L2 serializes the atomics, the SM's slots stay filled but their CTAs' warps leave
        # apart: an SM of C CTAs holds 1 - spread / sqrt(C) of its warps
        full = max(groups, key=lambda g: g["warps"])
        ctas = max(1.0, full["warps"] / costs.warps_per_cta)
        held = 100.0 * full["warps"] / preset.max_warps_per_sm * max(0.0, 1.0 - ATOMIC_SLOT_SPREAD[atomic_wait] / np.sqrt(ctas))
        waiting = (cycles - bounds["execution"]) / cycles
        achieved = achieved * (1.0 - waiting) + held * waiting
    return achieved


def _drain_share(g: dict, preset, warps_per_cta: int) -> float:
    """The share of a last wave's warp-cycles its warps have left before it ends.

    Where warps wait for their sub-partition or its shared pipe, the scheduler picks the oldest CTA's
    warps first: the warps of a CTA advance together and the SM's CTAs finish one after another,
    spread over `cta_drain_span` of the wave (k CTAs finishing evenly leave (k - 1) / 2k of it on
    average: the third batch's one-wave FMA chains hold 68.3, 69.9 and 80.4% at 16, 8 and 2 CTAs an
    SM), over the whole wave where a math pipe, not the issue slot, sets the pace (`cta_drain_span_pipe`:
    the fifty-second batch's DFMA, MUFU, IMAD and HFMA2 chains hold 55-61% at 8 and 16 CTAs, 74-75% at
    2). Where they wait for memory, served in the order asked, warps finish apart one by one, over
    `wave_drain_span`; beyond the SM (the L2, HBM), where a warp's time is the sum of its many trips'
    waits, draws from the same queue, the spread of those sums narrows with the trips
    (MEMORY_SPREAD_EXPONENT). Each weighs by the share of a warp's time it waits there."""
    # a CTA of fewer than four warps shares no sub-partition with itself: a sub-partition's warps are each a CTA
    ctas = max(1.0, g["warps"] / max(warps_per_cta, 4))
    scheduled = g.get("competition_scheduled", 0.0)
    queued = max(0.0, g.get("competition", 0.0) - scheduled)
    # the memory units' part of that queueing narrows with the warps' trips through them
    memory = queued * min(1.0, g.get("memory_waiting_share", 0.0))
    span = preset.cta_drain_span_pipe if g.get("pipe_bound") else preset.cta_drain_span
    passes = max(1.0, g["mean"].get("memory_passes", 1.0))
    return scheduled * span * (ctas - 1) / (2 * ctas) + \
        (queued - memory + memory * passes ** -MEMORY_SPREAD_EXPONENT) * preset.wave_drain_span / 2


def _atomic_wait(ex, site: int) -> str:
    """The stall reason of warps waiting while the L2 serializes the atomics at `site`: `drain`, at
    EXIT, where they are reductions (RED, nothing returned) whose requests each queue their lanes on one
    address; `long_scoreboard` where the atomic returns its old value, or its requests name several
    words of a line or lanes alone on theirs: the loads after them queue behind (fifty-second batch, an
    H100: REDs on one address or one a warp drain 6,398 / 138 warps an issue beside 2,755 / 108 on the
    scoreboard; 32 words of a line, 1,024 words or a hash over 2^20: 1,162 / 135 / 90 on the scoreboard
    beside 128 / 4 / 54 draining; ATOMG keeping its value, whatever the addresses, the scoreboard)."""
    m = ex.memory[site]
    reduction = ex.function.instructions[site].opcode.upper().startswith("RED")
    queued_on_one = m.atomic_lanes_single - m.atomic_lanes_lone
    return "drain" if reduction and not m.atomic_multi_kinds and queued_on_one > m.atomic_lanes_lone \
        else "long_scoreboard"


def pass_cycles(ins, preset) -> tuple:
    """(a pass's unit cycles by pass kind (execution.PASS_KINDS), a same-address lane's cycles) for the
    atomic instruction `ins`: float adds cost more than integer operations."""
    if any(t.startswith("F") for t in ins.mods):
        return dict(zip(PASS_KINDS, preset.atomic_pass_cycles_float)), preset.atomic_lane_cycles_float
    return dict(zip(PASS_KINDS, preset.atomic_pass_cycles_int)), preset.atomic_lane_cycles_int


def hot_line_cycles(ex, preset, lane_cycles: float | None = None) -> tuple:
    """Cycles the busiest L2 atomic unit (execution.atomic_unit_of_line) spends on atomics: each (warp request,
    line) pass costs it by the sectors it names (atomic_pass_cycles_*), or its lanes on one address
    one after another where more than one (an f32 add costs more per lane than an integer one;
    `lane_cycles` for every type instead); and its busiest line takes at least a same-address lane's
    time for each pass's lanes on one address (fifty-seventh batch: f32 passes to one line alone 3.0 L2
    cycles whatever their sectors up to two, alternating with a second line 2.2-2.5). Every site's
    share of the launch's hottest unit (execution: the unit is the same for all) queues there, so the
    sites add up; returns (cycles, the site with the largest share)."""
    total, worst, site = 0.0, 0.0, None
    chain_total = 0.0
    for i, m in ex.memory.items():
        if m.kind != "atomic" or not m.atomic_requests_hot:
            continue
        grow = ex.scale if m.hot_line_ctas >= max(2, len(ex.sampled_ctas)) else 1.0
        by_kind, lane = pass_cycles(ex.function.instructions[i], preset)
        lane = lane_cycles if lane_cycles is not None else lane
        cycles = sum(n * (by_kind[kind] if same == 1 else max(by_kind[kind], same * lane))
                     for same, kind, n in m.atomic_hot_passes) * grow
        chain_total += m.atomic_line_chain * lane * grow
        total += cycles
        if cycles > worst:
            worst, site = cycles, i
    return max(total, chain_total), site


def atomic_slice_cycles(ex, preset, wave_ctas: int) -> float:
    """Cycles the L2 slices spend on the launch's atomics when the work spreads over the slices a wave
    reaches: a lane per cycle for a lane naming one address (independent addresses pipeline; one hot
    address is hot_line_cycles' latency chain), a line pass for a request naming several
    (atomic_pass_cycles_*), and L2 atomic units (execution.atomic_unit_of_line) hashed over U, of which a
    wave's units keep 1 - exp(-units / U) busy: U is `atomic_units` for one-address lanes queued on their
    address (set 2's atomics: one address per warp, per CTA, 32 lines in turn), `atomic_spread_units` for
    lanes alone on a line of their request (forty-seventh batch: a line a lane, 43 a clock),
    `atomic_pass_units` for line passes (thirty-seventh batch: an address a thread)."""
    queued, lone, passes, reached = 0.0, 0.0, 0.0, 1.0
    for i, m in ex.memory.items():
        if m.kind != "atomic" or m.space != "global" or not (m.atomic_lanes_single or m.atomic_multi_kinds):
            continue
        # every site holds the units all the sites reach together (they share the slices)
        reached = max(1.0, m.atomic_units_per_cta + m.atomic_unit_advance * max(0, wave_ctas - 1))
        by_kind, _ = pass_cycles(ex.function.instructions[i], preset)
        queued += m.atomic_lanes_single - m.atomic_lanes_lone
        lone += m.atomic_lanes_lone
        passes += sum(n * by_kind[kind] for kind, n in m.atomic_multi_kinds)
    return sum(work * ex.scale / (units * (1.0 - np.exp(-reached / units)))
               for work, units in ((queued, preset.atomic_units), (lone, preset.atomic_spread_units),
                                   (passes, preset.atomic_pass_units)) if work)


def lone_lane_cycles(ex, preset) -> float:
    """Cycles of the launch's atomic lanes alone on their line of a request, spread over the slices
    (`atomic_spread_units` a clock): what each slice, the hottest too, serves of them (forty-seventh
    batch, an H100: u32 lanes on one address beside 31 or 24 lanes spread, 1.8x the chain alone)."""
    return sum(m.atomic_lanes_lone for m in ex.memory.values()
               if m.kind == "atomic" and m.space == "global") * ex.scale / preset.atomic_spread_units


def _share_before(costs, function, site: int) -> float:
    """The share of a warp's own time (issue gaps of the walk, weighted by executions) spent before it
    first reaches `site`: the instructions before it, those of a loop around it once, as one pass of
    the loop's body (forty-ninth batch: REDs in a loop after a hash of ten instructions, 4.3M lanes,
    took 52 us on an H100 where adding the whole loop's hashing gave 80)."""
    spent = costs.total_exec * costs.walk.gap()
    total = spent.sum()
    if total <= 0:
        return 0.0
    before = spent[:site].copy()
    head = _outer_loop_head(function, site)
    # the loop's entries: as many as the most executed instruction before it (none: taken as one pass)
    entries = float(costs.total_exec[:head].max(initial=0.0)) if head is not None else 0.0
    if entries > 0:
        before[head:] /= max(1.0, costs.total_exec[site] / entries)
    return float(before.sum() / total)


def _outer_loop_head(function, site: int):
    """The first instruction of the outermost loop (a back edge from a block at or after the site's to
    one at or before it) around instruction `site`, or None."""
    blocks = [b for b in function.blocks if b.reachable and b.end > b.start]
    at = next((b for b in blocks if b.start <= site < b.end), None)
    if at is None:
        return None
    heads = [function.blocks[s].start for b in blocks for s in b.successors
             if b.index >= at.index and s <= at.index]
    return min(heads) if heads else None


def _spread(sample_indices, count):
    """`count` of the sampled CTAs spread over the sample (which spans the grid), not its first ones:
    where CTAs' work differs by their place in the grid, a wave costed from the grid's first CTAs
    alone is costed from one corner of it."""
    step = len(sample_indices) / count
    return [sample_indices[int(k * step)] for k in range(count)]


def _scaled_group(costs, sample_indices, count):
    """A wave of `count` CTAs when fewer are sampled: the sample's CTAs repeated to `count`."""
    pick = [sample_indices[k % len(sample_indices)] for k in range(count)]
    return group_time(costs, pick)


def _bottleneck(bounds, groups, cycles) -> str:
    if bounds["atomics"] == cycles and cycles > bounds["execution"]:
        return "atomics"
    if bounds["cta_launch"] == cycles and cycles > bounds["execution"]:
        return "launch"
    # the station with the highest utilisation in the longest wave
    g = max(groups, key=lambda g: g["cycles"] * g["repeat"]) if groups else None
    if not g or not g["warps"]:
        return "latency"
    util = {}
    m = min(4, g["queued"])
    for name in SERVERS_SMSP:
        util[name] = g["mean"][name] * g["queued"] / m / g["cycles"]
    for name in SM_STATIONS:
        util[name] = (g["mean"][name] + g["mean"].get(name + "_async", 0.0)) * g["queued"] / g["cycles"]
    best = max(util, key=util.get)
    if util[best] < 0.6:
        return "latency"
    return {"issue": "issue", "fma": "fma", "fp16": "fp16", "alu": "alu", "fp64": "fp64", "mufu": "sfu",
            "tensor": "tensor", "mio": "shared", "lsu": "l1", "l2": "l2", "dram": "dram"}[best]
