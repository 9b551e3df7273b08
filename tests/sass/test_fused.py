"""Generated segments (sass/compiled/fused.py) give run_tiled's bits, and leave launches as they were.

Every segment of real kernels (fused_kernels.cu, and as a slow sweep the
kernels of test_compiled.py) that the generated code covers runs from one
random state twice: as the program's generated function and on the tile
(tiled.run_tiled, through Segment.run without it). Registers, predicates and
every instruction's guard count must come out equal bit for bit, for all the
lanes of a batch and for scattered ones. A profiled launch then gives the same
outputs and counters on the NumPy tier and with the generated code.
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import warpsim as cp
from warpsim.sass import sass_for_ptx
from warpsim.sass.compiled.fused import call, fused_for, program_source
from warpsim.sass.compiled.segment import segment_buffers
from warpsim.sass.executor.program import SassProgram
from warpsim.sass.executor.state import PT_ROW, Group

from test_compiled import SOURCES as COMPILED_SOURCES, random_state

pytestmark = [pytest.mark.sass, pytest.mark.nvrtc]

HERE = pathlib.Path(__file__).parent
KERNELS = HERE / "fused_kernels.cu"
N_WARPS = 8


def programs_of(path: pathlib.Path, options=()) -> list:
    from warpsim.frontends.nvrtc import compile_cuda
    module = sass_for_ptx(compile_cuda(path.read_text(), options=options, name=str(path)).ptx)
    return [SassProgram(module.kernel(name)) for name in module.kernel_names]


@pytest.fixture(scope="module")
def programs() -> list:
    return programs_of(KERNELS) + programs_of(KERNELS, ("-use_fast_math",))


def fused_segments(program):
    for runs in program.segments.values():
        for segment in runs.values():
            if segment.tiled is not None:
                yield segment


def assert_fused_equals_tiled(program, rng) -> int:
    """Every segment the program's function covers, from random states, against the tile; returns how
    many segments it covered."""
    function = fused_for(program, "compiled", 1 << 20, every=True)
    _, why = program_source(program, every=True)
    assert function is not None, why
    covered = 0
    n = 32 * N_WARPS
    for segment in fused_segments(program):
        for lanes in (np.arange(n), np.flatnonzero(rng.random(n) < 0.4)):
            st = random_state(program, rng, N_WARPS)
            assert st.R.any() and st.P[:PT_ROW].any() and not st.P[:PT_ROW].all()
            twin = random_state(program, np.random.default_rng(0), N_WARPS)
            for name in ("R", "UR", "P", "UP"):
                getattr(twin, name)[:] = getattr(st, name)
            pred_on = [None] * segment.stop
            segment.run(twin, Group(lanes), pred_on)             # on the tile (twin.fused is None)
            counts = np.zeros(len(segment.code), dtype=np.int64)
            ran = call(function, segment, st, lanes.astype(np.uint64), segment_buffers(st, segment.specs)[0], counts)
            if not ran:
                assert segment.number in why, f"segment {segment.number} neither fused nor said why"
                break
            where = f"{program.name} segment {segment.number}: {segment.texts}"
            for name in ("R", "UR", "P", "UP"):
                mismatch = np.argwhere(getattr(st, name) != getattr(twin, name))
                assert not len(mismatch), f"{name} differs at {mismatch[:4].tolist()}: {where}"
            for k, guarded in enumerate(segment.guarded):
                assert counts[k] == (pred_on[segment.start + k] if guarded else len(lanes)), where
        else:
            covered += 1
    return covered


def test_fused_segments_give_the_tiles_bits(programs):
    rng = np.random.default_rng(11)
    covered = sum(assert_fused_equals_tiled(program, rng) for program in programs)
    guarded = sum(any(s.guarded) for p in programs for s in fused_segments(p)
                  if s.number not in program_source(p, every=True)[1])
    assert covered >= 10 and guarded >= 2, (covered, guarded)


@pytest.mark.slow
def test_fused_segments_of_the_compiled_tiers_kernels_give_the_tiles_bits():
    rng = np.random.default_rng(12)
    covered = 0
    for path in COMPILED_SOURCES:
        covered += sum(assert_fused_equals_tiled(program, rng) for program in programs_of(path))
    assert covered >= 20


def test_profiled_launches_are_unchanged_by_the_generated_segments():
    """Outputs and counters of profiled launches equal on the NumPy tier and with the generated code, which ran."""
    for options in ((), ("-use_fast_math",)):                 # the launches' own selection fuses their loops
        for program in programs_of(KERNELS, options):
            if program.name in ("guarded_integers", "float_rounding"):
                _, why = program_source(program)
                assert len(why) < sum(len(runs) for runs in program.segments.values()), (program.name, why)
    rng = np.random.default_rng(5)
    n = 8192
    a = cp.asarray(rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32))
    f = cp.asarray(rng.standard_normal(2 * n).astype(np.float32))
    for options in ((), ("-use_fast_math",)):
        module = cp.RawModule(code=KERNELS.read_text(), options=options)
        launches = {
            "guarded_integers": lambda: (cp.zeros(n, dtype=np.uint32), cp.zeros(n, dtype=np.uint64)),
            "float_rounding": lambda: (cp.zeros(n, dtype=np.float32),),
        }
        for name, outputs in launches.items():
            results = []
            for tier in ("numpy", "compiled"):
                outs = outputs()
                args = (a, *outs, np.int32(3)) if name == "guarded_integers" else (f, *outs, np.int32(3))
                with cp.settings(engine=tier, sass_verify=False), cp.profile(level="sass") as prof:
                    module.get_function(name)((n // 128,), (128,), args)
                results.append(([o.get() for o in outs], prof.launches[0].metrics))
            (outs_numpy, counts_numpy), (outs_fused, counts_fused) = results
            for x, y in zip(outs_numpy, outs_fused):
                np.testing.assert_array_equal(x, y, err_msg=name)
            assert any(o.any() for o in outs_numpy), name
            assert counts_numpy == counts_fused, name
