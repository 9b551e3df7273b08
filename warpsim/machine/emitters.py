"""Code generation for the instructions that are not pure value functions:
moves of special registers, symbols and vectors; address conversion; memory
access and atomics; warp exchange; barriers; control flow.

Each emitter gets the BlockCompiler and the instruction and returns True when
it has set the next program counter of every thread itself (a terminator).
"""

from __future__ import annotations

from ..errors import UnsupportedInstruction
from ..ptx.ir import Addr, Imm, Reg, Sink, Sym, Vec
from ..ptx.types import TYPES
from .codegen import SPACES, Site
from . import tensor
from .memory import LOCAL_WINDOW, SHARED_WINDOW

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


# ---------------------------------------------------------------- moves

@emitter("mov")
def emit_mov(c, ins):
    t = ins.type
    dst, src = ins.dsts[0], ins.srcs[0]
    if isinstance(dst, Vec):                      # unpack: mov.b64 {lo, hi}, %rd
        whole = c.typed(src, t)
        part_bits = TYPES[t].bits // len(dst.items)
        part_type = f"b{part_bits}"
        for k, item in enumerate(dst.items):
            c.write(item, part_type, f"(({whole}.astype(np.uint64) >> np.uint64({k * part_bits})) "
                                     f"& np.uint64({(1 << part_bits) - 1}))")
        return False
    if isinstance(src, Vec):                      # pack: mov.b64 %rd, {lo, hi}
        part_bits = TYPES[t].bits // len(src.items)
        terms = [f"({c.typed(item, f'b{part_bits}')}.astype(np.uint64) << np.uint64({k * part_bits}))"
                 for k, item in enumerate(src.items)]
        c.write(dst, "b64" if TYPES[t].bits == 64 else t, " | ".join(terms))
        return False
    c.write(dst, t, c.typed(src, t))
    return False


@emitter("cvta")
def emit_cvta(c, ins):
    """Generic <-> state-space addresses: shared and local live in their windows."""
    t = ins.type
    to = "to" in ins.mods
    space = space_of(ins)
    value = f"{c.typed(ins.srcs[0], t)}.astype(np.uint64)"
    window = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW}.get(space, 0)
    if window:
        op = "-" if to else "+"
        value = f"({value} {op} np.uint64({window}))"
    c.write(ins.dsts[0], t, f"{value}.astype({c.const(TYPES[t].dtype, 'D')})")
    return False


@emitter("isspacep")
def emit_isspacep(c, ins):
    space = space_of(ins)
    code = {"global": 0, "const": 0, "shared": 1, "local": 2}.get(space)
    if code is None:
        raise UnsupportedInstruction(ins, f"isspacep.{space}")
    c.write(ins.dsts[0], "pred", f"(access.generic_space({c.typed(ins.srcs[0], 'u64')}) == {code})")
    return False


# ---------------------------------------------------------------- memory

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


def param_var_access(c, ins, load: bool):
    """ld/st.param on a function's own parameters or a call site's .param variables."""
    addr = ins.srcs[0]
    name = addr.base.name
    key = c.key(name)
    t = ins.type
    dtype = c.const(TYPES[t].dtype, "D")
    size = TYPES[t].nbytes
    if load:
        items = ins.dsts[0].items if isinstance(ins.dsts[0], Vec) else ins.dsts
        for k, item in enumerate(items):
            off = addr.offset + k * size
            c.write(item, t, f"ctx.param_var({key!r})[idx, {off}:{off + size}].copy().view({dtype}).ravel()")
    else:
        if c.guard is not None:
            raise UnsupportedInstruction(ins, "predicated st.param")
        vals = ins.srcs[1].items if isinstance(ins.srcs[1], Vec) else ins.srcs[1:2]
        for k, item in enumerate(vals):
            off = addr.offset + k * size
            v = c.typed(item, t)
            c.emit(f"ctx.param_var({key!r})[idx, {off}:{off + size}] = "
                   f"fit({v}, n).astype({dtype}).view(np.uint8).reshape(n, {size})")
    return False


def kernel_param_load(c, ins):
    """ld.param of a kernel parameter at a constant offset: the same value for every thread.

    The offset is checked here, once, against the kernel's parameter layout;
    the load is a read of the launch's parameter buffer.
    """
    t = TYPES[ins.type]
    count = vector_count(ins)
    offset = c.symbol_value(Sym(ins.srcs[0].base.name, ins.srcs[0].base.offset + ins.srcs[0].offset))
    end = max((o + size for _, o, size, _ in c.program.param_layouts[c.fn.name]), default=0)
    if offset % t.nbytes or offset + t.nbytes * count > end:
        raise UnsupportedInstruction(ins, f"parameter load at offset {offset} outside the "
                                          f"{end}-byte parameter list or misaligned")
    items = ins.dsts[0].items if isinstance(ins.dsts[0], Vec) else ins.dsts
    dtype = c.const(t.dtype, "D")
    for k, item in enumerate(items):
        if isinstance(item, Sink):
            continue
        at = offset + k * t.nbytes
        c.write(item, ins.type, f"ctx.params[{at}:{at + t.nbytes}].view({dtype})[0]")
    return False


@emitter("ld", "ldu")
def emit_load(c, ins):
    addr = ins.srcs[0]
    space = space_of(ins)
    if space == "param" and isinstance(addr.base, Sym) and c.symbol_space(addr.base.name) == "param_var":
        return param_var_access(c, ins, load=True)
    if space == "generic" and isinstance(addr.base, Sym) and c.symbol_space(addr.base.name) == "param_var":
        return param_var_access(c, ins, load=True)
    if space == "param" and isinstance(addr.base, Sym) and ins.guard is None and \
            c.symbol_space(addr.base.name) == "param":
        return kernel_param_load(c, ins)
    t = ins.type
    count = vector_count(ins)
    expr, space = address_expr(c, addr, space)
    site = c.const(Site(c.program, c.fn, ins), "site")
    dtype = c.const(TYPES[t].dtype, "D")
    a = c.fresh("addr")
    c.emit(f"{a} = {expr}")
    items = ins.dsts[0].items if isinstance(ins.dsts[0], Vec) else ins.dsts
    sel_idx, sel = c.selected()
    vals = c.fresh("vals")
    a_sel = f"{a}[{sel}]" if sel else a
    c.emit(f"{vals} = access.load(ctx, {site}, {sel_idx}, {space!r}, {a_sel}, {dtype}, {count})")
    for k, item in enumerate(items):
        if isinstance(item, Sink):
            continue
        if sel:
            bits = c.reg_bits(item.name)
            full = c.fresh("full")
            old = c.load_reg(item.name)
            c.emit(f"{full} = {old}.copy()")
            c.emit(f"{full}[{sel}] = store_value({vals}[{k}], {c.const(TYPES[t], 'T')}, {bits}, len({sel}))")
            var = c.fresh("r")
            c.emit(f"{var} = {full}")
            c.local[item.name] = var
            if item.name not in c.dirty:
                c.dirty.append(item.name)
        else:
            guard, c.guard = c.guard, None
            c.write(item, t, f"{vals}[{k}]")
            c.guard = guard
    return False


@emitter("st")
def emit_store(c, ins):
    addr, value = ins.srcs[0], ins.srcs[1]
    space = space_of(ins)
    if space in ("param", "generic") and isinstance(addr.base, Sym) and \
            c.symbol_space(addr.base.name) == "param_var":
        return param_var_access(c, ins, load=False)
    t = ins.type
    expr, space = address_expr(c, addr, space)
    site = c.const(Site(c.program, c.fn, ins), "site")
    dtype = c.const(TYPES[t].dtype, "D")
    a = c.fresh("addr")
    c.emit(f"{a} = {expr}")
    items = value.items if isinstance(value, Vec) else (value,)
    sel_idx, sel = c.selected()
    vals = []
    for item in items:
        if isinstance(item, Sink):
            vals.append("None")
            continue
        v = f"fit({c.typed(item, t)}, n)"
        vals.append(f"{v}[{sel}]" if sel else v)
    a_sel = f"{a}[{sel}]" if sel else a
    c.emit(f"access.store(ctx, {site}, {sel_idx}, {space!r}, {a_sel}, {dtype}, [{', '.join(vals)}])")
    return False


@emitter("mbarrier")
def emit_mbarrier(c, ins):
    """mbarrier.init/arrive/arrive_drop/test_wait/try_wait/inval/expect_tx (see machine.mbarrier)."""
    operation = ins.mods[0]
    operands = list(ins.dsts) + list(ins.srcs)
    site = c.const(Site(c.program, c.fn, ins), "site")
    sel_idx, sel = c.selected()
    pick = (lambda e: f"{e}[{sel}]") if sel else (lambda e: e)

    def addr_of(op):
        expr, _ = address_expr(c, op, space_of(ins) if space_of(ins) != "generic" else "shared")
        return pick(expr)

    if operation in ("expect_tx", "complete_tx"):
        return False                                   # copies complete at once: nothing pending
    def value_of(op, type_name):
        return pick("fit(" + c.typed(op, type_name) + ", n)")

    if operation == "init":
        c.emit(f"mbarrier.init(ctx, {site}, {sel_idx}, {addr_of(operands[0])}, "
               f"{value_of(operands[1], 'u32')})")
    elif operation == "inval":
        c.emit(f"mbarrier.invalidate(ctx, {site}, {sel_idx}, {addr_of(operands[0])})")
    elif operation in ("arrive", "arrive_drop"):
        count = value_of(operands[2], "u32") if len(operands) > 2 and "expect_tx" not in ins.mods else "1"
        token = c.fresh("token")
        c.emit(f"{token} = mbarrier.arrive(ctx, {site}, {sel_idx}, {addr_of(operands[1])}, {count}, "
               f"{operation == 'arrive_drop'})")
        write_selected(c, operands[0], "b64", token, sel)
    elif operation in ("test_wait", "try_wait"):
        done = c.fresh("done")
        c.emit(f"{done} = mbarrier.test_wait(ctx, {site}, {sel_idx}, {addr_of(operands[1])}, "
               f"{value_of(operands[2], 'b64')}, {'parity' in ins.mods})")
        write_selected(c, operands[0], "pred", done, sel)
    else:
        raise UnsupportedInstruction(ins, f"mbarrier.{operation}")
    return False


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


@emitter("cp")
def emit_async_copy(c, ins):
    """cp.async: the copy completes at once, so commit_group and wait_group have nothing to wait for.

    `cp.async.{ca,cg}.shared.global [dst], [src], size{, src-size | , ignore-src}`:
    bytes past src-size are zero-filled, as the hardware does.
    """
    if set(ins.mods) & {"commit_group", "wait_group", "wait_all"}:
        return False
    if "mbarrier" in ins.mods:                         # arrive when prior copies complete: now
        if "noinc" in ins.mods:
            site = c.const(Site(c.program, c.fn, ins), "site")
            sel_idx, sel = c.selected()
            expr, _ = address_expr(c, ins.srcs[0], "shared")
            c.emit(f"mbarrier.arrive(ctx, {site}, {sel_idx}, {expr}{f'[{sel}]' if sel else ''}, 1)")
        return False                                   # without .noinc it adds one and arrives once
    dst, src, size = ins.srcs[0], ins.srcs[1], ins.srcs[2].value
    words = size // 4 if size >= 4 else 0
    if size not in (4, 8, 16):
        raise UnsupportedInstruction(ins, f"cp.async of {size} bytes")
    site = c.const(Site(c.program, c.fn, ins), "site")
    d_expr, _ = address_expr(c, dst, "shared")
    s_expr, _ = address_expr(c, src, "global")
    sel_idx, sel = c.selected()
    d, a = c.fresh("dst"), c.fresh("src")
    c.emit(f"{a} = {s_expr}" + (f"[{sel}]" if sel else ""))
    c.emit(f"{d} = {d_expr}" + (f"[{sel}]" if sel else ""))
    vals = c.fresh("words")
    c.emit(f"{vals} = access.load(ctx, {site}, {sel_idx}, 'global', {a}, np.uint32, {words})")
    if len(ins.srcs) > 3 and not (isinstance(ins.srcs[3], Imm) and ins.srcs[3].value >= size):
        extra = ins.srcs[3]
        if isinstance(extra, Reg) and c.fn.regs.get(extra.name) == "pred":
            keep = f"np.where(fit({c.typed(extra, 'pred')}, n){'[' + sel + ']' if sel else ''}, 0, {size})"
        else:
            keep = f"fit({c.typed(extra, 'u32')}, n){'[' + sel + ']' if sel else ''}.astype(np.int64)"
        kept = c.fresh("kept")
        c.emit(f"{kept} = {keep}")
        for k in range(words):
            c.emit(f"{vals}[{k}] = np.where({kept} >= {4 * (k + 1)}, {vals}[{k}], "
                   f"{vals}[{k}] & ((np.uint64(1) << (8 * np.clip({kept} - {4 * k}, 0, 4)).astype(np.uint64)) - np.uint64(1)).astype(np.uint32))")
    c.emit(f"access.store(ctx, {site}, {sel_idx}, 'shared', {d}, np.uint32, {vals})")
    return False


def fragment_words(c, vector) -> str:
    """Expression of a fragment's registers as an (n, registers) array of 32-bit words."""
    return "np.stack([" + ", ".join(f"fit({c.typed(r, 'b32')}, n)" for r in vector.items) + "], axis=1)"


@emitter("wmma")
def emit_wmma(c, ins):
    """Warp matrix load/store/multiply-accumulate on opaque fragments (see machine.tensor)."""
    kind, matrix, layouts, shape, space, types = tensor.parse(ins)
    operands = list(ins.dsts) + list(ins.srcs)
    site = c.const(Site(c.program, c.fn, ins), "site")
    if kind == "mma":
        d, a, b, cc = operands
        words = [fragment_words(c, v) for v in (a, b, cc)]
        res = c.fresh("mma")
        c.emit(f"{res} = tensor.mma_fragments(ctx, idx, {shape!r}, {tuple(types)!r}, "
               f"{'satfinite' in ins.mods}, {words[0]}, {words[1]}, {words[2]}, {len(d.items)})")
        for k, r in enumerate(d.items):
            c.write(r, "b32", f"{res}[:, {k}]")
        return False
    rows, cols = tensor.fragment_shape(matrix, shape)
    etype = types[-1]
    if kind == "load":
        regs, addr, rest = operands[0], operands[1], operands[2:]
    else:
        addr, regs, rest = operands[0], operands[1], operands[2:]
    stride = c.typed(rest[0], "u32") if rest else str(cols if layouts[0] == "row" else rows)
    expr, space = address_expr(c, addr, space)
    a = c.fresh("addr")
    c.emit(f"{a} = {expr}")
    if kind == "load":
        res = c.fresh("frag")
        c.emit(f"{res} = tensor.load_fragment(ctx, {site}, idx, {space!r}, {a}, fit({stride}, n), "
               f"{rows}, {cols}, {layouts[0]!r}, {etype!r}, {len(regs.items)})")
        for k, r in enumerate(regs.items):
            c.write(r, "b32", f"{res}[:, {k}]")
    else:
        words = fragment_words(c, regs)
        c.emit(f"tensor.store_fragment(ctx, {site}, idx, {space!r}, {a}, fit({stride}, n), "
               f"{rows}, {cols}, {layouts[0]!r}, {etype!r}, {words})")
    return False


@emitter("mma")
def emit_mma(c, ins):
    """mma.sync.aligned.m16n8k{8,16}.row.col: fragments in the PTX manual's layout."""
    d, a, b, cc = list(ins.dsts) + list(ins.srcs)
    res = c.fresh("mma")
    c.emit(f"{res} = tensor.mma_sync(ctx, idx, {c.const(ins, 'ins')}, {fragment_words(c, a)}, "
           f"{fragment_words(c, b)}, {fragment_words(c, cc)})")
    for k, r in enumerate(d.items):
        c.write(r, "b32", f"{res}[:, {k}]")
    return False


@emitter("ldmatrix")
def emit_ldmatrix(c, ins):
    count = next(int(m[1:]) for m in ins.mods if m in ("x1", "x2", "x4"))
    expr, _ = address_expr(c, ins.srcs[0], space_of(ins))
    site = c.const(Site(c.program, c.fn, ins), "site")
    res = c.fresh("ldm")
    c.emit(f"{res} = tensor.ldmatrix(ctx, {site}, idx, {space_of(ins)!r}, {expr}, {count}, "
           f"{'trans' in ins.mods})")
    regs = ins.dsts[0].items if isinstance(ins.dsts[0], Vec) else ins.dsts
    for k, r in enumerate(regs):
        c.write(r, "b32", f"{res}[:, {k}]")
    return False


ATOMIC_OPS = ("add", "min", "max", "inc", "dec", "cas", "exch", "and", "or", "xor")


@emitter("atom", "red")
def emit_atomic(c, ins):
    op = next((m for m in ins.mods if m in ATOMIC_OPS), None)
    if op is None:
        raise UnsupportedInstruction(ins, "atomic without a supported operation")
    t = ins.type
    space = space_of(ins)
    addr = ins.srcs[0]
    expr, space = address_expr(c, addr, space)
    a = c.fresh("addr")
    c.emit(f"{a} = {expr}")
    if vector_count(ins) > 1:
        return emit_vector_atomic(c, ins, op, space, a)
    return emit_scalar_atomic(c, ins, op, space, a, ins.srcs[1:],
                              ins.dsts[0] if ins.opcode == "atom" else None)


def emit_vector_atomic(c, ins, op, space, a):
    """atom/red .v2/.v4: one exact atomic per element, at consecutive addresses."""
    values = ins.srcs[1].items
    dsts = ins.dsts[0].items if ins.opcode == "atom" else [None] * len(values)
    size = TYPES[ins.type].nbytes
    for k, (value, dst) in enumerate(zip(values, dsts)):
        element = c.fresh("addr")
        c.emit(f"{element} = {a} + np.uint64({k * size})")
        emit_scalar_atomic(c, ins, op, space, element, (value,), None if isinstance(dst, Sink) else dst)
    return False


def emit_scalar_atomic(c, ins, op, space, a, operands, dst):
    t = ins.type
    site = c.const(Site(c.program, c.fn, ins), "site")
    sel_idx, sel = c.selected()
    args = []
    for item in operands:
        v = f"fit({c.typed(item, t)}, n)"
        args.append(f"{v}[{sel}]" if sel else v)
    while len(args) < 2:
        args.append("None")
    a_sel = f"{a}[{sel}]" if sel else a
    old = c.fresh("old")
    c.emit(f"{old} = access.atomic(ctx, {site}, {sel_idx}, {space!r}, {a_sel}, "
           f"{c.const(TYPES[t], 'T')}, {op!r}, {args[0]}, {args[1]})")
    if dst is not None:
        if sel:
            bits = c.reg_bits(dst.name)
            full = c.fresh("full")
            c.emit(f"{full} = {c.load_reg(dst.name)}.copy()")
            c.emit(f"{full}[{sel}] = store_value({old}, {c.const(TYPES[t], 'T')}, {bits}, len({sel}))")
            c.local[dst.name] = full
            if dst.name not in c.dirty:
                c.dirty.append(dst.name)
        else:
            c.write(dst, t, old)
    return False


@emitter("membar", "fence", "nanosleep", "prefetch", "prefetchu", "pmevent", "griddepcontrol",
         "discard", "applypriority", "createpolicy")
def emit_nothing(c, ins):
    """Memory ordering is already total here (one instruction at a time); hints do nothing."""
    if ins.opcode == "createpolicy":
        c.write(ins.dsts[0], "b64", "np.zeros(n, dtype=np.uint64)")
    return False


# ---------------------------------------------------------------- warp exchange

def member_mask(c, ins, operand):
    return f"fit({c.typed(operand, 'b32')}, n)"


@emitter("shfl")
def emit_shfl(c, ins):
    mode = next(m for m in ins.mods if m in ("up", "down", "bfly", "idx"))
    a, b, cc = ins.srcs[0], ins.srcs[1], ins.srcs[2]
    value = f"fit({c.typed(a, 'b32')}, n)"
    reg_file = f"ctx.reg({c.key(a.name)!r}, 32)" if isinstance(a, Reg) and a.name in c.fn.regs else "None"
    res = c.fresh("shfl")
    mask = member_mask(c, ins, ins.srcs[3]) if "sync" in ins.mods and len(ins.srcs) > 3 else "None"
    site = c.const(Site(c.program, c.fn, ins), "site")
    c.emit(f"{res} = warp_ops.shfl(ctx, idx, {mode!r}, {value}, {c.typed(b, 'b32')}, "
           f"{c.typed(cc, 'b32')}, {reg_file}, {mask}, {site})")
    write_value_and_predicate(c, ins.dsts, res)
    return False


def write_value_and_predicate(c, dsts, result: str):
    """`d|p` destinations of shfl and match.all: the value, and the predicate if named."""
    c.write(dsts[0], "b32", f"{result}[0]")
    if len(dsts) > 1:
        c.write(dsts[1], "pred", f"{result}[1]")


@emitter("vote")
def emit_vote(c, ins):
    mode = next(m for m in ins.mods if m in ("all", "any", "uni", "ballot"))
    pred = f"fit({c.typed(ins.srcs[0], 'pred')}, n)"
    mask = member_mask(c, ins, ins.srcs[1]) if "sync" in ins.mods else "warp_ops.activemask(ctx, idx)"
    out_type = "b32" if mode == "ballot" else "pred"
    c.write(ins.dsts[0], out_type, f"warp_ops.vote(ctx, idx, {mode!r}, {pred}, {mask})")
    return False


@emitter("match")
def emit_match(c, ins):
    mode = "any" if "any" in ins.mods else "all"
    t = ins.type
    value = f"fit({c.typed(ins.srcs[0], t)}, n)"
    mask = member_mask(c, ins, ins.srcs[1])
    res = c.fresh("match")
    c.emit(f"{res} = warp_ops.match(ctx, idx, {mode!r}, {value}, {mask})")
    if mode == "any":
        c.write(ins.dsts[0], "b32", res)
    else:
        write_value_and_predicate(c, ins.dsts, res)
    return False


@emitter("redux")
def emit_redux(c, ins):
    op = next(m for m in ins.mods if m in ("add", "min", "max", "and", "or", "xor"))
    t = ins.type
    value = f"fit({c.typed(ins.srcs[0], t)}, n)"
    mask = member_mask(c, ins, ins.srcs[1])
    c.write(ins.dsts[0], t, f"warp_ops.redux(ctx, idx, {op!r}, {value}, {mask})")
    return False


@emitter("elect")
def emit_elect(c, ins):
    """elect.sync d|p, membermask: the lowest named lane taking part is the leader."""
    mask = member_mask(c, ins, ins.srcs[0])
    res = c.fresh("elect")
    c.emit(f"{res} = warp_ops.elect(ctx, idx, {mask})")
    dsts = ins.dsts
    c.write(dsts[0], "b32", f"{res}[0]")
    if len(dsts) > 1:
        c.write(dsts[1], "pred", f"{res}[1]")
    return False


@emitter("activemask")
def emit_activemask(c, ins):
    c.write(ins.dsts[0], "b32", "warp_ops.activemask(ctx, idx)")
    return False


# ---------------------------------------------------------------- barriers

@emitter("bar", "barrier")
def emit_barrier(c, ins):
    """CTA barriers arrive here; the engine releases them (and reduces bar.red)."""
    if "warp" in ins.mods:                          # bar.warp.sync: the scheduler already met the lanes
        return False
    arrive = "arrive" in ins.mods
    red = "red" in ins.mods
    srcs = list(ins.srcs)
    barrier = c.typed(srcs[0], "u32")
    count = "0"
    if red:
        pred = srcs[-1]
        middle = srcs[1:-1]
        c.emit(f"ctx.barrier_pred[idx] = fit({c.typed(pred, 'pred')}, n)")
    else:
        middle = srcs[1:]
    if middle:
        count = c.typed(middle[0], "u32")
    c.emit(f"ctx.barrier_id[idx] = fit({barrier}, n)")
    c.emit(f"ctx.barrier_count[idx] = fit({count}, n)")
    if arrive:
        c.emit("ctx.barrier_arrivals(idx)")
        return False
    c.emit("ctx.status[idx] = AT_BARRIER")
    return True


# ---------------------------------------------------------------- control

@emitter("bra", "brx")
def emit_branch(c, ins):
    if ins.opcode == "brx":
        raise UnsupportedInstruction(ins, "brx.idx (indirect branch tables)")
    target = c.program.label_gid(c.fn, ins.srcs[0].name)
    c.writeback()
    if c.guard is None:
        c.emit(f"ctx.pc[idx] = {target}")
    else:
        fall = c.block.next_gid
        c.emit(f"ctx.pc[idx] = np.where({c.guard}, {target}, {fall})")
        if fall == -1:
            c.emit(f"exit_threads(ctx, idx[~{c.guard}])")
    return True


@emitter("exit", "ret")
def emit_exit(c, ins):
    c.writeback()
    if ins.opcode == "ret" and c.fn.kind == "func":
        sel_idx, sel = c.selected()
        if sel:
            c.emit(f"ctx.pc[idx] = {c.block.next_gid}")
        c.emit(f"ctx.return_from(ctx.program, {c.fn.name!r}, {sel_idx})")
        return True
    sel_idx, sel = c.selected()
    if sel:
        c.emit(f"ctx.pc[idx] = {c.block.next_gid}")
        if c.block.next_gid == -1:
            c.emit("exit_threads(ctx, idx)")
    c.emit(f"exit_threads(ctx, {sel_idx})")
    return True


@emitter("trap", "brkpt")
def emit_trap(c, ins):
    sel_idx, _ = c.selected()
    site = c.const(Site(c.program, c.fn, ins), "site")
    c.emit(f"trap(ctx, {site}, {sel_idx})")
    return False


@emitter("call")
def emit_call(c, ins):
    call = ins.call
    c.writeback()
    if c.guard is not None:
        raise UnsupportedInstruction(ins, "predicated call")
    if not isinstance(call.target, Sym):
        raise UnsupportedInstruction(ins, "indirect call through a register")
    callee = c.program.module.functions[call.target.name]
    if not callee.has_body:             # provided by the runtime (printf, assert)
        site = c.const(Site(c.program, c.fn, ins), "site")
        args = [c.key(a.name) for a in call.args]
        rets = [c.key(r.name) for r in call.returns]
        c.emit(f"builtins.call_builtin(ctx, ctx.program, idx, {callee.name!r}, {args!r}, {rets!r}, {site})")
        c.emit(f"ctx.pc[idx] = {c.block.next_gid}")
        if c.block.next_gid == -1:
            c.emit("exit_threads(ctx, idx)")
        return True
    copies = []
    for param, arg in zip(callee.params, call.args):
        if not isinstance(arg, Sym):
            raise UnsupportedInstruction(ins, f"call argument '{arg}' is not a .param variable")
        copies.append((c.key(arg.name), f"{callee.name}::{param.name}", param.size))
    returns = []
    for ret, dst in zip(callee.returns, call.returns):
        returns.append((f"{callee.name}::{ret.name}", c.key(dst.name), ret.size))
    c.program.return_copies[c.block.next_gid] = returns
    c.emit(f"ctx.call(ctx.program, idx, {callee.name!r}, {copies!r}, {c.block.next_gid})")
    return True
