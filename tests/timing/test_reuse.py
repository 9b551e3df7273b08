"""L1 capacity: how far back a CTA read a sector it reads again, and what share the L1 keeps."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from warpsim.timing.reuse import BUCKETS_PER_OCTAVE, bucket, bucket_steps, kept_share, stack_distances

HERE = pathlib.Path(__file__).parents[2] / "validation" / "timing"


def _brute_force(sectors):
    out, previous = [], []
    for t, s in enumerate(sectors):
        before = [j for j in range(t) if sectors[j] == s]
        if not before:
            out.append(-1)
            previous.append(-1)
            continue
        p = before[-1]
        out.append(len({sectors[j] >> 2 for j in range(p + 1, t)}))
        previous.append(p)
    return out, previous


def test_stack_distances_count_the_distinct_lines_between_two_reads_of_a_sector():
    rng = np.random.default_rng(7)
    for n, universe in ((50, 12), (300, 40), (200, 400)):
        sectors = rng.integers(0, universe, n).astype(np.int64) + (5 << 40)
        distances, previous = stack_distances(sectors)
        want, want_previous = _brute_force(sectors.tolist())
        assert distances.tolist() == want
        assert previous.tolist() == want_previous


def test_a_cyclic_sweep_reads_each_sector_again_past_every_other_line():
    lines = 37
    sweep = (np.arange(lines) * 4 + 1).astype(np.int64)        # one sector of each line
    distances, _ = stack_distances(np.concatenate([sweep, sweep, sweep]))
    assert (distances[:lines] == -1).all() and (distances[lines:] == lines - 1).all()


def test_kept_share_holds_what_fits_and_nothing_far_beyond():
    ratios = np.array([0.5, 1.0, 1.1, 1.3, 1.5, 2.0, 3.0])
    kept = kept_share(ratios)
    assert kept[0] == kept[1] == 1.0 and kept[-1] == kept[-2] == 0.0
    assert (np.diff(kept) <= 0).all()
    assert bucket(np.array([0, 1, 1000]))[2] == pytest.approx(1000, rel=0.045)


@pytest.mark.parametrize("sm_kb, shared_kb", [(128, 0), (320, 0), (64, 100), (16, 100)])
def test_dependent_sweeps_hit_l1_while_the_sms_regions_fit_it(sm_kb, shared_kb):
    """microbench19's mb19_sweep (the H200's cubin): each warp chases a chain through 128-byte lines of
    its own, pass after pass. The H200 took 56-64 cycles a load while an SM's regions fit its L1
    (224 KB beside the 32 KB carve-out of a kernel without shared memory), 293 at 320 KB, and with
    100 KB of dynamic shared memory (a 228 KB carve-out) 69 at 16 KB and 312 at 64 KB: L2 latency.
    The model, from the SASS run's reuse distances, within 15%."""
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    import sys
    sys.path.insert(0, str(HERE))
    import run_microbench19 as mb
    measured = json.loads((HERE / "h200" / "microbench19.json").read_text())
    config = next(c for c in mb.SWEEPS if (c["sm_kb"], c["ctas_per_sm"], c["shared_kb"], c["store_mode"])
                  == (sm_kb, 1, shared_kb, 0))
    want = next(r for r in measured if all(r[k] == v for k, v in config.items()))["cycles_per_load"]
    mod = ws.RawModule(path=str(HERE / "microbench19.cubin"))
    f = mod.get_function("mb19_sweep")
    buffers = dict(data=ws.zeros(132 * 8 * config["lines"] * 32, dtype=np.int32), clocks=ws.zeros(264, np.int64),
                   scratch=ws.zeros(32 * 1024 + 64, dtype=np.int32))
    cycles = []
    for passes in (2, 4):
        grid, block, args, shared = mb.arguments(ws, dict(config, passes=passes), buffers)
        params = pack_arguments(f.kernel_name, f.params, args)
        cycles.append(predict(f.loaded_module, f.kernel_name, (grid,), (block,), params, shared, gpu="h200",
                              max_ctas=2).cycles)
    per_load = (cycles[1] - cycles[0]) / (2 * config["lines"])
    assert per_load == pytest.approx(want, rel=0.15)


@pytest.mark.parametrize("lines", [1, 8, 32])
def test_a_load_holds_the_lsu_a_cycle_a_line(lines):
    """microbench19's mb19_scatter loading (the H200's cubin): 8 warps on each of 132 SMs, each warp's 32
    lanes spread over `lines` lines of its own, L1 hits: 1.3, 8.0 and 32.0 cycles a request per SM. The
    model within 10%."""
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    measured = json.loads((HERE / "h200" / "microbench19.json").read_text())
    want = next(r for r in measured if r["kernel"] == "mb19_scatter" and
                (r["mode"], r["lines"], r["warps_per_sm"], r["sms"]) == (1, lines, 8, 132))["cycles_per_request"]
    f = ws.RawModule(path=str(HERE / "microbench19.cubin")).get_function("mb19_scatter")
    buf, clocks = ws.zeros(132 * 8 * 4 * 32 * 32, dtype=np.int32), ws.zeros(264, dtype=np.int64)
    cycles = []
    for iters in (16, 32):
        args = (buf, clocks, np.int32(lines), np.int32(iters), np.int32(1), np.int32(0))
        params = pack_arguments(f.kernel_name, f.params, args)
        cycles.append(predict(f.loaded_module, f.kernel_name, (132,), (256,), params, 0, gpu="h200",
                              max_ctas=2).cycles)
    per_request = (cycles[1] - cycles[0]) / (16 * 4 * 8)
    assert per_request == pytest.approx(want, rel=0.1)


def test_bucket_steps_are_the_whole_steps_of_the_bucket():
    distances = np.array([0, 1, 2, 3, 7, 100, 5000])
    steps = bucket_steps(distances)
    assert np.array_equal(steps, np.round(steps)) and steps[0] == steps[1] == 0
    assert np.array_equal(bucket(distances), np.exp2(steps / BUCKETS_PER_OCTAVE))


def _lru_reread_misses(blocks, capacity, requests, stream_every, seed):
    """Re-reads missed by an LRU cache of `capacity` blocks, of `requests` reads at random over
    `blocks` blocks with a new streamed block after every `stream_every` of them (0: none)."""
    from collections import OrderedDict
    rng = np.random.default_rng(seed)
    cache, seen, rereads, missed, streamed = OrderedDict(), set(), 0, 0, 0
    for t, b in enumerate(rng.integers(0, blocks, requests)):
        if b in seen:
            rereads += 1
            missed += b not in cache
        seen.add(b)
        cache[b] = None
        cache.move_to_end(b)
        if stream_every and t % stream_every == 0:
            streamed -= 1                       # negative keys: blocks of other data, never read again
            cache[streamed] = None
        while len(cache) > capacity:
            cache.popitem(last=False)
    return missed / rereads


@pytest.mark.parametrize("blocks, capacity, stream_every", [(4000, 1000, 0), (2000, 1500, 0), (2000, 1000, 4),
                                                           (1000, 1200, 2), (1000, 2000, 0)])
def test_random_rereads_miss_as_an_lru_cache_does(blocks, capacity, stream_every):
    from warpsim.timing.reuse import random_blocks, random_reread_misses
    requests = 20 * blocks
    measured = _lru_reread_misses(blocks, capacity, requests, stream_every, seed=blocks + capacity)
    streamed = requests / stream_every if stream_every else 0.0
    predicted = random_reread_misses(blocks, requests, streamed, capacity)
    assert predicted == pytest.approx(measured, abs=0.03)
    assert random_blocks(blocks, 0.5 * blocks) == pytest.approx(blocks * (1 - np.exp(-0.5)))
