"""The verifier's opcode facts: value instructions' operand counts and types from the instruction
table, PTX syntax facts (no-destination opcodes, state-space modifiers) from ptx/opcodes.py alone."""

import pathlib
import re

import pytest

from warpsim.errors import PtxVerifyError
from warpsim.machine.isa.operand_types import operand_types
from warpsim.ptx import opcodes
from warpsim.ptx.parser import parse_ptx
from warpsim.ptx.verify import verify_module

HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"
REGS = ".reg .b32 %r<6>;\n.reg .pred %p<3>;\n.reg .b64 %rd<3>;\n.reg .f32 %f<5>;"


def _verify(body: str):
    text = HEADER + f".visible .entry k(.param .u64 out)\n{{\n{REGS}\n{body}\nret;\n}}\n"
    verify_module(parse_ptx(text, "v.ptx"), operand_types=operand_types)


# Forms the old hand-kept operand counts did not list: the table's signatures count them.
SHORT = {
    "lop3.b32 %r1, %r2, %r3, %r4;": "takes 5 operands, 4 given",
    "prmt.b32 %r1, %r2, %r3;": "takes 4 operands, 3 given",
    "shf.l.wrap.b32 %r1, %r2, %r3;": "takes 4 operands, 3 given",
    "setp.lt.and.s32 %p1, %r1, %r2;": "takes 4 operands, 3 given",
    "add.u32 %r1, %r2;": "takes 3 operands, 2 given",
    "ld.global.u32 %r1;": "takes 2 operands, 1 given",
}


@pytest.mark.parametrize("body", list(SHORT))
def test_missing_operands_are_counted_from_the_table(body):
    with pytest.raises(PtxVerifyError) as caught:
        _verify(body)
    assert SHORT[body] in str(caught.value)


# The forms the verifier's hand-kept counts named before the table gave them, one operand short.
VALUE_FORMS = {
    "neg.s32": 2, "abs.s32": 2, "not.b32": 2, "cnot.b32": 2, "popc.b32": 2, "clz.b32": 2, "brev.b32": 2,
    "cvt.rn.f32.s32": 2, "sqrt.rn.f32": 2, "rcp.rn.f32": 2, "rsqrt.approx.f32": 2, "ex2.approx.f32": 2,
    "lg2.approx.f32": 2, "sin.approx.f32": 2, "cos.approx.f32": 2, "tanh.approx.f32": 2, "add.s32": 3,
    "sub.s32": 3, "mul.lo.s32": 3, "div.s32": 3, "rem.s32": 3, "and.b32": 3, "or.b32": 3, "xor.b32": 3,
    "min.s32": 3, "max.s32": 3, "shl.b32": 3, "shr.u32": 3, "setp.lt.s32": 3, "copysign.f32": 3,
    "mad.lo.s32": 4, "fma.rn.f32": 4, "selp.b32": 4, "bfe.u32": 4, "bfi.b32": 5,
}


@pytest.mark.parametrize("mnemonic", list(VALUE_FORMS))
def test_value_forms_one_operand_short(mnemonic):
    floats = mnemonic.endswith("f32") and not mnemonic.startswith("cvt")
    register = "%p1" if mnemonic.startswith("setp") else "%f1" if floats else "%r1"
    operands = [register] + ["%f2" if floats else "%r2"] * (VALUE_FORMS[mnemonic] - 2)
    with pytest.raises(PtxVerifyError) as caught:
        _verify(f"{mnemonic} {', '.join(operands)};")
    assert f"takes {VALUE_FORMS[mnemonic]} operands, {VALUE_FORMS[mnemonic] - 1} given" in str(caught.value)


@pytest.mark.parametrize("body", ["lop3 %r1, %r2, %r3, %r4, 0xE8;", "cvt %r1, %rd1;", "add %r1, %r2, %r3;"])
def test_a_value_instruction_without_a_type_is_refused(body):
    with pytest.raises(PtxVerifyError) as caught:
        _verify(body)
    assert "names no operand type" in str(caught.value)


@pytest.mark.parametrize("body", ["lop3.b32 %r1, %r2, %r3, %r4, 0xE8;", "prmt.b32 %r1, %r2, %r3, %r4;",
                                  "setp.lt.and.s32 %p1, %r1, %r2, %p2;", "shf.l.wrap.b32 %r1, %r2, %r3, %r4;"])
def test_full_forms_pass(body):
    _verify(body)


def test_each_fact_has_one_home():
    """No module of the package but ptx/opcodes.py spells these lists out."""
    package = pathlib.Path(opcodes.__file__).parents[1]
    pattern = re.compile(r'"applypriority", "griddepcontrol"|"shared::cluster": "shared"|'
                         r'\{"ld", "ldu", "st", "atom", "red", "prefetch"')
    homes = sorted(str(p.relative_to(package)) for p in package.rglob("*.py") if pattern.search(p.read_text()))
    assert homes == ["ptx/opcodes.py"]
