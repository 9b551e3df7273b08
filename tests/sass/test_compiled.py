"""The SASS executor's compiled tier (sass/compiled/) gives the NumPy steps' bits, instruction by instruction.

Every value instruction of real kernels (tests/sass/compiled_kernels.cu and
kernels.cu, through NVRTC and ptxas) that the tier encodes runs twice from one
random state: as its NumPy step under its guard, as execute_block runs it, and
as a one-instruction segment. Registers (R, UR), predicates (P, UP) and the
guard's count must come out equal, for groups of whole warps, of scattered
lanes, and of one lane, with uniform registers uniform per warp as the
hardware keeps them. Whole launches then run with the tier on and off.
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import warpsim as cp
from warpsim.sass import sass_for_ptx
from warpsim.sass.compiled import tier_report
from warpsim.sass.compiled.layout import Unencodable, encode
from warpsim.sass.compiled.segment import Segment
from warpsim.sass.executor.operands import predicate
from warpsim.sass.executor.program import SassProgram
from warpsim.sass.executor.state import PT_ROW, Group, SassState

pytestmark = [pytest.mark.sass, pytest.mark.nvrtc]

HERE = pathlib.Path(__file__).parent
SOURCES = [HERE / "compiled_kernels.cu", HERE / "kernels.cu"]
N_WARPS = 4


class _Memory:
    buffer = np.zeros(8, dtype=np.uint8)


@pytest.fixture(scope="module")
def programs() -> list:
    from warpsim.frontends.nvrtc import compile_cuda
    found = []
    for path in SOURCES:
        module = sass_for_ptx(compile_cuda(path.read_text(), name=str(path)).ptx)
        found += [SassProgram(module.kernel(name)) for name in module.kernel_names]
    return found


def random_state(program, rng, n_warps: int = N_WARPS) -> SassState:
    banks = {bank: rng.integers(0, 256, 4096, dtype=np.uint8) for bank in range(4)}
    st = SassState(program, (1, 1, 1), (32 * n_warps, 1, 1), np.arange(1), banks, 0, 16, _Memory())
    st.R[:] = rng.integers(0, 2**32, st.R.shape, dtype=np.uint64).astype(np.uint32)
    special = rng.choice(np.array([0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x3F800000, 0x7F800000, 0xFF800000,
                                   0x7FC00000, 0x00000001, 0x80000001, 0x00800000], dtype=np.uint32), st.R.shape)
    use = rng.random(st.R.shape) < 0.3
    st.R[use] = special[use]
    per_warp = rng.integers(0, 2**32, (st.UR.shape[0], n_warps), dtype=np.uint64).astype(np.uint32)
    st.UR[:] = np.repeat(per_warp, 32, axis=1)
    st.P[:] = rng.random(st.P.shape) < 0.5
    st.UP[:] = np.repeat(rng.random((8, n_warps)) < 0.5, 32, axis=1)
    st.P[PT_ROW] = st.UP[PT_ROW] = True
    return st


def groups(rng) -> list:
    n = 32 * N_WARPS
    scattered = np.flatnonzero(rng.random(n) < 0.4)
    return [np.arange(n), scattered if len(scattered) else np.array([5]), np.array([37])]


def run_numpy(step, ins, st, g) -> int:
    """The step under its guard, as execute_block runs one: the count of lanes whose guard held."""
    if not ins.is_guarded:
        step.run(st, g)
        return g.n
    on = np.array(np.broadcast_to(predicate(ins.guard)(st, g), (g.n,)), dtype=bool)   # before the step writes
    if on.any():
        step.run(st, g.subset(on))
    return int(np.count_nonzero(on))


def assert_both_ways_equal(program, step, segment, idx, rng, where: str) -> None:
    """From one random state, the NumPy step under its guard and the one-instruction segment give the
    same registers, predicates and guard count."""
    assert_segment_equal(program, [step], segment, idx, rng, where)


def assert_segment_equal(program, steps: list, segment, idx, rng, where: str, n_warps: int = N_WARPS) -> None:
    """From one random state, the NumPy steps under their guards, one after the other, and the segment
    give the same registers, predicates and guard counts: the segment run on a tile of registers
    (tiled.py) where it can be, and instruction by instruction (run_segment) too."""
    st = random_state(program, rng, n_warps)
    start = {name: getattr(st, name).copy() for name in ("R", "UR", "P", "UP")}
    counts = [run_numpy(step, step.ins, st, Group(idx)) for step in steps]
    plan = segment.tiled
    for tiled in ((plan, None) if plan is not None else (None,)):
        twin = random_state(program, np.random.default_rng(0), n_warps)
        for name, rows in start.items():
            getattr(twin, name)[:] = rows
        pred_on = [None] * segment.stop
        segment.tiled = tiled
        try:
            segment.run(twin, Group(idx), pred_on)
        finally:
            segment.tiled = plan
        for name in ("R", "UR", "P", "UP"):
            mismatch = np.argwhere(getattr(st, name) != getattr(twin, name))
            assert not len(mismatch), f"{name} differs at {mismatch[:4].tolist()} (tiled: {tiled is not None}): {where}"
        for step, count, on in zip(steps, counts, pred_on[segment.start:]):
            if step.ins.is_guarded:
                assert on == count, where


def encodable(programs):
    for program in programs:
        for block in program.blocks:
            steps = block.steps if block.control is None else block.steps[:-1]
            for position, step in enumerate(steps):
                try:
                    encode(step.ins, [])
                except Unencodable:
                    continue
                yield program, block, position, step


def test_every_encoded_instruction_gives_the_numpy_steps_bits(programs):
    rng = np.random.default_rng(7)
    checked, opcodes = 0, set()
    for program, block, position, step in encodable(programs):
        ins = step.ins
        specs: list = []
        segment = Segment(0, [encode(ins, specs)], [ins.is_guarded], specs)
        for trial in range(3):
            for idx in groups(rng):
                where = f"{program.name} /*{ins.offset:04x}*/ {ins.text} (lanes {idx[:6]}..., trial {trial})"
                assert_both_ways_equal(program, step, segment, idx, rng, where)
        checked += 1
        opcodes.add(ins.full_opcode)
    assert checked > 200 and len(opcodes) > 30, (checked, sorted(opcodes))


# Forms the kernels above do not give ptxas cause to write: a destination that is also a source
# (read before any lane writes, as the hardware reads), an instruction writing its own guard,
# uniform loop counters and predicates, carries in and out, the packed and wide forms.
HANDWRITTEN = [
    "ISETP.NE.OR P4, P3, R2, -0x5, P4",
    "FSETP.EQ.AND P1, P0, -|R6|, UR4, P1",
    "PLOP3.LUT P0, P1, P0, P1, PT, 0x80, 0x8",
    "@P3 FSETP.GT.AND P3, PT, R2, R5, PT",
    "@!P2 ISETP.GE.U32.AND P2, P5, R7, c[0x0][0x10], P2",
    "UISETP.GE.AND UP0, UPT, UR4, UR5, UPT",
    "UIADD3 UR4, UR4, 0x1, URZ",
    "@UP0 UIADD3 UR6, UP1, UR6, UR7, URZ",
    "IADD3 R2, P0, P1, R2, -R3, RZ",
    "IADD3.X R3, R4, ~R5, RZ, P0, P1",
    "IMAD.WIDE.U32 R4, R2, R3, R4",
    "IMAD.WIDE R6, R6, R7, R6",
    "IMAD.WIDE R2, R3, -0x4, RZ",
    "IMAD.WIDE.U32 R2, R2, 0x8, R3",
    "IMAD.WIDE R4, R5, -0x10, UR4",
    "IMAD.HI.U32 R5, P1, R2, R3, R6",
    "LEA.HI.X R7, R2, R3, R4, 0x2, P0",
    "SHF.R.S32.HI R9, RZ, 0x1f, R9",
    "LOP3.LUT P0, R3, R3, R4, R5, 0x96, !PT",
    "SEL R2, R2, R3, !P1",
    "FFMA R2, R2, -R3, R2",
    "FMNMX R4, R4, -R4, !PT",
]


def test_handwritten_forms_give_the_numpy_steps_bits(programs):
    from warpsim.sass.disasm import parse_instruction
    from warpsim.sass.executor.table import build_step
    program = max(programs, key=lambda p: p.registers)
    rng = np.random.default_rng(11)
    encoded = 0
    for text in HANDWRITTEN:
        ins = parse_instruction(text)
        step = build_step(ins)
        specs: list = []
        try:
            segment = Segment(0, [encode(ins, specs)], [ins.is_guarded], specs)
        except Unencodable:
            continue
        encoded += 1
        for idx in groups(rng) * 4:
            assert_both_ways_equal(program, step, segment, idx, rng, text)
    assert encoded >= len(HANDWRITTEN) - 2


def test_whole_segments_give_the_numpy_steps_bits(programs):
    """Every segment of the kernels, run whole (on a tile where it can be) over groups of more lanes
    than a tile's chunk holds, gives the bits of its NumPy steps run one after the other."""
    from warpsim.sass.compiled.tiled import TILE_CHUNK
    rng = np.random.default_rng(5)
    n_warps = 3 * TILE_CHUNK // 32 + 5
    tiled = whole = 0
    for program in programs:
        for index, runs in program.segments.items():
            block = program.blocks[index]
            for segment in runs.values():
                steps = block.steps[segment.start:segment.stop]
                n = 32 * n_warps
                scattered = np.flatnonzero(rng.random(n) < 0.7)
                for idx in (np.arange(n), scattered, np.array([n - 1])):
                    where = f"{program.name} block {index} steps {segment.start}..{segment.stop} ({len(idx)} lanes)"
                    assert_segment_equal(program, steps, segment, idx, rng, where, n_warps)
                whole += segment.stop - segment.start > 1
                tiled += segment.tiled is not None
    assert whole > 20 and tiled > 20, (whole, tiled)


def test_the_tier_covers_the_value_instructions_of_loops(programs):
    """What stays NumPy is said per opcode; the adder, logic, shift and move forms are all covered."""
    covered = set()
    for program in programs:
        for index, runs in program.segments.items():
            block = program.blocks[index]
            for segment in runs.values():
                covered |= {block.steps[p].ins.opcode for p in range(segment.start, segment.stop)}
        assert all(isinstance(why, str) and why for why in tier_report(program)["numpy"].values())
    assert {"IADD3", "IMAD", "LEA", "LOP3", "SHF", "MOV", "SEL"} <= covered


SOURCE = (HERE / "compiled_kernels.cu").read_text()


def test_whole_launches_equal_with_the_tier_on_and_off(monkeypatch):
    """Profiled launches (the SASS run alone) write the same bytes and count the same with machine code."""
    rng = np.random.default_rng(3)
    module = cp.RawModule(code=SOURCE)
    n = 8192                    # several of the tier's chunks of lanes (segment.CHUNK)
    a = cp.asarray(rng.integers(-2**62, 2**62, n, dtype=np.int64))
    b = cp.asarray(rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32))
    f = cp.asarray(rng.standard_normal(2 * n).astype(np.float32))
    d = cp.asarray(rng.standard_normal(2 * n))
    x = cp.asarray(rng.standard_normal(n * 4).astype(np.float32))
    a_reversed, f_reversed = cp.asarray(a.get()[::-1].copy()), cp.asarray(f.get()[::-1].copy())
    launches = {
        "integers": lambda out: module.get_function("integers")((n // 128,), (128,), (a, b, out, np.int32(5))),
        "comparisons": lambda out: module.get_function("comparisons")((n // 128,), (128,), (a, a_reversed, f, d, out)),
        "floats": lambda out: module.get_function("floats")((n // 128,), (128,), (f, f_reversed, out, cp.zeros(n, dtype=np.float64), np.int32(4))),
        "uniform_loops": lambda out: module.get_function("uniform_loops")((n // 512,), (128,), (x, out, np.int32(2), np.int32(3))),
        "divergent_steps": lambda out: module.get_function("divergent_steps")((n // 128,), (128,), (a, b, out, np.int32(60))),
    }
    segments_run = []
    original = Segment.run

    def counted(self, st, g, pred_on):
        segments_run.append(g.n)
        return original(self, st, g, pred_on)
    monkeypatch.setattr(Segment, "run", counted)
    for name, launch in launches.items():
        results = []
        for tier in ("numpy", "compiled"):
            out = cp.zeros(n * 2, dtype=np.int64)
            with cp.settings(engine=tier), cp.profile() as prof:
                launch(out)
            assert prof.launches[0].level == "sass", name
            results.append((out.get(), prof.launches[0].metrics))
        (out_numpy, counts_numpy), (out_compiled, counts_compiled) = results
        np.testing.assert_array_equal(out_numpy, out_compiled, err_msg=name)
        assert out_numpy.any(), name
        assert counts_numpy == counts_compiled, name
    assert segments_run and max(segments_run) > 2048     # lanes scattered by the loop's exits, many chunks


def test_a_guarded_branch_in_one_pass_gives_the_numpy_steps_next_pcs(programs):
    """execute_block's one machine-code pass for `@P BRA L` (Select.branch) writes the next PCs and the
    guard's count that the NumPy path (gather the guard, np.where, scatter to pc) gives."""
    from warpsim.sass.compiled.rounds import Select
    from warpsim.sass.disasm import parse_instruction
    program = programs[0]
    rng = np.random.default_rng(13)
    for text in ("@P3 BRA 0x40", "@!P0 BRA 0x40", "@!PT BRA 0x40", "@UP1 BRA 0x40"):
        guard = parse_instruction(text).guard
        for idx in groups(rng):
            st = random_state(program, rng)
            st.pc[:] = rng.integers(0, 50, st.n)
            select = Select(st)
            expected_pc = st.pc.copy()
            rows = st.P if guard.kind == "pred" else st.UP
            on = rows[PT_ROW if guard.number is None else guard.number][idx] != bool(guard.invert)
            expected_pc[idx] = np.where(on, 7, 3)
            next_pc = np.empty(len(idx), dtype=np.int64)
            taken = select.branch(st, Group(idx), guard, 7, 3, next_pc)
            np.testing.assert_array_equal(next_pc, expected_pc[idx], err_msg=text)
            np.testing.assert_array_equal(st.pc, expected_pc, err_msg=text)
            assert taken == int(np.count_nonzero(on)), text


def _near_smallest_normal(rng, n: int) -> np.ndarray:
    """f32 bits around 2**-126: the smallest normals a few ulps either side (subnormals below), factors
    a bit either side of 2**-63 (0x1FFFFFFF * 0x20000000 is 2**-126 - 2**-150: 2**-126 after rounding, a
    tiny result before, which .FTZ flushes), signed zeros, NaN and infinities."""
    near = (0x00800000 + rng.integers(-4, 5, n)).astype(np.uint32)
    roots = rng.choice(np.array([0x1FFFFFFF, 0x20000000, 0x20000001, 0x1FFFFFFE], dtype=np.uint32), n)
    special = rng.choice(np.array([0x7FC00000, 0x7F800000, 0xFF800000, 0x00000001, 0x3F800000, 0x3F000000],
                                  dtype=np.uint32), n)
    zeros = rng.integers(0, 2, n).astype(np.uint32) << np.uint32(31)
    pick = rng.integers(0, 8, n)
    bits = np.where(pick == 0, near, np.where(pick < 5, roots, np.where(pick < 7, zeros, special)))
    return bits ^ (rng.integers(0, 2, n).astype(np.uint32) << np.uint32(31)) * (pick < 5)


def test_ftz_arithmetic_near_the_smallest_normal_gives_the_numpy_steps_bits(programs):
    """FADD/FMUL/FFMA.FTZ to nearest (floating.run_rows' own loops for the common form) on operands whose
    results round to, or just below, the smallest normal (the rescaled test of a tiny result), signed
    zeros, NaN and infinities: the NumPy step's bits, on a tile and instruction by instruction."""
    from warpsim.sass.disasm import parse_instruction
    from warpsim.sass.executor.table import build_step
    program = max(programs, key=lambda p: p.registers)
    rng = np.random.default_rng(13)
    hit_smallest = flushed_tiny = 0
    for text in ("FFMA.FTZ R2, R3, R4, R5", "FMUL.FTZ R2, R3, R4", "FADD.FTZ R2, R3, R4", "FFMA.FTZ R2, R3, R4, -R5",
                 "FFMA.FTZ R2, R3, 0.5, R5"):
        ins = parse_instruction(text)
        step = build_step(ins)
        specs: list = []
        segment = Segment(0, [encode(ins, specs)], [False], specs)
        assert segment.tiled is not None, text
        for idx in groups(rng) * 3:
            st = random_state(program, rng)
            for row in (3, 4, 5):
                st.R[row] = _near_smallest_normal(rng, st.R.shape[1])
            start = {name: getattr(st, name).copy() for name in ("R", "P")}
            step.run(st, Group(idx))
            hit_smallest += int(np.count_nonzero((st.R[2][idx] & 0x7FFFFFFF) == 0x00800000))
            a, b = start["R"][3][idx] & 0x7FFFFFFF, start["R"][4][idx] & 0x7FFFFFFF
            flushed_tiny += int(np.count_nonzero((np.minimum(a, b) == 0x1FFFFFFF) & (np.maximum(a, b) == 0x20000000)
                                                 & ((st.R[2][idx] & 0x7FFFFFFF) == 0)))
            for tiled in (segment.tiled, None):
                twin = random_state(program, np.random.default_rng(0))
                twin.R[:], twin.P[:] = start["R"], start["P"]
                plan, segment.tiled = segment.tiled, tiled
                try:
                    segment.run(twin, Group(idx), [None])
                finally:
                    segment.tiled = plan
                mismatch = np.flatnonzero(st.R[2] != twin.R[2])
                assert not len(mismatch), (text, tiled is not None, [[hex(start["R"][k][i]) for k in (3, 4, 5)]
                                                                    for i in mismatch[:2]])
    assert hit_smallest > 50 and flushed_tiny > 20
