"""Guard (predicate-on) counts: the generated code counts guard-true lanes only while profiling."""

import numpy as np
import pytest

import warpsim as cp

PTX = """
.version 8.0
.target sm_90
.address_size 64

.visible .entry pred_test(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %laneid;
    mov.u32 %r2, 0;
    setp.lt.u32 %p1, %r1, 8;
    @%p1 add.s32 %r2, %r2, 1;
    @!%p1 add.s32 %r2, %r2, 2;
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"""


def run(profiled: bool, threads=64, level="ptx"):
    out = cp.zeros(threads, dtype=np.int32)
    kernel = cp.RawModule(ptx=PTX).get_function("pred_test")
    if not profiled:
        kernel((1,), (threads,), (out,))
        return out.get(), None
    with cp.profile(level=level) as prof:
        kernel((1,), (threads,), (out,))
    return out.get(), prof.launches[0]


def test_pred_on_counts_guard_true_lanes():
    values, launch = run(True)
    expected = np.where(np.arange(64) % 32 < 8, 1, 2)
    assert (values == expected).all()
    m = launch.metrics
    warps, instructions = 2, 11
    assert m["smsp__inst_executed.sum"] == warps * instructions
    assert m["smsp__thread_inst_executed.sum"] == warps * instructions * 32
    # the @p1 add runs for 8 lanes of each warp, the @!p1 add for the other 24
    assert m["smsp__thread_inst_executed_pred_on.sum"] == warps * (9 * 32 + 8 + 24)


def test_partly_true_guard_on_a_partial_warp():
    _, launch = run(True, threads=40)       # warp 1 has lanes 0..7 only: all of them pass the guard
    m = launch.metrics
    assert m["smsp__thread_inst_executed.sum"] == 11 * 40
    assert m["smsp__thread_inst_executed_pred_on.sum"] == 9 * 40 + (8 + 8) + 24


def test_results_are_the_same_without_profiling():
    plain, _ = run(False)
    profiled, _ = run(True)
    assert (plain == profiled).all()


def sass_body():
    from warpsim.sass import sass_of
    kernel = cp.RawModule(ptx=PTX).get_function("pred_test")
    fn = sass_of(kernel.loaded_module).kernel("pred_test")
    return [ins for block in fn.blocks if block.reachable for ins in block.instructions(fn)]


@pytest.mark.sass
def test_sass_level_guard_false_lanes_count_in_thread_inst_not_pred_on():
    # ptxas turns the two guarded adds into SEL + one guarded IADD3 (@P0: lanes 8..31 of each warp)
    body = sass_body()
    guarded = [ins for ins in body if ins.is_guarded]
    assert len(guarded) == 1
    values, launch = run(True, level="sass")
    assert launch.level == "sass", launch.level_note
    assert (values == np.where(np.arange(64) % 32 < 8, 1, 2)).all()
    m = launch.metrics
    warps = 2
    assert m["smsp__inst_executed.sum"] == warps * len(body)
    assert m["smsp__thread_inst_executed.sum"] == warps * len(body) * 32
    assert m["smsp__thread_inst_executed_pred_on.sum"] == warps * ((len(body) - 1) * 32 + 24)
    _, partial = run(True, threads=40, level="sass")     # warp 1: lanes 0..7, all guard-false
    m = partial.metrics
    assert m["smsp__thread_inst_executed.sum"] == len(body) * 40
    assert m["smsp__thread_inst_executed_pred_on.sum"] == len(body) * 40 - 8 - 8
