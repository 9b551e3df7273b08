"""Registers per thread: ptxas -v when there is a ptxas, else a liveness estimate."""

import pytest

from warpsim.metrics import registers as regs
from warpsim.ptx.parser import parse_ptx

PTX = """
.version 8.0
.target sm_90
.address_size 64

.visible .entry add_one(.param .u64 a, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [a];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.u32 %r3, [%rd4];
    add.s32 %r4, %r3, 1;
    st.global.u32 [%rd4], %r4;
DONE:
    ret;
}
"""

PTXAS_OUTPUT = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k2' for 'sm_90'
ptxas info    : Function properties for k2
    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 128 bytes smem
ptxas info    : Compiling entry function 'k1' for 'sm_90'
ptxas info    : Function properties for k1
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 0 barriers
"""


def test_parse_ptxas_output():
    assert regs.parse_ptxas_output(PTXAS_OUTPUT) == {"k2": (40, 8, 4, 12), "k1": (10, 0, 0, 0)}


def test_estimate_is_said_to_be_one(monkeypatch):
    monkeypatch.setenv("WARPSIM_PTXAS", "none")
    count = regs.registers_per_thread(parse_ptx(PTX), "add_one")
    assert count.source == "estimate" and count.is_estimate
    assert "estimated" in count.detail
    # live at once: %rd1 or %rd2..4 (64-bit, 2 each), %r1..%r4, plus ptxas's reserved two
    assert 6 <= count.registers <= 12


def test_max_live_counts_64_bit_twice_and_skips_predicates():
    module = parse_ptx(PTX)
    fn = module.functions["add_one"]
    assert regs._weight(fn, "%rd1") == 2 and regs._weight(fn, "%r1") == 1 and regs._weight(fn, "%p1") == 0
    assert regs.max_live(fn) >= 5


@pytest.mark.skipif(not regs.find_ptxas(), reason="no ptxas (pip install nvidia-cuda-nvcc)")
def test_ptxas_when_available(monkeypatch):
    monkeypatch.delenv("WARPSIM_PTXAS", raising=False)
    count = regs.registers_per_thread(parse_ptx(PTX), "add_one")
    if count.source == "ptxas":
        assert 4 <= count.registers <= 32
        assert abs(regs.estimate_registers(parse_ptx(PTX), "add_one") - count.registers) <= 6
    else:                                           # a ptxas too old for this PTX is skipped
        assert "estimated" in count.detail


def test_ptxas_arch_from_target():
    assert regs.ptxas_arch(parse_ptx(PTX)) == "sm_90"


def test_a_ptxas_that_refuses_the_ptx_gives_an_estimate(tmp_path, monkeypatch):
    fake = tmp_path / "ptxas"
    fake.write_text("#!/bin/sh\necho \"ptxas fatal   : Unsupported .version 9.5\" >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("WARPSIM_PTXAS", str(fake))
    count = regs.registers_per_thread(parse_ptx(PTX), "add_one")
    assert count.source == "estimate" and "Unsupported .version" in count.detail


def test_a_fake_ptxas_output_is_read(tmp_path, monkeypatch):
    fake = tmp_path / "ptxas"
    fake.write_text("#!/bin/sh\ncat <<'EOF' >&2\n" + PTXAS_OUTPUT.replace("k1", "add_one") + "EOF\n")
    fake.chmod(0o755)
    monkeypatch.setenv("WARPSIM_PTXAS", str(fake))
    count = regs.registers_per_thread(parse_ptx(PTX), "add_one")
    assert (count.source, count.registers) == ("ptxas", 10)
