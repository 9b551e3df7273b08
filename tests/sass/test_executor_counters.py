"""SASS-level counters on kernels whose counts follow from their SASS listing by hand,
the fallback to PTX counts, and the opcode coverage table."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import warpsim as cp
from warpsim.sass import sass_of
from warpsim.sass.executor import OPCODES, SassUnsupported, coverage_rows, coverage_table

pytestmark = [pytest.mark.sass, pytest.mark.nvrtc]

SOURCE = r"""
extern "C" __global__ void straight(const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = x[i] * 2.0f + 1.0f;
}
extern "C" __global__ void early_exit(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = 2.0f * x[i];
}
extern "C" __global__ void long_branch(const float* x, float* out, int n) {
    int i = threadIdx.x;
    float v = x[i];
    if (v > 0.0f) {
        for (int k = 0; k < n; ++k) v = v * 1.0001f + __sinf(v);
    } else {
        v = __expf(v) * __cosf(v) + __logf(v * v + 1.0f);
        out[i + 1] = v;
    }
    out[i] = v;
}
extern "C" __global__ void shared_rows(const float* x, float* out) {
    __shared__ float4 tile[64];
    int t = threadIdx.x;
    tile[t] = make_float4(x[4 * t], x[4 * t + 1], x[4 * t + 2], x[4 * t + 3]);
    __syncthreads();
    float4 v = tile[(t * 2) & 63];
    out[t] = v.x + v.y + v.z + v.w;
}
"""


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(code=SOURCE)


def sass_profile(module, name, grid, block, args):
    with cp.profile(level="sass") as prof:
        module.get_function(name)(grid, block, args)
    (launch,) = prof.launches
    assert launch.level == "sass", launch.level_note
    return launch


def kernel_sass(module, name):
    loaded = module.get_function(name).loaded_module
    fn = sass_of(loaded).kernel(name)
    return fn, [ins for block in fn.blocks if block.reachable for ins in block.instructions(fn)]


def test_straight_line_kernel_counts_instructions_times_warps(module):
    _, body = kernel_sass(module, "straight")
    assert not any(ins.is_guarded for ins in body) and "BRA" not in {i.opcode for i in body}
    x, y = cp.asarray(np.ones(512, dtype=np.float32)), cp.zeros(512, dtype=np.float32)
    m = sass_profile(module, "straight", (2,), (256,), (x, y)).metrics
    warps = 16
    assert m["smsp__inst_executed.sum"] == len(body) * warps
    assert m["smsp__thread_inst_executed.sum"] == len(body) * warps * 32
    assert m["smsp__thread_inst_executed_pred_on.sum"] == len(body) * warps * 32
    assert m["smsp__sass_branch_targets.sum"] == 0                    # EXIT is not a branch
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == warps
    assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 4 * warps


def test_guard_false_lanes_count_as_active_but_not_pred_on(module):
    fn, body = kernel_sass(module, "early_exit")
    exit_at = next(k for k, ins in enumerate(body) if ins.opcode == "EXIT" and ins.is_guarded)
    before, after = exit_at + 1, len(body) - exit_at - 1       # up to the @P0 EXIT, and after it
    n = 40                                                     # warp 0 all in, warp 1 with 8 lanes, warps 2-7 out
    x, y = cp.asarray(np.ones(256, dtype=np.float32)), cp.zeros(256, dtype=np.float32)
    m = sass_profile(module, "early_exit", (1,), (256,), (x, y, np.int32(n))).metrics
    assert m["smsp__inst_executed.sum"] == 8 * before + 2 * after
    assert m["smsp__thread_inst_executed.sum"] == 256 * before + n * after
    # the @P0 EXIT's guard holds for the 216 lanes past n: they are active but not pred-on elsewhere
    assert m["smsp__thread_inst_executed_pred_on.sum"] == 256 * (before - 1) + (256 - n) + n * after


def test_divergent_branch_counts_once_and_its_bsync_once_per_arriving_group(module):
    # As the H200 counts (validation/sass_counters: long_ifelse, branch_on_lane, variable_loop):
    # a divergent BRA is one warp-level execution, one branch target, one divergent; the BSYNC
    # where the two sides meet is executed by each side as it arrives.
    fn, body = kernel_sass(module, "long_branch")
    branch = next(ins for ins in body if ins.opcode == "BRA" and ins.is_guarded)
    bssy = next(ins for ins in body if ins.opcode == "BSSY")
    barrier = next(op.text for op in bssy.operands if op.kind == "barrier")
    bsync = next(ins for ins in body if ins.opcode == "BSYNC" and ins.operands[0].text == barrier)
    x = np.where(np.arange(64) % 2 == 0, 1.0, -1.0).astype(np.float32)   # every warp splits
    out = cp.zeros(65, dtype=np.float32)
    launch = sass_profile(module, "long_branch", (1,), (64,), (cp.asarray(x), out, np.int32(3)))
    m, counts = launch.metrics, launch.sass_counts
    assert counts[branch.offset] == 2                      # 2 warps, once each
    assert counts[bsync.offset] == 2 * 2                   # each side of each warp arrives on its own
    assert m["smsp__sass_branch_targets_threads_divergent.sum"] == 2
    assert m["smsp__inst_executed.sum"] == sum(counts.values())     # no BRX: inst = sass inst
    uniform = sass_profile(module, "long_branch", (1,), (64,), (cp.asarray(np.abs(x)), out, np.int32(3)))
    assert uniform.sass_counts[branch.offset] == 2
    assert uniform.sass_counts[bsync.offset] == 2
    assert uniform.metrics["smsp__sass_branch_targets_threads_divergent.sum"] == 0


SWITCH = r"""
extern "C" __global__ void pick(const int* sel, const float* x, float* out) {
    int i = threadIdx.x;
    float v = x[i], r;
    switch (sel[i]) {
        case 0: r = v * 2.0f; break;
        case 1: r = v + 7.0f; break;
        case 2: r = v * v + 3.0f; break;
        case 3: r = v - 5.0f; break;
        case 4: r = v * 0.25f; break;
        default: r = -v;
    }
    out[i] = r;
}
"""


def test_divergent_brx_counts_extra_issues_in_inst_executed_only():
    # The H200 (validation/sass_counters, switch_*): a BRX whose lanes go to k targets is one
    # execution on the source page but k issues in smsp__inst_executed; branch targets
    # max(1, k - 1), divergent k - 1; each extra issue's threads are the lanes not yet served,
    # the smallest target group first.
    module = cp.RawModule(code=SWITCH)
    fn, body = kernel_sass(module, "pick")
    brx = [ins for ins in body if ins.opcode == "BRX"]
    if not brx:
        pytest.skip("this ptxas lowers the switch without BRX")
    sel = np.tile(np.array([2] * 10 + [3] * 10 + [4] * 12, dtype=np.int32), 2)
    x = np.linspace(0.1, 1.0, 64).astype(np.float32)
    out = cp.zeros(64, dtype=np.float32)
    launch = sass_profile(module, "pick", (1,), (64,), (cp.asarray(sel), cp.asarray(x), out))
    v = x.astype(np.float64)
    np.testing.assert_allclose(out.get(), np.select([sel == 2, sel == 3, sel == 4],
                                                    [v * v + 3, v - 5, v * 0.25]), rtol=1e-6)
    m, counts = launch.metrics, launch.sass_counts
    divergent = [ins for ins in brx if counts.get(ins.offset)]
    extra = m["smsp__inst_executed.sum"] - sum(counts.values())
    assert extra % 2 == 0 and extra // 2 in (1, 2)         # per warp: k - 1 of one BRX (k = 2 or 3)
    k = extra // 2 + 1
    groups = {2: [10, 22], 3: [10, 10, 12]}[k]              # a bounds-check BRA may take one group away
    remaining = sum(32 - sum(groups[:j + 1]) for j in range(k - 1))
    threads = sum(t for _, t, _ in launch_threads(module, "pick", sel, x).values())
    assert m["smsp__thread_inst_executed.sum"] - threads == 2 * remaining
    assert m["smsp__sass_branch_targets_threads_divergent.sum"] >= 2 * (k - 1)
    assert divergent


def launch_threads(module, name, sel, x):
    """Per SASS instruction (warps, threads, pred-on) of one run, from the SASS counters."""
    from warpsim.metrics.counters import SassLaunchCounters
    from warpsim.sass.replay import ReplayRequest
    seen = []

    def observers(launch):
        seen.append(SassLaunchCounters(launch.loaded_module, launch.kernel, launch.grid, launch.block, 0))
        return seen[-1:]
    with ReplayRequest(observers):
        module.get_function(name)((1,), (64,), (cp.asarray(sel), cp.asarray(x), cp.zeros(64, dtype=np.float32)))
    return seen[0].per_instruction()


def test_shared_128_bit_wavefronts_by_quarter_warp(module):
    _, body = kernel_sass(module, "shared_rows")
    assert any(ins.opcode == "LDS" and "128" in ins.mods for ins in body)
    x, out = cp.asarray(np.arange(256, dtype=np.float32)), cp.zeros(64, dtype=np.float32)
    m = sass_profile(module, "shared_rows", (1,), (64,), (x, out)).metrics
    # STS.128 of consecutive float4: 4 quarter-warp wavefronts per warp, no conflicts;
    # LDS.128 of every other float4: each quarter-warp spans 256 bytes, two wavefronts
    assert m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"] == 2 * 4
    assert m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"] == 0
    assert m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 2 * 8
    assert m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 2 * 4
    np.testing.assert_array_equal(out.get(), np.arange(64) * 0 + [
        sum(range(4 * ((2 * t) & 63), 4 * ((2 * t) & 63) + 4)) for t in range(64)])


def test_ptx_level_is_kept_and_costs_no_sass_run(module):
    x, y = cp.asarray(np.ones(512, dtype=np.float32)), cp.zeros(512, dtype=np.float32)
    with cp.profile(level="ptx") as prof:
        module.get_function("straight")((2,), (256,), (x, y))
    assert prof[0].level == "ptx" and prof[0].sass_counts is None
    assert "PTX-level counts" in prof[0].render().splitlines()[1]


def test_unsupported_opcode_falls_back_to_ptx_counts_with_a_note(module, monkeypatch):
    x, y = cp.asarray(np.ones(512, dtype=np.float32)), cp.zeros(512, dtype=np.float32)
    loaded = module.get_function("straight").loaded_module
    monkeypatch.delitem(OPCODES, "FFMA")
    monkeypatch.delitem(sass_of(loaded).__dict__, "_executor_programs", raising=False)
    with cp.profile(level="sass") as prof, cp.profile(level="ptx") as plain:
        module.get_function("straight")((2,), (256,), (x, y))
    launch = prof[0]
    assert launch.level == "ptx"
    assert "does not support FFMA" in launch.level_note and "fell back to PTX" in launch.level_note
    assert "fell back to PTX" in launch.render(width=300).splitlines()[1]
    assert launch.metrics["smsp__inst_executed.sum"] == plain[0].metrics["smsp__inst_executed.sum"]
    with pytest.raises(SassUnsupported, match="FFMA"):
        from warpsim.sass.executor import load_program
        load_program(sass_of(loaded), "straight")
    monkeypatch.delitem(sass_of(loaded).__dict__, "_executor_programs", raising=False)


def test_a_wrong_result_falls_back_and_says_where(module, monkeypatch):
    x, y = cp.asarray(np.ones(512, dtype=np.float32)), cp.zeros(512, dtype=np.float32)
    loaded = module.get_function("straight").loaded_module
    entry = OPCODES["FFMA"]
    from warpsim.sass.executor.operands import dest

    def broken(ins):
        step = entry.build(ins)
        write = dest(ins.operands[0])
        return type(step)(ins, lambda st, g: write(st, g, np.uint32(0)))
    monkeypatch.setitem(OPCODES, "FFMA", dataclasses.replace(entry, build=broken))
    monkeypatch.delitem(sass_of(loaded).__dict__, "_executor_programs", raising=False)
    # (on the NumPy tier, where the broken step runs: the compiled tier does not build steps)
    with cp.settings(sass_verify=True, engine="numpy"), cp.profile(level="sass") as prof:
        module.get_function("straight")((2,), (256,), (x, y))
    assert prof[0].level == "ptx" and "memory differs" in prof[0].level_note
    assert "1024 bytes differ" in prof[0].level_note     # 3.0f = 0x40400000: two bytes of each differ
    sass_of(loaded).__dict__.pop("_executor_programs", None)  # the broken programs (a monkeypatch.delitem
    #                                                           here would put them back at its teardown)


def test_coverage_table_lists_every_opcode_once():
    rows = coverage_rows()
    assert len(rows) == len(OPCODES) and len({r[1] for r in rows}) == len(rows)
    table = coverage_table()
    for opcode in ("IMAD", "IADD3", "LOP3", "SHF", "ISETP", "FFMA", "MUFU", "LDG", "STS", "SHFL", "ATOMG",
                   "BSSY", "BSYNC", "BAR", "CALL", "RET", "HFMA2", "DFMA", "F2I", "I2F"):
        assert f"| {opcode} |" in table


def test_default_level_is_sass_and_other_scheduling_models_keep_ptx_counts(module, monkeypatch):
    monkeypatch.delenv("WARPSIM_PROFILE_LEVEL", raising=False)
    x, y = cp.asarray(np.ones(512, dtype=np.float32)), cp.zeros(512, dtype=np.float32)
    with cp.profile() as prof:
        module.get_function("straight")((2,), (256,), (x, y))
    assert prof[0].level == "sass" and prof[0].sass_counts, prof[0].level_note
    for model in ("stack", "lowest-pc"):
        with cp.settings(scheduling=model), cp.profile() as prof, cp.profile(level="ptx") as plain:
            module.get_function("straight")((2,), (256,), (x, y))
        launch = prof[0]
        assert launch.level == "ptx" and launch.sass_counts is None
        assert "only the 'its' scheduling" in launch.level_note and model in launch.level_note
        assert launch.metrics["smsp__inst_executed.sum"] == plain[0].metrics["smsp__inst_executed.sum"]


SPIN = r'''extern "C" __global__ void spin(volatile int* flag, int* out) {
    int lane = threadIdx.x % 32;
    if (lane == 0) { while (*flag == 0) { } out[0] = 1; }
    if (lane == 1) *flag = 1;
}'''


def test_a_spin_wait_on_a_flag_another_lane_sets_finishes_in_the_sass_run():
    """Lane 1 waits at the BSYNC after lane 0's loop; once the warp rotates it passes, as YIELD lets it."""
    import numpy as np
    import warpsim
    kernel = warpsim.RawModule(code=SPIN).get_function("spin")
    flag, out = warpsim.zeros(1, dtype=np.int32), warpsim.zeros(1, dtype=np.int32)
    with warpsim.settings(scheduling="its"), warpsim.profile(level="sass") as prof:
        kernel((1,), (32,), (flag, out))
    assert int(out.get()[0]) == 1 and int(flag.get()[0]) == 1
    launch = prof.launches[0]
    assert launch.level == "sass", launch.level_note
    # lane 0 spun at least the patience's worth of loop trips (4 instructions each) before lane 1 ran
    from warpsim.machine.scheduling.its import IndependentThreadScheduling
    assert launch.metrics["smsp__inst_executed.sum"] > 4 * IndependentThreadScheduling.patience


def test_a_sass_run_past_its_round_budget_falls_back_to_ptx_counts(monkeypatch):
    import numpy as np
    import warpsim
    from warpsim.sass import replay
    monkeypatch.setattr(replay, "SASS_EXTRA_ROUNDS", 10)
    monkeypatch.setattr(replay, "SASS_ROUNDS_PER_PTX_ROUND", 0)
    kernel = warpsim.RawModule(code=SPIN).get_function("spin")
    flag, out = warpsim.zeros(1, dtype=np.int32), warpsim.zeros(1, dtype=np.int32)
    # the replay's budget (verification on): the SASS run alone would have the launch's whole budget
    with warpsim.settings(scheduling="its", sass_verify=True), warpsim.profile(level="sass") as prof:
        kernel((1,), (32,), (flag, out))
    assert int(out.get()[0]) == 1
    launch = prof.launches[0]
    assert launch.level == "ptx"
    assert "SASS not run" in launch.level_note and "x the PTX run's" in launch.level_note
