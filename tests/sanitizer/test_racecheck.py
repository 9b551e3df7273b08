"""racecheck: shared-memory hazards with no barrier between the two accesses."""

import numpy as np
import pytest

import warpsim as cp
from warpsim.demo.common import kernel_path

from sanitizer_kernels import line_of

pytestmark = pytest.mark.nvrtc


def racecheck(kernel, grid, block, args):
    with cp.check(tools="racecheck") as chk:
        kernel(grid, block, args)
    return chk


@pytest.mark.parametrize("model", ["its", "stack"])
def test_legacy_warp_synchronous_reduction_is_reported_as_intra_warp_hazards(scheduling_kernels, model):
    x = np.random.default_rng(1).integers(-50, 50, (4, 64)).astype(np.int32)
    out = cp.zeros(4, dtype=cp.int32)
    with cp.settings(scheduling=model):
        chk = racecheck(scheduling_kernels.get_function("legacy_reduce"), (4,), (64,), (cp.asarray(x), out))
    assert np.array_equal(out.get(), x.sum(axis=1))        # right answer, in lockstep: the bug hides
    assert chk.errors and all(e.warp_synchronous for e in chk.errors)
    assert {e.kind for e in chk.errors} == {"RAW hazard", "WAR hazard"}
    folds = [f"s[t] += s[t + {k}];" for k in (16, 8, 4, 2, 1)]
    raw_reads = {e.accesses[1].source_line.rsplit("/", 1)[-1] for e in chk.errors if e.kind == "RAW hazard"}
    assert raw_reads == {line_of(f, kernel_path("scheduling.cu")) for f in folds}
    text = chk.report()
    assert "Potential RAW hazard (warp-synchronous) detected at __shared__" in text
    assert "needs __syncwarp() on Volta and later" in text
    assert text.rstrip().endswith(f"ERROR SUMMARY: {len(chk.errors)} errors")


def test_syncwarp_reduction_is_clean(scheduling_kernels):
    x = np.arange(4 * 64, dtype=np.int32).reshape(4, 64)
    out = cp.zeros(4, dtype=cp.int32)
    chk = racecheck(scheduling_kernels.get_function("syncwarp_reduce"), (4,), (64,), (cp.asarray(x), out))
    assert chk.ok, chk.report()
    assert np.array_equal(out.get(), x.sum(axis=1))


def test_syncthreads_tree_reduction_is_clean(hazards):
    x = np.random.default_rng(2).integers(-9, 9, (3, 128)).astype(np.int32)
    out = cp.zeros(3, dtype=cp.int32)
    chk = racecheck(hazards.get_function("tree_reduce"), (3,), (128,), (cp.asarray(x), out))
    assert chk.ok, chk.report()
    assert np.array_equal(out.get(), x.sum(axis=1))


def test_missing_syncthreads_is_reported_with_both_source_lines(hazards):
    x = cp.asarray(np.arange(64, dtype=np.int32))
    chk = racecheck(hazards.get_function("missing_barrier"), (1,), (64,), (x, cp.zeros(64, dtype=cp.int32)))
    assert len(chk.errors) == 1
    error = chk.errors[0]
    assert error.kind == "RAW hazard" and not error.warp_synchronous
    write, read = error.accesses
    assert (write.what, read.what) == ("Write", "Read")
    assert write.source_line.endswith(line_of("s[t] = x[t];"))
    assert read.source_line.endswith(line_of("out[t] = s[63 - t];"))
    assert write.block == read.block == (0, 0, 0)
    assert write.thread[0] // 32 != read.thread[0] // 32                 # threads of different warps
    assert write.thread[0] == 63 - read.thread[0]
    assert error.address == 4 * write.thread[0] and error.space == "shared"
    assert "st.shared" in write.instruction and "ld.shared" in read.instruction
    assert "no __syncthreads() lies between the accesses" in error.text()


def test_war_hazard_is_found_when_the_writer_read_the_word_last(hazards):
    x = cp.asarray(np.arange(64, dtype=np.int32))
    chk = racecheck(hazards.get_function("neighbour_overwrite"), (1,), (64,), (x, cp.zeros(64, dtype=cp.int32)))
    kinds = {(e.kind, e.warp_synchronous) for e in chk.errors}
    assert ("WAR hazard", True) in kinds and ("WAR hazard", False) in kinds
    war = next(e for e in chk.errors if e.kind == "WAR hazard")
    assert war.accesses[0].source_line.endswith(line_of("int a = s[(t + 1) % 64];"))
    assert war.accesses[1].source_line.endswith(line_of("s[t] = a + b;"))


def test_atomics_and_byte_arrays_are_clean(hazards):
    x = cp.asarray(np.arange(64, dtype=np.int32))
    out = cp.zeros(8, dtype=cp.int32)
    assert racecheck(hazards.get_function("shared_histogram"), (1,), (64,), (x, out)).ok
    assert np.array_equal(out.get(), np.full(8, 8))
    chars = cp.zeros(64, dtype=cp.int8)
    assert racecheck(hazards.get_function("byte_array"), (1,), (64,), (chars,)).ok


def test_no_session_no_check(hazards):
    from warpsim.sanitizer.active import active_checkers
    assert active_checkers() == ()
    x = cp.asarray(np.arange(64, dtype=np.int32))
    hazards.get_function("missing_barrier")((1,), (64,), (x, cp.zeros(64, dtype=cp.int32)))
    with cp.check("racecheck") as chk:
        assert active_checkers() == (chk,)
    assert active_checkers() == () and chk.launches == 0
