"""Round trip over the kernel corpus: every .cu in tests/kernels goes through
NVRTC, the PTX is parsed, printed and parsed again, and both parses must say
the same thing (instruction by instruction, and every module variable)."""

from pathlib import Path

import pytest

from warpsim.frontends.nvrtc import compile_cuda
from warpsim.ptx.parser import parse_ptx
from warpsim.ptx.printer import format_module

pytestmark = pytest.mark.nvrtc

KERNELS = Path(__file__).resolve().parent.parent / "kernels"
SOURCES = sorted(KERNELS.glob("*.cu"))
# Extra compilations some files are also used with.
VARIANTS = {"math_functions.cu": [("-use_fast_math",)]}
NAME_EXPRESSIONS = {"cpp_features.cu": ("scale_add<float, 3>", "scale_add<int, -2>", "scale_add<double, 5>",
                                        "clamp_all<int>", "clamp_all<unsigned short>", "corpus::sum_rows<7>")}
CASES = [(path, options) for path in SOURCES for options in [()] + VARIANTS.get(path.name, [])]


def variable_key(v):
    return (v.name, v.space, v.type, v.count, v.align, v.init, v.linkage, v.ptr_space)


def test_corpus_is_not_empty():
    assert len(SOURCES) >= 10


@pytest.mark.parametrize("path,options", CASES,
                         ids=[f"{p.stem}{''.join(o)}" for p, o in CASES])
def test_parse_print_parse(path, options):
    compiled = compile_cuda(path.read_text(), options + (f"-I{KERNELS}",), name=str(path),
                            name_expressions=NAME_EXPRESSIONS.get(path.name, ()))
    first = parse_ptx(compiled.ptx, path.name)
    printed = format_module(first)
    second = parse_ptx(printed, f"{path.name} (printed)")
    assert first.kernels, "NVRTC produced no kernels"
    assert list(first.functions) == list(second.functions)
    for name, fn in first.functions.items():
        again = second.functions[name]
        assert [ins.key() for ins in fn.body] == [ins.key() for ins in again.body], name
        assert fn.kind == again.kind and fn.has_body == again.has_body, name
        assert [variable_key(p) for p in fn.params] == [variable_key(p) for p in again.params], name
        assert [variable_key(r) for r in fn.returns] == [variable_key(r) for r in again.returns], name
        assert fn.regs == again.regs, name
    assert {k: variable_key(v) for k, v in first.variables.items()} == \
           {k: variable_key(v) for k, v in second.variables.items()}
    # And printing is stable: printing the reparsed module gives the same text.
    assert format_module(second) == printed
