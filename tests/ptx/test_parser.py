"""The PTX parser on hand-written text: forms, errors with positions, round trips."""

import pytest

from warpsim.errors import PtxParseError
from warpsim.ptx.ir import Addr, Imm, Not, Reg, Sink, Sym, Vec
from warpsim.ptx.parser import parse_ptx
from warpsim.ptx.printer import format_module

SAMPLE = r"""
.version 8.5
.target sm_90
.address_size 64

.global .align 4 .u32 counter = 7;
.global .align 8 .u64 table[2] = {generic(counter), 0};
.const .align 4 .f32 coeffs[3] = {0f3F800000, 0f40000000, 0f40400000};

.func (.param .b32 func_retval0) twice(.param .b32 twice_param_0)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [twice_param_0];
    shl.b32 %r2, %r1, 1;
    st.param.b32 [func_retval0], %r2;
    ret;
}

.visible .entry k(
    .param .u64 .ptr .global .align 4 k_param_0,
    .param .align 8 .b8 k_param_1[16]
) .maxntid 256, 1, 1
{
    .reg .pred %p<3>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<4>;
    .reg .f32 %f<2>;
    .loc 1 5 3
    ld.param.u64 %rd1, [k_param_0];
    mov.u32 %r1, %tid.x;
    setp.lt.and.s32 %p1|%p2, %r1, 16, !%p1;
    @!%p1 bra $L__BB0_2;
    {
    .reg .b32 temp;
    .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 retval0;
    call.uni (retval0), twice, (param0);
    ld.param.b32 %r2, [retval0];
    }
$L__BB0_2:
    mov.b64 {%r3, %r4}, %rd1;
    ld.global.v4.u32 {%r5, %r6, _, %r7}, [%rd1+-16];
    shfl.sync.bfly.b32 %r8|%p2, %r1, 1, 31, -1;
    mov.f32 %f1, 0fBF800000;
    ret;
}
.file 1 "/tmp/k.cu"
"""


def test_module_directives_and_variables():
    m = parse_ptx(SAMPLE, "sample.ptx")
    assert m.version == "8.5" and m.target == ("sm_90",) and m.address_size == 64
    assert m.variables["counter"].init == [7]
    assert m.variables["table"].count == 2 and m.variables["table"].init[0] == Sym("counter")
    assert m.variables["coeffs"].space == "const" and m.variables["coeffs"].init[1].value == 0x40000000
    assert m.files[1] == "/tmp/k.cu"


def test_function_signature_and_registers():
    m = parse_ptx(SAMPLE)
    k = m.functions["k"]
    assert k.kind == "entry" and k.directives["maxntid"] == (256, 1, 1)
    assert [p.name for p in k.params] == ["k_param_0", "k_param_1"]
    assert k.params[0].ptr_space == "global" and k.params[1].size == 16 and k.params[1].align == 8
    assert k.regs["%r9"] == "b32" and "%r10" not in k.regs and k.regs["%p2"] == "pred"
    f = m.functions["twice"]
    assert f.kind == "func" and f.returns[0].name == "func_retval0"


def test_operand_forms():
    k = parse_ptx(SAMPLE).functions["k"]
    by_op = {}
    for ins in k.body:
        by_op.setdefault(ins.opcode, ins)
    setp = by_op["setp"]
    assert setp.dsts == (Reg("%p1"), Reg("%p2")) and setp.srcs[2] == Not(Reg("%p1"))
    assert setp.mods == ("lt", "and", "s32") and setp.type == "s32"
    assert by_op["bra"].guard.negated and by_op["bra"].srcs == (Sym("$L__BB0_2"),)
    ld = [i for i in k.body if i.opcode == "ld" and "v4" in i.mods][0]
    assert ld.dsts[0] == Vec((Reg("%r5"), Reg("%r6"), Sink(), Reg("%r7")))
    assert ld.srcs[0] == Addr(Reg("%rd1"), -16)
    assert by_op["mov"].srcs[0] == Reg("%tid.x")
    assert by_op["shfl"].srcs[-1] == Imm(-1, 0, "-1")
    call = by_op["call"].call
    assert call.target == Sym("twice") and len(call.returns) == 1 and len(call.args) == 1
    assert k.body[0].loc.line == 5 and k.body[0].loc.file == 1


def test_sink_value_with_a_predicate():
    """`elect.sync _|p, mask` (libcu++'s bulk memcpy_async writes it) names only the predicate."""
    text = (".version 8.0\n.target sm_90\n.entry k() {\n  .reg .pred %p<2>;\n"
            "  elect.sync _|%p1, 0xffffffff;\n  ret;\n}\n")
    elect = parse_ptx(text).functions["k"].body[0]
    assert elect.dsts == (Sink(), Reg("%p1")) and elect.srcs == (Imm(0xFFFFFFFF, 0, "0xffffffff"),)
    again = parse_ptx(format_module(parse_ptx(text))).functions["k"].body[0]
    assert again.key() == elect.key()


def test_scoped_declarations_are_renamed():
    k = parse_ptx(SAMPLE).functions["k"]
    scoped = [v.name for v in k.locals]
    assert all("$" in name for name in scoped) and any(n.startswith("param0") for n in scoped)
    assert any(r.startswith("temp$") for r in k.regs)


def test_round_trip_gives_the_same_ir():
    m = parse_ptx(SAMPLE)
    again = parse_ptx(format_module(m))
    for name, fn in m.functions.items():
        assert [i.key() for i in fn.body] == [i.key() for i in again.functions[name].body]
        assert fn.labels == again.functions[name].labels
    assert m.variables.keys() == again.variables.keys()


@pytest.mark.parametrize("text, line, col, needle", [
    (".version 8.5\n.target sm_90\n.entry k() {\n  add.s32 %r1, %r2 %r3;\n}\n", 4, 20, "expected ';'"),
    (".version 8.5\n.entry k() {\n  mov.u32 %r1, #;\n}\n", 3, 16, "unexpected character"),
    (".version 8.5\nbogus 1;\n", 2, 1, "unexpected 'bogus'"),
])
def test_parse_errors_name_line_and_column(text, line, col, needle):
    with pytest.raises(PtxParseError) as info:
        parse_ptx(text, "bad.ptx")
    err = info.value
    assert (err.line, err.col) == (line, col)
    assert needle in str(err) and f"bad.ptx:{line}:{col}" in str(err)


def test_labels_are_local_to_their_scope():
    """Two inline asm blocks with the same `waitLoop:` (Triton's mbarrier waits) branch to their own."""
    text = """.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    { .reg .pred p; waitLoop: add.u32 %r1, %r1, 1; setp.lt.u32 p, %r1, 3; @p bra waitLoop; }
    { .reg .pred p; bra.uni waitLoop; waitLoop: add.u32 %r2, %r2, 10; setp.lt.u32 p, %r2, 50; @p bra waitLoop; }
    ret;
}
"""
    k = parse_ptx(text).functions["k"]
    branches = [ins for ins in k.body if ins.opcode == "bra"]
    first, forward, second = (b.srcs[0].name for b in branches)
    assert first != second and forward == second               # a branch before its label too
    assert k.labels[first] == 0 and k.labels[second] == 4


def test_align_after_ptr_is_the_pointees_alignment():
    """`.param .u64 .ptr .global .align 1 p` is an 8-byte parameter (Triton's scratch pointers)."""
    text = """.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u32 n, .param .u64 .ptr .global .align 1 scratch, .param .align 64 .b8 tmap[128])
{
    ret;
}
"""
    params = parse_ptx(text).functions["k"].params
    assert [p.alignment for p in params] == [4, 8, 64]


def test_qualifiers_with_a_number_after_their_double_colon():
    """PTX 7.4's prefetch sizes (.L2::64B, .L2::128B, .L2::256B) on ld and cp.async: one modifier each
    (FlashInfer's cp.async.cg.shared.global.L2::128B did not parse: ':' read as punctuation)."""
    text = SAMPLE.replace("    mov.f32 %f1, 0fBF800000;\n", "    mov.f32 %f1, 0fBF800000;\n"
                          "    @%p1 cp.async.cg.shared.global.L2::128B [%r1], [%rd1], 16;\n"
                          "    ld.global.L2::64B.u32 %r9, [%rd1];\n")
    k = parse_ptx(text).functions["k"]
    copy = next(i for i in k.body if i.opcode == "cp")
    assert "L2::128B" in copy.mods and copy.guard is not None
    assert "L2::64B" in next(i for i in k.body if i.opcode == "ld" and i.dsts == (Reg("%r9"),)).mods
