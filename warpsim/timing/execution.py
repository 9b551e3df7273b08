"""What ran: the input of the timing model, one record per launch.

`Execution` holds, for the kernel's SASS function, per sampled CTA and per warp
of it, how many times each SASS instruction was issued (`counts[cta][warp, i]`),
and per SASS memory instruction the requests, sectors, lines, shared-memory
wavefronts and atomic contention the sampled CTAs caused, plus the bytes of
global memory they touched at least once (what a cold L2 must fetch from HBM).
Everything is of the sampled CTAs; `scale` (grid CTAs / sampled CTAs) says how
far the model extrapolates, and `source` says where the counts came from:

- 'sass': the SASS executor ran the sampled CTAs (per-warp paths, exact counts);
- 'ptx': the PTX run's per-warp block counts, mapped to SASS instructions by
  their PTX line (SassInstruction.ptx_line), a loop unrolled by ptxas divided
  by its copies;
- 'sass-counters' / 'ptx-counters': a profiled launch's aggregate counters,
  spread evenly over its warps (no per-warp paths).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace

import numpy as np

from ..machine.counting import distinct_count, run_starts, shared_bank_wavefronts, unique_ascending
from ..machine.events import LaunchObserver
from ..machine.memory import GLOBAL_BASE
from ..sass.executor.async_copy import TMA_UNIT
from ..sass.compiled.resumes import note_splits
from ..sass.issues import Departures, brx_targets, bsync_starts
from ..sass.ptx_blocks import block_copies, ptx_block_of_sass
from ..semantics.addresses import local_hardware_bytes
from .presets import gpu_preset
from .reuse import bucket, bucket_steps, stack_distances

CTA_SHIFT = 40                  # a load's key in _cta_order: its CTA above this bit, its sector below
SECTOR_BITS = (1 << CTA_SHIFT) - 1


@dataclass
class SiteMemory:
    """One SASS memory instruction, summed over the sampled CTAs."""

    space: str                      # 'global', 'local', 'shared'
    kind: str                       # 'load', 'store', 'atomic'
    requests: int = 0               # warp-level accesses
    sectors: int = 0                # 32-byte sectors, distinct per request
    lines: int = 0                  # 128-byte lines, distinct per request
    data_bytes: int = 0             # bytes the requests' lanes moved
    cta_unique_sectors: int = 0     # distinct sectors per CTA, summed over CTAs (L1 misses of loads)
    in_step_sectors: int = 0        # warp requests' sectors another warp of the CTA first read at this load
    shared_first: tuple = ()        # of those first touches, how many were of sectors k sampled CTAs read
    #                                 (index k, from 2): data every CTA reads, which an SM's L1 keeps
    in_step_first: tuple = ()       # ... of those, the sectors the CTAs first read in step (IN_STEP_WINDOW)
    in_step_share: float = 1.0      # of its first touches of sectors other sampled CTAs read too, the share read
    #                                 in step (1 where none is shared)
    rereads: tuple = ()             # (lines, sectors): sectors a CTA read again, by how many distinct lines
    #                                 it read since (reuse.stack_distances; bucket edges), in-step ones aside
    wavefronts: int = 0             # shared memory
    chunk_gaps: int = 0             # gaps between a request's distinct 64-byte chunks (HBM's access), in order
    gap_doublings: float = 0.0      # ... summed, each as log2 of its chunks, 0 (adjacent) to SPREAD_DOUBLINGS
    scattered_lines: int = 0        # lines of requests whose lines lie at random (scattered_lines)
    low: float = float("inf")       # the lowest and highest address of those requests: the region they
    #                                 read at random in (model.random_regions)
    high: float = 0.0
    span_low: float = float("inf")  # the lowest and highest address of all its requests
    span_high: float = 0.0
    # atomics at the hottest L2 atomic unit (atomic_unit_of_line): its (warp request, line) passes, each
    # by the most lanes naming one of its addresses (they serialise) and its pass kind (PASS_KINDS)
    hot_line_ctas: int = 0          # sampled CTAs that touched the hottest unit
    atomic_requests_hot: float = 0.0  # (warp request, line) pairs that reached it
    atomic_hot_passes: tuple = ()   # ((lanes on one address, pass kind, pairs), ...) of those pairs
    atomic_line_chain: float = 0.0  # lanes on one address, summed over the pairs to the unit's busiest line
    # atomics over the whole sample: the slice work (one-address lanes, several-address line passes by
    # pass kind), and how many L2 atomic units (atomic_unit_of_line) a CTA touches with every atomic
    # site of the launch and how far they move per CTA index
    atomic_lanes_single: float = 0.0
    atomic_lanes_lone: float = 0.0   # ... of them, lanes alone on their line of the request (one address, one lane)
    atomic_multi_kinds: tuple = ()   # (pass kind, pairs) of the several-address pairs (PASS_KINDS)
    atomic_units_per_cta: float = 0.0
    atomic_unit_advance: float = 0.0
    partial_lines: int = 0          # stores: distinct lines it wrote part of a sector of, the kernel not reading it
    partial_sectors: int = 0        # ... and those sectors
    store_cycles: float = 0.0       # stores: LSU cycles of its requests, those issued back to back merged
    #                                 (store_run_cycles)


@dataclass
class Execution:
    function: object                # warpsim.sass.ir.SassFunction
    grid: tuple
    block: tuple
    sampled_ctas: list              # linear CTA ids that ran
    counts: list                    # per sampled CTA: array (warps, instructions) of issues
    lanes: list                     # per sampled CTA: array (warps, instructions) of active lanes issued
    memory: dict                    # instruction index -> SiteMemory
    footprint_read: int = 0         # distinct global bytes loaded by the sampled CTAs
    footprint_written: int = 0      # distinct global bytes stored
    allocation_bytes: int = 0       # bytes of the global allocations the kernel touched (caps the footprint)
    source: str = "sass"
    notes: list = field(default_factory=list)
    cta_work: object = None         # per grid CTA (linear id), the warp instructions it issued, in the
    #                                 recorder's units (PTX or SASS), when the whole launch ran; else None
    grid_counts: object = None      # per SASS instruction, its issues over the whole grid (a SASS run's)
    split_share: object = None      # per SASS instruction, the share of a guarded BRA's warp issues whose
    #                                 lanes went both to its label and on (a SASS run's; None: not known)
    slow_resume_share: object = None  # ... and of those splits inside the half an earlier split ran first

    @property
    def n_ctas(self) -> int:
        g = tuple(self.grid) + (1,) * (3 - len(self.grid))
        return g[0] * g[1] * g[2]

    @property
    def threads_per_cta(self) -> int:
        b = tuple(self.block) + (1,) * (3 - len(self.block))
        return b[0] * b[1] * b[2]

    @property
    def warps_per_cta(self) -> int:
        return -(-self.threads_per_cta // 32)

    @property
    def scale(self) -> float:
        return self.n_ctas / max(1, len(self.sampled_ctas))

    @property
    def work_scale(self) -> float:
        """The grid's mean work per CTA over the sample's (1 where only the sample ran): CTAs whose
        work varies (an escape-time loop over an image) can leave a few sampled ones far from it."""
        if self.cta_work is None:
            return 1.0
        sampled = float(np.mean(self.cta_work[list(self.sampled_ctas)]))
        return float(np.mean(self.cta_work)) / sampled if sampled > 0 else 1.0


def runs(values: np.ndarray) -> tuple:
    """(each value, how many times in a row) of an ascending array."""
    starts = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))
    return values[starts], np.diff(np.append(starts, len(values)))


class CtaWork(LaunchObserver):
    """Counts every CTA's issued warp instructions over a whole launch, in the units of the executor
    that ran it (Execution.cta_work), and with `instructions` given each SASS instruction's issues over
    the grid too (Execution.grid_counts): for a sample that recorded a few CTAs in detail."""

    def __init__(self, n_ctas: int, warps_per_cta: int, instructions: int | None = None):
        self.cta_work, self.warps_per_cta = np.zeros(n_ctas), warps_per_cta
        self.grid_counts = None if instructions is None else np.zeros(instructions)

    def block_executed(self, ctx, block, idx, warps):
        # `warps` holds each issuing warp once: one scatter-add, the cheapest count of a plain run's blocks
        np.add.at(self.cta_work, ctx.cta_ids[np.asarray(warps) // self.warps_per_cta], len(block.instructions))

    def compiled_rounds(self, ctx, record):
        ctas = ctx.cta_ids[np.arange(len(record.warp_issued)) // self.warps_per_cta]
        np.add.at(self.cta_work, ctas, record.warp_issued)

    def sass_block_issued(self, st, block, g, pred_on, next_pc):
        # the group's lanes ascend, so its warps and their CTA slots come in runs (no np.unique, which
        # hashes: it was the timing model's largest cost on short kernels of many CTAs)
        slots, warps = runs(g.warp_runs()[0] // self.warps_per_cta)
        self.cta_work[st.cta_ids[slots]] += warps * (block.end - block.start)
        if self.grid_counts is not None:
            self.grid_counts[block.start:block.end] += warps.sum()

    def sass_compiled_rounds(self, st, record):
        self.compiled_rounds(st, record)            # (both loops' records count each warp's issues)
        if self.grid_counts is not None:
            for b in record.blocks_run.tolist():
                start = int(record.block_start[b])
                self.grid_counts[start:start + int(record.n_steps[b])] += record.warp_count[b]

    def counted(self) -> dict:
        """Execution's cta_work and grid_counts keywords (None where nothing ran)."""
        return {"cta_work": self.cta_work if self.cta_work.any() else None, "grid_counts": self.grid_counts}


def as_grid(ex):
    """`ex` with each sampled CTA's issues of every instruction scaled to the grid's mean CTA where the
    whole SASS run counted them (grid_counts), or all alike by the grid's mean work per CTA where only
    that is known (cta_work): a few sampled CTAs of a grid whose loops run longer in some places (an
    escape-time loop over an image) then stand for the grid's work. ex itself where the sample's work
    is within 5% of the grid's mean or nothing was counted."""
    sampled = np.sum([c.sum(axis=0) for c in ex.counts], axis=0) / max(1, len(ex.counts))
    if ex.grid_counts is not None:
        mean = np.asarray(ex.grid_counts, float) / max(1, ex.n_ctas)
        ratio = np.divide(mean, sampled, out=np.ones_like(mean), where=sampled > 0)
        work, how = float(mean.sum()) / max(1.0, float(sampled.sum())), "instruction by instruction"
    elif ex.cta_work is not None:           # the whole run's work per CTA only (the PTX run's, say)
        work = ex.work_scale
        ratio, how = work, "all instructions alike"
    else:
        return ex
    if abs(work - 1.0) <= 0.05:
        return ex
    note = f"the grid's CTAs issued {work:.2f}x the sampled CTAs' mean: their counts scaled so, {how}"
    return replace(ex, counts=[c * ratio for c in ex.counts], lanes=[v * ratio for v in ex.lanes],
                   notes=ex.notes + [note])


KINDS = {"ld": "load", "load": "load", "st": "store", "store": "store"}   # anything else is an atomic
# Atomics contend per L2 atomic unit. A 1 KB region of addresses is served by two units, its 256-byte
# blocks alternating between them: REDs over a 512-byte chunk's four lines took half the time of those
# over two lines of one half, over eight adjacent lines (1 KB) as long as over four, over two lines 512
# bytes apart as long as over one line, over four lines 512 bytes apart half that (fifty-sixth to
# fifty-eighth batches, an H100; a histogram of 128 bins took as long a request as one of 64). For a
# contiguous range the units are its 512-byte chunks, as on the H200 (one lane per warp on 1, 2, 8, 32
# lines 128 B apart ran at 1.42, 1.67, 0.82, 0.19 cycles per request: microbench2.json,
# red_s32_1_lane_*).
def atomic_unit_of_line(lines: np.ndarray) -> np.ndarray:
    """The L2 atomic unit of each 128-byte line (its address >> 7)."""
    return ((lines >> 3) << 1) | ((lines >> 1) & 1)


IN_STEP_WINDOW = 16            # CTAs read a shared sector in step within 1 / IN_STEP_WINDOW of the site's passes
# A (warp request, line) pass of atomics costs its unit by the sectors it names, 1 to 4, and less where
# it names the whole line's 128 bytes (PASS_WHOLE_LINE): the presets' atomic_pass_cycles_*.
PASS_WHOLE_LINE = 5
PASS_KINDS = (1, 2, 3, 4, PASS_WHOLE_LINE)
FULL_PASS_BYTES = 128


@functools.cache
def pass_weights() -> np.ndarray:
    """By pass kind, what an integer pass costs its unit in same-address lanes (the H200 preset's
    atomic_pass_cycles_int over atomic_lane_cycles_int): how the hottest unit is picked, whatever the card."""
    h200 = gpu_preset("h200")
    weights = np.zeros(max(PASS_KINDS) + 1)
    for kind, cycles in zip(PASS_KINDS, h200.atomic_pass_cycles_int):
        weights[kind] = cycles / h200.atomic_lane_cycles_int
    return weights


# ---------------------------------------------------------------- address arithmetic

HEAP_KEY_SPAN = 1 << 39        # heap offsets below this are their own key; other addresses fold above it


def address_offsets(addrs: np.ndarray) -> np.ndarray:
    """Addresses as int64 offsets below 2**40, which leaves room for a warp or CTA in a key: a heap
    address is its offset from GLOBAL_BASE; another (a registered host range's) is 2**39 plus its
    low 39 bits, so sectors and lines keep their boundaries (two host ranges 512 GB apart would
    share keys: a timing approximation only)."""
    a = addrs.astype(np.int64) - GLOBAL_BASE
    outside = (a < 0) | (a >= HEAP_KEY_SPAN)
    if outside.any():
        a = np.where(outside, HEAP_KEY_SPAN | (addrs.astype(np.int64) & (HEAP_KEY_SPAN - 1)), a)
    return a




def global_request_stats(warps: np.ndarray, offsets: np.ndarray, nbytes: int) -> tuple:
    """(requests, sectors, lines, sector ids) of one warp-level global access, its lanes' addresses
    as address_offsets (below 2**40: room for the warp in a key)."""
    a = offsets
    if nbytes > 32 or ((a >> 5) != ((a + nbytes - 1) >> 5)).any():
        pieces = -(-nbytes // 32) + 1
        last = a + nbytes - 1
        a = np.minimum((a[:, None] + 32 * np.arange(pieces)).ravel(), np.repeat(last, pieces))
        warps = np.repeat(warps, pieces)
    sec = a >> 5
    w = warps.astype(np.int64) << 40
    return distinct_count(warps), distinct_count(w | sec), distinct_count(w | (a >> 7)), sec


SPREAD_DOUBLINGS = 4       # a gap of 16 chunks (1 KB, the thirty-first batch's widest) or more counts as 16 [assumed]


def chunk_keys(warps: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The distinct (warp << 40 | 64-byte chunk) keys of a warp-level access (its address_offsets),
    sorted: what chunk_spread and scattered_lines read (the recorder makes them once an access)."""
    return unique_ascending((warps.astype(np.int64) << 40) | (offsets >> 6))


def chunk_spread(warps: np.ndarray, addrs: np.ndarray, keys: np.ndarray | None = None) -> tuple:
    """(gaps, their doublings) between the distinct 64-byte chunks each warp's request touches, in
    address order: a gap of g chunks counts log2(g) doublings, at most SPREAD_DOUBLINGS. HBM moves a
    chunk at a time, and serves the same chunks slower the farther apart they lie (the thirty-first
    batch). `keys`: chunk_keys of the access, where the caller has them."""
    keys = chunk_keys(warps, address_offsets(addrs)) if keys is None else keys
    same = (keys[1:] >> 40) == (keys[:-1] >> 40)
    gaps = (keys[1:] - keys[:-1])[same]
    return len(gaps), float(np.minimum(np.log2(np.maximum(gaps, 1)), SPREAD_DOUBLINGS).sum())


def scattered_lines(warps: np.ndarray, addrs: np.ndarray, chunks: np.ndarray | None = None) -> int:
    """Distinct lines of the warp requests whose lines lie at random: four or more lines whose gaps
    (from each line to the next) take three values in four or more (a gather through an index, where
    two gaps are alike by chance only; a tile's rows, whose gaps repeat, are not). The L2 serves such
    lines at 78.6 a clock and merges none of them with other requests (thirty-fifth batch); lines at
    a stride from random bases run as fast (thirty-sixth batch), which the model does not take in.
    `chunks`: chunk_keys of the access, where the caller has them (two chunks make a line)."""
    chunks = chunk_keys(warps, address_offsets(addrs)) if chunks is None else chunks
    keys = ((chunks >> 40) << 40) | ((chunks & ((1 << 40) - 1)) >> 1)      # still sorted
    keys = keys[run_starts(keys)]
    if len(keys) < 4:
        return 0
    warp = keys >> 40
    starts = run_starts(warp)
    counts = np.diff(np.append(starts, len(keys)))
    if not (counts >= 4).any():                 # (most requests: one to four lines)
        return 0
    inside = warp[1:] == warp[:-1]
    gaps = (keys[1:] - keys[:-1])[inside]
    owner = np.searchsorted(starts, np.flatnonzero(inside), side="right") - 1     # each gap's request
    kinds = np.unique((owner.astype(np.int64) << 40) | gaps) >> 40                # distinct gaps, per request
    distinct = np.bincount(kinds, minlength=len(starts))
    random = (counts >= 4) & (4 * distinct >= 3 * (counts - 1))
    return int(counts[random].sum())


def store_run_cycles(run: list) -> float:
    """LSU cycles of stores (global or local) a warp group issued back to back to the same sectors, `run` =
    [((warp << 40) | byte offset keys, bytes each), ...]: a cycle for each sector their bytes fill
    together, two for each they write only part of (nineteenth batch, mb19_scatter from 1 or 33 SMs
    at 32 warps each, every request to other lines than the last: 4.0 cycles a request of one line's
    four sectors and of four lines' one sector each, 16.0 of eight half sectors, 64.0 of 32 four-byte
    pieces of 32 lines; set 1's cub_block_scan, whose four stores in a row each write a quarter of
    the same 16 sectors, ran at the pace of 16 filled sectors, not of 64 partial ones)."""
    keys = np.concatenate([a for a, _ in run])             # (a lane's store, at most 16 aligned bytes,
    sizes = np.concatenate([np.full(len(a), n) for a, n in run])     # lies in one sector)
    keys, first = np.unique(keys, return_index=True)       # a byte address written twice counts once
    sector, written = np.unique(keys >> 5, return_inverse=True)
    filled = np.bincount(written, weights=sizes[first]) >= 32
    return float(np.count_nonzero(filled) + 2 * np.count_nonzero(~filled))


def shared_request_wavefronts(warps: np.ndarray, addrs: np.ndarray, lanes: np.ndarray, nbytes: int,
                              load: bool = True) -> int:
    """Shared-pipe passes of a shared access: its wavefronts (machine.counting.shared_bank_wavefronts).
    A warp's 8- or 16-byte load of up to 8 elements is 1 or 2 of them, though every lane receives its
    8 or 16 bytes (the fiftieth batch, an H100: 16-byte loads of 1, 2, 4 or 8 elements a warp took
    2.2 cycles a load an SM, of 32 elements 4.1; 8-byte ones 1.85 and 2.07)."""
    return shared_bank_wavefronts(warps, lanes, addrs.astype(np.int64) & 0xFFFFFF, nbytes, load)[0]


def atomic_line_load(warps: np.ndarray, offsets: np.ndarray, nbytes) -> tuple:
    """Per (warp, 128-byte line) an atomic's lanes (their address_offsets) touch: (line id, largest
    count of lanes on one address, distinct addresses, warp, pass kind: the sectors it names,
    PASS_WHOLE_LINE where its addresses cover the line's 128 bytes)."""
    a = offsets
    uniq_addr, counts = np.unique((warps.astype(np.int64) << 48) | (a & ((1 << 48) - 1)), return_counts=True)
    addr_warp, addr = uniq_addr >> 48, uniq_addr & ((1 << 48) - 1)
    wl_of_addr = (addr_warp << 40) | (addr >> 7)
    wl, inv, n_addresses = np.unique(wl_of_addr, return_inverse=True, return_counts=True)
    same = np.zeros(len(wl), dtype=np.int64)
    np.maximum.at(same, inv, counts)
    new_sector = np.ones(len(uniq_addr), dtype=bool)
    new_sector[1:] = (uniq_addr[1:] >> 5) != (uniq_addr[:-1] >> 5)
    sectors = np.bincount(inv, weights=new_sector, minlength=len(wl)).astype(np.int64)
    word = int(np.max(nbytes)) if np.ndim(nbytes) else int(nbytes)
    kind = np.where(n_addresses * word >= FULL_PASS_BYTES, PASS_WHOLE_LINE, sectors)
    return wl & ((1 << 40) - 1), same, n_addresses, wl >> 40, kind


def unique_rows(*columns: np.ndarray) -> tuple:
    """(where each distinct row of the non-negative integer `columns` first occurs, how many times it
    occurs), rows in ascending order: np.unique(np.stack(columns), axis=1, return_index=True,
    return_counts=True)[1:], from one int64 key where the columns' bits fit in 63 (a sort of one key,
    not of rows, and none where the rows already ascend: 2 of the 4 ms the model's memory summary
    took on a small launch)."""
    widths = [int(c.max()).bit_length() if len(c) else 0 for c in columns]
    if sum(widths) > 63:
        return np.unique(np.stack(columns), axis=1, return_index=True, return_counts=True)[1:]
    key = np.zeros(len(columns[0]), dtype=np.int64)
    for column, width in zip(columns, widths):
        key = (key << width) | column.astype(np.int64)
    return unique_ascending(key, return_index=True, return_counts=True)[1:]


def _chunk_spread(chunk: np.ndarray, cta: np.ndarray) -> tuple:
    """(distinct chunks per sampled CTA, chunks the lowest one moves per CTA index): CTAs resident
    together are consecutive, so a wave of W of them touches about first + advance * (W - 1). Where
    sampled CTAs far apart share chunks, every wave works on the sample's chunks: (those, 0)."""
    ctas, inv = np.unique(cta, return_inverse=True)
    per_cta = np.array([distinct_count(chunk[inv == k]) for k in range(len(ctas))])
    lowest = np.full(len(ctas), np.iinfo(np.int64).max)
    np.minimum.at(lowest, inv, chunk)
    if len(ctas) < 2:
        return float(per_cta.mean()), 0.0
    everywhere = distinct_count(chunk)
    if everywhere < per_cta.sum():      # CTAs far apart share chunks: the launch folds onto these
        return float(everywhere), 0.0
    slopes = np.abs(np.diff(lowest)) / np.diff(ctas)
    return float(per_cta.mean()), float(np.median(slopes))


def _rereads(keys: np.ndarray, warps: np.ndarray, calls: np.ndarray, sites: np.ndarray, is_load: np.ndarray) -> dict:
    """site -> ((lines, sectors), ...): of the loads' (warp request, sector) accesses, those re-reading
    a sector their CTA touched at an earlier issue, counted by how many distinct lines the CTA touched
    in between, loads and stores (stores take L1 lines too: the nineteenth batch's covariance-style
    loop, whose loads' lines and stored lines together overflow L1, kept 62% of its re-reads). The
    columns are per lane of the recorder's loads and stores, in the order they ran."""
    # one access per (issue, warp, sector), in issue order (a warp's slot names its CTA)
    within = (warps << (CTA_SHIFT - 5)) | (keys & SECTOR_BITS)
    ranked = _issue_order(calls, within)
    first = np.ones(len(ranked), dtype=bool)
    first[1:] = (calls[ranked][1:] != calls[ranked][:-1]) | (within[ranked][1:] != within[ranked][:-1])
    requested = ranked[first]
    by_cta = requested[np.argsort(keys[requested] >> CTA_SHIFT, kind="stable")]
    distances, previous = stack_distances(keys[by_cta])
    call = calls[by_cta]
    # an access whose sector was last touched in the same issue waits on that fetch (in_step_sectors)
    again = is_load[by_cta] & (previous >= 0) & (call[np.maximum(previous, 0)] != call)
    if not again.any():
        return {}
    site, distance = sites[by_cta][again], distances[again]
    first, counts = unique_rows(site, bucket_steps(distance).astype(np.int64))
    out: dict = {}
    for site, lines, n in zip(site[first].tolist(), bucket(distance[first]).tolist(), counts.tolist()):
        out.setdefault(int(site), []).append((float(lines), int(n)))
    return {site: tuple(v) for site, v in out.items()}


def _issue_order(calls: np.ndarray, within: np.ndarray) -> np.ndarray:
    """np.lexsort((within, calls)): the order of the rows by issue, then by (warp, sector) within one;
    no sort where they come so (each issue's lanes in order, their addresses rising)."""
    later = calls[1:] > calls[:-1]
    if (later | ((calls[1:] == calls[:-1]) & (within[1:] >= within[:-1]))).all():
        return np.arange(len(calls))
    return np.lexsort((within, calls))


# ---------------------------------------------------------------- recorders

class _Recorder(LaunchObserver):
    """Shared bookkeeping of the SASS and PTX recorders (per sampled CTA counts, memory statistics)."""

    def __init__(self, n_instructions: int, warps_per_cta: int):
        self.n_instructions = n_instructions
        self.warps_per_cta = warps_per_cta
        self.counts: dict = {}            # cta id -> (warps, n) array
        self.lanes: dict = {}
        self.memory: dict = {}
        self._read_sectors: list = []
        self._written_sectors: list = []
        self._stores: dict = {}           # site -> list of (byte addresses, bytes each) of its global stores
        self._cta_order: list = []        # ((cta, sector) keys, site, warps, is a load, pass) of loads and stores,
        #                                   in order; a lane's pass: how many times its warp ran the site before
        self._passes: dict = {}           # site -> times each warp slot ran it (indexed by slot)
        self._atomic: dict = {}           # site -> list of (line, same, addresses, cta, pass kind)
        self._store_run: list = []        # (site, (warp, byte address) keys, bytes each, sectors) of stores
        #                                   back to back to the same sectors

    def split_share(self):
        """Execution.split_share: None where the recorder does not see where a branch's lanes go."""
        return None

    def slow_resume_share(self):
        """Execution.slow_resume_share: None likewise."""
        return None

    def _matrices(self, cta_ids):
        out = []
        for c in cta_ids:
            c = int(c)
            if c not in self.counts:
                self.counts[c] = np.zeros((self.warps_per_cta, self.n_instructions))
                self.lanes[c] = np.zeros((self.warps_per_cta, self.n_instructions))
            out.append(c)
        return out

    def record_memory(self, site_index: int, space: str, kind: str, warp_slots, ctas, lanes, addrs, nbytes):
        if space not in ("global", "shared", "local"):
            return
        kind = KINDS.get(kind, "atomic")
        rec = self.memory.get(site_index)
        if rec is None:
            rec = self.memory[site_index] = SiteMemory(space, kind)
        if space == "shared":
            rec.requests += distinct_count(warp_slots)
            rec.wavefronts += shared_request_wavefronts(warp_slots, addrs, lanes, nbytes, kind == "load")
            return
        if space == "local":                    # where the hardware keeps the lanes' words
            addrs, of_lane, nbytes = local_hardware_bytes(lanes, addrs, nbytes)
            warp_slots = np.asarray(warp_slots)[of_lane]
        warps, offsets = np.asarray(warp_slots), address_offsets(addrs)
        requests, sectors, lines, sec = global_request_stats(warps, offsets, nbytes)
        rec.requests += requests
        rec.sectors += sectors
        rec.lines += lines
        rec.data_bytes += int(np.sum(nbytes)) if np.ndim(nbytes) else int(nbytes) * len(offsets)
        if kind == "store":                     # global and local stores take the one store path
            keys = unique_ascending((warps.astype(np.int64) << 40) | offsets)
            sectors = unique_ascending(keys >> 5)
            if self._store_run and not np.array_equal(sectors, self._store_run[0][3]):
                self._end_store_run()           # stores to other sectors are not combined
            self._store_run.append((site_index, keys, nbytes, sectors))
        else:
            self._end_store_run()
        if space != "global":
            return
        self._global_pattern(rec, warps, offsets)     # (an atomic reads its lines as a load does)
        if kind in ("load", "store"):
            self._cta_order.append(self._sector_requests(site_index, warps, ctas, offsets >> 5, kind == "load"))
        # (a run of lanes on one sector counts once: finish_memory counts distinct sectors); an atomic
        # reads its sector before it writes it (forty-seventh batch: REDs a line a lane over 256 MB read
        # 207 MB from HBM and wrote 134 MB under ncu)
        touched = sec[run_starts(sec)]
        if kind != "store":
            self._read_sectors.append(touched)
        if kind != "load":
            self._written_sectors.append(touched)
        if kind == "store":
            self._stores.setdefault(site_index, []).append((offsets, nbytes))
        if kind == "atomic":
            line, same, n_addresses, warp, kind = atomic_line_load(warps, offsets, nbytes)
            uw, at = unique_ascending(warps, return_index=True)
            cta_of_warp = ctas[at][np.searchsorted(uw, warp)]
            self._atomic.setdefault(site_index, []).append((line, same, n_addresses, cta_of_warp, kind))

    @staticmethod
    def _global_pattern(rec: SiteMemory, warps: np.ndarray, offsets: np.ndarray) -> None:
        """Add a global load's or store's chunk gaps and scattered lines (with its site's span) to `rec`."""
        chunks = chunk_keys(warps, offsets)
        gaps, doublings = chunk_spread(warps, None, chunks)
        rec.chunk_gaps += gaps
        rec.gap_doublings += doublings
        rec.span_low, rec.span_high = min(rec.span_low, float(offsets.min())), max(rec.span_high, float(offsets.max()))
        at_random = scattered_lines(warps, None, chunks)
        if at_random:
            rec.scattered_lines += at_random
            rec.low, rec.high = min(rec.low, float(offsets.min())), max(rec.high, float(offsets.max()))

    def _sector_requests(self, site_index: int, warps: np.ndarray, ctas: np.ndarray, sectors: np.ndarray,
                         is_load: bool) -> tuple:
        """A global load's or store's entry of _cta_order: one row per run of lanes of a warp on one
        sector (finish_memory counts (issue, warp, sector) accesses, and lanes in order come in such
        runs: a coalesced 4-byte access has 8 a sector)."""
        keep = run_starts((warps.astype(np.int64) << (CTA_SHIFT - 5)) | sectors)
        warps = warps[keep]
        return ((ctas[keep].astype(np.int64) << CTA_SHIFT) | sectors[keep], site_index, warps, is_load,
                self._site_pass(site_index, warps))

    def _end_store_run(self):
        """Charge the stores a warp group issued back to back to the same sectors (no load or atomic
        between) their LSU cycles, shared equally by their requests (store_run_cycles)."""
        if not self._store_run:
            return
        cycles = store_run_cycles([(keys, n) for _, keys, n, _ in self._store_run])
        for site, _, _, _ in self._store_run:
            self.memory[site].store_cycles += cycles / len(self._store_run)
        self._store_run = []

    def finish_memory(self) -> tuple:
        self._end_store_run()
        # L1 misses: a CTA's first touch of a sector, charged to the load that touched it first
        order = self._cta_order
        is_load = np.array([entry[3] for entry in order], dtype=bool)
        if is_load.any():
            sizes = np.array([len(entry[0]) for entry in order])
            columns = (np.concatenate([entry[0] for entry in order]),
                       np.concatenate([entry[2] for entry in order]).astype(np.int64),
                       np.repeat(np.arange(len(order)), sizes),
                       np.repeat(np.array([entry[1] for entry in order]), sizes),
                       np.repeat(is_load, sizes))
            rereads = _rereads(*columns)
            keys, warps, calls, sites = (c[columns[-1]] for c in columns[:-1])
            passes = np.concatenate([entry[4] for entry in order])[columns[-1]]
            touched, first, which = np.unique(keys, return_index=True, return_inverse=True)
            per_site = np.bincount(sites[first])
            # how many sampled CTAs read each first touch's sector
            _, of_sector, readers = np.unique(touched & SECTOR_BITS, return_inverse=True, return_counts=True)
            sharing = readers[of_sector]
            # a sector another warp of the CTA first read in the same issue of the same load: the
            # warps run that load in step, so this one waits on the same miss rather than hitting L1
            # (a warp reaching the load later, at another iteration, finds the sector in L1)
            requested = unique_rows(calls, warps, which)[0]
            first_of = first[which[requested]]
            in_step = (calls[first_of] == calls[requested]) & (warps[first_of] != warps[requested])
            per_site_in_step = np.bincount(sites[requested][in_step], minlength=len(per_site))
            shared = sharing >= 2
            by_readers = np.zeros((int(sites.max()) + 1, int(sharing.max()) + 1), dtype=np.int64)
            np.add.at(by_readers, (sites[first][shared], sharing[shared]), 1)
            # the CTAs reading a shared sector in step: each first read it within a sixteenth of the
            # site's passes of the others (the thirteenth batch's CTAs, starting at chunks of their own
            # in a region of 16 they loop over, were merged as those starting together were)
            low = np.full(len(readers), np.iinfo(np.int64).max)
            high = np.full(len(readers), -1)
            np.minimum.at(low, of_sector, passes[first])
            np.maximum.at(high, of_sector, passes[first])
            site_passes = np.zeros(int(sites.max()) + 1, dtype=np.int64)
            for site, seen in self._passes.items():
                if site < len(site_passes):
                    site_passes[site] = seen.max()
            window = site_passes[sites[first]] // IN_STEP_WINDOW
            in_step = shared & ((high - low)[of_sector] <= window)
            by_readers_in_step = np.zeros_like(by_readers)
            np.add.at(by_readers_in_step, (sites[first][in_step], sharing[in_step]), 1)
            for site in np.unique(sites).tolist():
                self.memory[site].cta_unique_sectors = int(per_site[site]) if site < len(per_site) else 0
                self.memory[site].shared_first = tuple(int(n) for n in by_readers[site]) if by_readers[site].any() else ()
                self.memory[site].in_step_first = tuple(int(n) for n in by_readers_in_step[site]) \
                    if by_readers_in_step[site].any() else ()
                n_shared = int(by_readers[site].sum())
                self.memory[site].in_step_share = int(by_readers_in_step[site].sum()) / n_shared if n_shared else 1.0
                self.memory[site].in_step_sectors = int(per_site_in_step[site]) if site < len(per_site_in_step) else 0
                self.memory[site].rereads = rereads.get(site, ())
        self._finish_atomics()
        self._partial_lines()
        # HBM moves 64-byte blocks (a cold stride-16 float copy reads 2x its sectors on the H200)
        read = distinct_count(np.concatenate(self._read_sectors) >> 1) * 64 if self._read_sectors else 0
        written = distinct_count(np.concatenate(self._written_sectors)) * 32 if self._written_sectors else 0
        return read, written

    def _site_pass(self, site_index: int, warps: np.ndarray) -> np.ndarray:
        """Per lane, how many times its warp ran the site before (counted per warp slot)."""
        slots, of_lane = unique_ascending(warps, return_inverse=True)
        seen = self._passes.get(site_index)
        if seen is None or len(seen) <= slots[-1]:
            grown = np.zeros(int(slots[-1]) + 1, dtype=np.int64)
            if seen is not None:
                grown[:len(seen)] = seen
            seen = self._passes[site_index] = grown
        before = seen[slots]
        seen[slots] += 1
        return before[of_lane]

    def _finish_atomics(self):
        """Per atomic site, its lanes and line passes, and those at the launch's hottest L2 atomic unit
        (atomic_unit_of_line). The unit is the hottest over every site together: the sites of a loop
        unrolled by ptxas, each adding to the same counter, queue at one L2 slice (thirty-seventh batch:
        16 REDs a thread to one word, unrolled into 16 sites, run at the one-address rate per lane of
        them all: 1.45 cycles a lane for 32- and 64-bit integers, 3.5 for f32 and f64)."""
        if not self._atomic:
            return
        sites = {}
        for site, parts in self._atomic.items():
            line = np.concatenate([c[0] for c in parts])
            same = np.concatenate([c[1] for c in parts]).astype(np.int64)
            multi = np.concatenate([c[2] for c in parts]) > 1
            cta = np.concatenate([c[3] for c in parts])
            kind = np.concatenate([c[4] for c in parts])
            sites[site] = (atomic_unit_of_line(line), line, same, multi, cta, kind)
        units, lines, same_all, ctas, kinds = (np.concatenate([v[k] for v in sites.values()]) for k in (0, 1, 2, 4, 5))
        weight = np.maximum(same_all, pass_weights()[kinds])
        distinct, inv = np.unique(units, return_inverse=True)
        hottest = distinct[int(np.argmax(np.bincount(inv, weights=weight)))]
        # the unit's busiest line by lanes on one address, over every site
        in_unit = units == hottest
        ids, of = np.unique(lines[in_unit], return_inverse=True)
        busiest = ids[int(np.argmax(np.bincount(of, weights=same_all[in_unit])))]
        # the units every site's atomics reach together: they share the slices
        spread = _chunk_spread(units, ctas)
        for site, (unit, line, same, multi, cta, kind) in sites.items():
            hot = unit == hottest
            rec = self.memory[site]
            rec.hot_line_ctas = len(np.unique(cta[hot]))
            rec.atomic_requests_hot = float(hot.sum())
            pairs, counts = np.unique(np.stack([same[hot], kind[hot]]), axis=1, return_counts=True)
            rec.atomic_hot_passes = tuple((int(k), int(p), float(n)) for (k, p), n in zip(pairs.T, counts))
            rec.atomic_line_chain = float(same[line == busiest].sum())
            rec.atomic_lanes_single = float(same[~multi].sum())
            rec.atomic_lanes_lone = float(((same == 1) & ~multi).sum())
            rec.atomic_multi_kinds = tuple((int(p), float(n))
                                           for p, n in zip(*np.unique(kind[multi], return_counts=True)))
            rec.atomic_units_per_cta, rec.atomic_unit_advance = spread

    def _partial_lines(self):
        """Per store site, the lines holding a sector the launch writes only part of and never reads:
        the L2 fills such a sector from HBM before merging the write (set 2's strided stores: ncu's
        dram__bytes_read grows by 32 bytes per partly written sector, and the time by a line's)."""
        if not self._stores:
            return
        site_of, offsets, sizes = [], [], []
        for site, parts in self._stores.items():
            for offs, nbytes in parts:
                offsets.append(offs)
                sizes.append(np.broadcast_to(np.asarray(nbytes, dtype=np.int64), offs.shape))
                site_of.append(np.full(len(offs), site))
        offs = np.concatenate(offsets)
        size = np.concatenate(sizes)
        site = np.concatenate(site_of)
        unique, first = unique_ascending(offs, return_index=True)
        sectors, inv = unique_ascending(unique >> 5, return_inverse=True)
        covered = np.bincount(inv, weights=size[first])
        partial = covered < 32
        if self._read_sectors:
            partial &= ~np.isin(sectors, np.concatenate(self._read_sectors))
        if not partial.any():
            return
        lines = sectors[partial] >> 2
        owner = site[first][unique_ascending(inv, return_index=True)[1]][partial]
        for s in np.unique(owner).tolist():
            self.memory[s].partial_lines = distinct_count(lines[owner == s])
            self.memory[s].partial_sectors = int(np.count_nonzero(owner == s))


class SassRecorder(_Recorder):
    """Observer of the SASS executor (warpsim.sass.executor): per-warp issues and memory statistics."""

    def __init__(self, program, warps_per_cta: int):
        super().__init__(len(program.instructions), warps_per_cta)
        self.program = program
        self._index = {id(ins): k for k, ins in enumerate(program.instructions)}
        self._batch = None                # the batch (SassState) whose CTAs _row_of_warp maps
        self._row_of_warp = None          # its warp slots -> rows of its recorded CTAs' matrices
        n = len(program.instructions)
        self._branched = np.zeros(n)      # per guarded BRA: its warp issues, and those that split the warp
        self._split = np.zeros(n)
        self._resumed = np.zeros(n)       # ... and those splits that make a slow resume (sass/compiled/resumes.py)
        self.counts_splits = True         # from the groups it is given (False: its owner calls count_splits)
        self._guarded_branch_end = np.array([b.control is not None and b.control.ins.opcode == "BRA" and
                                             b.guards[-1] is not None for b in program.blocks], dtype=bool)

    def start_batch(self, st, slots) -> None:
        """Record the CTAs of batch slots `slots` of batch `st`: their matrices become rows of one array,
        so an issue adds to all its warps' rows at once. An issue of another batch, or of a CTA not among
        them, starts a batch with its CTAs added."""
        self._batch = st
        per_cta, n = self.warps_per_cta, self.n_instructions
        counts, lanes = np.zeros((len(slots), per_cta, n)), np.zeros((len(slots), per_cta, n))
        self._row_of_warp = np.full(st.n_warps, -1, dtype=np.int64)
        for k, slot in enumerate(np.asarray(slots).tolist()):
            cid = int(st.cta_ids[slot])
            if cid in self.counts:        # (a CTA seen before keeps what it had)
                counts[k], lanes[k] = self.counts[cid], self.lanes[cid]
            self.counts[cid], self.lanes[cid] = counts[k], lanes[k]
            self._row_of_warp[slot * per_cta:(slot + 1) * per_cta] = k * per_cta + np.arange(per_cta)
        self._batch_counts, self._batch_lanes = counts.reshape(-1, n), lanes.reshape(-1, n)

    def sass_block_issued(self, st, block, g, pred_on, next_pc):
        warps, _, lanes = g.warp_runs()
        lanes = lanes[:, None]
        if self._batch is not st:
            self.start_batch(st, np.unique(warps // self.warps_per_cta))
        rows = self._row_of_warp[warps]
        if (rows < 0).any():              # a CTA outside the batch's recorded ones: record it too
            self.start_batch(st, np.unique(np.concatenate((np.flatnonzero(self._row_of_warp >= 0) //
                                                           self.warps_per_cta, warps // self.warps_per_cta))))
            rows = self._row_of_warp[warps]
        self._batch_counts[rows, block.start:block.end] += 1
        self._batch_lanes[rows, block.start:block.end] += lanes
        self._convergence_issues(st, block, g, warps, next_pc)

    def logged_rounds(self, st, record, warps) -> None:
        """What the compiled round loop's log says the batch warps `warps` issued (their log rows in
        order), counted as sass_block_issued counts each issue: a block's instructions and their lanes,
        a lone BSYNC once per group arriving (its log of arrivals) rather than once per issue."""
        if self._batch is not st:
            self.start_batch(st, np.unique(warps // self.warps_per_cta))
        n_blocks, rows = len(record.n_steps), len(warps)
        columns = record.log_block.shape[1]
        logged = np.arange(columns) < record.log_len[:rows, None]          # (row, issue) entries written
        keys = (np.arange(rows)[:, None] * (n_blocks + 1) + record.log_block[:rows])[logged]
        issued = np.bincount(keys, minlength=rows * (n_blocks + 1)).reshape(rows, -1).astype(float)
        lanes = np.bincount(keys, weights=record.log_lanes[:rows][logged],
                            minlength=rows * (n_blocks + 1)).reshape(rows, -1)
        targets = self._row_of_warp[warps]
        at = self._instruction_blocks(record)
        self._batch_counts[targets] += issued[:, at]
        self._batch_lanes[targets] += lanes[:, at]
        ends = record.block_start + record.n_steps - 1
        branching = self._guarded_branch_end[:n_blocks] & (record.warp_count > 0)
        np.add.at(self._branched, ends[branching], record.warp_count[branching])
        np.add.at(self._split, ends[branching], record.split[branching])
        np.add.at(self._resumed, ends[branching], record.resumed[branching])
        lone_bsync = (record.n_steps == 1) & bsync_starts(st.program)[record.block_start]
        self._batch_counts[targets[:, None], record.block_start[lone_bsync]] -= issued[:, :n_blocks][:, lone_bsync]
        arrived = np.arange(record.log_arrival.shape[1]) < record.arrival_len[:rows, None]
        np.add.at(self._batch_counts, (np.broadcast_to(targets[:, None], arrived.shape)[arrived],
                                       record.log_arrival[:rows][arrived]), 1)

    def _instruction_blocks(self, record) -> np.ndarray:
        """The loop block of each instruction (len(blocks) for none), kept per loop table."""
        kept = getattr(self, "_blocks_of_table", None)
        if kept is None or kept[0] is not record.table:
            at = np.full(self.n_instructions, len(record.n_steps))
            for b, (start, steps) in enumerate(zip(record.block_start.tolist(), record.n_steps.tolist())):
                at[start:start + steps] = b
            kept = self._blocks_of_table = (record.table, at)
        return kept[1]

    def _convergence_issues(self, st, block, g, warps, next_pc):
        """The issues of sass/issues.py: a BSYNC counts once per group of lanes arriving (not once
        when they go on together), a BRX once per target of each warp."""
        extra = []
        if block.end - block.start == 1 and bsync_starts(st.program)[block.start]:
            extra.append((block.start, warps, -1))
        departures = Departures(st, g, next_pc)
        if self.counts_splits:
            self.count_splits(st, block, g, next_pc, departures)
        for target, arrived in departures.bsync_arrivals(st.program):
            extra.append((target, arrived, 1))
        control = block.control
        if control is not None and control.ins.opcode == "BRX" and len(g.idx) > 1:
            brx_warps, k, _, _ = brx_targets(g.idx, next_pc)
            if (k > 1).any():
                extra.append((block.end - 1, brx_warps, k - 1))
        for index, slots, add in extra:
            cta_slot = slots // self.warps_per_cta
            adds = np.broadcast_to(add, slots.shape)
            for cs in np.unique(cta_slot):
                cid = self._matrices([st.cta_ids[cs]])[0]
                sel = cta_slot == cs
                np.add.at(self.counts[cid][:, index], slots[sel] % self.warps_per_cta, adds[sel])

    def count_splits(self, st, block, g, next_pc, departures=None) -> None:
        """A guarded BRA's warp issues and those that split the warp (split_share), of an issued group of
        every warp of the batch, as the round loop's record counts them (SassTimingRecorder calls it
        with the whole group, the sampled CTAs' and the rest, so both give one share). departures: the
        group's Departures where the caller has them (else made here, for a guarded BRA only)."""
        if self._guarded_branch_end[block.index]:
            departures = departures if departures is not None else Departures(st, g, next_pc)
            self._branched[block.end - 1] += len(g.warp_runs()[0])
            if not departures.uniform:
                self._split[block.end - 1] += departures.split_warps()
                self._resumed[block.end - 1] += note_splits(st, g, next_pc != block.end)

    def split_share(self) -> np.ndarray:
        """Execution.split_share: per guarded BRA, the share of its warp issues that split the warp."""
        return self._share(self._split)

    def slow_resume_share(self) -> np.ndarray:
        """Execution.slow_resume_share: per guarded BRA, the share of its warp issues that split the warp
        inside the half an earlier split ran first (sass/compiled/resumes.py)."""
        return self._share(self._resumed)

    def _share(self, events: np.ndarray) -> np.ndarray:
        return np.divide(events, self._branched, out=np.zeros_like(events), where=self._branched > 0)

    def sass_memory_access(self, st, ins, space, kind, idx, addrs, size):
        slots = idx >> 5
        ctas = st.cta_ids[slots // self.warps_per_cta]
        self.record_memory(self._index[id(ins)], space, kind, slots, ctas, idx & 31, addrs, size)


class PtxRecorder(_Recorder):
    """Observer of the PTX run: per-warp block counts, turned into SASS instruction counts by PTX line."""

    def __init__(self, program, function, warps_per_cta: int):
        super().__init__(len(function.instructions), warps_per_cta)
        self.ptx_program = program
        self.function = function
        self.n_blocks = len(program.blocks)
        self.block_counts: dict = {}       # cta -> (warps, ptx blocks)
        self.block_lanes: dict = {}
        self._sass_of_line: dict = {}
        for k, ins in enumerate(function.instructions):
            if ins.ptx_line is not None:
                self._sass_of_line.setdefault(ins.ptx_line, []).append(k)

    def block_executed(self, ctx, block, idx, warps):
        ws, lanes = runs(idx >> 5)
        cta_slot = ws // self.warps_per_cta
        for cs in np.unique(cta_slot):
            counts, lanes_of = self._blocks_of(int(ctx.cta_ids[cs]))
            sel = cta_slot == cs
            rows = ws[sel] % self.warps_per_cta
            counts[rows, block.gid] += 1
            lanes_of[rows, block.gid] += lanes[sel]

    def _blocks_of(self, cid: int) -> tuple:
        """CTA cid's (warp x PTX block) matrices of executions and lanes, made on first use."""
        if cid not in self.block_counts:
            self.block_counts[cid] = np.zeros((self.warps_per_cta, self.n_blocks))
            self.block_lanes[cid] = np.zeros((self.warps_per_cta, self.n_blocks))
        return self.block_counts[cid], self.block_lanes[cid]

    def logged_issues(self, ctx, record, warps) -> None:
        """The compiled round loop's log of the batch warps `warps` (its rows, in order): their
        blocks and active lanes, counted as block_executed counts them."""
        for row, w in enumerate(warps):
            n = int(record.log_len[row])
            if not n:
                continue
            counts, lanes = self._blocks_of(int(ctx.cta_ids[w // self.warps_per_cta]))
            gids = record.log_gid[row, :n]
            np.add.at(counts[w % self.warps_per_cta], gids, 1)
            np.add.at(lanes[w % self.warps_per_cta], gids, record.log_lanes[row, :n])

    def memory_access(self, ctx, site, space, kind, idx, addrs, size, count):
        line = getattr(site.ins, "line", None)
        wanted = ("shared",) if space == "shared" else ("global", "local")
        from .pipes import pipe_of
        candidates = [k for k in self._sass_of_line.get(line, ())       # a box's global side: the TMA unit's
                      if pipe_of(op := self.function.instructions[k].opcode) in wanted
                      or (space == "global" and op in TMA_UNIT)]
        if not candidates:
            return
        slots = idx >> 5
        ctas = ctx.cta_ids[slots // self.warps_per_cta]
        self.record_memory(candidates[0], space, kind, slots, ctas, idx & 31, addrs, size * count)

    def to_sass_counts(self) -> None:
        """Fill counts/lanes per SASS instruction from the PTX blocks' counts (see the module docstring)."""
        fn = self.function
        of_sass = ptx_block_of_sass(self.ptx_program, fn)
        copies = block_copies(self.ptx_program, fn, of_sass)
        for cid, m in self.block_counts.items():
            lanes_m = self.block_lanes[cid]
            counts = np.zeros((self.warps_per_cta, self.n_instructions))
            lanes = np.zeros_like(counts)
            for block in fn.blocks:
                if not block.reachable or block.end <= block.start:
                    continue
                best = None
                best_lanes = None
                for g in of_sass[block.start:block.end]:
                    if g is None:
                        continue
                    raw = m[:, g] / copies[g]
                    rl = lanes_m[:, g] / copies[g]
                    if raw.sum() > 0 and (best is None or raw.sum() < best.sum()):
                        best, best_lanes = raw, rl
                if best is not None:
                    counts[:, block.start:block.end] = best[:, None]
                    lanes[:, block.start:block.end] = best_lanes[:, None]
            self.counts[cid] = counts
            self.lanes[cid] = lanes
