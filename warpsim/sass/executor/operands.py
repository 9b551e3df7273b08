"""Reading and writing operands: built once per instruction, run per group of lanes.

Every value moves as raw bits (uint32, or uint64 for register pairs), so the
float modifiers are bit operations (|x| clears the sign bit, -x flips it) and
exact for NaNs, and integer modifiers are two's complement (-R2) or bitwise
(~R2). A reader returns an array over the group's lanes or a NumPy scalar (an
immediate, a constant-bank word, RZ), which broadcasts.

Immediates of float instructions are printed by nvdisasm as numbers ("0.5",
"3", "1.4426950216293334961", "+INF"); they are encoded as the float's bits of
the operation's width. A hex immediate (0x3f800000) is taken as raw bits.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .state import PT_ROW
from .table import Unsupported

U32, U64 = np.uint32, np.uint64
MASK = {32: 0xFFFFFFFF, 64: 0xFFFFFFFFFFFFFFFF}
DTYPE = {32: U32, 64: U64}
SIGN = {32: U32(0x80000000), 64: U64(1 << 63)}


def _float_bits(value, bits: int) -> int:
    dtype, view = (np.float32, np.uint32) if bits == 32 else (np.float64, np.uint64)
    return int(np.array(float(value), dtype=dtype).view(view))


def immediate_bits(op, bits: int, floating: bool) -> int:
    """The bits an immediate operand stands for."""
    value = op.value
    if floating and not op.text.lstrip("-+").startswith("0x"):
        return _float_bits(value, bits)
    if isinstance(value, float):
        if not float(value).is_integer():
            return _float_bits(value, bits)
        value = int(value)
    return int(value) & MASK[bits]


def _modify(read, op, bits: int, floating: bool):
    """Wrap `read` with the operand's prefix modifiers."""
    if floating:
        if op.absolute:
            inner, keep = read, DTYPE[bits](MASK[bits] >> 1)
            read = lambda st, g, inner=inner: inner(st, g) & keep
        if op.negate:
            inner, sign = read, SIGN[bits]
            read = lambda st, g, inner=inner: inner(st, g) ^ sign
        if op.invert:
            raise Unsupported(f"operand {op.text}")
        return read
    if op.absolute:
        raise Unsupported(f"operand {op.text}")
    if op.invert:
        inner, ones = read, DTYPE[bits](MASK[bits])
        read = lambda st, g, inner=inner: inner(st, g) ^ ones
    if op.negate:
        inner, zero = read, DTYPE[bits](0)
        read = lambda st, g, inner=inner: zero - inner(st, g)
    return read


def normalized(op):
    """The operand, re-read when the disassembly parser kept it as text (`|R0|.reuse`)."""
    if op.kind == "other" and op.text.endswith(".reuse"):
        from ..disasm import parse_operand
        return replace(parse_operand(op.text[:-len(".reuse")]), reuse=True)
    return op


def source(op, bits: int = 32, floating: bool = False):
    """Reader of a value operand (reg, ureg, imm, const) as `bits`-wide raw bits."""
    op = normalized(op)
    dtype = DTYPE[bits]
    kind = op.kind
    if kind in ("reg", "ureg"):
        if op.number is None:
            zero = dtype(0)
            read = lambda st, g: zero
        else:
            row = op.number
            file = "R" if kind == "reg" else "UR"
            if bits == 32:
                read = lambda st, g: getattr(st, file)[row][g.sel]
            else:
                read = lambda st, g: (getattr(st, file)[row][g.sel].astype(U64)
                                      | getattr(st, file)[row + 1][g.sel].astype(U64) << U64(32))
    elif kind == "imm":
        constant = dtype(immediate_bits(op, bits, floating))
        if floating and (op.negate or op.absolute):
            return _modify(lambda st, g: constant, op, bits, floating)
        return lambda st, g: constant
    elif kind == "const":
        read = const_reader(op, bits // 8)
    else:
        raise Unsupported(f"operand {op.text} as a value")
    return _modify(read, op, bits, floating)


def high_word_source(op):
    """Reader of the high word of an f64 (RCP64H, RSQ64H): an immediate is printed as the f64 whose high
    word it is (`MUFU.RCP64H R5, 2.147482624e+09`: 0x41dfffff), a register or constant is the word."""
    op = normalized(op)
    if op.kind != "imm" or op.text.lstrip("-+").startswith("0x"):
        return source(op, floating=True)
    constant = U32(immediate_bits(op, 64, True) >> 32)
    return _modify(lambda st, g: constant, op, 32, True)


def const_reader(op, nbytes: int):
    """c[bank][offset] or c[bank][R2+offset]: a scalar, or one value per lane."""
    bank, offset = op.bank, op.offset or 0
    dtype = U32 if nbytes <= 4 else U64
    registers = [part for part in op.parts if not part.is_zero_register]
    if not registers:
        cache_key = (bank, offset, nbytes)

        def read(st, g):
            cache = st.__dict__.setdefault("_const_cache", {})
            value = cache.get(cache_key)
            if value is None:
                value = cache[cache_key] = dtype(st.const_scalar(bank, offset, nbytes))
            return value
        return read
    index = [source(part) for part in registers]

    def gather(st, g):
        where = np.int64(offset) + sum(r(st, g).astype(np.int64) for r in index)
        where = np.broadcast_to(where, (g.n,))
        return st.const_gather(bank, where, nbytes).astype(dtype)
    return gather


def predicate(op):
    """Reader of a predicate operand (P0..P6, PT, UP*, with ! inversion): a bool array or scalar."""
    if op.kind not in ("pred", "upred"):
        raise Unsupported(f"operand {op.text} as a predicate")
    file = "P" if op.kind == "pred" else "UP"
    row = PT_ROW if op.number is None else op.number
    if row == PT_ROW:
        value = np.bool_(not op.invert)
        return lambda st, g: value
    if op.invert:
        return lambda st, g: ~getattr(st, file)[row][g.sel]
    return lambda st, g: getattr(st, file)[row][g.sel]


def _broadcast(value, g, dtype):
    value = np.asarray(value)
    if value.dtype != dtype:
        value = value.astype(dtype)
    return np.broadcast_to(value, (g.n,)) if value.ndim == 0 else value


def _as(value, dtype):
    """value (an array over the group's lanes, or one value for all) as raw bits of dtype."""
    value = np.asarray(value)
    return value if value.dtype == dtype else value.astype(dtype)


def _uniform_store(rows, row, g, value):
    """A uniform result: the value of each warp's first active lane goes to all 32 of its lanes."""
    value = np.asarray(value)
    sel = g.sel
    if isinstance(sel, slice) and not (sel.start | sel.stop) & 31:     # whole warps, one run of them
        if value.ndim == 0:
            rows[row][sel] = value
        else:
            rows[row][sel].reshape(-1, 32)[:] = value.reshape(-1, 32)[:, :1]
        return
    warps, first, _ = g.warp_runs()
    per_warp = value if value.ndim == 0 else value[first][:, None]
    rows[row].reshape(-1, 32)[warps] = per_warp        # (a batch holds whole warps: one row of 32 each)


def dest(op, bits: int = 32):
    """Writer of a register destination of `bits` (32, 64, 128: consecutive registers)."""
    kind = op.kind
    if kind not in ("reg", "ureg"):
        raise Unsupported(f"destination {op.text}")
    if op.number is None:
        return lambda st, g, value: None
    row, words = op.number, bits // 32
    uniform = kind == "ureg"
    file = "UR" if uniform else "R"

    def write(st, g, value):
        rows = getattr(st, file)
        if words == 1:
            parts = [value]
        elif words == 2:
            wide = _as(value, U64)          # a scalar (a constant's pair) stays one: split once
            parts = [wide & U64(0xFFFFFFFF), wide >> U64(32)]
        else:
            parts = list(value)             # 128-bit: a list of four 32-bit arrays
        for k, part in enumerate(parts):
            if uniform:
                _uniform_store(rows, row + k, g, _as(part, U32))
            else:
                rows[row + k][g.sel] = _as(part, U32)      # (a scalar broadcasts)
    return write


def pred_dest(op):
    """Writer of a predicate destination (PT discards)."""
    if op.kind not in ("pred", "upred"):
        raise Unsupported(f"destination {op.text} as a predicate")
    if op.number is None:
        return lambda st, g, value: None
    row, uniform = op.number, op.kind == "upred"

    def write(st, g, value):
        value = np.broadcast_to(np.asarray(value, dtype=bool), (g.n,))
        if uniform:
            _uniform_store(st.UP, row, g, value)
        else:
            st.P[row][g.sel] = value
    return write


def f32(bits):
    """uint32 bits -> float32 values (scalars too)."""
    return np.asarray(bits, dtype=U32).view(np.float32)


def f64(bits):
    return np.asarray(bits, dtype=U64).view(np.float64)


def bits32(values):
    return np.asarray(values, dtype=np.float32).view(U32)


def bits64(values):
    return np.asarray(values, dtype=np.float64).view(U64)


def alu(dsts, srcs, fn):
    """A Step body: read every source, compute `fn(*values)` (a value or a tuple), write every dest."""
    def run(st, g):
        values = [read(st, g) for read in srcs]
        result = fn(*values)
        if len(dsts) == 1:
            dsts[0](st, g, result)
        else:
            for write, value in zip(dsts, result):
                write(st, g, value)
    return run
