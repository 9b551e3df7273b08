"""Bad PTX ends in warpsim's own errors, never a raw Python exception.

Every crash class the fuzzer found (tests/ptx/test_fuzz.py) is kept here as a
small module that once raised AttributeError, KeyError, IndexError,
ValueError or OverflowError from the parser, the CFG or code generation.
"""

import pytest

import warpsim as cp
from warpsim.errors import PtxParseError, WarpsimError
from warpsim.machine.device import Device
from warpsim.ptx.parser import parse_ptx

HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"


def kernel(body: str, regs: str = ".reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>;") -> str:
    return HEADER + f".visible .entry k(.param .u64 out)\n{{\n{regs}\n{body}\n}}\n"


# (what once crashed, PTX): each must raise a PtxParseError (or another WarpsimError) at load.
CRASHES = {
    "end of input in a linkage list (AttributeError)": HEADER + ".visible",
    "end of input in a variable (AttributeError)": HEADER + ".global .align",
    "end of input in a parameter list (AttributeError)": HEADER + ".visible .entry k(",
    "end of input in .reg (AttributeError)": HEADER + ".visible .entry k()\n{\n.reg",
    "end of input in an operand (AttributeError)": HEADER + ".visible .entry k()\n{\nmov.u32 %r1,",
    "end of input in an address (AttributeError)": HEADER + ".visible .entry k()\n{\nld.u32 %r1, [",
    "malformed hex integer (ValueError)": kernel("mov.u32 %r1, 0x;\nret;"),
    "malformed octal integer (ValueError)": kernel("mov.u32 %r1, 09;\nret;"),
    "integer wider than 64 bits (OverflowError later)": kernel("mov.u64 %rd1, 99999999999999999999;\nret;"),
    "float literal for a bit type (OverflowError)": kernel("mov.b32 %r1, 1e400;\nret;"),
    "branch to a register name (KeyError in the CFG)": kernel("bra %r3;\nret;"),
    "branch to an unknown label (KeyError in the CFG)": kernel("bra NOWHERE;\nret;"),
    "branch without a target (IndexError in the CFG)": kernel("@%p1 bra ;\nret;"),
    "a label as an arithmetic operand": kernel("L:\nadd.s32 %r1, %r2, L;\nret;"),
    "a label as an address (KeyError in the CFG)": kernel("L:\nst.global.u32 [L], %r1;\nret;"),
    "bra to a register (KeyError in the CFG)": kernel("@%p1 bra %rd1;\nret;"),
    "call returning into an immediate (AttributeError)": HEADER + """
.func (.param .b32 r) f()
{
    st.param.b32 [r], 1;
    ret;
}
.visible .entry k()
{
    .param .b32 res;
    call.uni (1), f, ();
    ret;
}""",
    "cvta without a type (KeyError in codegen)": kernel("cvta.to.global.v8 %rd1, %rd2;\nret;"),
    "mov with one operand (IndexError in codegen)": kernel("mov.u32 %r1;\nret;"),
    "deep nesting of braces (RecursionError)": kernel("mov.b64 %rd1, " + "{" * 5000 + ";\nret;"),
}


@pytest.mark.parametrize("ptx", CRASHES.values(), ids=CRASHES.keys())
def test_a_former_crash_is_a_warpsim_error(ptx):
    with pytest.raises(WarpsimError) as caught:
        Device().load_module(ptx, "bad.ptx").program.check_all()
    assert "bad.ptx" in str(caught.value)


def test_the_parser_names_the_place_at_end_of_input():
    with pytest.raises(PtxParseError) as caught:
        parse_ptx(HEADER + ".visible .entry k()\n{\nmov.u32 %r1,", "cut.ptx")
    assert caught.value.line == 6 and "cut.ptx:6:" in str(caught.value)


def test_a_label_at_the_very_end_of_a_kernel_is_legal():
    ptx = kernel("""ld.param.u64 %rd1, [out];
mov.u32 %r1, %tid.x;
setp.eq.u32 %p1, %r1, 0;
@%p1 bra END;
st.global.u32 [%rd1], 5;
END:""")
    out = cp.zeros(1, dtype=cp.uint32)
    cp.RawModule(ptx=ptx).get_function("k")((1,), (2,), (out,))
    assert out.get()[0] == 5


def test_mutants_of_real_ptx_never_escape_as_python_errors():
    """A fixed sample of the fuzz campaign's mutants (seeded, no hypothesis needed)."""
    import random
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parent))
    from fuzz_target import run_one
    from ptx_mutations import mutate, seeds
    texts = list(seeds().values())
    rng = random.Random(14)
    for k in range(60):
        choices = [rng.randrange(1 << 16) for _ in range(2 * rng.randint(1, 3))]
        escaped = run_one(mutate(texts[k % len(texts)], choices))
        assert escaped is None, f"mutant {k} ({choices}) raised {type(escaped).__name__}: {escaped}"
