"""synccheck: divergent barriers, .sync masks naming exited lanes, shuffles from absent lanes."""

import re

import numpy as np
import pytest

import warpsim as cp
from warpsim.machine.device import SyncWarning

from sanitizer_kernels import line_of

pytestmark = pytest.mark.nvrtc


def synccheck(kernel, grid, block, args):
    with cp.check(tools="synccheck") as chk:
        kernel(grid, block, args)
    return chk


@pytest.mark.parametrize("model", ["its", "stack"])
def test_half_a_warp_at_syncthreads_is_a_divergent_barrier(hazards, model):
    with cp.settings(scheduling=model):
        chk = synccheck(hazards.get_function("half_barrier"), (2,), (64,), (cp.zeros(64, dtype=cp.int32),))
    error, = chk.errors
    assert error.tool == "synccheck" and error.kind == "divergent barrier"
    assert error.count == 2                                   # warp 0 of each block
    place = error.accesses[0]
    assert place.instruction.startswith("bar.sync")
    assert place.source_line.endswith(line_of("if (t < 16) __syncthreads();"))
    assert place.thread[0] < 16 and place.block in ((0, 0, 0), (1, 0, 0))
    text = error.text()
    assert "Barrier error detected. Divergent thread(s) in warp [2 warps]" in text
    assert "lanes 0-15 of warp 0 wait at this barrier; lanes 16-31 of the warp did not reach it" in text
    went_on = line_of("out[t] = t;").split(":")[1]          # where the other lanes were
    assert re.search(rf"did not reach it \(they were at PTX line \d+: .*hazards\.cu:[\d,]*\b{went_on}\b", text)


def test_lanes_at_two_different_syncthreads_are_a_divergent_barrier(hazards):
    chk = synccheck(hazards.get_function("two_barriers"), (1,), (64,), (cp.zeros(64, dtype=cp.int32),))
    error, = chk.errors
    assert error.kind == "divergent barrier" and error.count == 2
    lines = {line_of("if (t % 2) {"), line_of("else       {")}
    assert any(error.accesses[0].source_line.endswith(line) for line in lines)
    assert "at a different one" in error.text() and "(16 lanes)" in error.text()


def test_early_exit_before_a_barrier_is_clean(hazards):
    out = cp.zeros(128, dtype=cp.int32)
    chk = synccheck(hazards.get_function("early_exit"), (2,), (64,), (out, np.int32(100)))
    assert chk.ok, chk.report()


def test_full_mask_shuffle_after_return_is_reported(hazards):
    with pytest.warns(SyncWarning):
        chk = synccheck(hazards.get_function("shuffle_after_return"), (1,), (32,), (cp.zeros(32, dtype=cp.int32),))
    kinds = {e.kind: e for e in chk.errors}
    assert set(kinds) == {"sync_exited_lanes", "shfl_absent_source"}
    exited = kinds["sync_exited_lanes"]
    assert "exited 0xffff0000" in exited.details[0]
    assert exited.accesses[0].source_line.endswith(line_of("__shfl_down_sync(0xffffffff, t, 1)"))
    assert "shfl.sync" in exited.accesses[0].instruction
    assert "lane 15 reads lane 16" in kinds["shfl_absent_source"].details[0]


def test_clean_kernels_produce_nothing(hazards):
    x = cp.asarray(np.arange(128, dtype=np.int32))
    out = cp.zeros(4, dtype=cp.int32)
    with cp.check() as chk:                               # every tool
        hazards.get_function("tree_reduce")((1,), (128,), (x, out))
        hazards.get_function("warp_sum")((1,), (32,), (x, out))
    assert chk.ok and chk.launches == 2
    assert chk.report().endswith("ERROR SUMMARY: 0 errors\n")
