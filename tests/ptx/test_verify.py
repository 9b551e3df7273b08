"""The PTX verifier: what ptxas rejects is rejected at load, with file:line:column."""

import pytest

import warpsim as cp
from warpsim.errors import PtxVerifyError
from warpsim.machine.device import Device
from warpsim.ptx.parser import parse_ptx
from warpsim.ptx.verify import verify_module

HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"
REGS = ".reg .b32 %r<4>;\n.reg .u32 %u<3>;\n.reg .f32 %f<3>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>;"


def kernel(body: str) -> str:
    return HEADER + f".visible .entry k(.param .u64 out)\n{{\n{REGS}\n{body}\nret;\n}}\n"


def problems(body: str) -> list:
    with pytest.raises(PtxVerifyError) as caught:
        verify_module(parse_ptx(kernel(body), "v.ptx"))
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
]


@pytest.mark.parametrize("body", ACCEPTED)
def test_what_ptxas_accepts_passes(body):
    verify_module(parse_ptx(kernel(body), "v.ptx"))


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
