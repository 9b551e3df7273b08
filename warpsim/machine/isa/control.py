"""Control flow: bra/brx, exit/ret, trap/brkpt, call, and the calls runtime.

The engine emits these itself because they end the block: they write back the
registers and set each thread's next program counter (or call, return, exit).

Calls to non-inlined .func functions, recursion included: each thread has its
own call stack of return blocks. A function that can be re-entered while it is
active (it is on a call-graph cycle) has its registers and .param variables
saved per thread and per depth on entry and restored on return, so every
activation has its own values; its local frame is moved to a fresh per-depth
slice of local memory. Calls of functions without a body (printf, assert) run
in machine.isa.builtins.

A call through a function pointer (a C++ virtual function: `call (r), %rd, (a), proto`) may
reach every function whose address the module takes (a vtable's initializer, a mov of its name)
with as many parameters and return values (Program.call_targets); each lane enters the function
its pointer holds, and lanes holding different ones diverge. The SASS executor does not run such
calls (CALL.REL with a register): a profile keeps PTX-level counts and says so.
"""

from __future__ import annotations

import numpy as np

from ...errors import StackOverflow, TrapError, UnsupportedInstruction
from ...ptx.ir import Sym
from ..state import EXITED
from .table import CONTROL, emitted


@emitted("bra", family="control", kind=CONTROL, pipe="branch")
def emit_branch(c, ins):
    target = c.program.label_gid(c.fn, ins.srcs[0].name)
    c.writeback()
    if c.guard is None:
        c.emit(f"ctx.pc[rows] = {target}")
    else:
        fall = c.block.next_gid
        c.emit(f"ctx.pc[rows] = np.where({c.guard}, {target}, {fall})")
        if fall == -1:
            c.emit(f"control.exit_threads(ctx, idx[~{c.guard}])")
    return True


@emitted("brx", family="control", kind=CONTROL, pipe="branch",
         check=lambda ins: "brx.idx is not supported")
def emit_indirect_branch(c, ins):
    raise UnsupportedInstruction(ins, "brx.idx (indirect branch tables)")


@emitted("exit", "ret", family="control", kind=CONTROL, pipe="branch")
def emit_exit(c, ins):
    c.writeback()
    if ins.opcode == "ret" and c.fn.kind == "func":
        sel_idx, sel = c.selected()
        if sel:
            c.emit(f"ctx.pc[rows] = {c.block.next_gid}")
        c.emit(f"control.leave_function(ctx, ctx.program, {c.fn.name!r}, {sel_idx})")
        return True
    sel_idx, sel = c.selected()
    if sel:
        c.emit(f"ctx.pc[rows] = {c.block.next_gid}")
        if c.block.next_gid == -1:
            c.emit("control.exit_threads(ctx, idx)")
    c.emit(f"control.exit_threads(ctx, {sel_idx})")
    return True


@emitted("trap", "brkpt", family="control", kind=CONTROL, pipe="branch")
def emit_trap(c, ins):
    sel_idx, _ = c.selected()
    c.emit(f"control.trap(ctx, {c.site(ins)}, {sel_idx})")
    return False


@emitted("nanosleep", "pmevent", "griddepcontrol", family="control", kind=CONTROL, pipe="misc")
def emit_hint(c, ins):
    """Sleeping, performance events and grid dependency hints change nothing here."""
    return False


@emitted("call", family="control", kind=CONTROL, pipe="branch")
def emit_call(c, ins):
    call = ins.call
    c.writeback()
    if c.guard is not None:
        raise UnsupportedInstruction(ins, "predicated call")
    if not isinstance(call.target, Sym):               # through a pointer: each lane's function
        copies, returns = {}, {}
        for name in c.program.call_targets(ins):
            copies[name], returns[name] = _call_copies(c, ins, c.program.module.functions[name])
        c.program.return_copies[c.block.next_gid] = returns
        c.emit(f"control.enter_through_pointer(ctx, ctx.program, idx, {c.typed(call.target, 'u64')}, {copies!r}, "
               f"{c.block.next_gid}, {c.site(ins)})")
        return True
    callee = c.program.module.functions[call.target.name]
    if not callee.has_body:             # provided by the runtime (printf, assert)
        site = c.site(ins)
        args = [c.key(a.name) for a in call.args]
        rets = [c.key(r.name) for r in call.returns]
        c.emit(f"builtins.call_builtin(ctx, ctx.program, idx, {callee.name!r}, {args!r}, {rets!r}, {site})")
        c.emit(f"ctx.pc[rows] = {c.block.next_gid}")
        if c.block.next_gid == -1:
            c.emit("control.exit_threads(ctx, idx)")
        return True
    copies, returns = _call_copies(c, ins, callee)
    c.program.return_copies[c.block.next_gid] = returns
    c.emit(f"control.enter_function(ctx, ctx.program, idx, {callee.name!r}, {copies!r}, "
           f"{c.block.next_gid})")
    return True


def _call_copies(c, ins, callee):
    """(argument copies into the callee's .param variables, return copies back) of a call of callee."""
    copies = []
    for param, arg in zip(callee.params, ins.call.args):
        if not isinstance(arg, Sym):
            raise UnsupportedInstruction(ins, f"call argument '{arg}' is not a .param variable")
        copies.append((c.key(arg.name), f"{callee.name}::{param.name}", param.size))
    returns = [(f"{callee.name}::{ret.name}", c.key(dst.name), ret.size)
               for ret, dst in zip(callee.returns, ins.call.returns)]
    return copies, returns


# ------------------------------------------------------------ runtime: exits and traps

def exit_threads(ctx, idx):
    ctx.status[idx] = EXITED
    ctx.pc[idx] = -1


def trap(ctx, site, idx):
    if len(idx):
        where = ctx.where(int(idx[0]))
        what = "(an assert() or __trap())"
        if "cooperative_groups" in site.source_line:
            what = ("in cooperative groups: a grid-wide sync (this_grid().sync()) needs a cooperative "
                    "launch (cudaLaunchCooperativeKernel, cudaLaunchKernelEx with "
                    "cudaLaunchAttributeCooperative, or enable_cooperative_groups=True in warpsim's "
                    "API); in a plain launch its grid handle is invalid and it traps, as on a GPU")
        raise TrapError(f"trap executed by {len(idx)} thread(s) {what}",
                        kernel=ctx.kernel, block=where["block"], thread=where["thread"],
                        ptx_line=site.ins.line, instruction=str(site.ins),
                        source_line=site.described)


# ------------------------------------------------------------ runtime: calls

def _grow_stack(ctx, depth: int):
    if ctx.call_stack.shape[0] < depth:
        grown = np.zeros((max(depth, 2 * ctx.call_stack.shape[0]), ctx.n), dtype=np.int64)
        grown[:ctx.call_stack.shape[0]] = ctx.call_stack
        ctx.call_stack = grown


def _saved(ctx, key: str, like: np.ndarray, depth: int) -> np.ndarray:
    store = ctx.saved.setdefault(key, np.zeros((0,) + like.shape, dtype=like.dtype))
    if store.shape[0] < depth:
        grown = np.zeros((max(depth, 2 * store.shape[0]),) + like.shape, dtype=like.dtype)
        grown[:store.shape[0]] = store
        store = ctx.saved[key] = grown
    return store


def _frame_keys(ctx, program, function: str):
    regs = [f"{function}::{r}" for r in program.module.functions[function].regs]
    return [k for k in regs if k in ctx.regs] + \
           [k for k in ctx.param_vars if k.startswith(function + "::")]


def _push_stack_frame(ctx, program, idx, callee: str, return_gid: int):
    """A recursive call takes a frame of the thread's stack; past the limit it overflows at once.

    Only recursion counts: for a call chain the compiler can size, the
    driver makes the stack as large as it needs, as CUDA does.
    """
    used = ctx.stack_used[idx] + program.stack_frame_bytes(callee)
    limit = ctx.settings.stack_size
    over = np.flatnonzero(used > limit)
    if len(over):
        slot = int(idx[over[0]])
        where = ctx.where(slot)
        call = program.blocks[return_gid - 1].instructions[-1]
        raise StackOverflow(
            f"stack overflow: call {int(ctx.call_depth[slot]) + 1} deep into the recursive function "
            f"'{callee}' needs {int(used[over[0]])} bytes of stack, over the per-thread limit of "
            f"{limit} bytes ({program.stack_frame_bytes(callee)} bytes a frame; raise it with "
            f"warpsim.settings(stack_size=...), as cudaDeviceSetLimit(cudaLimitStackSize, ...) "
            f"does; on a GPU the launch fails with cudaErrorIllegalAddress)",
            kernel=ctx.kernel, block=where["block"], thread=where["thread"], ptx_line=call.line,
            instruction=str(call), source_line=program.source_line_with_text(call))
    ctx.stack_used[idx] = used


def enter_function(ctx, program, idx, callee: str, copies, return_gid: int):
    recursive = callee in program.recursive_functions
    depth = ctx.call_depth[idx]
    if recursive:
        _push_stack_frame(ctx, program, idx, callee, return_gid)
        for key in _frame_keys(ctx, program, callee):
            arr = ctx.regs.get(key)
            arr = arr if arr is not None else ctx.param_vars[key]
            _saved(ctx, key, arr, int(depth.max()) + 1)[depth, idx] = arr[idx]
    staged = [(dst, ctx.param_var(src)[idx].copy()) for src, dst, size in copies]
    for dst, values in staged:
        target = ctx.param_var(dst)
        target[idx, :values.shape[1]] = values[:, :target.shape[1]]
    _grow_stack(ctx, int(depth.max()) + 1)
    ctx.call_stack[depth, idx] = return_gid
    ctx.call_depth[idx] = depth + 1
    ctx.pc[idx] = program.function_entry[callee]
    if recursive and program.layout.local_size:
        ctx.ensure_local(program.layout.local_size * (int(depth.max()) + 2))


def enter_through_pointer(ctx, program, idx, targets, copies_by_callee, return_gid: int, site):
    """A call through a function pointer: each lane enters the function its pointer holds (lanes
    holding different ones diverge, as a virtual call over objects of mixed types does); a pointer
    to no function of the call's signature stops the launch, as the GPU stops at an illegal
    instruction."""
    from ...errors import IllegalInstruction
    from ..memory import FUNCTION_POINTER_BASE
    by_address = {FUNCTION_POINTER_BASE + program.function_entry[name]: name for name in copies_by_callee}
    for address in np.unique(targets).tolist():
        lanes = idx[targets == address]
        name = by_address.get(address)
        if name is None:
            where = ctx.where(int(lanes[0]))
            raise IllegalInstruction(
                f"call through a function pointer holding 0x{address:x}, which is no function of this "
                f"module with the call's signature ({', '.join(sorted(copies_by_callee)) or 'none'} are)",
                kernel=ctx.kernel, block=where["block"], thread=where["thread"], ptx_line=site.ins.line,
                instruction=str(site.ins), source_line=site.described)
        enter_function(ctx, program, lanes, name, copies_by_callee[name], return_gid)


def leave_function(ctx, program, function: str, idx):
    depth = ctx.call_depth[idx] - 1
    if np.any(depth < 0):
        raise AssertionError("return with an empty call stack")
    return_gid = ctx.call_stack[depth, idx]
    # Read the return values before the caller's frame is restored: in a
    # recursive function caller and callee share the same .param variables.
    staged = []
    for gid in np.unique(return_gid):
        sel = idx[return_gid == gid]
        copies = program.return_copies.get(int(gid), ())
        if isinstance(copies, dict):            # a call through a pointer: the returning function's
            copies = copies.get(function, ())
        for src, dst, size in copies:
            staged.append((dst, sel, ctx.param_var(src)[sel, :size].copy(), size))
    if function in program.recursive_functions:
        ctx.stack_used[idx] -= program.stack_frame_bytes(function)
        for key in _frame_keys(ctx, program, function):
            if key in ctx.saved:
                arr = ctx.regs.get(key)
                arr = arr if arr is not None else ctx.param_vars[key]
                # A register first written deeper down was never saved at this depth.
                arr[idx] = _saved(ctx, key, arr, int(depth.max()) + 1)[depth, idx]
    for dst, sel, values, size in staged:
        ctx.param_var(dst)[sel, :size] = values
    ctx.call_depth[idx] = depth
    ctx.pc[idx] = return_gid
