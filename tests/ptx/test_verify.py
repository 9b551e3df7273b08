"""The PTX verifier: what ptxas rejects is rejected at load, with file:line:column."""

import pytest

import warpsim as cp
from warpsim.errors import PtxVerifyError
from warpsim.machine.device import Device
from warpsim.ptx.parser import parse_ptx
from warpsim.machine.isa.operand_types import operand_types
from warpsim.ptx.verify import verify_module

HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"
REGS = (".reg .b32 %r<4>;\n.reg .u32 %u<3>;\n.reg .f32 %f<3>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>; "
        ".reg .b16 %h<2>; .reg .f64 %fd<2>;")


def kernel(body: str) -> str:
    return HEADER + f".visible .entry k(.param .u64 out)\n{{\n{REGS}\n{body}\nret;\n}}\n"


def problems(body: str) -> list:
    with pytest.raises(PtxVerifyError) as caught:
        verify_module(parse_ptx(kernel(body), "v.ptx"), operand_types=operand_types)
    return caught.value


REJECTED = {
    "undeclared register": ("add.s32 %r1, %r2, %q7;", "'%q7' is not a declared register"),
    "register past its range": ("mov.u32 %r4, 1;", "'%r4' is not a declared register"),
    "unknown label": ("bra ELSEWHERE;", "not a label"),
    "unknown symbol": ("ld.global.u32 %r1, [nowhere];", "'nowhere' is not a declared variable"),
    "float register in an integer add": ("add.s32 %r1, %f1, %r2;", "'%f1' is a .f32 register"),
    "u32 register in a float add": ("add.f32 %f1, %u1, %f2;", "'%u1' is a .u32 register"),
    "64-bit register in a 32-bit op": ("and.b32 %r1, %rd1, %r2;", "'%rd1' is a .b64 register"),
    "mul.wide destination too narrow": ("mul.wide.u32 %r1, %r2, %r3;", "destination '%r1'"),
    "predicate in an integer op": ("add.u32 %r1, %p1, %r2;", "'%p1' is a .pred register"),
    "setp comparing mismatched widths": ("setp.lt.s32 %p1, %rd1, %r2;", "'%rd1'"),
    "vector width and register count differ": ("ld.global.v4.u32 {%r0, %r1}, [%rd1];",
                                               "moves 4 value(s) but names 2"),
    "two state spaces": ("ld.global.shared.u32 %r1, [%rd1];", "names 2 state spaces"),
    "store to .const": ("st.const.u32 [%rd1], %r1;", "read-only .const"),
    "missing operand": ("add.u32 %r1, %r2;", "takes 3 operands, 2 given"),
    "missing type": ("add %r1, %r2, %r3;", "names no operand type"),
    # the rules below come from the instruction table (machine/isa/operand_types.py); each was
    # checked against ptxas 13.5 (tests/ptx/test_verify_types.py does so on mutants)
    "64-bit load into a 32-bit register": ("ld.param.u64 %r1, [out];", "destination '%r1'"),
    "float register as an address": ("st.global.u32 [%f1], %r1;", "address register '%f1'"),
    "32-bit global address": ("ld.global.u32 %r1, [%r2];", "a global address is 64-bit"),
    "integer literal for a float": ("add.f32 %f1, %f2, 1;", "'1' is an integer"),
    "float literal for an integer": ("add.s32 %r1, %r2, 1.5;", "floating-point literal"),
    "0f bits for a 64-bit .b": ("and.b64 %rd1, %rd2, 0f3F800000;", "needs 64 bits"),
    "cvt into a narrower register": ("cvt.u64.u32 %r1, %r2;", "destination '%r1'"),
    "vector of mixed widths": ("ld.global.v2.u32 {%r1, %rd1}, [%rd1];", "mixes registers"),
    "selp's predicate a .b32": ("selp.b32 %r1, %r2, %r3, %r1;", "needs .pred"),
    "atom value of another width": ("atom.global.add.u32 %r1, [%rd1], %rd2;", "'%rd2'"),
    "cvta of a 32-bit register": ("cvta.to.global.u64 %rd1, %r1;", "'%r1'"),
    "szext's width a 64-bit register": ("szext.clamp.s32 %r1, %r2, %rd1;", "'%rd1'"),
    "u16 load into a float register": ("ld.global.u16 %f1, [%rd1];", "destination '%f1'"),
    "f32 load into an f64 register": ("ld.global.f32 %fd1, [%rd1];", "destination '%fd1'"),
}


@pytest.mark.parametrize("body,expected", REJECTED.values(), ids=REJECTED.keys())
def test_rejected_with_file_line_and_column(body, expected):
    error = problems(body)
    assert expected in str(error)
    line, col, _ = error.problems[0]
    assert (line, col) == (11, 1) and str(error).startswith("v.ptx:11:1:")


ACCEPTED = [
    "add.s32 %r1, %r2, %u1;",                  # signed and unsigned of one width mix
    "add.f32 %f1, %r1, %f2;",                  # a .b register holds any type of its width
    "mul.wide.u32 %rd1, %r2, %u1;",
    "mad.wide.s32 %rd1, %r2, 4, %rd2;",
    "setp.lt.s32 %p1, %r1, %r2;",
    "selp.b32 %r1, %r2, %u1, %p1;",
    "mov.u32 %r1, %tid.x;",
    "mov.b64 %rd1, {%r1, %r2};",
    "ld.global.v2.u32 {%r0, %r1}, [%rd1];",
    "mov.u32 %r3, 0;",
    "ld.shared.u32 %r1, [%r2];",               # shared addresses may be 32-bit
    "mov.b32 %r1, 0f3F800000;",                # bits of a float into a .b of its width
    "add.f64 %fd1, %fd1, 0f3F800000;",         # any float literal for a float operand
    "cvt.u16.u32 %r1, %r2;",                   # ld, st and cvt may use wider registers
    "ld.global.u8 %rd1, [%rd1];",
    "st.global.b16 [%rd1], %f1;",
    "cvt.rn.f16.f32 %r1, %f1;",
    "shfl.sync.bfly.b32 %f1, %f2, 1, 31, -1;",
    "szext.wrap.u32 %r1, %u1, 8;",
]


@pytest.mark.parametrize("body", ACCEPTED)
def test_what_ptxas_accepts_passes(body):
    verify_module(parse_ptx(kernel(body), "v.ptx"), operand_types=operand_types)


def test_an_undeclared_register_is_found_even_where_code_never_runs():
    ptx = kernel("""ld.param.u64 %rd1, [out];
st.global.u32 [%rd1], 7;
bra DONE;
add.u32 %r1, %r1, %zz;
DONE:""")
    out = cp.zeros(1, dtype=cp.uint32)
    with pytest.raises(PtxVerifyError, match="'%zz' is not a declared register"):
        cp.RawModule(ptx=ptx).get_function("k")((1,), (1,), (out,))
    assert out.get()[0] == 0                            # rejected before memory was written


def test_several_problems_are_listed_each_with_its_place():
    error = problems("add.s32 %r1, %r2, %q1;\nadd.s32 %r1, %r2, %q2;")
    assert len(error.problems) == 2 and "v.ptx:12:1: '%q2'" in str(error)


def test_the_machine_passes_its_special_registers():
    ptx = kernel("mov.u32 %r1, %laneid;\nmov.u32 %r2, %nosuch;")
    with pytest.raises(PtxVerifyError, match="'%nosuch'"):
        Device().load_module(ptx)


def test_a_component_of_a_declared_register_named_as_a_special_one_is_refused():
    """`.reg .b32 %tid;` then `%tid.x`: ptxas reads .x as a video selector on that register and
    refuses the mov; the verifier names the line."""
    error = problems(".reg .b32 %tid;\nmov.u32 %r1, %tid.x;")
    assert "the declared register %tid hides the special register" in str(error)
    assert error.problems[0][:2] == (12, 1)


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
def test_a_declared_register_hides_the_special_register_of_its_name(engine):
    """ptxas takes `.reg .b32 %tid;` as the module's own register (its SASS stores the 7 moved
    into it), so the machine reads the register, not the thread index."""
    body = (".reg .b32 %tid;\nld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n"
            "mov.u32 %tid, 7;\nst.global.u32 [%rd2], %tid;")
    out = cp.zeros(1, cp.uint32)
    with cp.settings(engine=engine):
        cp.RawModule(ptx=kernel(body)).get_function("k")((1,), (1,), (out,))
    assert int(out.get()[0]) == 7



def test_a_video_operand_selector_is_named_as_unsupported():
    error = problems("vadd.s32.s32.s32 %r1, %r2.b1, %r3.h1, %r4;")
    assert "'%r2.b1': byte and half-word selectors of video instruction operands" in str(error)
