"""Parsing nvdisasm's text and decoding control bits: no compiler needed."""

from __future__ import annotations

import math

import pytest

from warpsim.sass import decode_control, parse_instruction, parse_listing, parse_operand

pytestmark = pytest.mark.sass


@pytest.mark.parametrize("text, kind, name, number", [
    ("R2", "reg", "R2", 2), ("RZ", "reg", "RZ", None), ("UR4", "ureg", "UR4", 4), ("URZ", "ureg", "URZ", None),
    ("P0", "pred", "P0", 0), ("PT", "pred", "PT", None), ("UP1", "upred", "UP1", 1), ("UPT", "upred", "UPT", None),
    ("B0", "barrier", "B0", 0), ("SB0", "scoreboard", "SB0", 0), ("SR_TID.X", "special", "SR_TID.X", None),
])
def test_register_like_operands(text, kind, name, number):
    op = parse_operand(text)
    assert (op.kind, op.name, op.number) == (kind, name, number)


def test_prefixes_and_suffixes():
    op = parse_operand("-|R5.reuse|")
    assert (op.kind, op.number, op.negate, op.absolute) == ("reg", 5, True, True)
    op = parse_operand("R5.reuse")
    assert op.reuse and op.suffixes == ()
    op = parse_operand("R2.H1")
    assert op.suffixes == ("H1",) and not op.reuse
    op = parse_operand("|R0|.reuse.H0_H0")          # a half's swizzle after the bars (HSETP2)
    assert (op.kind, op.number, op.absolute, op.reuse, op.suffixes) == ("reg", 0, True, True, ("H0_H0",))
    op = parse_operand("!P1")
    assert (op.kind, op.invert) == ("pred", True)
    assert parse_operand("~R3").invert


@pytest.mark.parametrize("text, value", [
    ("0x4", 4), ("-0x1", -1), ("12", 12), ("1.5", 1.5), ("-24", -24), ("1.175494350822287508e-38", 1.175494350822287508e-38),
    ("+INF", math.inf), ("-INF", -math.inf),
])
def test_immediates(text, value):
    op = parse_operand(text)
    assert op.kind == "imm" and op.value == value and not op.negate


def test_constant_bank():
    op = parse_operand("c[0x0][0x210]")
    assert (op.kind, op.bank, op.offset, op.parts) == ("const", 0, 0x210, ())
    op = parse_operand("c[0x0][RZ]")
    assert op.offset == 0 and op.parts[0].name == "RZ"


def test_memory_addresses():
    op = parse_operand("desc[UR4][R2.64+0x10]")
    assert op.kind == "mem" and op.descriptor.name == "UR4" and op.offset == 0x10
    assert op.parts[0].name == "R2" and op.parts[0].suffixes == ("64",)
    op = parse_operand("[R0+UR4+-0x8]")
    assert [p.name for p in op.parts] == ["R0", "UR4"] and op.offset == -8
    assert parse_operand("[UR4]").parts[0].kind == "ureg"


def test_label():
    op = parse_operand("`(.L_x_3)")
    assert (op.kind, op.name) == ("label", ".L_x_3")


def test_instruction_with_guard_and_modifiers():
    ins = parse_instruction("@!P0 IMAD.WIDE.U32 R2, R9.reuse, 0x4, R2 ;", 0x40)
    assert (ins.offset, ins.opcode, ins.mods) == (0x40, "IMAD", ("WIDE", "U32"))
    assert ins.guard.name == "P0" and ins.guard.invert and ins.is_guarded
    assert [op.kind for op in ins.operands] == ["reg", "reg", "imm", "reg"]
    assert ins.operands[1].reuse
    assert not parse_instruction("@PT EXIT").is_guarded
    assert parse_instruction("@UP0 BRA `(.L_x_1)").guard.kind == "upred"


def test_operand_without_comma_before_a_label():
    ins = parse_instruction("RET.REL.NODEC R20 `(kernel)")
    assert [op.kind for op in ins.operands] == ["reg", "label"] and ins.branch_target == "kernel"


def test_unknown_operand_is_kept_as_other():
    assert parse_operand("gsb0").kind == "other"


def test_control_bits():
    # LDC R1, c[0x0][0x28]: stall 1, yield bit 1, no barriers
    c = decode_control(0x000FE20000000800)
    assert (c.stall, c.yield_bit, c.write_barrier, c.read_barrier, c.wait_mask) == (1, 1, None, None, 0)
    # IMAD.WIDE.U32 after an LDC that set scoreboard 0: waits on it, stall 6
    c = decode_control(0x001FCC00078E0002)
    assert (c.stall, c.yield_bit, c.write_barrier, c.wait_mask) == (6, 0, None, 0b000001)
    assert c.text() == "[B0-----:R-:W-:Y:S06]"


LISTING = """
//--------------------- .text.k                 --------------------------
	.section	.text.k,"ax",@progbits
        .other          k,@"STO_CUDA_ENTRY STV_DEFAULT"
k:
.text.k:
	//## File "k.cu", line 3
	//## File ".nv_debug_ptx_txt", line 20
        /*0000*/                   ISETP.GE.AND P0, PT, R0, 0x4, PT ;   /* 0x000000040000780c */
                                                                        /* 0x000fda0003f06270 */
	//## File ".nv_debug_ptx_txt", line 21
        /*0010*/               @P0 BRA `(.L_x_0) ;                      /* 0x0000000000008947 */
                                                                        /* 0x000fea0003800000 */
        /*0020*/                   IADD3 R0, R0, 0x1, RZ ;              /* 0x0000000100007810 */
                                                                        /* 0x000fe20007ffe0ff */
.L_x_0:
	//## File "k.cu", line 5
        /*0030*/                   EXIT ;                               /* 0x000000000000794d */
                                                                        /* 0x000fea0003800000 */
.L_x_1:
        /*0040*/                   BRA `(.L_x_1);                       /* 0xfffffffc00fc7947 */
                                                                        /* 0x000fc0000383ffff */
"""


def test_listing_to_blocks():
    fn = parse_listing(LISTING)["k"]
    assert fn.entry and [i.offset for i in fn.instructions] == [0, 0x10, 0x20, 0x30, 0x40]
    assert [(b.start, b.end, b.successors) for b in fn.blocks] == [(0, 2, (1, 2)), (2, 3, (2,)), (3, 4, ()),
                                                                   (4, 5, (3,))]
    assert [b.reachable for b in fn.blocks] == [True, True, True, False]
    # line info carries forward until it changes
    assert [i.ptx_line for i in fn.instructions[:4]] == [20, 21, 21, 21]
    assert fn.instructions[3].source == ("k.cu", 5) and fn.instructions[2].source == ("k.cu", 3)
    assert fn.blocks[2].labels == (".L_x_0",)
    assert fn.instructions[0].encoding == (0x000000040000780C, 0x000FDA0003F06270)
