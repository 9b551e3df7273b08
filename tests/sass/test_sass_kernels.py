"""What ptxas makes of real kernels, as the SASS IR says it (tests/sass/kernels.cu)."""

from __future__ import annotations

import pathlib

import pytest

KERNELS = pathlib.Path(__file__).with_name("kernels.cu")
pytestmark = [pytest.mark.sass, pytest.mark.nvrtc]

ALL = ["unrolled_sum", "ternary", "predicated", "long_branch", "early_return", "shared_vector",
       "shfl_reduce", "histogram"]


def reachable(function) -> list:
    """The instructions of the blocks control can reach (not ptxas's padding after the last EXIT)."""
    return [ins for block in function.blocks if block.reachable for ins in block.instructions(function)]


def opcodes(function) -> set:
    return {ins.opcode for ins in reachable(function)}


def test_every_kernel_is_there_and_is_an_entry(kernels_sass):
    assert sorted(kernels_sass.kernel_names) == sorted(ALL)
    assert kernels_sass.arch == "sm_90" and kernels_sass.ptxas_version


def test_unrolled_loop_has_no_branch_and_eight_loads(kernels_sass):
    fn = kernels_sass.kernel("unrolled_sum")
    body = reachable(fn)
    assert "BRA" not in opcodes(fn)
    assert sum(ins.opcode == "LDG" for ins in body) == 8
    assert sum(ins.opcode == "FADD" for ins in body) >= 7
    assert len([b for b in fn.blocks if b.reachable]) == 1


def test_ternary_is_a_select_without_a_branch(kernels_sass):
    fn = kernels_sass.kernel("ternary")
    assert {"SEL", "FSEL"} & opcodes(fn)
    assert "BRA" not in opcodes(fn)
    sel = next(ins for ins in reachable(fn) if ins.opcode in ("SEL", "FSEL"))
    assert sel.operands[-1].kind == "pred"            # the condition is the last operand


def test_short_ternary_can_be_predicated_code_instead(kernels_sass):
    fn = kernels_sass.kernel("predicated")
    guarded = [ins for ins in reachable(fn) if ins.is_guarded and ins.opcode != "EXIT"]
    assert guarded and "BRA" not in opcodes(fn)
    assert guarded[0].guard.kind == "pred" and guarded[0].guard.invert in (True, False)


def test_long_if_else_branches_and_reconverges(kernels_sass):
    fn = kernels_sass.kernel("long_branch")
    assert {"BRA", "BSSY", "BSYNC"} <= opcodes(fn)
    bssy = next(ins for ins in fn.instructions if ins.opcode == "BSSY")
    target = bssy.branch_target
    assert target in fn.labels
    # BSSY names the reconvergence point: the instruction after the BSYNC that waits for the paths
    assert fn.instructions[fn.labels[target] - 1].opcode == "BSYNC"
    guarded_branch = next(ins for ins in reachable(fn) if ins.opcode == "BRA" and ins.is_guarded)
    block = fn.block_of(fn.index_of_offset[guarded_branch.offset])
    assert len(block.successors) == 2                 # taken and fall-through


def test_early_return_is_a_predicated_exit(kernels_sass):
    fn = kernels_sass.kernel("early_return")
    exits = [ins for ins in reachable(fn) if ins.opcode == "EXIT"]
    assert any(ins.is_guarded and ins.guard.name.startswith("P") for ins in exits)
    assert "BRA" not in opcodes(fn)
    exit_block = fn.block_of(fn.index_of_offset[next(i for i in exits if i.is_guarded).offset])
    assert exit_block.successors == (exit_block.index + 1,)   # the lanes that stay fall through


def test_contiguous_shared_loads_become_one_vector_load(kernels_sass):
    fn = kernels_sass.kernel("shared_vector")
    full = {ins.full_opcode for ins in reachable(fn)}
    assert {"LDS.128", "LDS.64"} & full
    assert "BAR" in opcodes(fn) and "STS" in opcodes(fn)
    lds = next(ins for ins in reachable(fn) if ins.opcode == "LDS")
    assert lds.operands[1].kind == "mem"


def test_shuffles_keep_their_mode(kernels_sass):
    full = {ins.full_opcode for ins in reachable(kernels_sass.kernel("shfl_reduce"))}
    assert {"SHFL.BFLY", "SHFL.DOWN"} <= full
    shfl = next(ins for ins in reachable(kernels_sass.kernel("shfl_reduce")) if ins.opcode == "SHFL")
    assert [op.kind for op in shfl.operands][:3] == ["pred", "reg", "reg"]


def test_atomics_are_atomg_when_used_and_red_when_not(kernels_sass):
    ops = opcodes(kernels_sass.kernel("histogram"))
    assert {"ATOMG", "REDG"} & ops or {"ATOMG", "RED"} & ops
    assert "ATOMG" in ops                              # the result of the first is used


def test_parameters_come_from_constant_bank_zero_at_0x210(kernels_sass):
    for name in ALL:
        consts = [op for ins in kernels_sass.kernel(name).instructions for op in ins.operands
                  if op.kind == "const"]
        assert any(op.bank == 0 and op.offset == 0x210 for op in consts), name
        assert all(op.offset >= 0 for op in consts)


def test_every_instruction_has_control_codes(kernels_sass):
    for fn in kernels_sass.functions.values():
        for ins in fn.instructions:
            c = ins.control
            assert c is not None and 0 <= c.stall <= 15
            assert c.write_barrier in (None, 0, 1, 2, 3, 4, 5) and c.read_barrier in (None, 0, 1, 2, 3, 4, 5)
            assert 0 <= c.wait_mask < 64 and ins.encoding is not None


def test_a_global_load_sets_a_scoreboard_its_user_waits_on(kernels_sass):
    body = reachable(kernels_sass.kernel("early_return"))
    load = next(ins for ins in body if ins.opcode == "LDG")
    assert load.control.write_barrier is not None
    later = body[body.index(load) + 1:]
    assert any(ins.control.wait_mask >> load.control.write_barrier & 1 for ins in later)


def test_ptx_lines_are_lines_of_the_ptx(kernels_sass, kernels_ptx):
    count = len(kernels_ptx.splitlines())
    for fn in kernels_sass.functions.values():
        lines = [ins.ptx_line for ins in reachable(fn)]
        assert all(line is not None and 1 <= line <= count for line in lines)
    # the SHFL came from a shfl.sync line of the PTX
    shfl = next(ins for ins in kernels_sass.kernel("shfl_reduce").instructions if ins.opcode == "SHFL")
    assert "shfl.sync" in kernels_ptx.splitlines()[shfl.ptx_line - 1]


def test_source_lines_name_the_cu_file(kernels_sass):
    text = KERNELS.read_text().splitlines()
    fn = kernels_sass.kernel("early_return")
    exit_ = next(ins for ins in fn.instructions if ins.opcode == "EXIT" and ins.is_guarded)
    file, line = exit_.source
    assert pathlib.Path(file).name == "kernels.cu"
    assert "return" in text[line - 1]
    for block in fn.blocks:
        assert all(pathlib.Path(f).name == "kernels.cu" for f, _ in block.source_lines)


def test_blocks_cover_each_function_once(kernels_sass):
    for fn in kernels_sass.functions.values():
        covered = [k for block in fn.blocks for k in range(block.start, block.end)]
        assert covered == list(range(len(fn.instructions)))
        for block in fn.blocks:
            assert all(0 <= s < len(fn.blocks) for s in block.successors)
