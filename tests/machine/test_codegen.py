"""Generated block code is debuggable, and the instruction table answers for every opcode."""

import linecache
import re
import traceback
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import warpsim as cp
from warpsim.errors import InternalError, MemoryFault, WarpsimError
from warpsim.machine.codegen import compile_block
from warpsim.machine.isa import OPS, atomics, is_cta_barrier, is_warp_sync, mask_operand
from warpsim.semantics import atomics as atomic_semantics
from warpsim.machine.isa.evaluate import parse_mnemonic
from warpsim.machine.isa.table import VALUE
from warpsim.ptx.cfg import CFG
from warpsim.ptx.ir import Imm, Reg
from warpsim.ptx.parser import parse_ptx

from ptx_kernels import ADD, HEADER

LOAD_LINE = ADD.splitlines().index("    ld.global.u32 %r6, [%rd5];") + 1


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """A cache of this test's own: with the user's, blocks an earlier run compiled to machine code
    come from disk, and no generated Python block is dumped or run."""
    monkeypatch.setenv("WARPSIM_CACHE_DIR", str(tmp_path / "cache"))


def add_kernel():
    return cp.RawModule(ptx=ADD).get_function("add")


def run_add(kernel, n=100, seed=3):
    rng = np.random.default_rng(seed)
    a = rng.integers(-1000, 1000, n).astype(np.int32)
    b = rng.integers(-1000, 1000, n).astype(np.int32)
    out = cp.zeros(n, dtype=cp.int32)
    kernel(((n + 63) // 64,), (64,), (cp.asarray(a), cp.asarray(b), out, np.uint32(n)))
    return out.get(), a + b


# ------------------------------------------------------------ generated source


def test_generated_source_is_in_linecache_and_tracebacks_show_it():
    program = add_kernel().loaded_module.program
    block = program.blocks[program.entry_block("add")]
    compiled = compile_block(program, block)
    filename = compiled.generated.__code__.co_filename
    assert linecache.getline(filename, 1).startswith("def block_")
    assert "".join(linecache.getlines(filename)) == block.source
    # A parameter buffer of 3 bytes makes the first ld.param (8 bytes) fail inside generated code.
    ctx = SimpleNamespace(params=np.zeros(3, dtype=np.uint8), kernel="add",
                          where=lambda slot: {"block": (0, 0, 0), "thread": (slot, 0, 0)})
    with pytest.raises(InternalError) as info:
        compiled(ctx, np.arange(4))
    cause = info.value.__cause__
    assert isinstance(cause, ValueError)           # 3 bytes are no uint64: NumPy's error
    text = "".join(traceback.format_exception(cause))
    assert filename in text
    assert "ctx.params[0:8]" in text               # the generated line itself, from linecache


def test_constants_are_named_after_what_they_are():
    program = add_kernel().loaded_module.program
    block = program.blocks[program.entry_block("add") + 1]
    compile_block(program, block)
    src = block.source
    assert "add_s32(add_s32_line" in src            # the compute function and its instruction
    assert "s32_4" in src                          # the immediate of mul.wide.s32, with its type
    assert f"site_ld_line{LOAD_LINE}" in src        # the runtime site of the load
    assert "np_int32" in src
    assert not re.search(r"\b(c|imm|op|ins|T|D)\d+\b", src)


def test_dump_directory_gets_one_file_per_block(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSIM_DUMP_BLOCKS", str(tmp_path))
    kernel = add_kernel()
    got, want = run_add(kernel)
    assert np.array_equal(got, want)
    program = kernel.loaded_module.program
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == [f"add.block{b.gid}.py" for b in program.blocks]
    for block in program.blocks:
        text = (tmp_path / f"add.block{block.gid}.py").read_text()
        assert text.startswith(f"# add, block {block.gid}, PTX lines")
        assert text.endswith(block.source)
        assert block.compiled.generated.__code__.co_filename == str(tmp_path / f"add.block{block.gid}.py")


def test_dump_one_prints_every_block(capsys, monkeypatch):
    monkeypatch.setenv("WARPSIM_DUMP_BLOCKS", "1")
    got, want = run_add(add_kernel(), n=40)
    assert np.array_equal(got, want)
    assert capsys.readouterr().out.count("def block_") == 3


def test_a_python_error_inside_a_block_is_an_internal_error_that_says_where():
    kernel = add_kernel()
    program = kernel.loaded_module.program
    block = program.blocks[program.entry_block("add") + 1]
    block.compiled = compile_block(program, block)

    def broken_load(*args):
        raise IndexError("index 7 is out of bounds")
    # This block's own namespace only: its loads go to a helper with a bug.
    block.compiled.generated.__globals__["access"] = SimpleNamespace(load=broken_load)
    with pytest.raises(InternalError) as info:
        run_add(kernel, n=64)
    error = info.value
    assert isinstance(error, WarpsimError)
    assert isinstance(error.__cause__, IndexError)
    assert error.kernel == "add" and error.block == (0, 0, 0) and error.thread == (0, 0, 0)
    assert error.ptx_line == LOAD_LINE
    assert error.instruction.startswith("ld.global.u32")
    assert "IndexError: index 7 is out of bounds" in str(error)
    assert f"add block {block.gid}>:" in str(error)   # the generated file and line


def test_errors_raised_on_purpose_are_not_wrapped():
    kernel = add_kernel()
    a = cp.zeros(64, dtype=cp.int32)
    out = cp.zeros(32, dtype=cp.int32)
    with pytest.raises(MemoryFault) as info:
        kernel((1,), (64,), (a, a, out, np.uint32(64)))
    assert not isinstance(info.value, InternalError)


# ------------------------------------------------------------ the instruction table


def ins(mnemonic, n_dsts, n_srcs):
    return parse_mnemonic(mnemonic, n_dsts, n_srcs)


@pytest.mark.parametrize("mnemonic, n_dsts, n_srcs, warp_sync, barrier, mask", [
    ("shfl.sync.idx.b32", 1, 4, True, False, Reg("%s3")),
    ("vote.sync.ballot.b32", 1, 2, True, False, Reg("%s1")),
    ("bar.sync", 0, 1, False, True, None),
    ("barrier.sync.aligned", 0, 1, False, True, None),
    ("bar.red.popc.u32", 1, 2, False, True, None),
    ("bar.warp.sync", 0, 1, True, False, Reg("%s0")),
    ("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32", 1, 3, True, False, Imm(0xFFFFFFFF)),
    ("activemask.b32", 1, 0, True, False, None),
    ("add.s32", 1, 2, False, False, None),
])
def test_the_table_says_where_lanes_meet_and_where_the_mask_is(mnemonic, n_dsts, n_srcs,
                                                               warp_sync, barrier, mask):
    instruction = ins(mnemonic, n_dsts, n_srcs)
    assert is_warp_sync(instruction) is warp_sync
    assert is_cta_barrier(instruction) is barrier
    assert mask_operand(instruction) == mask


def test_every_opcode_the_engine_emits_has_its_emitter_in_the_table():
    for opcode, entries in OPS.items():
        for spec in entries:
            assert spec.pipe and spec.family
            assert (spec.kind == VALUE) == (spec.compute is not None), opcode
            if spec.kind != VALUE:
                assert callable(spec.emit), opcode


def test_the_cfg_splits_where_the_callers_predicates_say():
    module = parse_ptx(HEADER + r"""
.visible .entry k()
{
    .reg .b32 %r<4>;
    mov.u32 %r1, 1;
    shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;
    add.u32 %r3, %r2, 1;
    bar.sync 0;
    add.u32 %r3, %r3, 1;
    ret;
}
""")
    fn = module.functions["k"]
    plain = CFG(fn)
    assert [b.start for b in plain.blocks] == [0]
    split = CFG(fn, is_warp_sync=is_warp_sync, is_cta_barrier=is_cta_barrier)
    assert [(b.start, b.end) for b in split.blocks] == [(0, 1), (1, 3), (3, 4), (4, 6)]


# ------------------------------------------------------------ the atomic operations


def test_the_atomic_operations_are_listed_once_and_check_and_emitter_agree():
    assert atomics.ATOMIC_OPS == tuple(atomic_semantics.RMW)
    types = {"cas": "b32", "exch": "b32", "and": "b32", "or": "b32", "xor": "b32"}
    for op in atomics.ATOMIC_OPS:
        instruction = ins(f"atom.global.{op}.{types.get(op, 'u32')}", 1, 3 if op == "cas" else 2)
        assert atomics.check_atomic(instruction) is None, op
        assert atomics.operation_of(instruction) == op
        assert atomic_semantics.rmw_function(op, "u32")[0] is not None
    assert atomics.check_atomic(ins("atom.global.nand.b32", 1, 2))
    # No other module of the package spells the list out again; the compiled tier's per-lane
    # form of the operations names only RMW's keys.
    from warpsim.machine.compiled import global_memory
    package = Path(atomics.__file__).parents[2]
    spelled = sorted(p for p in package.rglob("*.py") if '"exch"' in p.read_text())
    assert spelled == sorted([Path(atomic_semantics.__file__), Path(global_memory.__file__)])
    assert set(global_memory.LANE_RMW) <= set(atomic_semantics.RMW)


def test_atomics_against_numpy():
    source = HEADER + r"""
.visible .entry count(.param .u64 bins, .param .u64 keys, .param .u64 old)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [bins];
    ld.param.u64 %rd2, [keys];
    ld.param.u64 %rd3, [old];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd2, %rd4;
    ld.global.u32 %r2, [%rd5];
    mul.wide.u32 %rd6, %r2, 4;
    add.s64 %rd6, %rd1, %rd6;
    atom.global.add.u32 %r3, [%rd6], 1;
    atom.global.cas.b32 %r4, [%rd6], 1000000, 0;
    add.s64 %rd7, %rd3, %rd4;
    st.global.u32 [%rd7], %r3;
    ret;
}
"""
    rng = np.random.default_rng(5)
    keys = rng.integers(0, 8, 256).astype(np.uint32)
    bins = cp.zeros(8, dtype=cp.uint32)
    old = cp.zeros(256, dtype=cp.uint32)
    cp.RawModule(ptx=source).get_function("count")((1,), (256,), (bins, cp.asarray(keys), old))
    assert np.array_equal(bins.get(), np.bincount(keys, minlength=8).astype(np.uint32))
    seen = old.get()
    for k in range(8):            # each key's lanes got 0, 1, 2, ... in thread order
        assert np.array_equal(seen[keys == k], np.arange(np.count_nonzero(keys == k)))
