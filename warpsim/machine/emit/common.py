"""The emitter registry and the helpers several families share.

EMITTERS maps an opcode to the function that writes its generated code; the
@emitter decorator fills it. The helpers read an instruction's state space and
vector width, build per-thread address expressions, and write results for the
guard-selected lanes only.
"""

from __future__ import annotations

from ...ptx.ir import Addr, Reg, Sink, Sym
from ...ptx.types import TYPES
from ..codegen import SPACES
from ..memory import LOCAL_WINDOW, SHARED_WINDOW

EMITTERS: dict = {}


def emitter(*opcodes):
    def deco(fn):
        for op in opcodes:
            EMITTERS[op] = fn
        return fn
    return deco


def space_of(ins) -> str:
    for m in ins.mods:
        if m in SPACES:
            return SPACES[m]
    return "generic"


def vector_count(ins) -> int:
    for m in ins.mods:
        if m in ("v2", "v4", "v8"):
            return int(m[1:])
    return 1


def address_expr(c, addr: Addr, space: str):
    """(expression of per-thread addresses as uint64, resolved space)."""
    if isinstance(addr.base, Reg):
        base = c.typed(addr.base, "u64" if c.reg_bits(addr.base.name) == 64 else "u32")
        return f"({base}.astype(np.uint64) + np.uint64({addr.offset & ((1 << 64) - 1)}))", space
    if isinstance(addr.base, Sym):
        sym_space = c.symbol_space(addr.base.name)
        value = c.symbol_value(Sym(addr.base.name, addr.base.offset + addr.offset))
        if space == "generic":
            if sym_space == "shared":
                value += SHARED_WINDOW
            elif sym_space == "local":
                value += LOCAL_WINDOW
        frame = c.frame_offset(addr.base.name)
        if frame:
            return f"(np.uint64({value}) + {frame})", space
        return f"np.full(n, {value}, dtype=np.uint64)", space
    return f"np.full(n, {addr.offset}, dtype=np.uint64)", space


def write_selected(c, dst, type_name: str, values: str, sel):
    """Write values computed for the guard-selected lanes only (others keep their register)."""
    if isinstance(dst, Sink):
        return
    if not sel:
        guard, c.guard = c.guard, None
        c.write(dst, type_name, values)
        c.guard = guard
        return
    full = c.fresh("full")
    c.emit(f"{full} = {c.load_reg(dst.name)}.copy()")
    c.emit(f"{full}[{sel}] = store_value({values}, {c.const(TYPES[type_name], 'T')}, "
           f"{c.reg_bits(dst.name)}, len({sel}))")
    c.local[dst.name] = full
    if dst.name not in c.dirty:
        c.dirty.append(dst.name)
