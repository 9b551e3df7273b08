"""Waits on async groups (timing/async_groups.py) and the tensor core's measured tables (tensor_core.py)."""

import numpy as np
import pytest

from warpsim.timing import gpu_preset
from warpsim.timing.async_groups import _run_loop
from warpsim.timing.pipes import tensor_cycles
from warpsim.timing.tensor_core import hgmma_interval, hgmma_latency


def _simulated_period(t0, commit_at, wait_at, latency, back, iterations=600):
    """The loop run iteration by iteration, written plainly: each waits at `wait_at` for the group
    committed `back` iterations earlier, commits its own at `commit_at` (offsets without waiting)."""
    starts, commits = [0.0], []
    for i in range(iterations):
        s = starts[-1]
        ready = commits[i - back] + latency if i >= back else -np.inf
        end_wait = max(s + wait_at, ready)
        delay = end_wait - (s + wait_at)
        commits.append(s + commit_at + (delay if commit_at > wait_at else 0.0))
        starts.append(s + t0 + delay)
    return (starts[-1] - starts[-241]) / 240        # a whole number of cycles of 1, 2, 3 or 5 iterations


def _closed_form_period(t0, commit_at, wait_at, latency, back):
    """T = T0 + wait, the wait ending when the group `back` iterations back does."""
    if commit_at < wait_at:
        return max(t0, (t0 + commit_at - wait_at + latency) / (1 + back))
    return max(t0, (commit_at - wait_at + latency) / back)


def _model_period(t0, commit_at, wait_at, latency, back):
    """The model's loop run on one commit and one wait letting the groups of the `back` - 1 (commit
    after the wait) or `back` (commit before it) newer iterations pend."""
    commit = ("commit", ("copy", latency))
    if commit_at < wait_at:
        events = [(0, *commit), (1, "wait", ("copy", back))]
        offsets = np.array([commit_at, wait_at])
    else:
        events = [(0, "wait", ("copy", back - 1)), (1, *commit)]
        offsets = np.array([wait_at, commit_at])
    waits = _run_loop(events, offsets, t0, 0)
    return t0 + sum(w for _, w in waits.values())


@pytest.mark.parametrize("back", [1, 2, 3, 4])
@pytest.mark.parametrize("commit_first", [False, True])
def test_the_loop_run_matches_the_closed_form_and_a_plain_simulation(back, commit_first):
    rng = np.random.default_rng(back + 10 * commit_first)
    for _ in range(10):
        t0, latency = rng.uniform(20, 200), rng.uniform(50, 3000)
        a, b = sorted(rng.uniform(0, t0, size=2))
        commit_at, wait_at = (a, b) if commit_first else (b, a)
        expected = _simulated_period(t0, commit_at, wait_at, latency, back)
        assert _closed_form_period(t0, commit_at, wait_at, latency, back) == pytest.approx(expected, rel=1e-3)
        assert _model_period(t0, commit_at, wait_at, latency, back) == pytest.approx(expected, rel=2e-3)


def test_a_deep_enough_pipeline_does_not_wait():
    assert _model_period(500.0, 400.0, 10.0, 300.0, 3) == pytest.approx(500.0)


def test_wgmma_groups_queue_on_the_tensor_core():
    h200 = gpu_preset("h200")
    mods = ("64x128x16", "F32")
    interval, latency = hgmma_interval(mods, h200), hgmma_latency(mods, h200)
    # four HGMMAs issued a cycle apart, the last commits; a wait letting one group pend
    events = [(k, "mma", (interval, latency, k == 3)) for k in range(4)] + [(4, "wait", ("mma", 1))]
    period = 10.0 + sum(w for _, w in _run_loop(events, np.arange(5.0), 10.0, 0).values())
    assert period == pytest.approx(4 * interval, rel=0.01)     # the tensor core's pace, not the latency
    # one HGMMA per group, waited for at once: its latency
    events = [(0, "mma", (interval, latency, True)), (1, "wait", ("mma", 0))]
    period = 2.0 + sum(w for _, w in _run_loop(events, np.array([0.0, 1.0]), 2.0, 0).values())
    assert period == pytest.approx(latency + 1.0, rel=0.01)


def test_copies_fly_while_the_warps_sharing_the_tensor_core_take_their_turns():
    h200 = gpu_preset("h200")
    mods = ("64x256x16", "F32")
    interval, latency = hgmma_interval(mods, h200), hgmma_latency(mods, h200)
    copy = 4 * interval * 2.5          # a stage lands after 2.5x the warp's own HGMMAs' time
    # a stage's copies committed, four HGMMAs and their wait, then a wait for the stage two commits back
    events = [(0, "commit", ("copy", copy))] + [(1 + k, "mma", (interval, latency, k == 3)) for k in range(4)] + \
        [(5, "wait", ("mma", 0)), (6, "wait", ("copy", 1))]
    offsets, t0 = np.arange(7.0), 7.0
    alone = _run_loop(events, offsets, t0, 0)
    shared = _run_loop(events, offsets, t0, 0, tensor_sharers=2.0)
    # alone the warp's iteration is its own HGMMAs': the stage two back has not landed
    assert alone[6][1] > 0.1 * interval
    # two warps taking turns double the iteration: the copies land meanwhile
    assert shared[6][1] == pytest.approx(0.0, abs=1e-6)
    assert shared[5][1] > alone[5][1]


def test_measured_wgmma_tables():
    h200 = gpu_preset("h200")
    # the dense peak in every type: m64nNk at the type's K takes N / 2 cycles
    for mods in (("64x256x16", "F32"), ("64x256x16", "F32", "BF16"), ("64x256x8", "F32", "TF32"),
                 ("64x256x32", "F32", "E4M3", "E4M3")):
        assert tensor_cycles("QGMMA" if "E4M3" in mods else "HGMMA", mods, h200) == pytest.approx(128.0, abs=0.5)
    # between measured widths the interval and latency follow N; below the smallest the latency holds
    assert hgmma_interval(("64x192x16", "F32"), h200) == pytest.approx(96.1, abs=0.5)
    assert hgmma_latency(("64x192x16", "F32"), h200) == pytest.approx((121.5 + 197.3) / 2, abs=0.5)
    assert hgmma_latency(("64x16x16", "F32"), h200) == pytest.approx(84.2)
    assert hgmma_interval(("64x16x16", "F32"), h200) == pytest.approx(32.1 / 4)
    # a GPU without wgmma keeps the peak-rate rule
    assert hgmma_interval(("64x64x16", "F32"), gpu_preset("a100")) is None


def test_cp_async_draws_the_chip_rate_measured_at_that_many_sms():
    from warpsim.timing.async_groups import cp_async_l2_share
    h200 = gpu_preset("h200")
    assert cp_async_l2_share(h200, 132) == pytest.approx(5093.0 / 132)
    assert cp_async_l2_share(h200, 66) == pytest.approx(3311.0 / 66)
    shares = [cp_async_l2_share(h200, k) for k in (1, 16, 33, 66, 100, 132)]
    assert all(a >= b for a, b in zip(shares, shares[1:]))     # fewer SMs: more each, less in all
    totals = [s * k for s, k in zip(shares, (1, 16, 33, 66, 100, 132))]
    assert all(a <= b for a, b in zip(totals, totals[1:]))
    assert cp_async_l2_share(gpu_preset("a100"), 108) is None


CUBIN = __import__("pathlib").Path(__file__).parents[2] / "validation" / "timing" / "microbench8.cubin"
CUBIN9 = CUBIN.parent / "microbench9.cubin"


def _cp_async_ring(grid: int, source: str):
    """The model's Timing of mb8_cpasync_bw as the eighth batch ran it: 256 threads copying 4 x 16 bytes
    each a round into a ring of four rounds, each CTA its own region (from L2: 128 KB read 8 times;
    from HBM: its 1 / grid of 128 MB once)."""
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    k = ws.RawModule(path=str(CUBIN)).get_function("mb8_cpasync_bw")
    region, passes = (128 << 10, 8) if source == "l2" else ((128 << 20) // grid // 16384 * 16384, 1)
    src, clocks, sink = ws.zeros(128 << 20, dtype=np.uint8), ws.zeros(4096, dtype=np.int64), ws.zeros(128, np.float32)
    params = pack_arguments(k.kernel_name, k.params, (src, clocks, sink, np.int64(region), np.int32(passes),
                                                      np.int32(4), np.int32(4)))
    return predict(k.loaded_module, k.kernel_name, (grid,), (256,), params, 4 * 16384, gpu="h200", max_ctas=2)


def test_warps_wait_out_the_copies_an_async_bound_wave_takes_as_long_scoreboard():
    """Where HBM's rate for the copies sets the wave's time, the warps sit at their cp.async waits for
    it, which Nsight Compute counts as long_scoreboard (the eighth batch on the H200, 264 CTAs from
    HBM: 12.60 warps an issue; the model had 0.1 before it counted that wait)."""
    t = _cp_async_ring(264, "hbm")
    named = {r: v for r, v in t.stalls.items() if r != "selected"}
    assert max(named, key=named.get) == "long_scoreboard"
    assert t.stalls["long_scoreboard"] == pytest.approx(12.60, rel=0.15)


def test_a_ctas_own_rereads_are_not_merged_as_other_readers_would_be():
    """Two CTAs an SM, each copying its own L2-resident 128 KB eight times, need twice the L2 time of
    one: no other CTA asks for their sectors, so the coalescer has nothing to merge (the eighth batch:
    37.9 us against 21.4 at one CTA an SM; counting each pass as another reader made it 1.18x)."""
    assert _cp_async_ring(264, "l2").time_s > 1.5 * _cp_async_ring(132, "l2").time_s


def _cycles_per_wgmma(group: int, grid: int) -> float:
    """The model's cycles per wgmma of mb8_wgmma_f16_ss_n128 between 4 and 8 loop rounds."""
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    mod = ws.RawModule(path=str(CUBIN))
    k = mod.get_function("mb8_wgmma_f16_ss_n128")
    clocks, sink = ws.zeros(4096, dtype=np.int64), ws.zeros(128, dtype=np.float32)
    cycles = []
    for iters in (4, 8):
        params = pack_arguments(k.kernel_name, k.params, (clocks, sink, np.int32(iters), np.int32(group)))
        t = predict(k.loaded_module, k.kernel_name, (grid,), (128,), params, 0, gpu="h200", max_ctas=1)
        cycles.append(t.cycles)
    return (cycles[1] - cycles[0]) / (4 * group)


@pytest.mark.slow
def test_a_warpgroup_keeps_the_tensor_core_at_its_measured_interval_and_waits_its_latency():
    h200 = gpu_preset("h200")
    interval = hgmma_interval(("64x128x16", "F32"), h200)
    latency = hgmma_latency(("64x128x16", "F32"), h200)
    # four wgmmas per group, one group pending: the tensor core's pace (four warps, one per sub-partition)
    assert _cycles_per_wgmma(4, 132) == pytest.approx(interval, rel=0.05)
    # one wgmma waited for at once: its latency and the loop's few instructions
    assert latency <= _cycles_per_wgmma(1, 1) <= 1.2 * latency


@pytest.mark.slow
@pytest.mark.parametrize("per_stage, measured", [(1, 909.0), (2, 669.0), (5, 515.0)])
def test_a_threads_tma_loads_are_paced_by_its_own_instructions(per_stage, measured):
    """microbench9's mb9_tma_pipe (the H200's cubin): one thread of each of 132 CTAs issues `per_stage`
    8 KB boxes onto each stage's mbarrier; the H200 took `measured` cycles a box whatever the stages in
    flight (2-4), the box size (8 or 16 KB) and the SMs (1 or 132). What sets that pace is the thread's
    own code between two boxes: a 64-bit remainder, two 32-bit divisions and clock reads into a local
    array, a lone warp's chain of dependent instructions. The model has no rule for TMA boxes: its walk
    of that SASS alone gives the pace, 1.0-1.35x the H200's (a lone warp's chain is charged a little
    long), and stages in flight change nothing, as on the H200."""
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.machine.isa.bulk_copy import encode_tiled
    from warpsim.timing import predict
    k = ws.RawModule(path=str(CUBIN9)).get_function("mb9_tma_pipe")
    buf = ws.zeros(4096 * 1024, dtype=np.uint16)
    tmap = ws.asarray(np.frombuffer(encode_tiled(buf.data.ptr, 2, [4096, 1024], [8192], [64, 64], swizzle_mode="128B"),
                                    dtype=np.uint32).copy())
    clocks, lat, scratch = ws.zeros(4096, dtype=np.int64), ws.zeros(512, dtype=np.int64), ws.zeros(1 << 17, np.uint8)

    def cycles_per_box(stages):
        cycles = []
        for loads in (16, 32):
            args = (tmap, scratch, clocks, lat, np.int32(64), np.int32(16), np.int32(64), np.int32(64),
                    np.int32(8192), np.int32(loads), np.int32(stages), np.int32(per_stage), np.int32(1))
            params = pack_arguments(k.kernel_name, k.params, args)
            cycles.append(predict(k.loaded_module, k.kernel_name, (132,), (32,), params,
                                  stages * per_stage * 8192, gpu="h200", max_ctas=2).cycles)
        return (cycles[1] - cycles[0]) / (16 * per_stage)

    two_stages = cycles_per_box(2)
    assert measured <= two_stages <= 1.35 * measured
    assert cycles_per_box(4) == pytest.approx(two_stages, rel=0.02)


CUBIN18 = CUBIN.parent / "microbench18.cubin"
MEASURED18 = CUBIN.parent / "h200" / "microbench18.json"


@pytest.mark.parametrize("box_rows, ctas_per_sm, stages, prefer", [(128, 1, 4, "sass"), (64, 2, 2, "sass"),
                                                                     (128, 1, 4, "ptx")])
def test_tma_boxes_a_cta_reads_again_are_l2_traffic(box_rows, ctas_per_sm, stages, prefer):
    """microbench18's mb18_tma (this cubin, PyPI's ptxas 13.0): one warp of each CTA loads the same four
    boxes over and over, 384 boxes, each CTA its own four. TMA reads never look in L1, so every box is
    L2 traffic, and the H200 drew 8.1 TB/s for them: the model, L2-bound, within 10% of its time, from
    the SASS run or from the PTX run (whose box reads go to the UTMALDG of their PTX line)."""
    import json
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.machine.isa.bulk_copy import encode_tiled
    from warpsim.timing import predict
    measured = next(r for r in json.loads(MEASURED18.read_text())
                    if (r["box_rows"], r["ctas_per_sm"], r["stages"], r["issuers"], r["sharers"])
                    == (box_rows, ctas_per_sm, stages, 1, 1))
    mod = ws.RawModule(path=str(CUBIN18))
    k = mod.get_function("mb18_tma")
    rows = 2 * 132 * 4 * box_rows
    buf = ws.zeros(64 * rows, dtype=np.uint16)
    words = np.frombuffer(encode_tiled(buf.data.ptr, 2, [64, rows], [128], [64, box_rows], swizzle_mode="128B"),
                          dtype=np.uint32).copy()
    mod.get_global("mb18_tmap").copy_from_host(words.ctypes.data, words.nbytes)
    box_bytes = 128 * box_rows
    args = (ws.zeros(4 * 132, dtype=np.int64), np.int32(box_rows), np.int32(box_bytes), np.int32(4), np.int32(1),
            np.int32(0), np.int32(192), np.int32(stages), np.int32(2), np.int32(1))
    params = pack_arguments(k.kernel_name, k.params, args)
    t = predict(k.loaded_module, k.kernel_name, (132 * ctas_per_sm,), (64,), params, stages * 2 * box_bytes,
                gpu="h200", max_ctas=4, prefer=prefer)
    assert t.source == prefer and t.bottleneck == "l2"
    assert t.time_s * 1e6 == pytest.approx(measured["event_us"], rel=0.1)


CUBIN17 = CUBIN.parent / "microbench17.cubin"
MEASURED17 = CUBIN.parent / "h200" / "microbench17.json"


def test_a_warpgroups_wgmmas_overlap_the_other_warpgroups_mufu_work():
    """microbench17's mb17_beside_ss (this cubin, PyPI's ptxas 13.0): warpgroup 0 runs wgmma groups while
    warpgroup 1, in the same four sub-partitions, runs a loop of MUFU and FP32 work. The H200 runs the
    two side by side (87 K cycles against 64 K and 68 K alone, at an eighth of the batch's rounds); a
    sub-partition held by the sum of each warp's busiest unit would add them (the model had 1.86x)."""
    import json
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    scale = 8
    measured = next(r for r in json.loads(MEASURED17.read_text())
                    if (r["a_operand"], r["groups"] > 0, r["rounds"] > 0, r["mufu"]) == ("ss", True, True, 1))
    k = ws.RawModule(path=str(CUBIN17)).get_function("mb17_beside_ss")
    tile = ws.asarray(np.random.default_rng(17).uniform(-1, 1, 6144).astype(np.float16).view(np.uint32))
    args = (tile, ws.zeros(16 * 132, dtype=np.int64), ws.zeros(132, dtype=np.float32),
            np.int32(measured["groups"] // scale), np.int32(measured["rounds"] // scale), np.int32(1))
    params = pack_arguments(k.kernel_name, k.params, args)
    t = predict(k.loaded_module, k.kernel_name, (132,), (256,), params, 0, gpu="h200", max_ctas=2)
    want = max(measured["wgmma_cycles"], measured["other_cycles"]) / scale
    assert t.cycles == pytest.approx(want, rel=0.25)


def test_a_warpgroups_wait_for_its_wgmmas_is_a_barrier_stall():
    """Nsight Compute counts a warp waiting at WARPGROUP.DEPBAR for its wgmmas under `barrier` (the
    twenty-sixth batch: 8.2 warps an issue with no BAR in the loop), and `gmma` only for a warp whose
    warpgroup's other warps have not reached the wgmma; each wgmma of mb8_wgmma_f16_ss_n128 is waited
    for at once, so most of its warps' time is that wait."""
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    k = ws.RawModule(path=str(CUBIN)).get_function("mb8_wgmma_f16_ss_n128")
    clocks, sink = ws.zeros(4096, dtype=np.int64), ws.zeros(128, dtype=np.float32)
    params = pack_arguments(k.kernel_name, k.params, (clocks, sink, np.int32(8), np.int32(1)))
    t = predict(k.loaded_module, k.kernel_name, (132,), (128,), params, 0, gpu="h200", max_ctas=1)
    named = {r: v for r, v in t.stalls.items() if r != "selected"}
    assert max(named, key=named.get) == "barrier"
    assert t.stalls.get("gmma", 0.0) == 0.0


def test_loops_come_innermost_first_whatever_their_bodies_hold():
    """A block that ends without branching (WARPSYNC.ALL, which ptxas puts at the top of a wgmma loop
    when warps took different paths to it) splits a loop's body; the blocks up to the one that branches
    back are still one loop. A loop whose body branches or holds an inner loop is one too (the sixty-
    eighth batch's cp.async ring: a loop of FFMAs between stages), listed after the loops inside it."""
    from warpsim.sass.ir import BasicBlock
    from warpsim.timing.async_groups import loop_bodies
    blocks = [BasicBlock(0, 0, 4, successors=(1,)), BasicBlock(1, 4, 5, successors=(2,)),
              BasicBlock(2, 5, 20, successors=(3, 1)), BasicBlock(3, 20, 22, successors=(4, 3)),
              BasicBlock(4, 22, 30, successors=(5, 6)), BasicBlock(5, 30, 31, successors=(6, 4)),
              BasicBlock(6, 31, 32)]
    assert loop_bodies(blocks) == [(20, 22), (22, 31), (4, 20)]


CUBIN68 = CUBIN.parent / "microbench68.cubin"


def test_a_copy_ring_around_an_inner_loop_waits_for_its_stages_to_come_from_hbm():
    """microbench68 (this cubin): 128 CTAs, each streaming 64 tiles of 16 KB once through a two-stage
    cp.async ring, eight CTAs on the same tiles in the same order, the L2 cold; the ring's loop holds a
    loop of FFMAs (run zero times). On an H100 the launch took 25.7 us under ncu (validation/timing/h100/
    microbench68*). The model's group waits: the copies' HBM latency (the eighth CTA waits out the
    first one's read) plus the stage's 16 KB as the L2 draws it at the SM's share of the copy rate:
    24.4 us (-5%). Without the transfer it gave 21.5 us (-16%); before loops with inner loops had
    their waits charged, 15.6 us (-39%)."""
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    mod = ws.RawModule(path=str(CUBIN68))
    k = mod.get_function("mb68_ring_s2")
    tiles, sharers = 64, 8
    base = ws.asarray(np.random.default_rng(68).integers(0, 1 << 30, 128 // sharers * tiles * 4096, dtype=np.int32))
    args = (base, np.int32(tiles), np.int32(sharers), np.int32(0), np.int32(tiles), np.int32(0),
            ws.zeros(128 * 128, dtype=np.float32))
    t = predict(k.loaded_module, k.kernel_name, (128,), (128,), pack_arguments(k.kernel_name, k.params, args), 0,
                gpu="h100", max_ctas=8)
    assert t.time_s * 1e6 == pytest.approx(25.7, rel=0.1)
    assert t.stalls.get("long_scoreboard", 0) > 1.0


CUBIN34 = CUBIN.parent / "microbench34.cubin"


def test_a_warp_specialized_wgmma_loop_still_waits_for_its_groups():
    """microbench34 (this cubin, PyPI's nvcc for sm_90a): warpgroup 0 runs groups of four wgmmas and
    waits for each; in mb34_add_x128_m2 warpgroup 1 runs adds beside it, so ptxas opens the wgmma loop
    with a WARPSYNC.ALL and the loop is two blocks. Its waits for the tensor core still count: the two
    warpgroups together take at least as long as the wgmmas alone (mb34_mma_x0_m0), where the model had
    dropped the waits and given 0.85 of it."""
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    mod = ws.RawModule(path=str(CUBIN34))
    tile = ws.asarray(np.random.default_rng(34).uniform(0, 0.5, 6144).astype(np.float16).view(np.uint32))
    sink = ws.zeros(264, dtype=np.float32)

    def cycles(name):
        k = mod.get_function(name)
        params = pack_arguments(k.kernel_name, k.params, (tile, sink, np.int32(64)))
        return predict(k.loaded_module, k.kernel_name, (132,), (256,), params, 0, gpu="h200", max_ctas=1).cycles

    alone, beside = cycles("mb34_mma_x0_m0"), cycles("mb34_add_x128_m2")
    assert beside >= 0.98 * alone
